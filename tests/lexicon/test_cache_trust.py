"""The cache is trusted only when nobody else could have written it, read without ever
running or building anything it says, and checked field by field (issue #15, items 1-4).

The suite runs as root here and in CI: files and folders "of someone else" are chowned to a
uid no one has (root may), and the unsearchable-folder case drops root's power to ignore
permissions with setpriv, as tests/test_hostile.py does."""

from __future__ import annotations

import os
import pickle
import pickletools
import resource
import shutil
import stat
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver_cli.lexicon as lexicon_module
from solver_cli.cli import cli
from solver_cli.engine import movegen
from solver_cli.lexicon import cache as cachemod
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon.build import build_gaddag

WORDS = ["CAT", "CATS", "DOG", "DOGS", "QI", "ZA", "ZAS"]
INVENTED = "ZQXJ"  # a word only a forged cache would accept
OTHER_UID = 54321


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def word_list(tmp_path) -> Path:
    path = tmp_path / "words.txt"
    path.write_text("\n".join(WORDS) + "\n")
    return path


def plant_forged_cache(word_list: Path, monkeypatch) -> Path:
    """A well-formed cache for ``word_list`` (right name, right digest, valid checksum) whose
    GADDAG also accepts INVENTED: what anyone who can write the folder could make."""
    forged = build_gaddag(sorted([*WORDS, INVENTED]))
    with monkeypatch.context() as patch:
        patch.setattr(lexicon_module, "build_gaddag", lambda words, progress=None, builder=None: forged)
        lex = load_lexicon(str(word_list))
    assert lex.cache_path is not None and lex.contains(INVENTED)
    return lex.cache_path


def load(word_list: Path) -> tuple[object, list[str]]:
    said: list[str] = []
    return load_lexicon(str(word_list), warn=said.append), said


def refused_once(word_list: Path, *reason: str):
    lex, said = load(word_list)
    assert not lex.contains(INVENTED) and lex.contains("ZAS") and lex.built, said
    assert len(said) == 1, said
    for part in reason:
        assert part in said[0], said
    return lex


# --------------------------------------------------------------------------- 1. ownership and modes


def test_a_sound_cache_of_ours_is_used(cache, word_list, monkeypatch):
    plant_forged_cache(word_list, monkeypatch)
    lex, said = load(word_list)
    assert not lex.built and said == [] and lex.contains(INVENTED)  # ours, so trusted as it is


def test_a_cache_file_owned_by_someone_else_is_not_trusted(cache, word_list, monkeypatch):
    path = plant_forged_cache(word_list, monkeypatch)
    os.chown(path, OTHER_UID, OTHER_UID)
    refused_once(word_list, "owned by another user", str(path))


def test_a_cache_file_others_can_write_is_not_trusted(cache, word_list, monkeypatch):
    path = plant_forged_cache(word_list, monkeypatch)
    path.chmod(0o666)
    refused_once(word_list, "writable by group or others")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # replaced by a sound one of ours


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_cache_folder_others_can_write_is_neither_read_nor_written(cache, word_list, monkeypatch, mode):
    path = plant_forged_cache(word_list, monkeypatch)
    cache.chmod(mode)
    before = path.read_bytes()
    refused_once(word_list, "writable by group or others", str(cache))
    assert path.read_bytes() == before and [p.name for p in cache.iterdir()] == [path.name]


def test_a_cache_folder_owned_by_someone_else_is_not_trusted(cache, word_list, monkeypatch):
    plant_forged_cache(word_list, monkeypatch)
    os.chown(cache, OTHER_UID, OTHER_UID)
    refused_once(word_list, "owned by another user")


def test_a_cache_folder_that_is_someone_elses_link_is_not_trusted(tmp_path, word_list, monkeypatch):
    real = tmp_path / "real-cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(real))
    plant_forged_cache(word_list, monkeypatch)
    link = tmp_path / "cache-link"
    link.symlink_to(real)
    os.lchown(link, OTHER_UID, OTHER_UID)
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(link))
    refused_once(word_list, "symbolic link")
    mine = tmp_path / "my-link"
    mine.symlink_to(real)  # a link of your own to a folder of your own is fine
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(mine))
    lex, said = load(word_list)
    assert not lex.built and said == []


def test_a_cache_file_that_is_a_link_is_not_followed(cache, word_list, monkeypatch, tmp_path):
    path = plant_forged_cache(word_list, monkeypatch)
    elsewhere = tmp_path / "elsewhere.gaddag"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    refused_once(word_list, "symbolic link")
    assert not path.is_symlink()  # replaced by a sound file; the link's target is untouched
    assert elsewhere.exists()


def test_scrab_makes_its_folder_private(cache, word_list):
    lex, said = load(word_list)
    assert said == [] and stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(lex.cache_path.stat().st_mode) == 0o600


def test_the_default_folder_left_group_writable_by_an_older_scrab_is_tightened(tmp_path, word_list, monkeypatch):
    monkeypatch.delenv("SCRAB_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    lex, said = load(word_list)
    folder = lex.cache_path.parent
    assert folder.is_relative_to(tmp_path) and said == []
    folder.chmod(0o775)
    lex, said = load(word_list)
    assert not lex.built and said == [] and stat.S_IMODE(folder.stat().st_mode) == 0o700


# --------------------------------------------------------------------------- 2. what the file holds


def scrab(*args: str, cache: Path, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "solver_cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "SCRAB_CACHE_DIR": str(cache)},
        **kwargs,
    )


def answers_with_warnings(proc: subprocess.CompletedProcess, warnings: int = 1) -> None:
    # exit status 1: the check itself fails, because the invented word is not in the list
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.split()[:4] == ["ZAS", "valid", INVENTED, "not"], proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == warnings and all(line.startswith("Warning: ") for line in lines), proc.stderr


def cache_path_for(word_list: Path, cache: Path, monkeypatch) -> Path:
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(cache))
    lex, _ = load(word_list)
    return lex.cache_path


def test_a_fifo_at_the_cache_path_does_not_hang(tmp_path, word_list, monkeypatch):
    cache = tmp_path / "cache"
    path = cache_path_for(word_list, cache, monkeypatch)
    path.unlink()
    os.mkfifo(path, 0o600)
    answers_with_warnings(scrab("check", "ZAS", INVENTED, "--lexicon", str(word_list), cache=cache))
    assert path.is_file()  # a sound cache took its place in our own folder


def hash_bomb(depth: int = 60) -> bytes:
    """A pickle of ``{key: 1}`` where ``key`` is ``(k, k)`` nested ``depth`` times over shared
    halves: small on disk, but hashing it (which unpickling a dict key does) takes 2**depth
    steps. Assembled opcode by opcode: building it in Python would hang the test itself."""
    out = [b"\x80\x04", b"}", b")", b"\x94", b"0"]  # PROTO 4, EMPTY_DICT, EMPTY_TUPLE, MEMOIZE (0), POP
    for level in range(depth):
        out += [b"h" + bytes([level]), b"h" + bytes([level]), b"\x86", b"\x94"]  # BINGET x2, TUPLE2, MEMOIZE
        if level < depth - 1:
            out.append(b"0")  # POP: only the last tuple stays, as the key
    out += [b"K\x01", b"s", b"."]  # BININT1 1, SETITEM, STOP
    return b"".join(out)


@pytest.mark.parametrize(
    "content",
    [
        hash_bomb(),
        pickle.dumps([[[]]] * 10),
        b"\x80\x05" + b"(" * 100_000,
        pickle.dumps({"magic": "scrab-gaddag", "nodes": bytearray(10)}),
    ],
    ids=["hash-bomb", "lists", "marks", "bytearray"],
)
def test_a_hostile_pickle_at_the_cache_path_builds_nothing(tmp_path, word_list, monkeypatch, content):
    cache = tmp_path / "cache"
    path = cache_path_for(word_list, cache, monkeypatch)
    path.write_bytes(content)
    answers_with_warnings(scrab("check", "ZAS", INVENTED, "--lexicon", str(word_list), cache=cache))


def test_a_huge_cache_file_is_refused_without_being_read(tmp_path, word_list, monkeypatch):
    cache = tmp_path / "cache"
    path = cache_path_for(word_list, cache, monkeypatch)
    with open(path, "r+b") as fh:
        fh.truncate(cachemod.MAX_CACHE_BYTES + 1)  # sparse: no disk used

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (900 * 2**20, 900 * 2**20))

    proc = scrab("check", "ZAS", INVENTED, "--lexicon", str(word_list), cache=cache, preexec_fn=cap)
    answers_with_warnings(proc)
    assert "too large" in proc.stderr


# --------------------------------------------------------------------------- 3. every field checked


def payload_of(path: Path) -> dict:
    # (bytes values come back as views of the file's data; a forger needs them as bytes)
    payload = cachemod.load_flat_pickle(path.read_bytes())
    return {key: bytes(value) if isinstance(value, memoryview) else value for key, value in payload.items()}


def rewrite(path: Path, payload: dict, *, fix_checksum: bool) -> None:
    if fix_checksum:
        payload["checksum"] = cachemod.checksum(payload)
    path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))


def changed(value: object) -> object:
    if isinstance(value, bool) or value is None:
        raise AssertionError(value)
    if isinstance(value, int):
        return value ^ 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1:] != "0" else "1")
    if isinstance(value, bytes):
        return value[:-1] + bytes([value[-1] ^ 1])
    raise AssertionError(value)


def fields() -> list[str]:
    return sorted(cachemod.CacheHeader.__annotations__)


def test_the_checksum_covers_every_field(cache, word_list):
    lex, _ = load(word_list)
    original = lex.cache_path.read_bytes()
    assert sorted(payload_of(lex.cache_path)) == fields()
    for key in fields():
        if key == "checksum":
            continue
        payload = payload_of(lex.cache_path)
        payload[key] = changed(payload[key])
        rewrite(lex.cache_path, payload, fix_checksum=False)
        again, said = load(word_list)
        assert again.built and len(said) == 1 and "rebuilding" in said[0], (key, said)
        assert again.gaddag.nodes == lex.gaddag.nodes
        lex.cache_path.write_bytes(original)


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("root", -1, "root"),
        ("root", 10**9, "root"),
        ("dawg_root", 10**6, "root"),
        ("states", 0, "counts"),
        ("states", 10**9, "counts"),
        ("arcs", -5, "counts"),
        ("words", 0, "word count"),
        ("byteorder", "middle", "byte order"),
        ("format", 1, "old format"),
        ("max_length", 16, "different word list"),
        ("digest", "0" * 64, "different word list"),
        ("root", 2.5, "mistyped"),
        ("root", True, "not a scrab cache"),
        ("name", b"bytes", "mistyped"),
        ("extra", 1, "fields"),
    ],
)
def test_fields_out_of_range_with_a_valid_checksum_are_refused(cache, word_list, key, value, reason):
    lex, _ = load(word_list)
    payload = payload_of(lex.cache_path)
    payload[key] = value
    rewrite(lex.cache_path, payload, fix_checksum=True)
    again, said = load(word_list)
    assert again.built and again.gaddag.nodes == lex.gaddag.nodes
    assert len(said) == 1 and reason in said[0], said


def _forge_nodes(nodes: array, root: int, how: str) -> array:
    """The root's children sent out of the array, or back to the root (a loop)."""
    forged = array("I", nodes)
    arcs = (forged[root] & ((1 << 27) - 1)).bit_count()
    for k in range(1, arcs + 1):
        forged[root + k] = 0xFFFFFF00 if how == "outside" else root
    return forged


@pytest.mark.parametrize("checker", ["native", "python"])
@pytest.mark.parametrize("how", ["outside", "loop"])
def test_node_indices_are_range_checked_at_load(cache, word_list, monkeypatch, checker, how):
    """A sound checksum over a bad node array (a file forged in the user's own folder, or
    written by a buggy build) is caught before any walk: one warning, then a rebuild."""
    if checker == "native" and not movegen.NATIVE_BUILT:
        pytest.skip("the native engine is not built")
    if checker == "python":
        monkeypatch.setattr(movegen, "_movegen_c", None)
    lex, _ = load(word_list)
    payload = payload_of(lex.cache_path)
    nodes = array("I")
    nodes.frombytes(payload["nodes"])
    payload["nodes"] = _forge_nodes(nodes, payload["root"], how).tobytes()
    rewrite(lex.cache_path, payload, fix_checksum=True)
    again, said = load(word_list)
    assert again.built and again.gaddag.nodes == lex.gaddag.nodes
    assert len(said) == 1 and "is damaged (an arc points to no earlier state); rebuilding it" in said[0], said
    assert again.contains(WORDS[0]) and not again.contains("ZZZQX")


def test_every_built_gaddag_passes_both_checks(small_gaddag):
    from solver_cli.engine.gaddag import structure_problem

    g = small_gaddag
    assert structure_problem(g.nodes, g.root, g.dawg_root) is None
    assert movegen.gaddag_problem(g) is None
    assert structure_problem(_forge_nodes(g.nodes, g.root, "loop"), g.root, g.dawg_root) is not None


def test_truncation_at_every_opcode_is_refused(cache, word_list):
    lex, _ = load(word_list)
    data = lex.cache_path.read_bytes()
    cuts = sorted({pos for _, _, pos in pickletools.genops(data)} | {pos + 1 for _, _, pos in pickletools.genops(data)})
    assert len(cuts) > 20
    for cut in [0, *(c for c in cuts if c < len(data)), len(data) - 1]:
        lex.cache_path.write_bytes(data[:cut])
        again, said = load(word_list)
        assert again.built and len(said) == 1 and "rebuilding" in said[0], (cut, said)


def test_the_file_never_reaches_pickle_load(cache, word_list, monkeypatch):
    load(word_list)

    def forbidden(*args, **kwargs):
        raise AssertionError("pickle.load called on a cache file")

    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    lex, said = load(word_list)
    assert not lex.built and said == []


# --------------------------------------------------------------------------- 4. no usable folder at all


def unprivileged() -> list[str]:
    """A prefix under which root obeys folder permissions (no DAC override or read-search)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "running as root without setpriv: cannot make a folder unsearchable"
    return [setpriv, "--inh-caps=-all", "--bounding-set", "-dac_override,-dac_read_search"]


@pytest.mark.parametrize("mode", [0o600, 0o000, 0o300])
def test_an_unsearchable_cache_folder_answers_from_memory(tmp_path, word_list, mode):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    cache.chmod(mode)
    try:
        proc = subprocess.run(
            [
                *unprivileged(),
                sys.executable,
                "-m",
                "solver_cli",
                "check",
                "ZAS",
                INVENTED,
                "--lexicon",
                str(word_list),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "SCRAB_CACHE_DIR": str(cache)},
        )
    finally:
        cache.chmod(0o700)
    answers_with_warnings(proc)
    assert "cache" in proc.stderr and "in-memory" in proc.stderr
    assert list(cache.iterdir()) == []


NO_HOME = """
import pwd, sys
def no_entry(uid):
    raise KeyError(f"getpwuid(): uid not found: {uid}")
pwd.getpwuid = no_entry  # a user with no passwd entry, as in some containers
sys.argv = ["scrab"] + sys.argv[1:]
from solver_cli.cli import main
main()
"""


def test_no_home_folder_answers_from_memory(tmp_path, word_list):
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "SCRAB_CACHE_DIR") and not k.startswith("XDG_")}
    proc = subprocess.run(
        [sys.executable, "-c", NO_HOME, "check", "ZAS", INVENTED, "--lexicon", str(word_list)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=tmp_path,
    )
    answers_with_warnings(proc)
    assert "HOME" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.txt"]  # no folder named "~" made here


def test_no_home_folder_in_process(tmp_path, word_list, monkeypatch):
    import pwd

    for name in ("HOME", "SCRAB_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "ZAS", "--lexicon", str(word_list)])
    assert result.exit_code == 0 and result.exception is None, result.output
    assert result.stdout.split() == ["ZAS", "valid"]
    assert (
        [line for line in result.stderr.splitlines() if line]
        == [line for line in result.stderr.splitlines() if line.startswith("Warning: no cache folder")]
        != []
    )


# --------------------------------------------------------------------------- sizes tied to the builder


def test_a_cache_file_larger_than_any_build_is_refused_without_being_read(tmp_path, word_list, monkeypatch):
    """The builder makes at most MAX_NODE_ENTRIES entries (64 MiB), so a file much larger
    than that (here 65 MiB, which the old 1 GiB cap read whole) is refused by its size."""
    from solver_cli.lexicon.build import MAX_NODE_ENTRIES

    cache = tmp_path / "cache"
    path = cache_path_for(word_list, cache, monkeypatch)
    with open(path, "r+b") as fh:
        fh.truncate(4 * MAX_NODE_ENTRIES + (1 << 20))  # sparse: no disk used
    proc = scrab("check", "ZAS", INVENTED, "--lexicon", str(word_list), cache=cache)
    answers_with_warnings(proc)
    assert "too large" in proc.stderr and f"at most {cachemod.MAX_CACHE_BYTES:,}" in proc.stderr


def test_the_largest_gaddag_the_builder_can_make_is_still_cached(cache, monkeypatch):
    """The size cap leaves room for a node array at the builder's limit and its header."""
    from solver_cli.engine.gaddag import Gaddag
    from solver_cli.lexicon.build import MAX_NODE_ENTRIES

    largest = Gaddag(array("I", bytes(4 * MAX_NODE_ENTRIES)), 0, 0, MAX_NODE_ENTRIES, 0)
    said: list[str] = []
    with cachemod.open_cache_folder(said.append) as folder:
        assert folder is not None
        name = "largest-0123456789abcdef-L15-v2.gaddag"
        written = folder.write(name, largest, "a" * 64, 15, 1, "x" * cachemod.MAX_NAME_CHARS, said.append)
        assert written is not None and said == []
        assert cachemod.MAX_CACHE_BYTES - 65536 < written.stat().st_size <= cachemod.MAX_CACHE_BYTES
        header = folder.read(name, "a" * 64, 15, said.append)
    assert said == [] and header is not None and header["states"] == MAX_NODE_ENTRIES


@pytest.mark.parametrize(
    ("key", "extra", "reason"),
    [("states", 1, "exceed the builder's"), ("arcs", 1, "exceed the builder's"), ("words", None, "word count")],
)
def test_counts_beyond_what_the_builder_makes_are_refused(cache, word_list, key, extra, reason):
    """With a valid checksum and a node array that matches them, counts no build can reach
    (more entries than MAX_NODE_ENTRIES, more words than a list may have) are damage."""
    from solver_cli.lexicon.build import MAX_NODE_ENTRIES
    from solver_cli.lexicon.wordlist import MAX_WORDS

    lex, _ = load(word_list)
    payload = payload_of(lex.cache_path)
    if extra is None:
        payload["words"] = MAX_WORDS + 1
    else:
        payload["states"], payload["arcs"] = MAX_NODE_ENTRIES + 1 - extra * (key == "arcs"), extra * (key == "arcs")
        payload["nodes"] = bytes(4 * (MAX_NODE_ENTRIES + 1))  # states with no arcs: a sound array
        payload["root"] = payload["dawg_root"] = 0
    payload["checksum"] = cachemod.checksum(payload)
    problem = cachemod.check_payload(payload, None, None)
    assert problem is not None and problem.startswith("damaged (") and reason in problem, problem
    rewrite(lex.cache_path, payload, fix_checksum=True)
    again, said = load(word_list)
    assert again.built and again.gaddag.nodes == lex.gaddag.nodes
    assert len(said) == 1 and reason in said[0], said


# --------------------------------------------------------------------------- the default folder


@pytest.mark.skipif(sys.platform != "linux", reason="the platformdirs shortcut is taken on Linux only")
@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        (None, "/home/ann"),
        ("/var/tmp/xdg cache", "/home/ann"),  # an absolute XDG_CACHE_HOME wins
        ("relative/cache", "/home/ann"),  # a relative one: platformdirs answers
        ("", "/home/ann"),
        ("  ", "/home/ann"),
        ("/x/", "/home/ann/"),  # trailing separators
        (None, "relative-home"),  # not the plain case: platformdirs answers
        (None, ""),
        (None, None),
    ],
)
def test_the_default_folder_is_platformdirs_own(monkeypatch, xdg, home):
    """scrab finds its default folder without importing platformdirs (4 ms of every
    command) where the answer is plain; it must be the folder platformdirs names."""
    import platformdirs

    monkeypatch.delenv("SCRAB_CACHE_DIR", raising=False)
    for name, value in (("XDG_CACHE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    try:
        expected = Path(platformdirs.user_cache_dir("scrab", appauthor=False))
    except (RuntimeError, KeyError, OSError):
        expected = None
    shortcut = cachemod._xdg_cache_dir()
    if shortcut is not None:
        assert shortcut == expected
    if expected is not None and expected.is_absolute():
        assert cachemod.cache_dir() == expected

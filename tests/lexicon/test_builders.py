"""The native GADDAG builder against its pure-Python twin: the same node array, entry for
entry, on random, adversarial and the shipped lists, and the same refusals at the size
limits; the C extension's own checks of its input; the choice of builder (SCRAB_ENGINE);
the cache files of both; and the bounded memory of a build, in subprocesses with a capped
address space (issue #13; issue #15, item 8)."""

from __future__ import annotations

import gzip
import os
import pickle
import random
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver_cli
from solver_cli._data import lexicons_folder
from solver_cli.engine.alphabet import LETTERS
from solver_cli.errors import InputError, LexiconError
from solver_cli.lexicon import build as build_module
from solver_cli.lexicon import cache as cache_module
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon import wordlist as wordlist_module
from solver_cli.lexicon.build import (
    MAX_NODE_ENTRIES,
    MAX_PREFIXES,
    MAX_WORD_LETTERS,
    NATIVE_BUILT,
    build_gaddag,
    chosen_builder,
)
from solver_cli.lexicon.wordlist import parse_word_list

needs_native = pytest.mark.skipif(not NATIVE_BUILT, reason="the native builder is not built")
# The folder holding the solver_cli this test imported (the installed copy in CI, where the
# checkout has no compiled extension): subprocesses must run the same one.
PACKAGE_PARENT = Path(solver_cli.__file__).resolve().parents[1]


def both(words: list[str]):
    """The GADDAG from each builder, checked to be the same array with the same roots."""
    native = build_gaddag(words, builder="native")
    python = build_gaddag(words, builder="python")
    assert native.nodes.typecode == python.nodes.typecode == "I"
    assert native.nodes == python.nodes
    assert (native.root, native.dawg_root, native.state_count, native.arc_count) == (
        python.root,
        python.dawg_root,
        python.state_count,
        python.arc_count,
    )
    return native


def prefix_count(words: list[str]) -> int:
    return len({w[:k] for w in words for k in range(1, len(w) + 1)})


def random_words(count: int, length: int, seed: int, alphabet: str = LETTERS) -> list[str]:
    letters = "".join(random.Random(seed).choices(alphabet, k=count * length))
    return sorted({letters[i : i + length] for i in range(0, len(letters), length)})


word_lists = (
    st.sampled_from(["A", "AB", "ABC", "ABCDE", "AEINRST", LETTERS])
    .flatmap(lambda alphabet: st.lists(st.text(alphabet=alphabet, min_size=1, max_size=15), min_size=0, max_size=60))
    .map(lambda ws: sorted(set(ws)))
)


# --- the same array from both builders --------------------------------------------------


@needs_native
@settings(max_examples=400, deadline=None)
@given(word_lists)
def test_same_array_on_random_lists(words):
    both(words)


ADVERSARIAL = {
    "empty": [],
    "one word": ["QI"],
    "single letters": list(LETTERS),
    "every two-letter word": sorted(a + b for a in LETTERS for b in LETTERS),
    "shared suffixes": sorted({a + b + suffix for a in LETTERS for b in "AEIOU" for suffix in ("ATIONS", "NESS", "")}),
    "shared prefix and suffix": sorted({"UN" + a + b + "ING" for a in LETTERS for b in LETTERS}),
    "each a prefix of the next": ["ABCDEFGHIJKLMNO"[:k] for k in range(1, 16)],
    "one letter repeated": ["A" * k for k in range(1, MAX_WORD_LETTERS + 1)],
    "longest words": random_words(200, MAX_WORD_LETTERS, seed=1, alphabet="AB") + ["Z" * MAX_WORD_LETTERS],
    "15-letter words": random_words(3000, 15, seed=2),
    "15-letter words of two letters": random_words(3000, 15, seed=3, alphabet="AB"),
    "all strings over ABC up to 6": sorted(
        {"".join(random.Random(n).choice("ABC") for _ in range(1 + n % 6)) for n in range(5000)}
    ),
    "palindromes": sorted({w + w[::-1] for w in random_words(500, 5, seed=4)}),
}


@needs_native
@pytest.mark.parametrize("name", ADVERSARIAL)
def test_same_array_on_adversarial_lists(name):
    words = sorted(ADVERSARIAL[name])
    g = both(words)
    assert all(g.contains(w) for w in words[::7])


def shipped_words(name: str) -> list[str]:
    data = (lexicons_folder() / f"{name}.txt.gz").read_bytes()
    return parse_word_list(gzip.decompress(data).decode(), 15).words


@needs_native
@pytest.mark.parametrize("name", ["kjxqz", pytest.param("sowpods", marks=pytest.mark.soak)])
def test_same_array_on_the_shipped_lists(name):
    words = shipped_words(name)
    g = both(words)
    assert g.state_count > 400_000 and all(g.contains(w) for w in words[::1000])


# --- the same limits in both builders ---------------------------------------------------


@needs_native
@settings(max_examples=200, deadline=None)
@given(word_lists, st.integers(1, 400), st.integers(0, 120))
def test_both_builders_refuse_the_same_lists(words, max_entries, max_prefixes):
    outcomes = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(build_module, "MAX_NODE_ENTRIES", max_entries)
        mp.setattr(build_module, "MAX_PREFIXES", max_prefixes)
        for builder in ("native", "python"):
            try:
                g = build_gaddag(words, builder=builder)
                outcomes.append(("built", g.nodes.tobytes(), g.root, g.dawg_root))
                assert len(g.nodes) <= max_entries and prefix_count(words) <= max_prefixes
            except LexiconError as exc:
                outcomes.append(("refused", str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("builder", ["python", pytest.param("native", marks=needs_native)])
def test_limits_are_exact_and_named(builder, monkeypatch):
    words = random_words(300, 8, seed=5)
    size = len(build_gaddag(words, builder=builder).nodes)
    prefixes = prefix_count(words)
    monkeypatch.setattr(build_module, "MAX_NODE_ENTRIES", size)
    monkeypatch.setattr(build_module, "MAX_PREFIXES", prefixes)
    assert len(build_gaddag(words, builder=builder).nodes) == size  # exactly at both limits: built

    monkeypatch.setattr(build_module, "MAX_NODE_ENTRIES", size - 1)
    with pytest.raises(LexiconError, match=f"more than {size - 1:,} node entries"):
        build_gaddag(words, builder=builder)
    monkeypatch.setattr(build_module, "MAX_NODE_ENTRIES", size)
    monkeypatch.setattr(build_module, "MAX_PREFIXES", prefixes - 1)
    with pytest.raises(LexiconError, match=f"more than {prefixes - 1:,} distinct prefixes"):
        build_gaddag(words, builder=builder)


@pytest.mark.parametrize("builder", ["python", pytest.param("native", marks=needs_native)])
def test_a_word_longer_than_the_limit_is_refused(builder):
    assert build_gaddag(["A" * MAX_WORD_LETTERS], builder=builder).contains("A" * MAX_WORD_LETTERS)
    with pytest.raises(LexiconError, match=f"a word of {MAX_WORD_LETTERS + 1} letters: the limit is"):
        build_gaddag(["A" * (MAX_WORD_LETTERS + 1)], builder=builder)


def test_word_count_limit_in_both_parsers(monkeypatch):
    monkeypatch.setattr(wordlist_module, "MAX_WORDS", 3)
    assert parse_word_list("AA\nBB\nCC\nAA\n", 15).words == ["AA", "BB", "CC"]  # duplicates do not count
    for text in ("AA\nBB\nCC\nDD\n", "# a comment: the line-by-line parser\nAA\nBB\nCC\nDD\n"):
        with pytest.raises(LexiconError, match="more than 3 words, the limit"):
            parse_word_list(text, 15)


def test_word_count_limit_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(wordlist_module, "MAX_WORDS", 2)
    path = tmp_path / "many.txt"
    path.write_text("QI\nZA\nXU\n")
    with pytest.raises(LexiconError, match=r"many\.txt: word list too big: more than 2 words, the limit"):
        load_lexicon(str(path))


# --- the extension trusts nothing ---------------------------------------------------------


@needs_native
@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"AB\nAA", "word 2: a word not greater than the one before"),
        (b"AB\nAB", "word 2: a word not greater than the one before"),
        (b"ABC\nAB", "word 2: a word not greater than the one before"),
        (b"AB\nAb", "word 2: a character other than A-Z"),
        (b"AB\n\xc3\x89T", "word 2: a character other than A-Z"),
        (b"AB\x00", "word 1: a character other than A-Z"),
        (b"AB\n", "word 2: an empty word"),
        (b"\nAB", "word 1: an empty word"),
        (b"AB\r\nCD", "word 1: a character other than A-Z"),
        (b"A" * 65, "word 1: a word longer than the limit"),
    ],
)
def test_native_builder_checks_every_word(text, message):
    from solver_cli.lexicon import _build_c

    with pytest.raises(ValueError, match=message):
        _build_c.build(text, 1000, 1000)


@needs_native
def test_native_builder_checks_its_arguments():
    from solver_cli.lexicon import _build_c

    assert _build_c.MAX_LETTERS == MAX_WORD_LETTERS
    nodes, root, dawg_root, states, arcs = _build_c.build(b"", 1, 0)
    assert (nodes, root, dawg_root, states, arcs) == (bytes(4), 0, 0, 1, 0)
    with pytest.raises(TypeError):
        _build_c.build(bytearray(b"AB"), 100, 100)  # mutable: could change while the GIL is released
    with pytest.raises(TypeError):
        _build_c.build("AB", 100, 100)
    for entries, prefixes in ((0, 10), (-1, 10), (2**31 + 1, 10), (10, -1), (10, 2**31 + 1)):
        with pytest.raises(ValueError, match="limits must be"):
            _build_c.build(b"AB", entries, prefixes)
    with pytest.raises(_build_c.LimitError) as caught:
        _build_c.build(b"AB", 3, 100)
    assert caught.value.args == ("entries", 3)
    with pytest.raises(_build_c.LimitError) as caught:
        _build_c.build(b"AB\nCD", 100, 3)
    assert caught.value.args == ("prefixes", 3)


# --- choosing the builder -----------------------------------------------------------------


def test_scrab_engine_chooses_the_builder(monkeypatch):
    monkeypatch.delenv("SCRAB_ENGINE", raising=False)
    assert chosen_builder() == ("native" if NATIVE_BUILT else "python")
    monkeypatch.setenv("SCRAB_ENGINE", " Python ")
    assert chosen_builder() == "python"
    monkeypatch.setenv("SCRAB_ENGINE", "fast")
    with pytest.raises(InputError, match="SCRAB_ENGINE='fast': expected one of native, python"):
        chosen_builder()


def test_without_the_extension_python_builds_and_native_is_refused(monkeypatch):
    monkeypatch.setattr(build_module, "NATIVE_BUILT", False)
    monkeypatch.delenv("SCRAB_ENGINE", raising=False)
    assert chosen_builder() == "python"
    monkeypatch.setenv("SCRAB_ENGINE", "native")
    with pytest.raises(InputError, match="native GADDAG builder is not built"):
        chosen_builder()


@pytest.mark.parametrize("builder", ["python", pytest.param("native", marks=needs_native)])
def test_the_lexicon_says_which_builder_ran(builder, tmp_path, monkeypatch, small_words):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SCRAB_ENGINE", builder)
    path = tmp_path / "words.txt"
    path.write_text("\n".join(small_words))
    built = load_lexicon(str(path))
    assert built.built and built.builder == builder
    loaded = load_lexicon(str(path))
    assert not loaded.built and loaded.builder is None
    assert loaded.gaddag.nodes == built.gaddag.nodes


@needs_native
def test_cache_files_of_both_builders_are_the_same_bytes(tmp_path, monkeypatch, small_words):
    monkeypatch.setattr(cache_module, "time", types.SimpleNamespace(time=lambda: 1_700_000_000.0))
    path = tmp_path / "words.txt"
    path.write_text("\n".join(small_words))
    files = []
    for builder in ("native", "python"):
        folder = tmp_path / builder
        monkeypatch.setenv("SCRAB_CACHE_DIR", str(folder))
        monkeypatch.setenv("SCRAB_ENGINE", builder)
        lexicon = load_lexicon(str(path))
        assert lexicon.builder == builder and lexicon.cache_path is not None
        files.append(lexicon.cache_path.read_bytes())
    assert files[0] == files[1]
    assert pickle.loads(files[0])["created"] == 1_700_000_000.0  # the only field that differs otherwise


# --- bounded memory, in a subprocess with a capped address space ------------------------

GIB = 1 << 30


def run_capped(args: list[str], address_space: int, engine: str, cache: Path) -> subprocess.CompletedProcess[str]:
    """``scrab ARGS`` in a fresh interpreter whose address space is capped (RLIMIT_AS)."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):  # .ci/sanitize
        pytest.skip("no address-space cap under AddressSanitizer: its shadow memory alone is terabytes of it")
    code = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n"
        "from solver_cli.cli import main\n"
        f"sys.argv = ['scrab', *{args!r}]\n"
        "main()\n"
    )
    env = dict(os.environ, SCRAB_ENGINE=engine, SCRAB_CACHE_DIR=str(cache), PYTHONPATH=str(PACKAGE_PARENT))
    # cwd: `python -c` puts the working folder first on sys.path, and from the checkout that
    # would import its uncompiled copy instead.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cache, timeout=600)


def assert_one_clean_error(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], result.stderr


@pytest.fixture(scope="module")
def over_entries(tmp_path_factory) -> Path:
    """150,000 random 15-letter words: about 24M node entries, over the limit (16.8M)."""
    path = tmp_path_factory.mktemp("big") / "random15.txt"
    path.write_text("\n".join(random_words(150_000, 15, seed=6)) + "\n")
    return path


@needs_native
def test_a_list_over_the_entry_limit_is_refused_within_a_gigabyte(over_entries, tmp_path):
    result = run_capped(["check", "QI", "--lexicon", str(over_entries)], GIB, "native", tmp_path)
    assert_one_clean_error(
        result, f"random15.txt: word list too big: its GADDAG would need more than {MAX_NODE_ENTRIES:,} node entries"
    )


@needs_native
def test_a_list_over_the_prefix_limit_is_refused_within_a_gigabyte(tmp_path):
    path = tmp_path / "random15-400k.txt"
    path.write_text("\n".join(random_words(400_000, 15, seed=7)) + "\n")  # about 4.9M prefixes
    result = run_capped(["check", "QI", "--lexicon", str(path)], GIB, "native", tmp_path)
    assert_one_clean_error(result, f"random15-400k.txt: word list too big: its words have more than {MAX_PREFIXES:,}")


@pytest.mark.parametrize(
    ("engine", "megabytes"),
    [("python", 400), pytest.param("native", 160, marks=needs_native)],
)
def test_running_out_of_memory_is_a_clear_error(engine, megabytes, over_entries, tmp_path):
    # Less memory than the build needs before it reaches the limit (about 1.3 GB with the
    # Python builder, 250 MB of address space with the native one): one error line, never a
    # MemoryError or a traceback.
    result = run_capped(["check", "QI", "--lexicon", str(over_entries)], megabytes << 20, engine, tmp_path)
    assert_one_clean_error(result, "random15.txt: not enough memory to build the GADDAG of this word list")

"""Word lists, and the GADDAG built from them once and cached on disk.

A word list is one word per line in any case; blank lines and ``#`` comments are ignored,
lines with other characters are skipped (and counted), words longer than the board are
dropped. The cache is a small pickled dict: a header (magic, format version, the list's
SHA-256, the length limit, counts) and the nodes as one uint32 ``bytes`` blob, so loading
costs milliseconds. Only scrab's own files in the user's cache folder are ever unpickled,
and through an unpickler that refuses every class, so a foreign file cannot run code.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import pickle
import re
import sys
import tempfile
import time
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from solver_cli.errors import LexiconError
from solver_cli.files import path_exists, read_limited
from solver_cli.gaddag import Gaddag, Progress, build_gaddag, from_array

FORMAT_VERSION = 1
MAGIC = "scrab-gaddag"
DEFAULT_LEXICON = "kjxqz"
CACHE_ENV = "SCRAB_CACHE_DIR"
MAX_WORD_LIST_BYTES = 64_000_000  # a word list of the largest kind is about 3 MB
_WORD = re.compile(r"[A-Za-z]+")

Warn = Callable[[str], None]


@dataclass
class Lexicon:
    """A loaded lexicon: its name, the GADDAG, and where it came from."""

    name: str
    gaddag: Gaddag
    word_count: int
    sha256: str
    max_length: int
    cache_path: Path | None  # None when it was built in memory only
    built: bool  # True when this call built the GADDAG (cold start)

    def contains(self, word: str) -> bool:
        return self.gaddag.contains(word)


@dataclass(frozen=True)
class WordSource:
    name: str  # shipped name or the file's path as given
    path: Path | None  # None for a shipped list
    data: bytes  # the file's bytes as stored (gzip for shipped lists)

    def text(self) -> str:
        raw = self.data
        if raw.startswith(b"\x1f\x8b"):  # shipped lists, and any gzipped list a user gives
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError, zlib.error) as exc:
                raise LexiconError(f"{self.name}: not a readable gzip file ({exc})") from None
        if b"\0" in raw[:1_000_000] and raw.count(b"\0") > len(raw) // 100:
            raise LexiconError(f"{self.name}: this is not a text word list (binary data)")
        return raw.decode("utf-8-sig", errors="replace")  # -sig: a BOM is not part of the first word


def lexicon_folder():
    """Where the shipped word lists are: the installed data package ``solver_cli.lexicons``
    (mapped from the repository's top-level ``lexicons/``), or that folder itself when the
    package runs from a source checkout without being installed there."""
    try:
        return resources.files("solver_cli.lexicons")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "lexicons"


def shipped_lexicons() -> list[str]:
    return sorted(p.name[: -len(".txt.gz")] for p in lexicon_folder().iterdir() if p.name.endswith(".txt.gz"))


def open_source(name_or_path: str | None) -> WordSource:
    """Resolve ``--lexicon``: a shipped name, else a path to a word-list file."""
    if name_or_path is not None and not name_or_path.strip():
        raise LexiconError("empty word-list name: give a shipped lexicon (" + ", ".join(shipped_lexicons()) + ") or a file")
    name = name_or_path or DEFAULT_LEXICON
    if name in shipped_lexicons():
        data = (lexicon_folder() / f"{name}.txt.gz").read_bytes()
        return WordSource(name, None, data)
    path = Path(name)
    if not path_exists(name):
        known = ", ".join(shipped_lexicons())
        shown = name if len(name) <= 80 else name[:60] + "..."
        raise LexiconError(f"no word list {shown!r}: not a shipped lexicon ({known}) nor an existing file")
    if path.is_dir():
        raise LexiconError(f"word list {name}: is a directory, not a file")
    return WordSource(name, path, read_limited(path, MAX_WORD_LIST_BYTES, "word list"))


@dataclass
class WordList:
    words: list[str]  # sorted, unique, uppercase, 2..max_length letters
    skipped: int  # lines with characters other than letters
    too_long: int
    first_skipped: int  # line number of the first skipped line (0 if none)


def parse_word_list(text: str, max_length: int) -> WordList:
    words = set()
    skipped = too_long = first_skipped = 0
    for number, line in enumerate(io.StringIO(text), 1):
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        if not _WORD.fullmatch(word) or not word.isascii():
            skipped += 1
            first_skipped = first_skipped or number
            continue
        if len(word) > max_length:
            too_long += 1
            continue
        if len(word) >= 2:  # one-letter "words" can never be played
            words.add(word.upper())
    return WordList(sorted(words), skipped, too_long, first_skipped)


def cache_dir() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("scrab", appauthor=False))


def cache_file(source: WordSource, sha256: str, max_length: int) -> Path:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", Path(source.name).name.split(".")[0])[:40] or "lexicon"
    return cache_dir() / f"{stem}-{sha256[:16]}-L{max_length}-v{FORMAT_VERSION}.gaddag"


def load_lexicon(
    name_or_path: str | None,
    max_length: int = 15,
    progress: Progress | None = None,
    warn: Warn | None = None,
) -> Lexicon:
    """The lexicon's GADDAG, from the cache when it is sound, else built and cached."""
    say = warn or (lambda message: None)
    source = open_source(name_or_path)
    sha256 = hashlib.sha256(source.data).hexdigest()
    path = cache_file(source, sha256, max_length)

    header = None
    if path.exists():
        header = _read_cache(path, sha256, max_length, say)
        if header is not None:
            gaddag = from_array(
                header["nodes"], header["root"], header["dawg_root"], header["states"], header["arcs"]
            )
            return Lexicon(source.name, gaddag, header["words"], sha256, max_length, path, False)

    word_list = parse_word_list(source.text(), max_length)
    if word_list.skipped:
        say(
            f"{source.name}: skipped {word_list.skipped} line(s) with characters other than A-Z "
            f"(first at line {word_list.first_skipped})"
        )
    if not word_list.words:
        raise LexiconError(f"{source.name}: no usable words (need words of 2 to {max_length} letters A-Z)")
    gaddag = build_gaddag(word_list.words, progress)
    saved = _write_cache(path, gaddag, sha256, max_length, len(word_list.words), say)
    return Lexicon(source.name, gaddag, len(word_list.words), sha256, max_length, saved, True)


class _NoClassesUnpickler(pickle.Unpickler):
    """Our cache holds only dicts, strings, ints and bytes: refuse anything else."""

    def find_class(self, module: str, name: str):  # noqa: D401 - pickle API
        raise pickle.UnpicklingError(f"unexpected object {module}.{name} in cache")


def _read_cache(path: Path, sha256: str, max_length: int, say: Warn) -> dict | None:
    """The validated header with ``nodes`` as an array, or None (with a warning) if unsound."""
    try:
        with open(path, "rb") as fh:
            payload = _NoClassesUnpickler(fh).load()
        problem = _check_payload(payload, sha256, max_length)
        if problem is None:
            data = array("I")
            data.frombytes(payload["nodes"])
            if sys.byteorder != payload["byteorder"]:
                data.byteswap()
            payload["nodes"] = data
            return payload
    except Exception as exc:  # any failure to read means: rebuild
        problem = f"unreadable ({type(exc).__name__})"
    say(f"cache file {path} is {problem}; rebuilding it")
    return None


def _check_payload(payload: object, sha256: str, max_length: int) -> str | None:
    if not isinstance(payload, dict) or payload.get("magic") != MAGIC:
        return "not a scrab cache"
    if payload.get("format") != FORMAT_VERSION:
        return f"in an old format (version {payload.get('format')})"
    if payload.get("sha256") != sha256 or payload.get("max_length") != max_length:
        return "for a different word list"
    nodes = payload.get("nodes")
    fields = ("root", "dawg_root", "states", "arcs", "words", "crc32")
    if not isinstance(nodes, bytes) or not all(isinstance(payload.get(f), int) for f in fields):
        return "damaged (missing fields)"
    if len(nodes) != 4 * (payload["states"] + payload["arcs"]):
        return "truncated"
    if zlib.crc32(nodes) != payload["crc32"]:
        return "corrupt (checksum mismatch)"
    if payload.get("byteorder") not in ("little", "big"):
        return "damaged (byte order)"
    return None


def _write_cache(path: Path, gaddag: Gaddag, sha256: str, max_length: int, words: int, say: Warn) -> Path | None:
    """Write atomically (temporary file in the same folder, then rename); None if impossible."""
    blob = gaddag.to_array().tobytes()
    payload = {
        "magic": MAGIC,
        "format": FORMAT_VERSION,
        "sha256": sha256,
        "max_length": max_length,
        "words": words,
        "root": gaddag.root,
        "dawg_root": gaddag.dawg_root,
        "states": gaddag.state_count,
        "arcs": gaddag.arc_count,
        "byteorder": sys.byteorder,
        "crc32": zlib.crc32(blob),
        "created": time.time(),
        "nodes": blob,
    }
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_temporaries(path.parent)
        fd, tmp_name = tempfile.mkstemp(prefix=".tmp-", suffix=".gaddag", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
        tmp_name = None
        return path
    except OSError as exc:
        say(f"cannot write the cache in {path.parent} ({exc.strerror or exc}); using an in-memory GADDAG")
        return None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def _remove_stale_temporaries(folder: Path, older_than: float = 3600.0) -> None:
    """Temporary files left by a process killed mid-write; fresh ones may still be in use."""
    now = time.time()
    for tmp in folder.glob(".tmp-*.gaddag"):
        try:
            if now - tmp.stat().st_mtime > older_than:
                tmp.unlink()
        except OSError:
            pass

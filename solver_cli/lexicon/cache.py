"""The GADDAG cache: one file per word list (by content hash) and length limit, in a folder
that only the current user can write.

Trust. A cache file decides which words are legal, so scrab reads one only from a folder
that belongs to the current user and that nobody else can write (not a symbolic link owned
by someone else, no write bit for group or others), and only when the file itself is a
regular file of the current user's that nobody else can write. The folder is opened once
and every file is opened relative to it (no race between a check and a read); each file is
opened without following links and without blocking, then checked with ``fstat``. A folder
that fails the checks is neither read nor written: the GADDAG is built in memory, with one
warning saying why. scrab creates its folder with mode 0700 (like pip's and other XDG
caches) and its files with mode 0600; its own default folder, if an older scrab left it
writable by the group, is tightened to 0700.

Format (version 3). A pickled flat dict of str -> int / float / str / bytes: ``magic``,
``format``, ``digest`` (``WordSource.digest``: the BLAKE2b-256 of the word list as stored),
``max_length``, ``name`` (the word list's name), ``words``, ``root``, ``dawg_root``,
``states``, ``arcs``, ``byteorder``, ``created``, ``checksum`` and ``nodes`` (the GADDAG's
uint32 array as bytes). ``checksum`` is the CRC-32 of a canonical encoding of every other
field, header and nodes alike, so a flipped bit or a damaged block anywhere is caught. (It
catches damage, not forgery: no checksum could, since whoever can write the folder can
compute one; ownership is the defence against others, and the range check below against
the owner's own bad files. Version 2's SHA-256 cost 2.5 ms per load, plus 2 ms for
hashlib's import of OpenSSL; CRC-32 costs under 1 ms.) The pickle is never handed to
``pickle.load``: its opcode stream is read here (``load_flat_pickle``) and only the opcodes
that spell such a flat dict are accepted, so a file can build nothing else (no class, no
nesting, no hash bomb). The header fields are range-checked (roots inside the node array,
counts adding up to its length), so later code can index the array from them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import struct
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from solver_cli._io import (
    DIR_FD,
    current_user,
    kind_of,
    one_line,
    replace_in_folder,
)
from solver_cli.engine.gaddag import Gaddag
from solver_cli.errors import ScrabError
from solver_cli.lexicon.build import MAX_NODE_ENTRIES
from solver_cli.lexicon.wordlist import MAX_WORDS, WordSource

FORMAT_VERSION = 3
MAGIC = "scrab-gaddag"
CACHE_ENV = "SCRAB_CACHE_DIR"
# No file scrab writes is larger than the builder's largest node array (MAX_NODE_ENTRIES
# uint32 entries, 64 MiB) plus its header (well under 4 KiB; 64 KiB allowed), so nothing
# larger is read. SOWPODS' file is 7 MB.
MAX_CACHE_BYTES = 4 * MAX_NODE_ENTRIES + (1 << 16)
MAX_NAME_CHARS = 300
# scrab's own names in the folder: cache files, and the temporary files they are written as.
CACHE_NAME = re.compile(
    r"(?P<stem>[A-Za-z0-9_-]{1,40})-(?P<digest>[0-9a-f]{16})-L(?P<length>[0-9]{1,3})-v(?P<version>[0-9]{1,4})\.gaddag"
)
TEMP_NAME = re.compile(r"\.tmp-[0-9a-f]{12}\.gaddag")

Warn = Callable[[str], None]

_INT_FIELDS = ("format", "max_length", "words", "root", "dawg_root", "states", "arcs")
_STR_FIELDS = ("magic", "digest", "name", "byteorder", "checksum")
_OPEN_FILE = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


class CacheError(ScrabError):
    """The cache folder cannot be used for what was asked (``scrab cache clear``)."""


class CacheHeader(TypedDict):
    """A sound cache file's contents, with ``nodes`` loaded as the GADDAG's array."""

    magic: str
    format: int
    digest: str
    max_length: int
    name: str
    words: int
    root: int
    dawg_root: int
    states: int
    arcs: int
    byteorder: str
    created: float
    checksum: str
    nodes: array[int]


class _Unusable(Exception):
    """Why a cache file cannot be used (the message completes 'cache file X is ...');
    ``untrusted``: because of who could have written it, not because of what it holds."""

    def __init__(self, message: str, *, untrusted: bool = False):
        super().__init__(message)
        self.untrusted = untrusted


# ------------------------------------------------------------------------------ the folder


def cache_dir() -> Path:
    """The cache folder: ``$SCRAB_CACHE_DIR``, else the user cache folder. OSError when
    there is none (no home folder and no XDG variable)."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    fast = _xdg_cache_dir()
    if fast is not None:
        return fast
    import platformdirs

    try:
        folder = Path(platformdirs.user_cache_dir("scrab", appauthor=False))
    except (RuntimeError, KeyError, OSError) as exc:
        raise OSError(f"no home folder to put it in ({exc}); set HOME, XDG_CACHE_HOME or {CACHE_ENV}") from None
    if not folder.is_absolute():  # an unresolved "~": a folder named "~" here would be wrong
        raise OSError(f"no home folder to put it in; set HOME, XDG_CACHE_HOME or {CACHE_ENV}")
    return folder


def _xdg_cache_dir() -> Path | None:
    """On Linux, what ``platformdirs.user_cache_dir("scrab", appauthor=False)`` answers
    (``$XDG_CACHE_HOME/scrab`` when that is an absolute path, else ``~/.cache/scrab``) in
    the plain cases (that, or no ``$XDG_CACHE_HOME`` and an absolute ``$HOME``); None
    otherwise, for platformdirs to answer.
    Importing platformdirs costs 4 ms (it imports tempfile, shutil, random, bz2 and lzma),
    a sixteenth of a warm 'scrab solve'; a test holds this to platformdirs' own answer."""
    if sys.platform != "linux":
        return None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg, "scrab")
    if xdg.strip():  # a relative one: platformdirs' versions disagree on it
        return None
    home = os.environ.get("HOME", "")
    return Path(home, ".cache", "scrab") if os.path.isabs(home) else None


def cache_name(source: WordSource, digest: str, max_length: int) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", Path(source.name).name.split(".")[0])[:40] or "lexicon"
    return f"{stem}-{digest[:16]}-L{max_length}-v{FORMAT_VERSION}.gaddag"


@dataclass
class CacheFolder:
    """The cache folder, opened and checked; files are named relative to ``fd``."""

    path: Path
    fd: int | None  # None where folders cannot be opened (Windows): paths are used

    def at(self, name: str) -> tuple[str, dict[str, int]]:
        """``name`` as a path argument, with the ``dir_fd`` keyword that goes with it."""
        return (name, {"dir_fd": self.fd}) if self.fd is not None else (str(self.path / name), {})

    def read(self, name: str, digest: str, max_length: int, say: Warn) -> CacheHeader | None:
        """The sound header with ``nodes`` as an array; None if there is no file, or (with
        a warning) if it cannot be trusted or used."""
        try:
            payload, buffer = self._load(name)
        except FileNotFoundError:
            return None
        except _Unusable as exc:
            say(f"cache file {self.path / name} is {exc}; rebuilding it")
            return None
        problem = check_payload(payload, digest, max_length)
        if problem is not None:
            say(f"cache file {self.path / name} is {problem}; rebuilding it")
            return None
        return _as_header(payload, buffer)

    def _load(self, name: str) -> tuple[dict[str, object], array[int]]:
        """The file's flat dict, and the buffer its bytes values are views of (see
        ``_read_all``); FileNotFoundError, or _Unusable with the reason."""
        path, where = self.at(name)
        try:
            fd = os.open(path, _OPEN_FILE, **where)
        except FileNotFoundError:
            raise
        except OSError as exc:
            if getattr(os, "O_NOFOLLOW", 0) and _is_link(path, where):
                raise _Unusable("a symbolic link (not trusted)", untrusted=True) from None
            raise _Unusable(f"unreadable ({exc.strerror or exc})") from None
        try:
            st = os.fstat(fd)
            problem = _untrusted(st, "file")
            if problem is not None:
                raise _Unusable(problem, untrusted=True)
            if st.st_size > MAX_CACHE_BYTES:
                raise _Unusable(f"too large ({st.st_size:,} bytes; at most {MAX_CACHE_BYTES:,})")
            buffer = _read_all(fd, st.st_size)
        except OSError as exc:
            raise _Unusable(f"unreadable ({exc.strerror or exc})") from None
        finally:
            os.close(fd)
        with memoryview(buffer) as whole, whole.cast("B") as raw:
            return load_flat_pickle(raw[: st.st_size]), buffer

    def write(
        self, name: str, gaddag: Gaddag, digest: str, max_length: int, words: int, list_name: str, say: Warn
    ) -> Path | None:
        """Write atomically (a temporary file in the folder, then a rename); None, with a
        warning, if that is impossible."""
        if 4 * len(gaddag.nodes) > MAX_CACHE_BYTES - 4096:
            say(f"the GADDAG is too large to cache ({MAX_CACHE_BYTES:,} bytes at most); using it in memory only")
            return None
        import pickle  # here, not at the top: only a write needs it (start-up time)

        payload = make_payload(gaddag, digest, max_length, words, list_name)
        try:
            self._remove_stale_temporaries()
            replace_in_folder(
                self.path,
                self.fd,
                name,
                lambda fh: pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL),
                mode=0o600,
                temp_prefix=".tmp-",
                temp_suffix=".gaddag",
            )
        except OSError as exc:
            say(f"cannot write the cache in {self.path} ({exc.strerror or exc}); using an in-memory GADDAG")
            return None
        return self.path / name

    def names(self) -> list[str]:
        if self.fd is not None:
            return sorted(os.listdir(self.fd))
        return sorted(os.listdir(self.path))

    def _remove_stale_temporaries(self, older_than: float = 3600.0) -> None:
        """Temporary files left by a process killed mid-write; fresh ones may still be in use."""
        now = time.time()
        for entry in self.names():
            if not TEMP_NAME.fullmatch(entry):
                continue
            path, where = self.at(entry)
            with contextlib.suppress(OSError):
                st = os.stat(path, follow_symlinks=False, **where)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime > older_than:
                    os.unlink(path, **where)


@contextlib.contextmanager
def open_cache_folder(say: Warn, *, create: bool = True) -> Iterator[CacheFolder | None]:
    """The checked cache folder, created (0700) if missing and ``create``; None, after one
    warning, when there is none that can be trusted."""
    try:
        folder = _open_folder(create)
    except _Unusable as exc:
        say(f"{exc}; using an in-memory GADDAG")
        folder = None
    try:
        yield folder
    finally:
        if folder is not None and folder.fd is not None:
            os.close(folder.fd)


def _open_folder(create: bool) -> CacheFolder:
    try:
        path = cache_dir()
    except OSError as exc:
        raise _Unusable(f"no cache folder: {exc}") from None
    default = not os.environ.get(CACHE_ENV)
    if create:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                path.mkdir(mode=0o700)
        except OSError as exc:
            raise _Unusable(f"cannot create the cache folder {path} ({exc.strerror or exc})") from None
    try:
        link = os.lstat(path)
    except OSError as exc:
        raise _Unusable(f"cannot use the cache folder {path} ({exc.strerror or exc})") from None
    me = current_user()
    if stat.S_ISLNK(link.st_mode) and me is not None and link.st_uid != me:
        raise _Unusable(f"the cache folder {path} is a symbolic link owned by another user (uid {link.st_uid})")
    if not DIR_FD:
        if not path.is_dir():
            raise _Unusable(f"the cache folder {path} is not a folder")
        return CacheFolder(path, None)
    try:
        fd = os.open(path, _OPEN_DIR)
    except OSError as exc:
        raise _Unusable(f"cannot use the cache folder {path} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if default and me is not None and st.st_uid == me and st.st_mode & 0o022:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) & 0o700)  # our own folder, made by an older scrab
            st = os.fstat(fd)
        problem = _untrusted(st, "folder")
        if problem is not None:
            raise _Unusable(f"the cache folder {path} is {problem}")
        os.stat(".", dir_fd=fd)  # can files in it be reached at all (search permission)?
    except OSError as exc:
        os.close(fd)
        raise _Unusable(f"cannot use the cache folder {path} ({exc.strerror or exc})") from None
    except _Unusable:
        os.close(fd)
        raise
    return CacheFolder(path, fd)


def _untrusted(st: os.stat_result, what: str) -> str | None:
    """Why a file or folder with this status is not to be trusted, or None."""
    if what == "file" and not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({kind_of(st.st_mode)})"
    me = current_user()
    if me is None:  # no owners to compare (Windows: the user's profile is private)
        return None
    if st.st_uid != me:
        return f"owned by another user (uid {st.st_uid}, not {me}): not trusted"
    if st.st_mode & 0o022:
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o}): not trusted"
    return None


def _is_link(path: str, where: dict[str, int]) -> bool:
    try:
        return stat.S_ISLNK(os.stat(path, follow_symlinks=False, **where).st_mode)
    except OSError:
        return False


def _read_all(fd: int, size: int) -> array[int]:
    """The file's ``size`` bytes, read into the start of an ``array("I")``: the array that
    becomes the GADDAG's node array (``_as_header`` moves the nodes to its start and cuts
    it), so the 5 MB are read straight into their final place, not into a bytes object and
    then copied (a copy into fresh pages costs a millisecond or two)."""
    if hasattr(os, "set_blocking"):  # opened O_NONBLOCK; a regular file reads the same either way
        os.set_blocking(fd, True)
    buffer = array("I", bytes(4)) * (size // 4 + 1)  # room for one byte more than announced
    got = 0
    with memoryview(buffer) as whole, whole.cast("B") as raw, os.fdopen(fd, "rb", buffering=0, closefd=False) as fh:
        while got <= size:  # a file that grows is refused below
            count = fh.readinto(raw[got : size + 1])
            if not count:
                break
            got += count
    if got != size:
        raise _Unusable("changing while it was read")
    return buffer


# ------------------------------------------------------------------------------ the format


def make_payload(gaddag: Gaddag, digest: str, max_length: int, words: int, list_name: str) -> dict[str, object]:
    payload: dict[str, object] = {
        "magic": MAGIC,
        "format": FORMAT_VERSION,
        "digest": digest,
        "max_length": max_length,
        "name": one_line(list_name)[:MAX_NAME_CHARS],
        "words": words,
        "root": gaddag.root,
        "dawg_root": gaddag.dawg_root,
        "states": gaddag.state_count,
        "arcs": gaddag.arc_count,
        "byteorder": sys.byteorder,
        "created": time.time(),
        "nodes": gaddag.nodes.tobytes(),
    }
    payload["checksum"] = checksum(payload)
    return payload


def checksum(payload: dict[str, object]) -> str:
    """CRC-32 (8 hex digits) of every field but ``checksum``: the header as canonical JSON,
    a zero byte, then the nodes."""
    header = {key: value for key, value in payload.items() if key not in ("checksum", "nodes")}
    # (repr for a value JSON cannot hold: only a damaged file has one, and it must not match)
    canonical = json.dumps(header, sort_keys=True, separators=(",", ":"), default=repr)
    crc = zlib.crc32(canonical.encode("utf-8") + b"\0")
    nodes = payload.get("nodes")
    return f"{zlib.crc32(nodes if isinstance(nodes, bytes | memoryview) else b'', crc):08x}"


# The pickle opcodes of a flat dict of str -> int / float / str / bytes, protocols 2 to 5,
# with the size of each one's fixed argument (-n: a length of n bytes, then that many bytes).
_PROTO, _FRAME, _STOP, _MARK = 0x80, 0x95, ord("."), ord("(")
_EMPTY_DICT, _SETITEM, _SETITEMS = ord("}"), ord("s"), ord("u")
_MEMO = {0x94: 0, ord("q"): 1, ord("r"): 4}  # MEMOIZE, BINPUT, LONG_BINPUT: ignored
_STRINGS = {0x8C: -1, ord("X"): -4}  # SHORT_BINUNICODE, BINUNICODE
_BYTES = {ord("C"): -1, ord("B"): -4, 0x8E: -8}  # SHORT_BINBYTES, BINBYTES, BINBYTES8
_INTS = {ord("J"): 4, ord("K"): 1, ord("M"): 2}  # BININT (signed), BININT1, BININT2
_LONG1, _BINFLOAT = 0x8A, ord("G")
_MAX_FIELDS = 64


def load_flat_pickle(data: bytes | memoryview) -> dict[str, object]:
    """The flat dict a cache pickle spells, read from its opcodes without running pickle:
    anything but ``{str: int | float | str | bytes}`` (a class, a nested container, a
    reference to an earlier object) raises _Unusable. Bytes values come back as memoryviews
    of ``data``: the node array is not copied until it becomes an array."""
    view = memoryview(data)
    end = len(view)
    pos = 0

    def take(size: int) -> memoryview:
        nonlocal pos
        if size < 0 or size > end - pos:
            raise _Unusable("unreadable (truncated or malformed)")
        pos += size
        return view[pos - size : pos]

    def length(size: int) -> int:
        return int.from_bytes(take(size), "little")

    result: dict[str, object] | None = None
    stack: list[object] = []
    marked = False
    if end < 2:
        raise _Unusable("unreadable (truncated)")
    if view[0] != _PROTO or not 2 <= view[1] <= 5:
        raise _Unusable("not a scrab cache (not a pickle of protocol 2 to 5)")
    pos = 2
    while True:
        if pos >= end:
            raise _Unusable("unreadable (truncated)")
        op = view[pos]
        pos += 1
        if op == _FRAME:
            take(8)
        elif op in _MEMO:
            take(_MEMO[op])
        elif op == _EMPTY_DICT and result is None and not stack:
            result = {}
        elif result is None:
            raise _Unusable(f"not a scrab cache (opcode {op:#04x} before the dict)")
        elif op == _MARK and not marked and not stack:
            marked = True
        elif op in _STRINGS or op in _BYTES or op in _INTS or op in (_LONG1, _BINFLOAT):
            if len(stack) >= 2 * _MAX_FIELDS:
                raise _Unusable("not a scrab cache (too many fields)")
            value: object
            if op in _STRINGS:
                try:
                    value = str(take(length(-_STRINGS[op])), "utf-8")
                except UnicodeDecodeError:
                    raise _Unusable("unreadable (truncated or malformed)") from None
            elif op in _BYTES:
                value = take(length(-_BYTES[op]))
            elif op in _INTS:
                value = int.from_bytes(take(_INTS[op]), "little", signed=op == ord("J"))
            elif op == _LONG1:
                value = int.from_bytes(take(length(1)), "little", signed=True)
            else:
                value = struct.unpack(">d", take(8))[0]
            stack.append(value)
        elif op in (_SETITEMS, _SETITEM):
            if op == _SETITEMS and not marked:
                raise _Unusable("not a scrab cache (SETITEMS without MARK)")
            if op == _SETITEM and (marked or len(stack) != 2):
                raise _Unusable("not a scrab cache (SETITEM out of place)")
            if len(stack) % 2:
                raise _Unusable("not a scrab cache (a key without a value)")
            for key, item in zip(stack[::2], stack[1::2], strict=True):
                if not isinstance(key, str) or key in result or len(result) >= _MAX_FIELDS:
                    raise _Unusable("not a scrab cache (a bad or repeated key)")
                result[key] = item
            stack.clear()
            marked = False
        elif op == _STOP and not stack and not marked:
            if pos != end:
                raise _Unusable("not a scrab cache (data after the end)")
            return result
        else:
            raise _Unusable(f"not a scrab cache (unexpected pickle opcode {op:#04x})")


def check_payload(payload: dict[str, object], digest: str | None, max_length: int | None) -> str | None:
    """What is wrong with a cache file's dict (None when it is sound). ``digest`` and
    ``max_length`` are what the caller needs; None accepts any (for listing)."""
    if payload.get("magic") != MAGIC:
        return "not a scrab cache"
    if payload.get("format") != FORMAT_VERSION:
        return f"in an old format (version {payload.get('format')})"
    if digest is not None and (payload.get("digest") != digest or payload.get("max_length") != max_length):
        return "for a different word list"
    if (
        not all(type(payload.get(key)) is int for key in _INT_FIELDS)
        or not all(type(payload.get(key)) is str for key in _STR_FIELDS)
        or type(payload.get("created")) is not float
        or type(payload.get("nodes")) not in (bytes, memoryview)
        or len(payload) != len(_INT_FIELDS) + len(_STR_FIELDS) + 2
    ):
        return "damaged (missing or mistyped fields)"
    if payload["checksum"] != checksum(payload):
        return "corrupt (checksum mismatch)"
    return _range_problem(payload)


def _range_problem(p: dict[str, object]) -> str | None:
    """Header fields that the node array cannot back (every value is known to be an int)."""
    nodes, states, arcs = p["nodes"], p["states"], p["arcs"]
    root, dawg_root, words, max_length = p["root"], p["dawg_root"], p["words"], p["max_length"]
    assert isinstance(nodes, bytes | memoryview) and isinstance(states, int) and isinstance(arcs, int)
    assert isinstance(root, int) and isinstance(dawg_root, int) and isinstance(words, int)
    assert isinstance(max_length, int)
    if p["byteorder"] not in ("little", "big"):
        return "damaged (byte order)"
    if states < 1 or arcs < 0 or len(nodes) != 4 * (states + arcs):
        return "damaged (the state and arc counts do not match the nodes)"
    if states + arcs > MAX_NODE_ENTRIES:  # more than the builder ever makes
        return f"damaged (the state and arc counts exceed the builder's {MAX_NODE_ENTRIES:,} entries)"
    if not (0 <= root < states + arcs and 0 <= dawg_root < states + arcs):
        return "damaged (a root outside the nodes)"
    if not (1 <= words <= MAX_WORDS and 2 <= max_length <= 64):
        return "damaged (word count or length limit out of range)"
    if len(str(p["digest"])) != 64 or len(str(p["name"])) > MAX_NAME_CHARS:
        return "damaged (a name or digest out of range)"
    return None


def decode_cache(data: bytes, digest: str | None = None, max_length: int | None = None) -> CacheHeader:
    """A cache file's bytes as its checked header (``nodes`` as an array), as a load checks
    them; CacheError with the reason otherwise. ``digest`` / ``max_length``: the word list
    and length limit expected (None accepts any)."""
    try:
        payload = load_flat_pickle(data)
    except _Unusable as exc:
        raise CacheError(f"cache data is {exc}") from None
    problem = check_payload(payload, digest, max_length)
    if problem is not None:
        raise CacheError(f"cache data is {problem}")
    return _as_header(payload)


def _as_header(payload: dict[str, object], buffer: array[int] | None = None) -> CacheHeader:
    """The checked payload with ``nodes`` as an array: ``buffer`` itself when the payload's
    bytes are views of it (the nodes moved to its start, the rest cut off), else a copy."""
    blob = payload["nodes"]
    assert isinstance(blob, bytes | memoryview)
    if buffer is None:
        nodes = array("I")
        nodes.frombytes(blob)
    else:
        assert isinstance(blob, memoryview)
        size = len(blob)
        with memoryview(buffer) as whole, whole.cast("B") as raw:
            raw[:size] = blob  # (a memmove: the two may overlap)
        blob.release()  # the last view of the buffer: it can be cut now
        del buffer[size // 4 :]
        nodes = buffer
    if sys.byteorder != payload["byteorder"]:
        nodes.byteswap()
    header = dict(payload, nodes=nodes)
    return header  # type: ignore[return-value]  # every field was checked by check_payload


# ------------------------------------------------------------------------------ listing and clearing


@dataclass
class CacheEntry:
    """One of scrab's files in the cache folder, as ``scrab cache`` shows it."""

    file: str
    size: int
    lexicon: str | None  # the word list's name (from the file name for old formats)
    words: int | None
    max_length: int | None
    format: int | None
    trusted: bool
    valid: bool
    status: str  # "ok", or what is wrong


@dataclass
class CacheListing:
    folder: Path | None
    exists: bool
    problem: str | None  # why the folder itself is not usable
    entries: list[CacheEntry] = field(default_factory=list)
    # (file, bytes) of the temporaries a build stopped before its rename left (clear removes them)
    temporaries: list[tuple[str, int]] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return sum(entry.size for entry in self.entries)


@dataclass
class ClearResult:
    folder: Path
    removed: list[tuple[str, int]]  # (file, bytes)
    skipped: list[tuple[str, str]]  # (file, why it was left)

    @property
    def freed_bytes(self) -> int:
        return sum(size for _, size in self.removed)


def _folder_for_listing() -> tuple[Path | None, CacheFolder | None, str | None]:
    try:
        path = cache_dir()
    except OSError as exc:
        return None, None, f"no cache folder: {exc}"
    if not os.path.lexists(path):
        return path, None, None
    try:
        return path, _open_folder(create=False), None
    except _Unusable as exc:
        return path, None, str(exc)


def list_cache() -> CacheListing:
    """Every file in the cache folder named like scrab's cache files, each checked as a
    load would check it (ownership, mode, checksum, ranges), without a word list at hand."""
    path, folder, problem = _folder_for_listing()
    listing = CacheListing(path, path is not None and os.path.lexists(path), problem)
    if folder is None:
        return listing
    try:
        for name in folder.names():
            match = CACHE_NAME.fullmatch(name)
            if match:
                listing.entries.append(_entry(folder, name, match))
            elif TEMP_NAME.fullmatch(name):
                entry, where = folder.at(name)
                with contextlib.suppress(OSError):
                    st = os.stat(entry, follow_symlinks=False, **where)
                    if stat.S_ISREG(st.st_mode):
                        listing.temporaries.append((name, st.st_size))
    finally:
        if folder.fd is not None:
            os.close(folder.fd)
    return listing


def _entry(folder: CacheFolder, name: str, match: re.Match[str]) -> CacheEntry:
    path, where = folder.at(name)
    version = int(match["version"])
    entry = CacheEntry(name, 0, match["stem"], None, int(match["length"]), version, False, False, "")
    try:
        entry.size = os.stat(path, follow_symlinks=False, **where).st_size
        payload, _ = folder._load(name)
    except FileNotFoundError:
        entry.status = "gone (removed while listing)"
        return entry
    except OSError as exc:
        entry.status = f"unreadable ({exc.strerror or exc})"
        return entry
    except _Unusable as exc:
        entry.status = str(exc)
        entry.trusted = not exc.untrusted
        return entry
    entry.trusted = True
    for key in ("words", "max_length", "format"):
        value = payload.get(key)
        if type(value) is int:
            setattr(entry, key, value)
    if isinstance(payload.get("name"), str):
        entry.lexicon = str(payload["name"])
    problem = check_payload(payload, None, None)
    entry.valid = problem is None
    entry.status = "ok" if problem is None else problem
    return entry


def clear_cache() -> ClearResult:
    """Remove scrab's own files from the cache folder: regular files named like its cache
    files or their temporaries, and nothing else. CacheError if the folder is not trusted."""
    path, folder, problem = _folder_for_listing()
    if problem is not None or path is None:
        raise CacheError(f"not clearing the cache: {problem}")
    result = ClearResult(path, [], [])
    if folder is None:  # no folder yet: nothing to clear
        return result
    try:
        for name in folder.names():
            if not (CACHE_NAME.fullmatch(name) or TEMP_NAME.fullmatch(name)):
                continue
            entry, where = folder.at(name)
            try:
                st = os.stat(entry, follow_symlinks=False, **where)
                if not stat.S_ISREG(st.st_mode):
                    result.skipped.append((name, f"{kind_of(st.st_mode)}, not a cache file"))
                    continue
                os.unlink(entry, **where)
                result.removed.append((name, st.st_size))
            except FileNotFoundError:
                continue
            except OSError as exc:
                result.skipped.append((name, exc.strerror or str(exc)))
    finally:
        if folder.fd is not None:
            os.close(folder.fd)
    return result

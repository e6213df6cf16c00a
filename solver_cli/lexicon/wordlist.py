"""Word lists: finding a shipped list, one of the user's by name (in their word-list
folders) or a file, and reading its words.

A word list is one word per line in any case; blank lines and ``#`` comments are ignored,
lines with other characters are skipped (and counted), words longer than the board are
dropped. Shipped lists are gzip files in the data package ``solver_cli.lexicons``.
"""

from __future__ import annotations

import io
import os
import re
import zlib
from pathlib import Path
from typing import NamedTuple

try:  # hashlib's own BLAKE2, without hashlib's import of OpenSSL (2 ms of every start-up)
    from _blake2 import blake2b as _blake2b
except ImportError:  # an interpreter built without it: the same function, through hashlib
    from hashlib import blake2b as _blake2b

from solver_cli._data import lexicons_folder
from solver_cli._io import path_exists, read_limited
from solver_cli.errors import LexiconError
from solver_cli.lexicon.build import MAX_PREFIXES

DEFAULT_LEXICON = "kjxqz"
MAX_WORD_LIST_BYTES = 64_000_000  # a word list of the largest kind is about 3 MB
MAX_WORDS = 2_000_000  # usable words; the largest shipped list has 267,751
_WORD = re.compile(r"[A-Za-z]+")
_NOT_LETTER_OR_NEWLINE = re.compile(r"[^A-Za-z\n]")
_SLICE = 1 << 20


class WordSource(NamedTuple):
    name: str  # shipped name or the file's path as given
    path: Path | None  # None for a shipped list
    data: bytes  # the file's bytes as stored (gzip for shipped lists)

    def digest(self) -> str:
        """The list's identity, as the cache knows it: the BLAKE2b-256 of its bytes as
        stored (hex), so an edited list gets a new GADDAG and a moved one keeps its own."""
        return _blake2b(self.data, digest_size=32).hexdigest()

    def text(self) -> str:
        raw = self.data
        if raw.startswith(b"\x1f\x8b"):  # shipped lists, and any gzipped list a user gives
            # Decompressed as a stream and cut at the cap: a small file can expand to gigabytes.
            import gzip  # here, not at the top: a cache hit never decompresses (start-up time)

            try:
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                    raw = stream.read(MAX_WORD_LIST_BYTES + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise LexiconError(f"{self.name}: not a readable gzip file ({exc})") from None
            if len(raw) > MAX_WORD_LIST_BYTES:
                raise LexiconError(
                    f"{self.name}: word list too large once decompressed (over {MAX_WORD_LIST_BYTES:,} bytes)"
                )
        if b"\0" in raw[:1_000_000] and raw.count(b"\0") > len(raw) // 100:
            raise LexiconError(f"{self.name}: this is not a text word list (binary data)")
        return raw.decode("utf-8-sig", errors="replace")  # -sig: a BOM is not part of the first word


def lexicon_folder() -> Path:
    """Where the shipped word lists are (see ``_data.lexicons_folder``)."""
    return lexicons_folder()


def shipped_lexicons() -> list[str]:
    return sorted(p.name[: -len(".txt.gz")] for p in lexicon_folder().iterdir() if p.name.endswith(".txt.gz"))


def shipped_lexicon_name(name: str) -> str | None:
    """The shipped word list ``name`` names, in any case (``SOWPODS`` is ``sowpods``), else None."""
    key = name.lower()
    return key if key in shipped_lexicons() else None


def lexicon_label(name_or_path: str | None) -> str:
    """The name a lexicon goes by without reading it: a shipped list's name (the default one
    for None), a list of the user's by its file's name, else the file name without its
    suffixes."""
    if name_or_path is None:
        return DEFAULT_LEXICON
    shipped = shipped_lexicon_name(name_or_path)
    if shipped is not None:
        return shipped
    own = find_user_lexicon(name_or_path)
    if own is not None:
        return own.name
    name = Path(name_or_path).name
    return name.split(".", 1)[0] or name


def is_own_lexicon(name_or_path: str | None) -> bool:
    """Whether ``--lexicon`` names one of the user's lists by name (whose leave table is
    looked for in the user's folder). No folder is looked at for a shipped name or a path."""
    return (
        name_or_path is not None
        and shipped_lexicon_name(name_or_path) is None
        and (find_user_lexicon(name_or_path) is not None)
    )


def open_source(name_or_path: str | None) -> WordSource:
    """Resolve ``--lexicon``: a path (a name with a ``/`` or a ``.``) is the file; a plain
    name is a shipped list's in any case, else the first of the user's lists of that name
    (``user_lexicons``), else a file of that name in the current folder."""
    if name_or_path is not None and not name_or_path.strip():
        raise LexiconError(
            "empty word-list name: give a shipped lexicon (" + ", ".join(shipped_lexicons()) + ") or a file"
        )
    name = name_or_path or DEFAULT_LEXICON
    shipped = shipped_lexicon_name(name)
    if shipped is not None:
        name = shipped
        data = (lexicon_folder() / f"{name}.txt.gz").read_bytes()
        return WordSource(name, None, data)
    own = find_user_lexicon(name)
    if own is not None:
        return WordSource(own.name, own.path, read_limited(own.path, MAX_WORD_LIST_BYTES, "word list"))
    path = Path(name)
    if not path_exists(name):
        known = ", ".join(shipped_lexicons())
        shown = name if len(name) <= 80 else name[:60] + "..."
        if LIST_NAME.fullmatch(name):
            raise LexiconError(
                f"no word list {shown!r}: not a shipped lexicon ({known}), one of yours nor an existing file; "
                + _how_to_add(name)
            )
        raise LexiconError(f"no word list {shown!r}: not a shipped lexicon ({known}) nor an existing file")
    if path.is_dir():
        raise LexiconError(f"word list {name}: is a directory, not a file")
    return WordSource(name, path, read_limited(path, MAX_WORD_LIST_BYTES, "word list"))


# --- the user's own lists, by name ------------------------------------------------------------

LEXICON_PATH_ENV = "SCRAB_LEXICON_PATH"
# A list's name: what a file in a word-list folder is called, less its suffix. No dot and no
# separator, so a name is never a path and a path is never taken for a name.
LIST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+-]{0,63}")
LIST_SUFFIXES = (".txt", ".txt.gz")  # in this order, within one folder
MAX_FOLDER_ENTRIES = 10_000  # files looked at in one word-list folder


class ListFolder(NamedTuple):
    """A folder searched for word lists by name, in search order."""

    path: Path
    origin: str  # "user folder" (the data folder's lexicons/), or LEXICON_PATH_ENV
    problem: str | None  # why it is not searched ("missing" when it does not exist)


class UserList(NamedTuple):
    """A word-list file in one of the ``ListFolder``s."""

    name: str  # as its file names it: NWL2023 for NWL2023.txt
    path: Path
    origin: str
    shadowed_by: str | None  # what takes its name first ("shipped", or a path); None: usable by name


def lexicon_folders() -> list[ListFolder]:
    """The folders searched, in order: the user data folder's ``lexicons/``, then each entry
    of ``$SCRAB_LEXICON_PATH`` (``os.pathsep``-separated). The first must be the user's own
    and writable by nobody else (see ``_data.untrusted_folder``); the others are folders the
    user named, read like any word list they name."""
    from solver_cli._data import user_data_dir

    found = []
    try:
        own = user_data_dir() / "lexicons"
    except OSError as exc:
        found.append(ListFolder(Path("lexicons"), "user folder", f"no user data folder: {exc}"))
    else:
        found.append(ListFolder(own, "user folder", _folder_problem(own, checked=True)))
    for entry in os.environ.get(LEXICON_PATH_ENV, "").split(os.pathsep):
        if entry.strip():
            folder = Path(entry)
            found.append(ListFolder(folder, LEXICON_PATH_ENV, _folder_problem(folder, checked=False)))
    return found


def _folder_problem(folder: Path, checked: bool) -> str | None:
    from solver_cli._data import untrusted_folder

    try:
        if checked:
            problem = untrusted_folder(folder)
            return None if problem is None else f"not used: {problem}"
        return None if folder.is_dir() else ("missing" if not folder.exists() else "not a folder")
    except FileNotFoundError:
        return "missing"
    except (OSError, ValueError) as exc:
        return f"not used: {getattr(exc, 'strerror', None) or exc}"


def _lists_in(folder: ListFolder) -> list[UserList]:
    """The word-list files in ``folder`` (``NAME.txt`` before ``NAME.txt.gz``, then by name):
    regular files (a link to one counts) named by ``LIST_NAME`` and a suffix; nothing else."""
    found: list[tuple[int, str, Path]] = []
    try:
        with os.scandir(folder.path) as entries:
            for seen, entry in enumerate(entries):
                if seen >= MAX_FOLDER_ENTRIES:
                    break
                for rank, suffix in enumerate(LIST_SUFFIXES):
                    stem = entry.name[: -len(suffix)]
                    if entry.name.lower().endswith(suffix) and LIST_NAME.fullmatch(stem):
                        if _is_file(entry):
                            found.append((rank, stem, Path(entry.path)))
                        break
    except OSError:
        return []
    return [UserList(stem, path, folder.origin, None) for _, stem, path in sorted(found)]


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def user_lexicons() -> tuple[list[ListFolder], list[UserList]]:
    """Every folder searched and every list in them, in search order; a list whose name
    (in any case) a shipped list or an earlier list takes is marked ``shadowed_by`` it."""
    folders = lexicon_folders()
    taken: dict[str, str] = dict.fromkeys(shipped_lexicons(), "shipped")
    lists = []
    for folder in folders:
        if folder.problem is not None:
            continue
        for found in _lists_in(folder):
            key = found.name.lower()
            lists.append(found._replace(shadowed_by=taken.get(key)))
            taken.setdefault(key, str(found.path))
    return folders, lists


def find_user_lexicon(name: str) -> UserList | None:
    """The user's list named ``name`` (any case) that a plain name picks, or None: for a
    shipped name and anything that is not a plain name (a path) no folder is looked at."""
    if not LIST_NAME.fullmatch(name) or shipped_lexicon_name(name) is not None:
        return None
    key = name.lower()
    for folder in lexicon_folders():
        if folder.problem is None:
            for found in _lists_in(folder):
                if found.name.lower() == key:
                    return found
    return None


def named_lexicon(name: str) -> str | None:
    """The list a game record's ``#lexicon NAME`` picks: a shipped list or one of the
    user's, by name only (a record never names a file), as ``--lexicon`` takes it; else None."""
    name = name.strip()
    shipped = shipped_lexicon_name(name)
    if shipped is not None:
        return shipped
    own = find_user_lexicon(name)
    return None if own is None else own.name


def _how_to_add(name: str) -> str:
    """For a plain name that names no list: where to put one (or why that folder is not used)."""
    own = lexicon_folders()[0]
    if own.problem is not None and own.problem != "missing":
        return f"your word-list folder {own.path} is {own.problem}"
    return f"to add yours, put {name}.txt in {own.path} (see scrab lexicons)"


class WordList(NamedTuple):
    words: list[str]  # sorted, unique, uppercase, 2..max_length letters
    skipped: int  # lines with characters other than letters
    too_long: int
    first_skipped: int  # line number of the first skipped line (0 if none)


def parse_word_list(text: str, max_length: int) -> WordList:
    """The words of a list (see the module's docstring for the rules); a list of more than
    ``MAX_WORDS`` usable words is refused."""
    plain = text.replace("\r\n", "\n") if "\r" in text else text
    if _NOT_LETTER_OR_NEWLINE.search(plain) is None:
        return _parse_plain(plain, max_length)
    words: dict[str, None] = {}  # a dict keeps the file's order: a sorted file sorts in linear time
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
            words[word.upper()] = None
            if len(words) > MAX_WORDS:
                raise _too_many_words()
    return WordList(_sorted_within_limits(words, len(text)), skipped, too_long, first_skipped)


def _parse_plain(text: str, max_length: int) -> WordList:
    """The fast path for a list of nothing but letters and newlines (the usual case): every
    non-empty line is a word. Read in slices of about a megabyte, so no list of all the lines
    is ever made."""
    words: dict[str, None] = {}
    too_long = 0
    upper = text.upper()
    start, end = 0, len(upper)
    while start < end:
        stop = upper.find("\n", start + _SLICE)
        if stop < 0:
            stop = end
        for word in upper[start:stop].split("\n"):
            if len(word) > max_length:
                too_long += 1
            elif len(word) >= 2:
                words[word] = None
        if len(words) > MAX_WORDS:
            raise _too_many_words()
        start = stop + 1
    return WordList(_sorted_within_limits(words, len(text)), 0, too_long, 0)


def _too_many_words() -> LexiconError:
    return LexiconError(f"word list too big: more than {MAX_WORDS:,} words, the limit")


def _sorted_within_limits(words: dict[str, None], text_length: int) -> list[str]:
    """The words, sorted; a list whose words have more distinct prefixes than the GADDAG
    builder takes (``build.MAX_PREFIXES``) is refused here, before any building, rather
    than by the builder once it has built up to the limit (1.99 million random words failed
    only after 35 s with the Python builder). A list holds no more prefixes than letters, so a list of fewer
    letters than the limit (every shipped one) is not counted at all."""
    ordered = sorted(words)
    if text_length <= MAX_PREFIXES or sum(map(len, ordered)) <= MAX_PREFIXES:
        return ordered
    # Sorted, each word adds the prefixes it does not share with the word before it.
    prefixes = 0
    previous = ""
    for word in ordered:
        common = 0
        most = min(len(word), len(previous))
        while common < most and word[common] == previous[common]:
            common += 1
        prefixes += len(word) - common
        if prefixes > MAX_PREFIXES:
            raise LexiconError(
                f"word list too big: its words have more than {MAX_PREFIXES:,} distinct prefixes, the limit"
            )
        previous = word
    return ordered


_ODD_CHARACTER = re.compile(r"[^A-Za-z\n]")


def skipped_lines(text: str, max_length: int) -> tuple[int, int, str]:
    """(how many lines of the word list ``text`` a build skips, the first one's number, its
    text), without building: only lines holding something other than letters are looked at
    (a few milliseconds for a clean list), and the build's own reader decides which of them
    it skips. A cached lexicon lacks the same words, so this is said at every load."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # as the reader does: a CRLF list is a clean list
    odd: list[tuple[int, str]] = []  # (line number, line)
    number, counted_to, end = 1, 0, 0
    for match in _ODD_CHARACTER.finditer(text):
        if match.start() < end:
            continue  # the rest of a line already taken
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.start())
        end = len(text) if end < 0 else end
        number += text.count("\n", counted_to, start)
        counted_to = start
        odd.append((number, text[start:end]))
    if not odd:
        return 0, 0, ""
    found = parse_word_list("\n".join(line for _, line in odd), max_length)
    if not found.skipped:
        return 0, 0, ""
    number, line = odd[found.first_skipped - 1]
    return found.skipped, number, line.strip()

"""Recognising a GCG game record and decoding its bytes: all that reading a position needs
to tell a record from a board file, without the reader (gcg_read.py) and the game history
it builds, which a board file never needs."""

from __future__ import annotations

import re

from solver_cli.errors import InputError

MAX_GCG_BYTES = 1_000_000  # a long annotated game is a few tens of kB

_EVENT = re.compile(r">\s*([^\s:]+)\s*:(.*)")
_PRAGMA = re.compile(r"#(\S*)\s*(.*)")
_BOARD_ROW = re.compile(r"[.A-Za-z]+")
# Pragmas that open a record and that no board file's comment would start with.
_HEADER_PRAGMAS = frozenset({"player1", "player2", "character-encoding"})


def is_gcg_name(name: str) -> bool:
    return name.lower().endswith(".gcg")


def looks_like_gcg(text: str) -> bool:
    """True for text with an event line (``>nick: ...``), or with a ``#player1``,
    ``#player2`` or ``#character-encoding`` pragma that has a value, in its first 200 lines,
    unless a board row (letters and ``.``) comes first: a board file's comments are free text
    after ``#``, so a comment that reads like a pragma does not make it a game record."""
    pragma = False
    for raw in text.split("\n", 200)[:200]:
        line = raw.strip()
        if _EVENT.match(line):
            return True
        match = _PRAGMA.fullmatch(line)
        if match:
            pragma = pragma or (match.group(1).lower() in _HEADER_PRAGMAS and bool(match.group(2).strip()))
        elif "." in line and _BOARD_ROW.fullmatch(line):
            return False
    return pragma


def decode_gcg(data: bytes, name: str) -> str:
    """The text of a record's bytes. ``#character-encoding`` on the first line chooses UTF-8
    or ISO-8859-1; without it UTF-8 is tried first (most records today), then ISO-8859-1 (the
    format's own default, which any byte decodes in)."""
    if len(data) > MAX_GCG_BYTES:
        raise InputError(f"{name}: too large for a game record (over {MAX_GCG_BYTES:,} bytes)")
    if b"\0" in data:
        raise InputError(f"{name}: not a text file (it contains NUL bytes)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    first = data.split(b"\n", 1)[0].strip()
    match = re.fullmatch(rb"#character-encoding\s+(.+)", first, re.IGNORECASE)
    if match:
        encoding = match.group(1).decode("ascii", "replace").lower()
        # The spellings tools write: UTF-8, utf8, ISO-8859-1, "iso 8859-1" (MAGPIE), latin1.
        key = re.sub(r"[\s_-]", "", encoding)
        if key == "utf8":
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = data[: exc.start].count(b"\n") + 1
                raise InputError(f"{name}, line {line}: not UTF-8 text (bad byte at offset {exc.start})") from None
        if key in ("iso88591", "latin1"):
            return data.decode("latin-1")
        shown = encoding if len(encoding) <= 40 else encoding[:37] + "..."
        raise InputError(f"{name}, line 1: unsupported character encoding {shown!r} (use UTF-8 or ISO-8859-1)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")

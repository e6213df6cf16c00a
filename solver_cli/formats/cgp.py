"""CGP, the one-line position notation of Macondo and Woogles: parsing and formatting.

A CGP string is five whitespace-separated fields, the last optional::

    BOARD RACKS SCORES ZERO_TURNS [OPCODES]
    15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINRST/ 0/0 0 lex NWL20;

- BOARD: rows separated by ``/``, top row first. ``A``-``Z`` is a tile, ``a``-``z`` a blank
  tile standing for that letter, a decimal number (``7``, ``15``) that many empty squares.
  Every row has the same width; the number of rows is the height.
- RACKS: ``/``-separated racks, player on turn first; ``A``-``Z``, ``?`` a blank; a rack may be
  empty (``AEIRST?/``, ``/``). Lowercase letters are accepted and read as uppercase.
- SCORES: ``/``-separated integers (possibly negative), one per rack.
- ZERO_TURNS: the number of consecutive scoreless turns, a non-negative integer.
- OPCODES: ``op value;`` pairs (``lex CSW21; bb 0;``), each ending with ``;``; the value may be
  absent (``op;``) and cannot hold a ``;``. All are kept in order, unknown ones included.

Here the board is held as scrab's board-file rows (``.`` an empty square). Checking the board
size, rack lengths or lexicon against a rule set is the caller's job.

This module is pure: errors in the text are ``InputError`` with one line naming the source;
positions that cannot be written as CGP make ``format_cgp`` raise ``ValueError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from solver_cli._text import plural
from solver_cli.engine.alphabet import shown_char
from solver_cli.errors import InputError

EMPTY_CHAR = "."
RACK_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ?")
#: Opcodes whose value is checked: these need a value; ``bb`` needs an integer.
VALUED_OPCODES = ("lex", "bdn", "ld", "var")
INTEGER_OPCODES = ("bb",)
#: A sanity bound on the width of a board, checked before any row is expanded.
MAX_WIDTH = 1000
MAX_DIGITS = 18  # scores and counts: refuse absurd numbers before int() does

_INT = re.compile(r"-?[0-9]+")
_COUNT = re.compile(r"[0-9]+")
_BOARD_FIELD = re.compile(r"[A-Za-z0-9/]+")
_EMPTY_RUN = re.compile(r"\.+")


@dataclass
class Position:
    rows: list[str]  # board rows in board-file form: '.', 'A'-'Z', 'a'-'z'
    racks: list[str]  # e.g. ["AEIRST?", ""], player on turn first
    scores: list[int]
    zero_turns: int = 0
    options: dict[str, str] = field(default_factory=dict)  # opcodes in order; "" when no value


# ---------------------------------------------------------------------------------------------
# Detection


def _content_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped line) of every line that is neither blank nor a '#' comment."""
    if text.startswith("\ufeff"):
        text = text[1:]
    found = []
    for number, raw in enumerate(text.split("\n"), 1):  # not splitlines: see board.parse_board
        line = raw.strip()
        if line and not line.startswith("#"):
            found.append((number, line))
    return found


def looks_like_cgp(text: str) -> bool:
    """Whether ``text`` (a command-line argument or a file's content) is CGP, not a board file.

    The rule: leaving out blank lines and ``#`` comment lines, exactly one line is left; it
    has at least two whitespace-separated fields; and the first field holds a ``/`` and
    nothing but ASCII letters, digits and ``/``. A board file never matches: it has many
    lines, and ``.`` for its empty squares but never ``/``. A file name such as
    ``boards/midgame.txt`` does not match either (a single field, and a ``.``); callers that
    also accept file names should still try an existing file first.
    """
    lines = _content_lines(text)
    if len(lines) != 1:
        return False
    fields = lines[0][1].split()
    if len(fields) < 2:
        return False
    first = fields[0]
    return "/" in first and _BOARD_FIELD.fullmatch(first) is not None


# ---------------------------------------------------------------------------------------------
# Parsing


def _parse_board(text: str, source: str) -> list[str]:
    rows: list[str] = []
    width = -1
    for number, spec in enumerate(text.split("/"), 1):
        if not spec:
            raise InputError(f"{source}: board row {number} is empty")
        squares = 0
        parts: list[str] = []
        pos = 0
        while pos < len(spec):
            ch = spec[pos]
            if "0" <= ch <= "9":
                end = pos
                while end < len(spec) and "0" <= spec[end] <= "9":
                    end += 1
                if end - pos > len(str(MAX_WIDTH)):  # before int(): huge digit runs are refused
                    raise InputError(f"{source}: board row {number} is more than {MAX_WIDTH} squares wide")
                count = int(spec[pos:end])
                if count == 0:
                    raise InputError(f"{source}: board row {number} has a run of 0 empty squares")
                if squares + count > MAX_WIDTH:
                    raise InputError(f"{source}: board row {number} is more than {MAX_WIDTH} squares wide")
                parts.append(EMPTY_CHAR * count)
                squares += count
                pos = end
            elif "A" <= ch <= "Z" or "a" <= ch <= "z":
                if squares + 1 > MAX_WIDTH:
                    raise InputError(f"{source}: board row {number} is more than {MAX_WIDTH} squares wide")
                parts.append(ch)
                squares += 1
                pos += 1
            else:
                raise InputError(
                    f"{source}: bad character {shown_char(ch)} in board row {number}, column {squares + 1}"
                )
        if width < 0:
            width = squares
        elif squares != width:
            raise InputError(f"{source}: board row {number} has {plural(squares, 'square')}, expected {width}")
        rows.append("".join(parts))
    return rows


def _parse_racks(text: str, source: str) -> list[str]:
    racks = []
    for number, rack in enumerate(text.split("/"), 1):
        rack = "".join(ch.upper() if "a" <= ch <= "z" else ch for ch in rack)
        for ch in rack:
            if ch not in RACK_CHARS:
                raise InputError(f"{source}: bad character {shown_char(ch)} in rack {number} (use A-Z, ? for a blank)")
        racks.append(rack)
    return racks


def _parse_scores(text: str, source: str) -> list[int]:
    scores = []
    for number, item in enumerate(text.split("/"), 1):
        if not _INT.fullmatch(item):
            raise InputError(f"{source}: score {number} must be an integer, got {item!r}")
        if len(item) > MAX_DIGITS:
            raise InputError(f"{source}: score {number} is out of range ({len(item)} digits)")
        scores.append(int(item))
    return scores


def _parse_opcodes(text: str, source: str) -> dict[str, str]:
    options: dict[str, str] = {}
    chunks = text.split(";")
    tail = chunks.pop().strip()  # after the last ';': must be nothing
    if tail:
        raise InputError(f"{source}: opcode {tail.split()[0]!r} must end with ';'")
    for chunk in chunks:
        parts = chunk.split(None, 1)
        if not parts:
            raise InputError(f"{source}: empty opcode (a ';' with no name before it)")
        name = parts[0]
        value = parts[1].strip() if len(parts) > 1 else ""
        if name in options:
            raise InputError(f"{source}: opcode {name!r} given twice")
        if name in VALUED_OPCODES and not value:
            raise InputError(f"{source}: opcode {name!r} needs a value")
        if name in INTEGER_OPCODES and not _INT.fullmatch(value):
            raise InputError(f"{source}: opcode {name!r} needs an integer, got {value!r}")
        options[name] = value
    return options


def parse_cgp(text: str, source: str = "CGP") -> Position:
    """Parse a CGP string, or a file's content holding one CGP line among blank lines and
    ``#`` comment lines. Raises ``InputError`` with one line starting ``{source}: ``."""
    lines = _content_lines(text)
    if not lines:
        raise InputError(f"{source}: no position (the text is empty)")
    if len(lines) > 1:
        raise InputError(f"{source}: more than one line (line {lines[1][0]} is neither blank nor a '#' comment)")
    fields = lines[0][1].split(None, 4)
    for index, name in enumerate(("racks", "scores", "zero-turns"), 1):
        if len(fields) <= index:
            raise InputError(f"{source}: no {name} field after the {('board', 'racks', 'scores')[index - 1]}")
    rows = _parse_board(fields[0], source)
    racks = _parse_racks(fields[1], source)
    scores = _parse_scores(fields[2], source)
    if len(racks) != len(scores):
        raise InputError(f"{source}: {plural(len(racks), 'rack')} but {plural(len(scores), 'score')}")
    if not _COUNT.fullmatch(fields[3]):
        raise InputError(f"{source}: zero-turns count must be a non-negative integer, got {fields[3]!r}")
    if len(fields[3]) > MAX_DIGITS:
        raise InputError(f"{source}: zero-turns count is out of range ({len(fields[3])} digits)")
    zero_turns = int(fields[3])
    options = _parse_opcodes(fields[4], source) if len(fields) > 4 else {}
    return Position(rows, racks, scores, zero_turns, options)


# ---------------------------------------------------------------------------------------------
# Formatting


def _is_one_line(text: str) -> bool:
    return len(f"x{text}x".splitlines()) == 1


def board_rows_to_cgp(rows: list[str]) -> str:
    """The BOARD field for board-file rows (``.`` empty): ``7RETAINs1/15/...``."""
    if not rows:
        raise ValueError("a CGP board needs at least one row")
    width = len(rows[0])
    if width == 0:
        raise ValueError("a CGP board row cannot be empty")
    out = []
    for number, row in enumerate(rows, 1):
        if len(row) != width:
            raise ValueError(f"board row {number} has {plural(len(row), 'square')}, expected {width}")
        for ch in row:
            if not (ch == EMPTY_CHAR or "A" <= ch <= "Z" or "a" <= ch <= "z"):
                raise ValueError(f"bad character {shown_char(ch)} in board row {number}")
        out.append(_EMPTY_RUN.sub(lambda m: str(len(m.group())), row))
    return "/".join(out)


def format_cgp(position: Position) -> str:
    """The canonical CGP of a position: single spaces between fields, runs of empty squares as
    numbers, opcodes as ``op value;`` (``op;`` with no value) separated by spaces.

    Raises ``ValueError`` for a position CGP cannot hold (bad characters, a ragged board,
    racks and scores of different counts, a lone empty rack, an opcode value with a ``;``...)."""
    board = board_rows_to_cgp(position.rows)
    racks = position.racks
    if not racks or racks == [""]:
        raise ValueError("CGP cannot write no racks or a single empty rack")
    for number, rack in enumerate(racks, 1):
        for ch in rack:
            if ch not in RACK_CHARS:
                raise ValueError(f"bad character {shown_char(ch)} in rack {number}")
    if len(position.scores) != len(racks):
        raise ValueError(f"{plural(len(racks), 'rack')} but {plural(len(position.scores), 'score')}")
    if position.zero_turns < 0:
        raise ValueError("the zero-turns count cannot be negative")
    fields = [board, "/".join(racks), "/".join(str(int(s)) for s in position.scores), str(int(position.zero_turns))]
    for name, value in position.options.items():
        if not name or name.split() != [name] or ";" in name or not _is_one_line(name):
            raise ValueError(f"bad opcode name {name!r}")
        if ";" in value or value != value.strip() or not _is_one_line(value):
            raise ValueError(f"opcode {name!r} has a value CGP cannot hold: {value!r}")
        if name in VALUED_OPCODES and not value:
            raise ValueError(f"opcode {name!r} needs a value")
        if name in INTEGER_OPCODES and not _INT.fullmatch(value):
            raise ValueError(f"opcode {name!r} needs an integer, got {value!r}")
        fields.append(f"{name} {value};" if value else f"{name};")
    return " ".join(fields)

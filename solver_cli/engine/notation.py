"""Square and move-position notation: ``H8`` is a square (column letter, row number);
``8H`` is a move across from row 8 column H, ``H8`` a move down from column H row 8."""

from __future__ import annotations

import re

from solver_cli.engine.alphabet import LETTERS
from solver_cli.errors import InputError

_POSITION = re.compile(r"\s*(?:(\d{1,2})([A-Za-z])|([A-Za-z])(\d{1,2}))\s*")


def square_name(row: int, col: int) -> str:
    """``(7, 7)`` -> ``H8``."""
    return f"{LETTERS[col]}{row + 1}"


def position_text(row: int, col: int, down: bool) -> str:
    """A move's position: ``8H`` across (row first), ``H8`` down (column first)."""
    return f"{LETTERS[col]}{row + 1}" if down else f"{row + 1}{LETTERS[col]}"


def parse_square(text: str, rows: int, cols: int) -> tuple[int, int]:
    """``H8`` -> (7, 7): column letter and 1-based row number, in either order (``8H``, as a
    move's position writes it, names the same square). ``ValueError`` when it is malformed
    or off a ``rows`` x ``cols`` board."""
    m = _POSITION.fullmatch(text)
    if not m:
        raise ValueError(f"bad square {text!r} (expected a column letter and a row number, e.g. H8 or 8H)")
    letter, number = (m.group(3), m.group(4)) if m.group(3) else (m.group(2), m.group(1))
    col = ord(letter.upper()) - ord("A")
    row = int(number) - 1
    if not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(f"square {text!r} is off the {rows}x{cols} board")
    return row, col


def parse_position(text: str, rows: int, cols: int) -> tuple[int, int, bool]:
    """``8H`` (row first) is across, ``H8`` (column first) is down: (row, col, down)."""
    m = _POSITION.fullmatch(text)
    if not m:
        raise InputError(f"bad position {text!r}: use 8H for across from row 8 column H, H8 for down")
    if m.group(1):
        row, col, down = int(m.group(1)) - 1, ord(m.group(2).upper()) - 65, False
    else:
        row, col, down = int(m.group(4)) - 1, ord(m.group(3).upper()) - 65, True
    if not (0 <= row < rows and 0 <= col < cols):
        raise InputError(f"position {text!r} is off the {rows}x{cols} board")
    return row, col, down

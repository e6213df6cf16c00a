"""Board files: one line per row, ``.`` empty, ``A``-``Z`` a tile, ``a``-``z`` a blank tile.

Blank lines and lines starting with ``#`` are ignored; a UTF-8 BOM is skipped. Errors name
the file, the line and the column. ``with_rows`` writes a new board into an old file's text,
its comments kept.
"""

from __future__ import annotations

from solver_cli._text import plural
from solver_cli.engine.alphabet import shown_char
from solver_cli.engine.board import EMPTY_CHAR, Board, square_code
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError


def parse_board(text: str, rules: Rules, source: str) -> Board:
    """Parse a board file: one line per row, ``.`` empty, ``A-Z`` a tile, ``a-z`` a blank.

    Blank lines and lines starting with ``#`` are ignored. Errors name the file, the line
    and the column.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    squares: list[int] = []
    rows_seen = 0
    # Split on newlines only: str.splitlines would also break lines at form feeds, vertical
    # tabs and other separators, which then belong to a row (and are reported there).
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip(" \t\r")
        if _is_comment(line):
            continue
        rows_seen += 1
        if rows_seen > rules.rows:
            raise InputError(
                f"{source}, line {number}: more than {rules.rows} rows "
                f"(the {rules.name} board is {rules.rows}x{rules.cols})"
            )
        for col, ch in enumerate(line, 1):
            if not (ch == EMPTY_CHAR or ("A" <= ch <= "Z") or ("a" <= ch <= "z")):
                raise InputError(
                    f"{source}, line {number}, column {col}: unexpected character {shown_char(ch)} "
                    "(use '.' for an empty square, A-Z for a tile, a-z for a blank tile)"
                )
        if len(line) != rules.cols:
            raise InputError(f"{source}, line {number}: row has {plural(len(line), 'square')}, expected {rules.cols}")
        squares.extend(square_code(ch) for ch in line)
    if rows_seen != rules.rows:
        raise InputError(f"{source}: board has {plural(rows_seen, 'row')}, expected {rules.rows} for {rules.name}")
    return Board(rules.rows, rules.cols, squares)


def _is_comment(line: str) -> bool:
    """Whether a line (trailing white space removed) is blank or a comment, not a row."""
    return not line.strip() or line.lstrip().startswith("#")


def with_rows(text: str, board: Board) -> str:
    """The board file ``text`` (as ``parse_board`` accepted it) with its rows replaced by
    ``board``'s, its comment and blank lines kept where they were: ``scrab play -o`` keeps a
    game file's notes. Lines end in ``\n``; a BOM is dropped."""
    if text.startswith("\ufeff"):
        text = text[1:]
    rows = iter(board.to_rows())
    lines = [raw.rstrip("\r") if _is_comment(raw.rstrip(" \t\r")) else next(rows) for raw in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line ending
    return "\n".join(lines) + "\n"

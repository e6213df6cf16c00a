"""The board: squares, rows of text, the words on it, and anchors.

Squares are one flat row-major list of codes (see ``alphabet``): 0 empty, 1..26 a tile,
``code | BLANK_BIT`` a blank tile. Reading a board file is ``formats.boardfile``; the
cross-check sets, which depend on the lexicon, are ``engine.crosscheck``.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver_cli.engine.alphabet import BLANK_BIT, CODE, letter_of
from solver_cli.engine.rules import Rules

EMPTY_CHAR = "."


@dataclass
class Board:
    rows: int
    cols: int
    squares: list[int]

    @classmethod
    def empty(cls, rules: Rules) -> Board:
        return cls(rules.rows, rules.cols, [0] * (rules.rows * rules.cols))

    @classmethod
    def from_rows(cls, rows: list[str]) -> Board:
        """From strings such as ``"..CAT.."`` (no validation: for code and tests)."""
        squares = []
        for line in rows:
            for ch in line:
                squares.append(square_code(ch))
        return cls(len(rows), len(rows[0]), squares)

    def at(self, row: int, col: int) -> int:
        return self.squares[row * self.cols + col]

    def is_empty(self) -> bool:
        return not any(self.squares)

    def tile_count(self) -> int:
        return sum(1 for sq in self.squares if sq)

    def copy(self) -> Board:
        return Board(self.rows, self.cols, list(self.squares))

    def to_rows(self) -> list[str]:
        return [
            "".join(letter_of(sq) if sq else EMPTY_CHAR for sq in self.squares[r * self.cols : (r + 1) * self.cols])
            for r in range(self.rows)
        ]

    def to_text(self) -> str:
        return "\n".join(self.to_rows()) + "\n"

    def words(self) -> list[tuple[str, int, int, bool]]:
        """Every run of 2+ tiles: (word with blanks lowercase, row, col, down)."""
        found = []
        for down in (False, True):
            lines, length = (self.cols, self.rows) if down else (self.rows, self.cols)
            for line in range(lines):
                pos = 0
                while pos < length:
                    start = pos
                    while pos < length and self._line_at(down, line, pos):
                        pos += 1
                    if pos - start >= 2:
                        word = "".join(letter_of(self._line_at(down, line, p)) for p in range(start, pos))
                        row, col = (start, line) if down else (line, start)
                        found.append((word, row, col, down))
                    pos += 1
        return found

    def _line_at(self, down: bool, line: int, pos: int) -> int:
        return self.squares[pos * self.cols + line] if down else self.squares[line * self.cols + pos]


def square_code(ch: str) -> int:
    """The code of a board-file character: ``.`` empty, ``A``-``Z`` a tile, ``a``-``z`` a blank."""
    if ch == EMPTY_CHAR:
        return 0
    if ch.isupper():
        return CODE[ch]
    return CODE[ch.upper()] | BLANK_BIT


def anchors(board: Board, centre: tuple[int, int]) -> list[bool]:
    """Empty squares next to a tile; on an empty board, the centre square alone."""
    rows, cols, sq = board.rows, board.cols, board.squares
    flags = [False] * (rows * cols)
    if board.is_empty():
        flags[centre[0] * cols + centre[1]] = True
        return flags
    for r in range(rows):
        base = r * cols
        for c in range(cols):
            i = base + c
            if sq[i]:
                continue
            if (
                (c > 0 and sq[i - 1])
                or (c + 1 < cols and sq[i + 1])
                or (r > 0 and sq[i - cols])
                or (r + 1 < rows and sq[i + cols])
            ):
                flags[i] = True
    return flags

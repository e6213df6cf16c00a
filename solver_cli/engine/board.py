"""The board: parsing a board file, rendering it back, anchors and cross-check sets.

Squares are one flat row-major list of codes (see ``alphabet``): 0 empty, 1..26 a tile,
``code | BLANK_BIT`` a blank tile. Cross-check sets depend on the lexicon; they are
computed here from whatever board is loaded, never kept incrementally.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver_cli.alphabet import ALL_LETTERS, BLANK_BIT, CODE, LETTER_MASK, letter_of
from solver_cli.errors import InputError
from solver_cli.gaddag import BELOW, FINAL, Gaddag
from solver_cli.rules import Rules

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
                squares.append(_square_code(ch))
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


def _square_code(ch: str) -> int:
    if ch == EMPTY_CHAR:
        return 0
    if ch.isupper():
        return CODE[ch]
    return CODE[ch.upper()] | BLANK_BIT


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
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows_seen += 1
        if rows_seen > rules.rows:
            raise InputError(f"{source}, line {number}: more than {rules.rows} rows (the {rules.name} board is {rules.rows}x{rules.cols})")
        for col, ch in enumerate(line, 1):
            if not (ch == EMPTY_CHAR or ("A" <= ch <= "Z") or ("a" <= ch <= "z")):
                shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
                raise InputError(
                    f"{source}, line {number}, column {col}: unexpected character {shown} "
                    "(use '.' for an empty square, A-Z for a tile, a-z for a blank tile)"
                )
        if len(line) != rules.cols:
            raise InputError(f"{source}, line {number}: row has {len(line)} squares, expected {rules.cols}")
        squares.extend(_square_code(ch) for ch in line)
    if rows_seen != rules.rows:
        raise InputError(f"{source}: board has {rows_seen} rows, expected {rules.rows} for {rules.name}")
    return Board(rules.rows, rules.cols, squares)


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


def cross_checks(board: Board, gaddag: Gaddag, values: tuple[int, ...], down: bool) -> tuple[list[int], list[int]]:
    """For moves running ``down`` (else across): per square, the letters allowed there by the
    perpendicular word, and that word's face value without the new tile, or -1 when there is
    no perpendicular neighbour (every letter allowed, no cross-word scored)."""
    rows, cols, sq = board.rows, board.cols, board.squares
    n = rows * cols
    masks = [ALL_LETTERS] * n
    scores = [-1] * n
    # The perpendicular of a down move is its row; of an across move, its column.
    step, limit = (1, cols) if down else (cols, rows)
    nodes = gaddag.nodes
    root = gaddag.root
    dawg_root = gaddag.dawg_root
    for i in range(n):
        if sq[i]:
            continue
        pos = i % cols if down else i // cols
        if not (pos > 0 and sq[i - step]) and not (pos + 1 < limit and sq[i + step]):
            continue
        before = []  # tiles before the square, nearest first
        p, j = pos - 1, i - step
        while p >= 0 and sq[j]:
            before.append(sq[j])
            p -= 1
            j -= step
        after = []  # tiles after, nearest first
        p, j = pos + 1, i + step
        while p < limit and sq[j]:
            after.append(sq[j])
            p += 1
            j += step
        scores[i] = sum(values[t] for t in before if not t & BLANK_BIT) + sum(
            values[t] for t in after if not t & BLANK_BIT
        )
        # The word is rev(before) + L + after. Walk the longer side first, then try each
        # letter L and walk the shorter side: forwards in the DAWG (rev(before), L, after),
        # or backwards in the GADDAG, which accepts the reversed word with no separator.
        if len(after) <= len(before):
            state = gaddag.walk(dawg_root, [t & LETTER_MASK for t in reversed(before)])
            tail = [t & LETTER_MASK for t in after]
        else:
            state = gaddag.walk(root, [t & LETTER_MASK for t in reversed(after)])
            tail = [t & LETTER_MASK for t in before]
        allowed = 0
        if state >= 0:
            mask = nodes[state]
            letters = mask & ALL_LETTERS
            while letters:
                code = letters.bit_length() - 1
                letters ^= 1 << code
                end = nodes[state + 1 + (mask & BELOW[code]).bit_count()]
                for t in tail:
                    t_mask = nodes[end]
                    if not t_mask >> t & 1:
                        break
                    end = nodes[end + 1 + (t_mask & BELOW[t]).bit_count()]
                else:
                    if nodes[end] & FINAL:
                        allowed |= 1 << code
        masks[i] = allowed
    return masks, scores

"""Scoring a placement from scratch, and the full description of a move.

The move generator scores incrementally; this module scores the board as a person does
(each word formed, premiums only under new tiles) and is what builds the ``Move`` records
shown to users, so the two paths check each other in the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solver_cli.engine.alphabet import BLANK, BLANK_BIT, CODE, LETTER_MASK, letter_of, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.notation import position_text, square_name
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError

CodeAt = Callable[[int, int], int]  # (row, col) -> the square's code once the new tiles are down


@dataclass(frozen=True)
class Tile:
    """A tile a move places: the letter it shows (uppercase) and whether it is a blank."""

    row: int
    col: int
    letter: str
    blank: bool

    @property
    def code(self) -> int:
        return CODE[self.letter] | (BLANK_BIT if self.blank else 0)


@dataclass(frozen=True)
class Word:
    """A word a move forms (main word or cross-word), blank letters in lowercase."""

    word: str
    row: int
    col: int
    down: bool
    score: int
    kind: str = "main"  # "main", "hook" (extends a word on the board) or "incidental"
    extends: str | None = None  # for hooks: the word on the board it extends

    @property
    def direction(self) -> str:
        return "down" if self.down else "across"


@dataclass(frozen=True)
class Move:
    row: int  # first square of the main word (board tiles included)
    col: int
    down: bool
    word: str  # main word, blank letters lowercase
    notation: str  # main word with board tiles in parentheses: RE(T)AINS
    score: int
    placed: tuple[Tile, ...]
    leave: str
    cross_words: tuple[Word, ...]
    bingo: bool
    kind: str = "place"  # "place", "exchange" (``exchanged`` thrown back) or "pass"
    exchanged: str = ""
    equity: float | None = None  # score + leave_value, when ranked by equity
    leave_value: float | None = None  # what the tiles kept are worth (points)

    @property
    def direction(self) -> str:
        return "down" if self.down else "across"

    @property
    def position(self) -> str:
        """Standard notation: ``8H`` is across from row 8 column H, ``H8`` down; empty for an
        exchange or a pass."""
        if self.kind != "place":
            return ""
        return position_text(self.row, self.col, self.down)

    @property
    def text(self) -> str:
        """The move as a player writes it: ``8H RE(T)AINS``, ``exchange QU``, ``pass``."""
        if self.kind == "exchange":
            return f"exchange {self.exchanged}"
        if self.kind == "pass":
            return "pass"
        return f"{self.position} {self.notation}"


def other_move(kind: str, rack: list[int], thrown: tuple[int, ...] = ()) -> Move:
    """The ``Move`` record of an exchange (``thrown``: rack codes, 0 the blank) or a pass."""
    leave = list(rack)
    for code in thrown:
        leave[code] -= 1
    counts = [0] * 27
    for code in thrown:
        counts[code] += 1
    return Move(0, 0, False, "", "", 0, (), rack_text(leave), (), False, kind, rack_text(counts))


@dataclass(frozen=True)
class Scored:
    """What a placement forms on a board, scored from scratch."""

    main: Word
    cross_words: tuple[Word, ...]
    score: int
    bingo: bool


def score_placement(board: Board, rules: Rules, placed: list[Tile] | tuple[Tile, ...]) -> Scored:
    """Score ``placed`` on ``board``: every word formed, each with premiums under new tiles only.

    Raises ``InputError`` if the tiles are not on one line, overlap tiles, or leave a gap.
    The words themselves are not checked against a lexicon here.
    """
    if not placed:
        raise InputError("a move must place at least one tile")
    rows = {t.row for t in placed}
    cols = {t.col for t in placed}
    if len(rows) > 1 and len(cols) > 1:
        raise InputError("the tiles of a move must be in one row or one column")
    new = {}
    for t in placed:
        if not (0 <= t.row < board.rows and 0 <= t.col < board.cols):
            raise InputError(f"square {square_name(t.row, t.col)} is off the board")
        if board.at(t.row, t.col):
            raise InputError(f"square {square_name(t.row, t.col)} already holds a tile")
        if (t.row, t.col) in new:
            raise InputError(f"two tiles on square {square_name(t.row, t.col)}")
        new[(t.row, t.col)] = t.code

    def code_at(r: int, c: int) -> int:
        return new.get((r, c)) or board.at(r, c)

    # Main direction: along the line of the tiles; a single tile takes the longer word,
    # across when both are words (the move generator's convention).
    if len(placed) > 1:
        down = len(cols) == 1
    else:
        t = placed[0]
        across_len = _run(code_at, t.row, t.col, False, board)[1]
        down = across_len < 2
    first = min(placed, key=lambda t: (t.row, t.col))
    start, length = _run(code_at, first.row, first.col, down, board)
    end = start + length - 1
    last = max(placed, key=lambda t: (t.row, t.col))
    if (last.row if down else last.col) > end:
        raise InputError("the tiles of a move must form one word without gaps")
    main = _score_word(board, rules, new, code_at, first.row, first.col, down, start, length)
    crosses = []
    for t in placed:
        cstart, clen = _run(code_at, t.row, t.col, not down, board)
        if clen >= 2:
            crosses.append(_score_word(board, rules, new, code_at, t.row, t.col, not down, cstart, clen))
    if length < 2 and not crosses:
        raise InputError("a move must form a word of at least two letters")
    bingo = len(placed) == rules.rack_size
    total = main.score + sum(w.score for w in crosses) + (rules.bingo_bonus if bingo else 0)
    return Scored(main, tuple(crosses), total, bingo)


def _run(code_at: CodeAt, row: int, col: int, down: bool, board: Board) -> tuple[int, int]:
    """(first index along the line, length) of the run of tiles through (row, col)."""
    pos = row if down else col
    limit = board.rows if down else board.cols

    def at(p: int) -> int:
        return code_at(p, col) if down else code_at(row, p)

    start = pos
    while start > 0 and at(start - 1):
        start -= 1
    end = pos
    while end + 1 < limit and at(end + 1):
        end += 1
    return start, end - start + 1


def _score_word(
    board: Board,
    rules: Rules,
    new: dict[tuple[int, int], int],
    code_at: CodeAt,
    row: int,
    col: int,
    down: bool,
    start: int,
    length: int,
) -> Word:
    total = 0
    mult = 1
    letters = []
    new_positions = []
    for k in range(length):
        r, c = (start + k, col) if down else (row, start + k)
        code = code_at(r, c)
        letters.append(letter_of(code))
        value = 0 if code & BLANK_BIT else rules.values[code & LETTER_MASK]
        if (r, c) in new:
            i = r * board.cols + c
            total += value * rules.letter_mult[i]
            mult *= rules.word_mult[i]
            new_positions.append(k)
        else:
            total += value
    r0, c0 = (start, col) if down else (row, start)
    word = "".join(letters)
    kind, extends = "main", None
    if len(new_positions) == 1:
        k = new_positions[0]
        before, after = word[:k], word[k + 1 :]
        longest = max(before, after, key=len)
        kind, extends = ("hook", longest) if len(longest) >= 2 else ("incidental", None)
    return Word(word, r0, c0, down, total * mult, kind, extends)


def build_move(
    board: Board, rules: Rules, rack: list[int], down: bool, line: int, start: int, codes: tuple[int, ...]
) -> Move:
    """The full ``Move`` for a raw move from the generator (scored again from scratch)."""
    placed = []
    notation = []
    leave = list(rack)
    open_paren = False
    for k, code in enumerate(codes):
        r, c = (start + k, line) if down else (line, start + k)
        ch = letter_of(code)
        if board.at(r, c):
            if not open_paren:
                notation.append("(")
                open_paren = True
        else:
            if open_paren:
                notation.append(")")
                open_paren = False
            blank = bool(code & BLANK_BIT)
            placed.append(Tile(r, c, ch.upper(), blank))
            leave[BLANK if blank else code & LETTER_MASK] -= 1
        notation.append(ch)
    if open_paren:
        notation.append(")")
    scored = score_placement(board, rules, placed)

    row, col = (start, line) if down else (line, start)
    main_word = "".join(letter_of(c) for c in codes)
    return Move(
        row=row,
        col=col,
        down=down,
        word=main_word,
        notation="".join(notation),
        score=scored.score,
        placed=tuple(placed),
        leave=rack_text(leave),
        cross_words=scored.cross_words,
        bingo=scored.bingo,
    )

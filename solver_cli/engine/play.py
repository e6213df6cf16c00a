"""Checking and applying one move given in standard notation (``8H RE(T)AINS``).

The word is written in full along its line: letters over squares that already hold tiles
must match them (they may also be written in parentheses or as ``.``), lowercase letters
are blanks. A move is legal when its tiles lie on one line without gaps, it touches the
tiles on the board (or covers the centre on an empty board), it puts no more of a tile on
the board than the rule set's tile set holds (blanks included; asked for by ``scrab play``
and the API), every word it forms is in the lexicon, and, when a rack is given, the rack
holds its tiles.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from solver_cli._text import plural
from solver_cli.engine.alphabet import BLANK, BLANK_BIT, CODE, LETTER_MASK, LETTERS, rack_text
from solver_cli.engine.board import Board, anchors
from solver_cli.engine.notation import parse_position, position_text, square_name
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Scored, Tile, Word, score_placement
from solver_cli.errors import IllegalMove, InputError


@dataclass(frozen=True)
class Play:
    row: int
    col: int
    down: bool
    placed: tuple[Tile, ...]
    scored: Scored

    @property
    def words(self) -> tuple[Word, ...]:
        return (self.scored.main, *self.scored.cross_words)


def parse_play(board: Board, rules: Rules, position: str, word: str) -> tuple[int, int, bool, list[Tile]]:
    row, col, down = parse_position(position, rules.rows, rules.cols)
    if not word or not re.fullmatch(r"[A-Za-z.()]+", word) or not re.sub(r"[()]", "", word):
        raise InputError(f"bad word {word!r}: use letters (lowercase for blanks), and . or ( ) for tiles on the board")
    placed = []
    inside = False
    k = 0
    for ch in word:
        if ch in "()":
            if (ch == "(") == inside:
                raise InputError(f"bad word {word!r}: unbalanced parentheses")
            inside = ch == "("
            continue
        r, c = (row + k, col) if down else (row, col + k)
        k += 1
        if r >= rules.rows or c >= rules.cols:
            raise InputError(f"{word!r} from {position} runs off the board")
        on_board = board.at(r, c)
        if on_board:
            if ch != "." and (on_board & 31) != CODE[ch.upper()]:
                raise InputError(f"square {square_name(r, c)} holds {chr(64 + (on_board & 31))}, not {ch.upper()}")
            continue
        if ch == "." or inside:
            raise InputError(f"square {square_name(r, c)} is empty: write the letter to play there")
        placed.append(Tile(r, c, ch.upper(), ch.islower()))
    if inside:
        raise InputError(f"bad word {word!r}: unbalanced parentheses")
    if not placed:
        raise InputError(f"{word!r} at {position} places no tile")
    return row, col, down, placed


def check_play(
    board: Board,
    rules: Rules,
    position: str,
    word: str,
    contains: Callable[[str], bool],
    lexicon: str,
    rack: list[int] | None = None,
    *,
    count_tiles: bool = False,
) -> Play:
    """The scored play, or ``InputError`` (malformed) / ``IllegalMove`` (not allowed).
    ``count_tiles``: also ``IllegalMove`` for a move that would put more of a tile on the
    board than the tile set holds (``scrab play`` and the API's ``check_play``; a game
    record replayed under other rules, or a move traced on an odd board, may exceed it)."""
    row, col, down, placed = parse_play(board, rules, position, word)
    written = len(re.sub(r"[()]", "", word))
    if len(placed) > rules.rack_size:
        raise IllegalMove(f"the move places {len(placed)} tiles; a rack holds {rules.rack_size}")
    scored = score_placement(board, rules, placed)
    # The word as written must be the whole word the tiles make in that direction.
    along = [w for w in (scored.main, *scored.cross_words) if w.down == down]
    if not any((w.row, w.col, len(w.word)) == (row, col, written) for w in along):
        made = (
            ", ".join(f"{w.word} at {position_text(w.row, w.col, w.down)}" for w in along)
            or "no word in that direction"
        )
        raise IllegalMove(f"the tiles make {made}, not {word.upper()} at {position}")
    flags = anchors(board, rules.centre)
    if not any(flags[t.row * board.cols + t.col] for t in placed):
        if board.is_empty():
            raise IllegalMove(f"the first move must cover the centre square {square_name(*rules.centre)}")
        raise IllegalMove("the move does not touch any tile on the board")
    if count_tiles:
        _check_tile_counts(board, rules, placed, word)
    bad = [w.word for w in (scored.main, *scored.cross_words) if not contains(w.word)]
    if bad:
        raise IllegalMove(f"not in {lexicon}: {', '.join(bad)}")
    if rack is not None:
        left = list(rack)
        for t in placed:
            left[BLANK if t.blank else CODE[t.letter]] -= 1
        if any(n < 0 for n in left):
            tiles = "".join(t.letter.lower() if t.blank else t.letter for t in placed)
            raise IllegalMove(f"the rack {rack_text(rack)} does not hold the tiles {tiles}")
    return Play(row, col, down, tuple(placed), scored)


def _check_tile_counts(board: Board, rules: Rules, placed: list[Tile], word: str) -> None:
    """``IllegalMove`` when the move would put more of a tile on the board than the tile set
    holds: seven lowercase letters are seven blanks, not a word. Only the tiles the move
    places are counted against the set, so an odd board read from a file still takes moves
    of other tiles (solve warns about such boards)."""
    on_board = [0] * 27
    for square in board.squares:
        if square:
            on_board[BLANK if square & BLANK_BIT else square & LETTER_MASK] += 1
    for t in placed:
        on_board[BLANK if t.blank else CODE[t.letter]] += 1
    for code in sorted({BLANK if t.blank else CODE[t.letter] for t in placed}):
        held, in_set = on_board[code], rules.counts[code]
        if held <= in_set:
            continue
        noun = "blank" if code == BLANK else f"{LETTERS[code - 1]} tile"
        limit = f"the {in_set} in the {rules.name} set" if in_set else f"the {rules.name} set, which has none"
        message = f"the board would hold {plural(held, noun)}, more than {limit}"
        letters = [ch for ch in word if ch.isalpha()]
        if code == BLANK and all(ch.islower() for ch in letters):
            message += f" (lowercase letters are blanks: {''.join(letters).upper()} plays letter tiles)"
        raise IllegalMove(message)


def leave_after(rack: list[int], play: Play) -> list[int]:
    """The rack's counts after ``play`` takes its tiles (never below zero)."""
    left = list(rack)
    for t in play.placed:
        code = BLANK if t.blank else CODE[t.letter]
        left[code] = max(0, left[code] - 1)
    return left


def apply_play(board: Board, play: Play) -> Board:
    new = board.copy()
    for t in play.placed:
        new.squares[t.row * board.cols + t.col] = t.code
    return new

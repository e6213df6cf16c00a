"""Checking and applying one move given in standard notation (``8H RE(T)AINS``).

The word is written in full along its line: letters over squares that already hold tiles
must match them (they may also be written in parentheses or as ``.``), lowercase letters
are blanks. A move is legal when its tiles lie on one line without gaps, it touches the
tiles on the board (or covers the centre on an empty board), every word it forms is in the
lexicon, and, when a rack is given, the rack holds its tiles.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from solver_cli.alphabet import BLANK, CODE, rack_text
from solver_cli.board import Board, anchors
from solver_cli.errors import InputError, ScrabError
from solver_cli.rules import Rules, square_name
from solver_cli.scoring import Scored, Tile, Word, score_placement


class IllegalMove(ScrabError):
    """A well-formed move that the rules or the lexicon do not allow (a failed check)."""


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


def parse_position(text: str, rules: Rules) -> tuple[int, int, bool]:
    """``8H`` (row first) is across, ``H8`` (column first) is down."""
    m = re.fullmatch(r"\s*(?:(\d{1,2})([A-Za-z])|([A-Za-z])(\d{1,2}))\s*", text)
    if not m:
        raise InputError(f"bad position {text!r}: use 8H for across from row 8 column H, H8 for down")
    if m.group(1):
        row, col, down = int(m.group(1)) - 1, ord(m.group(2).upper()) - 65, False
    else:
        row, col, down = int(m.group(4)) - 1, ord(m.group(3).upper()) - 65, True
    if not (0 <= row < rules.rows and 0 <= col < rules.cols):
        raise InputError(f"position {text!r} is off the {rules.rows}x{rules.cols} board")
    return row, col, down


def parse_play(board: Board, rules: Rules, position: str, word: str) -> tuple[int, int, bool, list[Tile]]:
    row, col, down = parse_position(position, rules)
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
) -> Play:
    """The scored play, or ``InputError`` (malformed) / ``IllegalMove`` (not allowed)."""
    row, col, down, placed = parse_play(board, rules, position, word)
    written = len(re.sub(r"[()]", "", word))
    if len(placed) > rules.rack_size:
        raise IllegalMove(f"the move places {len(placed)} tiles; a rack holds {rules.rack_size}")
    scored = score_placement(board, rules, placed)
    # The word as written must be the whole word the tiles make in that direction.
    along = [w for w in (scored.main, *scored.cross_words) if w.down == down]
    if not any((w.row, w.col, len(w.word)) == (row, col, written) for w in along):
        made = ", ".join(f"{w.word} at {_where(w)}" for w in along) or "no word in that direction"
        raise IllegalMove(f"the tiles make {made}, not {word.upper()} at {position}")
    flags = anchors(board, rules.centre)
    if not any(flags[t.row * board.cols + t.col] for t in placed):
        if board.is_empty():
            raise IllegalMove(f"the first move must cover the centre square {square_name(*rules.centre)}")
        raise IllegalMove("the move does not touch any tile on the board")
    bad = [w.word for w in (scored.main, *scored.cross_words) if not contains(w.word)]
    if bad:
        raise IllegalMove(f"not in {lexicon}: {', '.join(bad)}")
    if rack is not None:
        left = list(rack)
        for t in placed:
            left[BLANK if t.blank else CODE[t.letter]] -= 1
        if any(n < 0 for n in left):
            raise IllegalMove(f"the rack {rack_text(rack)} does not hold the tiles {''.join(t.letter.lower() if t.blank else t.letter for t in placed)}")
    return Play(row, col, down, tuple(placed), scored)


def apply_play(board: Board, play: Play) -> Board:
    new = board.copy()
    for t in play.placed:
        new.squares[t.row * board.cols + t.col] = t.code
    return new


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so the file is either the old one or the whole new one, never half-written."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _where(word: Word) -> str:
    square = square_name(word.row, word.col)
    return square if word.down else f"{word.row + 1}{square[0]}"

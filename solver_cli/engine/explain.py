"""How the GADDAG finds one move: the path ``movegen`` takes for it, step by step.

The generator finds every move from its leftmost anchor (the leftmost square it fills that
touches a tile, or the centre on an empty board). The walk starts on that anchor, or, when
board tiles follow it on the right, on the last of those tiles, which it reads backwards
first; it then places letters leftwards (the reversed prefix), crosses the separator, and
places letters rightwards, reading any board tiles on the way. This module replays exactly
that walk for a given move and records, at each square, the GADDAG state, the letters its
arcs allow, the cross-check set of the square, and the rack left. (With one or two blanks the
generator walks each word once, using the rack's own tiles where it can, and lists the
other choices of blank tiles when the word is found; the walk shown is the move's own.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver_cli.engine.alphabet import ALL_LETTERS, BLANK, CODE, LETTER_MASK, mask_letters, rack_text
from solver_cli.engine.board import Board, anchors
from solver_cli.engine.crosscheck import cross_checks
from solver_cli.engine.gaddag import FINAL, LETTER_BITS, SEP, Gaddag
from solver_cli.engine.notation import square_name
from solver_cli.engine.play import Play
from solver_cli.engine.rules import Rules


@dataclass(frozen=True)
class Step:
    phase: str  # "left", "separator" or "right"
    square: str | None  # standard square name (None for the separator)
    letter: str | None  # the letter read or placed (lowercase for a blank)
    source: str  # "board", "rack", "blank" or "" for the separator
    state: int  # GADDAG state after the step
    arcs: str  # letters the GADDAG allows next from that state
    accepts: bool  # the letters so far spell a word (FINAL)
    can_turn: bool  # the state has a separator arc
    cross_check: str | None  # letters the perpendicular word allows here (None: any letter)
    rack_left: str


@dataclass
class Trace:
    anchor: str
    down: bool
    word: str
    score: int
    steps: list[Step] = field(default_factory=list)
    start: str = ""  # where the walk starts: the anchor or the last tile right of it
    reversed_prefix: str = ""
    suffix: str = ""


def explain_play(board: Board, rules: Rules, gaddag: Gaddag, rack: list[int], play: Play) -> Trace:
    """Replay the generator's path to ``play`` (a legal, checked move)."""
    main = play.scored.main
    down = main.down
    cols = board.cols
    start = main.row if down else main.col
    line = main.col if down else main.row
    length = len(main.word)

    def square(pos: int) -> tuple[int, int]:
        return (pos, line) if down else (line, pos)

    placed = {(t.row, t.col): t for t in play.placed}
    flags = anchors(board, rules.centre)
    masks, scores = cross_checks(board, gaddag, rules.values, down)
    anchor = next(
        pos
        for pos in range(start, start + length)
        if square(pos) in placed and flags[square(pos)[0] * cols + square(pos)[1]]
    )
    left = list(rack)
    state = gaddag.root
    trace = Trace(square_name(*square(anchor)), down, main.word, play.scored.score)
    nodes = gaddag.nodes

    def step(pos: int, phase: str) -> None:
        nonlocal state
        r, c = square(pos)
        code = CODE[main.word[pos - start].upper()]
        if (r, c) in placed:
            tile = placed[(r, c)]
            source = "blank" if tile.blank else "rack"
            left[BLANK if tile.blank else code] -= 1
            letter = tile.letter.lower() if tile.blank else tile.letter
            i = r * cols + c
            check = None if scores[i] < 0 else mask_letters(masks[i] & ALL_LETTERS)
        else:
            source = "board"
            on_board = board.at(r, c)
            letter = main.word[pos - start]
            check = None
            code = on_board & LETTER_MASK
        state = gaddag.child(state, code)
        mask = nodes[state]
        trace.steps.append(
            Step(
                phase,
                square_name(r, c),
                letter,
                source,
                state,
                mask_letters(mask & LETTER_BITS),
                bool(mask & FINAL),
                bool(mask & SEP),
                check,
                rack_text(left),
            )
        )

    # The turn square: the anchor, or the last of the board tiles that follow it.
    turn = anchor
    while turn + 1 < start + length and square(turn + 1) not in placed:
        turn += 1
    trace.start = square_name(*square(turn))
    for pos in range(turn, start - 1, -1):
        step(pos, "left")
    trace.reversed_prefix = "".join(s.letter for s in trace.steps if s.letter is not None)
    if turn + 1 < start + length:
        state = gaddag.child(state, 0)
        mask = nodes[state]
        trace.steps.append(
            Step(
                "separator",
                None,
                None,
                "",
                state,
                mask_letters(mask & LETTER_BITS),
                False,
                False,
                None,
                rack_text(left),
            )
        )
        for pos in range(turn + 1, start + length):
            step(pos, "right")
    trace.suffix = "".join(s.letter for s in trace.steps if s.phase == "right" and s.letter is not None)
    return trace

"""Endgames built by hand: each board, racks and word list is written out and each value worked
out by hand in the comments (and checked against the plain reference too), on both engines.
Squares are (row, col), 0-based; the centre is (7, 7). Premiums used: Scrabble has a double
letter at (8, 6); every other square a tile is placed on here is plain in both layouts."""

from __future__ import annotations

import dataclasses
import time

import pytest

from solver_cli.engine.alphabet import BLANK_BIT, CODE
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import PASS, PLACE
from solver_cli.engine.rules import Rules
from solver_cli.lexicon.build import build_gaddag
from solver_cli.lookahead.endgame import PLIES, TIME, EndgameResult, Ending, _shown_variation, solve_endgame

from .checks import check_proven
from .positions import RULES, Endgame, Reference, hard_endgame, placement_of

SCRABBLE, WWF = RULES["scrabble"], RULES["wwf"]


def board_with(rules: Rules, *words: tuple[int, int, str, bool]) -> tuple[int, ...]:
    """The squares with each (row, col, word, down) written on an empty board (lower case: a
    blank)."""
    squares = [0] * (rules.rows * rules.cols)
    for row, col, word, down in words:
        for k, ch in enumerate(word):
            r, c = (row + k, col) if down else (row, col + k)
            squares[r * rules.cols + c] = CODE[ch.upper()] | (BLANK_BIT if ch.islower() else 0)
    return tuple(squares)


def rack(text: str) -> tuple[int, ...]:
    counts = [0] * 27
    for ch in text:
        counts[0 if ch == "?" else CODE[ch]] += 1
    return tuple(counts)


def tiles(*placed: tuple[int, int, str]) -> frozenset[tuple[int, int, int]]:
    """New tiles (row, col, letter); lower case: a blank."""
    return frozenset((row, col, CODE[ch.upper()] | (BLANK_BIT if ch.islower() else 0)) for row, col, ch in placed)


def solve(rules, squares, mover, opponent, words, engine, scoreless=0, top=3, **limits) -> EndgameResult:
    board = Board(rules.rows, rules.cols, list(squares))
    gaddag = build_gaddag(sorted(words))
    return solve_endgame(
        board, list(mover), list(opponent), gaddag, rules, scoreless=scoreless, top=top, engine=engine, **limits
    )


def proven(rules, squares, mover, opponent, words, engine, scoreless, value, top=3) -> EndgameResult:
    """Solve, and check the hand-worked ``value`` against the reference and the result by
    tests/lookahead/checks.py (the K best, the pv replayed to the end)."""
    gaddag = build_gaddag(sorted(words))
    ref = Reference(gaddag)
    assert ref.minimax(rules, squares, mover, opponent, scoreless) == value
    endgame = Endgame(-1, "by hand", rules, squares, mover, opponent, scoreless, value, 0, "by hand")
    result = solve(rules, squares, mover, opponent, words, engine, scoreless, top)
    check_proven(endgame, result, ref, engine, top)
    return result


def moves(rules: Rules, squares, result: EndgameResult) -> list[tuple[frozenset, int]]:
    return [(placement_of(rules, squares, rv.move), rv.value) for rv in result.best]


PASSED = frozenset()

# CAT across at (7, 6)-(7, 8); the words CAT and CATS. The only move anywhere is an S at
# (7, 9), CATS: Scrabble 3+1+1+1 = 6, Words with Friends 4+1+1+1 = 7. A Q has no word.
CAT = ["CAT", "CATS"]
S_AT_7_9 = tiles((7, 9, "S"))


@pytest.mark.parametrize(
    ("rules", "scoreless", "value"),
    [
        # Scrabble, six scoreless turns. The mover holds Q (10) and can only pass; the
        # opponent holds S (1). At 5 scoreless turns the mover's pass is the sixth: the game
        # ends, the mover loses 10 and the opponent 1: -10 + 1 = -9.
        (SCRABBLE, 5, -9),
        # At 4 the pass is the fifth; the opponent then plays CATS (6) and goes out, gaining
        # 10 while the mover loses 10: -(6 + 10 + 10) = -26 (its pass, the sixth, would be
        # worth only 10 - 1 = 9 to it).
        (SCRABBLE, 4, -26),
        (SCRABBLE, 0, -26),
        # Words with Friends ends after three: at 2 the mover's pass ends it (-10 + 1 = -9);
        # at 1 or 0 the opponent goes out with CATS for 7: -(7 + 10 + 10) = -27.
        (WWF, 2, -9),
        (WWF, 1, -27),
        (WWF, 0, -27),
    ],
)
def test_scoreless_turns_end_the_game(engine, rules, scoreless, value):
    squares = board_with(rules, (7, 6, "CAT", False))
    result = proven(rules, squares, rack("Q"), rack("S"), CAT, engine, scoreless, value)
    assert moves(rules, squares, result) == [(PASSED, value)]
    if scoreless == rules.scoreless_turns - 1:
        assert result.ending == Ending("scoreless", None, (-10, -1), (-10, -1))
        assert len(result.pv) == 1
    else:
        assert [step.move.kind == PASS for step in result.pv] == [True, False]
        assert placement_of(rules, squares, result.pv[1].move) == S_AT_7_9
        assert result.ending is not None and result.ending.reason == "out" and result.ending.side == 1


@pytest.mark.parametrize(
    ("out_gain", "out_loss", "value", "ending"),
    [
        # The mover plays CATS (6) and goes out against a stuck Q (10): 6 + (1 + 1) x 10 = 26.
        (1, 1, 26, Ending("out", 0, (10, -10), (16, -10))),
        # out_gain 2: it gains 2 x 10, the opponent loses 1 x 10: 6 + 30 = 36.
        (2, 1, 36, Ending("out", 0, (20, -10), (26, -10))),
        # out_loss 3 alone: 6 + 0 + 30 = 36, taken from the opponent.
        (0, 3, 36, Ending("out", 0, (0, -30), (6, -30))),
        # Neither: going out is worth 6, but passing six times leaves the opponent's Q on its
        # rack: -1 + 10 = 9. Passing is best.
        (0, 0, 9, Ending("scoreless", None, (-1, -10), (-1, -10))),
    ],
)
def test_going_out(engine, out_gain, out_loss, value, ending):
    rules = dataclasses.replace(SCRABBLE, out_gain=out_gain, out_loss=out_loss)
    squares = board_with(rules, (7, 6, "CAT", False))
    result = proven(rules, squares, rack("S"), rack("Q"), CAT, engine, 0, value)
    assert result.ending == ending
    # Passing first is worth as much as going out later, or 9 if the passes run out.
    going_out = 6 + (out_gain + out_loss) * 10
    expected = sorted([(S_AT_7_9, going_out), (PASSED, max(going_out, 9))], key=lambda row: -row[1])
    assert moves(rules, squares, result) == expected
    assert len(result.pv) == (1 if ending.reason == "out" else 6)


@pytest.mark.parametrize(
    ("scoreless", "expected"),
    [
        # A blank A at the centre; words AT and ATS. Mover ? Q (10), opponent S (1). The
        # mover's blank as T makes AT across or down for 0 points: a scoreless turn. At 5
        # made it is the sixth and ends the game, as the pass does: -10 + 1 = -9 each.
        (5, [("across", -9), ("down", -9), ("pass", -9)]),
        # At 0 it lets the opponent play ATS (0 + 0 + 1) and go out: -(1 + 10 + 10) = -21;
        # passing keeps the S stuck until the sixth scoreless turn: -9.
        (0, [("pass", -9), ("across", -21), ("down", -21)]),
    ],
)
def test_a_placement_scoring_nothing_is_a_scoreless_turn(engine, scoreless, expected):
    rules = SCRABBLE
    squares = board_with(rules, (7, 7, "a", False))
    result = proven(rules, squares, rack("?Q"), rack("S"), ["AT", "ATS"], engine, scoreless, -9)
    named = {"across": tiles((7, 8, "t")), "down": tiles((8, 7, "t")), "pass": PASSED}
    assert moves(rules, squares, result) == [(named[name], value) for name, value in expected]
    assert result.best[0].move.score == 0


def test_a_placement_scoring_nothing_counts_deeper_in_the_tree(engine):
    """The same rule at a later turn. A blank A at the centre; words AT, IS and TI. Mover ? I S,
    opponent V (4, no word), 2 scoreless turns made (Scrabble).
    - The blank as T, AT across (7, 8) or down (8, 7): 0 points, the third scoreless turn. The
      opponent passes; IS across at (8, 8)-(8, 9) (I on the double letter: 2 + 1, and TI down
      0 + 2) goes out: 0 + 5 + 4 + 4 = 13 (IS down at (8, 8)-(9, 8) after AT down alike).
    - TI across (8, 7)-(8, 8) or down (7, 8)-(8, 8): 0 + 2 = 2; the opponent passes; IS with
      the S (1 + 1) goes out: 2 + 2 + 8 = 12.
    - Passing: the third; the opponent's pass the fourth. Now AT would be the fifth, and the
      opponent's pass the sixth: 0 - 2 + 4 = 2. TI instead: 12. So passing is worth 12, not
      13: an engine that let AT's 0 points reset the count there would find 13."""
    rules = SCRABBLE
    squares = board_with(rules, (7, 7, "a", False))
    result = proven(rules, squares, rack("?IS"), rack("V"), ["AT", "IS", "TI"], engine, 2, 13, top=1000)
    assert moves(rules, squares, result) == [
        (tiles((7, 8, "t")), 13),
        (tiles((8, 7, "t")), 13),
        (tiles((8, 7, "t"), (8, 8, "I")), 12),
        (tiles((7, 8, "t"), (8, 8, "I")), 12),
        (PASSED, 12),
    ]


def test_stuck_tile_setup_beats_the_highest_score(engine):
    """The mover's Q cannot be played; the right first move sets up a spot for it.

    AH across at (7, 6)-(7, 7); words AH, HI, AIT, QI. Mover Q I T (12), opponent V (4, no
    word: it can only pass), 4 scoreless turns made (Scrabble: 6 end the game).
    - HI down (I at (8, 7)): 4 + 1 = 5, the highest score. Then the Q has no spot (left of
      that I it would make AQ down) and the T none: both sides pass until the sixth
      scoreless turn: 5 - 11 + 4 = -2.
    - AIT down (I on the double letter at (8, 6), T at (9, 6)): 1 + 2 + 1 = 4. The opponent
      passes; QI across at (8, 5)-(8, 6) (10 + 1 = 11) goes out: 4 + 11 + 4 + 4 = 23.
    - Passing: the fifth scoreless turn; the opponent's pass is the sixth: -12 + 4 = -8.
    QI cannot be played at once: each spot for the Q and the I together makes AQ, HQ, AI, IA
    or IH."""
    rules = SCRABBLE
    squares = board_with(rules, (7, 6, "AH", False))
    words = ["AH", "AIT", "HI", "QI"]
    result = proven(rules, squares, rack("QIT"), rack("V"), words, engine, 4, 23)
    ait = tiles((8, 6, "I"), (9, 6, "T"))
    hi = tiles((8, 7, "I"))
    assert moves(rules, squares, result) == [(ait, 23), (hi, -2), (PASSED, -8)]
    assert result.best[1].move.score > result.best[0].move.score  # not the highest score
    assert [step.move.kind for step in result.pv] == [PLACE, PASS, PLACE]
    assert placement_of(rules, squares, result.pv[0].move) == ait
    after_ait = board_with(rules, (7, 6, "AH", False), (8, 6, "IT", True))
    assert placement_of(rules, after_ait, result.pv[2].move) == tiles((8, 5, "Q"))
    assert [step.totals for step in result.pv] == [(4, 0), (4, 0), (15, 0)]
    assert result.ending == Ending("out", 0, (4, -4), (19, -4))


def test_a_word_of_eight_blanks_keeps_the_static_order(engine):
    """The native engine orders a list by a packed key that holds at most 7 blanks in the main
    word; a list with more is ordered the slower way, and must give the same answer.

    Eight blank As across at (7, 4)-(7, 11); words AAAAAAAA, AAAAAAAAB, AAAAAAAABB. Mover B B
    (3 each), opponent C (3, no word: it can only pass), Scrabble with ten blanks in the set;
    (7, 12) and (7, 13) are plain, and the blanks score nothing.
    - BB at (7, 12)-(7, 13): 6, out: 6 + 2 x 3 = 12.
    - B at (7, 12): 3; the opponent passes; B at (7, 13) makes AAAAAAAABB (3 + 3) and goes
      out: 3 + 6 + 6 = 15.
    - Passing: the opponent passes too, then the same: 15."""
    rules = dataclasses.replace(SCRABBLE, counts=(10, *SCRABBLE.counts[1:]))
    squares = board_with(rules, (7, 4, "aaaaaaaa", False))
    words = ["AAAAAAAA", "AAAAAAAAB", "AAAAAAAABB"]
    result = proven(rules, squares, rack("BB"), rack("C"), words, engine, 0, 15)
    b, bb = tiles((7, 12, "B")), tiles((7, 12, "B"), (7, 13, "B"))
    assert moves(rules, squares, result) == [(b, 15), (PASSED, 15), (bb, 12)]
    assert sum(code >= BLANK_BIT for code in result.best[0].move.codes) == 8  # the key's limit is 7


@pytest.mark.parametrize(
    ("rules", "scoreless", "value", "at"),
    [
        # A at the centre; words AT and QAT. Mover T V (Scrabble 1 + 4), opponent Q (10).
        # AT (2, across or down) lets the opponent play QAT (10 + 1 + 1 = 12) and go out
        # against the V: 2 - 12 - 4 - 4 = -18. Passing keeps the Q stuck: after six
        # scoreless turns, -5 + 10 = 5.
        (SCRABBLE, 0, 5, -18),
        (SCRABBLE, 3, 5, -18),
        # Words with Friends: V is 5. AT: 2 - 12 - 5 - 5 = -20; passing: -6 + 10 = 4.
        (WWF, 0, 4, -20),
    ],
)
def test_passing_is_best(engine, rules, scoreless, value, at):
    squares = board_with(rules, (7, 7, "A", False))
    result = proven(rules, squares, rack("TV"), rack("Q"), ["AT", "QAT"], engine, scoreless, value)
    across, down = tiles((7, 8, "T")), tiles((8, 7, "T"))
    assert moves(rules, squares, result) == [(PASSED, value), (across, at), (down, at)]
    # Every turn a pass, until the rule set's count of scoreless turns is reached.
    assert [step.move.kind for step in result.pv] == [PASS] * (rules.scoreless_turns - scoreless)
    assert result.ending is not None and result.ending.reason == "scoreless"


def test_plies_cut_is_not_proven(engine):
    """With one ply the passing endgame above cannot reach its end (six scoreless turns are
    six plies): not proven, stopped by plies, one ply searched."""
    squares = board_with(SCRABBLE, (7, 7, "A", False))
    result = solve(SCRABBLE, squares, rack("TV"), rack("Q"), ["AT", "QAT"], engine, plies=1)
    assert not result.proven and result.stopped == PLIES and result.depth == 1


def test_a_cut_search_shows_the_line_as_deep_as_it_holds_with_its_value():
    """The variation of a cut search (``_shown_variation``): as deep as the iteration cut
    midway (3 plies below the last finished) when the line ends the game there with the
    value shown, else as deep as the last finished, and never to an ending with another
    total. The passing endgame above: six passes, worth 5 to the mover (Q against TV)."""
    squares = board_with(SCRABBLE, (7, 7, "A", False))
    mover, opponent = rack("TV"), rack("Q")
    board = Board(SCRABBLE.rows, SCRABBLE.cols, list(squares))
    result = proven(SCRABBLE, squares, mover, opponent, ["AT", "QAT"], "python", 0, 5)
    line = [step.move for step in result.pv]
    assert len(line) == 6 and result.ending is not None

    def shown(depth: int, value: int) -> tuple[int, bool]:
        steps, ending = _shown_variation(board, list(mover), list(opponent), SCRABBLE, 0, line, False, depth, value)
        assert [step.move for step in steps] == line[: len(steps)]
        return len(steps), ending is not None

    assert shown(4, 5) == (6, True)  # the cut iteration's 7 plies hold the whole line, worth 5
    assert shown(1, 5) == (1, False)  # its 4 plies do not reach the end: the 1 ply finished
    assert shown(4, 9) == (4, False)  # a line ending at 5 is not the one that valued it at 9
    assert shown(6, 9) == (5, False)  # (as deep as 6 plies, short of that ending)


def test_plies_enough_is_proven(engine):
    """At 5 scoreless turns every move ends the game (a pass is the sixth, the mover's one
    tile goes out): one ply proves it. CATS: 6 + 2 x 10 = 26."""
    squares = board_with(SCRABBLE, (7, 6, "CAT", False))
    result = solve(SCRABBLE, squares, rack("S"), rack("Q"), CAT, engine, scoreless=5, plies=1)
    assert result.proven and result.stopped is None and result.value == 26


def test_time_limit_is_honoured(engine, endgame_lexicons):
    """A position far too big to finish (seven tiles each on a crowded board): the search
    stops at the time limit, within 10%, not proven."""
    board, mover, opponent, rules = hard_endgame()
    limit = 1.0
    started = time.perf_counter()
    result = solve_endgame(board, mover, opponent, endgame_lexicons["small"], rules, time_limit=limit, engine=engine)
    elapsed = time.perf_counter() - started
    assert not result.proven and result.stopped == TIME
    assert 0.9 * limit <= elapsed <= 1.1 * limit, elapsed
    assert result.seconds <= 1.1 * limit
    # Cut midway through an iteration, whose moves the table holds deeper: the variation
    # goes no deeper than that iteration, and ends the game only with the value shown.
    assert result.pv[0].move == result.best[0].move and len(result.pv) <= result.depth + 3
    if result.ending is not None:
        assert result.ending.totals[0] - result.ending.totals[1] == result.value

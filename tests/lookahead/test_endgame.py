"""The endgame solver's library side (docs/endgame.md): proven values against the plain
minimax of ``reference.py``, the principal variation replayed move by move, the top-K first
moves and their exact values, the plies and time limits, Ctrl-C, progress, argument errors.

Small random endgames (1 or 2 tiles a side, the small word list) keep the full-width
reference fast; the 5,000-case comparison lives with the differential tests."""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace

import pytest
from positions import played_position

from solver_cli.engine.alphabet import BLANK_BIT, LETTER_MASK, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import NATIVE_BUILT, PASS, PLACE, generate_moves, rank_key
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.errors import InputError
from solver_cli.lookahead import endgame
from solver_cli.lookahead.endgame import (
    DEEPEN_STEP,
    INTERRUPTED,
    PLIES,
    TIME,
    EndgameStopped,
    decide_endgame,
    solve_endgame,
)

from .positions import hard_endgame
from .reference import face, minimax

SCRABBLE = load_rules("scrabble")
WWF = load_rules("wwf")
# Other end factors and a short scoreless run: the value must follow the rule set's numbers.
ODD = replace(SCRABBLE, name="odd", out_gain=2, out_loss=1, stuck_loss=3, scoreless_turns=4)


def endgame_position(rules: Rules, gaddag, seed: int, most: int = 2) -> tuple[Board, list[int], list[int], int]:
    """A board after a few random moves, two racks of 1..``most`` tiles from what is left,
    and a count of scoreless turns already made (near the limit half the time: short
    lines of passes keep the full-width reference fast)."""
    rng = random.Random(seed)
    board = played_position(rules, gaddag, seed, rng.randint(2, 6))
    held = [0] * 27
    for code in board.squares:
        if code:
            held[0 if code & BLANK_BIT else code & LETTER_MASK] += 1
    left = [code for code in range(27) for _ in range(rules.counts[code] - held[code])]
    rng.shuffle(left)
    racks = [[0] * 27, [0] * 27]
    for rack in racks:
        for _ in range(rng.randint(1, most)):
            rack[left.pop()] += 1
    limit = rules.scoreless_turns
    scoreless = rng.randint(max(0, limit - 3), limit - 1)
    return board, racks[0], racks[1], scoreless


def after(board: Board, rack: list[int], raw) -> tuple[Board, list[int]]:
    score, down, line, start, codes = raw
    squares, left = list(board.squares), list(rack)
    for k, code in enumerate(codes):
        i = (start + k) * board.cols + line if down else line * board.cols + start + k
        if not squares[i]:
            squares[i] = code
            left[0 if code & BLANK_BIT else code] -= 1
    return Board(board.rows, board.cols, squares), left


def first_move_value(board, mover, opponent, gaddag, rules, scoreless, move) -> int:
    """A first move's exact value, straight from the definition and the reference."""
    if move.kind == PASS:
        if scoreless + 1 >= rules.scoreless_turns:
            return rules.stuck_loss * (face(opponent, rules) - face(mover, rules))
        return -minimax(board, opponent, mover, gaddag, rules, scoreless + 1)
    placed, left = after(board, mover, move.raw)
    if not any(left):
        return move.score + (rules.out_gain + rules.out_loss) * face(opponent, rules)
    s = scoreless + 1 if move.score == 0 else 0
    if s >= rules.scoreless_turns:
        return move.score + rules.stuck_loss * (face(opponent, rules) - face(left, rules))
    return move.score - minimax(placed, opponent, left, gaddag, rules, s)


def check_variation(result, board, mover, opponent, gaddag, rules, scoreless) -> None:
    """Every step is a legal move of the side to move, scored right, totals running; the
    game ends where the ending says, and the totals' difference is the value."""
    racks, squares, s = [list(mover), list(opponent)], Board(board.rows, board.cols, list(board.squares)), scoreless
    totals = [0, 0]
    for n, step in enumerate(result.pv):
        assert step.side == n % 2
        rack = racks[step.side]
        if step.move.kind == PLACE:
            assert step.move.raw in generate_moves(squares, rack, gaddag, rules), f"step {n} is not a legal move"
            squares, racks[step.side] = after(squares, rack, step.move.raw)
        else:
            assert step.move.kind == PASS and step.score == 0
        assert step.score == step.move.score
        totals[step.side] += step.score
        assert step.totals == (totals[0], totals[1])
        s = s + 1 if step.score == 0 else 0
        ended = (step.move.kind == PLACE and not any(racks[step.side])) or s >= rules.scoreless_turns
        assert ended == (n == len(result.pv) - 1), f"step {n}: the game ends exactly at the last step"
    ending = result.ending
    assert ending is not None
    if ending.reason == "out":
        out = ending.side
        worth = face(racks[1 - out], rules)
        expected = [0, 0]
        expected[out], expected[1 - out] = rules.out_gain * worth, -rules.out_loss * worth
    else:
        assert ending.reason == "scoreless" and ending.side is None
        expected = [-rules.stuck_loss * face(racks[0], rules), -rules.stuck_loss * face(racks[1], rules)]
    assert ending.adjustments == tuple(expected)
    assert ending.totals == (totals[0] + expected[0], totals[1] + expected[1])
    assert ending.totals[0] - ending.totals[1] == result.value


# (Seeds whose full-width reference takes seconds, such as a blank against a blank, are left
# to the differential tests.)
@pytest.mark.parametrize(
    ("rules", "seeds"), [(SCRABBLE, range(12)), (WWF, [*range(106, 116), 124]), (ODD, range(200, 208))]
)
def test_the_proven_value_is_the_minimax_and_the_variation_adds_up(small_gaddag, engine, rules, seeds):
    deep = 0
    for seed in seeds:
        board, mover, opponent, scoreless = endgame_position(rules, small_gaddag, seed)
        result = solve_endgame(board, mover, opponent, small_gaddag, rules, scoreless=scoreless)
        assert result.proven and result.stopped is None, seed
        assert result.value == minimax(board, mover, opponent, small_gaddag, rules, scoreless), seed
        assert result.best[0].value == result.value and result.pv[0].move == result.best[0].move
        check_variation(result, board, mover, opponent, small_gaddag, rules, scoreless)
        deep += len(result.pv) > 1
    assert deep > 0  # some variations go past the first move


def test_the_top_moves_are_every_first_move_with_its_exact_value_in_order(small_gaddag, engine):
    for seed in (3, 8, 14, 27):
        board, mover, opponent, scoreless = endgame_position(SCRABBLE, small_gaddag, seed)
        result = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, top=1000)
        moves = generate_moves(board, mover, small_gaddag, SCRABBLE)
        assert result.proven and len(result.best) == len(moves) + 1  # every placement and the pass
        static = sorted(moves, key=lambda raw: (sum(after(board, mover, raw)[1]) != 0, rank_key(raw)))
        order = {raw: k for k, raw in enumerate(static)}
        keys = []
        for root in result.best:
            want = first_move_value(board, mover, opponent, small_gaddag, SCRABBLE, scoreless, root.move)
            assert root.value == want, (seed, root)
            keys.append((-root.value, order.get(root.move.raw, len(static))))  # the pass last
        assert keys == sorted(keys), "best first, ties in static order (going out, rank order, the pass)"
        assert result.value == result.best[0].value
        three = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, top=3)
        assert three.best == result.best[:3]


def deep_position(gaddag, rules=SCRABBLE):
    """A small endgame whose proof needs more than one ply."""
    for seed in range(40):
        board, mover, opponent, scoreless = endgame_position(rules, gaddag, seed)
        result = solve_endgame(board, mover, opponent, gaddag, rules, scoreless=scoreless)
        if result.depth >= 3:
            return board, mover, opponent, scoreless, result
    raise AssertionError("no deep position among the seeds")


def test_a_plies_limit_cuts_the_search_and_says_so(small_gaddag, engine):
    board, mover, opponent, scoreless, proven = deep_position(small_gaddag)
    cut = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, plies=1)
    assert not cut.proven and cut.stopped == PLIES and cut.depth == 1
    assert cut.best and cut.pv[0].move == cut.best[0].move
    enough = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, plies=proven.depth)
    assert enough.proven and enough.stopped is None and enough.value == proven.value and enough.pv == proven.pv


def test_a_tiny_table_still_gives_the_exact_value(small_gaddag, engine, monkeypatch):
    board, mover, opponent, scoreless, proven = deep_position(small_gaddag)
    monkeypatch.setattr(endgame, "_ENTRY_BYTES", 1 << 20)  # tt_mb=1: a table of one entry
    small = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, tt_mb=1)
    assert small.proven and (small.value, small.best, small.pv) == (proven.value, proven.best, proven.pv)


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")
def test_both_move_generators_give_the_same_proven_result(small_gaddag):
    for seed in range(6):
        board, mover, opponent, scoreless = endgame_position(SCRABBLE, small_gaddag, seed)
        results = [
            solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, top=5, engine=name)
            for name in ("python", "native")
        ]
        assert [(r.value, r.best, r.pv, r.ending) for r in results[:1]] == [
            (r.value, r.best, r.pv, r.ending) for r in results[1:]
        ]


def big_position(rules: Rules) -> tuple[Board, list[int], list[int]]:
    """Full racks on a busy board: far too big to solve in a second."""
    board = Board.from_rows(
        [
            "...............",
            "...............",
            "...............",
            "...............",
            "......C........",
            "......A........",
            "......T..F.....",
            ".....HORSE.....",
            "......N..N.....",
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
        ]
    )
    return board, parse_rack("AEINRST", rules.rack_size), parse_rack("DEILOSU", rules.rack_size)


def test_the_time_limit_is_honoured_within_ten_percent(small_gaddag, engine):
    board, mover, opponent, _ = hard_endgame()
    limit = 1.0
    started = time.perf_counter()
    result = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, time_limit=limit)
    wall = time.perf_counter() - started
    assert not result.proven and result.stopped == TIME
    assert result.seconds <= wall <= limit * 1.1
    assert result.best and result.pv and result.pv[0].move == result.best[0].move
    assert result.nodes > 0


def test_a_limit_too_short_for_any_first_move_still_answers(small_gaddag, engine):
    board, mover, opponent = big_position(SCRABBLE)
    result = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, time_limit=1e-9)
    assert not result.proven and result.stopped == TIME and result.depth == 0 and result.ending is None
    moves = generate_moves(board, mover, small_gaddag, SCRABBLE)
    first = min(moves, key=rank_key)  # nothing goes out: the first in static order is the best score
    assert [(r.move.raw, r.value) for r in result.best] == [(first, first[0])]
    assert [step.move for step in result.pv] == [result.best[0].move]


def test_progress_is_reported_and_its_errors_stop_the_search(small_gaddag, engine):
    board, mover, opponent, scoreless, proven = deep_position(small_gaddag)
    calls = []
    result = solve_endgame(
        board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, progress=lambda *a: calls.append(a)
    )
    depths = [depth for depth, *_ in calls]
    # every iteration reported, 1, 1 + DEEPEN_STEP, ... up to the proven depth
    assert set(range(1, result.depth + 1, DEEPEN_STEP)) <= set(depths) and depths == sorted(depths)
    assert (result.depth - 1) % DEEPEN_STEP == 0
    assert [nodes for _, nodes, *_ in calls] == sorted(nodes for _, nodes, *_ in calls)
    assert calls[-1][0] == result.depth and calls[-1][2] == result.value and calls[-1][3] == result.best[0].move

    class Refused(Exception):
        pass

    def refuse(*_):
        raise Refused

    with pytest.raises(Refused):
        solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, progress=refuse)


def test_ctrl_c_stops_with_the_best_found_so_far(small_gaddag, engine):
    board, mover, opponent = big_position(SCRABBLE)
    seen = []

    def interrupt(depth, nodes, value, move):
        seen.append(depth)
        if depth >= 1 and len(seen) >= 2:
            raise KeyboardInterrupt

    with pytest.raises(EndgameStopped) as stopped:
        solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, progress=interrupt)
    result = stopped.value.result
    assert isinstance(stopped.value, KeyboardInterrupt)
    assert not result.proven and result.stopped == INTERRUPTED
    assert result.best and result.value == result.best[0].value and result.pv[0].move == result.best[0].move


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")
@pytest.mark.parametrize(("status", "raises"), [(0, False), (4, True)])
def test_a_native_value_proven_before_a_stop_in_its_variation_stays_proven(small_gaddag, monkeypatch, status, raises):
    """The native search's status 4: proven, then Ctrl-C while its variation was followed
    (status 0 also when the time limit came then). The value stays proven, as the Python
    twin keeps it; Ctrl-C still raises EndgameStopped with the result."""
    board, mover, opponent, scoreless = endgame_position(SCRABBLE, small_gaddag, 7)
    real = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, engine="native")
    assert real.proven
    native = endgame._movegen_c
    assert native is not None

    class Stub:
        def endgame(self, *args):
            found = native.endgame(*args)
            return (status, *found[1:])

    monkeypatch.setattr(endgame, "_movegen_c", Stub())
    if raises:
        with pytest.raises(EndgameStopped) as stopped:
            solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, engine="native")
        result = stopped.value.result
    else:
        result = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, scoreless=scoreless, engine="native")
    assert (result.proven, result.stopped, result.value) == (True, None, real.value)


def one_line_error(call, *words: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"top": 0}, ["top", "0"]),
        ({"top": 1001}, ["top", "1001"]),
        ({"top": True}, ["top", "True"]),
        ({"plies": 0}, ["plies", "0"]),
        ({"plies": 65}, ["plies", "65"]),
        ({"time_limit": 0}, ["time limit", "0"]),
        ({"time_limit": -1.5}, ["time limit", "-1.5"]),
        ({"time_limit": math.nan}, ["time limit", "nan"]),
        ({"time_limit": 86_401}, ["time limit", "86401"]),
        ({"tt_mb": 0}, ["tt_mb", "0"]),
        ({"tt_mb": 65_537}, ["tt_mb", "65537"]),
        ({"scoreless": -1}, ["scoreless", "-1"]),
        ({"scoreless": 6}, ["scoreless", "6", "end the game at 6"]),
        ({"engine": "fast"}, ["engine", "'fast'"]),
    ],
)
def test_bad_arguments_are_one_line_naming_the_value(small_gaddag, options, words):
    board, mover, opponent = big_position(SCRABBLE)
    one_line_error(lambda: solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, **options), *words)


def test_bad_racks_and_boards_are_refused(small_gaddag):
    board, mover, opponent = big_position(SCRABBLE)
    empty = [0] * 27
    solve = solve_endgame
    one_line_error(lambda: solve(board, empty, opponent, small_gaddag, SCRABBLE), "mover's rack is empty")
    one_line_error(lambda: solve(board, mover, empty, small_gaddag, SCRABBLE), "opponent's rack is empty")
    big = [0] * 27
    big[5] = 21
    one_line_error(lambda: solve(board, big, opponent, small_gaddag, SCRABBLE), "21 tiles", "at most 20")
    one_line_error(lambda: solve(board, [1] * 26, opponent, small_gaddag, SCRABBLE), "27 non-negative")
    queens = parse_rack("Q", 7)
    one_line_error(lambda: solve(board, queens, queens, small_gaddag, SCRABBLE), "2 Q tiles", "the 1 in the scrabble")
    small = Board(3, 3, [0] * 9)
    one_line_error(lambda: solve(small, mover, opponent, small_gaddag, SCRABBLE), "3x3", "15x15")


def test_a_verdict_cut_by_its_limits_says_so(small_gaddag, engine):
    board, mover, opponent, _ = hard_endgame()
    value = solve_endgame(board, mover, opponent, small_gaddag, SCRABBLE, plies=1).value
    shallow = decide_endgame(board, mover, opponent, small_gaddag, SCRABBLE, value + 1, plies=1)
    # one ply, valued by the play-outs at the horizon: the verdict of that estimate, not proven
    assert (shallow.proven, shallow.stopped, shallow.depth, shallow.side) == (False, PLIES, 1, -1)
    limit = 1.0
    started = time.perf_counter()
    timed = decide_endgame(board, mover, opponent, small_gaddag, SCRABBLE, value + 1, time_limit=limit)
    assert not timed.proven and timed.stopped == TIME and time.perf_counter() - started <= limit * 1.1


@pytest.mark.parametrize(
    ("threshold", "words"),
    [(2**61 + 1, ["threshold", str(2**61 + 1)]), (-(2**62), ["threshold"]), (1.5, ["threshold", "1.5"])],
)
def test_a_bad_threshold_is_one_line(small_gaddag, threshold, words):
    board, mover, opponent = big_position(SCRABBLE)
    one_line_error(lambda: decide_endgame(board, mover, opponent, small_gaddag, SCRABBLE, threshold), *words)

"""Monte Carlo simulation (solver_cli/lookahead/sim.py): determinism, what it sees that
equity cannot, exact scoring of games that end inside the plies, and the stopping rule."""

from __future__ import annotations

import dataclasses
import math
import random
import sys

import pytest
from soak import python_engine_in_soak

from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.movegen import PASS, PLACE, ranked_moves
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.engine.unseen import valuation_for
from solver_cli.errors import InputError
from solver_cli.games import workers
from solver_cli.lexicon.build import build_gaddag
from solver_cli.lookahead import sim
from solver_cli.lookahead.sim import Arm, SimStopped, bound_width, prune, simulate

ZERO = LeaveTable.zeros()


def place(rules: Rules, words: list[tuple[str, int, int, bool]]) -> Board:
    """A board with ``words`` (letters, row, col, down; 0-based) on it."""
    board = Board.empty(rules)
    for word, row, col, down in words:
        for k, letter in enumerate(word):
            r, c = (row + k, col) if down else (row, col + k)
            board.squares[r * rules.cols + c] = ord(letter) - 64
    return board


def counts(letters: str) -> list[int]:
    return parse_rack(letters, 7)


def figures(result: sim.SimResult) -> list[tuple[object, ...]]:
    return [(s.candidate, s.iterations, s.mean, s.stderr, s.win, s.pruned_at) for s in result.standings]


# --- the same seed, the same standings ---------------------------------------------------------


@pytest.fixture(scope="module")
def midgame(small_words):
    rules = load_rules("scrabble")
    board = place(rules, [("QUIET", 7, 5, False), ("ON", 8, 9, False)])  # (and TO down)
    return rules, board, build_gaddag(sorted({*small_words, "QUIET"}))


def stand_in(seed: int = 5) -> LeaveTable:
    from array import array

    from solver_cli.engine.leaves import TABLE_SIZE

    rng = random.Random(seed)
    return LeaveTable(array("h", (rng.randrange(-600, 601) for _ in range(TABLE_SIZE))), "stand-in")


@pytest.fixture(scope="module")
def leaves():
    return stand_in()


def test_same_seed_same_standings(engine, midgame, leaves):
    rules, board, gaddag = midgame
    rack = counts("AEINRST")
    run = {"candidates": 3, "plies": 2, "iterations": 8, "stop": None, "seed": 7}
    first = simulate(board, rack, gaddag, rules, leaves, **run)
    again = simulate(board, rack, gaddag, rules, leaves, **run)
    assert figures(first) == figures(again)
    assert first.iterations == 8 and first.stopped == sim.ITERATIONS
    assert all(s.iterations == 8 for s in first.standings)
    # another seed draws other racks: other figures
    other = simulate(board, rack, gaddag, rules, leaves, **{**run, "seed": 8})
    assert figures(other) != figures(first)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_the_standings_do_not_depend_on_jobs(engine, midgame, leaves, start, monkeypatch):
    """Two worker processes, forked or spawned, iterations split between them and merged in
    order, with the stopping rule checked on the way (every 4 iterations here, so that the
    two worst of the candidates, the last by equity, are dropped during the run): the same
    standings."""
    if start == "fork" and not sys.platform.startswith("linux"):
        pytest.skip("workers are forked on Linux only")
    monkeypatch.setattr(workers, "start_method", lambda: start)
    rules, board, gaddag = midgame
    rack = counts("AEINRST")
    every = ranked_moves(board, rack, gaddag, rules, valuation=valuation_for(board, rack, rules, leaves))[1]
    run = {"candidates": every[:3] + every[-2:], "plies": 2, "iterations": 16, "stop": 95, "seed": 11, "check_every": 4}
    one = simulate(board, rack, gaddag, rules, leaves, **run)
    two = simulate(board, rack, gaddag, rules, leaves, **run, jobs=2, workers=workers)
    assert figures(one) == figures(two)
    assert (one.iterations, one.stopped) == (two.iterations, two.stopped) == (16, sim.ITERATIONS)
    assert two.jobs == 2
    assert sum(s.pruned_at is not None for s in one.standings) == 2
    assert {s.candidate for s in one.standings if s.pruned_at is not None} == set(every[-2:])


@python_engine_in_soak()  # (the schedule does not depend on the engine; the twin's play-outs are slow)
@pytest.mark.parametrize("check_every", [3, 5])
def test_the_workers_run_ahead_of_a_check_and_the_standings_stay_the_same(engine, midgame, leaves, check_every):
    """The workers start iterations past a stopping check before it is made (chunks that
    straddle it, here of 2 iterations against checks every 3 or 5): the outcomes of a
    candidate dropped at the check are thrown away, and when one candidate is left the run
    stops at the check, as on one process."""
    rules, board, gaddag = midgame
    rack = counts("AEINRST")
    every = ranked_moves(board, rack, gaddag, rules, valuation=valuation_for(board, rack, rules, leaves))[1]
    run = {"candidates": [every[0], every[-1]], "plies": 2, "iterations": 300, "stop": 95, "seed": 5}
    one = simulate(board, rack, gaddag, rules, leaves, **run, check_every=check_every)
    two = simulate(board, rack, gaddag, rules, leaves, **run, check_every=check_every, jobs=2, workers=workers)
    assert figures(one) == figures(two)
    assert (one.iterations, one.stopped) == (two.iterations, two.stopped)
    assert one.stopped == sim.CONFIDENT and one.iterations % check_every == 0 and one.iterations < 300
    assert [s.candidate for s in one.standings if s.pruned_at is not None] == [every[-1]]


def test_both_engines_simulate_alike(midgame, leaves, monkeypatch):
    rules, board, gaddag = midgame
    rack = counts("AEINRS?")
    run = {"candidates": 3, "plies": 2, "iterations": 6, "stop": None, "seed": 2}
    found = []
    for name in ("python", "native"):
        monkeypatch.setenv("SCRAB_ENGINE", name)
        try:
            found.append(figures(simulate(board, rack, gaddag, rules, leaves, **run)))
        except InputError:  # native not built
            pytest.skip("the native engine is not built")
    assert found[0] == found[1]


# --- what two plies see that equity does not -----------------------------------------------------


def test_a_move_that_opens_a_triple_triple_ranks_lower(engine):
    """RSTU on row 8; the best-scoring move, ABCDGHIR down column E from E1 (a bingo, 84),
    puts an A on E1, through which the opponent's JKLMNOT makes JKLMANOT across A1-H1: both
    triple-word squares, 24 x 9 + 50 = 266. GR (3 points) opens nothing; nor does the third
    candidate, an exchange (which may draw an A for the bingo later)."""
    rules = load_rules("scrabble")
    gaddag = build_gaddag(sorted(["RSTU", "ABCDGHIR", "GR", "JKLMANOT"]))
    board = place(rules, [("RSTU", 7, 4, False)])
    rack = counts("ABCDGHI")
    result = simulate(
        board, rack, gaddag, rules, ZERO, candidates=3, plies=2, iterations=20, stop=None, seed=1,
        opponent_rack=counts("JKLMNOT"),
    )  # fmt: skip
    by_word = {}
    for s in result.standings:
        c = s.candidate
        if c.kind == PLACE:
            by_word["".join(chr(64 + code) for code in c.codes)] = s
    bingo, small = by_word["ABCDGHIR"], by_word["GR"]
    assert (bingo.candidate.score, small.candidate.score) == (84, 3)
    assert bingo.equity_rank == 1 and small.equity_rank == 2  # equity prefers the bingo
    assert small.mean > bingo.mean + 100  # two plies see the 266 it gives away
    assert result.standings[-1].candidate == bingo.candidate  # last of the three
    # after the bingo the opponent always finds its 266 (its rack is given): the bingo's
    # mean is 84 - 266 plus what the mover then draws and plays
    assert bingo.mean < 84 - 266 + 100


# --- a game that ends inside the plies is scored exactly -----------------------------------------


def endgame_rules(tiles: str, scoreless_turns: int = 6) -> Rules:
    """Scrabble with a tile set of exactly ``tiles``, so that the bag is empty."""
    base = load_rules("scrabble")
    set_counts = [0] * 27
    for letter in tiles:
        set_counts[0 if letter == "?" else ord(letter) - 64] += 1
    return dataclasses.replace(base, counts=tuple(set_counts), scoreless_turns=scoreless_turns)


def test_a_game_that_ends_inside_the_plies_is_scored_exactly(engine):
    """AT on 8H; the mover holds E and Z, the opponent the last tile, an E (the bag is
    empty: the tile set is exactly these tiles). Words: AT, ATE, ZA. Letter values: A 1,
    E 1, T 1, Z 10; J8 and H7 are plain squares."""
    rules = endgame_rules("ATEZE")
    gaddag = build_gaddag(sorted(["AT", "ATE", "ZA"]))
    board = place(rules, [("AT", 7, 7, False)])
    rack = counts("EZ")
    result = simulate(board, rack, gaddag, rules, ZERO, candidates=3, plies=3, iterations=5, stop=None, seed=1)
    means = {}
    for s in result.standings:
        c = s.candidate
        word = "pass" if c.kind == PASS else "".join(chr(64 + code) for code in c.codes)
        means[word] = s.mean
        assert s.iterations == 1  # nothing is random: one iteration says all, asked for 5
    assert result.stopped == "determined" and result.iterations == 1
    for seed in (2, 3):  # (the same whatever the seed)
        again = simulate(board, rack, gaddag, rules, ZERO, candidates=3, plies=3, iterations=5, stop=None, seed=seed)
        assert [(t.candidate, t.mean) for t in again.standings] == [(t.candidate, t.mean) for t in result.standings]
    face = {"A": 1, "E": 1, "T": 1, "Z": 10}
    # ZA (Z on H7, 11): the opponent plays ATE (E on J8, 3) and goes out, gaining the
    # mover's E twice over (the mover loses it, the opponent gains it).
    za = (face["Z"] + face["A"]) - (3 + 2 * face["E"])
    # ATE (3): the opponent's E fits nowhere (EATE, EA are no words), it passes; the mover
    # plays ZA (11) and goes out, gaining the opponent's E twice over.
    ate = 3 + 11 + 2 * face["E"]
    # The pass: the opponent plays ATE and goes out, gaining the mover's E and Z twice over.
    passed = 0 - 3 - 2 * (face["E"] + face["Z"])
    assert means == {"ZA": za, "ATE": ate, "pass": passed} == {"ZA": 6, "ATE": 16, "pass": -25}
    assert [s.candidate.score for s in result.standings] == [3, 11, 0]  # ranked by the outcome


def test_six_scoreless_turns_end_the_game_inside_the_plies(engine):
    """Neither side can play (no word fits); after four scoreless turns before the position,
    the mover's pass and the opponent's make six: each side loses its own tiles' value."""
    rules = endgame_rules("ATQX")
    gaddag = build_gaddag(sorted(["AT"]))
    board = place(rules, [("AT", 7, 7, False)])
    result = simulate(
        board, counts("Q"), gaddag, rules, ZERO, candidates=2, plies=3, iterations=2, stop=None, scoreless=4,
        win_probability=lambda spread, unseen: 0.5, spread=1,
    )  # fmt: skip
    (only,) = result.standings
    assert only.candidate.kind == PASS
    assert only.mean == -10 + 8  # Q lost by the mover, X by the opponent
    assert only.win == 0.0  # ahead by 1, behind by 1 at the end: lost, exactly


def test_win_probability_of_the_side_to_move(engine, midgame, leaves):
    """Two plies after the candidate, the opponent is to move: the mover's chance is one minus
    the opponent's, at the opposite spread and the tiles the opponent cannot see."""
    rules, board, gaddag = midgame
    rack = counts("AEINRST")
    seen = []

    def chance(spread, unseen):
        seen.append((spread, unseen))
        return 0.25

    result = simulate(board, rack, gaddag, rules, leaves, candidates=2, plies=2, iterations=3, stop=None,
                      win_probability=chance)  # fmt: skip
    assert all(s.win == pytest.approx(0.75) for s in result.standings)
    assert len(seen) == 6 and all(unseen > 7 for _, unseen in seen)


# --- the stopping rule -------------------------------------------------------------------------


def test_the_stopping_rule_never_drops_the_true_best():
    """Known means, the best by 3 points over the next with a standard deviation of 40 (a
    close race), checked every 128 samples up to 2,048, as a run would: over 100 runs at each
    confidence the best is never dropped, while the clearly worse candidates are."""
    means = [20.0, 17.0, 5.0, -10.0, 0.0]
    for stop in sim.STOP_LEVELS:
        rng = random.Random(stop)
        dropped_worst = 0
        for _ in range(100):
            arms = [Arm() for _ in means]
            live = list(range(len(means)))
            for _ in range(2048 // 128):
                for _ in range(128):
                    for i in live:
                        arms[i].add(round(rng.gauss(means[i], 40) * 1000), None)
                stats = [(a.mean, a.stderr, a.n) for a in arms]
                for i in prune(stats, live, sim.delta_of(stop)):
                    live.remove(i)
                if len(live) == 1:
                    break
            assert 0 in live
            dropped_worst += 3 not in live
        assert dropped_worst == 100


def test_the_leader_is_never_pruned_and_ties_keep_everyone():
    stats = [(10.0, 1.0, 500), (10.0, 1.0, 500), (-50.0, 1.0, 500), (-50.0, 1.0, 100)]
    assert prune(stats, [0, 1, 2, 3], 0.01) == [2]  # 3 has too few samples yet
    assert prune(stats, [2], 0.01) == []
    assert bound_width(4, 0.05) == pytest.approx(math.sqrt(2 * math.log(4 / 0.05)))
    # just outside and just inside the bounds: each mean c standard errors either way
    c2 = bound_width(2, 0.05)
    assert prune([(10.0, 1.0, 200), (10 - 2 * c2 - 0.01, 1.0, 200)], [0, 1], 0.05) == [1]
    assert prune([(10.0, 1.0, 200), (10 - 2 * c2 + 0.01, 1.0, 200)], [0, 1], 0.05) == []


def test_a_run_stops_when_one_candidate_is_left(engine):
    """The bingo of the triple-triple test loses by 250 points every time: dropped at the
    first check, and the run stops there, confident."""
    rules = load_rules("scrabble")
    gaddag = build_gaddag(sorted(["RSTU", "ABCDGHIR", "GR", "JKLMANOT"]))
    board = place(rules, [("RSTU", 7, 4, False)])
    result = simulate(
        board, counts("ABCDGHI"), gaddag, rules, ZERO, candidates=2, plies=2, iterations=1000, stop=99,
        check_every=8, opponent_rack=counts("JKLMNOT"),
    )  # fmt: skip
    assert result.stopped == sim.CONFIDENT
    assert result.iterations == 8
    assert [s.pruned_at for s in result.standings] == [None, 8]


# --- budgets, interruptions, bad input -----------------------------------------------------------


def test_a_time_limit_stops_the_run(engine, midgame, leaves):
    rules, board, gaddag = midgame
    result = simulate(board, counts("AEINRST"), gaddag, rules, leaves, candidates=2, time_limit=0.05, stop=None)
    assert result.stopped == sim.TIME and result.iterations >= 1


def test_ctrl_c_gives_the_standings_so_far(engine, midgame, leaves, monkeypatch):
    rules, board, gaddag = midgame
    real = sim.run_iteration
    calls = []

    def interrupted_sixth(*args):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(sim, "run_iteration", interrupted_sixth)
    with pytest.raises(SimStopped) as stop:
        simulate(board, counts("AEINRST"), gaddag, rules, leaves, candidates=2, iterations=100, stop=None)
    result = stop.value.result
    assert result.stopped == sim.INTERRUPTED and result.iterations == 4  # whole chunks only
    assert all(s.iterations == 4 for s in result.standings)


def test_the_opponent_rack_must_be_unseen(midgame, leaves):
    rules, board, gaddag = midgame
    with pytest.raises(InputError, match="the opponent's rack holds 2 Q, but only 0 are unseen"):
        simulate(board, counts("AEINRST"), gaddag, rules, leaves, iterations=1, opponent_rack=counts("QQ"))


def test_a_sampler_draws_the_opponent_rack(engine, midgame, leaves, monkeypatch):
    """The sampler's tiles are the opponent's (completed at random from the unseen tiles)."""
    rules, board, gaddag = midgame
    racks = []
    real = sim.draw_opponent

    def spy(setup, rng):
        opponent, bag = real(setup, rng)
        racks.append(list(opponent))
        return opponent, bag

    def sampler(rng, unseen):
        return [1 if code == 26 else 0 for code in range(27)]  # a Z

    monkeypatch.setattr(sim, "draw_opponent", spy)
    simulate(board, counts("AEINRST"), gaddag, rules, leaves, candidates=2, iterations=3, stop=None, sampler=sampler)
    assert len(racks) == 3 and all(r[26] == 1 and sum(r) == 7 for r in racks)
    assert len({tuple(r) for r in racks}) > 1  # the rest is drawn at random


def test_a_sampler_that_gives_seen_tiles_is_refused(midgame, leaves):
    rules, board, gaddag = midgame
    with pytest.raises(InputError, match="sampler gave tiles that are not among the unseen"):
        simulate(board, counts("AEINRST"), gaddag, rules, leaves, iterations=1,
                 sampler=lambda rng, unseen: [1 if code == 17 else 0 for code in range(27)])  # fmt: skip

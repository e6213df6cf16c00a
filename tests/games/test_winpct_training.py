"""Win-probability tables (issue #22): training counts exactly what a plain recount of the
same games gives, whatever the number of processes or a stop and resume in between;
smoothing pools thin cells, keeps well seen ones and never lets a column fall as the
spread grows; lookups clamp, interpolate and range-check."""

from __future__ import annotations

import math
from array import array

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from soak import python_engine_in_soak

from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.rules import load_rules
from solver_cli.engine.winpct import SCALE, WinTable
from solver_cli.errors import InputError
from solver_cli.games import winpct
from solver_cli.games.selfplay import Player, play_game
from solver_cli.games.winpct import (
    TrainingStopped,
    game_seed,
    isotonic,
    smooth,
    standard_errors,
    train,
    win_probability,
)

SCRABBLE = load_rules("scrabble")
ROWS, COLUMNS = 121, 94  # spreads -300..300 in steps of 5; 0..93 tiles unseen


@pytest.fixture(scope="module")
def leaves() -> LeaveTable:
    from solver_cli.formats.leavefile import shipped_leaves

    table = shipped_leaves("scrabble", "kjxqz")
    assert table is not None
    return table


def recount(gaddag, leaves: LeaveTable, seed: int, games: range) -> tuple[dict[int, int], dict[int, int]]:
    """The cells' samples and half-wins, counted plainly from the games themselves: for
    every turn, the spread before it from the mover's side, the tiles it cannot see (all
    100 less those on the board and on its rack), and whether it won in the end."""
    samples: dict[int, int] = {}
    half_wins: dict[int, int] = {}
    player = Player("equity", leaves)
    for g in games:
        game = play_game(gaddag, SCRABBLE, seed, g, (player, player), gseed=game_seed(seed, g))
        scores = {0: 0, 1: 0}
        on_board = 0
        for turn in game.turns:
            me, other = turn.player, 1 - turn.player
            spread = max(-300, min(300, scores[me] - scores[other]))
            # the row whose spread is nearest, the higher of two as near
            row = min(range(ROWS), key=lambda k: (abs(spread - (5 * k - 300)), -k))
            unseen = 100 - on_board - len(turn.rack)
            cell = unseen * ROWS + row
            final_me, final_other = game.scores[me], game.scores[other]
            result = 2 if final_me > final_other else 1 if final_me == final_other else 0
            samples[cell] = samples.get(cell, 0) + 1
            half_wins[cell] = half_wins.get(cell, 0) + result
            scores[me] = turn.total
            on_board += len(turn.placed)
    return samples, half_wins


def cells_of(table: WinTable) -> tuple[dict[int, int], dict[int, int]]:
    return (
        {i: n for i, n in enumerate(table.samples) if n},
        {i: w for i, w in enumerate(table.wins) if table.samples[i]},
    )


@python_engine_in_soak()  # (the counting does not depend on the engine; the twin is slow)
def test_training_counts_what_a_plain_recount_of_the_games_gives(small_gaddag, leaves, engine):
    result = train(small_gaddag, SCRABBLE, "words", leaves, 5, seed=3, batch=2)
    assert result.games == 5
    assert cells_of(result.table) == recount(small_gaddag, leaves, 3, range(5))
    assert (
        result.info["samples"]
        == sum(result.table.samples)
        == sum(recount(small_gaddag, leaves, 3, range(5))[0].values())
    )
    assert result.info["plan"]["seed"] == 3 and result.info["plan"]["leaves"] == "scrabble-kjxqz"


@python_engine_in_soak()
def test_the_same_seed_gives_the_same_table_whatever_the_jobs_or_a_resume(small_gaddag, leaves, engine):
    one = train(small_gaddag, SCRABBLE, "words", leaves, 6, seed=2, batch=2)
    two = train(small_gaddag, SCRABBLE, "words", leaves, 6, seed=2, batch=1, jobs=2)
    first = train(small_gaddag, SCRABBLE, "words", leaves, 3, seed=2, batch=2)
    first.table.info["counts"] = True  # (as a file written with its counts reads)
    resumed = train(small_gaddag, SCRABBLE, "words", leaves, 6, seed=2, resume=first.table)
    for other in (two, resumed):
        assert (other.table.samples, other.table.wins, other.table.values) == (
            one.table.samples,
            one.table.wins,
            one.table.values,
        )
        assert other.info == one.info


@python_engine_in_soak()  # (the counting does not depend on the engine; the twin is slow)
def test_a_stopped_training_holds_the_batches_finished_in_order(small_gaddag, leaves, monkeypatch, engine):
    real = winpct.play_batch
    calls: list[int] = []

    def interrupted_third(*args):
        calls.append(args[-2])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(winpct, "play_batch", interrupted_third)
    with pytest.raises(TrainingStopped) as stopped:
        train(small_gaddag, SCRABBLE, "words", leaves, 10, seed=4, batch=2)
    partial = stopped.value.training
    assert calls == [0, 2, 4] and partial.games == 4
    assert cells_of(partial.table) == recount(small_gaddag, leaves, 4, range(4))
    assert all(0 <= v <= SCALE for v in partial.table.values)


@python_engine_in_soak()  # (the counting does not depend on the engine; the twin is slow)
def test_a_table_of_another_training_is_not_gone_on_from(small_gaddag, leaves, engine):
    done = train(small_gaddag, SCRABBLE, "words", leaves, 2, seed=5)
    done.table.info["counts"] = True
    for seed, lexicon, games, words in (
        (6, "words", 4, "made by another training"),
        (5, "other", 4, "made by another training"),
        (5, "words", 1, "holds 2 games, more than --games 1"),
    ):
        with pytest.raises(InputError, match=words):
            train(small_gaddag, SCRABBLE, lexicon, leaves, games, seed=seed, resume=done.table)
    done.table.info["counts"] = False
    with pytest.raises(InputError, match="keeps no counts"):
        train(small_gaddag, SCRABBLE, "words", leaves, 4, seed=5, resume=done.table)
    zeros = LeaveTable.zeros()
    done.table.info["counts"] = True
    with pytest.raises(InputError, match="made by another training"):
        train(small_gaddag, SCRABBLE, "words", zeros, 4, seed=5, resume=done.table)


# --- smoothing ---------------------------------------------------------------------------------


def empty() -> WinTable:
    return WinTable.empty(300, 5, 93)


def column(table: WinTable, unseen: int) -> list[int]:
    return table.values[unseen * ROWS : (unseen + 1) * ROWS].tolist()


def test_well_seen_cells_keep_their_own_count():
    table = empty()
    for u in range(1, COLUMNS):
        for r in range(ROWS):
            table.samples[u * ROWS + r] = 1000
            table.wins[u * ROWS + r] = 2 * (5 * r + u % 7)  # 0.5% a row, a little per column
    smooth(table)
    for u in (1, 7, 50, 93):
        assert column(table, u) == [round(1000 * (5 * r + u % 7) / 1000) for r in range(ROWS)]


def test_thin_cells_borrow_from_their_neighbours():
    """One cell seen 400 times (a quarter won, draws half): every other cell, with no data
    of its own, takes its estimate; the cell beside it, seen 10 times and lost every time,
    pools with it (410 samples: (2 x 100 + 0) / (2 x 410))."""
    table = empty()
    here = 10 * ROWS + 60
    table.samples[here], table.wins[here] = 400, 200
    estimates, pooled = smooth(table)
    assert estimates[here] == 0.25 and pooled[here] == 400
    assert set(table.values[ROWS:]) == {250}
    table.samples[here + 1], table.wins[here + 1] = 10, 0
    estimates, pooled = smooth(table)
    assert pooled[here + 1] == 410 and estimates[here + 1] == 200 / 820
    assert column(table, 10) == sorted(column(table, 10))


def test_nothing_unseen_is_exact():
    table = empty()
    smooth(table)
    assert column(table, 0) == [0] * 60 + [500] + [1000] * 60
    for spread, chance in ((-1, 0.0), (0, 0.5), (1, 1.0), (299, 1.0)):
        assert win_probability(table, spread, 0) == chance


@python_engine_in_soak()  # (no game is played: one engine is enough)
@given(
    st.lists(st.tuples(st.integers(1, 20), st.integers(0, 24), st.integers(1, 300), st.floats(0, 1)), max_size=40),
    st.integers(1, 500),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_smoothing_never_lets_a_column_fall(engine, cells, pool):
    table = WinTable.empty(60, 5, 20)  # (a small grid: 25 rows, 21 columns)
    for u, r, n, share in cells:
        table.samples[u * 25 + r] += n
        table.wins[u * 25 + r] += round(2 * n * share)
    smooth(table, pool)
    for u in range(21):
        values = table.values[u * 25 : (u + 1) * 25].tolist()
        assert values == sorted(values) and values[0] >= 0 and values[-1] <= SCALE


def test_isotonic_regression_averages_what_falls():
    assert isotonic([1.0, 3.0, 2.0, 4.0], [1, 1, 1, 1]) == [1.0, 2.5, 2.5, 4.0]
    assert isotonic([3.0, 1.0], [3, 1]) == [2.5, 2.5]
    assert isotonic([0.0, 2.0, 1.0, 0.0], [1, 1, 1, 1]) == [0.0, 1.0, 1.0, 1.0]
    assert isotonic([1.0, 2.0], [1, 1]) == [1.0, 2.0]


def test_standard_errors_are_the_binomial_ones_of_the_pooled_cells():
    table = empty()
    for r in range(ROWS):
        table.samples[5 * ROWS + r], table.wins[5 * ROWS + r] = 1000, 1000  # half won
    table.samples[6 * ROWS], table.wins[6 * ROWS] = 3000, 6000  # all won: no error
    estimates, pooled = smooth(table)
    errors = standard_errors(table, estimates, pooled)
    half = math.sqrt(0.25 / 1000)
    assert errors == {"mean": round(half * 121_000 / 124_000, 4), "max": round(half, 4)}


# --- lookups -----------------------------------------------------------------------------------


def test_lookups_interpolate_between_rows_and_clamp_the_spread():
    table = empty()
    table.values[7 * ROWS + 60 : 7 * ROWS + 62] = array("H", [500, 600])  # spreads 0 and +5
    table.values[7 * ROWS + 62 :] = array("H", [600] * (len(table.values) - 7 * ROWS - 62))
    assert win_probability(table, 0, 7) == 0.5
    assert win_probability(table, 2, 7) == pytest.approx(0.54)
    assert win_probability(table, 5, 7) == 0.6
    assert win_probability(table, 10_000, 7) == win_probability(table, 300, 7) == table.values[8 * ROWS - 1] / SCALE
    assert win_probability(table, -10_000, 7) == table.values[7 * ROWS] / SCALE


def test_a_fractional_spread_lies_between_its_neighbouring_whole_spreads():
    """Simulation's spreads carry the leaves' fractions of a point: 2.5 reads between 2 and
    3 (and so between the rows at 0 and +5), in proportion; whole spreads, given as ints or
    as floats, read as before; the simulation's table reads them unrounded."""
    from solver_cli.lookahead.sim import TableChance

    table = empty()
    table.values[7 * ROWS + 60 : 7 * ROWS + 62] = array("H", [500, 600])  # spreads 0 and +5
    table.values[7 * ROWS + 62 :] = array("H", [600] * (len(table.values) - 7 * ROWS - 62))
    two, three = win_probability(table, 2, 7), win_probability(table, 3, 7)
    assert two == pytest.approx(0.54) and three == pytest.approx(0.56)
    assert two < win_probability(table, 2.5, 7) < three
    assert win_probability(table, 2.5, 7) == pytest.approx(0.55)
    assert win_probability(table, -0.25, 7) == pytest.approx(table.values[7 * ROWS + 59] / SCALE * 0.05 + 0.5 * 0.95)
    for spread in (-300, -7, 0, 2, 5, 299, 300, 301):
        assert win_probability(table, float(spread), 7) == win_probability(table, spread, 7)
    assert win_probability(table, 500.5, 7) == win_probability(table, 300, 7)
    assert TableChance(table)(2.5, 7) == win_probability(table, 2.5, 7) != win_probability(table, 2, 7)
    for bad in (math.nan, math.inf, "3"):
        with pytest.raises(InputError, match="spread must be a finite number"):
            win_probability(table, bad, 7)  # type: ignore[arg-type]


def test_unseen_tiles_outside_the_table_are_refused():
    table = empty()
    for unseen in (-1, 94, 10**9):
        with pytest.raises(InputError, match=f"{unseen:,} tiles unseen: the table winpct covers 0 to 93"):
            win_probability(table, 0, unseen)


def test_rules_whose_table_cannot_be_made_are_refused():
    tiny = load_rules("scrabble")
    from dataclasses import replace

    few = replace(tiny, counts=(0, 7) + (0,) * 25)
    with pytest.raises(InputError, match="7 tiles for racks of 7; no tile is ever unseen"):
        winpct.check_trainable(few)
    with pytest.raises(InputError, match="games must be 1 to"):
        train(None, tiny, "x", LeaveTable.zeros(), 0)  # type: ignore[arg-type]

"""``movegen.ranked_records``: every candidate ranked and packed, as a game review reads them
(a few records of many): the same candidates as ``ranked_moves``, in the same order, and the
twin's packing byte for byte the native engine's records."""

from __future__ import annotations

import functools
import random
from array import array

import pytest
from positions import played_position, random_rack

from solver_cli.engine.leaves import SCORE, TABLE_SIZE, LeaveTable, Valuation
from solver_cli.engine.movegen import (
    KIND_OFFSET,
    LENGTH_OFFSET,
    NATIVE_BUILT,
    RECORD,
    equity_at,
    ranked_moves,
    ranked_records,
    record_at,
)
from solver_cli.engine.rules import load_rules

RULES = [load_rules("scrabble"), load_rules("wwf")]


@functools.cache
def random_table() -> LeaveTable:
    """Built on first use, not when the module is collected (a million draws)."""
    return LeaveTable(array("h", random.Random(5).choices(range(-900, 901), k=TABLE_SIZE)), "random-5")


@pytest.fixture(autouse=True)
def _each_engine():
    """(Overrides the per-engine fixture of this folder: each test names its engines.)"""


def positions(count: int, gaddag):
    for seed in range(count):
        rng = random.Random(seed)
        rules = RULES[seed % 2]
        board = played_position(rules, gaddag, seed, rng.randint(0, 8), engine="python")
        rack = random_rack(rules, rng, rng.choice((0, 1, 2)))
        valuations = (
            SCORE,
            Valuation(random_table(), bag=50, exchange=7, passes=True),
            Valuation(random_table(), bag=0, opponent=rng.randint(0, 60), passes=True),
        )
        yield board, rack, rules, valuations[seed % 3]


ENGINES = ["python", pytest.param("native", marks=pytest.mark.skipif(not NATIVE_BUILT, reason="not built"))]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_records_are_the_ranked_candidates(engine, small_gaddag):
    kinds = set()
    for board, rack, rules, valuation in positions(15, small_gaddag):
        total, ranked = ranked_moves(board, rack, small_gaddag, rules, None, valuation, engine)
        count, records = ranked_records(board, rack, small_gaddag, rules, valuation, engine)
        assert count == total == len(records) // RECORD.size
        assert [record_at(records, k) for k in range(count)] == ranked
        assert [equity_at(records, k) for k in range(count)] == [c.equity for c in ranked]
        assert list(records[KIND_OFFSET :: RECORD.size]) == [c.kind for c in ranked]
        assert list(records[LENGTH_OFFSET :: RECORD.size]) == [len(c.codes) for c in ranked]
        kinds.update(c.kind for c in ranked)
    assert kinds == {0, 1, 2}  # placements, exchanges and the pass


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")
def test_the_twin_packs_as_the_native_engine_does(small_gaddag):
    for board, rack, rules, valuation in positions(15, small_gaddag):
        native = ranked_records(board, rack, small_gaddag, rules, valuation, "native")
        assert ranked_records(board, rack, small_gaddag, rules, valuation, "python") == native

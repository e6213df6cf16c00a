"""Equity (issue #14): leave indices, exchanges, the pass, end-of-game adjustments, and the
same candidates and ranking from both engines with random leave tables."""

from __future__ import annotations

import itertools
import random
import re
from array import array
from collections import Counter
from dataclasses import replace
from math import comb
from pathlib import Path

import pytest
from positions import played_position, random_rack, scattered_position
from soak import SOAKING, first_then_soak

import solver_cli
from solver_cli.engine.alphabet import BLANK_BIT, CODE, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import (
    LEAVE_OFFSET,
    MAX_LEAVE,
    NOT_OUT_PENALTY,
    SCALE,
    TABLE_SIZE,
    LeaveTable,
    Valuation,
    exchanges,
    fallback_value,
    leave_index,
    leave_of_index,
)
from solver_cli.engine.movegen import EXCHANGE, NATIVE_BUILT, PASS, PLACE, candidate_key, generate_moves, ranked_moves
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.errors import RulesError

SCRABBLE = load_rules("scrabble")
WWF = load_rules("wwf")


def random_table(seed: int) -> LeaveTable:
    rng = random.Random(seed)
    # Coarse values, so that equal equities (and the tie-breaks) happen often.
    return LeaveTable(array("h", (rng.randrange(-30, 31) * 50 for _ in range(TABLE_SIZE))), f"random-{seed}")


@pytest.fixture(scope="module")
def table() -> LeaveTable:
    return random_table(1)


def test_the_table_holds_every_leave_of_up_to_six_tiles():
    # multisets of k of the 27 codes: C(26 + k, k), for k = 0..6
    assert TABLE_SIZE == 1_107_568 == sum(comb(26 + k, k) for k in range(MAX_LEAVE + 1))
    assert LEAVE_OFFSET[3] - LEAVE_OFFSET[2] == len(list(itertools.combinations_with_replacement(range(27), 2)))


def test_leave_index_is_a_bijection_ordered_by_size():
    rng = random.Random(5)
    seen = {}
    for size in range(MAX_LEAVE + 1):
        for _ in range(400):
            counts = [0] * 27
            for code in rng.choices(range(27), k=size):
                counts[code] += 1
            index = leave_index(counts)
            assert LEAVE_OFFSET[size] <= index < LEAVE_OFFSET[size + 1]
            assert leave_of_index(index) == counts
            assert seen.setdefault(index, tuple(counts)) == tuple(counts)
    # Every index of the 2-tile block is one pair, in order, with nothing left out.
    block = [tuple(leave_of_index(i)) for i in range(LEAVE_OFFSET[2], LEAVE_OFFSET[3])]
    assert len(set(block)) == len(block) == 27 * 28 // 2
    assert leave_index([0] * 27) == 0 and leave_index([7] + [0] * 26) == -1


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
def test_leave_index_is_the_same_in_c():
    from solver_cli.engine import _movegen_c

    rng = random.Random(6)
    for _ in range(2000):
        counts = [0] * 27
        for code in rng.choices(range(27), k=rng.randint(0, 8)):
            counts[code] += 1
        assert _movegen_c.leave_index(bytes(counts)) == leave_index(counts)


def brute_exchanges(rack_text: str, most: int) -> set[str]:
    tiles = sorted(rack_text)
    return {"".join(c) for k in range(1, most + 1) for c in itertools.combinations(tiles, k)}


@pytest.mark.parametrize(("rack", "most", "count"), [("UUUVVWQ", 7, 47), ("AEIRST?", 7, 127), ("EEEEEEE", 7, 7)])
def test_exchanges_are_every_distinct_multiset(rack, most, count):
    counts = parse_rack(rack, 7)
    found = exchanges(counts, most)
    as_text = {"".join(("?" if code == 0 else chr(64 + code)) * n for code, n in enumerate(t)) for t in found}
    assert len(found) == len(as_text) == count == len(brute_exchanges(rack.replace("?", "?"), most))
    for most in range(0, 8):
        assert len(exchanges(counts, most)) == len(brute_exchanges(rack, most))


def kept_after(board: Board, rack: list[int], candidate) -> list[int]:
    kept = list(rack)
    if candidate.kind == PLACE:
        for k, code in enumerate(candidate.codes):
            r, c = (candidate.start + k, candidate.line) if candidate.down else (candidate.line, candidate.start + k)
            if not board.at(r, c):
                kept[0 if code & BLANK_BIT else code] -= 1
    elif candidate.kind == EXCHANGE:
        for code in candidate.codes:
            kept[code] -= 1
    return kept


def check_equity(board, rack, gaddag, rules, valuation, engine) -> list:
    total, ranked = ranked_moves(board, rack, gaddag, rules, valuation=valuation, engine=engine)
    assert total == len(ranked) == len(set(ranked))
    placements = [c for c in ranked if c.kind == PLACE]
    assert Counter(c.raw for c in placements) == Counter(generate_moves(board, rack, gaddag, rules, engine=engine))
    assert sum(c.kind == EXCHANGE for c in ranked) == len(exchanges(rack, valuation.exchange))
    assert sum(c.kind == PASS for c in ranked) == valuation.passes
    values = rules.values
    out_factor = rules.out_gain + rules.out_loss  # the rack going out moves to the other side
    for c in ranked:
        kept = kept_after(board, rack, c)
        assert min(kept) >= 0
        if valuation.bag > 0:
            assert c.leave == valuation.leaves.value(kept)
        elif not any(kept):
            assert c.leave == out_factor * valuation.opponent * SCALE
        else:
            face = sum(n * values[code] for code, n in enumerate(kept) if code)
            assert c.leave == -(out_factor * face + NOT_OUT_PENALTY) * SCALE
        assert c.equity == c.score * SCALE + c.leave
    assert ranked == sorted(ranked, key=candidate_key)
    return ranked


def random_case(seed: int, gaddag, table):
    rng = random.Random(seed)
    rules = (SCRABBLE, WWF)[seed % 2]
    if seed % 7 == 0:
        board = scattered_position(rules, seed, rng.randint(10, 60))
    else:
        board = played_position(rules, gaddag, seed, rng.randint(0, 12), engine="native" if NATIVE_BUILT else None)
    size = rules.rack_size if rng.random() < 0.8 else rng.randint(1, rules.rack_size)
    rack = random_rack(rules, rng, min(rng.choice((0, 0, 1, 2)), size), size)
    bag = rng.choice((0, 0, 3, 7, 50))
    valuation = Valuation(
        table,
        bag=bag,
        opponent=rng.randint(0, 40),
        exchange=rng.choice((0, 7)) if bag >= 7 else 0,
        passes=rng.random() < 0.9,
    )
    return board, rack, rules, valuation


@pytest.mark.parametrize("chunk", first_then_soak(range(6), 3))  # 75 random cases in every run, 150 soaking
def test_each_engine_values_every_candidate(chunk, small_gaddag, table, engine):
    for i in range(25):
        board, rack, rules, valuation = random_case(chunk * 100 + i, small_gaddag, table)
        check_equity(board, rack, small_gaddag, rules, valuation, engine)


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
@pytest.mark.parametrize("chunk", first_then_soak(range(8), 4))  # 240 random cases in every run, 480 soaking
@pytest.mark.parametrize("engine", ["native"], indirect=True)  # it compares both engines itself
def test_both_engines_rank_the_same_candidates(chunk, small_gaddag, table):
    for i in range(60):
        board, rack, rules, valuation = random_case(10_000 + chunk * 100 + i, small_gaddag, table)
        _, python = ranked_moves(board, rack, small_gaddag, rules, valuation=valuation, engine="python")
        total, native = ranked_moves(board, rack, small_gaddag, rules, valuation=valuation, engine="native")
        assert native == python
        for keep in (1, 2, 10):
            assert ranked_moves(board, rack, small_gaddag, rules, keep, valuation, "native") == (total, python[:keep])


def test_a_pass_keeps_the_whole_rack_valued_by_its_six_tile_leaves(table):
    rack = parse_rack("AEIRST?", 7)
    subs = []
    for code in range(27):
        if rack[code]:
            sub = list(rack)
            sub[code] -= 1
            subs.append(table.value(sub))
    mean = abs(sum(subs)) // len(subs)
    assert table.value(rack) == fallback_value(table.values, rack) == (mean if sum(subs) >= 0 else -mean)
    _, ranked = ranked_moves(Board.empty(SCRABBLE), rack, _tiny(), SCRABBLE, valuation=Valuation(table, passes=True))
    assert [c.leave for c in ranked if c.kind == PASS] == [table.value(rack)]


def _tiny():
    from solver_cli.lexicon.build import build_gaddag

    return build_gaddag(["AE", "AT", "TEA"])


def test_going_out_and_not_going_out_with_an_empty_bag(small_gaddag):
    board = Board.empty(SCRABBLE)
    rack = parse_rack("AT", 7)
    gaddag = _tiny()
    valuation = Valuation(LeaveTable.zeros(), bag=0, opponent=12, passes=True)
    _, ranked = ranked_moves(board, rack, gaddag, SCRABBLE, valuation=valuation)
    out = [c for c in ranked if c.kind == PLACE]
    assert out and all(c.leave == 24 * SCALE for c in out)  # AT uses both tiles: +2 x 12
    passing = [c for c in ranked if c.kind == PASS][0]
    assert passing.leave == -(2 * (SCRABBLE.values[CODE["A"]] + SCRABBLE.values[CODE["T"]]) + 10) * SCALE
    assert ranked[0].kind == PLACE and ranked[-1].kind == PASS


def rules_file_with_end_factors(folder: Path, out_gain: int, out_loss: int) -> Rules:
    """Scrabble's rule file with other end factors, read as a user's would be."""
    text = (Path(solver_cli.__file__).parent / "data" / "rules" / "scrabble.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^out_gain = 1 ", f"out_gain = {out_gain} ", text)
    text = re.sub(r"(?m)^out_loss = 1 ", f"out_loss = {out_loss} ", text)
    text = re.sub(r'(?m)^name = "scrabble"', f'name = "ends-{out_gain}-{out_loss}"', text)
    path = folder / f"ends-{out_gain}-{out_loss}.toml"
    path.write_text(text, encoding="utf-8")
    rules = load_rules(str(path))
    assert (rules.out_gain, rules.out_loss) == (out_gain, out_loss)
    return rules


@pytest.fixture(scope="module", params=[(3, 2), (0, 0), (2, 0)], ids=lambda f: f"out_gain={f[0]},out_loss={f[1]}")
def ends_rules(request, tmp_path_factory) -> Rules:
    return rules_file_with_end_factors(tmp_path_factory.mktemp("rules"), *request.param)


def test_a_rule_files_end_factors_weigh_the_end_of_game_adjustments(ends_rules):
    """Going out moves (out_gain + out_loss) x the opponent's rack to the mover; tiles kept
    risk that multiple of their own face value, plus the 10 points, when the opponent may go
    out next (not 2 x, whatever the rules said)."""
    factor = ends_rules.out_gain + ends_rules.out_loss
    rack = parse_rack("AT", 7)
    valuation = Valuation(LeaveTable.zeros(), bag=0, opponent=12, passes=True)
    _, ranked = ranked_moves(Board.empty(ends_rules), rack, _tiny(), ends_rules, valuation=valuation)
    out = [c for c in ranked if c.kind == PLACE]
    assert out and all(c.leave == factor * 12 * SCALE for c in out)
    passing = [c for c in ranked if c.kind == PASS][0]
    assert passing.leave == -(factor * (ends_rules.values[CODE["A"]] + ends_rules.values[CODE["T"]]) + 10) * SCALE


@pytest.mark.parametrize("factors", [{"out_gain": 11}, {"out_loss": -1}, {"out_gain": True}])
def test_end_factors_beyond_a_rule_files_limits_are_refused(factors):
    rules = replace(SCRABBLE, name="bad-ends", **factors)
    with pytest.raises(RulesError, match="rule set bad-ends: out_gain and out_loss must be 0 to 10"):
        ranked_moves(Board.empty(rules), parse_rack("AT", 7), _tiny(), rules, valuation=Valuation(LeaveTable.zeros()))


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
@pytest.mark.scaled
@pytest.mark.parametrize("engine", ["native"], indirect=True)  # it compares both engines itself
def test_both_engines_value_the_end_of_game_by_the_rule_files_factors(small_gaddag, table, ends_rules):
    for i in range(40 if SOAKING else 12):
        board, rack, _, valuation = random_case(20_000 + 2 * i, small_gaddag, table)  # (even: Scrabble's board)
        valuation = valuation._replace(bag=0, exchange=0)
        python = check_equity(board, rack, small_gaddag, ends_rules, valuation, "python")
        assert ranked_moves(board, rack, small_gaddag, ends_rules, valuation=valuation, engine="native")[1] == python


def test_ranking_by_score_is_unchanged_by_exchanges_of_no_value(small_gaddag, engine):
    """Without leave values every placement keeps its old rank; exchanges and the pass (score
    0) come after every placement of a positive score."""
    board = played_position(SCRABBLE, small_gaddag, 3, 6)
    rack = parse_rack("QUIZ?ES", 7)
    _, plain = ranked_moves(board, rack, small_gaddag, SCRABBLE)
    _, with_others = ranked_moves(board, rack, small_gaddag, SCRABBLE, valuation=Valuation(exchange=7, passes=True))
    assert [c for c in with_others if c.kind == PLACE] == plain
    # Then, all worth 0: the exchanges keeping the blank, the pass, those throwing it back.
    others = [(c.kind, 0 in c.codes) for c in with_others[len(plain) :]]
    keeping = sum(1 for t in exchanges(rack, 7) if not t[0])
    assert others == [(EXCHANGE, False)] * keeping + [(PASS, False)] + [(EXCHANGE, True)] * (127 - keeping)


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
def test_racks_longer_than_seven_keep_leaves_no_table_covers(small_gaddag, table):
    """Custom rules with a 10-tile rack: a leave of 8 or more tiles is worth 0 (no table
    speaks for it) in both engines, and costs no search over its sub-leaves."""
    import dataclasses

    rules = dataclasses.replace(SCRABBLE, rack_size=10, exchange_max=10)
    rack = parse_rack("AEIRSTNLE?", 10)
    board = played_position(SCRABBLE, small_gaddag, 4, 5)
    valuation = Valuation(table, bag=50, exchange=10, passes=True)
    _, python = ranked_moves(board, rack, small_gaddag, rules, valuation=valuation, engine="python")
    _, native = ranked_moves(board, rack, small_gaddag, rules, valuation=valuation, engine="native")
    assert native == python
    assert [c.leave for c in python if c.kind == PASS] == [0]
    assert all(c.leave == 0 for c in python if c.kind == EXCHANGE and len(c.codes) <= 2)  # 8+ kept

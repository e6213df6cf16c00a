"""Opponent-rack inference on hand-built cases, checked against a brute force over every
rack the opponent could have held, tile by tile, scored by the reference move generator."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import replace

import pytest
from reference import reference_moves

from solver_cli.engine.alphabet import CODE, LETTERS
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import STEP, LeaveTable, leave_index
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.lexicon.build import build_gaddag
from solver_cli.lookahead.infer import (
    EXACT,
    KNOWN,
    PRIOR,
    SAMPLED,
    OpponentPlay,
    _exact,
    _sampled,
    count_multisets,
    infer,
    sub_multisets,
    tiles_text,
)

# A tiny game: racks of 3, no bingo bonus, eleven tiles, three words. The opponent opens
# with AB (8 points on the centre's double word) and keeps one tile; with S it could have
# played ABS (10), with C it could have played CAB (14).
WORDS = ["AB", "ABS", "CAB"]
TILE_SET = {"A": 3, "B": 2, "C": 1, "S": 2, "E": 2, "?": 1}
OUR_RACK = "AEE"  # so the unseen tiles are AABBCSS?
UNSEEN = "AABBCSS?"


def counts_of(text: str) -> list[int]:
    counts = [0] * 27
    for ch in text:
        counts[0 if ch == "?" else CODE[ch]] += 1
    return counts


@pytest.fixture(scope="module")
def tiny():
    scrabble = load_rules("scrabble")
    rules = replace(
        scrabble,
        name="tiny",
        counts=tuple(counts_of("".join(ch * n for ch, n in TILE_SET.items()))),
        rack_size=3,
        bingo_bonus=0,
        exchange_min_bag=1,
        exchange_max=3,
    )
    return rules, build_gaddag(WORDS)


def empty_board(rules) -> Board:
    return Board(rules.rows, rules.cols, [0] * (rules.rows * rules.cols))


def table_with(values: dict[str, int]) -> LeaveTable:
    """A leave table worth 0 everywhere but ``values`` (leave -> hundredths of a point)."""
    table = LeaveTable.zeros()
    for leave, value in values.items():
        table.values[leave_index(counts_of(leave))] = value
    return table


def value(table: LeaveTable, tiles: str) -> int:
    """A leave's value in thousandths, as the table stores it (at most 6 tiles here)."""
    return STEP * table.values[leave_index(counts_of(tiles))]


def best_equity(rules, table: LeaveTable, rack: str) -> int:
    """The rack's best equity on the empty board, in thousandths: every placement the
    reference generator finds (score plus the leave's value), every exchange (the tiles
    kept), and the pass."""
    board = ["." * rules.cols] * rules.rows
    values = {ch: rules.values[CODE[ch]] for ch in LETTERS}
    moves = reference_moves(
        board, rack, set(WORDS), list(rules.layout), values, rules.bingo_bonus, rules.rack_size, rules.centre
    )
    best = value(table, rack)  # the pass
    for placed, score in moves.items():
        left = Counter(rack)
        for _row, _col, letter, blank in placed:
            left["?" if blank else letter] -= 1
        best = max(best, score * 1000 + value(table, "".join(left.elements())))
    for size in range(len(rack)):  # exchanges: keep `size` tiles
        for kept in set(itertools.combinations(sorted(rack), size)):
            best = max(best, value(table, "".join(kept)))
    return best


def brute_force_placement(rules, table, played: str, score: int, margin: float) -> tuple[Counter, int]:
    """Every rack of 3 of the unseen tiles, tile by tile (so each multiset counts as many
    times as it can be drawn), holding the tiles played: the leaves for which the play is
    within ``margin`` of the rack's best equity, each with its number of draws; and the
    number of draws of all the racks holding the tiles played."""
    kept: Counter = Counter()
    possible = 0
    for chosen in itertools.combinations(range(len(UNSEEN)), rules.rack_size):
        rack = Counter(UNSEEN[i] for i in chosen)
        if any(rack[ch] < n for ch, n in Counter(played).items()):
            continue
        possible += 1
        leave = "".join(sorted((rack - Counter(played)).elements()))
        recorded = score * 1000 + value(table, leave)
        if recorded + margin * 1000 >= best_equity(rules, table, "".join(sorted(rack.elements()))):
            kept[tiles_text(counts_of(leave))] += 1
    return kept, possible


def found(result) -> Counter:
    return Counter({leave.text: leave.draws for leave in result.leaves})


AB = OpponentPlay.placement(counts_of("AB"), 8)


@pytest.mark.parametrize("margin", [0, 1, 2, 5, 6, 100])
def test_placement_keeps_exactly_the_leaves_the_margin_allows(engine, tiny, margin):
    rules, gaddag = tiny
    table = LeaveTable.zeros()
    result = infer(empty_board(rules), counts_of(UNSEEN), AB, rules, gaddag, table, margin=margin)
    expected, possible = brute_force_placement(rules, table, "AB", 8, margin)
    assert result.method == EXACT
    assert found(result) == expected
    assert result.considered == 5  # A, B, C, S or the blank
    assert result.kept == len(expected)
    assert result.kept_share == pytest.approx(sum(expected.values()) / possible)
    # The hand count: ABS is 2 points better (kept from margin 2), CAB 6 (from margin 6).
    assert ("S" in expected) == (margin >= 2) and ("C" in expected) == (margin >= 6)


@pytest.mark.parametrize("margin", [0, 3, 9])
def test_leave_values_count_in_the_equity(engine, tiny, margin):
    """With leave values, keeping S is worth more than playing it (AB + S: 8 + 4 against
    ABS: 10), keeping C costs (AB + C: 8 - 2 against CAB: 14 + 0), and an exchange keeping
    a good pair can beat the play (the brute force tries exchanges and the pass too)."""
    rules, gaddag = tiny
    table = table_with({"S": 400, "C": -200, "?": 150, "SS": 900, "AS": 1100, "A?": 1100})
    result = infer(empty_board(rules), counts_of(UNSEEN), AB, rules, gaddag, table, margin=margin)
    expected, _ = brute_force_placement(rules, table, "AB", 8, margin)
    assert found(result) == expected
    assert "S" in expected  # AB keeping S (12) is ABS's best now (ABS 10, exchanging B 11)
    assert ("C" in expected) == (margin >= 8)
    assert ("?" in expected) == (margin >= 1.5)  # AB keeping ? (9.5) against exchanging B (11)


def test_weights_are_the_draws_and_sum_to_one(engine, tiny):
    rules, gaddag = tiny
    result = infer(empty_board(rules), counts_of(UNSEEN), AB, rules, gaddag, LeaveTable.zeros(), margin=5)
    total = sum(leave.draws for leave in result.leaves)
    assert math.isclose(sum(leave.weight for leave in result.leaves), 1.0)
    for leave in result.leaves:
        assert leave.weight == leave.draws / total
    # Written out: the racks AB + x drawn from AABBCSS?: ABA 1 x 2, ABB 2 x 1, ABS 2 x 2 x 2,
    # AB? 2 x 2 x 1 (CAB is 6 points better than AB: not kept).
    assert found(result) == Counter({"A": 2, "B": 2, "S": 8, "?": 4})
    assert [leave.text for leave in result.leaves] == ["S", "?", "A", "B"]  # likeliest first


def test_a_leave_repeating_a_played_letter_counts_the_rack_draws(engine, tiny):
    """Two As unseen and one played: the rack AAB is one draw of the racks holding AB, not
    as many as drawing the second A from what the play left (MAGPIE's count)."""
    rules, gaddag = tiny
    result = infer(empty_board(rules), counts_of(UNSEEN), AB, rules, gaddag, LeaveTable.zeros(), margin=100)
    assert found(result)["A"] == math.comb(2, 2) * math.comb(2, 1)  # not comb(1, 1) * comb(2, 1)


def brute_force_exchange(rules, table, thrown: int, margin: float) -> Counter:
    """Every rack of 3 of the unseen tiles, tile by tile: the tiles the best exchange of
    ``thrown`` kept, for the racks where that exchange is within ``margin`` of the best."""
    kept: Counter = Counter()
    for chosen in itertools.combinations(range(len(UNSEEN)), rules.rack_size):
        rack = "".join(sorted(UNSEEN[i] for i in chosen))
        leaves = {"".join(k) for k in itertools.combinations(rack, rules.rack_size - thrown)}
        leave = max(leaves, key=lambda k: value(table, k))
        if value(table, leave) + margin * 1000 >= best_equity(rules, table, rack):
            kept[tiles_text(counts_of(leave))] += 1
    return kept


# Distinct values for every leave of 2 tiles the unseen tiles make, so that each rack's
# best exchange of one tile is one leave; some beat the rack's best placement.
PAIRS = ["AA", "AB", "AC", "AS", "A?", "BB", "BC", "BS", "B?", "CS", "C?", "SS", "S?"]
PAIR_VALUES = {pair: 100 * (3 * i - 10) + 7 for i, pair in enumerate(PAIRS)}


@pytest.mark.parametrize("margin", [0, 2, 10])
def test_exchange_keeps_what_the_best_exchange_of_as_many_tiles_keeps(engine, tiny, margin):
    rules, gaddag = tiny
    table = table_with(PAIR_VALUES)
    result = infer(empty_board(rules), counts_of(UNSEEN), OpponentPlay.exchange(1), rules, gaddag, table, margin=margin)
    expected = brute_force_exchange(rules, table, 1, margin)
    assert expected  # the case means something
    assert result.method == EXACT
    assert result.considered == count_multisets(counts_of(UNSEEN), 3)  # every rack tried
    assert found(result) == expected
    assert math.isclose(sum(leave.weight for leave in result.leaves), 1.0)


def test_a_pass_gives_the_prior(engine, tiny):
    rules, gaddag = tiny
    result = infer(empty_board(rules), counts_of(UNSEEN), OpponentPlay.passed(), rules, gaddag, LeaveTable.zeros())
    assert result.method == PRIOR and result.leaves == () and "says nothing" in result.note
    # Its racks are drawn as the tiles would deal them: each multiset as often as its draws.
    draws = 30_000
    rng = random.Random(7)
    seen = Counter(tiles_text(result.draw(rng)) for _ in range(draws))
    dealt = Counter("".join(sorted(c)) for c in itertools.combinations(UNSEEN, 3))
    total = sum(dealt.values())
    assert set(seen) == {tiles_text(counts_of(rack)) for rack in dealt}
    for rack, n in dealt.items():
        assert seen[tiles_text(counts_of(rack))] / draws == pytest.approx(n / total, abs=0.01)


def test_no_rack_within_the_margin_falls_back_to_the_prior(engine, tiny):
    """A play worth less than any rack's best by more than the margin (a phony, a blunder)."""
    rules, gaddag = tiny
    blunder = OpponentPlay.placement(counts_of("AB"), 0)
    result = infer(empty_board(rules), counts_of(UNSEEN), blunder, rules, gaddag, LeaveTable.zeros(), margin=1)
    assert result.method == PRIOR and result.leaves == () and result.considered == 5 and result.kept == 0
    assert "within 1 points" in result.note
    rack = result.draw(random.Random(1))
    assert sum(rack) == 3 and all(n <= p for n, p in zip(rack, result.pool, strict=True))


def test_an_empty_bag_means_the_rack_was_known(engine, tiny):
    rules, gaddag = tiny
    result = infer(empty_board(rules), counts_of("ABS"), AB, rules, gaddag, LeaveTable.zeros(), margin=0)
    assert result.method == KNOWN and found(result) == Counter({"S": 1})
    assert tiles_text(result.draw(random.Random(3))) == "S"


def test_an_exchange_with_the_bag_empty_is_refused(tiny):
    rules, gaddag = tiny
    with pytest.raises(InputError, match="an exchange with the bag empty"):
        infer(empty_board(rules), counts_of("ABS"), OpponentPlay.exchange(1), rules, gaddag, LeaveTable.zeros())


def test_draws_a_kept_leave_by_weight_and_fills_the_rack(engine, tiny):
    rules, gaddag = tiny
    result = infer(empty_board(rules), counts_of(UNSEEN), AB, rules, gaddag, LeaveTable.zeros(), margin=5)
    pool = "ABCSS?"  # unseen now: AB is on the board
    assert tiles_text(result.pool) == tiles_text(counts_of(pool))
    # Each rack's chance, written out: a kept leave by its weight (A 2, B 2, S 8, ? 4 of
    # 16), then two of the other five tiles, each pair as likely as any.
    expected: Counter = Counter()
    for leave, weight in {"A": 2 / 16, "B": 2 / 16, "S": 8 / 16, "?": 4 / 16}.items():
        rest = list(pool)
        rest.remove(leave)
        pairs = list(itertools.combinations(rest, 2))
        for pair in pairs:
            expected[tiles_text(counts_of(leave + "".join(pair)))] += weight / len(pairs)
    rng = random.Random(11)
    n = 30_000
    racks = [result.draw(rng) for _ in range(n)]
    seen = Counter(tiles_text(rack) for rack in racks)
    assert set(seen) == set(expected)
    for rack, chance in expected.items():
        assert seen[rack] / n == pytest.approx(chance, abs=0.01), rack
    again = random.Random(11)
    assert [result.draw(again) for _ in range(5)] == racks[:5]  # the same generator, the same racks


def test_sampling_past_the_limit_is_reproducible_and_keeps_only_what_may_be_kept(engine, tiny):
    rules, gaddag = tiny
    board, unseen, zeros = empty_board(rules), counts_of(UNSEEN), LeaveTable.zeros()
    exact = infer(board, unseen, AB, rules, gaddag, zeros, margin=5)
    sampled = infer(board, unseen, AB, rules, gaddag, zeros, margin=5, limit=4, seed=5)
    assert sampled.method == SAMPLED and sampled.considered == 4
    assert {leave.text for leave in sampled.leaves} <= {leave.text for leave in exact.leaves}
    assert math.isclose(sum(leave.weight for leave in sampled.leaves), 1.0)
    assert infer(board, unseen, AB, rules, gaddag, zeros, margin=5, limit=4, seed=5) == sampled


def test_random_draws_follow_the_exact_draw_counts():
    """The sampler's correction: drawn from the tiles the play left, a leave repeating a
    played letter would be over-weighted; accepted with the right probability, the
    frequencies match the exact counts."""
    played = tuple(counts_of("AS"))
    source = tuple(counts_of("ABBCS?"))  # UNSEEN less the tiles played
    _, _, all_draws, exact = _exact(source, 1, played, lambda leave: leave, None)
    n = 40_000
    accepted, _, _, sampled = _sampled(source, 1, played, lambda leave: leave, n, random.Random(2), None)
    assert accepted == n
    for leave, ways in exact.items():
        assert sampled[leave] / n == pytest.approx(ways / all_draws, abs=0.01), tiles_text(leave)


def test_multisets_counted_and_listed_alike():
    counts = counts_of("AABBCSS?")
    for size in range(0, 9):
        listed = list(sub_multisets(counts, size))
        assert len(listed) == len(set(listed)) == count_multisets(counts, size)
        dealt = {tuple(counts_of("".join(sorted(c)))) for c in itertools.combinations(UNSEEN, size)}
        assert set(listed) == dealt


@pytest.mark.parametrize(
    ("play", "kwargs", "message"),
    [
        (OpponentPlay.placement(counts_of("ABZ"), 9), {}, "the play uses Z beyond the tiles unseen to us"),
        (OpponentPlay.placement(counts_of("AABB"), 9), {}, "the play uses 4 tiles; the opponent held at most 3"),
        (OpponentPlay.placement(counts_of(""), 0), {}, "the play places no tile"),
        (OpponentPlay("pass", tuple(counts_of("A"))), {}, "a pass places no tile"),
        (OpponentPlay.exchange(0), {}, "an exchange throws back 1 to 3 tiles, not 0"),
        (OpponentPlay.exchange(4), {}, "an exchange throws back 1 to 3 tiles, not 4"),
        (OpponentPlay("bingo"), {}, "must be a play, an exchange or a pass"),
        (AB, {"margin": -1}, "the margin must be 0 to 1000 points, not -1"),
        (AB, {"margin": float("nan")}, "the margin must be 0 to 1000 points"),
        (AB, {"limit": 0}, "the limit must be 1 to 1,000,000 racks, not 0"),
    ],
)
def test_bad_arguments_are_one_clear_error(tiny, play, kwargs, message):
    rules, gaddag = tiny
    with pytest.raises(InputError, match=message.replace("(", r"\(")) as caught:
        infer(empty_board(rules), counts_of(UNSEEN), play, rules, gaddag, LeaveTable.zeros(), **kwargs)
    assert "\n" not in str(caught.value)


def test_unseen_counts_must_be_tile_counts(tiny):
    rules, gaddag = tiny
    with pytest.raises(InputError, match="unseen tiles must be 27 non-negative integers"):
        infer(empty_board(rules), [1] * 26, AB, rules, gaddag, LeaveTable.zeros())


def test_a_six_tile_opening_on_the_full_lexicon(engine, full_lexicon):
    """The case the speed target names: the opponent opened with six tiles, so its rack was
    those and one more; each possible tile weighted by the ways to draw the whole rack."""
    from solver_cli.engine.play import check_play
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.formats.leavefile import table_for

    rules = load_rules("scrabble")
    board = empty_board(rules)
    table, _ = table_for("scrabble", "kjxqz", None)
    unseen = unseen_tiles(board, counts_of("EEILNOU"), rules).counts
    play = check_play(board, rules, "8D", "FAIRED", full_lexicon.contains, "kjxqz")
    played = counts_of("FAIRED")
    result = infer(board, unseen, OpponentPlay.placement(played, play.scored.score), rules, full_lexicon.gaddag, table)
    assert result.method == EXACT and result.leave_size == 1
    assert result.considered == sum(1 for u, p in zip(unseen, played, strict=True) if u > p)
    assert 0 < result.kept <= result.considered
    assert math.isclose(sum(leave.weight for leave in result.leaves), 1.0)
    for leave in result.leaves:
        code = leave.tiles.index(1)
        ways = math.prod(math.comb(unseen[c], played[c] + (c == code)) for c in range(27) if played[c] or c == code)
        assert leave.draws == ways

"""The pre-endgame solver (lookahead.peg) on hand-built positions with a tiny word list: a
5x5 board, racks of two tiles, one tile in the bag, so every answer can be worked out by
hand and is checked against the plain minimax of tests/lookahead/reference.py as well."""

from __future__ import annotations

import dataclasses
from math import comb

import pytest
from soak import python_engine_in_soak

from lookahead.reference import minimax
from solver_cli.engine.alphabet import CODE, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import PASS, PLACE
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.lexicon.build import build_gaddag
from solver_cli.lookahead.peg import BEST_REPLY, PESSIMISTIC, PegStopped, solve_pre_endgame

LAYOUT = ("T.d.T", ".D.D.", "d.D.d", ".D.D.", "T.d.T")


def tiny_rules(tiles: str, rack_size: int = 2):
    """Scrabble's values on a 5x5 board whose bag holds exactly ``tiles``."""
    counts = [0] * 27
    for ch in tiles:
        counts[0 if ch == "?" else CODE[ch]] += 1
    base = load_rules("scrabble")
    letter = tuple({"d": 2, "t": 3}.get(ch, 1) for row in LAYOUT for ch in row)
    word = tuple({"D": 2, "T": 3}.get(ch, 1) for row in LAYOUT for ch in row)
    return dataclasses.replace(
        base,
        rows=5,
        cols=5,
        layout=LAYOUT,
        letter_mult=letter,
        word_mult=word,
        centre=(2, 2),
        counts=tuple(counts),
        rack_size=rack_size,
    )


def board_of(*rows: str) -> Board:
    return Board.from_rows(list(rows))


# The Z world: the only word is ZA, and the only A stands at the left edge, so ZA has one
# spot (Z above the A, 11 points) and the Es can never be played. We hold ZE; the unseen
# tiles are Z E E: the bag holds the Z (1 draw of 3) or an E (2 draws).
ZA_BOARD = board_of(".....", ".....", "A....", ".....", ".....")


@pytest.fixture(scope="module")
def za():
    return build_gaddag(["ZA"]), tiny_rules("A" + "ZE" + "ZEE")


def test_the_z_world_worked_by_hand(za, engine):
    gaddag, rules = za
    result = solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, rules, spread=-5, top=5)
    assert (result.bag, result.unseen, result.draws, result.model) == (1, 3, 3, BEST_REPLY)
    play, passing = result.candidates
    # ZA (11): we draw the bag tile and nothing more is ever played. Bag Z: we are stuck
    # with Z E (-11), they with E E (-2): 11 - 11 + 2 = +2. Bag E: we hold E E (-2), they
    # Z E (-11): 11 - 2 + 11 = +20. From -5: lost once, won twice.
    assert play.move.kind == PLACE and play.move.score == 11
    assert play.wins == 2 and play.draws == 3
    assert play.win_rate == pytest.approx(2 / 3)
    assert play.spread_mean == pytest.approx(-5 + (2 + 2 * 20) / 3)
    # The pass: bag Z, they hold E E and pass back, we play ZA and draw the Z: +2 as
    # above. Bag E, they hold the other Z and take the spot: -20. Never a win from -5.
    assert passing.move.kind == PASS
    assert passing.wins == 0
    assert passing.spread_mean == pytest.approx(-5 + (2 - 2 * 20) / 3)
    assert play.proven and passing.proven and play.endgames == 2


@python_engine_in_soak()  # the reference's own time dominates; the engines are compared above
def test_candidates_that_empty_the_bag_match_minimax_over_every_split(za, engine):
    """Each play of at least one tile draws the last tile: then every split's outcome is the
    score less the exact endgame (the opponent to move), by the plain reference."""
    gaddag, rules = za
    board = board_of(".....", ".....", ".AT..", ".....", ".....")
    words = sorted(["AT", "TA", "ZA", "AX", "XI", "TAX", "ZAX"])
    gaddag = build_gaddag(words)
    rules = tiny_rules("AT" + "XT" + "ZAI")
    rack = parse_rack("XT", 2)
    result = solve_pre_endgame(board, rack, gaddag, rules, spread=3, top=4)
    unseen = "ZAI"
    assert any(c.move.kind == PASS for c in result.candidates)
    plays = [c for c in result.candidates if c.move.kind == PLACE]
    assert len(plays) >= 3
    for c in plays:
        wins = 0.0
        total = 0
        for bag_tile in unseen:  # one draw per unseen tile (all distinct here)
            opponent = parse_rack(unseen.replace(bag_tile, "", 1), 2)
            squares = list(board.squares)
            left = list(rack)
            for k, code in enumerate(c.move.codes):
                i = (c.move.start + k) * 5 + c.move.line if c.move.down else c.move.line * 5 + c.move.start + k
                if not squares[i]:
                    squares[i] = code
                    left[code & 31 if code < 32 else 0] -= 1
            left[CODE[bag_tile]] += 1
            value = c.move.score - minimax(Board(5, 5, squares), opponent, left, gaddag, rules)
            final = 3 + value
            wins += 1 if final > 0 else 0.5 if final == 0 else 0
            total += final
        assert (c.wins, c.draws) == (wins, 3), c.move
        assert c.spread_mean == pytest.approx(total / 3), c.move


def test_identical_tiles_are_weighted_as_drawn(za):
    gaddag, rules = za
    result = solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, rules, spread=1, top=5)
    # From +1 the ZA play wins every draw (+2 and +20); the two Es count as two draws.
    play = result.candidates[0]
    assert play.move.kind == PLACE and (play.wins, play.draws) == (3, comb(3, 2))


def test_a_tie_counts_half(za):
    gaddag, rules = za
    result = solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, rules, spread=-2, top=5)
    play = next(c for c in result.candidates if c.move.kind == PLACE)
    assert play.wins == 0.5 + 2  # bag Z: -2 + 2 = 0, a tie; bag E: won


def test_the_opponent_models_differ_when_the_opponent_cannot_see_our_rack(engine):
    """ZA and EA share the one spot above the A. We hold EE, three scoreless turns are
    made, and we pass; the unseen tiles are Z E E.

    Bag Z (1 draw), they hold EE. To them the hidden tiles are E E Z: either the bag holds
    the Z and we EE (1 way), or it holds an E and we EZ (2 ways). Blocking with EA (2) draws
    the bag tile: -7 for them when it is the Z (stuck with ZE), +11 when we hold the Z
    (stuck with it). Passing: then we play EA and draw the Z (+7 for them), or ZA (-11). So
    EA wins 2 of their 3 cases and they play it (best reply): +7 for us. Seeing our rack,
    they would pass (pessimistic): -7 for us.

    Bag E (2 draws), they hold ZE and see everything: ZA, -11 for us, in both models."""
    gaddag = build_gaddag(["EA", "ZA"])
    rules = tiny_rules("A" + "EE" + "ZEE")
    rack = parse_rack("EE", 2)
    best = solve_pre_endgame(ZA_BOARD, rack, gaddag, rules, scoreless=3, top=5)
    worst = solve_pre_endgame(ZA_BOARD, rack, gaddag, rules, scoreless=3, top=5, model=PESSIMISTIC)
    assert (best.model, worst.model) == (BEST_REPLY, PESSIMISTIC)

    def by_kind(result):
        return {c.move.kind: c for c in result.candidates}

    for result in (best, worst):  # EA draws the last tile: then both models are the endgame
        ea = by_kind(result)[PLACE]
        assert ea.move.score == 2 and ea.wins == 2 and ea.spread_mean == pytest.approx((-7 + 2 * 11) / 3)
    assert by_kind(best)[PASS].wins == 1
    assert by_kind(best)[PASS].spread_mean == pytest.approx((7 - 2 * 11) / 3)
    assert by_kind(worst)[PASS].wins == 0
    assert by_kind(worst)[PASS].spread_mean == pytest.approx((-7 - 2 * 11) / 3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"top": 0}, "top must be 1..1000"),
        ({"max_bag": 0}, "max_bag must be 1..7"),
        ({"model": "optimistic"}, "the opponent model must be"),
        ({"scoreless": 6}, "scoreless must be 0..5"),
        ({"time_limit": 0}, "the time limit must be more than 0"),
        ({"spread": 1.5}, "spread must be an integer"),
    ],
)
def test_argument_errors(za, kwargs, message):
    gaddag, rules = za
    with pytest.raises(InputError, match=message):
        solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, rules, **kwargs)


def test_a_bag_outside_the_range_is_refused(za):
    gaddag, rules = za
    empty_bag = tiny_rules("A" + "ZE" + "ZE")
    with pytest.raises(InputError, match="the bag is empty: this is an endgame"):
        solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, empty_bag)
    three = tiny_rules("A" + "ZE" + "ZEEEE")
    with pytest.raises(InputError, match="the bag holds 3 tiles: the pre-endgame solver takes 1 to 2"):
        solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, three)
    assert solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, three, max_bag=3).bag == 3
    with pytest.raises(InputError, match="the rack is empty"):
        solve_pre_endgame(ZA_BOARD, [0] * 27, gaddag, rules)


def test_ctrl_c_keeps_the_candidates_finished(za):
    gaddag, rules = za
    seen = []

    def progress(done, total, last):
        seen.append((done, total))
        raise KeyboardInterrupt

    with pytest.raises(PegStopped) as stop:
        solve_pre_endgame(ZA_BOARD, parse_rack("ZE", 2), gaddag, rules, spread=-5, progress=progress)
    assert seen == [(1, 2)]
    assert len(stop.value.result.candidates) == 1 and stop.value.result.stopped == "interrupted"
    assert stop.value.result.candidates[0].move.score == 11

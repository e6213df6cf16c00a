"""What every proven endgame result must satisfy, checked against the plain reference
(docs/endgame.md): the value, the K best first moves with their exact values in their
order, and a principal variation that replays legally, plays only best moves (each the first
in static order with the position's value) and ends the game with the totals it claims."""

from __future__ import annotations

from solver_cli.engine.movegen import PASS, PLACE
from solver_cli.lookahead.endgame import EndgameResult, Ending

from .positions import Endgame, Reference, face, placement_of, play


def check_proven(endgame: Endgame, result: EndgameResult, ref: Reference, engine: str, top: int) -> None:
    context = endgame.describe()
    assert result.engine == engine, context
    assert result.proven and result.stopped is None, f"not proven ({result.stopped})\n{context}"
    assert result.value == endgame.value, f"value {result.value}, reference {endgame.value}\n{context}"
    assert result.best and result.best[0].value == result.value, f"best {result.best}\n{context}"
    check_best(endgame, result, ref, top)
    check_pv(endgame, result, ref)


def check_best(endgame: Endgame, result: EndgameResult, ref: Reference, top: int) -> None:
    """The ``top`` best first moves by (value, static order), each with its exact value."""
    rules = endgame.rules
    firsts = ref.first_moves(rules, endgame.squares, endgame.mover, endgame.opponent, endgame.scoreless)
    ranked = sorted(firsts, key=lambda row: (-row[2], row[3]))
    expected = [(placed, value) for placed, _, value, _ in ranked[:top]]
    got = [(placement_of(rules, endgame.squares, rv.move), rv.value) for rv in result.best]
    assert got == expected, f"top {top}: got {got}, expected {expected}\n{endgame.describe()}"
    scores = {placed: score for placed, score, _, _ in firsts}
    for rv in result.best:
        assert rv.move.score == scores[placement_of(rules, endgame.squares, rv.move)], endgame.describe()


def check_pv(endgame: Endgame, result: EndgameResult, ref: Reference) -> None:
    rules = endgame.rules
    context = endgame.describe()
    assert result.pv, f"no principal variation\n{context}"
    assert placement_of(rules, endgame.squares, result.pv[0].move) == placement_of(
        rules, endgame.squares, result.best[0].move
    ), f"the pv does not start with the best move\n{context}"
    squares = list(endgame.squares)
    racks = [list(endgame.mover), list(endgame.opponent)]
    totals = [0, 0]
    scoreless = endgame.scoreless
    ending: Ending | None = None
    for i, step in enumerate(result.pv):
        where = f"pv step {i + 1} ({step})\n{context}"
        assert ending is None, f"the pv goes on after the game ended: {where}"
        side = i % 2
        assert step.side == side, where
        me, them = racks[side], racks[1 - side]
        # Every move of the pv is a best move: the first in static order with the value of
        # the position it is played from.
        firsts = ref.first_moves(rules, squares, me, them, scoreless)
        best_value = max(value for _, _, value, _ in firsts)
        first_best = next(placed for placed, _, value, _ in firsts if value == best_value)
        placed = placement_of(rules, squares, step.move)
        legal = {p: score for p, score, _, _ in firsts}
        assert placed in legal, f"not a legal move: {where}"
        assert placed == first_best, f"not the first best move ({sorted(first_best)}): {where}"
        score = legal[placed]
        assert step.score == score and step.move.score == score, f"score {step.score}, should be {score}: {where}"
        totals[side] += score
        assert step.totals == (totals[0], totals[1]), where
        if step.move.kind == PASS:
            scoreless += 1
        else:
            assert step.move.kind == PLACE, where
            squares, racks[side], _ = play(rules, squares, me, step.move.raw)
            scoreless = scoreless + 1 if score == 0 else 0
        if step.move.kind != PASS and not any(racks[side]):
            left = face(racks[1 - side], rules)
            adjustments = [0, 0]
            adjustments[side] = rules.out_gain * left
            adjustments[1 - side] = -rules.out_loss * left
            ending = Ending("out", side, (adjustments[0], adjustments[1]), _final(totals, adjustments))
        elif scoreless >= rules.scoreless_turns:
            adjustments = [-rules.stuck_loss * face(rack, rules) for rack in racks]
            ending = Ending("scoreless", None, (adjustments[0], adjustments[1]), _final(totals, adjustments))
    assert ending is not None, f"the pv stops before the game ends\n{context}"
    assert result.ending == ending, f"ending {result.ending}, should be {ending}\n{context}"
    assert ending.totals[0] - ending.totals[1] == result.value, context


def _final(totals: list[int], adjustments: list[int]) -> tuple[int, int]:
    return (totals[0] + adjustments[0], totals[1] + adjustments[1])

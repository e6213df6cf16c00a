"""A deliberately plain endgame reference for the tests: full-width minimax over every move,
no pruning, no table, no ordering, straight from the definition of the endgame's value
(docs/endgame.md). Only for small endgames: it visits every line of play."""

from __future__ import annotations

import operator

from solver_cli.engine._movegen_py import generate_moves
from solver_cli.engine.alphabet import BLANK_BIT
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.rules import Rules


def face(rack: list[int], rules: Rules) -> int:
    # The blank (index 0) is worth 0.
    return sum(map(operator.mul, rack[1:], rules.values[1:]))


def minimax(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    scoreless: int = 0,
) -> int:
    """The final spread change from the mover's side with both sides at their best."""
    limit = rules.scoreless_turns
    out_gain = getattr(rules, "out_gain", 1)
    out_loss = getattr(rules, "out_loss", 1)
    stuck_loss = getattr(rules, "stuck_loss", 1)

    def value(squares: list[int], me: list[int], them: list[int], s: int) -> int:
        # The pass.
        if s + 1 >= limit:
            best = -stuck_loss * face(me, rules) + stuck_loss * face(them, rules)
        else:
            best = -value(squares, them, me, s + 1)
        here = Board(board.rows, board.cols, squares)
        for score, down, line, start, codes in generate_moves(here, me, gaddag, rules):
            after = list(squares)
            left = list(me)
            for k, code in enumerate(codes):
                i = (start + k) * board.cols + line if down else line * board.cols + start + k
                if not after[i]:
                    after[i] = code
                    left[0 if code & BLANK_BIT else code] -= 1
            if not any(left):
                v = score + (out_gain + out_loss) * face(them, rules)
            else:
                s2 = s + 1 if score == 0 else 0
                if s2 >= limit:
                    v = score - stuck_loss * face(left, rules) + stuck_loss * face(them, rules)
                else:
                    v = score - value(after, them, left, s2)
            best = max(best, v)
        return best

    return value(list(board.squares), list(mover), list(opponent), scoreless)

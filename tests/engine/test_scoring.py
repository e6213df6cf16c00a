"""Hand-checked scores through the real solver (every number worked out in a comment)."""

from dataclasses import replace

import pytest

from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.ranking import solve
from solver_cli.engine.scoring import Tile, score_placement
from solver_cli.errors import InputError
from solver_cli.lexicon.build import build_gaddag

WORDS = sorted(
    {"ABDICATE", "CARE", "CARES", "AS", "ZA", "QI", "XI", "AX", "EX", "OX", "JO", "RETAINS", "STAINER", "TA", "AT"}
)
GADDAG = build_gaddag(WORDS)


def board_with(*placements: tuple[int, int, str]) -> Board:
    rows = [["."] * 15 for _ in range(15)]
    for r, c, text in placements:
        for k, ch in enumerate(text):
            rows[r][c + k] = ch
    return Board.from_rows(["".join(row) for row in rows])


def moves_by_position(board, rack, rules):
    result = solve(board, parse_rack(rack, 7), GADDAG, rules)
    return {(m.position, m.word): m for m in result.moves}


def test_stacked_triple_word_squares(scrabble):
    # Row 1 is T..d...T: ABDICATE from A1 to H1 through a board I on D1 (a 'd' square that
    # no longer counts). A1 + B3 + D2 + I1 + C3 + A1 + T1 + E1 = 13, two TWs: x9 = 117,
    # seven tiles: +50 = 167.
    board = board_with((0, 3, "I"))
    moves = moves_by_position(board, "ABDCATE", scrabble)
    move = moves[("1A", "ABDICATE")]
    assert move.score == 167 and move.bingo and move.notation == "ABD(I)CATE"


def test_hook_cross_word_on_the_double_word_centre(scrabble):
    # CARE on row 8 from D8; AS down from H7: A on H7 (plain) = 1, S on H8 (centre, DW):
    # AS = (1 + 1) x 2 = 4; the hook CARES = (3+1+1+1 + 1) x 2 = 14. Total 18.
    board = board_with((7, 3, "CARE"))
    moves = moves_by_position(board, "AS", scrabble)
    move = moves[("H7", "AS")]
    assert move.score == 18
    (hook,) = move.cross_words
    assert (hook.word, hook.score, hook.kind, hook.extends) == ("CARES", 14, "hook", "CARE")


def test_cross_word_on_a_letter_premium(scrabble):
    # X on G7 (a 'd' square: 8 x 2 = 16) makes XI across with the I on H7 and AX down with
    # the A on G6: XI = 16 + 1 = 17, AX = 1 + 16 = 17, total 34, one move.
    board = board_with((6, 7, "I"), (5, 6, "A"))
    moves = moves_by_position(board, "X", scrabble)
    move = moves[("7G", "XI")]
    assert move.score == 34
    assert [(w.word, w.score, w.kind) for w in move.cross_words] == [("AX", 17, "incidental")]
    assert len([m for m in moves.values() if m.placed == move.placed]) == 1  # reported once


def test_blank_on_a_premium_square_scores_nothing(scrabble):
    # The same X placement played with a blank: xI = 0 + 1 = 1, Ax = 1 + 0 = 1, total 2.
    board = board_with((6, 7, "I"), (5, 6, "A"))
    moves = moves_by_position(board, "?", scrabble)
    move = moves[("7G", "xI")]
    assert move.score == 2 and move.placed[0].blank


def test_bingo_bonus_fifty_versus_thirty_five(scrabble):
    # RETAINS from 8D on an empty Scrabble board: letters 7, H8 is DW, D8 is 'd' (R: 1 x 2),
    # so (7 + 1) x 2 = 16, plus 50 = 66. With a 35-point bingo the same play is 51.
    board = Board.empty(scrabble)
    fifty = moves_by_position(board, "RETAINS", scrabble)[("8D", "RETAINS")]
    assert fifty.score == 66
    thirty_five = moves_by_position(board, "RETAINS", replace(scrabble, bingo_bonus=35))[("8D", "RETAINS")]
    assert thirty_five.score == 51


def test_wwf_opening_has_no_centre_premium(wwf):
    # WWF row 8 is ...D.......D...: RETAINS from 8B covers D8 (a DW) -> 2 x (1+1+1+1+1+1+1
    # with values R1 E1 T1 A1 I1 N2 S1 = 8) = 16 + 35 = 51; from 8E it covers no premium:
    # 8 + 35 = 43.
    board = Board.empty(wwf)
    moves = moves_by_position(board, "RETAINS", wwf)
    assert moves[("8B", "RETAINS")].score == 51
    assert moves[("8E", "RETAINS")].score == 43


def test_blanks_make_distinct_moves(scrabble):
    # A blank and a natural E on the same squares are different moves with different scores.
    board = Board.empty(scrabble)
    moves = moves_by_position(board, "R?TAINS", scrabble)
    assert ("8D", "RETAINS") not in moves  # no E on the rack
    assert moves[("8D", "ReTAINS")].score == (1 * 2 + 0 + 1 + 1 + 1 + 1 + 1) * 2 + 50
    both = moves_by_position(board, "RETAIN?", scrabble)
    assert {"RETAINs", "RETAINS"} & {w for _, w in both} == {"RETAINs"}
    # RETAINs: R on the D8 double letter (2) + E T A I N (5) + s (0) = 7, x2 + 50 = 64;
    # sTAINER on the same squares puts the blank on D8: 0 + 6 = 6, x2 + 50 = 62.
    assert both[("8D", "RETAINs")].score == 64
    assert both[("8D", "sTAINER")].score == 62


def test_score_placement_rejects_gaps_and_overlaps(scrabble):
    board = board_with((7, 7, "A"))
    with pytest.raises(InputError, match="already holds a tile"):
        score_placement(board, scrabble, [Tile(7, 7, "B", False)])
    with pytest.raises(InputError, match="without gaps"):
        score_placement(board, scrabble, [Tile(7, 8, "T", False), Tile(7, 10, "S", False)])
    with pytest.raises(InputError, match="one row or one column"):
        score_placement(board, scrabble, [Tile(6, 8, "T", False), Tile(7, 9, "S", False)])

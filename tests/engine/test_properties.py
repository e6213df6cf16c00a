"""Properties of every generated move, on hypothesis-chosen positions and racks:
applying it leaves a board whose every word is in the lexicon, and an independent
from-scratch score (tests/reference.py) equals the generator's incremental one, as does
the library's own from-scratch scorer behind ``Move``."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import placement, played_position, reference_args
from reference import apply_placement, board_words, reference_score

from solver_cli.engine.movegen import generate_moves
from solver_cli.engine.rules import load_rules
from solver_cli.engine.scoring import build_move

RULES = [load_rules("scrabble"), load_rules("wwf")]

racks = st.lists(st.sampled_from("AAABCDEEEEFGHIIJKLMNOOPQRSSTTUVWXYZ??"), min_size=1, max_size=7)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), turns=st.integers(0, 9), which=st.integers(0, 1), letters=racks)
def test_every_move_is_legal_and_scored_exactly(small_gaddag, small_words, seed, turns, which, letters):
    rules = RULES[which]
    words = set(small_words)
    board = played_position(rules, small_gaddag, seed, turns)
    rack = [0] * 27
    for ch in letters:
        rack[0 if ch == "?" else ord(ch) - 64] += 1
    moves = generate_moves(board, rack, small_gaddag, rules)
    ref = reference_args(rules)
    rows = board.to_rows()
    before = {(w.upper(), r, c, d) for w, r, c, d in board_words(rows)}
    rng = random.Random(seed)
    for score, down, line, start, codes in rng.sample(moves, min(len(moves), 40)):
        placed = placement(board, down, line, start, codes)
        after = apply_placement(rows, placed)
        for word, r, c, d in board_words(after):
            # words already on the board before the move need not be valid (random boards
            # are built from valid moves, so they are; this keeps the property exact)
            assert word.upper() in words or (word.upper(), r, c, d) in before, word
        assert reference_score(rows, placed, ref["premiums"], ref["values"], ref["bingo"], ref["rack_size"]) == score
        assert build_move(board, rules, rack, down, line, start, codes).score == score
        # the rack really held the tiles
        used = [0] * 27
        for _, _, letter, blank in placed:
            used[0 if blank else ord(letter) - 64] += 1
        assert all(u <= have for u, have in zip(used, rack, strict=False))

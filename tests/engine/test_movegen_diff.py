"""The GADDAG move generator against the brute-force reference (tests/reference.py).

Both must find exactly the same set of placements with exactly the same scores, on
positions reached by random play and on odd boards, both rule sets, racks with 0, 1 and 2
blanks, a small lexicon for the bulk and the full default lexicon for a smaller set.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from positions import placement, played_position, rack_text, random_rack, reference_args, scattered_position
from reference import reference_moves
from soak import first_then_soak

from solver_cli.engine.movegen import NATIVE_BUILT, generate_moves
from solver_cli.engine.rules import load_rules

# Each position's reference (the slow part) is worked out once and both move generators are
# held to it in the same test, rather than the whole test running once per engine.
ENGINES = ("python", "native") if NATIVE_BUILT else ("python",)
pytestmark = pytest.mark.parametrize("engine", [pytest.param(ENGINES[-1], id="both-engines")], indirect=True)

RULES = {"scrabble": load_rules("scrabble"), "wwf": load_rules("wwf")}
CHUNKS = 25
PER_CHUNK = 44  # 25 x 44 = 1,100 random positions with the small lexicon
DEFAULT_CHUNKS = 4  # in a plain `pytest`; the other 21 are soak (every kind of case is in each chunk)


def compare(board, rack, gaddag, words, rules):
    """Every engine's moves against the reference's: the same placements, the same scores."""
    theirs = reference_moves(board.to_rows(), rack_text(rack), words, **reference_args(rules))
    for engine in ENGINES:
        ours = generate_moves(board, rack, gaddag, rules, engine=engine)
        found = Counter(placement(board, down, line, start, codes) for _, down, line, start, codes in ours)
        repeated = [p for p, n in found.items() if n > 1]
        assert not repeated, f"{engine}: moves reported twice: {sorted(map(sorted, repeated))[:3]}"
        mine = {placement(board, d, li, st, co): score for score, d, li, st, co in ours}
        missing = set(theirs) - set(mine)
        extra = set(mine) - set(theirs)
        wrong = {p: (mine[p], theirs[p]) for p in set(mine) & set(theirs) if mine[p] != theirs[p]}
        context = f"{engine} engine, rack {rack_text(rack)} on\n" + board.to_text()
        assert not missing, f"{len(missing)} legal moves not generated, e.g. {sorted(next(iter(missing)))}\n{context}"
        assert not extra, f"{len(extra)} illegal moves generated, e.g. {sorted(next(iter(extra)))}\n{context}"
        assert not wrong, f"{len(wrong)} scores differ (ours, reference), e.g. {next(iter(wrong.items()))}\n{context}"
    return len(theirs)


@pytest.mark.parametrize("chunk", first_then_soak(range(CHUNKS), DEFAULT_CHUNKS))
def test_random_positions_small_lexicon(chunk, small_words, small_gaddag):
    words = set(small_words)
    total = 0
    for i in range(PER_CHUNK):
        seed = chunk * 1000 + i
        rng = random.Random(seed)
        rules = RULES["wwf" if i % 2 else "scrabble"]
        kind = i % 11
        if kind == 0:
            board = played_position(rules, small_gaddag, seed, 0)  # empty board: the first move
        elif kind == 10:
            board = scattered_position(rules, seed, rng.randint(3, 30))
        else:
            board = played_position(rules, small_gaddag, seed, rng.randint(1, 12))
        blanks = (0, 1, 2)[i % 3]
        size = rules.rack_size if rng.random() < 0.85 else rng.randint(1, rules.rack_size)
        rack = random_rack(rules, rng, min(blanks, size), size)
        total += compare(board, rack, small_gaddag, words, rules)
    assert total > 0


@pytest.mark.parametrize("seed", first_then_soak(range(12), 6))  # 6: both rule sets x 0-2 blanks
def test_random_positions_full_lexicon(seed, full_lexicon, full_words):
    rng = random.Random(10_000 + seed)
    rules = RULES["wwf" if seed % 2 else "scrabble"]
    board = played_position(rules, full_lexicon.gaddag, seed, rng.randint(0 if seed < 2 else 2, 10))
    rack = random_rack(rules, rng, seed % 3)
    assert compare(board, rack, full_lexicon.gaddag, set(full_words), rules) > 0


def test_hand_made_positions(small_words, small_gaddag):
    from solver_cli.engine.board import Board

    words = set(small_words)
    rules = RULES["scrabble"]
    cases = [
        # A word touching the edges in both directions, tiles in corners.
        ["A" + "." * 13 + "T"] + ["." * 15] * 13 + ["T" + "." * 13 + "A"],
        # A full row but one gap.
        ["." * 15] * 7 + ["CATDOGRATBATE.S"] + ["." * 15] * 7,
        # A blank-heavy column.
        ["." * 15] * 3 + [".......a......."] * 1 + [".......t......."] + ["." * 15] * 10,
    ]
    for rows in cases:
        board = Board.from_rows(rows)
        # (blanks with doubled letters: a blank swaps with a tile of its own letter)
        for rack_letters in ("AEIOU??", "STRENGT", "QZXJKV?", "S", "EESST?R", "?", "EES??TR", "??", "A???"):
            rack = [0] * 27
            for ch in rack_letters:
                rack[0 if ch == "?" else ord(ch) - 64] += 1
            compare(board, rack, small_gaddag, words, rules)


def test_empty_board_mirrored_and_not(small_words, small_gaddag):
    """An opening is generated across only and mirrored when the layout allows it; a layout
    that is not symmetric about the diagonal through the centre is searched both ways."""
    import dataclasses

    from solver_cli.engine._movegen_py import _mirror_symmetric
    from solver_cli.engine.board import Board

    words = set(small_words)
    base = RULES["scrabble"]
    # A triple word on the centre row at H11 (row 7, col 10) but not at K8 (row 10, col 7).
    layout = list(base.layout)
    layout[7] = layout[7][:10] + "T" + layout[7][11:]
    i = 7 * base.cols + 10
    lopsided = dataclasses.replace(
        base,
        layout=tuple(layout),
        word_mult=base.word_mult[:i] + (3,) + base.word_mult[i + 1 :],
        letter_mult=base.letter_mult[:i] + (1,) + base.letter_mult[i + 1 :],
    )
    assert _mirror_symmetric(base) and _mirror_symmetric(RULES["wwf"]) and not _mirror_symmetric(lopsided)
    for rules in (base, RULES["wwf"], lopsided):
        for rack_letters in ("AEIRST?", "STRENGT", "QZXJKV?", "EE??"):
            rack = [0] * 27
            for ch in rack_letters:
                rack[0 if ch == "?" else ord(ch) - 64] += 1
            assert compare(Board.empty(rules), rack, small_gaddag, words, rules) > 0

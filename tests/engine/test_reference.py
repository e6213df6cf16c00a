"""Tests of the brute-force reference oracle (tests/reference.py) on hand-checked cases.

Every expected number below was worked out by hand; the arithmetic is in the comments.
Standard English Scrabble: 15x15 premium layout, tile values, bingo 50, rack 7, centre (7, 7).
"""

from __future__ import annotations

import itertools

import pytest
from reference import apply_placement, board_words, reference_moves, reference_score

# Standard 15x15 layout. T/D = triple/double word, t/d = triple/double letter; the
# centre (7, 7) is a double word square.
STANDARD_PREMIUMS = [
    "T..d...T...d..T",  # 0
    ".D...t...t...D.",  # 1
    "..D...d.d...D..",  # 2
    "d..D...d...D..d",  # 3
    "....D.....D....",  # 4
    ".t...t...t...t.",  # 5
    "..d...d.d...d..",  # 6
    "T..d...D...d..T",  # 7
    "..d...d.d...d..",  # 8
    ".t...t...t...t.",  # 9
    "....D.....D....",  # 10
    "d..D...d...D..d",  # 11
    "..D...d.d...D..",  # 12
    ".D...t...t...D.",  # 13
    "T..d...T...d..T",  # 14
]

# The reference against hand counts and a naive enumeration: no move generator runs here,
# so once, not once per engine as the rest of tests/engine.
pytestmark = pytest.mark.parametrize("engine", [pytest.param("python", id="reference")], indirect=True)

VALUES = {
    "A": 1, "B": 3, "C": 3, "D": 2, "E": 1, "F": 4, "G": 2, "H": 4, "I": 1, "J": 8,
    "K": 5, "L": 1, "M": 3, "N": 1, "O": 1, "P": 3, "Q": 10, "R": 1, "S": 1, "T": 1,
    "U": 1, "V": 4, "W": 4, "X": 8, "Y": 4, "Z": 10,
}  # fmt: skip

BINGO = 50
RACK_SIZE = 7
CENTRE = (7, 7)


def make_board(across=(), down=(), rows=15, cols=15):
    """Board with words written in: across/down are (WORD, row, col); a lowercase
    letter in WORD is a blank."""
    grid = [["."] * cols for _ in range(rows)]
    for word, r, c in across:
        for i, ch in enumerate(word):
            assert grid[r][c + i] in (".", ch)
            grid[r][c + i] = ch
    for word, r, c in down:
        for i, ch in enumerate(word):
            assert grid[r + i][c] in (".", ch)
            grid[r + i][c] = ch
    return ["".join(row) for row in grid]


def across(word, r, c, blanks=()):
    """Placement of WORD across from (r, c); `blanks` are indexes of blank tiles."""
    return frozenset((r, c + i, ch, i in blanks) for i, ch in enumerate(word))


def down(word, r, c, blanks=()):
    return frozenset((r + i, c, ch, i in blanks) for i, ch in enumerate(word))


def tiles(*items):
    """Placement from (row, col, LETTER[, is_blank]) items."""
    return frozenset((r, c, ch, bool(rest and rest[0])) for r, c, ch, *rest in items)


def moves(board, rack, words, bingo=BINGO, rack_size=RACK_SIZE, premiums=STANDARD_PREMIUMS):
    return reference_moves(board, rack, set(words), premiums, VALUES, bingo, rack_size, CENTRE)


def score(board, placement, bingo=BINGO, rack_size=RACK_SIZE, premiums=STANDARD_PREMIUMS):
    return reference_score(board, placement, premiums, VALUES, bingo, rack_size)


EMPTY = make_board()


def test_standard_layout_sanity():
    flat = "".join(STANDARD_PREMIUMS)
    assert len(STANDARD_PREMIUMS) == 15 and all(len(r) == 15 for r in STANDARD_PREMIUMS)
    # 8 TW, 17 DW (16 + centre), 12 TL, 24 DL; symmetric under both mirrors.
    assert (flat.count("T"), flat.count("D"), flat.count("t"), flat.count("d")) == (8, 17, 12, 24)
    assert STANDARD_PREMIUMS[::-1] == STANDARD_PREMIUMS
    assert all(row == row[::-1] for row in STANDARD_PREMIUMS)
    assert STANDARD_PREMIUMS[7][7] == "D"


# ---------------------------------------------------------------------------
# Opening moves
# ---------------------------------------------------------------------------


def test_opening_bingo_with_double_letter():
    # JAWBONE across at (7,3)-(7,9): cols 3 J (DL), 4 A, 5 W, 6 B, 7 O (centre DW), 8 N, 9 E.
    # J 8*2=16, A 1, W 4, B 3, O 1, N 1, E 1 -> 27; x2 (centre) = 54; + bingo 50 = 104.
    placement = across("JAWBONE", 7, 3)
    assert score(EMPTY, placement) == 104
    result = moves(EMPTY, "JAWBONE", {"JAWBONE"})
    assert result[placement] == 104
    # The word can start at cols 1..7 of row 7 or rows 1..7 of col 7 (it must cover
    # the centre): 14 moves.  Row 7 and column 7 have the same premiums (DL at 3 and
    # 11, DW at 7), so each start gives the same score both ways:
    #   start 1: W on DL (7,3): 8+1+8+3+1+1+1 = 23 -> 46 + 50 = 96
    #   start 2: A on DL:       8+2+4+3+1+1+1 = 20 -> 40 + 50 = 90
    #   start 3: J on DL:       27               -> 104
    #   start 4: cols 4..10, no DL: 19           -> 38 + 50 = 88
    #   start 5: E on DL (7,11): 20 -> 90;  start 6: N on DL: 20 -> 90;  start 7: O on DL: 20 -> 90
    assert len(result) == 14
    assert sorted(result.values()) == sorted([96, 90, 104, 88, 90, 90, 90] * 2)
    assert result[down("JAWBONE", 1, 7)] == 96
    assert result[across("JAWBONE", 7, 4)] == 88


def test_bingo_50_vs_35_and_only_for_a_full_rack():
    placement = across("JAWBONE", 7, 3)
    # 54 before the bonus (see above).
    assert score(EMPTY, placement, bingo=50) == 104
    assert score(EMPTY, placement, bingo=35) == 89
    assert moves(EMPTY, "JAWBONE", {"JAWBONE"}, bingo=35)[placement] == 89
    # With an 8-tile rack, placing 7 tiles is not a bingo: 54.
    assert moves(EMPTY, "JAWBONE", {"JAWBONE"}, rack_size=8)[placement] == 54
    # Endgame: 6 tiles left on a 7-tile rack, all played -> no bonus.
    # ZEBRAS (6) across (7,2)-(7,7): Z 10, E on DL (7,3) 2, B 3, R 1, A 1, S 1 -> 18; x2 = 36.
    result = moves(EMPTY, "ZEBRAS", {"ZEBRAS"})
    assert result[across("ZEBRAS", 7, 2)] == 36


def test_opening_must_cover_centre_and_use_two_tiles():
    # AS on an empty board: across at (7,6)-(7,7) or (7,7)-(7,8), down likewise: 4 moves,
    # each (1 + 1) * 2 = 4.  Nothing off the centre, no single tiles, and SA is no word.
    result = moves(EMPTY, "AS", {"AS"})
    assert result == {
        across("AS", 7, 6): 4,
        across("AS", 7, 7): 4,
        down("AS", 6, 7): 4,
        down("AS", 7, 7): 4,
    }
    assert across("AS", 0, 0) not in result


# ---------------------------------------------------------------------------
# Word premiums
# ---------------------------------------------------------------------------


def test_two_double_words_multiply_by_four():
    # PALE down at col 7 rows 4..7; play JUMPING across row 4 cols 4..10 through its P.
    # Placed: J (4,4) DW, U (4,5), M (4,6), I (4,8), N (4,9), G (4,10) DW: 6 tiles, no bingo.
    # No cross-words (rows 3 and 5 are empty beside the placed tiles).
    # J8 U1 M3 P3 I1 N1 G2 = 19; x2 x2 = 76.
    board = make_board(down=[("PALE", 4, 7)])
    placement = tiles((4, 4, "J"), (4, 5, "U"), (4, 6, "M"), (4, 8, "I"), (4, 9, "N"), (4, 10, "G"))
    assert score(board, placement) == 76
    result = moves(board, "JUMINGS", {"JUMPING", "PALE"})
    assert result[placement] == 76


def test_two_triple_words_multiply_by_nine():
    # EH down at col 4 rows 0..1. UMBRELLA across row 0 cols 0..7 through the E:
    # U (0,0) TW, M, B, R (0,3) DL, [E], L, L, A (0,7) TW; 7 tiles placed -> bingo.
    # U1 M3 B3 R1*2 E1 L1 L1 A1 = 13; x3 x3 = 117; + 50 = 167.
    board = make_board(down=[("EH", 0, 4)])
    placement = tiles((0, 0, "U"), (0, 1, "M"), (0, 2, "B"), (0, 3, "R"), (0, 5, "L"), (0, 6, "L"), (0, 7, "A"))
    assert score(board, placement) == 167
    # It is the only move: UMBRELLA needs the board's E; any other contact would make a
    # cross-word such as "EE", "HX" or "EHX" that is not in the lexicon.
    assert moves(board, "UMBRLLA", {"UMBRELLA", "EH"}) == {placement: 167}


def test_hook_forms_cross_word_on_triple_word():
    # JAWBONE on the board at (7,7)-(7,13); its premiums (centre DW, DL at (7,11)) are used up.
    board = make_board(across=[("JAWBONE", 7, 7)])
    words = {"JAWBONE", "JAWBONES", "AS"}
    result = moves(board, "AS", words)
    # S alone at (7,14) TW: JAWBONES = 8+1+4+3+1+1+1+1 = 20; x3 = 60.
    assert result[tiles((7, 14, "S"))] == 60
    # AS down (6,14)-(7,14): main AS = (1 + 1) x3 (S on TW) = 6; cross JAWBONES = 60. Total 66.
    assert result[down("AS", 6, 14)] == 66
    assert score(board, down("AS", 6, 14)) == 66


def test_existing_blank_on_board_scores_zero():
    # JAWBoNE (blank O) on the board; S hook at (7,14) TW:
    # 8+1+4+3+0+1+1+1 = 19; x3 = 57.
    board = make_board(across=[("JAWBoNE", 7, 7)])
    assert board[7] == ".......JAWBoNE."
    result = moves(board, "S", {"JAWBONE", "JAWBONES"})
    assert result == {tiles((7, 14, "S")): 57}


# ---------------------------------------------------------------------------
# Blanks
# ---------------------------------------------------------------------------


def test_blank_on_letter_premium_scores_zero():
    # JAWBONE across (7,7)-(7,13): J on centre DW, O on DL (7,11).
    # Real O: 8+1+4+3+1*2+1+1 = 20; x2 = 40; + 50 = 90.
    # Blank O on the DL: 8+1+4+3+0+1+1 = 18; x2 = 36; + 50 = 86.
    real = across("JAWBONE", 7, 7)
    blank = across("JAWBONE", 7, 7, blanks={4})
    assert score(EMPTY, real) == 90
    assert score(EMPTY, blank) == 86
    assert moves(EMPTY, "JAWBONE", {"JAWBONE"})[real] == 90
    result = moves(EMPTY, "JAWB?NE", {"JAWBONE"})
    assert result[blank] == 86
    assert real not in result  # no real O on the rack
    assert len(result) == 14  # same 14 positions, one blank choice each


def test_blanks_produce_distinct_moves():
    # ARISTAE with rack ?RISTAE: the blank can be the first or the second A.
    # 14 positions x 2 = 28 moves.  At (7,3)-(7,9) the first A is on the DL (7,3),
    # all letters are worth 1, T sits on the centre DW:
    #   aRISTAE: 0 + 1+1+1+1+1+1 = 6;  x2 = 12 + 50 = 62
    #   ARISTaE: 2 + 1+1+1+1+0+1 = 7;  x2 = 14 + 50 = 64
    # At (7,6)-(7,12) the second A is on the DL (7,11) (the first on the centre DW):
    #   aRISTAE: 0+1+1+1+1+2+1 = 7 -> 64;  ARISTaE: 1+1+1+1+1+0+1 = 6 -> 62
    result = moves(EMPTY, "?RISTAE", {"ARISTAE"})
    assert len(result) == 28
    assert result[across("ARISTAE", 7, 3, blanks={0})] == 62
    assert result[across("ARISTAE", 7, 3, blanks={5})] == 64
    assert result[across("ARISTAE", 7, 6, blanks={0})] == 64
    assert result[across("ARISTAE", 7, 6, blanks={5})] == 62
    # Using the blank for A while keeping an A tile unused is impossible (one A tile only
    # on a 7-letter word needing two A's), and both A's real is impossible.
    assert across("ARISTAE", 7, 3) not in result
    assert across("ARISTAE", 7, 3, blanks={0, 5}) not in result


def test_single_blank_every_letter_is_a_distinct_move():
    # Board AT at (7,7)-(7,8); rack "?"; lexicon AT AS SAT TA.  By hand, each square
    # next to the word and each letter making valid words:
    #   (7,6) ?AT  -> SAT:  0+1+1 = 2
    #   (7,9) AT?  -> none (ATA, ATS are not words)
    #   (6,7) ?A   -> TA:   0+1   = 1
    #   (8,7) A?   -> AS, AT: 1 each (two moves on the same square)
    #   (6,8) ?T   -> AT:   blank on DL still 0, + T 1 = 1
    #   (8,8) T?   -> TA:   1 + 0 on DL = 1
    board = make_board(across=[("AT", 7, 7)])
    result = moves(board, "?", {"AT", "AS", "SAT", "TA"})
    assert result == {
        tiles((7, 6, "S", True)): 2,
        tiles((6, 7, "T", True)): 1,
        tiles((8, 7, "S", True)): 1,
        tiles((8, 7, "T", True)): 1,
        tiles((6, 8, "A", True)): 1,
        tiles((8, 8, "A", True)): 1,
    }


# ---------------------------------------------------------------------------
# Single tiles and the full move list of a tiny position
# ---------------------------------------------------------------------------


def test_single_tile_forming_two_words_is_one_move():
    # TA down at col 8 rows 6..7, PA across at row 8 cols 6..7. X at (8,8) (DL) makes
    # PAX across and TAX down; X counts 8*2 = 16 in both:
    #   PAX = 3 + 1 + 16 = 20;  TAX = 1 + 1 + 16 = 18;  total 38 (not 20, not 76).
    board = make_board(across=[("PA", 8, 6)], down=[("TA", 6, 8)])
    assert board_words(board) == [("PA", 8, 6, "across"), ("TA", 6, 8, "down")]
    placement = tiles((8, 8, "X"))
    assert score(board, placement) == 38
    assert moves(board, "X", {"PA", "TA", "PAX", "TAX"}) == {placement: 38}


def test_tiny_position_complete_move_list():
    # Board: AT at (7,7)-(7,8). Rack AS. Lexicon AT AS SAT TA.
    # Hand enumeration (premiums near the word: DL at (6,6) (6,8) (8,6) (8,8); all else plain):
    # One tile:
    #   S (7,6): SAT 1+1+1 = 3             S (8,7): AS down 1+1 = 2
    #   A (6,8): AT down 2+1 = 3           A (8,8): TA down 1+2 = 3
    #   (S at (7,9)/(6,7)/(6,8)/(8,8) and A at (7,6)/(7,9)/(6,7)/(8,7) make ATS, SA, ST,
    #    TS, AAT, ATA, AA, AA: not words)
    # Two tiles:
    #   S (5,8) A (6,8): SAT down: 1 + 2 + 1 = 4
    #   A (8,6) S (8,7): AS across 2+1 = 3, cross AS down (7,7)-(8,7) 1+1 = 2 -> 5
    #   A (8,8) S (8,9): AS across 2+1 = 3, cross TA down 1+2 = 3 -> 6
    #   A (6,8) S (6,9): AS across 2+1 = 3, cross AT down 2+1 = 3 -> 6
    #   A (6,6) S (7,6): AS down 2+1 = 3, cross SAT 3 -> 6
    #   Everything else fails: row 7 gives SAAT/ASAT/SATA/AATS/ATAS..., col 7 gives
    #   SAA/AAS/ASA, col 8 below T gives TAS/TSA, (6,7) needs ?A in {AS,AT,TA,SAT}: AA/SA
    #   no; SA across, AA/TS crosses; col 9 through (7,9) gives AT? = no word.
    board = make_board(across=[("AT", 7, 7)])
    result = moves(board, "AS", {"AT", "AS", "SAT", "TA"})
    expected = {
        tiles((7, 6, "S")): 3,
        tiles((8, 7, "S")): 2,
        tiles((6, 8, "A")): 3,
        tiles((8, 8, "A")): 3,
        tiles((5, 8, "S"), (6, 8, "A")): 4,
        tiles((8, 6, "A"), (8, 7, "S")): 5,
        tiles((8, 8, "A"), (8, 9, "S")): 6,
        tiles((6, 8, "A"), (6, 9, "S")): 6,
        tiles((6, 6, "A"), (7, 6, "S")): 6,
    }
    assert result == expected
    assert len(result) == 9


# ---------------------------------------------------------------------------
# Illegal placements
# ---------------------------------------------------------------------------


def test_illegal_placements_are_excluded():
    board = make_board(across=[("AT", 7, 7)])
    words = {"AT", "AS", "SAT", "SATS", "TA"}
    result = moves(board, "SS", words)
    # Contiguous SATS (7,6)-(7,9) is legal: 1+1+1+1 = 4.
    assert result[tiles((7, 6, "S"), (7, 9, "S"))] == 4
    # Gap: S at (7,6) and (7,10) leave (7,9) empty: "SAT.S" is not one word.
    assert tiles((7, 6, "S"), (7, 10, "S")) not in result
    # Two tiles in different rows and columns.
    assert tiles((7, 6, "S"), (8, 7, "S")) not in result

    result = moves(board, "AS", words)
    # Invalid cross-word: A (8,7) S (8,8) spells AS across but makes AA and TS down.
    assert tiles((8, 7, "A"), (8, 8, "S")) not in result
    # Not touching the board: AS far away.
    assert across("AS", 0, 0) not in result
    assert across("AS", 10, 10) not in result
    # Main word not in the lexicon: S (7,9) makes ATS.
    assert tiles((7, 9, "S")) not in result
    # Every move found touches an existing tile.
    for placement in result:
        assert any(
            board[r + dr][c + dc] != "." for r, c, _, _ in placement for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        )


# ---------------------------------------------------------------------------
# Other shapes and quadruple premiums
# ---------------------------------------------------------------------------


def test_small_board_with_quadruple_premiums():
    # 5x5 board, centre (2,2) is a quadruple word, (2,3) quadruple letter.
    premiums = [
        ".....",
        ".....",
        "..Qq.",
        ".....",
        ".....",
    ]
    board = ["....."] * 5
    # ZA at (2,2)-(2,3): Z 10 + A 1*4 = 14; x4 = 56 (2 tiles of a 7-tile rack: no bingo).
    result = reference_moves(board, "ZA", {"ZA"}, premiums, VALUES, 50, 7, (2, 2))
    assert result[across("ZA", 2, 2)] == 56
    # ZA at (2,1)-(2,2): Z 10 + A 1 = 11; x4 = 44.
    assert result[across("ZA", 2, 1)] == 44
    # Down through the centre: (1,2)-(2,2): 11 x4 = 44; (2,2)-(3,2): 44.
    assert result[down("ZA", 1, 2)] == 44
    assert result[down("ZA", 2, 2)] == 44
    assert len(result) == 4
    # A 2-tile rack: playing both is a bingo there.
    result = reference_moves(board, "ZA", {"ZA"}, premiums, VALUES, 50, 2, (2, 2))
    assert result[across("ZA", 2, 2)] == 106


# ---------------------------------------------------------------------------
# board_words / apply_placement
# ---------------------------------------------------------------------------


def test_board_words_and_apply_placement():
    board = make_board(across=[("CAt", 7, 6)], down=[("AX", 7, 7)])
    # Row 7: ......CAt...... ; (8,7) X.
    assert board[7] == "......CAt......"
    assert board[8] == ".......X......."
    # Across runs first (row-major), then down runs (column-major); blanks uppercased;
    # single tiles are not words.
    assert board_words(board) == [("CAT", 7, 6, "across"), ("AX", 7, 7, "down")]

    placement = tiles((8, 8, "E", True), (8, 9, "S"))
    new = apply_placement(board, placement)
    assert new[8] == ".......XeS....."
    assert board[8] == ".......X......."  # input unchanged
    assert board_words(new) == [
        ("CAT", 7, 6, "across"),
        ("XES", 8, 7, "across"),
        ("AX", 7, 7, "down"),
        ("TE", 7, 8, "down"),
    ]
    with pytest.raises(ValueError):
        apply_placement(board, tiles((7, 6, "S")))  # occupied
    assert board_words(EMPTY) == []
    # Non-square boards work too.
    assert board_words(["AB.", "C.D"]) == [("AB", 0, 0, "across"), ("AC", 0, 0, "down")]


# ---------------------------------------------------------------------------
# Cross-check against an even more naive enumerator on small boards
# ---------------------------------------------------------------------------


def _naive_moves(board, rack, words, premiums, values, bingo, rack_size, centre):
    """Try every set of empty squares in every row/column with every arrangement of
    rack tiles (blanks as every letter) and keep those that satisfy the rules, checked
    on the resulting board with board_words.  Scores words as board_words reports them."""
    rows, cols = len(board), len(board[0])
    board_empty = all(ch == "." for row in board for ch in row)
    lines = [[(r, c) for c in range(cols)] for r in range(rows)]
    lines += [[(r, c) for r in range(rows)] for c in range(cols)]
    found = {}
    for line in lines:
        empties = [sq for sq in line if board[sq[0]][sq[1]] == "."]
        for k in range(1, len(rack) + 1):
            for squares in itertools.combinations(empties, k):
                for tiles_used in set(itertools.permutations(rack, k)):
                    options = [
                        [(ch, True) for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"] if t == "?" else [(t, False)]
                        for t in tiles_used
                    ]
                    for letters in itertools.product(*options):
                        placement = frozenset(
                            (r, c, ch, blank) for (r, c), (ch, blank) in zip(squares, letters, strict=False)
                        )
                        if placement in found:
                            continue
                        new = apply_placement(board, placement)
                        # No gaps between the first and last placed tile.
                        i0, i1 = line.index(squares[0]), line.index(squares[-1])
                        if any(new[r][c] == "." for r, c in line[i0 : i1 + 1]):
                            continue
                        placed = {(r, c) for r, c, _, _ in placement}
                        formed = []
                        for word, r, c, direction in board_words(new):
                            dr, dc = (0, 1) if direction == "across" else (1, 0)
                            sq = [(r + i * dr, c + i * dc) for i in range(len(word))]
                            if placed & set(sq):
                                formed.append(sq)
                        if not formed:
                            continue
                        if any("".join(new[r][c] for r, c in sq).upper() not in words for sq in formed):
                            continue
                        if board_empty:
                            if centre not in placed or k < 2:
                                continue
                        elif not any(
                            0 <= r + dr < rows and 0 <= c + dc < cols and board[r + dr][c + dc] != "."
                            for r, c in placed
                            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                        ):
                            continue
                        total = 0
                        for sq in formed:
                            s, m = 0, 1
                            for r, c in sq:
                                ch = new[r][c]
                                v = 0 if ch.islower() else values[ch]
                                if (r, c) in placed:
                                    v *= {"d": 2, "t": 3, "q": 4}.get(premiums[r][c], 1)
                                    m *= {"D": 2, "T": 3, "Q": 4}.get(premiums[r][c], 1)
                                s += v
                            total += s * m
                        found[placement] = total + (bingo if k == rack_size else 0)
    return found


SMALL_WORDS = {
    "AT", "TA", "AS", "IS", "IT", "TI", "SI", "ST", "ES", "ET", "TE", "RE", "ER", "AR", "AE",
    "EAT", "ATE", "TEA", "ETA", "SAT", "SET", "TIE", "SIT", "ITS", "TIS", "RAT", "ART", "TAR",
    "ARE", "EAR", "ERA", "RATE", "TEAR", "STAR", "RATS", "ARTS", "TSAR", "SEAT", "EAST", "EATS",
    "SATE", "TEAS", "STIR", "RITE", "TIER", "TIRE", "SITE", "TIES", "STAIR", "ASTER", "RATES",
    "STARE", "TEARS", "IRATE", "AIR", "SIR", "AIRS", "RAISE", "ARISE",
}  # fmt: skip

SMALL_PREMIUMS = [
    "T..d..",
    ".D..t.",
    "..q.Q.",
    "d..D..",
    ".t...d",
    "T....D",
]


@pytest.mark.parametrize(
    "board, rack",
    [
        (["......"] * 6, "ATE"),
        (["......", "......", "..RAT.", "......", "......", "......"], "SE?"),
        (["......", "......", "..RAT.", "...i..", "...r..", "......"], "EAST"),
        (["......", ".SEAT.", "..A...", "..R...", "......", "......"], "?IS"),
        (["STAR..", "...A..", "...T..", "...E..", "......", "......"], "TIE?"),
    ],
)
def test_matches_naive_enumeration_on_small_boards(board, rack):
    args = (board, rack, SMALL_WORDS, SMALL_PREMIUMS, VALUES, 50, 4, (2, 2))
    expected = _naive_moves(*args)
    assert expected  # each position has some moves
    assert reference_moves(*args) == expected

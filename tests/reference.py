"""Brute-force reference Scrabble move generator and scorer (a test oracle).

This module is deliberately simple and independent of ``solver_cli``: it exists to
check the fast GADDAG solver against an implementation that is easy to read and to
believe.  It uses only the Python standard library.

Conventions
-----------
board     list of equal-length strings, one per row. ``.`` empty, ``A``-``Z`` a tile,
          ``a``-``z`` a blank already on the board standing for that letter (worth 0).
premiums  same shape; ``.`` none, ``d``/``t``/``q`` double/triple/quadruple letter,
          ``D``/``T``/``Q`` double/triple/quadruple word.
values    dict uppercase letter -> tile value (blanks are always worth 0).
rack      uppercase letters and ``?`` (a blank).
words     set of uppercase words (length >= 2).
Placement frozenset of (row, col, LETTER, is_blank).

How moves are found
-------------------
A move's main word fills one *segment* of a row or column: a run of squares
``start..end`` (length >= 2) that contains at least one empty square, with the squares
just before ``start`` and just after ``end`` empty or off the board (so the word is
maximal).  The empty squares of the segment are exactly the squares the move fills.
For every such segment the oracle tries every lexicon word of that length, keeps the
ones that agree with the tiles already in the segment, whose cross-words are all in
the lexicon and which the rack can supply, and then enumerates every way of using the
rack's blanks.  Each resulting placement is scored from scratch by
``reference_score``.  A single tile that forms words both across and down is found
once from each direction; since the result is a dict keyed by placement it is stored
once (with the same score either way).

A per-(length, position, letter) index of the lexicon is used only to pick candidate
words quickly; every candidate is then checked in full, so the index cannot admit an
illegal move.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

Placement = frozenset[tuple[int, int, str, bool]]

__all__ = [
    "Placement",
    "reference_moves",
    "reference_score",
    "board_words",
    "apply_placement",
]

LETTER_MULTIPLIER = {"d": 2, "t": 3, "q": 4}
WORD_MULTIPLIER = {"D": 2, "T": 3, "Q": 4}
_PREMIUM_CHARS = set(".") | set(LETTER_MULTIPLIER) | set(WORD_MULTIPLIER)

ACROSS = (0, 1)  # (row step, col step) along a row
DOWN = (1, 0)  # along a column


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _shape(board: list[str]) -> tuple[int, int]:
    rows = len(board)
    cols = len(board[0]) if rows else 0
    for r, row in enumerate(board):
        if len(row) != cols:
            raise ValueError(f"board row {r} has length {len(row)}, expected {cols}")
        for ch in row:
            if not (ch == "." or ("A" <= ch <= "Z") or ("a" <= ch <= "z")):
                raise ValueError(f"bad board character {ch!r} in row {r}")
    return rows, cols


def _check_premiums(premiums: list[str], rows: int, cols: int) -> None:
    if len(premiums) != rows or any(len(p) != cols for p in premiums):
        raise ValueError("premiums must have the same shape as the board")
    for r, row in enumerate(premiums):
        for ch in row:
            if ch not in _PREMIUM_CHARS:
                raise ValueError(f"bad premium character {ch!r} in row {r}")


def _filled(board: list[str], r: int, c: int) -> bool:
    """True if (r, c) is on the board and holds a tile."""
    return 0 <= r < len(board) and 0 <= c < len(board[0]) and board[r][c] != "."


def _run(board: list[str], r: int, c: int, step: tuple[int, int]) -> list[tuple[int, int]]:
    """Squares of the maximal run of tiles through (r, c) along ``step`` (which must be
    ACROSS or DOWN).  (r, c) itself must hold a tile."""
    rows, cols = len(board), len(board[0])
    dr, dc = step
    while 0 <= r - dr < rows and 0 <= c - dc < cols and board[r - dr][c - dc] != ".":
        r, c = r - dr, c - dc
    squares = []
    while 0 <= r < rows and 0 <= c < cols and board[r][c] != ".":
        squares.append((r, c))
        r, c = r + dr, c + dc
    return squares


def _letters_before(board: list[str], r: int, c: int, step: tuple[int, int]) -> str:
    """Uppercase letters of the board tiles immediately before (r, c) along step."""
    dr, dc = step
    out = []
    r, c = r - dr, c - dc
    while _filled(board, r, c):
        out.append(board[r][c].upper())
        r, c = r - dr, c - dc
    return "".join(reversed(out))


def _letters_after(board: list[str], r: int, c: int, step: tuple[int, int]) -> str:
    """Uppercase letters of the board tiles immediately after (r, c) along step."""
    dr, dc = step
    out = []
    r, c = r + dr, c + dc
    while _filled(board, r, c):
        out.append(board[r][c].upper())
        r, c = r + dr, c + dc
    return "".join(out)


# ---------------------------------------------------------------------------
# Public helpers
# ---------------------------------------------------------------------------


def apply_placement(board: list[str], placement: Placement) -> list[str]:
    """New board rows with the tiles placed (blanks written lowercase).

    The input board is not modified.  Raises ValueError if a square is already
    occupied or off the board, or a letter is not A-Z.
    """
    rows, cols = len(board), len(board[0]) if board else 0
    grid = [list(row) for row in board]
    for r, c, letter, is_blank in placement:
        if not (0 <= r < rows and 0 <= c < cols):
            raise ValueError(f"square ({r}, {c}) is off the board")
        if not (len(letter) == 1 and "A" <= letter <= "Z"):
            raise ValueError(f"placement letter must be one uppercase letter, got {letter!r}")
        if grid[r][c] != ".":
            raise ValueError(f"square ({r}, {c}) is already occupied")
        grid[r][c] = letter.lower() if is_blank else letter
    return ["".join(row) for row in grid]


def board_words(board: list[str]) -> list[tuple[str, int, int, str]]:
    """Every maximal run of 2+ tiles in rows and columns.

    Returns (WORD uppercase, row, col, 'across'|'down') where (row, col) is the first
    square of the run.  Across runs come first in row-major order, then down runs in
    column-major order.
    """
    rows, cols = _shape(board)
    found: list[tuple[str, int, int, str]] = []
    for r in range(rows):
        c = 0
        while c < cols:
            if board[r][c] != "." and not _filled(board, r, c - 1):
                run = _run(board, r, c, ACROSS)
                if len(run) >= 2:
                    found.append(("".join(board[rr][cc] for rr, cc in run).upper(), r, c, "across"))
                c += len(run)
            else:
                c += 1
    for c in range(cols):
        r = 0
        while r < rows:
            if board[r][c] != "." and not _filled(board, r - 1, c):
                run = _run(board, r, c, DOWN)
                if len(run) >= 2:
                    found.append(("".join(board[rr][cc] for rr, cc in run).upper(), r, c, "down"))
                r += len(run)
            else:
                r += 1
    return found


def reference_score(
    board: list[str],
    placement: Placement,
    premiums: list[str],
    values: dict[str, int],
    bingo: int,
    rack_size: int,
) -> int:
    """Score of placing ``placement`` on ``board`` (assumes the move is legal).

    The words scored are every maximal run (length >= 2, across or down) in the new
    board that contains at least one newly placed tile, each counted once.  For a legal
    move these are exactly the main word and the cross-words.
    """
    rows, cols = _shape(board)
    _check_premiums(premiums, rows, cols)
    return _score(board, placement, premiums, values, bingo, rack_size)


def _score(board, placement, premiums, values, bingo, rack_size) -> int:
    """reference_score without the input-shape checks (used in the move loop)."""
    new_board = apply_placement(board, placement)
    placed = {(r, c): (letter, is_blank) for r, c, letter, is_blank in placement}

    runs: set[tuple[tuple[int, int], ...]] = set()
    for r, c in placed:
        for step in (ACROSS, DOWN):
            run = _run(new_board, r, c, step)
            if len(run) >= 2:
                runs.add(tuple(run))

    total = 0
    for run in runs:
        word_sum = 0
        word_mult = 1
        for r, c in run:
            if (r, c) in placed:
                letter, is_blank = placed[(r, c)]
                premium = premiums[r][c]
                tile_value = 0 if is_blank else values[letter]
                word_sum += tile_value * LETTER_MULTIPLIER.get(premium, 1)
                word_mult *= WORD_MULTIPLIER.get(premium, 1)
            else:
                ch = new_board[r][c]
                word_sum += 0 if ch.islower() else values[ch]
        total += word_sum * word_mult

    if len(placement) == rack_size:
        total += bingo
    return total


# ---------------------------------------------------------------------------
# Move generation
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=4)
def _lexicon_index(words: frozenset[str]):
    """(by_length, by_position): by_length[L] is the set of words of length L;
    by_position[(L, i, letter)] is the set of words of length L with ``letter`` at
    index i.  Only used to choose candidates; every candidate is verified in full."""
    by_length: dict[int, set[str]] = {}
    by_position: dict[tuple[int, int, str], set[str]] = {}
    for w in words:
        n = len(w)
        by_length.setdefault(n, set()).add(w)
        for i, ch in enumerate(w):
            by_position.setdefault((n, i, ch), set()).add(w)
    return by_length, by_position


def _segments(line_filled: list[bool], max_new: int):
    """(start, end) inclusive index pairs of candidate main-word segments in a line:
    length >= 2, 1..max_new empty squares, and the squares just outside both ends are
    empty or off the line."""
    n = len(line_filled)
    for start in range(n):
        if start > 0 and line_filled[start - 1]:
            continue
        empties = 0
        for end in range(start, n):
            if not line_filled[end]:
                empties += 1
            if empties > max_new:
                break
            if end - start + 1 < 2 or empties == 0:
                continue
            if end + 1 < n and line_filled[end + 1]:
                continue
            yield start, end


def _rack_can_supply(letters: str, rack_counts: dict[str, int], blanks: int) -> bool:
    """Can the rack (real tiles ``rack_counts`` plus ``blanks`` blanks) supply
    ``letters``?  Each letter the real tiles run short of costs one blank."""
    used: dict[str, int] = {}
    short = 0
    for letter in letters:
        used[letter] = used.get(letter, 0) + 1
        if used[letter] > rack_counts.get(letter, 0):
            short += 1
    return short <= blanks


def _blank_choices(letters: str, rack_counts: dict[str, int], blanks: int):
    """Every tuple of is_blank flags (one per letter of ``letters``) the rack can supply.

    For each distinct letter occurring n times, of which the rack holds r real tiles,
    choose which k of its n occurrences are blanks, for every k with
    n - r <= k <= n; then keep the combinations using at most ``blanks`` blanks.
    """
    positions: dict[str, list[int]] = {}
    for i, letter in enumerate(letters):
        positions.setdefault(letter, []).append(i)
    per_letter = []
    for letter, idxs in positions.items():
        n = len(idxs)
        lowest = max(0, n - rack_counts.get(letter, 0))
        options = []
        for k in range(lowest, min(n, blanks) + 1):
            options.extend(itertools.combinations(idxs, k))
        per_letter.append(options)
    for choice in itertools.product(*per_letter):
        blank_idx = set(itertools.chain.from_iterable(choice))
        if len(blank_idx) <= blanks:
            yield tuple(i in blank_idx for i in range(len(letters)))


def reference_moves(
    board: list[str],
    rack: str,
    words: set[str],
    premiums: list[str],
    values: dict[str, int],
    bingo: int,
    rack_size: int,
    centre: tuple[int, int],
) -> dict[Placement, int]:
    """Every legal move -> its score.  Keys are Placements (see module docstring)."""
    rows, cols = _shape(board)
    _check_premiums(premiums, rows, cols)
    if len(rack) > rack_size:
        raise ValueError(f"rack {rack!r} has more than {rack_size} tiles")
    for ch in rack:
        if not (ch == "?" or "A" <= ch <= "Z"):
            raise ValueError(f"bad rack character {ch!r}")

    lexicon = frozenset(w.upper() for w in words if len(w) >= 2)
    by_length, by_position = _lexicon_index(lexicon)

    rack_counts = dict(Counter(ch for ch in rack if ch != "?"))
    blanks = rack.count("?")
    board_is_empty = all(ch == "." for row in board for ch in row)

    moves: dict[Placement, int] = {}
    rows_as_lines = [[(r, c) for c in range(cols)] for r in range(rows)]  # main word across
    cols_as_lines = [[(r, c) for r in range(rows)] for c in range(cols)]  # main word down
    # cross_step is the direction of the cross-words: perpendicular to the main word.
    for cross_step, line_list in ((DOWN, rows_as_lines), (ACROSS, cols_as_lines)):
        for line in line_list:
            line_filled = [board[r][c] != "." for r, c in line]
            for start, end in _segments(line_filled, len(rack)):
                squares = line[start : end + 1]
                length = len(squares)
                empty_idx = [i for i, (r, c) in enumerate(squares) if board[r][c] == "."]
                fixed = {i: board[r][c].upper() for i, (r, c) in enumerate(squares) if board[r][c] != "."}

                # Connection rule.
                if board_is_empty:
                    if tuple(centre) not in squares or len(empty_idx) < 2:
                        continue
                else:
                    touches = any(
                        _filled(board, squares[i][0] + dr, squares[i][1] + dc)
                        for i in empty_idx
                        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                    )
                    if not touches:
                        continue

                # Cross-word context of each empty square: (letters before, letters after).
                cross = {}
                for i in empty_idx:
                    r, c = squares[i]
                    before = _letters_before(board, r, c, cross_step)
                    after = _letters_after(board, r, c, cross_step)
                    if before or after:
                        cross[i] = (before, after)

                # Candidate words: intersect the index sets of every constrained index.
                candidates = by_length.get(length, set())
                for i, letter in fixed.items():
                    candidates = candidates & by_position.get((length, i, letter), set())
                for i, (before, after) in cross.items():
                    allowed = set()
                    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
                        if before + letter + after in lexicon:
                            allowed |= by_position.get((length, i, letter), set())
                    candidates = candidates & allowed

                for word in candidates:
                    # Full verification of every rule (independent of the index).
                    if word not in lexicon or len(word) != length:
                        continue
                    if any(word[i] != letter for i, letter in fixed.items()):
                        continue
                    if any(before + word[i] + after not in lexicon for i, (before, after) in cross.items()):
                        continue
                    needed = "".join(word[i] for i in empty_idx)
                    if not _rack_can_supply(needed, rack_counts, blanks):
                        continue
                    for flags in _blank_choices(needed, rack_counts, blanks):
                        placement = frozenset(
                            (squares[i][0], squares[i][1], word[i], is_blank)
                            for i, is_blank in zip(empty_idx, flags, strict=False)
                        )
                        moves[placement] = _score(board, placement, premiums, values, bingo, rack_size)
    return moves

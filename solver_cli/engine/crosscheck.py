"""Cross-check sets: per empty square, the letters the perpendicular word allows there.

A move placing a tile on a square also forms the word running across its line through that
square; the letters for which that word is in the lexicon are the square's cross-check set
(a bitmask, bit ``code`` per letter), and the perpendicular tiles' face value is the
cross-score the move adds. Computed from whatever board is loaded, never kept incrementally.
"""

from __future__ import annotations

from solver_cli.engine.alphabet import ALL_LETTERS, BLANK_BIT, LETTER_MASK
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import BELOW, FINAL, Gaddag


def cross_checks(board: Board, gaddag: Gaddag, values: tuple[int, ...], down: bool) -> tuple[list[int], list[int]]:
    """For moves running ``down`` (else across): per square, the letters allowed there by the
    perpendicular word, and that word's face value without the new tile, or -1 when there is
    no perpendicular neighbour (every letter allowed, no cross-word scored)."""
    rows, cols, sq = board.rows, board.cols, board.squares
    n = rows * cols
    masks = [ALL_LETTERS] * n
    scores = [-1] * n
    # The perpendicular of a down move is its row; of an across move, its column.
    step, limit = (1, cols) if down else (cols, rows)
    nodes = gaddag.nodes
    root = gaddag.root
    dawg_root = gaddag.dawg_root
    for i in range(n):
        if sq[i]:
            continue
        pos = i % cols if down else i // cols
        if not (pos > 0 and sq[i - step]) and not (pos + 1 < limit and sq[i + step]):
            continue
        before = []  # tiles before the square, nearest first
        p, j = pos - 1, i - step
        while p >= 0 and sq[j]:
            before.append(sq[j])
            p -= 1
            j -= step
        after = []  # tiles after, nearest first
        p, j = pos + 1, i + step
        while p < limit and sq[j]:
            after.append(sq[j])
            p += 1
            j += step
        scores[i] = sum(values[t] for t in before if not t & BLANK_BIT) + sum(
            values[t] for t in after if not t & BLANK_BIT
        )
        # The word is rev(before) + L + after. Walk the longer side first, then try each
        # letter L and walk the shorter side: forwards in the DAWG (rev(before), L, after),
        # or backwards in the GADDAG, which accepts the reversed word with no separator.
        if len(after) <= len(before):
            state = gaddag.walk(dawg_root, [t & LETTER_MASK for t in reversed(before)])
            tail = [t & LETTER_MASK for t in after]
        else:
            state = gaddag.walk(root, [t & LETTER_MASK for t in reversed(after)])
            tail = [t & LETTER_MASK for t in before]
        allowed = 0
        if state >= 0:
            mask = nodes[state]
            letters = mask & ALL_LETTERS
            while letters:
                code = letters.bit_length() - 1
                letters ^= 1 << code
                end = nodes[state + 1 + (mask & BELOW[code]).bit_count()]
                for t in tail:
                    t_mask = nodes[end]
                    if not t_mask >> t & 1:
                        break
                    end = nodes[end + 1 + (t_mask & BELOW[t]).bit_count()]
                else:
                    if nodes[end] & FINAL:
                        allowed |= 1 << code
        masks[i] = allowed
    return masks, scores

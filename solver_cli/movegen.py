"""Every legal move, by Gordon's GADDAG algorithm (Gen / GoOn), with exact scores.

For each direction the board is cut into lines (rows for across moves, columns for down
moves), and each line into flat lists prepared once: tiles, cross-check masks, letter and
word multipliers, the perpendicular score terms. For each anchor square of a line:

- ``gen_left`` places or reads letters leftwards from the anchor, following the reversed
  prefix in the GADDAG; it may not place a tile on an earlier anchor, which is what makes
  every move come from exactly one anchor (the leftmost anchor it covers);
- ``go_on_left`` records a word that ends at the anchor, crosses the separator to the
  square right of the anchor, or keeps going left;
- ``gen_right`` / ``go_on_right`` do the same rightwards after the separator.

The score travels through the recursion as three ints (wolges' accumulator): ``main`` the
main word's letter sum, ``mult`` its word multiplier, ``cross`` the sum of completed
cross-words. Rack letters are counts plus a bitmask of the letters present, so the arcs
worth trying are one ``&`` of the node mask, the cross-check mask and the rack mask.
Nothing is allocated until a word is accepted.

A raw move is a tuple ``(score, down, line, start, codes)``: the direction, the row (across)
or column (down), the first square of the main word along the line, and the codes of the
main word's squares (board tiles included; ``BLANK_BIT`` marks blanks).
"""

from __future__ import annotations

from solver_cli.alphabet import BLANK_BIT
from solver_cli.board import Board, anchors, cross_checks
from solver_cli.gaddag import FINAL, Gaddag
from solver_cli.rules import Rules

RawMove = tuple[int, bool, int, int, tuple[int, ...]]


def generate_moves(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules) -> list[RawMove]:
    """All legal moves for ``rack`` (27 counts, index 0 = blanks), unordered."""
    if board.rows != rules.rows or board.cols != rules.cols:
        raise ValueError("board and rules differ in size")
    moves: list[RawMove] = []
    anchor_flags = anchors(board, rules.centre)
    for down in (False, True):
        masks, cross_scores = cross_checks(board, gaddag, rules.values, down)
        _generate_direction(board, list(rack), gaddag, rules, down, anchor_flags, masks, cross_scores, moves)
    return moves


def _generate_direction(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    down: bool,
    anchor_flags: list[bool],
    masks: list[int],
    cross_scores: list[int],
    moves: list[RawMove],
) -> None:
    rows, cols = board.rows, board.cols
    line_count, n = (cols, rows) if down else (rows, cols)
    g = gaddag.nodes
    root = gaddag.root
    values = rules.values
    rack_size = rules.rack_size
    bingo = rules.bingo_bonus
    add = moves.append
    bits0 = 0
    for code in range(1, 27):
        if rack[code]:
            bits0 |= 1 << code

    # Per-line arrays, rebound for each line (read by the nested functions as free variables).
    tiles: list[int] = []
    check: list[int] = []
    letter_mult: list[int] = []
    word_mult: list[int] = []
    cross_base: list[int] = []  # perpendicular tiles' sum times the word multiplier, or 0
    cross_mult: list[int] = []  # word multiplier when a cross-word forms here, else 0
    face: list[int] = []  # board tile face values (0 for blanks and empty squares)
    strip: list[int] = []  # the codes of the word being built
    is_anchor: list[bool] = []
    cross_scores_line: list[int] = []
    line = 0
    anchor = 0
    right_clear = True

    def record(start: int, end: int, score: int, placed: int) -> None:
        if placed == 1 and down:
            # A single tile with a neighbour across was already found as an across move.
            for p in range(start, end + 1):
                if not tiles[p]:
                    if cross_scores_line[p] >= 0:
                        return
                    break
        if placed == rack_size:
            score += bingo
        add((score, down, line, start, tuple(strip[start : end + 1])))

    def gen_left(pos: int, state: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        mask = g[state]
        tile = tiles[pos]
        if tile:
            bit = 1 << (tile & 31)
            if mask & bit:
                go_on_left(pos, g[state + 1 + (mask & (bit - 1)).bit_count()], main + face[pos], mult, cross, placed, bits)
            return
        allowed = mask & check[pos]
        if not allowed:
            return
        lm = letter_mult[pos]
        wm = word_mult[pos]
        base = cross_base[pos]
        xm = cross_mult[pos]
        todo = allowed & bits
        while todo:
            bit = todo & -todo
            todo ^= bit
            code = bit.bit_length() - 1
            value = values[code] * lm
            rack[code] -= 1
            strip[pos] = code
            go_on_left(
                pos,
                g[state + 1 + (mask & (bit - 1)).bit_count()],
                main + value,
                mult * wm,
                cross + base + value * xm,
                placed + 1,
                bits if rack[code] else bits ^ bit,
            )
            rack[code] += 1
        if rack[0]:
            rack[0] -= 1
            todo = allowed
            while todo:
                bit = todo & -todo
                todo ^= bit
                code = bit.bit_length() - 1
                strip[pos] = code | BLANK_BIT
                go_on_left(pos, g[state + 1 + (mask & (bit - 1)).bit_count()], main, mult * wm, cross + base, placed + 1, bits)
            rack[0] += 1

    def go_on_left(pos: int, state: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        if pos and tiles[pos - 1]:
            gen_left(pos - 1, state, main, mult, cross, placed, bits)  # must take the tile on the left
            return
        mask = g[state]
        if mask & FINAL and right_clear:
            record(pos, anchor, main * mult + cross, placed)
        if mask & 1 and anchor + 1 < n:  # the separator: continue right of the anchor
            gen_right(anchor + 1, g[state + 1], pos, main, mult, cross, placed, bits)
        if pos and not is_anchor[pos - 1] and (bits or rack[0]):
            gen_left(pos - 1, state, main, mult, cross, placed, bits)

    def gen_right(pos: int, state: int, start: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        mask = g[state]
        tile = tiles[pos]
        if tile:
            bit = 1 << (tile & 31)
            if mask & bit:
                go_on_right(pos, g[state + 1 + (mask & (bit - 1)).bit_count()], start, main + face[pos], mult, cross, placed, bits)
            return
        allowed = mask & check[pos]
        if not allowed:
            return
        lm = letter_mult[pos]
        wm = word_mult[pos]
        base = cross_base[pos]
        xm = cross_mult[pos]
        todo = allowed & bits
        while todo:
            bit = todo & -todo
            todo ^= bit
            code = bit.bit_length() - 1
            value = values[code] * lm
            rack[code] -= 1
            strip[pos] = code
            go_on_right(
                pos,
                g[state + 1 + (mask & (bit - 1)).bit_count()],
                start,
                main + value,
                mult * wm,
                cross + base + value * xm,
                placed + 1,
                bits if rack[code] else bits ^ bit,
            )
            rack[code] += 1
        if rack[0]:
            rack[0] -= 1
            todo = allowed
            while todo:
                bit = todo & -todo
                todo ^= bit
                code = bit.bit_length() - 1
                strip[pos] = code | BLANK_BIT
                go_on_right(pos, g[state + 1 + (mask & (bit - 1)).bit_count()], start, main, mult * wm, cross + base, placed + 1, bits)
            rack[0] += 1

    def go_on_right(pos: int, state: int, start: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        nxt = pos + 1
        if nxt < n and tiles[nxt]:
            gen_right(nxt, state, start, main, mult, cross, placed, bits)  # must take the tile on the right
            return
        if g[state] & FINAL:
            record(start, pos, main * mult + cross, placed)
        if nxt < n and (bits or rack[0]):
            gen_right(nxt, state, start, main, mult, cross, placed, bits)

    squares = board.squares
    layout_lm = rules.letter_mult
    layout_wm = rules.word_mult
    for line in range(line_count):
        index = [p * cols + line for p in range(n)] if down else [line * cols + p for p in range(n)]
        line_anchors = [p for p, i in enumerate(index) if anchor_flags[i]]
        if not line_anchors:
            continue
        tiles = [squares[i] for i in index]
        check = [masks[i] for i in index]
        letter_mult = [layout_lm[i] for i in index]
        word_mult = [layout_wm[i] for i in index]
        cross_scores_line = [cross_scores[i] for i in index]
        cross_base = [s * wm if s >= 0 else 0 for s, wm in zip(cross_scores_line, word_mult)]
        cross_mult = [wm if s >= 0 else 0 for s, wm in zip(cross_scores_line, word_mult)]
        face = [values[t] if t and not t & BLANK_BIT else 0 for t in tiles]
        strip = list(tiles)
        is_anchor = [anchor_flags[i] for i in index]
        for anchor in line_anchors:
            right_clear = anchor + 1 >= n or not tiles[anchor + 1]
            gen_left(anchor, root, 0, 1, 0, 0, bits0)

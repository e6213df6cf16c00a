"""Every legal move, by Gordon's GADDAG algorithm (Gen / GoOn), with exact scores.

For each direction the board is cut into lines (rows for across moves, columns for down
moves), and each line into flat lists prepared once: tiles, and per square a tuple of its
cross-check mask, letter and word multipliers and perpendicular score terms. For each anchor
square of a line:

- if tiles follow the anchor on the right, every word through the anchor contains that run,
  so the walk starts at the run's last tile and reads the run backwards first (the GADDAG
  spells any word from any of its letters); the left part then only tries letters that
  continue a real word through the run, instead of finding out after the separator;
- ``gen_left`` is Gen for the squares from the anchor leftwards: it places each letter the
  GADDAG, the cross-check set and the rack allow, then does GoOn inline: take any run of
  board tiles further left, record a word that ends at the anchor (or at the run's end),
  cross the separator to the square after it, or keep going left. It may not place a tile
  on an earlier anchor, which is what makes every move come from exactly one anchor (the
  leftmost anchor it covers);
- ``gen_right`` does the same rightwards after the separator, taking any run of board
  tiles after each placed letter. (GoOn is folded into Gen's loop, and the natural-tile
  and blank cases share one loop body, to keep Python calls to one per square tried.)

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

import gc

from solver_cli.alphabet import ALL_LETTERS, BLANK_BIT
from solver_cli.board import Board, anchors, cross_checks
from solver_cli.gaddag import BELOW, FINAL, Gaddag
from solver_cli.rules import Rules

BIT = tuple(1 << code for code in range(32))
RawMove = tuple[int, bool, int, int, tuple[int, ...]]


def generate_moves(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules) -> list[RawMove]:
    """All legal moves for ``rack`` (27 counts, index 0 = blanks), unordered."""
    if board.rows != rules.rows or board.cols != rules.cols:
        raise ValueError("board and rules differ in size")
    moves: list[RawMove] = []
    anchor_flags = anchors(board, rules.centre)
    # The moves are tuples of ints, which make no reference cycles: pausing the cycle
    # collector spares it from rescanning the growing list every 700 new tuples.
    collecting = gc.isenabled()
    gc.disable()
    try:
        for down in (False, True):
            masks, cross_scores = cross_checks(board, gaddag, rules.values, down)
            _generate_direction(board, list(rack), gaddag, rules, down, anchor_flags, masks, cross_scores, moves)
    finally:
        if collecting:
            gc.enable()
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

    # Per-line data, rebound for each line (read by the nested functions as free variables).
    tiles: list[int] = []
    # per square: (cross-check mask, letter mult, word mult, cross-word base, cross-word mult)
    # where base is the perpendicular tiles' sum times the word multiplier and the cross
    # multiplier is the word multiplier, both 0 when no cross-word forms there
    square: list[tuple[int, int, int, int, int]] = []
    check: list[int] = []
    run_end: list[int] = []  # the first empty square at or after each square (n: none)
    face: list[int] = []  # board tile face values (0 for blanks and empty squares)
    strip: list[int] = []  # the codes of the word being built
    is_anchor: list[bool] = []
    single_elsewhere: list[bool] = []  # down only: a lone tile here was already found across
    line = 0
    anchor = 0
    after_run = 0  # the square after the anchor and the tiles that follow it

    def gen_left(pos: int, state: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen at the empty square ``pos`` (the anchor or left of it), then GoOn leftwards."""
        mask = g[state]
        allowed_here, lm, wm, base, xm = square[pos]
        allowed = mask & allowed_here
        natural = allowed & bits
        blanks = allowed if rack[0] else 0
        tile_on_left = pos and tiles[pos - 1]
        arcs = state + 1
        mult *= wm
        cross += base
        placed += 1
        bonus = bingo if placed == rack_size else 0
        lone = placed == 1 and single_elsewhere[pos]  # (a lone tile is reported across only)
        while natural or blanks:
            if natural:
                code = natural.bit_length() - 1
                natural ^= BIT[code]
                value = values[code] * lm
                rack[code] -= 1
                used = code
                next_bits = bits if rack[code] else bits ^ BIT[code]
                strip[pos] = code
            else:
                code = blanks.bit_length() - 1
                blanks ^= BIT[code]
                value = 0
                rack[0] -= 1
                used = 0
                next_bits = bits
                strip[pos] = code | BLANK_BIT
            child = g[arcs + (mask & BELOW[code]).bit_count()]
            new_main = main + value
            # GoOn: first take the run of board tiles directly on the left, if any.
            first = pos
            if tile_on_left:
                while first and tiles[first - 1]:
                    first -= 1
                    t_code = tiles[first] & 31
                    t_mask = g[child]
                    if not t_mask & BIT[t_code]:
                        child = -1
                        break
                    child = g[child + 1 + (t_mask & BELOW[t_code]).bit_count()]
                    new_main += face[first]
                if child < 0:
                    rack[used] += 1
                    continue
            c_mask = g[child]
            if c_mask >= FINAL and not lone:  # FINAL is the header's highest bit
                add((new_main * mult + cross + value * xm + bonus, down, line, first, tuple(strip[first:after_run])))
            # The separator: turn right, after the anchor's run, if a letter can go there.
            if c_mask & 1 and after_run < n:
                turned = g[child + 1]
                if g[turned] & check[after_run] & (next_bits | (ALL_LETTERS if rack[0] else 0)):
                    gen_right(after_run, turned, first, new_main, mult, cross + value * xm, placed, next_bits)
            if first and not is_anchor[first - 1] and c_mask & check[first - 1] & (next_bits | (ALL_LETTERS if rack[0] else 0)):
                gen_left(first - 1, child, new_main, mult, cross + value * xm, placed, next_bits)
            rack[used] += 1

    def gen_right(pos: int, state: int, first: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen at the empty square ``pos`` right of the anchor, then GoOn rightwards."""
        mask = g[state]
        allowed_here, lm, wm, base, xm = square[pos]
        allowed = mask & allowed_here
        natural = allowed & bits
        blanks = allowed if rack[0] else 0
        nxt = pos + 1
        end = run_end[nxt] if nxt < n else n  # after the tiles that follow pos, if any
        next_check = check[end] if end < n else 0
        arcs = state + 1
        mult *= wm
        cross += base
        placed += 1
        bonus = bingo if placed == rack_size else 0
        while natural or blanks:
            if natural:
                code = natural.bit_length() - 1
                natural ^= BIT[code]
                value = values[code] * lm
                rack[code] -= 1
                used = code
                next_bits = bits if rack[code] else bits ^ BIT[code]
                strip[pos] = code
            else:
                code = blanks.bit_length() - 1
                blanks ^= BIT[code]
                value = 0
                rack[0] -= 1
                used = 0
                next_bits = bits
                strip[pos] = code | BLANK_BIT
            child = g[arcs + (mask & BELOW[code]).bit_count()]
            new_main = main + value
            # GoOn: a run of tiles on the right must be taken; then the word may end or go on.
            if end != nxt:
                for p in range(nxt, end):
                    t_code = tiles[p] & 31
                    t_mask = g[child]
                    if not t_mask & BIT[t_code]:
                        child = -1
                        break
                    child = g[child + 1 + (t_mask & BELOW[t_code]).bit_count()]
                    new_main += face[p]
                if child < 0:
                    rack[used] += 1
                    continue
            c_mask = g[child]
            if c_mask >= FINAL:  # FINAL is the header's highest bit
                add((new_main * mult + cross + value * xm + bonus, down, line, first, tuple(strip[first:end])))
            if c_mask & next_check and c_mask & next_check & (next_bits | (ALL_LETTERS if rack[0] else 0)):
                gen_right(end, child, first, new_main, mult, cross + value * xm, placed, next_bits)
            rack[used] += 1

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
        square = []
        for i in index:
            lm, wm, s = layout_lm[i], layout_wm[i], cross_scores[i]
            square.append((masks[i], lm, wm, s * wm, wm) if s >= 0 else (masks[i], lm, wm, 0, 0))
        single_elsewhere = [down and cross_scores[i] >= 0 for i in index]
        face = [values[t] if t and not t & BLANK_BIT else 0 for t in tiles]
        run_end = [0] * n
        end = n
        for p in range(n - 1, -1, -1):
            if not tiles[p]:
                end = p
            run_end[p] = end
        strip = list(tiles)
        is_anchor = [anchor_flags[i] for i in index]
        for anchor in line_anchors:
            # Read the anchor's run of right-hand tiles backwards, from its last tile.
            after_run = run_end[anchor + 1] if anchor + 1 < n else n
            state = root
            main = 0
            for p in range(after_run - 1, anchor, -1):
                t_bit = 1 << (tiles[p] & 31)
                t_mask = g[state]
                if not t_mask & t_bit:
                    break
                state = g[state + 1 + (t_mask & (t_bit - 1)).bit_count()]
                main += face[p]
            else:
                gen_left(anchor, state, main, 1, 0, 0, bits0)

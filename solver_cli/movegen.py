"""Every legal move, by Gordon's GADDAG algorithm (Gen / GoOn), with exact scores.

For each direction the board is cut into lines (rows for across moves, columns for down
moves), and each line into flat lists prepared once: tiles, cross-check masks, letter and
word multipliers, the perpendicular score terms. For each anchor square of a line:

- ``gen_left`` is Gen for the squares from the anchor leftwards: it places each letter the
  GADDAG, the cross-check set and the rack allow, then does GoOn inline: take any run of
  board tiles further left, record a word that ends at the anchor, cross the separator to
  the square right of the anchor, or keep going left. It may not place a tile on an
  earlier anchor, which is what makes every move come from exactly one anchor (the
  leftmost anchor it covers);
- ``gen_right`` does the same rightwards after the separator, reading board tiles on the
  way. (GoOn is folded into Gen's loop, and the natural-tile and blank cases share one
  loop body, to keep Python calls to one per square tried.)

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

from solver_cli.alphabet import ALL_LETTERS, BLANK_BIT
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
    single_elsewhere: list[bool] = []  # down only: a lone tile here was already found across
    line = 0
    after_anchor = 0
    right_clear = True

    def gen_left(pos: int, state: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen at the empty square ``pos`` (the anchor or left of it), then GoOn leftwards."""
        mask = g[state]
        allowed = mask & check[pos]
        natural = allowed & bits
        blanks = allowed if rack[0] else 0
        lm = letter_mult[pos]
        wm = word_mult[pos]
        base = cross_base[pos]
        xm = cross_mult[pos]
        prev = pos - 1
        tile_on_left = prev >= 0 and tiles[prev]
        while natural or blanks:
            if natural:
                bit = natural & -natural
                natural ^= bit
                code = bit.bit_length() - 1
                value = values[code] * lm
                rack[code] -= 1
                used = code
                next_bits = bits if rack[code] else bits ^ bit
                strip[pos] = code
            else:
                bit = blanks & -blanks
                blanks ^= bit
                code = bit.bit_length() - 1
                value = 0
                rack[0] -= 1
                used = 0
                next_bits = bits
                strip[pos] = code | BLANK_BIT
            child = g[state + 1 + (mask & (bit - 1)).bit_count()]
            new_main = main + value
            new_mult = mult * wm
            new_cross = cross + base + value * xm
            new_placed = placed + 1
            # GoOn: first take the run of board tiles directly on the left, if any.
            first = pos
            if tile_on_left:
                while first > 0 and tiles[first - 1]:
                    first -= 1
                    t_bit = 1 << (tiles[first] & 31)
                    t_mask = g[child]
                    if not t_mask & t_bit:
                        child = -1
                        break
                    child = g[child + 1 + (t_mask & (t_bit - 1)).bit_count()]
                    new_main += face[first]
                if child < 0:
                    rack[used] += 1
                    continue
            c_mask = g[child]
            if c_mask & FINAL and right_clear and not (new_placed == 1 and single_elsewhere[pos]):
                add(
                    (
                        new_main * new_mult + new_cross + (bingo if new_placed == rack_size else 0),
                        down,
                        line,
                        first,
                        tuple(strip[first:after_anchor]),
                    )
                )
            if c_mask & 1 and after_anchor < n:  # the separator: turn right of the anchor
                gen_right(after_anchor, g[child + 1], first, new_main, new_mult, new_cross, new_placed, next_bits)
            if first and not is_anchor[first - 1] and c_mask & check[first - 1] & (next_bits | (ALL_LETTERS if rack[0] else 0)):
                gen_left(first - 1, child, new_main, new_mult, new_cross, new_placed, next_bits)
            rack[used] += 1

    def gen_right(pos: int, state: int, first: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen rightwards from ``pos`` (past the anchor): board tiles are read, empty squares filled."""
        if tiles[pos]:
            while pos < n and tiles[pos]:
                t_bit = 1 << (tiles[pos] & 31)
                t_mask = g[state]
                if not t_mask & t_bit:
                    return
                state = g[state + 1 + (t_mask & (t_bit - 1)).bit_count()]
                main += face[pos]
                pos += 1
            # (a lone tile, placed on the anchor, may have been found across already)
            if g[state] & FINAL and not (placed == 1 and single_elsewhere[after_anchor - 1]):
                add((main * mult + cross + (bingo if placed == rack_size else 0), down, line, first, tuple(strip[first:pos])))
            if pos == n:
                return
        mask = g[state]
        allowed = mask & check[pos]
        natural = allowed & bits
        blanks = allowed if rack[0] else 0
        lm = letter_mult[pos]
        wm = word_mult[pos]
        base = cross_base[pos]
        xm = cross_mult[pos]
        nxt = pos + 1
        tile_on_right = nxt < n and tiles[nxt]
        can_extend = nxt < n and not tile_on_right
        while natural or blanks:
            if natural:
                bit = natural & -natural
                natural ^= bit
                code = bit.bit_length() - 1
                value = values[code] * lm
                rack[code] -= 1
                used = code
                next_bits = bits if rack[code] else bits ^ bit
                strip[pos] = code
            else:
                bit = blanks & -blanks
                blanks ^= bit
                code = bit.bit_length() - 1
                value = 0
                rack[0] -= 1
                used = 0
                next_bits = bits
                strip[pos] = code | BLANK_BIT
            child = g[state + 1 + (mask & (bit - 1)).bit_count()]
            new_main = main + value
            new_mult = mult * wm
            new_cross = cross + base + value * xm
            new_placed = placed + 1
            # GoOn: a tile on the right must be taken; else the word may end here or go on.
            if tile_on_right:
                gen_right(nxt, child, first, new_main, new_mult, new_cross, new_placed, next_bits)
            else:
                c_mask = g[child]
                if c_mask & FINAL:
                    add(
                        (
                            new_main * new_mult + new_cross + (bingo if new_placed == rack_size else 0),
                            down,
                            line,
                            first,
                            tuple(strip[first:nxt]),
                        )
                    )
                if can_extend and c_mask & check[nxt] & (next_bits | (ALL_LETTERS if rack[0] else 0)):
                    gen_right(nxt, child, first, new_main, new_mult, new_cross, new_placed, next_bits)
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
        letter_mult = [layout_lm[i] for i in index]
        word_mult = [layout_wm[i] for i in index]
        cross_scores_line = [cross_scores[i] for i in index]
        single_elsewhere = [down and s >= 0 for s in cross_scores_line]
        cross_base = [s * wm if s >= 0 else 0 for s, wm in zip(cross_scores_line, word_mult)]
        cross_mult = [wm if s >= 0 else 0 for s, wm in zip(cross_scores_line, word_mult)]
        face = [values[t] if t and not t & BLANK_BIT else 0 for t in tiles]
        strip = list(tiles)
        is_anchor = [anchor_flags[i] for i in index]
        for anchor in line_anchors:
            after_anchor = anchor + 1
            right_clear = after_anchor >= n or not tiles[after_anchor]
            gen_left(anchor, root, 0, 1, 0, 0, bits0)

"""Every legal move, by Gordon's GADDAG algorithm (Gen / GoOn), with exact scores.

For each direction the board is cut into lines (rows for across moves, columns for down
moves), and each line into flat lists prepared once: tiles, and per square a tuple of what
Gen reads there (cross-check mask, multipliers, perpendicular score terms, and the next
square's cross-check). For each anchor square of a line:

- if tiles follow the anchor on the right, every word through the anchor contains that run,
  so the walk starts on the run's last tile and reads the run backwards first (the GADDAG
  spells a word from any of its letters); the left part then only tries letters that
  continue a real word through the run, instead of finding out after the separator (on a
  mid-game this cut the work by four);
- ``gen_left`` is Gen for the squares from the anchor leftwards: it places each letter the
  GADDAG, the cross-check set and the rack allow, then does GoOn inline: take any run of
  board tiles further left, record a word that ends at the anchor (or at the run's end),
  cross the separator to the square after it, or keep going left. It may not place a tile
  on an earlier anchor, which is what makes every move come from exactly one anchor (the
  leftmost anchor it covers);
- ``gen_right`` does the same rightwards after the separator, taking any run of board
  tiles after each placed letter.

GoOn is folded into Gen's loop, so there is one Python call per square, and a call is made
only when one of the letters the GADDAG allows next fits the next square and the rack (one
``&`` of three masks). The natural tiles are tried first, then the blank for each letter it
may stand for, in the same loop body. With one or two blanks, a blank is only tried for
letters the rack has no tile of left, so each placement is walked once, and the other
choices of which tiles are the blanks are listed when a word is found (``with_blanks``).

The score travels through the recursion as three ints (wolges' accumulator): ``main`` the
main word's letter sum, ``mult`` its word multiplier, ``cross`` the sum of completed
cross-words. Rack letters are counts plus a bitmask of the letters present. Nothing is
allocated until a word is accepted.

A raw move is a tuple ``(score, down, line, start, codes)``: the direction, the row (across)
or column (down), the first square of the main word along the line, and the codes of the
main word's squares (board tiles included; ``BLANK_BIT`` marks blanks).
"""

from __future__ import annotations

import gc

from solver_cli.engine.alphabet import ALL_LETTERS, BLANK_BIT, LETTER_MASK
from solver_cli.engine.board import Board, anchors
from solver_cli.engine.crosscheck import cross_checks
from solver_cli.engine.gaddag import BELOW, FINAL, Gaddag
from solver_cli.engine.rules import Rules

BIT = tuple(1 << code for code in range(32))  # preallocated: taking a letter's bit allocates nothing
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
        if board.is_empty() and _mirror_symmetric(rules):
            # Every opening move down is an opening move across mirrored in the diagonal
            # through the centre, with the same score: find the across ones only. (A
            # move's line and start number the same squares in both directions.)
            masks, cross_scores = cross_checks(board, gaddag, rules.values, False)
            _generate_direction(board, list(rack), gaddag, rules, False, anchor_flags, masks, cross_scores, moves)
            moves += [(score, True, line, start, codes) for score, _, line, start, codes in moves]
        else:
            for down in (False, True):
                masks, cross_scores = cross_checks(board, gaddag, rules.values, down)
                _generate_direction(board, list(rack), gaddag, rules, down, anchor_flags, masks, cross_scores, moves)
    finally:
        if collecting:
            gc.enable()
    return moves


def _mirror_symmetric(rules: Rules) -> bool:
    """The layout and the centre are unchanged by swapping rows and columns."""
    n = rules.rows
    if rules.cols != n or rules.centre[0] != rules.centre[1]:
        return False
    lm, wm = rules.letter_mult, rules.word_mult
    return all(lm[r * n + c] == lm[c * n + r] and wm[r * n + c] == wm[c * n + r] for r in range(n) for c in range(r))


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
    extend = moves.extend
    bits0 = 0
    for code in range(1, 27):
        if rack[code]:
            bits0 |= 1 << code

    # Per-line data (see line_tables), rebound for each line and read by gen_left and
    # gen_right as free variables: closures over the line are the fast path in CPython, so
    # the recursion stays nested here rather than taking a context argument per call.
    tiles: list[int] = []
    left_square: list[tuple[int, int, int, int, int, int, int]] = []
    right_square: list[tuple[int, int, int, int, int, int, int]] = []
    check: list[int] = []
    face: list[int] = []
    strip: list[int] = []  # the codes of the word being built
    single_elsewhere: list[bool] = []
    line = 0
    after_run = 0  # the square after the anchor and the tiles that follow it
    turn_check = 0  # the cross-check of that square (0 past the edge)

    # One or two blanks. Placing a blank for a letter the rack still holds a tile of would
    # walk the same words again, so the search places blanks only for letters the rack has
    # no tile of left, and at each word found with_blanks() lists the other choices of
    # which tiles are the blanks. (With more blanks the search places them freely.)
    few_blanks = 0 < rack[0] <= 2
    held_blanks = rack[0]
    swappable = 0  # blanks on the path for a letter the rack held too (they may swap)

    def with_blanks(first: int, end: int, mult: int, score: int) -> None:
        """Add the word in strip[first:end] once per valid choice of blank tiles."""
        codes = strip[first:end]
        spots = []  # (index in codes, what the tile adds to the score as a natural tile)
        need = []  # the letters the path's blanks stand for: each needs a blank on its tiles
        for i in range(end - first):
            if not tiles[first + i]:
                code = codes[i]
                terms = left_square[first + i]
                w = values[code & 31] * terms[1] * (mult + terms[4])
                if code & BLANK_BIT:  # score it as a natural tile; blanks are chosen below
                    score += w
                    codes[i] = code & 31
                    need.append(code & 31)
                spots.append((i, w))
        extend(blank_variants(codes, spots, need, held_blanks, (score, down, line, first)))

    def gen_left(pos: int, state: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen at the empty square ``pos`` (the anchor or left of it), then GoOn leftwards."""
        nonlocal swappable
        mask = g[state]
        allowed_here, lm, wm, base, xm, left_check, tile_on_left = left_square[pos]
        allowed = mask & allowed_here
        arcs = state + 1
        mult *= wm
        cross += base
        placed += 1
        bonus = bingo if placed == rack_size else 0
        lone = placed == 1 and single_elsewhere[pos]  # (a lone tile is reported across only)
        blank = rack[0]
        # The natural tiles first, then the blank for each letter it may stand for.
        letters = allowed & bits
        as_blank = False
        while True:
            if not letters:
                if as_blank:
                    rack[0] += 1
                    return
                if not blank:
                    return
                as_blank = True
                letters = allowed & ~bits if few_blanks else allowed
                rack[0] -= 1
                blank -= 1
                continue
            code = letters.bit_length() - 1
            letters ^= BIT[code]
            child = g[arcs + (mask & BELOW[code]).bit_count()]
            new_main = main
            # GoOn: first take the run of board tiles directly on the left, if any.
            first = pos
            further = left_check
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
                    continue
                further = 0  # the square left of the run is an anchor, an earlier one
            c_mask = g[child]
            if as_blank:
                value = 0
                strip[pos] = code | BLANK_BIT
            else:
                value = values[code] * lm
                strip[pos] = code
            new_main += value
            if c_mask >= FINAL and not lone:  # FINAL is the header's highest bit
                if few_blanks and (rack[0] or swappable or as_blank and BIT[code] & bits0):
                    with_blanks(first, after_run, mult, new_main * mult + cross + value * xm + bonus)
                else:
                    add(
                        (new_main * mult + cross + value * xm + bonus, down, line, first, tuple(strip[first:after_run]))
                    )
            # Go on only where a letter the GADDAG allows next fits the next square.
            turned = g[child + 1] if c_mask & 1 and turn_check else 0
            further &= c_mask
            if turned or further:
                if as_blank:  # (the blank is off the rack for the whole blank loop)
                    next_bits = bits
                else:
                    rack[code] -= 1
                    next_bits = bits if rack[code] else bits ^ BIT[code]
                fits = next_bits | (ALL_LETTERS if blank else 0)
                if as_blank:
                    saved = swappable
                    if BIT[code] & bits0:
                        swappable += 1
                # The separator: turn right, after the anchor's run.
                if turned and g[turned] & turn_check & fits:
                    gen_right(after_run, turned, first, new_main, mult, cross + value * xm, placed, next_bits)
                if further & fits:
                    gen_left(first - 1, child, new_main, mult, cross + value * xm, placed, next_bits)
                if as_blank:
                    swappable = saved
                else:
                    rack[code] += 1

    def gen_right(pos: int, state: int, first: int, main: int, mult: int, cross: int, placed: int, bits: int) -> None:
        """Gen at the empty square ``pos`` right of the anchor, then GoOn rightwards."""
        nonlocal swappable
        mask = g[state]
        allowed_here, lm, wm, base, xm, end, next_check = right_square[pos]
        allowed = mask & allowed_here
        run = pos + 1 != end  # tiles follow pos
        arcs = state + 1
        mult *= wm
        cross += base
        placed += 1
        bonus = bingo if placed == rack_size else 0
        blank = rack[0]
        letters = allowed & bits
        as_blank = False
        while True:
            if not letters:
                if as_blank:
                    rack[0] += 1
                    return
                if not blank:
                    return
                as_blank = True
                letters = allowed & ~bits if few_blanks else allowed
                rack[0] -= 1
                blank -= 1
                continue
            code = letters.bit_length() - 1
            letters ^= BIT[code]
            child = g[arcs + (mask & BELOW[code]).bit_count()]
            new_main = main
            # GoOn: a run of tiles on the right must be taken; then the word may end or go on.
            if run:
                for p in range(pos + 1, end):
                    t_code = tiles[p] & 31
                    t_mask = g[child]
                    if not t_mask & BIT[t_code]:
                        child = -1
                        break
                    child = g[child + 1 + (t_mask & BELOW[t_code]).bit_count()]
                    new_main += face[p]
                if child < 0:
                    continue
            c_mask = g[child]
            further = c_mask & next_check
            if c_mask < FINAL and not further:
                continue
            if as_blank:
                value = 0
                strip[pos] = code | BLANK_BIT
            else:
                value = values[code] * lm
                strip[pos] = code
            new_main += value
            if c_mask >= FINAL:
                if few_blanks and (rack[0] or swappable or as_blank and BIT[code] & bits0):
                    with_blanks(first, end, mult, new_main * mult + cross + value * xm + bonus)
                else:
                    add((new_main * mult + cross + value * xm + bonus, down, line, first, tuple(strip[first:end])))
            if further:
                if as_blank:
                    if further & (bits | (ALL_LETTERS if blank else 0)):
                        saved = swappable
                        if BIT[code] & bits0:
                            swappable += 1
                        gen_right(end, child, first, new_main, mult, cross + value * xm, placed, bits)
                        swappable = saved
                else:
                    rack[code] -= 1
                    next_bits = bits if rack[code] else bits ^ BIT[code]
                    if further & (next_bits | (ALL_LETTERS if blank else 0)):
                        gen_right(end, child, first, new_main, mult, cross + value * xm, placed, next_bits)
                    rack[code] += 1

    squares = board.squares
    layout_lm = rules.letter_mult
    layout_wm = rules.word_mult
    for line in range(line_count):
        index = [p * cols + line for p in range(n)] if down else [line * cols + p for p in range(n)]
        line_anchors = [p for p, i in enumerate(index) if anchor_flags[i]]
        if not line_anchors:
            continue
        tiles, check, face, single_elsewhere, run_end, left_square, right_square = line_tables(
            index, squares, anchor_flags, masks, cross_scores, values, layout_lm, layout_wm, down
        )
        strip = list(tiles)
        for anchor in line_anchors:
            # Read the anchor's run of right-hand tiles backwards, from its last tile.
            after_run = run_end[anchor + 1] if anchor + 1 < n else n
            turn_check = check[after_run] if after_run < n else 0
            state = gaddag.walk(root, [tiles[p] & LETTER_MASK for p in range(after_run - 1, anchor, -1)])
            if state >= 0:
                gen_left(anchor, state, sum(face[anchor + 1 : after_run]), 1, 0, 0, bits0)


LineTables = tuple[
    list[int],  # tiles: the square codes along the line
    list[int],  # check: each square's cross-check mask
    list[int],  # face: board tiles' face values (0 for blanks and empty squares)
    list[bool],  # single_elsewhere: down only, a lone tile here was already found across
    list[int],  # run_end: the first empty square at or after each square (n: none)
    list[tuple[int, int, int, int, int, int, int]],  # left_square: what gen_left reads per square
    list[tuple[int, int, int, int, int, int, int]],  # right_square: what gen_right reads per square
]


def line_tables(
    index: list[int],
    squares: list[int],
    anchor_flags: list[bool],
    masks: list[int],
    cross_scores: list[int],
    values: tuple[int, ...],
    layout_lm: tuple[int, ...],
    layout_wm: tuple[int, ...],
    down: bool,
) -> LineTables:
    """What Gen needs along one line (``index``: the board squares of the line, in order),
    prepared once per line so the recursion does one tuple lookup per square.

    Per square: (cross-check mask, letter mult, word mult, cross base, cross mult, ...) where
    the base is the perpendicular tiles' sum times the word multiplier and the cross
    multiplier is the word multiplier, both 0 when no cross-word forms there; then
    leftwards (``left_square``): the cross-check of the square on the left, or 0 if the left
    part may not go there, and whether a tile is on the left; rightwards (``right_square``):
    the square after the tiles that follow, and its cross-check or 0.
    """
    n = len(index)
    tiles = [squares[i] for i in index]
    check = [masks[i] for i in index]
    is_anchor = [anchor_flags[i] for i in index]
    face = [values[t] if t and not t & BLANK_BIT else 0 for t in tiles]
    single_elsewhere = [down and cross_scores[i] >= 0 for i in index]
    run_end = [0] * (n + 1)
    run_end[n] = n
    for p in range(n - 1, -1, -1):
        run_end[p] = run_end[p + 1] if tiles[p] else p
    left_square = []
    right_square = []
    for p, i in enumerate(index):
        lm, wm, s = layout_lm[i], layout_wm[i], cross_scores[i]
        terms = (masks[i], lm, wm, s * wm, wm) if s >= 0 else (masks[i], lm, wm, 0, 0)
        # The left part may not fill an earlier anchor: each move comes from its leftmost.
        left_open = p > 0 and not tiles[p - 1] and not is_anchor[p - 1]
        left_square.append(terms + (check[p - 1] if left_open else 0, p > 0 and tiles[p - 1]))
        end = run_end[p + 1] if p + 1 < n else n
        right_square.append(terms + (end, check[end] if end < n else 0))
    return tiles, check, face, single_elsewhere, run_end, left_square, right_square


def blank_variants(
    codes: list[int],
    spots: list[tuple[int, int]],
    need: list[int],
    held_blanks: int,
    found: tuple[int, bool, int, int],
) -> list[RawMove]:
    """Every valid choice of which placed tiles are the blanks, for a word found with blanks
    placed only for letters the rack had no tile of left.

    ``codes``: the word's codes as natural tiles; ``spots``: (index, natural-tile score) of
    each placed tile; ``need``: the letters the walk's blanks stood for (each needs a blank
    on one of its tiles); ``held_blanks``: blanks on the rack (1 or 2); ``found``: (score as
    natural tiles, down, line, start). Returns the raw moves, one per choice."""
    score, down, line, first = found
    moves: list[RawMove] = []
    if not need:
        moves.append((score, down, line, first, tuple(codes)))
    if len(need) < 2:  # one blank, on any tile, or on a tile of the needed letter
        for i, w in spots:
            if not need or codes[i] == need[0]:
                variant = codes[:]
                variant[i] |= BLANK_BIT
                moves.append((score - w, down, line, first, tuple(variant)))
    if held_blanks < 2:
        return moves
    # Two blanks: every pair of tiles that covers the needed letters.
    for x in range(len(spots)):
        i, wi = spots[x]
        for y in range(x + 1, len(spots)):
            j, wj = spots[y]
            if need:
                pair = (codes[i], codes[j])
                if len(need) == 1:
                    if need[0] not in pair:
                        continue
                elif sorted(pair) != sorted(need):
                    continue
            variant = codes[:]
            variant[i] |= BLANK_BIT
            variant[j] |= BLANK_BIT
            moves.append((score - wi - wj, down, line, first, tuple(variant)))
    return moves

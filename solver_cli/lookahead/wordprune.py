"""Word pruning for the endgame (MAGPIE's word_prune): a GADDAG of only the words the tiles
of both racks could ever form on the board, for the whole search.

Every word an endgame move forms, main word or cross-word, lies in one line: a run of
squares whose board letters stay where they are and whose other squares hold tiles of the
two racks (placed by this move or an earlier one), at least one, with no board letter just
before or after the run. Walking the lexicon's DAWG along every line, from every square not
just after a board letter, matching the board letters and spending the tiles (a blank for
a letter no tile is left for) on empty squares, finds a superset of those words. A search
on their GADDAG (a few thousand words) finds exactly the moves and scores it finds on the
whole lexicon, with a quarter to a third less time per node (docs/endgame.md).

``native/wordprune.c`` is the same walk in C; both stop past the same bound of arcs
followed, and then the whole lexicon is kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import LETTER_MASK
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import FINAL, LETTER_BITS, Gaddag
from solver_cli.lexicon.build import build_gaddag

if TYPE_CHECKING:
    from solver_cli.engine import _movegen_c
else:
    _movegen_c = movegen._movegen_c  # None where the native engine is not built

MAX_STEPS = 20_000_000  # arcs followed (PRUNE_MAX_STEPS in wordprune.c)


class _TooBig(Exception):
    pass


def possible_words(board: Board, tiles: list[int], gaddag: Gaddag, engine: str | None = None) -> list[str] | None:
    """The words (sorted, unique) that ``tiles`` (27 counts, index 0 the blanks) could form
    on ``board``, or None when the walk goes past its bound. ``engine``: "native" (the
    default where it is built) or "python"."""
    if engine != "python" and _movegen_c is not None:
        found = _movegen_c.possible_words(
            movegen.native_lexicon(gaddag), bytes(board.squares), board.rows, board.cols, bytes(tiles)
        )
        return None if found is None else sorted(set(found.decode("ascii").split()))
    try:
        return sorted(_walk_lines(board, tiles, gaddag))
    except _TooBig:
        return None


def pruned_gaddag(board: Board, tiles: list[int], gaddag: Gaddag, engine: str | None = None) -> Gaddag:
    """The GADDAG of ``possible_words`` (``gaddag`` itself when the walk was too big)."""
    if max(tiles, default=0) > 255:  # (no endgame holds so many: not worth a walk)
        return gaddag
    words = possible_words(board, tiles, gaddag, engine)
    if words is None:
        return gaddag
    return build_gaddag(words)


def _walk_lines(board: Board, tiles: list[int], gaddag: Gaddag) -> set[str]:
    rows, cols, squares = board.rows, board.cols, board.squares
    lines = [[squares[r * cols + c] & LETTER_MASK for c in range(cols)] for r in range(rows)]
    lines += [[squares[r * cols + c] & LETTER_MASK for r in range(rows)] for c in range(cols)]
    nodes = gaddag.nodes
    counts = list(tiles)
    found: set[str] = set()
    word: list[int] = []
    steps = 0
    walked: set[tuple[int, ...]] = set()  # the rests of lines already walked: the same words

    def walk(line: list[int], k: int, state: int, placed: bool) -> None:
        nonlocal steps
        n = len(line)
        if k == n:
            return
        mask = nodes[state]
        fixed = line[k]
        todo = mask & (1 << fixed) if fixed else mask & LETTER_BITS
        while todo:
            bit = todo & -todo
            todo ^= bit
            letter = bit.bit_length() - 1
            spent = -1
            if not fixed:
                if counts[letter]:
                    spent = letter  # a tile of the letter rather than a blank: never worse
                elif counts[0]:
                    spent = 0
                else:
                    continue
            steps += 1
            if steps > MAX_STEPS:
                raise _TooBig
            child = nodes[state + 1 + (mask & (bit - 1)).bit_count()]
            word.append(letter)
            now = placed or spent >= 0
            if spent >= 0:
                counts[spent] -= 1
            if now and nodes[child] & FINAL and (k + 1 == n or not line[k + 1]):
                found.add("".join(chr(64 + c) for c in word))
            walk(line, k + 1, child, now)
            if spent >= 0:
                counts[spent] += 1
            word.pop()

    for line in lines:
        for i in range(len(line)):
            if i and line[i - 1]:
                continue
            rest = tuple(line[i:])
            if rest in walked:
                continue
            walked.add(rest)
            walk(line, i, gaddag.dawg_root, False)
    return found

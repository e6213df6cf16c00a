"""Tile tracking and sanity checks of a position.

Unseen tiles are the rule set's distribution minus the tiles on the board and on the rack:
the bag plus the opponent's rack. The position check finds what is odd about a board that
parsed (islands of tiles, words not in the lexicon, more of a letter than the set holds, a
board whose tiles miss the centre) so the CLI can warn without refusing to solve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK, LETTERS
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import LeaveTable, Valuation
from solver_cli.engine.notation import position_text, square_name
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError

VOWELS = frozenset("AEIOU")


class Unseen(NamedTuple):
    counts: tuple[int, ...]  # by code, index 0 = blanks; never negative
    over: tuple[tuple[str, int, int], ...]  # (letter or "?", held, in the set) where held > set

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def vowels(self) -> int:
        return sum(self.counts[i] for i in range(1, 27) if LETTERS[i - 1] in VOWELS)

    @property
    def consonants(self) -> int:
        return self.total - self.vowels - self.counts[BLANK]

    def text(self) -> str:
        """``AAB?`` style: letters in order, blanks last."""
        return "".join(LETTERS[i - 1] * self.counts[i] for i in range(1, 27)) + "?" * self.counts[BLANK]


def unseen_tiles(board: Board, rack: list[int], rules: Rules) -> Unseen:
    held = list(rack)
    for sq in board.squares:
        if sq:
            held[BLANK if sq & BLANK_BIT else sq & LETTER_MASK] += 1
    counts = []
    over = []
    for code in range(27):
        left = rules.counts[code] - held[code]
        if left < 0:
            over.append(("?" if code == BLANK else LETTERS[code - 1], held[code], rules.counts[code]))
        counts.append(max(0, left))
    return Unseen(tuple(counts), tuple(over))


def check_opponent_tiles(opponent_rack: list[int] | None, unseen: list[int], opponent_size: int) -> list[int]:
    """The known tiles of the opponent's rack as 27 counts (none: all zero), refused when
    they are not among the unseen tiles or more than its rack holds."""
    if opponent_rack is None:
        return [0] * len(unseen)
    if len(opponent_rack) != len(unseen) or any(type(n) is not int or n < 0 for n in opponent_rack):
        raise InputError(f"the opponent's rack must be {len(unseen)} counts of at least 0, not {list(opponent_rack)!r}")
    if sum(opponent_rack) > opponent_size:
        raise InputError(f"the opponent's rack has {sum(opponent_rack)} tiles; it holds at most {opponent_size}")
    for code, (n, u) in enumerate(zip(opponent_rack, unseen, strict=True)):
        if n > u:
            tile = "?" if code == 0 else chr(64 + code)
            raise InputError(
                f"the opponent's rack holds {n} {tile}, but only {u} {'is' if u == 1 else 'are'} unseen "
                "(not on the board or your rack)"
            )
    return list(opponent_rack)


def valuation_for(board: Board, rack: list[int], rules: Rules, leaves: LeaveTable | None) -> Valuation:
    """How to value the moves of a position seen from one side: the unseen tiles are the
    bag plus the opponent's rack, which is taken to be full while the bag has tiles. So the
    bag holds ``unseen - rack_size`` tiles; with none, the opponent holds every unseen tile
    (whose face value the end-of-game adjustment needs). Exchanges need the rules' bag;
    the pass is always a candidate. ``leaves`` None ranks by score."""
    unseen = unseen_tiles(board, rack, rules)
    bag = max(0, unseen.total - rules.rack_size)
    opponent = sum(n * rules.values[code] for code, n in enumerate(unseen.counts) if code) if bag == 0 else 0
    exchange = rules.exchange_max if bag >= rules.exchange_min_bag else 0
    return Valuation(leaves, bag=bag, opponent=opponent, exchange=exchange, passes=True)


def position_warnings(
    board: Board, rack: list[int], rules: Rules, contains: Callable[[str], bool], lexicon: str
) -> list[str]:
    """What is odd about the position, one sentence each (empty when all is well)."""
    found = []
    squares = board.squares
    cols = board.cols
    tiles = [i for i, sq in enumerate(squares) if sq]
    if tiles:
        centre = rules.centre[0] * cols + rules.centre[1]
        if not squares[centre]:
            found.append(f"no tile covers the centre square {square_name(*rules.centre)}")
        islands = _islands(board, tiles)
        if len(islands) > 1:
            main = max(islands, key=len)
            for island in islands:
                if island is not main:
                    first = min(island)
                    found.append(
                        f"tiles at {square_name(first // cols, first % cols)} "
                        "are not connected to the rest of the board"
                    )
    bad = [(w, r, c, d) for w, r, c, d in board.words() if not contains(w)]
    for word, r, c, down in bad:
        found.append(
            f"the word {word} at {position_text(r, c, down)} {'down' if down else 'across'} is not in {lexicon}"
        )
    for letter, held, in_set in unseen_tiles(board, rack, rules).over:
        name = "blanks" if letter == "?" else f"{letter}s"
        found.append(f"board and rack hold {held} {name}, more than the {in_set} in the {rules.name} set")
    return found


def _islands(board: Board, tiles: list[int]) -> list[set[int]]:
    rows, cols, squares = board.rows, board.cols, board.squares
    seen: set[int] = set()
    islands = []
    for start in tiles:
        if start in seen:
            continue
        island = {start}
        stack = [start]
        seen.add(start)
        while stack:
            i = stack.pop()
            r, c = divmod(i, cols)
            for j, ok in ((i - 1, c > 0), (i + 1, c + 1 < cols), (i - cols, r > 0), (i + cols, r + 1 < rows)):
                if ok and squares[j] and j not in seen:
                    seen.add(j)
                    island.add(j)
                    stack.append(j)
        islands.append(island)
    return islands

"""Leave values and equity: what a move is worth beyond its score.

A move's equity is its score plus the value of the tiles it keeps (its *leave*): the points
the next turns are expected to gain or lose because of those tiles, relative to an average
leave. The engines of the field (Quackle, Macondo, MAGPIE, wolges) all rank moves this way.

Leaves are multisets of 0 to ``MAX_LEAVE`` tiles (27 codes: 0 the blank, 1..26 A..Z). A
``LeaveTable`` holds one value per multiset, in thousandths of a point, at the multiset's
``leave_index``: leaves of fewer tiles first, then the combinatorial number system on the
sorted tiles (the i-th tile, counted from 1, with code c adds C(c + i - 1, i)). The table is
dense (1,107,568 entries for 6-tile leaves, 2.2 MB as int16 hundredths of a point), so a
value is one array read, in Python and in the native engine alike (``native/leaves.c`` has the
same index).

Equity is computed in integers, thousandths of a point (``score * 1000 + leave``), so that
it is exact and ranks identically in both engines; a stored value (hundredths) counts ten.

End of game (the bag empty): a leave has no future, so the static adjustments of Macondo and
wolges replace the table, with the rule set's end factors. A move that goes out gains
``out_gain + out_loss`` times the face value of the opponent's rack (the player gains
``out_gain`` times it and the opponent loses ``out_loss`` times it: twice it in every shipped
rule set); a move that does not go out pays the same multiple of the face value of the tiles
it keeps plus ``NOT_OUT_PENALTY`` (10 points: the opponent may go out next, with those tiles
on this rack). ``stuck_loss`` does not enter: one move cannot see the scoreless turns that
would end the game (the endgame search does). With 1 to 6 tiles in the bag the table's value applies in full, as in the
midgame: the tiles kept still decide the next rack, and the exchange that would throw a bad
leave away is no longer allowed, which the table cannot know; the ranking does not search
the pre-endgame (docs/equity.md), ``lookahead.peg`` does.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from math import comb
from typing import TYPE_CHECKING, Any, NamedTuple

from solver_cli.engine.alphabet import ALPHABET_SIZE

if TYPE_CHECKING:
    from solver_cli.engine.rules import Rules

CODES = ALPHABET_SIZE + 1  # the blank and A..Z
MAX_LEAVE = 6  # leaves of a 7-tile rack; longer ones (a pass keeps 7) use the fallback
SCALE = 1000  # equity is counted in thousandths of a point
STEP = 10  # a table stores hundredths of a point: ten thousandths each
NOT_OUT_PENALTY = 10  # points, with an empty bag, for a move that does not go out
# LEAVE_OFFSET[k]: the index of the first leave of k tiles; the last entry is the table size.
LEAVE_OFFSET = tuple(sum(comb(CODES - 1 + j, j) for j in range(k)) for k in range(MAX_LEAVE + 2))
TABLE_SIZE = LEAVE_OFFSET[MAX_LEAVE + 1]  # 1,107,568


def leave_index(counts: list[int] | tuple[int, ...] | bytes) -> int:
    """The index of the leave ``counts`` (27 counts) in a leave table; -1 when it holds more
    than ``MAX_LEAVE`` tiles."""
    rank = 0
    i = 0
    for code in range(CODES):
        for _ in range(counts[code]):
            i += 1
            if i > MAX_LEAVE:
                return -1
            rank += comb(code + i - 1, i)
    return LEAVE_OFFSET[i] + rank


def leave_of_index(index: int) -> list[int]:
    """The leave (27 counts) at ``index``: the inverse of ``leave_index``."""
    if not 0 <= index < TABLE_SIZE:
        raise ValueError(f"leave index {index} out of range")
    size = max(k for k in range(MAX_LEAVE + 1) if LEAVE_OFFSET[k] <= index)
    return multiset_of_rank(index - LEAVE_OFFSET[size], size)


def multiset_of_rank(rank: int, size: int) -> list[int]:
    """The multiset of ``size`` tiles (27 counts) of rank ``rank`` among all of that size:
    greedy decoding of the combinatorial number system, largest tile first."""
    counts = [0] * CODES
    for i in range(size, 0, -1):
        b = i - 1
        while comb(b + 1, i) <= rank:
            b += 1
        rank -= comb(b, i)
        counts[b - (i - 1)] += 1
    return counts


@dataclass
class LeaveTable:
    """One value per leave of 0 to 6 tiles, in hundredths of a point (``values[leave_index]``;
    int16, so a leave is worth at most 327.67 points either way).

    ``name`` says where it came from (a shipped table's ``rules-lexicon``, or a file)."""

    values: array[int]  # typecode "h" (int16), TABLE_SIZE entries
    name: str = "leaves"
    info: dict[str, object] = field(default_factory=dict)  # the file's header: training figures
    native: Any = field(default=None, repr=False, compare=False)  # the native engine's checked copy

    def __post_init__(self) -> None:
        if self.values.typecode != "h" or len(self.values) != TABLE_SIZE:
            raise ValueError(f"a leave table holds {TABLE_SIZE:,} int16 values")

    @classmethod
    def zeros(cls, name: str = "zero") -> LeaveTable:
        return cls(array("h", bytes(2 * TABLE_SIZE)), name)

    def value(self, counts: list[int] | tuple[int, ...]) -> int:
        """The value of keeping ``counts``, in thousandths of a point. A leave of more than 6
        tiles (a pass keeps a whole rack) is valued as the mean of its 6-tile sub-leaves'
        values, each counted once, rounded towards zero (``fallback_value``)."""
        index = leave_index(counts)
        if index >= 0:
            return STEP * self.values[index]
        return fallback_value(self.values, counts)


def fallback_value(values: array[int], counts: list[int] | tuple[int, ...]) -> int:
    """The value of a leave of 7 tiles, in thousandths of a point: the mean over its distinct
    6-tile sub-leaves, rounded towards zero; 0 for longer ones (racks of custom rules, which
    no table covers). The native engine computes the same."""
    if sum(counts) > MAX_LEAVE + 1:
        return 0  # no table speaks for racks longer than 7 (custom rules): no value
    total = 0
    n = 0
    for sub in _sub_leaves(list(counts), MAX_LEAVE):
        total += STEP * values[leave_index(sub)]
        n += 1
    if n == 0:
        return 0
    mean = abs(total) // n  # rounded towards zero, as C's integer division
    return mean if total >= 0 else -mean


def _sub_leaves(counts: list[int], size: int) -> list[list[int]]:
    """Every distinct sub-multiset of ``counts`` with ``size`` tiles, in odometer order."""
    found: list[list[int]] = []
    sub = [0] * CODES

    def walk(code: int, left: int) -> None:
        if left == 0:
            found.append(list(sub))
            return
        if code == CODES:
            return
        for take in range(min(counts[code], left), -1, -1):
            sub[code] = take
            walk(code + 1, left - take)
        sub[code] = 0

    walk(0, size)
    return found


class Valuation(NamedTuple):
    """How moves are ranked. Without ``leaves``, by score alone (today's greedy order).
    With them, by equity: score plus the leave's value, or with an empty bag (``bag == 0``)
    the end-of-game adjustments (see the module docstring), ``opponent`` being the face value
    of the opponent's rack.

    ``exchange`` is the most tiles one exchange may throw back (0: no exchanges, e.g. the
    bag holds fewer tiles than the rules require); ``passes``: the pass is a candidate."""

    leaves: LeaveTable | None = None
    bag: int = 100
    opponent: int = 0
    exchange: int = 0
    passes: bool = False

    @property
    def equity(self) -> bool:
        return self.leaves is not None

    def leave_term(self, kept: list[int] | tuple[int, ...], rules: Rules) -> int:
        """What keeping ``kept`` (27 counts) adds to a move's score, in thousandths of a point.
        With the bag empty the rule set's end factors count: going out moves ``out_gain +
        out_loss`` times the opponent's rack to the mover, and tiles kept risk the same
        multiple of their own face value when the opponent goes out next."""
        if self.leaves is None:
            return 0
        if self.bag > 0:
            return self.leaves.value(kept)
        out_factor = rules.out_gain + rules.out_loss
        if not any(kept):
            return out_factor * self.opponent * SCALE
        values = rules.values
        left = sum(n * values[code] for code, n in enumerate(kept) if code)
        return -(out_factor * left + NOT_OUT_PENALTY) * SCALE


SCORE = Valuation()


def exchanges(rack: list[int] | tuple[int, ...], most: int) -> list[tuple[int, ...]]:
    """Every distinct non-empty multiset of tiles that can be thrown back from ``rack`` (27
    counts), at most ``most`` tiles, as 27 counts each, in odometer order."""
    found: list[tuple[int, ...]] = []
    thrown = [0] * CODES

    def walk(code: int, size: int) -> None:
        if code == CODES:
            if size > 0:
                found.append(tuple(thrown))
            return
        for take in range(min(rack[code], most - size) + 1):
            thrown[code] = take
            walk(code + 1, size + take)
        thrown[code] = 0

    walk(0, 0)
    return found

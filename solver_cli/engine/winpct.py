"""Win-probability tables: P(the player to move wins | spread, tiles unseen), as MAGPIE's.

A table is a grid of cells: one column per number of tiles the player to move cannot see
(the bag and the opponent's rack: 0 to ``unseen_max``, the rule set's tile total less a
rack), and in each column one row per spread (the mover's score less the opponent's) from
``-spread_max`` to ``+spread_max`` in steps of ``spread_step`` points. A cell holds what
training counted there (``samples``: turns seen; ``wins``: in half-wins, 2 a win and 1 a
draw) and the smoothed probability (``values``, in thousandths), which is what lookups
read (``games.winpct`` trains and smooths; ``formats.winpctfile`` reads and writes files).

A lookup clamps the spread to the table's range (a lead of 500 reads as one of
``spread_max``, as in MAGPIE), interpolates linearly between the two rows around it (a
fractional spread, such as simulation's leaves give, as exactly as a whole one), and
refuses a number of unseen tiles outside the table. With no tile unseen the game is over and
the answer is exact: 1 for a lead, 0.5 for a tie, 0 behind.

Here, in the engine, so that everything that looks ahead (simulation) can read a table;
training lives in ``games.winpct``.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

from solver_cli.errors import InputError

SCALE = 1_000  # a value of SCALE is a probability of 1: values in tenths of a percent, finer than any table's error
MAX_SPREAD = 1_000  # the widest spread range a table may cover (either way)
MAX_SPREAD_STEP = 100
MAX_CELLS = 1_000_000  # rows x columns: 10 bytes each in memory and in a file


def spread_rows(spread_max: int, spread_step: int) -> int:
    """The rows of a table covering ``-spread_max..spread_max`` in steps of ``spread_step``."""
    return 2 * (spread_max // spread_step) + 1


@dataclass
class WinTable:
    """One cell per (tiles unseen, spread row), column by column: cell ``unseen * rows + row``
    is spread ``row * spread_step - spread_max`` with ``unseen`` tiles unseen."""

    spread_max: int
    spread_step: int
    unseen_max: int
    samples: array[int]  # typecode "I": turns counted in each cell
    wins: array[int]  # typecode "I": the movers' results there, in half-wins
    values: array[int]  # typecode "H": the smoothed P(win), SCALE = 1
    name: str = "winpct"
    info: dict[str, object] = field(default_factory=dict)  # the file's header: training figures

    def __post_init__(self) -> None:
        if not (1 <= self.spread_step <= MAX_SPREAD_STEP and 1 <= self.spread_max <= MAX_SPREAD):
            raise ValueError("a spread range of 1 to 1,000 points in steps of 1 to 100")
        if self.spread_max % self.spread_step or not 0 <= self.unseen_max < MAX_CELLS:
            raise ValueError("the spread range must be a whole number of steps")
        cells = self.rows * (self.unseen_max + 1)
        if cells > MAX_CELLS:
            raise ValueError(f"a table holds at most {MAX_CELLS:,} cells")
        for data, code in ((self.samples, "I"), (self.wins, "I"), (self.values, "H")):
            if data.typecode != code or len(data) != cells:
                raise ValueError(f"a table of {cells:,} cells needs {cells:,} values of each kind")

    @property
    def rows(self) -> int:
        return spread_rows(self.spread_max, self.spread_step)

    @property
    def cells(self) -> int:
        return self.rows * (self.unseen_max + 1)

    @classmethod
    def empty(cls, spread_max: int, spread_step: int, unseen_max: int, name: str = "winpct") -> WinTable:
        cells = spread_rows(spread_max, spread_step) * (unseen_max + 1)
        return cls(
            spread_max,
            spread_step,
            unseen_max,
            array("I", bytes(4 * cells)),
            array("I", bytes(4 * cells)),
            array("H", bytes(2 * cells)),
            name,
        )

    def row_of(self, spread: int) -> int:
        """The row whose spread is nearest ``spread`` (clamped to the table; a tie halfway
        between two rows goes to the higher): where training counts a turn."""
        clamped = max(-self.spread_max, min(self.spread_max, spread))
        return (clamped + self.spread_max + self.spread_step // 2) // self.spread_step

    def spread_of(self, row: int) -> int:
        return row * self.spread_step - self.spread_max

    def cell(self, spread: int, unseen: int) -> int:
        """The index of the cell that counts a turn at ``spread`` with ``unseen`` tiles unseen."""
        self.check_unseen(unseen)
        return unseen * self.rows + self.row_of(spread)

    def check_unseen(self, unseen: int) -> None:
        if not 0 <= unseen <= self.unseen_max:
            raise InputError(f"{unseen:,} tiles unseen: the table {self.name} covers 0 to {self.unseen_max:,}")


def win_probability(table: WinTable, spread: float, unseen: int) -> float:
    """P(the player to move wins), a draw counting half, with ``spread`` (its score less the
    opponent's; fractions of a point, such as a leave's, interpolate as whole points do) and
    ``unseen`` tiles it cannot see (bag and opponent's rack). The spread is clamped to the
    table's range and interpolated linearly between the rows around it; ``InputError`` for
    a spread that is not a finite number, or a number of unseen tiles outside the table. No
    tile unseen: the game is over, the answer exact."""
    if not isinstance(spread, int) and not (isinstance(spread, float) and math.isfinite(spread)):
        raise InputError(f"spread must be a finite number of points, not {spread!r}")
    table.check_unseen(unseen)
    if unseen == 0:
        return 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
    step = table.spread_step
    offset = max(0, min(2 * table.spread_max, spread + table.spread_max))
    row = int(offset // step)
    part = offset - row * step  # (exact for a whole spread: the integers' arithmetic as before)
    base = unseen * table.rows
    low = table.values[base + row]
    if part == 0:
        return low / SCALE
    high = table.values[base + row + 1]
    return (low * (step - part) + high * part) / (step * SCALE)

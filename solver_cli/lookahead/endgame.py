"""The exact endgame solver: with the bag empty both racks are known, and the best move is a
matter of search (negamax with alpha-beta, iterative deepening, a transposition table).

The contract every engine meets is in /work/endgame-spec.md (to become docs/endgame.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import Candidate
from solver_cli.engine.rules import Rules

# Why a search ended before its value was proven (None: proven).
PLIES, TIME, INTERRUPTED = "plies", "time", "interrupted"
DEFAULT_TT_MB = 256  # the transposition table's default size (fits 1 GB with room to spare)
MAX_TT_MB = 65_536
MAX_PLIES = 64


@dataclass(frozen=True)
class Step:
    """One move of the principal variation: who plays it (0 the mover, 1 the opponent), the
    move (a placement or the pass), its score, and both sides' points gained since the
    position (the mover's first) after it."""

    side: int
    move: Candidate
    score: int
    totals: tuple[int, int]


@dataclass(frozen=True)
class Ending:
    """How the principal variation's game ends: "out" (``side`` went out) or "scoreless"
    (the rule set's number of scoreless turns in a row), the end-of-game adjustments to
    each side (the mover's first) and both sides' final points gained."""

    reason: str
    side: int | None
    adjustments: tuple[int, int]
    totals: tuple[int, int]


@dataclass(frozen=True)
class RootValue:
    """A first move and its value: the final spread change from the mover's side."""

    move: Candidate
    value: int


@dataclass(frozen=True)
class EndgameResult:
    value: int  # the best first move's value
    best: tuple[RootValue, ...]  # the ``top`` best first moves, best first, exact when proven
    pv: tuple[Step, ...]  # from the best first move to the end of the game (or as far as known)
    ending: Ending | None  # None when the variation is cut before the end
    proven: bool
    stopped: str | None  # PLIES, TIME or INTERRUPTED when not proven
    depth: int  # plies searched in the last completed iteration
    nodes: int
    seconds: float
    engine: str


Progress = Callable[[int, int, int, Candidate | None], None]  # depth, nodes, value, best move


class EndgameStopped(KeyboardInterrupt):
    """Ctrl-C during a search: ``result`` holds the best found so far."""

    def __init__(self, result: EndgameResult):
        super().__init__("endgame search stopped")
        self.result = result


def solve_endgame(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    *,
    scoreless: int = 0,
    top: int = 1,
    plies: int | None = None,
    time_limit: float | None = None,
    tt_mb: int = DEFAULT_TT_MB,
    progress: Progress | None = None,
    engine: str | None = None,
) -> EndgameResult:
    """Solve the endgame where ``mover`` (27 counts) is to move against ``opponent``'s rack,
    the bag empty, after ``scoreless`` scoreless turns in a row."""
    raise NotImplementedError("issue #21: being built")

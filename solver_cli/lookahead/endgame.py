"""The exact endgame solver: with the bag empty both racks are known, and the best move is a
matter of search (negamax with alpha-beta, iterative deepening, a transposition table).

The value, the search and what every engine returns alike are in docs/endgame.md. This
module is the front (argument checks, the engine's choice, the result) and the pure-Python
twin of the native search (``native/endgame.c``): the readable specification, and what an
install without a C compiler uses. The twin asks the move generator (``engine.movegen``,
either engine) for each position's moves and plays and unplays them on one squares list.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import ALPHABET_SIZE, BLANK_BIT, LETTER_MASK, LETTERS
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import PASS, PLACE, Candidate, RawMove, rank_key
from solver_cli.engine.rules import MAX_RACK_SIZE, Rules
from solver_cli.errors import InputError
from solver_cli.lookahead.wordprune import pruned_gaddag

if TYPE_CHECKING:
    from solver_cli.engine import _movegen_c
else:
    _movegen_c = movegen._movegen_c  # None where the native engine is not built

ORDER_TILE_POINTS = 8  # the move ordering's points a tile placed (ORDER_TILE_POINTS in endgame.c)
DECIDE_TILE_POINTS = 30  # the same in decide_endgame's search (DECIDE_TILE_POINTS in endgame.c)
DEEPEN_STEP = 3  # iterative deepening's plies from one iteration to the next (DEEPEN_STEP in endgame.c)

# Why a search ended before its value was proven (None: proven).
PLIES, TIME, INTERRUPTED = "plies", "time", "interrupted"
DEFAULT_TT_MB = 256  # the transposition table's default size (fits 1 GB with room to spare)
MAX_TT_MB = 65_536
MAX_PLIES = 64
MAX_TOP = 1_000
MAX_SECONDS = 86_400.0
MAX_THRESHOLD = 1 << 61  # (as the native search's: beyond any value)


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
    pv: tuple[Step, ...]  # from the best first move to the end of the game (not proven: see _shown_variation)
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
    prune: bool = True,
) -> EndgameResult:
    """Solve the endgame where ``mover`` (27 counts) is to move against ``opponent``'s rack,
    the bag empty, after ``scoreless`` scoreless turns in a row. The search runs on the
    GADDAG of the words the two racks could form on the board (``wordprune``; same moves,
    less time a node) unless ``prune`` is False, for a ``gaddag`` pruned already.

    Raises ``InputError`` (one line naming the bad value) for arguments out of range, and
    ``EndgameStopped`` (holding the best found so far) on Ctrl-C."""
    _check_arguments(board, mover, opponent, rules, scoreless, top, plies, time_limit, tt_mb)
    chosen = _check_engine(engine)
    if prune:
        started = time.perf_counter()
        tiles = [a + b for a, b in zip(mover, opponent, strict=True)]
        gaddag = pruned_gaddag(board, tiles, gaddag)
        if time_limit is not None:  # (the limit is the whole solve's)
            time_limit = max(time_limit - (time.perf_counter() - started), 1e-6)
    if chosen == "native" and _movegen_c is not None and hasattr(_movegen_c, "endgame"):
        return _search_native(board, mover, opponent, gaddag, rules, scoreless, top, plies, time_limit, tt_mb, progress)
    # Until the native search is built (native/endgame.c), the native choice runs the twin
    # search; it still generates its moves with the native move generator, which is faster.
    return _search_python(
        board, mover, opponent, gaddag, rules, scoreless, top, plies, time_limit, tt_mb, progress, chosen
    )


@dataclass(frozen=True)
class Verdict:
    """Where an endgame's value lies against a threshold (``decide_endgame``): ``side`` -1
    below it, 0 the threshold itself, 1 above it. ``bound`` is the search's fail-soft value:
    the value is at most it (below), at least it (above), or it (the threshold). With
    ``proven`` False (cut by ``plies``, or by the time limit: then ``depth`` may be 0 and
    ``side`` says nothing) it is the verdict of the last iteration finished."""

    side: int
    bound: int
    proven: bool
    stopped: str | None
    depth: int
    nodes: int
    seconds: float
    engine: str


def decide_endgame(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    threshold: int,
    *,
    scoreless: int = 0,
    plies: int | None = None,
    time_limit: float | None = None,
    tt_mb: int = DEFAULT_TT_MB,
    engine: str | None = None,
    prune: bool = True,
) -> Verdict:
    """Whether the endgame's value (as ``solve_endgame``'s) is below ``threshold``, equal to
    it or above: Macondo's "first win". The pre-endgame asks only this (who wins a split),
    and a null window settles it far sooner than the value itself where the value is far
    from the threshold. The same search, iterations and arguments as ``solve_endgame``;
    Ctrl-C raises KeyboardInterrupt."""
    _check_arguments(board, mover, opponent, rules, scoreless, 1, plies, time_limit, tt_mb)
    _integer(threshold, "threshold", -MAX_THRESHOLD, MAX_THRESHOLD)
    chosen = _check_engine(engine)
    started = time.perf_counter()
    if prune:
        tiles = [a + b for a, b in zip(mover, opponent, strict=True)]
        gaddag = pruned_gaddag(board, tiles, gaddag)
        if time_limit is not None:
            time_limit = max(time_limit - (time.perf_counter() - started), 1e-6)
    if chosen == "native" and _movegen_c is not None and hasattr(_movegen_c, "endgame"):
        try:
            status, depth, nodes, bound = _movegen_c.endgame(
                *_native_position(board, mover, opponent, gaddag, rules, scoreless),
                plies or 0,
                1,
                float(time_limit or 0.0),
                tt_mb,
                None,
                threshold,
            )
        except ValueError as exc:
            raise InputError(f"the native endgame search refused its input: {exc}") from None
        stopped = _NATIVE_STOPS[status]
        if stopped == INTERRUPTED:
            raise KeyboardInterrupt
        engine_name = "native"
    else:
        deadline = None if time_limit is None else started + time_limit
        twin = _Twin(board, mover, opponent, gaddag, rules, scoreless, tt_mb, deadline, None, chosen)
        twin.tile_points = DECIDE_TILE_POINTS
        depth = bound = 0
        stopped = PLIES
        try:
            step = 1
            while plies is None or step <= plies:
                twin.depth = step
                found, complete = twin.negamax(0, scoreless, step, threshold - 1, threshold + 1)
                depth, bound = step, found
                if complete:
                    stopped = None
                    break
                if plies is not None and step >= plies:
                    break
                step = step + DEEPEN_STEP if plies is None else min(step + DEEPEN_STEP, plies)
        except _Stop:
            stopped = TIME
        nodes, engine_name = twin.nodes, "python"
    side = -1 if bound < threshold else 1 if bound > threshold else 0
    return Verdict(side, bound, stopped is None, stopped, depth, nodes, time.perf_counter() - started, engine_name)


# --- argument checks (the front's, before either engine) ----------------------------------


def _integer(value: object, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise InputError(f"{name} must be an integer from {low:,} to {high:,}, not {value!r}")
    return value


def _check_engine(engine: str | None) -> str:
    if engine is None:
        return movegen.chosen_engine()
    if engine not in movegen.ENGINES:
        raise InputError(f"engine must be one of {', '.join(movegen.ENGINES)}, not {engine!r}")
    if engine == "native" and not movegen.NATIVE_BUILT:
        raise InputError("engine native: the native engine is not built (it needs a C compiler at install time)")
    return engine


def _check_arguments(
    board: Board,
    mover: list[int],
    opponent: list[int],
    rules: Rules,
    scoreless: int,
    top: int,
    plies: int | None,
    time_limit: float | None,
    tt_mb: int,
) -> None:
    movegen.check_rules(rules)
    limit = rules.scoreless_turns
    _integer(top, "top", 1, MAX_TOP)
    if plies is not None:
        _integer(plies, "plies", 1, MAX_PLIES)
    if time_limit is not None and (
        type(time_limit) not in (int, float) or not math.isfinite(time_limit) or not 0 < time_limit <= MAX_SECONDS
    ):
        raise InputError(
            f"the time limit must be more than 0 and at most {MAX_SECONDS:,.0f} seconds, not {time_limit!r}"
        )
    _integer(tt_mb, "tt_mb (the transposition table's megabytes)", 1, MAX_TT_MB)
    if type(scoreless) is not int or not 0 <= scoreless < limit:
        raise InputError(
            f"scoreless turns already made must be an integer from 0 to {limit - 1} "
            f"(the {rules.name} rules end the game at {limit}), not {scoreless!r}"
        )
    if board.rows != rules.rows or board.cols != rules.cols or len(board.squares) != rules.rows * rules.cols:
        raise InputError(
            f"the board is {board.rows}x{board.cols} ({len(board.squares)} squares); "
            f"the {rules.name} board is {rules.rows}x{rules.cols}"
        )
    bad = next((i for i, code in enumerate(board.squares) if code not in movegen.VALID_SQUARES), None)
    if bad is not None:
        raise InputError(f"the board's square {bad} holds {board.squares[bad]!r}, not a tile code")
    for who, rack in (("the mover's", mover), ("the opponent's", opponent)):
        if len(rack) != ALPHABET_SIZE + 1 or not all(type(n) is int and n >= 0 for n in rack):
            raise InputError(f"{who} rack must be 27 non-negative integers: blanks first, then A..Z")
        if sum(rack) > MAX_RACK_SIZE:
            raise InputError(f"{who} rack has {sum(rack)} tiles; a rack holds at most {MAX_RACK_SIZE}")
        if not any(rack):
            raise InputError(f"{who} rack is empty: the game is over, there is no endgame to solve")
    held = [a + b for a, b in zip(mover, opponent, strict=True)]
    for code in board.squares:
        if code:
            held[0 if code & BLANK_BIT else code & LETTER_MASK] += 1
    for code, (have, in_set) in enumerate(zip(held, rules.counts, strict=True)):
        if have > in_set:
            noun = "blank" if code == 0 else f"{LETTERS[code - 1]} tile"
            plural = "" if have == 1 else "s"
            limit_text = f"the {in_set} in the {rules.name} set" if in_set else f"the {rules.name} set, which has none"
            raise InputError(f"the board and both racks hold {have} {noun}{plural}, more than {limit_text}")


# --- what both engines share: moves as candidates, the variation replayed -----------------

# The pass, as the twin's search holds it (a placement's raw move is never this object).
_PASS_RAW: RawMove = (0, False, 0, 0, ())
_PASS_MOVE = Candidate(0, 0, PASS, False, 0, 0, ())


def _candidate(raw: RawMove) -> Candidate:
    if raw is _PASS_RAW:
        return _PASS_MOVE
    score, down, line, start, codes = raw
    return Candidate(score, 0, PLACE, down, line, start, codes)


def _face(rack: list[int], values: tuple[int, ...]) -> int:
    return sum(n * values[code] for code, n in enumerate(rack) if n and code)


def _placed(squares: list[int], cols: int, move: Candidate | RawMove) -> list[tuple[int, int]]:
    """The (square, code) pairs a placement puts on the board (its main word's empty squares)."""
    if isinstance(move, Candidate):
        down, line, start, codes = move.down, move.line, move.start, move.codes
    else:
        _, down, line, start, codes = move
    i, step = (start * cols + line, cols) if down else (line * cols + start, 1)
    found = []
    for code in codes:
        if not squares[i]:
            found.append((i, code))
        i += step
    return found


def _shown_variation(
    board: Board,
    mover: list[int],
    opponent: list[int],
    rules: Rules,
    scoreless: int,
    moves: list[Candidate],
    proven: bool,
    depth: int,
    value: int,
) -> tuple[tuple[Step, ...], Ending | None]:
    """The variation to show (``_variation``): all of it when the value is proven. A cut
    search's value is an estimate, from the last iteration finished (``depth`` plies) or,
    for first moves the cut one valued, from that one (``DEEPEN_STEP`` deeper), and the
    table's moves deeper than the iteration that valued it come from another search: the
    line goes as deep as the cut iteration when it ends the game there with the value shown,
    else as deep as ``depth``, and stops short of an ending whose total is not the value."""
    if proven:
        return _variation(board, mover, opponent, rules, scoreless, moves)
    steps, ending = _variation(board, mover, opponent, rules, scoreless, moves[: depth + DEEPEN_STEP])
    if ending is not None and ending.totals[0] - ending.totals[1] == value:
        return steps, ending
    keep = max(depth, 1)
    if ending is not None and 1 < len(steps) <= keep:  # (an ending within it, with another total: its last step)
        return steps[:-1], None
    return steps[:keep], ending if len(steps) == 1 else None


def _variation(
    board: Board,
    mover: list[int],
    opponent: list[int],
    rules: Rules,
    scoreless: int,
    moves: list[Candidate],
) -> tuple[tuple[Step, ...], Ending | None]:
    """The principal variation's steps (running totals from (0, 0), the mover's first) and,
    when the moves reach the end of the game, how it ends."""
    squares = list(board.squares)
    racks = [list(mover), list(opponent)]
    totals = [0, 0]
    values = rules.values
    steps: list[Step] = []
    s = scoreless
    side = 0
    for move in moves:
        rack, other = racks[side], racks[1 - side]
        if move.kind == PLACE:
            for i, code in _placed(squares, board.cols, move):
                squares[i] = code
                rack[0 if code & BLANK_BIT else code] -= 1
        totals[side] += move.score
        steps.append(Step(side, move, move.score, (totals[0], totals[1])))
        if move.kind == PLACE and not any(rack):
            adjust = [0, 0]
            adjust[side] = rules.out_gain * _face(other, values)
            adjust[1 - side] = -rules.out_loss * _face(other, values)
            final = (totals[0] + adjust[0], totals[1] + adjust[1])
            return tuple(steps), Ending("out", side, (adjust[0], adjust[1]), final)
        s = s + 1 if move.score == 0 else 0
        if s >= rules.scoreless_turns:
            adjust = [-rules.stuck_loss * _face(racks[0], values), -rules.stuck_loss * _face(racks[1], values)]
            final = (totals[0] + adjust[0], totals[1] + adjust[1])
            return tuple(steps), Ending("scoreless", None, (adjust[0], adjust[1]), final)
        side = 1 - side
    return tuple(steps), None


# --- the pure-Python twin ----------------------------------------------------------------

_INF = 1 << 62
EXACT, LOWER, UPPER = 0, 1, 2
# What one table entry costs in memory, about: its key (the board and both racks as bytes,
# the count of scoreless turns) and its tuple; tt_mb bounds the entries by it.
_ENTRY_BYTES = 1280  # measured: about 1,100 bytes with tracemalloc on a 15x15 board
_PROGRESS_EVERY = 0.2  # seconds between progress calls inside an iteration
_UNLIMITED = 1 << 30  # a depth no endgame reaches: the principal variation's exact searches


class _Stop(Exception):
    """The time limit ran out (raised inside the search, caught by the iteration loop)."""


# A table entry: (depth searched, EXACT/LOWER/UPPER, value, best move, complete), complete
# when its subtree never reached a depth limit (then it is exact at any depth).
_Entry = tuple[int, int, int, RawMove | None, bool]


class _Twin:
    """The search's state: one squares list and two racks, played on and unplayed."""

    def __init__(
        self,
        board: Board,
        mover: list[int],
        opponent: list[int],
        gaddag: Gaddag,
        rules: Rules,
        scoreless: int,
        tt_mb: int,
        deadline: float | None,
        progress: Progress | None,
        engine: str,
    ):
        self.origin = (list(board.squares), list(mover), list(opponent))
        self.squares = list(board.squares)
        self.board = Board(board.rows, board.cols, self.squares)  # shares the list: moves see every play
        self.cols = board.cols
        self.racks = [list(mover), list(opponent)]
        self.gaddag = gaddag
        self.rules = rules
        self.values = rules.values
        self.limit = rules.scoreless_turns
        self.out_factor = rules.out_gain + rules.out_loss
        self.stuck = rules.stuck_loss
        self.scoreless = scoreless
        self.table: dict[tuple[bytes, bytes, bytes, int], _Entry] = {}
        self.table_size = max(1, tt_mb * (1 << 20) // _ENTRY_BYTES)
        self.deadline = deadline
        self.progress = progress
        self.engine = engine
        self.nodes = 0
        self.tile_points = ORDER_TILE_POINTS  # (decide_endgame's: DECIDE_TILE_POINTS)
        self.depth = 0  # the iteration under way
        self.next_report = time.perf_counter() + _PROGRESS_EVERY
        self.report: tuple[int, Candidate | None] = (0, None)  # the best value and move so far

    # -- the board ------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the root position (after a search stopped midway through a move)."""
        squares, mover, opponent = self.origin
        self.squares[:] = squares
        self.racks[0][:] = mover
        self.racks[1][:] = opponent

    def play(self, rack: list[int], placed: list[tuple[int, int]]) -> None:
        squares = self.squares
        for i, code in placed:
            squares[i] = code
            rack[0 if code & BLANK_BIT else code] -= 1

    def unplay(self, rack: list[int], placed: list[tuple[int, int]]) -> None:
        squares = self.squares
        for i, code in placed:
            squares[i] = 0
            rack[0 if code & BLANK_BIT else code] += 1

    def moves(self, rack: list[int]) -> list[RawMove]:
        return movegen.generate_moves(self.board, rack, self.gaddag, self.rules, self.engine)

    def static_order(self, rack: list[int]) -> list[tuple[RawMove, list[tuple[int, int]]]]:
        """The position's moves in the order every engine shares: placements that go out,
        then the others, each in rank order, then the pass."""
        tiles = sum(rack)
        outs: list[tuple[RawMove, list[tuple[int, int]]]] = []
        others: list[tuple[RawMove, list[tuple[int, int]]]] = []
        for raw in self.moves(rack):
            placed = _placed(self.squares, self.cols, raw)
            (outs if len(placed) == tiles else others).append((raw, placed))
        outs.sort(key=lambda m: rank_key(m[0]))
        others.sort(key=lambda m: rank_key(m[0]))
        return [*outs, *others, (_PASS_RAW, [])]

    # -- the clock ------------------------------------------------------------------------

    def tick(self) -> None:
        """One more node: stop at the deadline, report progress now and then. The clock is
        read at every node, since a node (a move generation) costs far more than a read."""
        self.nodes += 1
        now = time.perf_counter()
        if self.deadline is not None and now >= self.deadline:
            raise _Stop
        if self.progress is not None and now >= self.next_report:
            self.next_report = now + _PROGRESS_EVERY
            self.progress(self.depth, self.nodes, *self.report)

    # -- the search -----------------------------------------------------------------------

    def store(self, key: tuple[bytes, bytes, bytes, int], entry: _Entry) -> None:
        table = self.table
        if key not in table and len(table) >= self.table_size:
            del table[next(iter(table))]  # the oldest entry makes room: memory stays bounded
        table[key] = entry

    def negamax(self, side: int, s: int, depth: int, alpha: int, beta: int) -> tuple[int, bool]:
        """(the value for ``side`` to move, whether its subtree never reached a depth limit),
        fail-soft within (alpha, beta)."""
        self.tick()
        me, them = self.racks[side], self.racks[1 - side]
        key = (bytes(self.squares), bytes(me), bytes(them), s)
        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            e_depth, flag, value, table_move, complete = entry
            usable = complete or e_depth >= depth
            if usable and (flag == EXACT or (flag == LOWER and value >= beta) or (flag == UPPER and value <= alpha)):
                return value, complete
        if depth <= 0:
            return self.playout(side, s), False
        values = self.values
        face_them = _face(them, values)
        tiles = sum(me)
        start_alpha = alpha
        best, best_move, complete = -_INF, None, True
        others = []
        for raw in self.moves(me):
            placed = _placed(self.squares, self.cols, raw)
            if len(placed) == tiles:  # going out: its value needs no search
                value = raw[0] + self.out_factor * face_them
                if value > best:
                    best, best_move = value, raw
            else:
                others.append((raw, placed))
        if best > alpha:
            alpha = best
        if alpha < beta:
            # Early cut-offs: high first by score plus tile_points a tile placed (as the
            # native search, endgame.c's order_moves: emptying the rack is what counts).
            points = self.tile_points
            others.sort(key=lambda m: -(m[0][0] + points * len(m[1])))
            if table_move is not None and table_move is not _PASS_RAW:
                for k, (raw, _) in enumerate(others):
                    if raw == table_move:
                        others.insert(0, others.pop(k))
                        break
            others.append((_PASS_RAW, []))
            for raw, placed in others:
                score = raw[0]
                s2 = s + 1 if score == 0 else 0
                self.play(me, placed)
                try:
                    if s2 >= self.limit:  # the scoreless turns end the game
                        value = score - self.stuck * _face(me, values) + self.stuck * face_them
                        exact = True
                    else:
                        child, exact = self.negamax(1 - side, s2, depth - 1, score - beta, score - alpha)
                        value = score - child
                finally:
                    self.unplay(me, placed)
                if value > best:
                    best, best_move = value, raw
                    if value > alpha:
                        alpha = value
                        if alpha >= beta:
                            # a cut-off's lower bound rests on this move alone (as endgame.c)
                            complete = exact
                            break
                complete = complete and exact
        flag = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
        self.store(key, (depth, flag, best, best_move, complete))
        return best, complete

    def playout(self, side: int, s: int) -> int:
        """The horizon's estimate: both sides play their best-scoring placement (the pass when
        there is none) to the end of the game; the value for ``side``."""
        values = self.values
        played: list[tuple[list[int], list[tuple[int, int]]]] = []
        total, sign = 0, 1
        try:
            while True:
                self.tick()
                me, them = self.racks[side], self.racks[1 - side]
                _, found = movegen.ranked_moves(self.board, me, self.gaddag, self.rules, keep=1, engine=self.engine)
                score = 0
                if found:
                    score = found[0].score
                    placed = _placed(self.squares, self.cols, found[0])
                    self.play(me, placed)
                    played.append((me, placed))
                    if not any(me):
                        return total + sign * (score + self.out_factor * _face(them, values))
                total += sign * score
                s = s + 1 if score == 0 else 0
                if s >= self.limit:
                    return total + sign * self.stuck * (_face(them, values) - _face(me, values))
                side, sign = 1 - side, -sign
        finally:
            for rack, placed in reversed(played):
                self.unplay(rack, placed)

    def root_value(self, raw: RawMove, placed: list[tuple[int, int]], depth: int, alpha: int) -> tuple[int, bool]:
        """A first move's value searched to ``depth`` plies, fail-soft above ``alpha``."""
        me, them = self.racks
        score = raw[0]
        if placed and len(placed) == sum(me):
            return score + self.out_factor * _face(them, self.values), True
        s2 = self.scoreless + 1 if score == 0 else 0
        self.play(me, placed)
        try:
            if s2 >= self.limit:
                return score + self.stuck * (_face(them, self.values) - _face(me, self.values)), True
            child, exact = self.negamax(1, s2, depth - 1, -_INF, score - alpha)
            return score - child, exact
        finally:
            self.unplay(me, placed)

    def principal_moves(self, first: RawMove, value: int, proven: bool) -> list[Candidate]:
        """From ``first`` on: when proven, at each position the first move in static order
        whose exact value is the position's (null-window searches, the table warm); else the
        table's best moves as far as they go."""
        self.reset()
        line = [first]
        side, s = 0, self.scoreless
        raw = first
        placed = _placed(self.squares, self.cols, raw) if raw is not _PASS_RAW else []
        while True:
            me, them = self.racks[side], self.racks[1 - side]
            self.play(me, placed)
            score = raw[0]
            if placed and not any(me):
                return [_candidate(m) for m in line]
            s = s + 1 if score == 0 else 0
            if s >= self.limit:
                return [_candidate(m) for m in line]
            value = score - value  # the next position's value, for its side to move
            side = 1 - side
            me, them = them, me
            chosen = None
            if proven:
                for raw, placed in self.static_order(me):
                    if raw is not _PASS_RAW and len(placed) == sum(me):
                        found = raw[0] + self.out_factor * _face(them, self.values)
                    else:
                        s2 = s + 1 if raw[0] == 0 else 0
                        if s2 >= self.limit:
                            self.play(me, placed)
                            found = raw[0] + self.stuck * (_face(them, self.values) - _face(me, self.values))
                            self.unplay(me, placed)
                        else:
                            self.play(me, placed)
                            try:
                                bound = raw[0] - value
                                child, _ = self.negamax(1 - side, s2, _UNLIMITED, bound, bound + 1)
                            finally:
                                self.unplay(me, placed)
                            found = value if child <= bound else value - 1
                    if found == value:
                        chosen = (raw, placed)
                        break
            else:
                entry = self.table.get((bytes(self.squares), bytes(me), bytes(them), s))
                if entry is not None and entry[3] is not None:
                    raw = entry[3]
                    chosen = (raw, _placed(self.squares, self.cols, raw) if raw is not _PASS_RAW else [])
                    value = entry[2]
            if chosen is None or len(line) > 4 * MAX_RACK_SIZE * self.limit:
                return [_candidate(m) for m in line]
            raw, placed = chosen
            line.append(raw)


def _search_python(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    scoreless: int,
    top: int,
    plies: int | None,
    time_limit: float | None,
    tt_mb: int,
    progress: Progress | None,
    engine: str,
) -> EndgameResult:
    """The twin: negamax with alpha-beta, iterative deepening, a dict as transposition
    table, greedy playouts at the horizon (docs/endgame.md)."""
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    twin = _Twin(board, mover, opponent, gaddag, rules, scoreless, tt_mb, deadline, progress, engine)
    root = twin.static_order(twin.racks[0])
    finished: list[tuple[int, int]] = []  # (value, static index): the last completed iteration's best
    current: list[tuple[int, int]] = []
    depth_done = 0
    proven = False
    stopped: str | None = None
    try:
        depth = 1
        while True:
            twin.depth = depth
            current = []
            complete = True
            for index, (raw, placed) in enumerate(root):
                alpha = current[top - 1][0] if len(current) >= top else -_INF
                value, exact = twin.root_value(raw, placed, depth, alpha)
                complete = complete and exact
                if value > alpha:  # exact: it enters the best
                    current.append((value, index))
                    current.sort(key=lambda vi: (-vi[0], vi[1]))
                    del current[top:]
                    twin.report = (current[0][0], _candidate(root[current[0][1]][0]))
            finished, depth_done = current, depth
            if progress is not None:
                progress(depth, twin.nodes, *twin.report)
            if complete:
                proven = True
                break
            if plies is not None and depth >= plies:
                stopped = PLIES
                break
            depth = depth + DEEPEN_STEP if plies is None else min(depth + DEEPEN_STEP, plies)
    except _Stop:
        stopped = TIME
    except KeyboardInterrupt:
        stopped = INTERRUPTED
    if not proven and stopped != PLIES:
        # Cut midway through an iteration: its moves searched so far update the last one's.
        merged = {index: value for value, index in finished}
        merged.update((index, value) for value, index in current)
        finished = sorted(((v, i) for i, v in merged.items()), key=lambda vi: (-vi[0], vi[1]))[:top]
    if not finished:
        # Stopped before any first move was valued: the first in static order, valued at once
        # (going out: exact; else its score alone), so that stopping costs no more time.
        twin.reset()
        raw, placed = root[0]
        tiles_out = bool(placed) and len(placed) == sum(twin.racks[0])
        finished = [(raw[0] + (twin.out_factor * _face(twin.racks[1], twin.values) if tiles_out else 0), 0)]
    best = tuple(RootValue(_candidate(root[index][0]), value) for value, index in finished)
    value, first = finished[0][0], root[finished[0][1]][0]
    interrupted = stopped == INTERRUPTED
    try:
        twin.deadline = deadline if proven else None  # the table's line costs no search
        moves = twin.principal_moves(first, value, proven)
    except _Stop:  # out of time while proving the variation: the value stands, the line is cut
        moves = [_candidate(first)]
    except KeyboardInterrupt:
        moves, interrupted = [_candidate(first)], True
    pv, ending = _shown_variation(board, mover, opponent, rules, scoreless, moves, proven, depth_done, value)
    result = EndgameResult(
        value=value,
        best=best,
        pv=pv,
        ending=ending,
        proven=proven,
        stopped=stopped,
        depth=depth_done,
        nodes=twin.nodes,
        seconds=time.perf_counter() - started,
        engine="python",
    )
    if interrupted:  # (a proven value interrupted while its variation was being proven stays proven)
        raise EndgameStopped(result)
    return result


# --- the native search (native/endgame.c) --------------------------------------------------

_NATIVE_STOPS = {0: None, 1: PLIES, 2: TIME, 3: INTERRUPTED, 4: None}
_NATIVE_PROVEN_INTERRUPTED = 4  # proven, Ctrl-C while its variation was followed (the line cut)


def _native_position(
    board: Board, mover: list[int], opponent: list[int], gaddag: Gaddag, rules: Rules, scoreless: int
) -> tuple[_movegen_c.Lexicon, _movegen_c.Layout, bytes, bytes, bytes, int, int, int, int, int]:
    """``_movegen_c.endgame``'s first arguments: the word graph, the board and both racks,
    and the rule set's ending (both the solve and the verdict pass them alike)."""
    return (
        movegen.native_lexicon(gaddag),
        movegen._layout(rules),
        bytes(board.squares),
        bytes(mover),
        bytes(opponent),
        scoreless,
        rules.scoreless_turns,
        rules.out_gain,
        rules.out_loss,
        rules.stuck_loss,
    )


def _search_native(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    scoreless: int,
    top: int,
    plies: int | None,
    time_limit: float | None,
    tt_mb: int,
    progress: Progress | None,
) -> EndgameResult:
    """One call of ``_movegen_c.endgame``; its records decoded into the same result."""
    assert _movegen_c is not None
    started = time.perf_counter()
    report = None
    if progress is not None:
        callback = progress

        def report(depth: int, nodes: int, value: int, record: bytes | None) -> None:
            callback(depth, nodes, value, None if record is None else movegen.record_at(record, 0))

    try:
        status, depth, nodes, best, pv = _movegen_c.endgame(
            *_native_position(board, mover, opponent, gaddag, rules, scoreless),
            plies or 0,
            top,
            float(time_limit or 0.0),
            tt_mb,
            report,
        )
    except ValueError as exc:  # the front checked everything: a refusal here names what slipped through
        raise InputError(f"the native endgame search refused its input: {exc}") from None
    roots = tuple(RootValue(movegen.record_at(record, 0), value) for value, record in best)
    moves = [movegen.record_at(pv, k) for k in range(len(pv) // movegen.RECORD.size)]
    # (proven: a time limit or Ctrl-C that came while the variation was followed cut only it)
    proven = status in (0, _NATIVE_PROVEN_INTERRUPTED)
    steps, ending = _shown_variation(board, mover, opponent, rules, scoreless, moves, proven, depth, roots[0].value)
    stopped = _NATIVE_STOPS[status]
    result = EndgameResult(
        value=roots[0].value,
        best=roots,
        pv=steps,
        ending=ending,
        proven=proven,
        stopped=stopped,
        depth=depth,
        nodes=nodes,
        seconds=time.perf_counter() - started,
        engine="native",
    )
    if stopped == INTERRUPTED or status == _NATIVE_PROVEN_INTERRUPTED:
        raise EndgameStopped(result)
    return result

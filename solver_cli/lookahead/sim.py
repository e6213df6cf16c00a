"""Monte Carlo simulation: rank the best candidates by playing the game forward many times.

Equity is a one-move guess; a simulation plays each of the ``K`` best candidates by equity,
then ``plies`` replies where each side plays its best move by equity, over many random
draws, and ranks the candidates by the mean outcome (docs/sim.md says why each choice):

- **Common random numbers.** Iteration ``i`` draws one opponent rack and one order of the
  bag, and every candidate is played out against that same rack and those same draws
  (Macondo, MAGPIE, wolges): the differences between candidates then carry far less noise
  than their values. The opponent's rack is drawn from the unseen tiles, or is the given
  rack (completed at random from the unseen tiles when it is short of a full rack), or
  comes from a sampler the caller passes (opponent-rack inference plugs in there).
- **The outcome** of one play-out is the mover's points minus the opponent's over the
  candidate and the plies, plus the leave term of each side's last move (the mover's added,
  the opponent's subtracted): "the last two plies add their leaves", as Macondo and MAGPIE
  value the horizon. A leave term is what the move's equity added to its score (the leave
  table's value, or with the bag empty the end-of-game adjustment). A game that ends inside
  the plies (a side goes out with the bag empty, or the rule set's scoreless turns in a
  row) is scored exactly as self-play ends it, and no leave is added.
- **Win probability**, when the caller passes ``win_probability(spread, unseen)`` (the
  chance that the player to move wins with that spread, leaves included, and that many
  tiles unseen by it): each play-out's outcome becomes that chance for the mover, exact (1,
  1/2 or 0) when the game ended.
- **Stopping** is Macondo's rule (``prune``): every ``check_every`` iterations a candidate
  whose upper confidence bound is below the leader's lower bound is dropped, the bounds
  ``mean +- c * stderr`` with ``c = sqrt(2 ln(K / delta))`` over the ``K`` candidates still
  in (a Bonferroni correction); the run stops when one candidate is left, or when its
  iterations or its time are spent.

Determinism: iteration ``i`` of a run seeded ``s`` draws from a generator seeded with a hash
of ``(s, i)``, and iterations are merged in iteration order, the stopping rule looking at
the same iterations whatever the schedule; so a seed gives the same standings on one
process or on many (``jobs``, on a pool of worker processes the caller provides: see
``WorkerPools``). Only a time limit makes a run depend on the machine.

The play-outs are ``lookahead/rollout.py``'s: in C (``engine/native/rollout.c``, every live
candidate of an iteration in one call) with the native engine, else in its Python twin, the
same numbers either way (docs/sim.md, "The draws, exactly").

This module never prints: ``simulate`` reports progress through a callback.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import SCALE, LeaveTable
from solver_cli.engine.movegen import Candidate, chosen_engine, ranked_moves
from solver_cli.engine.rules import Rules
from solver_cli.engine.unseen import check_opponent_tiles, unseen_tiles, valuation_for
from solver_cli.engine.winpct import WinTable, win_probability
from solver_cli.errors import InputError
from solver_cli.lookahead.rollout import Outcome, check_candidates, pack_candidates, play_outs

if TYPE_CHECKING:
    from solver_cli.lookahead.infer import Inference

CHECK_EVERY = 128  # iterations between stopping checks, and before a candidate may be dropped (Macondo)
STOP_LEVELS = (95, 98, 99)  # --stop: the confidence that the candidate left is the best
DEFAULT_CANDIDATES = 10
DEFAULT_PLIES = 2
MAX_PLIES = 20
MAX_CANDIDATES = 1000
MAX_ITERATIONS = 10_000_000

# Why a run ended.
CONFIDENT = "confident"  # one candidate left: the others are behind at the stop confidence
ITERATIONS = "iterations"  # the iteration budget is spent
TIME = "time"  # the time limit is spent
INTERRUPTED = "interrupted"  # Ctrl-C (or SIGTERM)
# The bag empty: the opponent holds every unseen tile and nothing is drawn, so every iteration
# plays out the same and one says all (ties at a standard error of 0 never separate: it ran on).
DETERMINED = "determined"
REASONS = (CONFIDENT, ITERATIONS, TIME, INTERRUPTED, DETERMINED)

# (random generator of the iteration, the unseen tiles as 27 counts) -> the opponent's rack
# (27 counts, a part of the unseen tiles; completed at random when it is short). Sent to
# worker processes: a function defined at a module's top level, or a picklable object.
OpponentSampler = Callable[[random.Random, tuple[int, ...]], list[int]]
# (spread of the player to move, leaves included; tiles unseen by it) -> its chance to win.
WinProbability = Callable[[float, int], float]


@dataclass(frozen=True)
class TableChance:
    """A ``WinProbability`` read from a win table (picklable, so workers get it): the
    spread, which carries the leaves' fractions of a point, interpolated as it is between
    the table's rows."""

    table: WinTable

    def __call__(self, spread: float, unseen: int) -> float:
        return win_probability(self.table, spread, unseen)


@dataclass(frozen=True)
class InferredRacks:
    """An ``OpponentSampler`` drawing the opponent's rack from an inference
    (``lookahead.infer``): a kept leave by its weight, the rest at random from the unseen
    tiles. The inference's pool is the unseen tiles of the position after the play, the
    same tiles the simulation's ``unseen`` counts; ``draw_opponent`` checks the rack."""

    inference: Inference

    def __call__(self, rng: random.Random, unseen: tuple[int, ...]) -> list[int]:
        return self.inference.draw(rng)


class WorkerPools(Protocol):
    """What runs iterations on worker processes: ``solver_cli.games.workers`` (passed as the
    module) starts a pool whose workers die with their parent, and stops it at once."""

    def start_pool(self, jobs: int, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> Executor: ...

    def stop_pool(self, pool: Any) -> None: ...


@dataclass(frozen=True)
class Setup:
    """Everything one iteration needs: the position, the candidates, how to play out. Sent
    once to each worker process."""

    squares: tuple[int, ...]
    rack: tuple[int, ...]
    gaddag: Gaddag
    rules: Rules
    leaves: LeaveTable
    candidates: tuple[Candidate, ...]
    plies: int
    seed: int
    unseen: tuple[int, ...]
    opponent_rack: tuple[int, ...] | None = None
    sampler: OpponentSampler | None = None
    win_probability: WinProbability | None = None
    spread: int = 0  # the mover's score minus the opponent's, now
    scoreless: int = 0  # scoreless turns in a row before this position
    engine: str = "python"  # the play-outs': "native" (rollout.c) or "python" (the twin)
    packed: bytes = b""  # the candidates packed for the native loop (rollout.pack_candidates)


@dataclass(frozen=True)
class Standing:
    """One candidate's results: its rank by equity (1 the best), the iterations it was
    played out in, the mean outcome in points and its standard error, the mean win
    probability and its standard error (None without a win-probability function), and the
    iteration count at which it was dropped (None while it is in)."""

    candidate: Candidate
    equity_rank: int
    iterations: int
    mean: float
    stderr: float
    win: float | None
    win_stderr: float | None
    pruned_at: int | None


@dataclass(frozen=True)
class SimResult:
    standings: tuple[Standing, ...]  # best first: the candidates still in, then those dropped
    iterations: int
    stopped: str | None  # one of REASONS; None while running
    seconds: float
    plies: int
    seed: int
    jobs: int
    stop: int | None  # the stop confidence (percent), None: no pruning
    objective: str  # "points" or "win"


class SimStopped(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run: ``result`` holds the standings so far."""

    def __init__(self, result: SimResult):
        super().__init__(f"simulation stopped after {result.iterations} iterations")
        self.result = result


@dataclass
class Arm:
    """Running sums of one candidate's outcomes: integers (thousandths of a point) for the
    points, so that the sums do not depend on the order they are added in."""

    n: int = 0
    total: int = 0
    squares: int = 0
    win_total: float = 0.0
    win_squares: float = 0.0
    pruned_at: int | None = None

    def add(self, value: int, win: float | None) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value
        if win is not None:
            self.win_total += win
            self.win_squares += win * win

    @property
    def mean(self) -> float:
        return self.total / self.n / SCALE if self.n else 0.0

    @property
    def stderr(self) -> float:
        if self.n < 2:
            return math.inf
        var = max(0, self.n * self.squares - self.total * self.total) / (self.n * (self.n - 1))
        return math.sqrt(var / self.n) / SCALE

    @property
    def win(self) -> float:
        return self.win_total / self.n if self.n else 0.0

    @property
    def win_stderr(self) -> float:
        if self.n < 2:
            return math.inf
        var = max(0.0, (self.win_squares - self.win_total * self.win_total / self.n) / (self.n - 1))
        return math.sqrt(var / self.n)


# --- the stopping rule -----------------------------------------------------------------------


def bound_width(live: int, delta: float) -> float:
    """Macondo's ``c``: how many standard errors each side of a mean its bound lies, for
    ``live`` candidates still in and a total error ``delta`` (Bonferroni: ``delta / K`` each)."""
    return math.sqrt(2 * math.log(max(live, 2) / delta))


def prune(
    stats: Sequence[tuple[float, float, int]], live: Sequence[int], delta: float, min_iterations: int = CHECK_EVERY
) -> list[int]:
    """The candidates of ``live`` (indices into ``stats``, each ``(mean, stderr, iterations)``)
    that are statistically behind the leader (the highest mean): whose upper bound is below
    the leader's lower bound, once they have ``min_iterations``. The leader is never one."""
    if len(live) < 2:
        return []
    leader = max(live, key=lambda i: (stats[i][0], -i))
    c = bound_width(len(live), delta)
    lower = stats[leader][0] - c * stats[leader][1]
    return [i for i in live if i != leader and stats[i][2] >= min_iterations and stats[i][0] + c * stats[i][1] < lower]


def delta_of(stop: int) -> float:
    return 1 - stop / 100


# --- one iteration -----------------------------------------------------------------------------


def iteration_seed(seed: int, index: int) -> int:
    """The seed of iteration ``index`` of a run seeded ``seed`` (stable across processes,
    platforms and Python versions)."""
    digest = hashlib.sha256(f"scrab-sim:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def draw_opponent(setup: Setup, rng: random.Random) -> tuple[list[int], list[int]]:
    """(the opponent's rack as 27 counts, the bag in draw order: its last tile comes first)
    for one iteration."""
    unseen = setup.unseen
    if setup.opponent_rack is not None:
        fixed = list(setup.opponent_rack)
    elif setup.sampler is not None:
        fixed = list(setup.sampler(rng, unseen))
        if len(fixed) != len(unseen) or any(n < 0 or n > u for n, u in zip(fixed, unseen, strict=True)):
            raise InputError("the opponent-rack sampler gave tiles that are not among the unseen tiles")
        if sum(fixed) > setup.rules.rack_size:
            raise InputError(f"the opponent-rack sampler gave {sum(fixed)} tiles; a rack holds {setup.rules.rack_size}")
    else:
        fixed = [0] * len(unseen)
    pool = [code for code, n in enumerate(unseen) for _ in range(n - fixed[code])]
    rng.shuffle(pool)
    want = setup.rules.rack_size - sum(fixed)
    while want > 0 and pool:
        fixed[pool.pop()] += 1
        want -= 1
    return fixed, pool


def run_iteration(setup: Setup, index: int, live: Sequence[int]) -> list[tuple[int, float | None]]:
    """Iteration ``index``: each candidate of ``live`` played out against the same opponent
    rack and the same draws; its outcome (thousandths of a point) and win probability."""
    rng = random.Random(iteration_seed(setup.seed, index))
    opponent, bag = draw_opponent(setup, rng)
    playout_seed = rng.getrandbits(64)  # exchanges reshuffle the bag: the same way for every candidate
    board = Board(setup.rules.rows, setup.rules.cols, list(setup.squares))
    outcomes = play_outs(
        board,
        setup.rack,
        setup.gaddag,
        setup.rules,
        setup.leaves,
        setup.candidates,
        setup.packed,
        live,
        opponent,
        bag,
        playout_seed,
        setup.plies,
        setup.scoreless,
        setup.engine,
    )
    return [_scored(setup, outcome) for outcome in outcomes]


def _scored(setup: Setup, outcome: Outcome) -> tuple[int, float | None]:
    """An outcome as the run counts it: thousandths of a point, and the mover's chance to win
    when the setup has a win-probability function (exact when the game ended)."""
    value = outcome.points * SCALE + outcome.leaves
    if setup.win_probability is None:
        return value, None
    if outcome.ended:
        final = setup.spread + outcome.points
        return value, 1.0 if final > 0 else 0.5 if final == 0 else 0.0
    spread = setup.spread + value / SCALE
    if outcome.side == 0:  # the mover is to move
        return value, setup.win_probability(spread, outcome.unseen)
    return value, 1.0 - setup.win_probability(-spread, outcome.unseen)


# --- running a simulation ------------------------------------------------------------------


def sim_candidates(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, leaves: LeaveTable, count: int
) -> list[Candidate]:
    """The ``count`` best candidates by equity, as ``scrab solve`` ranks them (exchanges of
    no more tiles than the bag holds, as the play-outs' replies)."""
    valuation = valuation_for(board, rack, rules, leaves)
    valuation = valuation._replace(exchange=min(valuation.exchange, valuation.bag))
    return ranked_moves(board, rack, gaddag, rules, keep=count, valuation=valuation)[1]


def simulate(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    leaves: LeaveTable,
    *,
    candidates: int | Sequence[Candidate] = DEFAULT_CANDIDATES,
    plies: int = DEFAULT_PLIES,
    iterations: int | None = None,
    time_limit: float | None = None,
    stop: int | None = 99,
    seed: int = 0,
    jobs: int = 1,
    workers: WorkerPools | None = None,
    opponent_rack: list[int] | None = None,
    sampler: OpponentSampler | None = None,
    win_probability: WinProbability | None = None,
    objective: str = "points",
    spread: int = 0,
    scoreless: int = 0,
    check_every: int = CHECK_EVERY,
    progress: Callable[[SimResult], None] | None = None,
) -> SimResult:
    """Simulate the position where ``rack`` (27 counts) is to move: the ``candidates`` best
    moves by equity (or the candidates given), ``plies`` replies each, until one candidate
    is ahead at ``stop`` percent confidence (95, 98 or 99; None: never stop early), or
    ``iterations`` are done, or ``time_limit`` seconds have passed (at least one budget).

    ``objective`` ("points" or "win", which needs ``win_probability``) is what the
    candidates are ranked and pruned by. ``jobs`` > 1 runs iterations on that many worker
    processes started by ``workers`` (see ``WorkerPools``); the standings do not depend on
    it. ``progress(result)`` receives the standings so far as iterations come in.
    A KeyboardInterrupt comes out as ``SimStopped`` with the standings so far."""
    if iterations is None and time_limit is None:
        raise ValueError("give iterations, a time limit or both")
    if iterations is not None and not 1 <= iterations <= MAX_ITERATIONS:
        raise InputError(f"iterations must be 1 to {MAX_ITERATIONS:,}, not {iterations}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"the time limit must be positive, not {time_limit}")
    if not 1 <= plies <= MAX_PLIES:
        raise InputError(f"plies must be 1 to {MAX_PLIES}, not {plies}")
    if stop is not None and stop not in STOP_LEVELS:
        raise InputError(f"the stop confidence must be one of {', '.join(map(str, STOP_LEVELS))}, not {stop}")
    if objective not in ("points", "win"):
        raise ValueError(f"objective must be points or win, not {objective!r}")
    if objective == "win" and win_probability is None:
        raise ValueError("ranking by win probability needs a win-probability function")
    if jobs < 1 or jobs > 1 and workers is None:
        raise ValueError("jobs must be at least 1, and more than one needs worker pools")
    if check_every < 1:
        raise ValueError("check_every must be at least 1")
    if opponent_rack is not None and sampler is not None:
        raise ValueError("give the opponent's rack or a sampler, not both")
    unseen = unseen_tiles(board, rack, rules)
    if unseen.over:
        letter, held, in_set = unseen.over[0]
        raise InputError(f"board and rack hold {held} of {letter}, more than the {in_set} in the {rules.name} set")
    if opponent_rack is not None:
        check_opponent_tiles(opponent_rack, list(unseen.counts), rules.rack_size)
    if isinstance(candidates, int):
        if not 1 <= candidates <= MAX_CANDIDATES:
            raise InputError(f"candidates must be 1 to {MAX_CANDIDATES:,}, not {candidates}")
        chosen = tuple(sim_candidates(board, rack, gaddag, rules, leaves, candidates))
    else:
        chosen = tuple(candidates)
    check_candidates(board, rack, rules, chosen, max(0, sum(unseen.counts) - rules.rack_size))
    engine = chosen_engine()
    setup = Setup(
        squares=tuple(board.squares),
        rack=tuple(rack),
        gaddag=gaddag,
        rules=rules,
        # (a copy without the native engine's view, which does not pickle: workers make their own)
        leaves=LeaveTable(leaves.values, leaves.name, leaves.info),
        candidates=chosen,
        plies=plies,
        seed=seed,
        unseen=unseen.counts,
        opponent_rack=None if opponent_rack is None else tuple(opponent_rack),
        sampler=sampler,
        win_probability=win_probability,
        spread=spread,
        scoreless=scoreless,
        engine=engine,
        packed=pack_candidates(chosen) if engine == "native" else b"",
    )
    determined = sum(unseen.counts) <= rules.rack_size
    if determined:
        iterations, jobs = 1, 1
    run = _Run(setup, iterations, time_limit, stop, jobs, objective, check_every, progress)
    result = run.go(workers)
    return replace(result, stopped=DETERMINED) if determined and result.stopped == ITERATIONS else result


@dataclass
class _Run:
    setup: Setup
    iterations: int | None
    time_limit: float | None
    stop: int | None
    jobs: int
    objective: str
    check_every: int
    progress: Callable[[SimResult], None] | None
    arms: list[Arm] = field(default_factory=list)
    done: int = 0
    started: float = 0.0

    def live(self) -> list[int]:
        return [i for i, arm in enumerate(self.arms) if arm.pruned_at is None]

    def _one_left(self) -> bool:
        """Whether the stopping rule has dropped all candidates but one."""
        live = self.live()
        return self.stop is not None and len(live) < len(self.arms) and len(live) < 2

    def go(self, workers: WorkerPools | None) -> SimResult:
        self.arms = [Arm() for _ in self.setup.candidates]
        self.started = time.perf_counter()
        deadline = None if self.time_limit is None else self.started + self.time_limit
        pool: Executor | None = None
        reason: str | None = None
        try:
            if self.jobs > 1:
                assert workers is not None
                pool = workers.start_pool(self.jobs, _init_worker, (self.setup,))
                return self.result(self._pooled(pool, deadline))
            while reason is None:
                if self._one_left():
                    reason = CONFIDENT
                    break
                if self.iterations is not None and self.done >= self.iterations:
                    reason = ITERATIONS
                    break
                end = (self.done // self.check_every + 1) * self.check_every
                if self.iterations is not None:
                    end = min(end, self.iterations)
                live = self.live()
                for first, results in self._chunks(self.done, end, tuple(live)):
                    assert first == self.done
                    for row in results:
                        for i, (value, win) in zip(live, row, strict=True):
                            self.arms[i].add(value, win)
                    self.done += len(results)
                    if self.progress is not None:
                        self.progress(self.result(None))
                    if deadline is not None and time.perf_counter() >= deadline:
                        reason = TIME
                        break
                if reason is None and self.stop is not None and self.done % self.check_every == 0:
                    for i in prune(self._stats(), live, delta_of(self.stop), self.check_every):
                        self.arms[i].pruned_at = self.done
        except KeyboardInterrupt:
            raise SimStopped(self.result(INTERRUPTED)) from None
        finally:
            if pool is not None:  # (at the end, work still in flight is no longer wanted)
                assert workers is not None
                workers.stop_pool(pool)
        return self.result(reason)

    def _chunks(
        self, start: int, end: int, live: tuple[int, ...]
    ) -> Iterator[tuple[int, list[list[tuple[int, float | None]]]]]:
        """The results of iterations ``start`` to ``end``, a few at a time, in order."""
        size = 4  # a few iterations between progress reports and checks of the clock
        for first in range(start, end, size):
            yield first, [run_iteration(self.setup, i, live) for i in range(first, min(first + size, end))]

    def _pooled(self, pool: Executor, deadline: float | None) -> str:
        """The loop of ``go`` on worker processes, which are kept busy across the stopping
        checks: chunks of iterations past the next check start before it is made, for the
        candidates live then, and a candidate dropped at the check has its later outcomes
        thrown away. An outcome does not depend on the other candidates of its iteration,
        so the standings are the one-process loop's; only the workers no longer wait at
        each check for the last chunk before it (a fifth of two jobs' time on the bench).
        Returns why the run stopped."""
        size = 16 if self.iterations is None else max(1, min(16, self.iterations // (self.jobs * 4)))
        limit = self.jobs * 3  # chunks in flight
        pending: dict[Future[list[list[tuple[int, float | None]]]], tuple[int, tuple[int, ...]]] = {}
        ready: dict[int, tuple[tuple[int, ...], list[list[tuple[int, float | None]]]]] = {}
        sent_to = self.done  # the first iteration not yet sent to a worker
        while True:
            if self._one_left():
                return CONFIDENT
            if self.iterations is not None and self.done >= self.iterations:
                return ITERATIONS
            live = self.live()
            while len(pending) < limit and (self.iterations is None or sent_to < self.iterations):
                end = sent_to + size if self.iterations is None else min(sent_to + size, self.iterations)
                pending[pool.submit(_run_in_worker, sent_to, end, tuple(live))] = (sent_to, tuple(live))
                sent_to = end
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                first, sent = pending.pop(future)
                ready[first] = (sent, future.result())
            while self.done in ready:
                sent, rows = ready.pop(self.done)
                for row in rows:
                    for i, (value, win) in zip(sent, row, strict=True):
                        if self.arms[i].pruned_at is None:
                            self.arms[i].add(value, win)
                    self.done += 1
                    if self.stop is not None and self.done % self.check_every == 0:
                        if deadline is not None and time.perf_counter() >= deadline:
                            return TIME  # (as the one-process loop: no check once the time is up)
                        for i in prune(self._stats(), self.live(), delta_of(self.stop), self.check_every):
                            self.arms[i].pruned_at = self.done
                        if self._one_left():
                            return CONFIDENT  # (the rest of the chunk is not counted)
                if self.progress is not None:
                    self.progress(self.result(None))
                if deadline is not None and time.perf_counter() >= deadline:
                    return TIME

    def _stats(self) -> list[tuple[float, float, int]]:
        if self.objective == "win":
            return [(a.win, a.win_stderr, a.n) for a in self.arms]
        return [(a.mean, a.stderr, a.n) for a in self.arms]

    def result(self, reason: str | None) -> SimResult:
        win = self.setup.win_probability is not None
        standings = [
            Standing(
                candidate=c,
                equity_rank=i + 1,
                iterations=a.n,
                mean=a.mean,
                stderr=a.stderr,
                win=a.win if win else None,
                win_stderr=a.win_stderr if win else None,
                pruned_at=a.pruned_at,
            )
            for i, (c, a) in enumerate(zip(self.setup.candidates, self.arms, strict=True))
        ]

        def key(s: Standing) -> tuple[bool, bool, float, int]:
            value = s.win if self.objective == "win" and s.win is not None else s.mean
            return (s.pruned_at is not None, s.iterations == 0, -value, s.equity_rank)

        standings.sort(key=key)
        return SimResult(
            standings=tuple(standings),
            iterations=self.done,
            stopped=reason,
            seconds=time.perf_counter() - self.started,
            plies=self.setup.plies,
            seed=self.setup.seed,
            jobs=self.jobs,
            stop=self.stop,
            objective=self.objective,
        )


# --- worker processes --------------------------------------------------------------------------

_worker: Setup | None = None


def _init_worker(setup: Setup) -> None:
    global _worker
    _worker = setup


def _run_in_worker(first: int, end: int, live: tuple[int, ...]) -> list[list[tuple[int, float | None]]]:
    assert _worker is not None, "worker not initialised"
    return [run_iteration(_worker, i, live) for i in range(first, end)]

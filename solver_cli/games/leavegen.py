"""Training leave values by self-play (``scrab leaves train``).

The method is MAGPIE's rack-mean estimate (also used by wolges), chosen because it turns
plain self-play into values for every leave with one pass over the racks seen, and because
each distinct rack counts once, which wolges measured to beat per-sighting averaging:

1. A round plays games between two equity players using the current table (all zeros in
   round 1, so the first round is greedy play), exchanges and passes allowed. Whenever a
   player holds a full rack with tiles still in the bag, the rack and the equity of the move
   it chose are recorded (``Sample``); per distinct rack, the sum and the count.
2. The value of a leave L is the mean, over the racks R seen that contain L, of R's mean
   equity, each R weighted by the number of ways to draw R - L from a full bag without L;
   minus the overall mean (each rack weighted by its chance to be drawn). That is: how good
   the rack is, on average, when you keep L and draw (``leave_sums``, in C; a Python twin).
3. Rare leaves are shrunk towards what their sub-leaves imply: with ``support`` sightings of
   racks containing L, ``v = (support * raw + K * prior) / (support + K)``, the prior being
   the mean over the distinct tiles t of L of ``v(L - t) + v(t)``; a leave never seen takes
   the prior alone. Leaves are done by increasing size, so sub-leaves are final first.
4. The next round starts from the new table; the last round's table is the result.

Determinism: game ``g`` of round ``r`` draws from a generator seeded with a hash of (seed,
r, g); games are played in batches, and batches return integer sums (equities in
thousandths of a point), which add up to the same totals whatever the order they arrive
in. So a seed gives the same file whatever the number of processes or the scheduler (a
local process pool, or a Dask cluster with ``--scheduler``), and resuming from a round's
checkpoint gives the same file as not stopping.
"""

from __future__ import annotations

import hashlib
import json
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb
from typing import Any

from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import (
    CODES,
    LEAVE_OFFSET,
    MAX_LEAVE,
    TABLE_SIZE,
    LeaveTable,
    leave_index,
    multiset_of_rank,
)
from solver_cli.engine.movegen import NATIVE_BUILT
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError, ScrabError
from solver_cli.games.cluster import DaskCluster, GaddagData, gaddag_on_worker
from solver_cli.games.cluster import check_scheduler as check_scheduler  # (the CLI checks --scheduler first)
from solver_cli.games.workers import capped_jobs, start_pool, stop_pool

DEFAULT_BATCH = 500  # games per task: few enough results to merge, small enough to spread
DEFAULT_SMOOTHING = 50.0  # K: sightings at which a leave's own estimate weighs as much as its prior
MAX_GAMES = 100_000_000
MAX_ROUNDS = 12


def round_sizes(games: int, rounds: int) -> tuple[int, ...]:
    """``games`` split over ``rounds`` rounds growing as 1 : 2 : ... : rounds, the early,
    cheaper rounds moving the table from greedy towards the fixed point."""
    if not 1 <= rounds <= MAX_ROUNDS:
        raise InputError(f"rounds must be 1..{MAX_ROUNDS}, not {rounds}")
    if not rounds <= games <= MAX_GAMES:
        raise InputError(f"games must be {rounds:,} (one a round) to {MAX_GAMES:,}, not {games:,}")
    weights = range(1, rounds + 1)
    total = sum(weights)
    sizes = [games * w // total for w in weights]
    sizes[-1] += games - sum(sizes)
    return tuple(max(1, n) for n in sizes)


def most_batches(sizes: tuple[int, ...], batch: int = DEFAULT_BATCH) -> int:
    """The batches of the largest round: the most that can run at once, and so the most
    worker processes worth starting."""
    return max(-(-n // batch) for n in sizes)


def batch_seed(seed: int, round_index: int, game: int) -> int:
    """The seed of one training game, stable across processes, machines and Python versions."""
    digest = hashlib.sha256(f"scrab-leavegen:{seed}:{round_index}:{game}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def rack_rank(counts: list[int] | tuple[int, ...]) -> int:
    """The rank of a rack among the multisets of its size (``leave_index`` without the size
    offset, for racks of any size up to 7)."""
    rank = 0
    i = 0
    for code in range(CODES):
        for _ in range(counts[code]):
            i += 1
            rank += comb(code + i - 1, i)
    return rank


rack_of_rank = multiset_of_rank  # the inverse of rack_rank


# --- step 2: from rack means to leave values --------------------------------------------------


@dataclass
class RackStats:
    """Per distinct full rack seen: the sum of the equities (thousandths) and the count."""

    sums: dict[int, int]
    counts: dict[int, int]

    @classmethod
    def empty(cls) -> RackStats:
        return cls({}, {})

    def add(self, rank: int, equity: int, count: int = 1) -> None:
        self.sums[rank] = self.sums.get(rank, 0) + equity
        self.counts[rank] = self.counts.get(rank, 0) + count

    def merge(self, data: bytes) -> None:
        ranks, sums, counts = unpack_stats(data)
        for rank, total, count in zip(ranks, sums, counts, strict=True):
            self.add(rank, total, count)

    def pack(self) -> bytes:
        """Compact, for a batch's result: ranks (int32), sums, counts (int64), ascending ranks."""
        ranks = sorted(self.sums)
        return pack_stats(ranks, [self.sums[r] for r in ranks], [self.counts[r] for r in ranks])

    @property
    def samples(self) -> int:
        return sum(self.counts.values())


def pack_stats(ranks: list[int], sums: list[int], counts: list[int]) -> bytes:
    n = array("q", [len(ranks)])
    return n.tobytes() + array("i", ranks).tobytes() + array("q", sums).tobytes() + array("q", counts).tobytes()


def unpack_stats(data: bytes) -> tuple[array[int], array[int], array[int]]:
    n = array("q")
    n.frombytes(data[:8])
    count = n[0]
    if not 0 <= count <= comb(CODES - 1 + MAX_LEAVE + 1, MAX_LEAVE + 1) or len(data) != 8 + count * 20:
        raise ValueError("damaged rack statistics")
    ranks, sums, counts = array("i"), array("q"), array("q")
    ranks.frombytes(data[8 : 8 + 4 * count])
    sums.frombytes(data[8 + 4 * count : 8 + 12 * count])
    counts.frombytes(data[8 + 12 * count :])
    return ranks, sums, counts


def _binom(n: int, k: int) -> float:
    """C(n, k) as a double, computed as the C twin does (same operations, same rounding)."""
    if k < 0 or n < 0 or k > n:
        return 0.0
    r = 1.0
    for i in range(1, k + 1):
        r = r * float(n - k + i) / float(i)
    return r


def leave_sums_python(
    ranks: list[int], sums: list[int], counts: list[int], tile_counts: tuple[int, ...], rack_size: int
) -> tuple[list[float], list[float], list[float], float]:
    """The pure-Python twin of ``_movegen_c.leave_sums``: the same sums, in the same order
    of the same floating-point operations, so the same bits (slow: for tests and machines
    without a compiler)."""
    num = [0.0] * TABLE_SIZE
    den = [0.0] * TABLE_SIZE
    support = [0.0] * TABLE_SIZE
    overall_num = overall_den = 0.0
    for rank, total, count in zip(ranks, sums, counts, strict=True):
        r = rack_of_rank(rank, rack_size)
        mean = float(total) / float(count)
        chance = 1.0
        for c in range(CODES):
            chance *= _binom(tile_counts[c], r[c])
        overall_num += chance * mean
        overall_den += chance
        letters = [c for c in range(CODES) if r[c]]
        for sub in _odometer(r):
            tiles = sum(sub)
            w = 1.0
            for c in letters:
                w *= _binom(tile_counts[c] - sub[c], r[c] - sub[c])
            if tiles < rack_size and w > 0.0:
                index = leave_index(sub)
                num[index] += w * mean
                den[index] += w
                support[index] += float(count)
    overall = overall_num / overall_den if overall_den > 0.0 else 0.0
    return num, den, support, overall


def _odometer(limits: list[int]) -> Iterator[list[int]]:
    """Every ``sub`` with ``0 <= sub[c] <= limits[c]``, the lowest code turning fastest (the
    C twin's order)."""
    sub = [0] * CODES
    while True:
        yield sub
        c = 0
        while c < CODES and sub[c] == limits[c]:
            sub[c] = 0
            c += 1
        if c == CODES:
            return
        sub[c] += 1


def leave_sums(
    stats: RackStats, tile_counts: tuple[int, ...], rack_size: int
) -> tuple[array[float], array[float], array[float], float]:
    ranks = sorted(stats.sums)
    sums = [stats.sums[r] for r in ranks]
    counts = [stats.counts[r] for r in ranks]
    if NATIVE_BUILT:
        from solver_cli.engine import _movegen_c

        num_b, den_b, sup_b, overall = _movegen_c.leave_sums(
            array("i", ranks), array("q", sums), array("q", counts), tile_counts, rack_size
        )
        num, den, support = array("d"), array("d"), array("d")
        num.frombytes(num_b)
        den.frombytes(den_b)
        support.frombytes(sup_b)
        return num, den, support, overall
    n, d, s, overall = leave_sums_python(ranks, sums, counts, tile_counts, rack_size)
    return array("d", n), array("d", d), array("d", s), overall


def table_from_stats(
    stats: RackStats, rules: Rules, smoothing: float = DEFAULT_SMOOTHING, name: str = "trained"
) -> LeaveTable:
    """Steps 2 and 3: every leave's value from the racks seen, rare leaves shrunk towards
    their sub-leaves (see the module docstring). Leaves the bag cannot hold stay 0."""
    rack_size = min(rules.rack_size, MAX_LEAVE + 1)
    num, den, support, overall = leave_sums(stats, rules.counts, rack_size)
    values = array("h")
    if NATIVE_BUILT:
        from solver_cli.engine import _movegen_c

        values.frombytes(_movegen_c.leave_table(num, den, support, overall, rules.counts, rack_size, smoothing))
    else:
        values.extend(smooth_python(num, den, support, overall, rules.counts, rack_size, smoothing))
    return LeaveTable(values, name)


def smooth_python(
    num: array[float],
    den: array[float],
    support: array[float],
    overall: float,
    tile_counts: tuple[int, ...],
    rack_size: int,
    smoothing: float,
) -> list[int]:
    """The pure-Python twin of ``_movegen_c.leave_table`` (step 3): the same values, in the
    same order of the same operations, rounded to hundredths (ties to even) within int16."""
    values = [0.0] * TABLE_SIZE
    # C(code + i, i + 1) for the i-th tile (from 0) of a sorted leave: its share of the index.
    share = [[comb(code + i, i + 1) for i in range(MAX_LEAVE)] for code in range(CODES)]

    def index_of(tiles: tuple[int, ...]) -> int:
        return LEAVE_OFFSET[len(tiles)] + sum(share[code][i] for i, code in enumerate(tiles))

    for size in range(1, rack_size):
        for tiles in combinations_with_replacement(range(CODES), size):
            if any(tiles.count(code) > tile_counts[code] for code in set(tiles)):
                continue  # not in this bag
            index = index_of(tiles)
            raw = num[index] / den[index] - overall if den[index] > 0.0 else 0.0
            prior = 0.0
            if size > 1:
                parts = 0.0
                n = 0
                for j in range(size):
                    if j and tiles[j] == tiles[j - 1]:
                        continue  # each distinct tile once, in code order
                    parts += values[index_of(tiles[:j] + tiles[j + 1 :])] + values[index_of((tiles[j],))]
                    n += 1
                prior = parts / n
            weight = support[index] + smoothing
            values[index] = (support[index] * raw + smoothing * prior) / weight if weight > 0.0 else prior
    # thousandths to the table's hundredths, within int16 (round: ties to even, as C's nearbyint)
    return [max(-32767, min(32767, round(v / 10.0))) for v in values]


# --- step 1 and 4: rounds of games, on a process pool or a Dask cluster -----------------------


@dataclass
class RoundReport:
    round: int  # 1-based
    games: int
    samples: int
    racks: int  # distinct full racks seen
    seconds: float


@dataclass
class Training:
    table: LeaveTable
    rounds: list[RoundReport]
    seconds: float
    info: dict[str, Any]


Progress = Callable[[int, int, int], None]  # (games done in this round, games in it, round)
Checkpoint = Callable[[LeaveTable, dict[str, Any]], None]


def check_trainable(rules: Rules) -> None:
    """Refuse, before any game is played, rules no table can be trained for: a table values
    leaves of up to ``MAX_LEAVE`` tiles, so racks of up to ``MAX_LEAVE + 1`` (a rule set may
    have racks of up to 20, whose full racks the rack statistics cannot even number)."""
    if rules.rack_size > MAX_LEAVE + 1:
        raise InputError(
            f"rules {rules.name}: racks of {rules.rack_size} tiles; leave tables are trained for racks of "
            f"1 to {MAX_LEAVE + 1} tiles (they value leaves of up to {MAX_LEAVE})"
        )


def training_plan(
    games: int, rounds: int, seed: int, batch: int = 500, smoothing: float = DEFAULT_SMOOTHING
) -> dict[str, Any]:
    """What a checkpoint must match to be resumed (``InputError`` for settings no training takes)."""
    sizes = round_sizes(games, rounds)
    if batch < 1:
        raise InputError(f"batch must be at least 1, not {batch}")
    return {"games": games, "rounds": list(sizes), "seed": seed, "batch": batch, "smoothing": smoothing}


def resume_point(info: dict[str, object], plan: dict[str, Any], rules: Rules) -> tuple[int, list[RoundReport]]:
    """The rounds a checkpoint's header (``info``) says are done, checked against the
    training ``plan`` and ``rules`` and against each other: a version 1 or 2 file's header is
    outside its checksum, so one flipped bit (``"round":2`` read as ``0``) must not
    silently start a different training."""
    if info.get("plan") != plan or info.get("rules") != rules.name or info.get("rack_size") != rules.rack_size:
        raise InputError("the checkpoint was made by another training (its rules, games, rounds, seed or batch differ)")
    done = info.get("round")
    if type(done) is not int or not 1 <= done <= len(plan["rounds"]):
        raise InputError(
            f"the checkpoint's round is {json.dumps(done)[:20]}; a checkpoint of this training is written after "
            f"round 1 to {len(plan['rounds'])}"
        )
    reports = info.get("round_reports")
    expected = [{"round": r + 1, "games": plan["rounds"][r]} for r in range(done)]
    if (
        not isinstance(reports, list)
        or len(reports) != done
        or not all(_is_report(report, want) for report, want in zip(reports, expected, strict=False))
    ):
        raise InputError(f"the checkpoint's round_reports do not match its round ({done}) and plan (damaged?)")
    return done, [RoundReport(**r, seconds=0.0) for r in reports]


def _is_report(report: object, expected: dict[str, int]) -> bool:
    """A round's report as ``_info`` writes it: four whole numbers, the round and its games as planned."""
    return (
        isinstance(report, dict)
        and set(report) == {"round", "games", "samples", "racks"}
        and all(type(n) is int and 0 <= n <= 1 << 53 for n in report.values())
        and all(report[key] == value for key, value in expected.items())
    )


def train(
    gaddag: Gaddag,
    rules: Rules,
    lexicon_name: str,
    games: int,
    *,
    rounds: int = 4,
    jobs: int = 1,
    seed: int = 1,
    scheduler: str | None = None,
    resume: LeaveTable | None = None,
    batch: int = DEFAULT_BATCH,
    smoothing: float = DEFAULT_SMOOTHING,
    progress: Progress | None = None,
    checkpoint: Checkpoint | None = None,
) -> Training:
    """Train a table for ``rules`` and the lexicon of ``gaddag`` (see the module docstring).
    ``resume``: a checkpoint (a table written after a round, whose header says which round
    and plan it belongs to); training goes on from the next round. Every setting, and the
    checkpoint, is checked before the first game. ``jobs`` is capped at the batches of the
    largest round and at ``workers.max_jobs()``. If a round does not finish (a
    KeyboardInterrupt, a failed cluster: ``ScrabError``), its workers are ended at once, and
    the checkpoint of the last round finished is what there is to resume from."""
    check_trainable(rules)
    if not (isinstance(smoothing, int | float) and 0 <= smoothing < float("inf")):
        # the native leave_table refuses it (a ValueError after every game is played)
        raise InputError(f"smoothing must be a number of at least 0, not {smoothing!r}")
    plan = training_plan(games, rounds, seed, batch, smoothing)
    sizes = plan["rounds"]
    table = LeaveTable.zeros("round-0")
    done_rounds: list[RoundReport] = []
    start_round = 0
    if resume is not None:
        start_round, done_rounds = resume_point(resume.info, plan, rules)
        table = resume
    started = time.perf_counter()
    runner = _runner(gaddag, rules, capped_jobs(jobs, most_batches(sizes, batch)), scheduler)
    try:
        for r in range(start_round, len(sizes)):
            began = time.perf_counter()
            stats = RackStats.empty()
            n = sizes[r]
            batches = [(r, first, min(batch, n - first)) for first in range(0, n, batch)]
            done = 0
            for count, data in runner(play_training_batch, table, seed, batches):
                stats.merge(data)
                done += count
                if progress is not None:
                    progress(done, n, r + 1)
            table = table_from_stats(stats, rules, smoothing, f"round-{r + 1}")
            done_rounds.append(RoundReport(r + 1, n, stats.samples, len(stats.sums), time.perf_counter() - began))
            if checkpoint is not None:
                checkpoint(table, _info(rules, lexicon_name, plan, r + 1, done_rounds))
    except BaseException:
        runner.close(abort=True)  # (the checkpoint of the last round finished stays)
        raise
    runner.close()
    info = _info(rules, lexicon_name, plan, len(sizes), done_rounds)
    return Training(table, done_rounds, time.perf_counter() - started, info)


def _info(
    rules: Rules, lexicon: str, plan: dict[str, Any], round_done: int, reports: list[RoundReport]
) -> dict[str, Any]:
    return {
        "rules": rules.name,
        "lexicon": lexicon,
        "rack_size": rules.rack_size,
        "method": "rack-mean (MAGPIE/wolges), shrunk towards sub-leaves; see docs/equity.md",
        "plan": plan,
        "round": round_done,
        # (no times, dates or machine: a seed gives the same file wherever it runs)
        "round_reports": [
            {"round": r.round, "games": r.games, "samples": r.samples, "racks": r.racks} for r in reports
        ],
    }


class _Runner:
    """Runs batches of training games and yields (games, packed stats) as they finish."""

    def __call__(
        self, task: Callable[..., bytes], table: LeaveTable, seed: int, batches: list[tuple[int, int, int]]
    ) -> Iterator[tuple[int, bytes]]:
        raise NotImplementedError

    def close(self, abort: bool = False) -> None:
        """Release the workers; ``abort``: now, abandoning the batches still running."""


def _runner(gaddag: Gaddag, rules: Rules, jobs: int, scheduler: str | None) -> _Runner:
    if scheduler is not None:
        return _DaskRunner(gaddag, rules, scheduler)
    return _PoolRunner(gaddag, rules, jobs)


_context: tuple[Gaddag, Rules] | None = None


def _init_worker(gaddag: Gaddag, rules: Rules) -> None:
    global _context
    _context = (gaddag, rules)


def _run_local(task: Callable[..., bytes], values: bytes, seed: int, job: tuple[int, int, int]) -> bytes:
    assert _context is not None
    gaddag, rules = _context
    return task(gaddag, rules, values, seed, *job)


class _PoolRunner(_Runner):
    def __init__(self, gaddag: Gaddag, rules: Rules, jobs: int):
        self.gaddag, self.rules, self.jobs = gaddag, rules, jobs
        self.pool: Any = None
        if jobs > 1:
            self.pool = start_pool(jobs, _init_worker, (gaddag, rules))
        else:
            _init_worker(gaddag, rules)

    def __call__(
        self, task: Callable[..., bytes], table: LeaveTable, seed: int, batches: list[tuple[int, int, int]]
    ) -> Iterator[tuple[int, bytes]]:
        values = table.values.tobytes()
        if self.pool is None:
            for job in batches:
                yield job[2], _run_local(task, values, seed, job)
            return
        from concurrent.futures import FIRST_COMPLETED, wait

        pending: dict[Any, tuple[int, int, int]] = {}
        queue = list(batches)
        while queue or pending:
            while queue and len(pending) < 2 * self.jobs:
                job = queue.pop(0)
                pending[self.pool.submit(_run_local, task, values, seed, job)] = job
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                job = pending.pop(future)
                yield job[2], future.result()

    def close(self, abort: bool = False) -> None:
        if self.pool is None:
            return
        if abort:
            stop_pool(self.pool)
        else:
            self.pool.shutdown(cancel_futures=True)


def _run_on_dask(
    task: Callable[..., bytes],
    gaddag_data: GaddagData,
    rules: Rules,
    values: bytes,
    seed: int,
    job: tuple[int, int, int],
) -> bytes:
    """A batch on a Dask worker: the GADDAG arrives as bytes (scattered once) and is rebuilt
    once per worker process."""
    return task(gaddag_on_worker(gaddag_data), rules, values, seed, *job)


class _DaskRunner(_Runner):
    """Batches on a Dask cluster (``cluster.DaskCluster``: a failed cluster is one
    ``ScrabError`` naming it)."""

    def __init__(self, gaddag: Gaddag, rules: Rules, address: str):
        self.cluster = DaskCluster(address, gaddag)
        try:
            self.rules = self.cluster.scatter(rules)
        except ScrabError:
            self.close(abort=True)
            raise

    def __call__(
        self, task: Callable[..., bytes], table: LeaveTable, seed: int, batches: list[tuple[int, int, int]]
    ) -> Iterator[tuple[int, bytes]]:
        cluster = self.cluster
        values = cluster.scatter(table.values.tobytes())
        futures = {
            cluster.submit(_run_on_dask, task, cluster.gaddag, self.rules, values, seed, job): job for job in batches
        }
        for future, result in cluster.results(cluster.as_completed(futures)):
            yield futures[future][2], result

    def close(self, abort: bool = False) -> None:
        self.cluster.close(abort)


def play_training_batch(
    gaddag: Gaddag, rules: Rules, values: bytes, seed: int, round_index: int, first: int, count: int
) -> bytes:
    """Games ``first`` to ``first + count - 1`` of a round, both players using the table
    ``values`` (int16 bytes): the rack statistics, packed."""
    from solver_cli.games.selfplay import Player, play_game

    table = array("h")
    table.frombytes(values)
    player = Player("equity", LeaveTable(table, f"round-{round_index}"))
    stats = RackStats.empty()

    def observe(rack: list[int], equity: int) -> None:
        stats.add(rack_rank(rack), equity)

    for game in range(first, first + count):
        play_game(
            gaddag, rules, seed, game, (player, player), gseed=batch_seed(seed, round_index, game), observe=observe
        )
    return stats.pack()

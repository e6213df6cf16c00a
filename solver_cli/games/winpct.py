"""Training win-probability tables by self-play (``scrab winpct train``).

1. Games between two equity players (the leave table trained for the rules, exchanges and
   the pass allowed; both seats the same player) are played to the end. For every turn the
   position before the move is recorded from the mover's side: the spread (its score less
   the opponent's) and the tiles it cannot see (the bag and the opponent's rack: the tile
   total less the tiles on the board and on its own rack), with the game's result for it
   (2 half-wins a win, 1 a draw, 0 a loss). Each turn is counted in the cell of its number
   of unseen tiles and of the spread row nearest its spread (``WinTable.row_of``; spreads
   beyond the range in the end rows).
2. Smoothing (``smooth``), for each cell with at least one tile unseen:
   - pooling: the cell's estimate is the share of half-wins over the smallest square of
     neighbouring cells, ``r`` rows and ``r`` columns either side (``r`` = 0, 1, 2, ...),
     holding at least ``pool`` samples (the whole grid if none does; 0.5 with no sample at
     all), so thinly seen cells borrow from their neighbours and well seen ones keep their
     own count;
   - monotone in the spread: in each column, the pooled estimates are made non-decreasing
     in the spread by weighted isotonic regression (pool-adjacent-violators, each cell
     weighted by its pooled samples plus one), which averages any run that falls;
   - rounded to thousandths. Column 0 (nothing unseen: the game is over) is exact:
     1 above a spread of 0, 0.5 at 0, 0 below.
3. The standard error reported for a table is the binomial one of each cell's pooled
   estimate, ``sqrt(p (1 - p) / n)``: its mean over the turns counted (what a lookup meets
   in play) and its largest value over the cells that hold a turn. It ignores that the
   turns of one game are not independent and the bias pooling adds where data are thin.

Determinism: game ``g`` draws from a generator seeded with a hash of (seed, g); games are
played in batches whose counts are integers added up in batch order, so a seed gives the
same file whatever ``jobs``, and a training stopped and resumed (``resume``) gives the same
file as one that never stopped.
"""

from __future__ import annotations

import hashlib
import math
import time
import zlib
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.history import GameResult
from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.rules import Rules
from solver_cli.engine.winpct import SCALE, WinTable, win_probability
from solver_cli.errors import InputError
from solver_cli.formats.winpctfile import MAX_GAMES
from solver_cli.games.workers import capped_jobs, start_pool, stop_pool

__all__ = ["WinTable", "win_probability", "train", "smooth", "count_game", "game_seed"]

DEFAULT_SPREAD_MAX = 300
DEFAULT_SPREAD_STEP = 5
DEFAULT_POOL = 400  # samples a pooled estimate needs: a binomial standard error of at most 2.5%
DEFAULT_BATCH = 100  # games per task: the most a stopped training loses per worker
METHOD = "equity self-play; pooled neighbours, isotonic in the spread; see docs/equity.md"


def game_seed(seed: int, game: int) -> int:
    """The seed of training game ``game`` (from 0), stable across processes and machines."""
    digest = hashlib.sha256(f"scrab-winpct:{seed}:{game}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def empty_table(rules: Rules, spread_max: int = DEFAULT_SPREAD_MAX, spread_step: int = DEFAULT_SPREAD_STEP) -> WinTable:
    check_trainable(rules, spread_max, spread_step)
    return WinTable.empty(spread_max, spread_step, sum(rules.counts) - rules.rack_size, rules.name)


def check_trainable(rules: Rules, spread_max: int = DEFAULT_SPREAD_MAX, spread_step: int = DEFAULT_SPREAD_STEP) -> None:
    """Refuse, before any game, rules whose table cannot be made: nothing unseen at the
    start, or more cells than a table may hold."""
    unseen_max = sum(rules.counts) - rules.rack_size
    if unseen_max < 1:
        raise InputError(
            f"rules {rules.name}: {sum(rules.counts)} tiles for racks of {rules.rack_size}; no tile is ever unseen"
        )
    try:
        WinTable.empty(spread_max, spread_step, unseen_max)
    except ValueError as exc:
        raise InputError(f"rules {rules.name}: {exc}") from None


# --- step 1: counting the turns of a game -------------------------------------------------------


def count_game(result: GameResult, tiles: int, table: WinTable) -> None:
    """Add every turn of the finished game ``result`` to ``table``'s counts (``tiles``: the
    rule set's tile total)."""
    outcome = [
        2 if result.scores[p] > result.scores[1 - p] else 1 if result.scores[p] == result.scores[1 - p] else 0
        for p in (0, 1)
    ]
    scores = [0, 0]
    on_board = 0
    for turn in result.turns:
        mover = turn.player
        index = table.cell(scores[mover] - scores[1 - mover], tiles - on_board - len(turn.rack))
        table.samples[index] += 1
        table.wins[index] += outcome[mover]
        scores[mover] = turn.total
        on_board += len(turn.placed)


# --- step 2: smoothing -------------------------------------------------------------------------


def smooth(table: WinTable, pool: int = DEFAULT_POOL) -> tuple[list[float], list[int]]:
    """Fill ``table.values`` from its counts (step 2 of the module docstring); returns each
    cell's pooled estimate and pooled samples, for the standard errors."""
    rows, columns = table.rows, table.unseen_max + 1
    # Prefix sums over the grid (columns 1.. only: column 0 holds no turn): window sums in O(1).
    width = rows + 1
    count_sum = [0] * (width * (columns + 1))
    win_sum = [0] * (width * (columns + 1))
    for u in range(columns):
        for r in range(rows):
            i = u * rows + r
            at = (u + 1) * width + r + 1
            up, left, corner = at - width, at - 1, at - width - 1
            count_sum[at] = table.samples[i] + count_sum[up] + count_sum[left] - count_sum[corner]
            win_sum[at] = table.wins[i] + win_sum[up] + win_sum[left] - win_sum[corner]

    def window(u: int, r: int, radius: int) -> tuple[int, int]:
        u0, u1 = max(1, u - radius), min(columns - 1, u + radius) + 1
        r0, r1 = max(0, r - radius), min(rows - 1, r + radius) + 1
        corners = (u1 * width + r1, u0 * width + r1, u1 * width + r0, u0 * width + r0)
        n = count_sum[corners[0]] - count_sum[corners[1]] - count_sum[corners[2]] + count_sum[corners[3]]
        w = win_sum[corners[0]] - win_sum[corners[1]] - win_sum[corners[2]] + win_sum[corners[3]]
        return n, w

    widest = max(rows, columns)
    estimates = [0.0] * table.cells
    pooled = [0] * table.cells
    for u in range(1, columns):
        for r in range(rows):
            low, high = 0, widest  # the smallest radius holding `pool` samples, by bisection
            if window(u, r, high)[0] >= pool:
                while low < high:
                    middle = (low + high) // 2
                    if window(u, r, middle)[0] >= pool:
                        high = middle
                    else:
                        low = middle + 1
            n, w = window(u, r, high)
            estimates[u * rows + r] = w / (2 * n) if n else 0.5
            pooled[u * rows + r] = n
    for r in range(rows):
        spread = table.spread_of(r)
        table.values[r] = SCALE if spread > 0 else SCALE // 2 if spread == 0 else 0
    for u in range(1, columns):
        cells = range(u * rows, (u + 1) * rows)
        fitted = isotonic([estimates[i] for i in cells], [pooled[i] + 1 for i in cells])
        for i, value in zip(cells, fitted, strict=True):
            table.values[i] = max(0, min(SCALE, round(value * SCALE)))
    return estimates, pooled


def isotonic(values: list[float], weights: list[int]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` in weighted least squares
    (pool-adjacent-violators: a run that falls is replaced by its weighted mean)."""
    blocks: list[list[float]] = []  # [mean, weight, length]
    for value, weight in zip(values, weights, strict=True):
        blocks.append([value, float(weight), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, weight_, length = blocks.pop()
            last = blocks[-1]
            total = last[1] + weight_
            last[0] = (last[0] * last[1] + mean * weight_) / total
            last[1] = total
            last[2] += length
    fitted: list[float] = []
    for mean, _, length in blocks:
        fitted.extend([mean] * int(length))
    return fitted


def standard_errors(table: WinTable, estimates: list[float], pooled: list[int]) -> dict[str, float]:
    """The binomial standard error of each pooled estimate: its mean over the turns counted,
    and its largest value over the cells that hold one (step 3 of the module docstring)."""
    total = weighted = largest = 0.0
    for i, count in enumerate(table.samples):
        if count and pooled[i]:
            p = estimates[i]
            error = math.sqrt(p * (1 - p) / pooled[i])
            total += count
            weighted += count * error
            largest = max(largest, error)
    return {"mean": round(weighted / total, 4) if total else 0.0, "max": round(largest, 4)}


# --- training: batches of games on a process pool -------------------------------------------------


@dataclass
class Training:
    table: WinTable
    games: int  # games counted (those of a resumed table included)
    seconds: float
    info: dict[str, Any]


class TrainingStopped(KeyboardInterrupt):
    """Training stopped by Ctrl-C (or SIGTERM, which the CLI turns into one): ``training``
    holds the games of the batches finished in order (0 games: nothing to save)."""

    def __init__(self, training: Training):
        super().__init__(f"stopped after {training.games} games")
        self.training = training


def training_plan(leaves: LeaveTable, seed: int) -> dict[str, Any]:
    """What a table's games depend on, which ``--resume`` must match (the smoothing is done
    again from the counts: a table resumed with another ``pool`` is smoothed by it)."""
    return {"seed": seed, "leaves": leaves.name, "leaves_crc32": zlib.crc32(leaves.values.tobytes())}


def resume_point(table: WinTable, plan: dict[str, Any], rules: Rules, lexicon: str, games: int) -> int:
    """The games a table (``resume``) holds, checked against the training it should go on."""
    info = table.info
    if info.get("counts") is not True:
        raise InputError("the table keeps no counts (it was written with --no-counts): it cannot be trained on")
    if (
        info.get("plan") != plan
        or info.get("rules") != rules.name
        or info.get("lexicon") != lexicon
        or info.get("rack_size") != rules.rack_size
        or info.get("tiles") != sum(rules.counts)
        or (table.spread_max, table.spread_step) != (DEFAULT_SPREAD_MAX, DEFAULT_SPREAD_STEP)
    ):
        raise InputError("the table was made by another training (its rules, lexicon, seed or leave table differ)")
    done = info.get("games")
    assert isinstance(done, int)  # (checked by the reader)
    if done > games:
        raise InputError(f"the table holds {done:,} games, more than --games {games:,}")
    return done


def train(
    gaddag: Gaddag,
    rules: Rules,
    lexicon_name: str,
    leaves: LeaveTable,
    games: int,
    *,
    jobs: int = 1,
    seed: int = 1,
    resume: WinTable | None = None,
    pool: int = DEFAULT_POOL,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> Training:
    """Play games ``0 .. games - 1`` (those a ``resume`` table does not hold yet) between
    equity players using ``leaves``, count them, and smooth the table. A KeyboardInterrupt
    ends the workers and comes out as ``TrainingStopped`` with the games of the batches
    finished in order, smoothed."""
    if not 1 <= games <= MAX_GAMES:
        raise InputError(f"games must be 1 to {MAX_GAMES:,}, not {games:,}")
    if pool < 1 or batch < 1:
        raise InputError("pool and batch must be at least 1")
    plan = training_plan(leaves, seed)
    table = empty_table(rules)
    done = 0
    if resume is not None:
        done = resume_point(resume, plan, rules, lexicon_name, games)
        table.samples[:] = resume.samples
        table.wins[:] = resume.wins
    started = time.perf_counter()
    batches = [(first, min(batch, games - first)) for first in range(done, games, batch)]
    counted = done
    try:
        for count, packed in _run_batches(gaddag, rules, leaves, seed, batches, jobs):
            _add_packed(table, packed)
            counted += count
            if progress is not None:
                progress(counted, games)
    except KeyboardInterrupt:
        raise TrainingStopped(_finish(table, rules, lexicon_name, plan, counted, started, pool)) from None
    return _finish(table, rules, lexicon_name, plan, counted, started, pool)


def _finish(
    table: WinTable, rules: Rules, lexicon: str, plan: dict[str, Any], games: int, started: float, pool: int
) -> Training:
    estimates, pooled = smooth(table, pool)
    table.name = f"{rules.name}-{lexicon}"
    info = {
        "rules": rules.name,
        "lexicon": lexicon,
        "rack_size": rules.rack_size,
        "tiles": sum(rules.counts),
        "games": games,
        "plan": plan,
        "pool": pool,
        "method": METHOD,
        # (no times, dates or machine: a seed gives the same file wherever it runs)
        "standard_error": standard_errors(table, estimates, pooled),
        "samples": sum(table.samples),
    }
    table.info = dict(info, counts=True)
    return Training(table, games, time.perf_counter() - started, info)


def _add_packed(table: WinTable, packed: tuple[bytes, bytes, bytes]) -> None:
    indexes, samples, wins = array("I"), array("I"), array("I")
    indexes.frombytes(packed[0])
    samples.frombytes(packed[1])
    wins.frombytes(packed[2])
    for index, count, won in zip(indexes, samples, wins, strict=True):
        table.samples[index] += count
        table.wins[index] += won


def play_batch(
    gaddag: Gaddag, rules: Rules, leaves: LeaveTable, seed: int, first: int, count: int
) -> tuple[bytes, bytes, bytes]:
    """Games ``first .. first + count - 1``, counted: the cells touched, ascending, with
    their samples and half-wins (uint32 arrays as bytes: compact to send back)."""
    from solver_cli.games.selfplay import Player, play_game

    player = Player("equity", leaves)
    table = empty_table(rules)
    tiles = sum(rules.counts)
    for game in range(first, first + count):
        result = play_game(gaddag, rules, seed, game, (player, player), gseed=game_seed(seed, game))
        count_game(result, tiles, table)
    touched = [i for i, n in enumerate(table.samples) if n]
    return (
        array("I", touched).tobytes(),
        array("I", [table.samples[i] for i in touched]).tobytes(),
        array("I", [table.wins[i] for i in touched]).tobytes(),
    )


_context: tuple[Gaddag, Rules, LeaveTable] | None = None


def _init_worker(gaddag: Gaddag, rules: Rules, values: bytes, name: str) -> None:
    """Each worker gets the leave table as bytes (a table used here already holds the
    native engine's copy, which does not pickle) and makes its own."""
    global _context
    table = array("h")
    table.frombytes(values)
    _context = (gaddag, rules, LeaveTable(table, name))


def _play_in_worker(seed: int, first: int, count: int) -> tuple[bytes, bytes, bytes]:
    assert _context is not None, "worker not initialised"
    return play_batch(*_context, seed, first, count)


def _run_batches(
    gaddag: Gaddag, rules: Rules, leaves: LeaveTable, seed: int, batches: list[tuple[int, int]], jobs: int
) -> Iterator[tuple[int, tuple[bytes, bytes, bytes]]]:
    """Each batch's (games, counts), in batch order (a batch finished early waits for those
    before it, so a training stopped holds a prefix of the games); on ``jobs`` workers."""
    jobs = capped_jobs(jobs, len(batches))
    if jobs == 1:
        for first, count in batches:
            yield count, play_batch(gaddag, rules, leaves, seed, first, count)
        return
    pool: ProcessPoolExecutor = start_pool(jobs, _init_worker, (gaddag, rules, leaves.values.tobytes(), leaves.name))
    try:
        pending: dict[Future[tuple[bytes, bytes, bytes]], int] = {}
        finished: dict[int, tuple[bytes, bytes, bytes]] = {}
        submitted = delivered = 0
        while delivered < len(batches):
            # (at most a few batches ahead of the first unfinished one: the results kept
            # waiting for it stay few)
            while submitted < len(batches) and len(pending) < 2 * jobs and submitted - delivered < 8 * jobs:
                first, count = batches[submitted]
                pending[pool.submit(_play_in_worker, seed, first, count)] = submitted
                submitted += 1
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                finished[pending.pop(future)] = future.result()
            while delivered in finished:
                yield batches[delivered][1], finished.pop(delivered)
                delivered += 1
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def max_batches(games: int, done: int = 0, batch: int = DEFAULT_BATCH) -> int:
    """The batches left to play: the most worker processes worth starting."""
    return max(1, -(-(games - done) // batch))

"""Greedy-versus-greedy self-play: whole games with a real tile bag.

Each player always plays its highest-scoring move (ties: the first move in the solver's
ranking, ``solver.rank_key``). A game:

- the bag holds the rule set's tile distribution, shuffled by the game's own random
  generator; racks are drawn from it and refilled after every play;
- when a player has no legal move it exchanges its whole rack if the bag holds at least
  ``rack_size`` tiles (new tiles are drawn first, then the old ones go back and the bag is
  shuffled), and passes otherwise;
- the game ends when a player empties its rack with the bag empty ("out": it gains the
  value of the opponent's rack, and the opponent loses it), or after six consecutive
  scoreless turns (passes, exchanges and 0-point plays; each player loses the value of
  its own rack); the rule set's ``out_gain``, ``out_loss`` and ``stuck_loss`` multiply
  those values (1 in every shipped rule set);
- every finished game is checked: every word on the final board is in the lexicon and the
  tiles on the board, on the racks and in the bag are exactly the distribution.

Reproducibility: game ``i`` of a run with seed ``s`` draws from ``random.Random`` seeded
with a hash of ``(s, i)``, so the games do not depend on how they are scheduled over
worker processes. Player 1 (index 0) always moves first.

This module never prints: ``run_selfplay`` reports progress through a callback.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING

from solver_cli.engine.alphabet import BLANK_BIT, LETTER_MASK, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.history import Adjustment, GameOutcome, GameResult, Turn
from solver_cli.engine.leaves import LeaveTable, Valuation
from solver_cli.engine.movegen import EXCHANGE, PLACE, Candidate, ranked_moves
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError, ScrabError, SelfPlayError
from solver_cli.games.workers import capped_jobs, start_pool, stop_pool
from solver_cli.lookahead.endgame import solve_endgame
from solver_cli.lookahead.peg import solve_pre_endgame

if TYPE_CHECKING:
    from solver_cli.engine.winpct import WinTable
    from solver_cli.games.cluster import DaskCluster, GaddagData


@dataclass
class Summary:
    games: int
    first_player_wins: int
    second_player_wins: int
    draws: int
    score_mean: float  # over both players' final scores
    score_stdev: float  # population standard deviation
    first_player_score_mean: float
    first_player_score_stdev: float
    second_player_score_mean: float
    second_player_score_stdev: float
    bingos_per_game: float  # both players together
    went_out: int  # games ended by a player going out
    scoreless_endings: int  # games ended by the rule set's scoreless turns in a row (six in Scrabble)
    moves: int  # turns played: plays, exchanges and passes
    plays: int
    seconds: float  # wall-clock time of the whole run
    game_seconds: float  # time spent inside games, summed over processes
    moves_per_second: float  # moves / wall-clock seconds
    games_per_second: float  # games / wall-clock seconds


@dataclass
class SelfPlayRun:
    seed: int
    jobs: int  # worker processes; on a Dask cluster, its workers when the run started
    outcomes: list[GameOutcome]  # in game order
    summary: Summary
    scheduler: str | None = None  # the Dask scheduler the games ran on, if any


class SelfPlayStopped(KeyboardInterrupt):
    """A run stopped by Ctrl-C (or SIGTERM, which the CLI turns into one): ``run`` holds
    the games finished so far (in a mirrored run, the whole pairs), out of ``games``."""

    def __init__(self, run: SelfPlayRun, games: int):
        super().__init__(f"stopped after {len(run.outcomes)} of {games} games")
        self.run = run
        self.games = games


@dataclass(frozen=True)
class Standing:
    """One player's results over a run: ``wins`` counts a draw as half a win; ``ci95`` is
    the 95% confidence interval of ``win_rate`` (see ``standings``); ``spread_mean`` the mean
    of its score minus the opponent's."""

    name: str
    games: int
    wins: float
    win_rate: float
    ci95: tuple[float, float]
    spread_mean: float


def standings(outcomes: list[GameOutcome], names: tuple[str, str], mirrored: bool) -> list[Standing]:
    """Both players' results. The first player of ``names`` sits first in even games and,
    in a mirrored run, second in odd ones. The interval is the normal one over independent
    units: in a mirrored run a unit is a pair of games on the same bag (its points shared
    between the seats, so the luck of the draw is paired away), else a game. Its variance
    counts two more units, one lost and one won outright (as Agresti and Coull's interval
    adds pseudo-counts): a short run whose pairs all split evenly would otherwise claim an
    interval of zero width; over thousands of units they change nothing that shows."""
    results = []
    for me in (0, 1):
        points: list[float] = []  # per game, this player's result: 1 win, 0.5 draw, 0 loss
        spreads: list[int] = []
        for o in outcomes:
            seat = me if not mirrored or o.index % 2 == 0 else 1 - me
            mine, theirs = o.scores[seat], o.scores[1 - seat]
            points.append(1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)
            spreads.append(mine - theirs)
        units = [points[k] + points[k + 1] for k in range(0, len(points) - 1, 2)] if mirrored else points
        scale = 2.0 if mirrored else 1.0
        n = len(units)
        rate = sum(points) / len(points) if points else 0.0
        if n > 1:
            mean = sum(units) / n
            padded = [*units, 0.0, scale]  # the two pseudo-units: a loss and a win outright
            var = sum((u - mean) ** 2 for u in padded) / (len(padded) - 1)
            half = 1.959963984540054 * math.sqrt(var / n) / scale
        else:
            half = 1.0
        results.append(
            Standing(
                names[me],
                len(points),
                sum(points),
                rate,
                (max(0.0, rate - half), min(1.0, rate + half)),
                sum(spreads) / len(spreads) if spreads else 0.0,
            )
        )
    return results


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` in a run seeded with ``seed`` (stable across processes,
    platforms and Python versions)."""
    digest = hashlib.sha256(f"scrab-selfplay:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def random_seed() -> int:
    """A fresh run seed, for runs that were not given one (reported so they can be redone)."""
    return int.from_bytes(os.urandom(4), "big")


def rack_value(rack: list[int], values: tuple[int, ...]) -> int:
    return sum(n * values[code] for code, n in enumerate(rack) if n and code)


def _draw(bag: list[int], rack: list[int], want: int) -> list[int]:
    drawn = []
    while want > 0 and bag:
        code = bag.pop()
        rack[code] += 1
        drawn.append(code)
        want -= 1
    return drawn


def _may_exchange(bag: list[int], rules: Rules) -> bool:
    return len(bag) >= rules.exchange_min_bag and rules.exchange_max > 0


def _tiles(rack: list[int]) -> list[int]:
    return [code for code, n in enumerate(rack) for _ in range(n)]


def _codes_text(codes: list[int]) -> str:
    counts = [0] * 27
    for code in codes:
        counts[code] += 1
    return rack_text(counts)


# The players that look ahead: ENDGAME solves the endgame exactly once the bag is empty, PEG
# also the pre-endgame with one tile in the bag; both play by equity before that.
ENDGAME, PEG = "endgame", "peg"
MOVE_SECONDS = 10.0  # a search's time limit per move: the best found by then is played
PEG_TOP = 5  # the pre-endgame player's candidates by equity (and the pass)


@dataclass(frozen=True)
class Player:
    """A self-play player. ``greedy`` (no leave table) plays its highest-scoring move, and
    only when it has none exchanges its whole rack (or passes when the bag is too small);
    ``equity`` plays the candidate of highest equity with its table, exchanges and the pass
    included (``engine.leaves``). With ``lookahead`` ENDGAME it plays by equity until the
    bag is empty, then the exact endgame solver's best move; PEG also plays the pre-endgame
    solver's best move (``lookahead.peg``, best reply) with one tile in the bag. A search
    stops after ``seconds`` with the best it has found (the equity move when the pre-endgame
    solver finished no candidate)."""

    name: str
    leaves: LeaveTable | None = None
    lookahead: str | None = None
    seconds: float = MOVE_SECONDS
    sim: SimBudget | None = None  # a simulating player: simulates each move, with ``leaves``
    win_table: WinTable | None = None  # (a sim player ranking by win: its win probabilities)


@dataclass(frozen=True)
class SimBudget:
    """What a ``sim`` player spends on a move: ``candidates`` moves by equity simulated for
    ``plies`` replies, at most ``iterations`` times (Macondo's stopping rule at 99%). With
    ``endgame`` (milliseconds), once the bag is empty it plays the exact endgame solver's
    best move found within that time, as Macondo's and MAGPIE's simulating players do;
    without, the equity move (a simulation has nothing to draw then). ``rank`` is what the
    candidates are ranked and dropped by: ``points`` (the mean outcome) or ``win`` (the mean
    chance to win, from the win table and the game's spread, as ``scrab sim`` ranks)."""

    iterations: int = 200
    plies: int = 2
    candidates: int = 8
    endgame: int | None = None
    rank: str = "points"


GREEDY = Player("greedy")
SIM_LIMITS = {"iterations": 100_000, "plies": 10, "candidates": 100, "endgame": 3_600_000}
SIM_RANKS = ("points", "win")


def parse_sim_budget(name: str) -> SimBudget:
    """The budget of a player named ``sim`` or ``sim:iterations=200,plies=2,candidates=8``
    (any of them, ``endgame=MS`` and ``rank=points|win`` too, in any order; the rest take
    SimBudget's defaults). ``InputError`` naming the bad part."""
    kind, colon, spec = name.partition(":")
    if kind != "sim":
        raise InputError(f"{name!r} is not a sim player")
    values: dict[str, int] = {}
    rank: str | None = None
    for part in filter(None, (p.strip() for p in spec.split(","))) if spec else ():
        key, eq, text = part.partition("=")
        key = key.strip()
        if key not in SIM_LIMITS and key != "rank" or not eq:
            raise InputError(
                f"{name}: {part!r} is not a budget (iterations=N, plies=N, candidates=N, endgame=MS or rank=points|win)"
            )
        if key in values or key == "rank" and rank is not None:
            raise InputError(f"{name}: {key} is given twice")
        text = text.strip()
        if key == "rank":
            if text not in SIM_RANKS:
                raise InputError(f"{name}: rank must be points or win, not {text!r}")
            rank = text
        elif not text.isdigit() or not 1 <= int(text) <= SIM_LIMITS[key]:
            raise InputError(f"{name}: {key} must be a whole number from 1 to {SIM_LIMITS[key]:,}, not {text!r}")
        else:
            values[key] = int(text)
    if colon and not values and rank is None:
        raise InputError(f"{name}: give a budget after the colon, e.g. sim:iterations=200,plies=2")
    default = SimBudget()
    return SimBudget(
        values.get("iterations", default.iterations),
        values.get("plies", default.plies),
        values.get("candidates", default.candidates),
        values.get("endgame", default.endgame),
        rank or default.rank,
    )


def sim_move_seed(gseed: int, turn: int) -> int:
    """The seed of the simulation a sim player runs for the game's ``turn``-th move (0 the
    first), from the game's seed: the same game, the same moves."""
    from solver_cli.lookahead.sim import iteration_seed

    return iteration_seed(gseed, -1 - turn)


def sim_choice(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    player: Player,
    seed: int,
    scoreless: int,
    spread: int = 0,
) -> Candidate | None:
    """The best move by simulation for a sim player, or None when there is nothing to
    simulate (fewer than two candidates): then the equity move stands. ``spread`` (the
    player's score minus the opponent's) matters when it ranks by win."""
    from solver_cli.lookahead.sim import TableChance, sim_candidates, simulate

    budget, leaves = player.sim, player.leaves
    assert budget is not None and leaves is not None
    by_win = budget.rank == "win"
    if by_win and player.win_table is None:
        raise ValueError(f"{player.name} ranks by win and has no win table")
    candidates = sim_candidates(board, rack, gaddag, rules, leaves, budget.candidates)
    if len(candidates) < 2:
        return None
    result = simulate(
        board,
        rack,
        gaddag,
        rules,
        leaves,
        candidates=candidates,
        plies=budget.plies,
        iterations=budget.iterations,
        seed=seed,
        scoreless=scoreless,
        spread=spread,
        win_probability=TableChance(player.win_table) if by_win and player.win_table is not None else None,
        objective="win" if by_win else "points",
    )
    return result.standings[0].candidate


def play_game(
    gaddag: Gaddag,
    rules: Rules,
    seed: int,
    index: int = 0,
    players: tuple[Player, Player] = (GREEDY, GREEDY),
    *,
    gseed: int | None = None,
    observe: Callable[[list[int], int], None] | None = None,
) -> GameResult:
    """One game between ``players`` (the first moves first), seeded with the run's ``seed``
    and the game's ``index`` (or with ``gseed`` itself). ``observe(rack, equity)``, if given,
    is called for each full rack an equity player holds with tiles in the bag, with the
    equity of the move it chose (thousandths of a point): what training learns from."""
    started = time.perf_counter()
    if gseed is None:
        gseed = game_seed(seed, index)
    rng = random.Random(gseed)
    bag = [code for code, n in enumerate(rules.counts) for _ in range(n)]
    rng.shuffle(bag)
    rack_size = rules.rack_size
    values = rules.values
    cols = rules.cols
    board = Board.empty(rules)
    squares = board.squares
    racks = [[0] * 27, [0] * 27]
    for rack in racks:
        _draw(bag, rack, rack_size)
    scores = [0, 0]
    bingos = [0, 0]
    turns: list[Turn] = []
    adjustments: list[Adjustment] = []
    scoreless = 0
    player = 0
    end = ""
    while True:
        rack = racks[player]
        before = rack_text(rack)
        leaves = players[player].leaves
        searched = _searched_move(players[player], board, racks, player, bag, scores, scoreless, gaddag, rules)
        choice: Candidate | None
        if searched is not None:
            choice = searched
        elif leaves is None:
            # The greedy choice: the highest score, ties broken as the solver ranks them (the
            # native engine keeps only the best move while it generates).
            _, best = ranked_moves(board, rack, gaddag, rules, keep=1)
            choice = best[0] if best else None
        else:
            valuation = Valuation(
                leaves,
                bag=len(bag),
                opponent=0 if bag else rack_value(racks[1 - player], values),
                exchange=rules.exchange_max if len(bag) >= rules.exchange_min_bag else 0,
                passes=True,
            )
            _, best = ranked_moves(board, rack, gaddag, rules, keep=1, valuation=valuation)
            choice = best[0]
            if players[player].sim is not None and bag:  # (with the bag empty, the equity move)
                spread = scores[player] - scores[1 - player]
                simulated = sim_choice(
                    board, rack, gaddag, rules, players[player], sim_move_seed(gseed, len(turns)), scoreless, spread
                )
                choice = simulated if simulated is not None else choice
            if observe is not None and bag and sum(rack) == rack_size:
                observe(rack, choice.equity)
        if choice is not None and choice.kind == PLACE:
            score, down, line, start, codes = choice.raw
            placed = []
            for k, code in enumerate(codes):
                row, col = (start + k, line) if down else (line, start + k)
                i = row * cols + col
                if not squares[i]:
                    squares[i] = code
                    rack[0 if code & BLANK_BIT else code] -= 1
                    placed.append((row, col, code))
            bingo = len(placed) == rack_size
            bingos[player] += bingo
            scores[player] += score
            drawn = _draw(bag, rack, len(placed))
            turns.append(
                Turn(
                    player,
                    before,
                    "play",
                    score,
                    scores[player],
                    down,
                    line,
                    start,
                    tuple(codes),
                    tuple(placed),
                    bingo,
                    drawn=_codes_text(drawn),
                )
            )
            if not any(rack):  # the bag is empty too, or the rack would have been refilled
                end = "out"
                other = 1 - player
                left = rack_value(racks[other], values)
                scores[player] += rules.out_gain * left
                adjustments.append(
                    Adjustment(player, "", rack_text(racks[other]), rules.out_gain * left, scores[player])
                )
                scores[other] -= rules.out_loss * left
                adjustments.append(
                    Adjustment(
                        other, rack_text(racks[other]), rack_text(racks[other]), -rules.out_loss * left, scores[other]
                    )
                )
                break
        elif choice is not None and choice.kind == EXCHANGE or choice is None and _may_exchange(bag, rules):
            # The equity player's choice of tiles, or (greedy, with no move) the whole rack, at
            # most exchange_max tiles. New tiles are drawn first, then the old ones go back.
            thrown = list(choice.codes) if choice is not None else _tiles(rack)[: rules.exchange_max]
            for code in thrown:
                rack[code] -= 1
            drawn = _draw(bag, rack, len(thrown))
            bag.extend(thrown)
            rng.shuffle(bag)
            score = 0
            turns.append(
                Turn(
                    player,
                    before,
                    "exchange",
                    0,
                    scores[player],
                    exchanged=_codes_text(thrown),
                    drawn=_codes_text(drawn),
                )
            )
        else:
            score = 0
            turns.append(Turn(player, before, "pass", 0, scores[player]))
        scoreless = scoreless + 1 if score == 0 else 0
        if scoreless >= rules.scoreless_turns:
            end = "scoreless"
            for p in (0, 1):
                own = rules.stuck_loss * rack_value(racks[p], values)
                scores[p] -= own
                adjustments.append(Adjustment(p, rack_text(racks[p]), rack_text(racks[p]), -own, scores[p]))
            break
        player = 1 - player

    result = GameResult(
        index=index,
        seed=gseed,
        turns=turns,
        adjustments=adjustments,
        scores=(scores[0], scores[1]),
        end=end,
        bingos=(bingos[0], bingos[1]),
        squares=tuple(squares),
        racks=(rack_text(racks[0]), rack_text(racks[1])),
        bag=_codes_text(bag),
        seconds=0.0,
        seats=(players[0].name, players[1].name),
    )
    problems = check_game(result, gaddag, rules)
    if problems:
        raise SelfPlayError(f"game {index + 1} (seed {seed}) failed its final check: " + "; ".join(problems))
    result.seconds = time.perf_counter() - started
    return result


def _searched_move(
    me: Player,
    board: Board,
    racks: list[list[int]],
    player: int,
    bag: list[int],
    scores: list[int],
    scoreless: int,
    gaddag: Gaddag,
    rules: Rules,
) -> Candidate | None:
    """The move a look-ahead player's search chooses on this turn; None when it plays by
    equity (no search for this bag, or a pre-endgame search that finished no candidate)."""
    if me.lookahead is None:
        return None
    rack, other = racks[player], racks[1 - player]
    if not bag:
        found = solve_endgame(board, rack, other, gaddag, rules, scoreless=scoreless, time_limit=me.seconds)
        return found.best[0].move if found.best else None
    if me.lookahead == PEG and len(bag) == 1:
        result = solve_pre_endgame(
            board,
            rack,
            gaddag,
            rules,
            leaves=me.leaves,
            spread=scores[player] - scores[1 - player],
            scoreless=scoreless,
            top=PEG_TOP,
            max_bag=1,
            time_limit=me.seconds,
        )
        return result.best.move if result.best is not None else None
    return None


def tile_counts(result: GameResult) -> list[int]:
    """Tiles on the final board, on both racks and in the bag, by code (index 0 = blanks)."""
    counts = [0] * 27
    for code in result.squares:
        if code:
            counts[0 if code & BLANK_BIT else code & LETTER_MASK] += 1
    for text in (*result.racks, result.bag):
        for ch in text:
            counts[0 if ch == "?" else ord(ch) - 64] += 1
    return counts


def check_game(result: GameResult, gaddag: Gaddag, rules: Rules) -> list[str]:
    """What is wrong with a finished game's final position (an empty list when all is well):
    a word on the board not in the lexicon, or tiles that do not add up to the bag."""
    problems = []
    board = Board(rules.rows, rules.cols, list(result.squares))
    for word, row, col, down in board.words():
        if not gaddag.contains(word):
            where = f"{chr(65 + col)}{row + 1}" if down else f"{row + 1}{chr(65 + col)}"
            problems.append(f"{word.upper()} at {where} is not in the lexicon")
    counts = tile_counts(result)
    if counts != list(rules.counts):
        diff = [
            f"{'?' if c == 0 else chr(64 + c)} {have - want:+d}"
            for c, (have, want) in enumerate(zip(counts, rules.counts, strict=True))
            if have != want
        ]
        problems.append("tiles do not match the distribution: " + ", ".join(diff))
    return problems


def summarize(outcomes: list[GameOutcome], seconds: float) -> Summary:
    n = len(outcomes)
    firsts = [o.scores[0] for o in outcomes]
    seconds_ = [o.scores[1] for o in outcomes]
    every = firsts + seconds_
    moves = sum(o.turns for o in outcomes)
    wall = max(seconds, 1e-9)
    return Summary(
        games=n,
        first_player_wins=sum(1 for o in outcomes if o.winner == 0),
        second_player_wins=sum(1 for o in outcomes if o.winner == 1),
        draws=sum(1 for o in outcomes if o.winner is None),
        score_mean=_mean(every),
        score_stdev=_pstdev(every),
        first_player_score_mean=_mean(firsts),
        first_player_score_stdev=_pstdev(firsts),
        second_player_score_mean=_mean(seconds_),
        second_player_score_stdev=_pstdev(seconds_),
        bingos_per_game=sum(sum(o.bingos) for o in outcomes) / n if n else 0.0,
        went_out=sum(1 for o in outcomes if o.end == "out"),
        scoreless_endings=sum(1 for o in outcomes if o.end == "scoreless"),
        moves=moves,
        plays=sum(o.plays for o in outcomes),
        seconds=seconds,
        game_seconds=sum(o.seconds for o in outcomes),
        moves_per_second=moves / wall,
        games_per_second=n / wall,
    )


def _mean(xs: list[int]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _pstdev(xs: list[int]) -> float:
    """Population standard deviation, computed exactly from integer sums (order-independent)."""
    n = len(xs)
    if n < 2:
        return 0.0
    s = sum(xs)
    ss = sum(x * x for x in xs)
    return math.sqrt(max(n * ss - s * s, 0)) / n


# --- running many games, optionally over worker processes -------------------------------

_worker: tuple[Gaddag, Rules, tuple[Player, Player], bool] | None = None


def _init_worker(gaddag: Gaddag, rules: Rules, players: tuple[Player, Player], mirrored: bool) -> None:
    """Each worker gets the parent's GADDAG (and the players' tables) once, at start-up. It
    is never loaded again by name: the word list may have been standard input or a pipe,
    which only the parent could read (and it did, once), and an in-memory GADDAG has no
    cache file."""
    global _worker
    _worker = (gaddag, rules, players, mirrored)


def play_indexed(
    gaddag: Gaddag, rules: Rules, seed: int, index: int, players: tuple[Player, Player], mirrored: bool
) -> GameResult:
    """Game ``index`` of a run: with ``mirrored``, games come in pairs on the same bag (the
    pair's seed), the second with the seats swapped, so luck of the draw cancels out."""
    if not mirrored:
        return play_game(gaddag, rules, seed, index, players)
    seats = players if index % 2 == 0 else (players[1], players[0])
    return play_game(gaddag, rules, seed, index, seats, gseed=game_seed(seed, index // 2))


def _play_in_worker(seed: int, index: int) -> GameResult:
    assert _worker is not None, "worker not initialised"
    gaddag, rules, players, mirrored = _worker
    return play_indexed(gaddag, rules, seed, index, players, mirrored)


def run_selfplay(
    gaddag: Gaddag,
    rules: Rules,
    games: int,
    seed: int,
    jobs: int = 1,
    *,
    players: tuple[Player, Player] = (GREEDY, GREEDY),
    mirrored: bool = False,
    on_game: Callable[[GameResult], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    scheduler: str | None = None,
) -> SelfPlayRun:
    """Play ``games`` games between ``players`` on ``jobs`` processes, or on the Dask cluster
    whose scheduler is at ``scheduler`` (``jobs`` then unused; ``cluster.DaskCluster`` says
    what fails how) (``mirrored``: each bag twice, seats swapped; ``games`` must then be even).

    ``jobs`` is capped at the games and at ``workers.max_jobs()`` (the run's ``jobs`` says
    how many ran); with more than one, each worker process receives ``gaddag`` once when it
    starts. ``on_game`` receives every finished game (in completion order, in this process;
    a game it was handed when the run stopped is handed again, so it must not mind seeing
    one twice, as writing a file whole does not) and ``progress(done, total)`` is called
    after each one. The outcomes come back in game
    order; the games themselves do not depend on ``jobs``. A KeyboardInterrupt ends the
    workers and comes out as ``SelfPlayStopped``, with the games finished so far.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    if mirrored and games % 2:
        raise ValueError("a mirrored run plays each bag twice: games must be even")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    jobs = capped_jobs(jobs, games)
    outcomes: list[GameOutcome] = []
    cluster = None
    if scheduler is not None:
        from solver_cli.games.cluster import DaskCluster  # (only now: distributed is optional)

        cluster = DaskCluster(scheduler, gaddag)
        try:
            jobs = cluster.workers()
        except BaseException:
            cluster.close(abort=True)
            raise
        scheduler = cluster.address
    started = time.perf_counter()

    # The game being handed over when a stop comes: on_game may have saved it already (a
    # stop between the save and the count), so the stop finishes it rather than drop it.
    in_hand: list[tuple[GameResult, GameOutcome]] = []

    def finished(result: GameResult) -> None:
        outcome = result.outcome()
        in_hand.append((result, outcome))
        if on_game is not None:
            on_game(result)
        outcomes.append(outcome)
        in_hand.clear()
        if progress is not None:
            progress(len(outcomes), games)

    def finish_in_hand() -> None:
        """Count the game in hand when the stop came, once on_game (idempotent: a record is
        written whole or not at all) has seen it through; a game on_game cannot take now is
        left out, counted and saved neither."""
        for result, outcome in in_hand:
            if outcomes and outcomes[-1] is outcome:
                continue  # (counted already)
            try:
                if on_game is not None:
                    on_game(result)
            except (KeyboardInterrupt, ScrabError):
                continue
            outcomes.append(outcome)

    try:
        if cluster is not None:
            _play_on_dask(cluster, rules, games, seed, players, mirrored, finished)
        elif jobs == 1:
            for index in range(games):
                finished(play_indexed(gaddag, rules, seed, index, players, mirrored))
        else:
            _play_on_pool(gaddag, rules, games, seed, jobs, players, mirrored, finished)
    except KeyboardInterrupt:
        finish_in_hand()
        if mirrored:  # a pair's points are shared between its two games: only whole pairs count
            done = {o.index for o in outcomes}
            outcomes = [o for o in outcomes if o.index ^ 1 in done]
        raise SelfPlayStopped(_run(seed, jobs, outcomes, started, scheduler), games) from None
    return _run(seed, jobs, outcomes, started, scheduler)


def _run(seed: int, jobs: int, outcomes: list[GameOutcome], started: float, scheduler: str | None) -> SelfPlayRun:
    outcomes.sort(key=lambda o: o.index)
    return SelfPlayRun(seed, jobs, outcomes, summarize(outcomes, time.perf_counter() - started), scheduler)


def _play_on_pool(
    gaddag: Gaddag,
    rules: Rules,
    games: int,
    seed: int,
    jobs: int,
    players: tuple[Player, Player],
    mirrored: bool,
    finished: Callable[[GameResult], None],
) -> None:
    """The games on ``jobs`` worker processes, each result passed to ``finished`` as it comes.
    The workers die with this process, and are ended at once when the run stops early."""
    pool = start_pool(jobs, _init_worker, (gaddag, rules, players, mirrored))
    try:
        # A bounded number of games in flight keeps memory flat for long runs.
        pending: set[Future[GameResult]] = set()
        next_index = 0
        limit = jobs * 4
        while next_index < games or pending:
            while next_index < games and len(pending) < limit:
                pending.add(pool.submit(_play_in_worker, seed, next_index))
                next_index += 1
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                finished(future.result())
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def _play_on_dask_worker(
    gaddag_data: GaddagData,
    rules: Rules,
    players: tuple[Player, Player],
    mirrored: bool,
    seed: int,
    first: int,
    count: int,
) -> list[GameResult]:
    """Games ``first`` to ``first + count - 1`` on a Dask worker (the GADDAG rebuilt from its
    bytes once per worker process)."""
    from solver_cli.games.cluster import gaddag_on_worker

    gaddag = gaddag_on_worker(gaddag_data)
    return [play_indexed(gaddag, rules, seed, index, players, mirrored) for index in range(first, first + count)]


def dask_batch(games: int, workers: int) -> int:
    """Games per Dask task: a few, so that a quick game (a greedy one takes milliseconds) does
    not cost more in scheduling than in play, yet some 16 tasks per worker to spread."""
    return max(1, min(16, games // (16 * workers)))


def _play_on_dask(
    cluster: DaskCluster,
    rules: Rules,
    games: int,
    seed: int,
    players: tuple[Player, Player],
    mirrored: bool,
    finished: Callable[[GameResult], None],
) -> None:
    """The games on a Dask cluster, in batches of consecutive games, each result passed to
    ``finished`` as its batch comes back (in game order within it). The connection is closed
    at the end; at once (the games still running abandoned) when the run stops early or the
    cluster fails."""
    try:
        shared_rules = cluster.scatter(rules)
        shared_players = cluster.scatter(players)
        workers = cluster.workers()
        batch = dask_batch(games, workers)
        starts = iter(range(0, games, batch))

        def submit(first: int) -> object:
            args = (cluster.gaddag, shared_rules, shared_players, mirrored, seed, first, min(batch, games - first))
            return cluster.submit(_play_on_dask_worker, *args)

        # A bounded number of batches in flight, as on the local pool, keeps memory flat.
        in_flight = cluster.as_completed([submit(first) for _, first in zip(range(4 * workers), starts, strict=False)])
        for _future, results in cluster.results(in_flight):
            following = next(starts, None)
            if following is not None:
                in_flight.add(submit(following))
            for result in results:
                finished(result)
    except BaseException:
        cluster.close(abort=True)
        raise
    cluster.close()

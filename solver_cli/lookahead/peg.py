"""The pre-endgame solver: with a few tiles in the bag, every way the unseen tiles can lie
is played out to the end of the game, and the candidates are ranked by how often they win
(in stages: the best few to exactly solved endgames, the others by estimates; below).

For each of the ``top`` candidates by equity (placements; exchanges need a fuller bag than
a pre-endgame has) and the pass, every split of the unseen tiles into the opponent's rack
and the bag is played on, each split weighted by the number of ways it can be drawn (two
identical tiles are two ways), so ``draws`` counts the unseen tiles' arrangements as if
every tile were distinct: with one tile in the bag, one draw per unseen tile. Tiles known
to be on the opponent's rack leave only the splits that give it them.

The game after a candidate, in one split:

- The candidate is played and the mover draws. When that empties the bag (a play of at
  least as many tiles as the bag holds), both racks are known and the rest of the game is
  the exact endgame, the opponent to move at its best (``solve_endgame``).
- When tiles remain in the bag (the pass, or a play of fewer tiles than the bag holds), the
  mover's draw is every sub-multiset of the bag, weighted as drawn, and the opponent
  replies without knowing which unseen tiles are the mover's and which the bag's. Its reply
  is chosen by the opponent model:

  * ``best reply`` (the default, as MAGPIE): the opponent ranks its own ``top`` candidates
    by equity and the pass by the same rule one level down, over every split of the tiles
    unseen to it (the mover's rack and the bag) as it would draw them, by its chance of
    winning and then its mean spread, and plays the best of them, the same reply in every
    split it cannot tell apart;
  * ``pessimistic``: in each split the reply worst for the mover (its chance of winning,
    then its mean spread), as if the opponent saw the mover's rack (Macondo counts a draw
    as won only when this holds).

  Below that level, whoever moves with tiles still in the bag plays its best move by equity
  (the pass included), and the game goes on the same way until the bag is empty and the
  endgame is solved exactly, or the rule set's scoreless turns end it.

The candidates are searched in stages, as MAGPIE's peg: in the first, a greedy pass, every
candidate is played out in every split with both sides playing their best move by equity to
the end of the game (the simulation's play-outs, ``lookahead.rollout``, all candidates of a
split in one native call); the best half by that estimate go on to a stage whose endgames
are searched one ply deep, and the best ``MIN_KEEP`` of those to the last stage, which
searches to the end (or ``plies`` deep). (Stages of 4 and 7 plies in between cost more than
they saved: a depth-limited endgame ends in a greedy play-out at every leaf, which can cost
more than proving the endgame outright; docs/performance.md.) A candidate
whose endgames were all proven is exact already and is not searched again. In the last
stage a candidate is cut off as soon as it can no longer rank above the best one finished
there (Macondo's early cutoff: its wins so far and every split not yet played out fall
short) and keeps the stage before's figures, marked ``cut_off``, with that most
(``wins_at_most``). A candidate an earlier stage dropped whose estimate wins more than the
last stage's best wins exactly enters the last stage too, the estimate that dropped it
having been beaten by exact figures. There each candidate
first has a turn of ``ROUND_START`` seconds, then those not finished go on in turn without
one: a candidate whose endgames take minutes does not hold up another's that take a
second, which a time limit then finds finished (and which may cut the slow one off). In the stages
the opponent model's reply (level 1 above) is chosen by greedy play-outs, since weighing
some 20 replies over every split at each stage's depth would cost more than all the other
candidates together; the reply chosen is then searched at the stage's depth. The candidates
are ranked by the last stage they reached, then by win rate and mean spread; so the top
ones carry exact figures and a candidate dropped early carries its estimate, marked by its
``plies``. ``exhaustive`` searches every candidate to the last stage at once.

A result of the search (wins, draws half; mean spread) is per candidate, from the mover's
side, with the game's current ``spread`` counted in. Nothing here prints: progress goes
through a callback; a time limit or Ctrl-C keeps the candidates finished so far.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import permutations
from math import comb

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import BLANK_BIT
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import LeaveTable, Valuation
from solver_cli.engine.movegen import PASS, PLACE, Candidate, ranked_moves
from solver_cli.engine.rules import Rules
from solver_cli.engine.unseen import check_opponent_tiles, unseen_tiles
from solver_cli.errors import InputError
from solver_cli.lookahead import endgame
from solver_cli.lookahead.endgame import DEFAULT_TT_MB, INTERRUPTED, TIME
from solver_cli.lookahead.rollout import pack_candidates, play_outs
from solver_cli.lookahead.sim import MAX_PLIES
from solver_cli.lookahead.wordprune import pruned_gaddag

BEST_REPLY, PESSIMISTIC = "best reply", "pessimistic"
MODELS = (BEST_REPLY, PESSIMISTIC)
DEFAULT_TOP = 20
DEFAULT_MAX_BAG = 2
MAX_BAG_LIMIT = 7  # beyond a rack's worth of tiles the splits are far too many to play out
MAX_TOP = 1000
GREEDY = 0  # a stage's plies for the greedy pass
GREEDY_REPLIES = MAX_PLIES  # the play-outs' most replies (the native loop's bound): enough to end a game
MAX_SPREAD = 1_000_000  # far beyond any game's, and every sum of it with a value stays small
MIN_KEEP = 2  # the candidates the last stage searches to the end (MAGPIE ends its halving at 2)
# How far below the estimated value a verdict's first null window is set, where the threshold
# is farther below it (``_Search.verdict``; docs/performance.md)
PROBE_MARGIN = 20
ROUND_START = 2.0  # seconds: a candidate's first turn in the last stage (docs/performance.md)
FIRST_BUDGET = 0.25  # seconds: a verdict's first null windows are cut there, the next at twice as long
PASS_MOVE = Candidate(0, 0, PASS, False, 0, 0, ())

# An endgame as the search keeps it: the board's squares, both racks, the scoreless turns so far.
EndgameKey = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]


@dataclass(frozen=True)
class _Endgame:
    """An endgame the search values or settles: the board, the side to move's rack and the
    other's, the scoreless turns so far, and the key its findings are kept under."""

    key: EndgameKey
    board: Board
    mover: list[int]
    opponent: list[int]
    scoreless: int

    @classmethod
    def of(cls, board: Board, mover: list[int], opponent: list[int], scoreless: int) -> _Endgame:
        return cls((tuple(board.squares), tuple(mover), tuple(opponent), scoreless), board, mover, opponent, scoreless)


# A distribution of outcomes: (probability, final spread change from one side's view).
Outcomes = list[tuple[Fraction, int]]


@dataclass(frozen=True)
class BagOutcome:
    """A candidate's result in the splits whose bag holds ``bag`` (27 counts): ``wins`` of
    its ``draws`` (the ways the tiles can lie so) won, a tie counting half (a share of a
    draw where the mover then draws from the bag at random). Macondo's peg lists them too:
    which tiles in the bag win, tie or lose."""

    bag: tuple[int, ...]
    draws: int
    wins: float


@dataclass(frozen=True)
class PegCandidate:
    """One candidate's result over every draw: ``wins`` counts the draws won (a draw tied
    counts half) out of ``draws``; ``spread_mean`` is the mean final spread (the game's
    spread before the move included); ``endgames`` how many distinct endgames were valued
    for it in its last stage (searched, or by greedy play-outs for a reply's choice; 0 after
    the greedy stage), ``proven`` whether every one of them was proven (the figures are
    then exact)."""

    move: Candidate
    wins: float
    draws: int
    win_rate: float
    spread_mean: float
    endgames: int
    proven: bool
    stage: int = 1  # the last stage (1, 2, ...) that searched it or found it exact already
    plies: int | None = None  # how deep its endgames were searched; None: to the end; 0: greedy play-outs
    spread_exact: bool = True  # False: the last stage settled who wins; the spread is the stage before's
    # True: the last stage stopped searching it once it could no longer rank above the best
    # move of that stage (Macondo's "early cutoff"); its figures are the stage before's
    cut_off: bool = False
    by_bag: tuple[BagOutcome, ...] = ()  # its wins split by the tiles in the bag, in the splits' order
    # With cut_off: the most it could still win when the last stage cut it off (its wins there
    # so far and every draw not played out), which the stage before's figures may exceed
    wins_at_most: float | None = None


@dataclass(frozen=True)
class Stage:
    plies: int | None  # each endgame's depth in this stage; None: to the end; 0: greedy play-outs
    moves: int  # candidates that enter it
    first_win: bool = False  # its endgames settle who wins only, not the final spread


@dataclass(frozen=True)
class PegResult:
    candidates: tuple[PegCandidate, ...]  # the finished ones, best first (``rank_key``)
    model: str  # BEST_REPLY or PESSIMISTIC
    bag: int  # tiles in the bag
    unseen: int  # tiles unseen by the mover (the opponent's rack and the bag)
    draws: int  # the equally likely ways the unseen tiles can lie
    spread: int  # the mover's spread before the move
    considered: int  # candidates to evaluate (the pass included)
    stopped: str | None  # TIME or INTERRUPTED when some candidates were not finished
    seconds: float
    # The plan (a search stopped early may not reach its end); the last stage's moves count
    # those that entered it, moves an earlier stage dropped and searched again included
    stages: tuple[Stage, ...] = ()
    opponent_rack: tuple[int, ...] | None = None  # the tiles known to be on the opponent's rack (27 counts; None: none)
    reached: int = 0  # the stage (from 1) searched last: where a stopped search stopped

    @property
    def best(self) -> PegCandidate | None:
        return self.candidates[0] if self.candidates else None


PegProgress = Callable[[int, int, PegCandidate], None]  # candidates done, to do, the last one


class PegStopped(KeyboardInterrupt):
    """Ctrl-C during the search: ``result`` holds the candidates finished so far."""

    def __init__(self, result: PegResult):
        super().__init__("pre-endgame search stopped")
        self.result = result


class _OutOfTime(Exception):
    """The time limit ran out in the middle of a candidate."""


class _RoundOver(Exception):
    """A candidate's turn in the last stage ran out (``_Search.round_end``): it is taken up
    again after the others, without a turn's end."""


def pre_endgame_bag(board: Board, rack: list[int], rules: Rules) -> int:
    """How many tiles are in the bag, seen from the side holding ``rack``: the unseen tiles
    less the opponent's full rack."""
    return max(0, unseen_tiles(board, rack, rules).total - rules.rack_size)


def solve_pre_endgame(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    *,
    leaves: LeaveTable | None = None,
    spread: int = 0,
    scoreless: int = 0,
    top: int = DEFAULT_TOP,
    max_bag: int = DEFAULT_MAX_BAG,
    model: str = BEST_REPLY,
    time_limit: float | None = None,
    tt_mb: int = DEFAULT_TT_MB,
    progress: PegProgress | None = None,
    engine: str | None = None,
    plies: int | None = None,
    exhaustive: bool = False,
    exact_spread: bool = False,
    opponent_rack: list[int] | None = None,
) -> PegResult:
    """Rank the ``top`` best candidates by equity (``leaves``; None ranks by score) and the
    pass for ``rack`` (27 counts) by their chance of winning over every split of the unseen
    tiles, in stages (see the module docstring). ``spread`` is the mover's score minus the
    opponent's, ``scoreless`` the scoreless turns in a row already made. ``plies`` limits
    the last stage's endgames (None: to the end); ``exhaustive`` searches every candidate
    in that stage. The last stage settles only who wins each split ("first win"), and a
    candidate's mean spread is then the stage before's estimate (``spread_exact`` False),
    unless ``exact_spread``, which solves each of its endgames for its value (slower).
    ``time_limit`` (seconds) and Ctrl-C (``PegStopped``) keep the candidates finished so
    far, each with its figures from the last stage it finished.

    ``opponent_rack`` (27 counts) holds tiles known to be on the opponent's rack, some or
    all of it (a phony challenged off shows them; Macondo's peg takes them too): only the
    splits that give the opponent those tiles are played out, each weighted by the ways the
    rest of its rack can be drawn from the other unseen tiles. The opponent's own choices
    do not change: it still cannot tell the mover's tiles from the bag's."""
    started = time.perf_counter()
    bag = _check(board, rack, rules, spread, scoreless, top, max_bag, model, time_limit, plies)
    unseen = list(unseen_tiles(board, rack, rules).counts)
    opponent_size = sum(unseen) - bag
    held = check_opponent_tiles(opponent_rack, unseen, opponent_size)
    # Every tile played from here on is the rack's or an unseen one: one small GADDAG serves
    # every candidate, reply and endgame below (wordprune).
    gaddag = pruned_gaddag(board, [a + b for a, b in zip(rack, unseen, strict=True)], gaddag)
    search = _Search(board, gaddag, rules, leaves, top, model, tt_mb, engine, time_limit, started, known=held)
    candidates = search.candidates(board, rack, bag)
    draws = comb(sum(unseen) - sum(held), opponent_size - sum(held))
    stages = stage_plan(len(candidates), plies, exhaustive, first_win=not exact_spread)
    if len(stage_plan(len(candidates), plies, exhaustive)) > 1:
        # The pass's reply is chosen over some 20 replies times every split: at each stage's
        # depth that would cost as much as all the other candidates together. (Searching
        # every candidate at once, it is chosen at the stage's depth.)
        search.choice_plies = GREEDY
    finished: dict[int, PegCandidate] = {}  # by the candidate's place in equity order
    wins_exact: dict[int, Fraction] = {}  # their wins as searched (not by greedy play-outs), exactly
    stopped: str | None = None
    reached = 0

    def ranked() -> list[int]:
        return sorted(finished, key=lambda i: rank_key(finished[i], i, len(stages)))

    def result() -> PegResult:
        return PegResult(
            tuple(finished[i] for i in ranked()),
            model,
            bag,
            sum(unseen),
            draws,
            spread,
            len(candidates),
            stopped,
            time.perf_counter() - started,
            stages,
            tuple(held) if any(held) else None,
            reached,
        )

    total = sum(stage.moves for stage in stages)
    done = 0

    def play_stage(pending: list[int], entering: list[int], number: int, stage: Stage) -> None:
        """Search the candidates ``pending`` at ``stage``; ``entering``: every candidate of
        the stage (for the best one so far, which a candidate of the last stage that can no
        longer rank above it is cut off at)."""
        nonlocal done
        last = number == len(stages)
        # In the last stage each candidate first has a turn of ROUND_START seconds, then
        # those not finished go on without one: one whose endgames take minutes does not
        # hold up another's that take a second (which then ranks, with exact figures, if
        # the time runs out, and may cut the slow one off). What a turn settled is kept.
        # (One turn only: a search cut by a turn's end starts again from nothing, and
        # turns doubling each round cost up to 2.4 times the time on bench positions.)
        turn = ROUND_START if last else None
        while pending:
            waiting: list[int] = []
            for i in pending:
                known = finished.get(i)
                if known is not None and known.proven:  # exact already: deeper changes nothing
                    finished[i] = dataclasses.replace(known, stage=number)
                else:
                    beaten = None
                    if last and not exhaustive and known is not None:
                        beaten = _beaten(finished, wins_exact, entering, number, len(stages), i, known, stage)
                    alone = not waiting and i == pending[-1]  # (no other to give the time to)
                    search.round_end = None if turn is None or alone else time.perf_counter() + turn
                    try:
                        evaluated = search.evaluate(
                            candidates[i], rack, unseen, opponent_size, spread, scoreless, draws, beaten
                        )
                    except _RoundOver:
                        waiting.append(i)
                        continue
                    finally:
                        search.round_end = None
                    if isinstance(evaluated, Fraction):  # it cannot rank above this stage's best
                        assert known is not None  # (the stage before's figures, and the most it can win)
                        finished[i] = dataclasses.replace(known, cut_off=True, wins_at_most=float(evaluated))
                    else:
                        found, wins_exact[i] = evaluated
                        found = dataclasses.replace(found, stage=number, plies=stage.plies)
                        if search.first_win and known is not None:  # (who wins is settled; the spread estimated)
                            found = dataclasses.replace(found, spread_mean=known.spread_mean, spread_exact=False)
                        finished[i] = found
                done += 1
                if progress is not None:
                    progress(done, total, finished[i])
            pending = waiting
            turn = None

    try:
        for number, stage in enumerate(stages, 1):
            reached = number
            entering = list(range(len(candidates))) if number == 1 else ranked()[: stage.moves]
            search.plies = stage.plies
            if stage.plies == GREEDY:
                for i, found in enumerate(
                    search.greedy(candidates, rack, unseen, opponent_size, bag, spread, scoreless)
                ):
                    finished[i] = found
                    done += 1
                    if progress is not None:
                        progress(done, total, found)
                continue
            search.first_win = stage.first_win
            play_stage(list(entering), entering, number, stage)
            if number == len(stages) and not exhaustive:
                # A move dropped by an earlier stage whose estimate wins more draws than the
                # last stage's best wins exactly is searched there too (cut off as soon as it
                # cannot rank above the best): the estimate that dropped it was beaten.
                while promoted := _outranking(finished, entering, ranked()):
                    entering += promoted
                    total += len(promoted)
                    stages = (*stages[:-1], dataclasses.replace(stage, moves=len(entering)))
                    play_stage(promoted, entering, number, stage)
            if all(finished[i].proven for i in entering):
                break  # every survivor is exact: no deeper stage can change the ranking
    except _OutOfTime:
        stopped = TIME
    except KeyboardInterrupt:
        stopped = INTERRUPTED
        raise PegStopped(result()) from None
    return result()


def _outranking(finished: dict[int, PegCandidate], entering: list[int], ranked: list[int]) -> list[int]:
    """The candidates an earlier stage dropped (not in ``entering``, the last stage's) whose
    estimate wins more draws than the best of the last stage (first of ``ranked``) won. (Not
    as many and a higher mean spread: the spreads are estimates of different stages, and a
    move that ties must be searched to its end, at times for minutes.)"""
    best = finished[ranked[0]]
    return [i for i in ranked if i not in entering and not finished[i].proven and shown_wins(finished[i]) > best.wins]


def _beaten(
    finished: dict[int, PegCandidate],
    wins_exact: dict[int, Fraction],
    entering: list[int],
    number: int,
    stages: int,
    index: int,
    known: PegCandidate,
    stage: Stage,
) -> Callable[[Fraction], bool] | None:
    """For candidate ``index`` (``known``: its figures from the stage before) entering the
    last stage, ``number``: a test of the most it could still win there, true when that
    cannot rank it above the best candidate finished in this stage so far (Macondo's early
    cutoff); None before any has finished. Its rank would be the stage's, ties broken as
    ``rank_key`` does: settling who wins only, its spread is the stage before's, known now;
    solving for the spread too, a tie is not settled until the spread is."""
    done = [j for j in entering if j in finished and finished[j].stage == number and j in wins_exact]
    if not done:
        return None
    leader = min(done, key=lambda j: rank_key(finished[j], j, stages))
    bar = wins_exact[leader]
    ahead = finished[leader]
    ties_lose = stage.first_win and (-ahead.spread_mean, leader) < (-known.spread_mean, index)
    return lambda most: most < bar or (ties_lose and most == bar)


def rank_key(candidate: PegCandidate, index: int, stages: int) -> tuple[int, float, float, int]:
    """The order of the results: the deepest stage first, a proven candidate counting as
    the last stage's (its figures are exact, however early); then win rate (a move cut off:
    no more than the most it could still win) and mean spread; ties in equity order
    (``index``)."""
    depth = stages if candidate.proven else candidate.stage
    return (-depth, -shown_win_rate(candidate), -candidate.spread_mean, index)


def shown_wins(candidate: PegCandidate) -> float:
    """The wins to show and rank a candidate by: its own, but for a move cut off no more
    than the most it could still win when it was (the stage before's estimate may be more)."""
    if candidate.cut_off and candidate.wins_at_most is not None:
        return min(candidate.wins, candidate.wins_at_most)
    return candidate.wins


def shown_win_rate(candidate: PegCandidate) -> float:
    return shown_wins(candidate) / candidate.draws if candidate.cut_off else candidate.win_rate


def stage_plan(
    candidates: int, plies: int | None = None, exhaustive: bool = False, first_win: bool = False
) -> tuple[Stage, ...]:
    """The stages for ``candidates`` moves: greedy play-outs for all, endgames one ply deep
    for the best half (when that is more than ``MIN_KEEP`` and ``plies`` is not 1), then the
    last stage for the best ``MIN_KEEP``, ``plies`` deep (None: to the end). One stage for
    every move with ``exhaustive`` or at most ``MIN_KEEP`` moves, after greedy play-outs
    for all with ``first_win`` (whose last stage estimates no spread)."""
    if exhaustive or candidates <= MIN_KEEP:
        if first_win:
            return (Stage(GREEDY, candidates), Stage(plies, candidates, first_win=True))
        return (Stage(plies, candidates),)
    plan = [Stage(GREEDY, candidates)]
    half = (candidates + 1) // 2
    if half > MIN_KEEP and (plies is None or plies > 1):
        plan.append(Stage(1, half))
    plan.append(Stage(plies, MIN_KEEP, first_win=first_win))
    return tuple(plan)


def _check(
    board: Board,
    rack: list[int],
    rules: Rules,
    spread: int,
    scoreless: int,
    top: int,
    max_bag: int,
    model: str,
    time_limit: float | None,
    plies: int | None,
) -> int:
    if plies is not None and (type(plies) is not int or not 1 <= plies <= endgame.MAX_PLIES):
        raise InputError(f"plies must be 1..{endgame.MAX_PLIES}, not {plies!r}")
    if type(top) is not int or not 1 <= top <= MAX_TOP:
        raise InputError(f"top must be 1..{MAX_TOP}, not {top!r}")
    if type(max_bag) is not int or not 1 <= max_bag <= MAX_BAG_LIMIT:
        raise InputError(f"max_bag must be 1..{MAX_BAG_LIMIT}, not {max_bag!r}")
    if model not in MODELS:
        raise InputError(f"the opponent model must be {' or '.join(repr(m) for m in MODELS)}, not {model!r}")
    if type(spread) is not int or not -MAX_SPREAD <= spread <= MAX_SPREAD:
        raise InputError(f"spread must be an integer from {-MAX_SPREAD:,} to {MAX_SPREAD:,}, not {spread!r}")
    if type(scoreless) is not int or not 0 <= scoreless < rules.scoreless_turns:
        raise InputError(f"scoreless must be 0..{rules.scoreless_turns - 1}, not {scoreless!r}")
    if time_limit is not None and not 0 < time_limit <= 86_400:
        raise InputError(f"the time limit must be more than 0 and at most 86,400 seconds, not {time_limit!r}")
    if len(rack) != 27 or not any(rack):
        raise InputError("the rack is empty: there is nothing to play")
    over = unseen_tiles(board, rack, rules).over
    if over:
        letter, held, count = over[0]
        raise InputError(f"the board and the rack hold {held} {letter} tiles, but the rule set has only {count}")
    bag = pre_endgame_bag(board, rack, rules)
    if bag == 0:
        raise InputError("the bag is empty: this is an endgame (scrab endgame solves it)")
    if bag > max_bag:
        raise InputError(
            f"the bag holds {bag} tiles: the pre-endgame solver takes 1 to {max_bag} (raise max_bag for more)"
        )
    return bag


@dataclass
class _Search:
    board: Board
    gaddag: Gaddag
    rules: Rules
    leaves: LeaveTable | None
    top: int
    model: str
    tt_mb: int
    engine: str | None
    time_limit: float | None
    started: float
    known: list[int] | None = None  # tiles known to be on the opponent's rack (27 counts; None: none)
    plies: int | None = None  # the depth of the endgames searched now; None: to the end
    choice_plies: int | None = None  # the depth the opponent model's reply is chosen at; None: plies
    # Endgames valued so far, by (squares, mover, opponent, scoreless): a proven value serves
    # at any depth (``exact``), an estimate at its own (``estimates``, keyed with the plies).
    exact: dict[EndgameKey, int] = field(default_factory=dict)
    estimates: dict[tuple[EndgameKey, int | None], int] = field(default_factory=dict)
    used: set[EndgameKey] = field(default_factory=set)
    proven: bool = True
    # With first_win, endgames are only asked who wins (``verdict``): their sides (-1, 0, 1)
    # by (position, threshold, plies), a proven one by plies None too.
    first_win: bool = False
    verdicts: dict[tuple[EndgameKey, int, int | None], int] = field(default_factory=dict)
    round_end: float | None = None  # the end of the candidate's turn in the last stage (perf_counter)
    # The greedy play-outs' leave table and engine, settled once: a fresh zero table would
    # be checked and copied for the native loop at every play-out.
    play_leaves: LeaveTable = field(init=False)
    play_engine: str = field(init=False)

    def __post_init__(self) -> None:
        self.play_leaves = self.leaves if self.leaves is not None else LeaveTable.zeros()
        self.play_engine = self.engine if self.engine is not None else movegen.chosen_engine()

    def remaining(self) -> float | None:
        """Seconds left of the time limit or of the candidate's turn, whichever ends first
        (None: neither is set); ``_OutOfTime`` or ``_RoundOver`` when none are."""
        now = time.perf_counter()
        left = None if self.time_limit is None else self.time_limit - (now - self.started)
        if left is not None and left <= 0:
            raise _OutOfTime
        if self.round_end is not None:
            turn = self.round_end - now
            if turn <= 0:
                raise _RoundOver
            if left is None or turn < left:
                return turn
        return left

    def out_of_time(self) -> Exception:
        """What a search cut by ``remaining()``'s time raises: the end of the candidate's turn
        when that came first, else the time limit's."""
        if self.round_end is not None and (self.time_limit is None or self.round_end < self.started + self.time_limit):
            return _RoundOver()
        return _OutOfTime()

    # --- the candidates ------------------------------------------------------------------

    def candidates(self, board: Board, rack: list[int], bag: int) -> list[Candidate]:
        """The ``top`` best placements by equity with ``bag`` tiles in the bag, then the pass
        (where it ranks among them, or last)."""
        valuation = Valuation(self.leaves, bag=bag, passes=True)
        _, ranked = ranked_moves(
            board, rack, self.gaddag, self.rules, keep=self.top + 1, valuation=valuation, engine=self.engine
        )
        chosen = [c for c in ranked if c.kind == PLACE][: self.top]
        if any(c.kind == PASS for c in ranked[: len(chosen) + 1]):
            return ranked[: len(chosen) + 1]
        return [*chosen, PASS_MOVE._replace(leave=valuation.leave_term(rack, self.rules))]

    # --- one candidate -------------------------------------------------------------------

    def evaluate(
        self,
        move: Candidate,
        rack: list[int],
        unseen: list[int],
        opponent_size: int,
        spread: int,
        scoreless: int,
        draws: int,
        beaten: Callable[[Fraction], bool] | None = None,
    ) -> tuple[PegCandidate, Fraction] | Fraction:
        """The candidate's figures over every split, and its wins exactly; as soon as
        ``beaten`` says that the most it could still win (every split not yet played out
        won) is not enough, that most instead."""
        self.used = set()
        self.proven = True
        wins = Fraction(0)
        total = Fraction(0)
        unplayed = draws
        by_bag: list[BagOutcome] = []
        for opponent, bag, ways in _splits(unseen, opponent_size, self.known):
            if beaten is not None and beaten(wins + unplayed):
                return wins + unplayed
            won = Fraction(0)
            for p, value in self.after_move(self.board, rack, move, opponent, bag, scoreless, spread, 1):
                won += ways * p * _points(spread + value)
                total += ways * p * (spread + value)
            wins += won
            by_bag.append(BagOutcome(tuple(bag), ways, float(won)))
            unplayed -= ways
        found = PegCandidate(
            move,
            float(wins),
            draws,
            float(wins / draws),
            float(total / draws),
            len(self.used),
            self.proven,
            by_bag=tuple(by_bag),
        )
        return found, wins

    def greedy(
        self,
        moves: list[Candidate],
        rack: list[int],
        unseen: list[int],
        opponent_size: int,
        bag_size: int,
        spread: int,
        scoreless: int,
    ) -> list[PegCandidate]:
        """Every candidate's estimate by greedy play: in each split and each order the bag
        can be drawn in (equally likely), the candidate and then both sides' best moves by
        equity to the end of the game, scored as played (a play-out still going after
        ``GREEDY_REPLIES`` replies, which takes single tiles and passes, is scored as far
        as it went)."""
        packed = pack_candidates(moves)
        live = list(range(len(moves)))
        wins = [Fraction(0)] * len(moves)
        total = [Fraction(0)] * len(moves)
        by_bag: list[list[BagOutcome]] = [[] for _ in moves]
        weight = 0
        for opponent, bag, ways in _splits(unseen, opponent_size, self.known):
            tiles = [code for code, n in enumerate(bag) for _ in range(n)]
            orders = sorted(set(permutations(tiles, bag_size)))
            won = [Fraction(0)] * len(moves)
            for order in orders:
                self.remaining()
                outcomes = play_outs(
                    self.board, rack, self.gaddag, self.rules, self.play_leaves, moves, packed, live, opponent,
                    list(order), 0, GREEDY_REPLIES, scoreless, self.play_engine,
                )  # fmt: skip
                share = Fraction(ways, len(orders))
                for k, outcome in enumerate(outcomes):
                    won[k] += share * _points(spread + outcome.points)
                    total[k] += share * (spread + outcome.points)
            for k in range(len(moves)):
                wins[k] += won[k]
                by_bag[k].append(BagOutcome(tuple(bag), ways, float(won[k])))
            weight += ways
        return [
            PegCandidate(
                m, float(w), weight, float(w / weight), float(t / weight), 0, False, 1, GREEDY, by_bag=tuple(b)
            )
            for m, w, t, b in zip(moves, wins, total, by_bag, strict=True)
        ]

    def greedy_endgame(self, at: _Endgame) -> int:
        """The endgame's value from the mover's side by greedy play: both sides' best moves by
        equity to the end of the game, as the greedy pass plays them."""
        board, mover = at.board, at.mover
        valuation = Valuation(self.play_leaves, bag=0, opponent=_face(at.opponent, self.rules.values), passes=True)
        _, ranked = ranked_moves(board, mover, self.gaddag, self.rules, keep=1, valuation=valuation, engine=self.engine)
        first = ranked[0] if ranked else PASS_MOVE
        outcome = play_outs(
            board, mover, self.gaddag, self.rules, self.play_leaves, [first], pack_candidates([first]), [0],
            at.opponent, [], 0, GREEDY_REPLIES, at.scoreless, self.play_engine,
        )[0]  # fmt: skip
        return outcome.points

    def after_move(
        self,
        board: Board,
        rack: list[int],
        move: Candidate,
        opponent: list[int],
        bag: list[int],
        scoreless: int,
        spread: int,
        level: int,
    ) -> Outcomes:
        """The outcomes, from the mover's side, of playing ``move`` from ``rack`` against
        ``opponent`` with ``bag`` (counts) left: the mover draws, then the opponent moves
        (at ``level``: 1 the opponent model, deeper its best move by equity)."""
        # The time is asked here too, not only as endgames start: with 3 or more tiles in the
        # bag a candidate's replies, play-outs and move lists took up to a second between two.
        self.remaining()
        limit = self.rules.scoreless_turns
        values = self.rules.values
        after, left = _played(board, rack, move)
        placed = sum(rack) - sum(left)
        score = move.score if move.kind == PLACE else 0
        scoreless = scoreless + 1 if score == 0 else 0
        in_bag = sum(bag)
        if scoreless >= limit:  # the game ends before anyone draws
            stuck = self.rules.stuck_loss
            return [(Fraction(1), score - stuck * _face(left, values) + stuck * _face(opponent, values))]
        if placed >= in_bag:  # the mover takes the whole bag: the endgame, the opponent to move
            mine = [a + b for a, b in zip(left, bag, strict=True)]
            return [(Fraction(1), score - self.endgame(after, opponent, mine, scoreless, spread + score))]
        outcomes: Outcomes = []
        for drawn, p in _draws(bag, placed):
            mine = [a + b for a, b in zip(left, drawn, strict=True)]
            rest = [a - b for a, b in zip(bag, drawn, strict=True)]
            for q, value in self.reply(after, opponent, mine, rest, scoreless, -(spread + score), level):
                outcomes.append((p * q, score - value))
        return outcomes

    def reply(
        self,
        board: Board,
        rack: list[int],
        other: list[int],
        bag: list[int],
        scoreless: int,
        spread: int,
        level: int,
    ) -> Outcomes:
        """The outcomes, from the side to move's (holding ``rack``, ``spread`` ahead), with
        tiles in the bag: at level 1 the opponent model's reply, deeper the best by equity."""
        if level > 1:
            return self.after_move(
                board, rack, self.static_move(board, rack, bag), other, bag, scoreless, spread, level + 1
            )
        moves = self.candidates(board, rack, sum(bag))
        deep = self.plies
        if self.choice_plies is not None and (deep is None or self.choice_plies < deep):
            self.plies = self.choice_plies  # the reply is chosen by the shallow estimate (staged search)
        try:
            if self.model == PESSIMISTIC:
                # The reply worst for the other side: the best for this one, seen with every tile.
                found = [self.after_move(board, rack, m, other, bag, scoreless, spread, level + 1) for m in moves]
                best = moves[max(range(len(moves)), key=lambda k: _standing(found[k], spread))]
            else:
                best = self.best_reply(board, rack, moves, other, bag, scoreless, spread, level)
        finally:
            self.plies = deep
        return self.after_move(board, rack, best, other, bag, scoreless, spread, level + 1)

    def best_reply(
        self,
        board: Board,
        rack: list[int],
        moves: list[Candidate],
        other: list[int],
        bag: list[int],
        scoreless: int,
        spread: int,
        level: int,
    ) -> Candidate:
        """The reply that wins most often (then by the best mean spread) over every split
        this side cannot tell apart: one choice for all of them."""
        hidden = [a + b for a, b in zip(other, bag, strict=True)]
        best: Candidate | None = None
        best_standing: tuple[Fraction, Fraction] | None = None
        for m in moves:
            pooled: Outcomes = []
            for their, rest, ways in _splits(hidden, sum(other)):
                for p, value in self.after_move(board, rack, m, their, rest, scoreless, spread, level + 1):
                    pooled.append((ways * p, value))
            standing = _standing(pooled, spread)
            if best_standing is None or standing > best_standing:
                best, best_standing = m, standing
        assert best is not None
        return best

    def static_move(self, board: Board, rack: list[int], bag: list[int]) -> Candidate:
        valuation = Valuation(self.leaves, bag=sum(bag), passes=True)
        _, ranked = ranked_moves(board, rack, self.gaddag, self.rules, keep=1, valuation=valuation, engine=self.engine)
        return ranked[0] if ranked else PASS_MOVE

    def endgame(self, board: Board, mover: list[int], opponent: list[int], scoreless: int, threshold: int) -> int:
        """The endgame's value from ``mover``'s side at the depth searched now (each position
        valued once a depth; a proven value serves at any depth). The other side wins when
        it is below ``threshold`` (that side's spread before it): with ``first_win`` only
        that is settled, and the value returned is threshold - 1, threshold or threshold + 1,
        which tells who wins and nothing more."""
        at = _Endgame.of(board, mover, opponent, scoreless)
        self.used.add(at.key)
        if self.first_win and self.plies != GREEDY:
            return self.verdict(at, threshold)
        return self.value(at)

    def value(self, at: _Endgame) -> int:
        """The endgame's value at the depth searched now, each position valued once a depth."""
        key = at.key
        value = self.exact.get(key)
        if value is not None:
            return value
        value = self.estimates.get((key, self.plies))
        if value is None:
            if self.plies == GREEDY:
                value = self.greedy_endgame(at)
            else:
                value, proven = self.search_endgame(at)
                if proven:
                    self.exact[key] = value
                    return value
            self.estimates[(key, self.plies)] = value
        self.proven = False
        return value

    def verdict(self, at: _Endgame, threshold: int) -> int:
        """``endgame`` with ``first_win``: an exact value or a verdict known already settles
        it; else ``settle``."""
        key = at.key
        value = self.exact.get(key)
        if value is not None:
            return threshold + _sign(value - threshold)
        side = self.known_side(key, threshold)
        if side is None:
            side = self.settle(at, threshold)
        if self.verdicts.get((key, threshold, None)) is None:
            self.proven = False
        return threshold + side

    def settle(self, at: _Endgame, threshold: int) -> int:
        """Where the value lies against ``threshold`` (-1, 0, 1), as the stage before's
        estimate of the value (else a greedy play-out) suggests (docs/endgame.md, "Who
        wins"). A null window can cost many times the value, far above it or far below it,
        and a window near the value costs most:

        - estimate below the threshold: the threshold's window, cut at ``FIRST_BUDGET``
          seconds, then the value (which costs the same or less, but not always: at times
          the window takes milliseconds where the value takes a minute);
        - estimate above it by more than ``PROBE_MARGIN``: the threshold's window and one
          that far below the estimate in turn, each cut at ``FIRST_BUDGET`` seconds, then
          twice that, until one settles it; a value above the second is above the threshold,
          below it the bound that search gives may settle it, or the next window is that far
          below the bound;
        - else: the threshold's window alone."""
        key = at.key
        estimate = self.estimate(at)
        if estimate < threshold:
            found = self.decide(at, threshold, FIRST_BUDGET)
            if found is not None:
                return found[0]
            side = _sign(self.value(at) - threshold)
            self.verdicts[(key, threshold, None if key in self.exact else self.plies)] = side
            return side
        probe, budget = estimate - PROBE_MARGIN, FIRST_BUDGET
        while True:
            if probe <= threshold:  # (no window between the estimate and the threshold)
                found = self.decide(at, threshold)
                assert found is not None  # (no budget to cut it)
                return found[0]
            # the threshold's window and the probe's in turn, each cut at the budget, which
            # doubles: neither's worst case is paid in full
            found = self.decide(at, threshold, budget)
            if found is not None:
                return found[0]
            found = self.decide(at, probe, budget)
            if found is not None:
                probed, bound = found
                if probed >= 0 or bound < threshold:
                    # at least the probe, above the threshold; or at most the bound, below it
                    side = 1 if probed >= 0 else -1
                    self.verdicts[(key, threshold, self.plies)] = side
                    if self.verdicts.get((key, probe, None)) is not None:
                        self.verdicts[(key, threshold, None)] = side
                    return side
                probe = bound - PROBE_MARGIN  # (the value is at most the bound: the next window below it)
            budget *= 2

    def estimate(self, at: _Endgame) -> int:
        """The endgame's value as the stage before estimated it (1 ply deep), else by a
        greedy play-out."""
        estimate = self.estimates.get((at.key, 1))
        return estimate if estimate is not None else self.greedy_endgame(at)

    def known_side(self, key: EndgameKey, threshold: int) -> int | None:
        """Where the value lies against ``threshold`` as found before: proven (or searched
        to the end), else at the depth searched now; None when not asked yet."""
        side = self.verdicts.get((key, threshold, None))
        return side if side is not None else self.verdicts.get((key, threshold, self.plies))

    def decide(self, at: _Endgame, threshold: int, budget: float | None = None) -> tuple[int, int] | None:
        """Where the value lies against ``threshold`` (-1, 0, 1) at the depth searched now,
        by one null-window search unless asked before, and a bound on the value on that side
        (the search's fail-soft bound; asked before, the threshold). With ``budget``
        (seconds), None when the search is cut by it."""
        key = at.key
        side = self.known_side(key, threshold)
        if side is not None:
            return side, threshold
        left = self.remaining()
        cut_by_budget = budget is not None and (left is None or budget < left)
        found = endgame.decide_endgame(
            at.board,
            at.mover,
            at.opponent,
            self.gaddag,
            self.rules,
            threshold,
            scoreless=at.scoreless,
            plies=self.plies,
            time_limit=budget if cut_by_budget else left,
            tt_mb=self.tt_mb,
            engine=self.engine,
            prune=False,  # (the gaddag is pruned for every tile in play already)
        )
        if found.stopped == TIME:
            if cut_by_budget:
                return None
            raise self.out_of_time()
        self.verdicts[(key, threshold, self.plies)] = found.side
        if found.proven:
            self.verdicts[(key, threshold, None)] = found.side  # (proven: it holds at any depth)
        return found.side, found.bound

    def search_endgame(self, at: _Endgame) -> tuple[int, bool]:
        found = endgame.solve_endgame(
            at.board,
            at.mover,
            at.opponent,
            self.gaddag,
            self.rules,
            scoreless=at.scoreless,
            plies=self.plies,
            time_limit=self.remaining(),
            tt_mb=self.tt_mb,
            engine=self.engine,
            prune=False,  # (the gaddag is pruned for every tile in play already)
        )
        if found.stopped == TIME:
            raise self.out_of_time()
        return found.value, found.proven


def _played(board: Board, rack: list[int], move: Candidate) -> tuple[Board, list[int]]:
    """The board after ``move`` and the tiles the mover keeps."""
    left = list(rack)
    if move.kind != PLACE:
        return board, left
    squares = list(board.squares)
    cols = board.cols
    for k, code in enumerate(move.codes):
        i = (move.start + k) * cols + move.line if move.down else move.line * cols + move.start + k
        if not squares[i]:
            squares[i] = code
            left[0 if code & BLANK_BIT else code] -= 1
    return Board(board.rows, board.cols, squares), left


def _face(rack: list[int], values: tuple[int, ...]) -> int:
    return sum(n * values[code] for code, n in enumerate(rack) if code)


def _sign(x: int) -> int:
    return int(x > 0) - int(x < 0)


def _points(spread: int) -> Fraction:
    return Fraction(1) if spread > 0 else Fraction(1, 2) if spread == 0 else Fraction(0)


def _standing(outcomes: Outcomes, spread: int) -> tuple[Fraction, Fraction]:
    """(the chance of winning, draws half; the mean final spread) of ``outcomes`` for the
    side ``spread`` ahead; the weights need not add up to 1."""
    weight = sum((p for p, _ in outcomes), Fraction(0))
    wins = sum((p * _points(spread + v) for p, v in outcomes), Fraction(0))
    mean = sum((p * (spread + v) for p, v in outcomes), Fraction(0))
    return wins / weight, mean / weight


def _sub_multisets(counts: list[int], size: int) -> Iterator[tuple[list[int], int]]:
    """Every sub-multiset of ``size`` tiles of ``counts`` (27 counts) with the number of ways
    to pick it when identical tiles are told apart."""
    chosen = [0] * len(counts)

    def walk(code: int, left: int, ways: int) -> Iterator[tuple[list[int], int]]:
        if left == 0:
            yield list(chosen), ways
            return
        if code == len(counts):
            return
        for take in range(min(counts[code], left), -1, -1):
            chosen[code] = take
            yield from walk(code + 1, left - take, ways * comb(counts[code], take))
        chosen[code] = 0

    yield from walk(0, size, 1)


def _splits(
    unseen: list[int], rack_size: int, known: list[int] | None = None
) -> Iterator[tuple[list[int], list[int], int]]:
    """Every split of ``unseen`` into a rack of ``rack_size`` tiles and the bag (the rest),
    with the number of ways it can be drawn; with ``known``, only the racks holding those
    tiles, the rest of the rack drawn from the other unseen tiles."""
    if known is None or not any(known):
        for rack, ways in _sub_multisets(unseen, rack_size):
            yield rack, [a - b for a, b in zip(unseen, rack, strict=True)], ways
        return
    free = [a - b for a, b in zip(unseen, known, strict=True)]
    for drawn, ways in _sub_multisets(free, rack_size - sum(known)):
        yield (
            [a + b for a, b in zip(known, drawn, strict=True)],
            [a - b for a, b in zip(free, drawn, strict=True)],
            ways,
        )


def _draws(bag: list[int], size: int) -> Iterator[tuple[list[int], Fraction]]:
    """Every draw of ``size`` tiles from ``bag`` with its probability."""
    total = comb(sum(bag), size)
    for drawn, ways in _sub_multisets(bag, size):
        yield drawn, Fraction(ways, total)

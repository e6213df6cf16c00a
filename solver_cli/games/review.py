"""Reviewing a whole game, move by move: what each player played, how it ranks among every
legal move, the best moves and what the move played gave up.

Moves are ranked by score (``leaves`` None, the default) or by equity with a leave table:
score plus the value of the tiles kept, the exchanges among the candidates. Each turn is
valued as the player saw it (``turn_valuation``): the bag the record implies before the
turn, exchanges when it holds enough tiles for the rules, and with the bag empty the
end-of-game adjustments, the opponent holding every unseen tile. The pass is always a
candidate (worth 0 by score); by score, exchanges are worth 0 too and are not listed.

A turn is reviewed when the record gives the whole rack the player held (see
``GameTurn.full_rack``); a turn whose rack is unknown or partial is listed but not valued,
and so is an exchange whose tiles the record hides, by equity (what it kept is unknown), and by
equity a turn with the bag empty and more tiles unseen than a rack holds (a record holding more
tiles than the set: the opponent's rack, which the end-of-game values need, is unknown).
For each reviewed turn:

- ``rank``: 1 + the number of candidates valued strictly higher than the move played;
- ``given_up``: the best value minus the move's value, never below 0 (a phony that stood
  is valued as played; a phony withdrawn is valued as a pass, which is what the turn became);
- ``matched``: the move is valued as high as the best and formed no phony;
- ``bingo_missed``: a move placing a whole rack was legal and the move played was not one.

With ``endgame``, a turn the endgame solver can settle (a play or a pass with the bag empty
before it, the whole rack known, the opponent holding the unseen tiles) is also valued
exactly (``EndgameVerdict``): the best move, its value and the move played's (the final
spread change from the player's side, both sides at their best from then on), and the
points the move played lost. Those turns count in the summary's ``endgame_lost``, not its
``given_up``. A turn whose searches the time limit cuts is marked not proven (its best move
the best found so far, no exact loss) and keeps its equity figures.

With ``sim`` (a ``SimBudget``; equity only), each turn reviewed is also simulated
(``simulate_turn``, on ``lookahead.sim.simulate``): the best moves by equity and the move
played (added when it is not among them) played out a few plies over many draws, ranked by
mean points; the ``SimVerdict`` gives the move played's rank, the best and the mean points
lost. The review itself only builds the candidates and reads the standings.

Values are points: whole numbers by score, and by equity exact to the thousandth (the
engine counts equity in thousandths, ``engine.leaves.SCALE``), so ranks and ties are exact.

The record's other lines (a phony withdrawn, a challenge bonus, a time penalty, the points
at the end) are not moves: they are not reviewed, and are kept as ``adjustments`` with the
figures the record gives and those scrab computes (``adjustments_json``).

A record with no move to review (no play, exchange or pass; of the player asked for) is an
``InputError``, not an empty review.

This module never prints: ``review_game`` reports progress through a callback.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from operator import neg

from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK, parse_rack, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.history import GameRecord, GameTurn
from solver_cli.engine.leaves import SCALE, LeaveTable, Valuation
from solver_cli.engine.movegen import (
    EXCHANGE,
    KIND_OFFSET,
    KINDS,
    LENGTH_OFFSET,
    PASS,
    PLACE,
    RECORD,
    Candidate,
    equity_at,
    ranked_records,
    record_at,
)
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Move, build_move, other_move
from solver_cli.engine.unseen import unseen_tiles, valuation_for
from solver_cli.errors import InputError
from solver_cli.lookahead.endgame import EndgameResult


def turn_valuation(board: Board, rack: list[int], turn: GameTurn, rules: Rules, leaves: LeaveTable | None) -> Valuation:
    """How the moves of ``turn`` are valued: by score (``leaves`` None: the pass a candidate,
    no exchange), or by equity as the player saw the position: the bag before the turn,
    exchanges when it holds ``rules.exchange_min_bag`` tiles, and with the bag empty the
    opponent holding every tile the player cannot see."""
    if leaves is None:
        return Valuation(None, bag=turn.bag, passes=True)
    opponent = 0
    if turn.bag == 0:
        unseen = unseen_tiles(board, rack, rules)
        opponent = sum(n * rules.values[code] for code, n in enumerate(unseen.counts) if code)
    exchange = rules.exchange_max if turn.bag >= rules.exchange_min_bag else 0
    return Valuation(leaves, bag=turn.bag, opponent=opponent, exchange=exchange, passes=True)


@dataclass(frozen=True)
class Option:
    """A candidate move: a play (``move`` set) or a pass or an exchange (``exchanged``)."""

    kind: str  # "play", "exchange" or "pass"
    text: str  # "8D RE(T)AINS", "exchange QU", "pass"
    value: float  # points: the score, or the equity
    score: int
    bingo: bool = False
    move: Move | None = None
    exchanged: str = ""
    leave_value: float | None = None  # by equity: value minus score


@dataclass(frozen=True)
class EndgameVerdict:
    """A turn the endgame solver settled: the best move and its value, the value of the move
    played, and the points it lost (all exact: final spread changes from the player's side).

    A turn whose searches were cut by the time limit is not ``proven``: ``best`` and
    ``best_value`` are then the best found so far (a lower bound of the true best), and the
    move played's ``value`` and ``lost`` are None: no exact figure was reached."""

    best: Option
    best_value: int
    value: int | None
    lost: int | None
    nodes: int
    seconds: float
    proven: bool = True
    # The ``top`` best first moves, each with its exact value (``best`` the first); the move
    # played's rank among all moves, exact (1 + the moves worth more), None when it ranks
    # below every move listed (or is not proven).
    options: tuple[Option, ...] = ()
    rank: int | None = None


@dataclass(frozen=True)
class SimVerdict:
    """A turn simulated (``simulate_turn``): the move played ranked among the candidates
    simulated (the best by equity, and the move played when it is not among them) by their
    mean points after the plies, the best of them, and the points the move played lost
    (the best's mean minus its own, never below 0)."""

    rank: int  # the move played's place in the standings, 1 the best
    candidates: int  # candidates simulated
    best: Option  # the best candidate (its value: the mean points)
    best_mean: float
    mean: float  # the move played's mean points
    lost: float
    added: bool  # the move played was not among the best by equity, and was added
    iterations: int
    stopped: str | None  # why the simulation ended (``lookahead.sim.REASONS``)
    seconds: float
    opponent_rack: str | None = None  # the opponent's tiles its phony, just taken back, showed (played against)


@dataclass(frozen=True)
class SimBudget:
    """How each turn is simulated: the ``candidates`` best by equity, ``plies`` replies,
    until ``iterations`` are done or ``time_limit`` seconds have passed (at least one), a
    candidate behind at ``stop`` percent confidence dropped (None: never), draws seeded by
    ``seed``, on ``jobs`` worker processes (the same figures whatever ``jobs``)."""

    candidates: int = 5
    plies: int = 2
    iterations: int | None = None
    time_limit: float | None = None
    stop: int | None = 99
    seed: int = 0
    jobs: int = 1


@dataclass(frozen=True)
class TurnReview:
    turn: GameTurn
    reviewed: bool
    reason: str  # why the turn is not reviewed ("" when it is)
    value: float | None = None  # the move played, as ranked
    rank: int | None = None
    candidates: int = 0  # legal plays, the pass, and by equity the exchanges the bag allows
    best_value: float | None = None
    tied_best: int = 0  # candidates valued as high as the best
    best: tuple[Option, ...] = ()  # the top candidates, best first
    given_up: float = 0
    matched: bool = False
    bingo_available: bool = False
    bingo_missed: bool = False
    endgame: EndgameVerdict | None = None  # with ``endgame``, for a turn the solver settled
    sim: SimVerdict | None = None  # with ``sim``, for a turn simulated


@dataclass(frozen=True)
class PlayerSummary:
    player: int
    nick: str
    name: str
    score: int  # the final score in the record
    turns: int  # moves made: plays, exchanges and passes
    reviewed: int
    matched: int
    given_up: float
    bingos: int  # bingos played (and not withdrawn)
    bingos_missed: int
    phonies: int  # plays that formed a word not in the lexicon (withdrawn or not)
    endgame_lost: int | None = None  # with ``endgame``: the points lost on the turns settled exactly
    endgame_unproven: int = 0  # with ``endgame``: the turns whose searches the time limit cut
    sim_turns: int = 0  # with ``sim``: the turns simulated
    sim_best: int = 0  # ... where the move played ranked first
    sim_lost: float | None = None  # ... the mean points the moves played lost, summed


@dataclass(frozen=True)
class GameReview:
    game: GameRecord
    ranking: str  # "score" or "equity"
    top: int
    turns: tuple[TurnReview, ...]
    players: tuple[PlayerSummary, ...]
    # The lines of the players reviewed that change a score without being a move (see ADJUSTMENTS).
    adjustments: tuple[GameTurn, ...] = ()


DECISIONS = ("play", "exchange", "pass")
ADJUSTMENTS = ("withdrawn", "challenge", "time", "out", "penalty")


def review_game(
    game: GameRecord,
    gaddag: Gaddag,
    rules: Rules,
    leaves: LeaveTable | None = None,
    *,
    top: int = 1,
    players: Iterable[int] = (0, 1),
    progress: Callable[[int, int], None] | None = None,
    endgame: bool = False,
    endgame_time_limit: float | None = None,
    sim: SimBudget | None = None,
) -> GameReview:
    """Review every move (play, exchange, pass) of ``players`` in ``game``, ranked by score
    or, with ``leaves``, by equity; ``top`` candidates are kept per turn; with ``endgame``,
    the turns the endgame solver can settle are valued exactly too, each turn's searches
    within ``endgame_time_limit`` seconds (None: no limit); with ``sim`` (which needs
    ``leaves``), each turn reviewed is simulated too (``simulate_turn``).
    ``progress(done, total)`` is called after each turn. Ctrl-C (a KeyboardInterrupt) comes
    out as ``ReviewStopped`` holding the review of the turns done."""
    if sim is not None and leaves is None:
        raise ValueError("a simulation needs a leave table: its replies are chosen by equity")
    if top < 1:
        raise ValueError("top must be at least 1")
    wanted = set(players)
    if not wanted or not wanted <= {0, 1}:
        raise ValueError(f"players must be 0, 1 or both, not {sorted(wanted)}")
    chosen = [t for t in game.turns if t.kind in DECISIONS and t.player in wanted]
    if not chosen:
        if not any(t.kind in DECISIONS for t in game.turns):
            raise InputError(
                f"{game.source}: nothing to review: the record has no move (a play, an exchange or a pass)"
            )
        nicks = " or ".join(game.players[index] for index in (0, 1) if index in wanted)
        raise InputError(f"{game.source}: nothing to review: {nicks} made no move")
    reviews: list[TurnReview] = []

    def review_of(turns: list[TurnReview]) -> GameReview:
        summaries = tuple(_summary(game, index, turns, endgame, sim is not None) for index in (0, 1) if index in wanted)
        adjustments = tuple(t for t in game.turns if t.kind in ADJUSTMENTS and t.player in wanted)
        ranking = "score" if leaves is None else "equity"
        return GameReview(game, ranking, top, tuple(turns), summaries, adjustments)

    try:
        for done, turn in enumerate(chosen, 1):
            review = review_turn(game, turn, gaddag, rules, leaves, top)
            if endgame and review.reviewed:
                verdict = settle_endgame(game, turn, gaddag, rules, time_limit=endgame_time_limit, top=top)
                if verdict is not None:
                    matched = verdict.lost == 0 and not turn.phonies and not turn.withdrawn
                    review = replace(review, endgame=verdict, matched=matched if verdict.proven else review.matched)
            if sim is not None and review.reviewed and leaves is not None:
                review = replace(review, sim=simulate_turn(game, turn, gaddag, rules, leaves, sim))
            reviews.append(review)
            if progress is not None:
                progress(done, len(chosen))
    except KeyboardInterrupt:
        raise ReviewStopped(review_of(reviews)) from None
    return review_of(reviews)


class ReviewStopped(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a review: ``review`` holds the turns reviewed before it."""

    def __init__(self, review: GameReview):
        super().__init__(f"review stopped after {len(review.turns)} turns")
        self.review = review


def adjustments_json(review: GameReview) -> list[dict[str, object]]:
    """The review's ``adjustments`` as JSON objects, in the record's order: ``turn``, ``line``,
    ``player``, ``kind`` (``withdrawn``, ``challenge``, ``time``, ``out``, ``penalty``),
    ``move`` (as the review table writes it), ``score`` (as recorded), ``computed`` (what
    scrab's scoring gives: minus the play withdrawn, the tiles' value at the end; ``null``
    for a challenge bonus or a time penalty, taken as recorded, and for a ``--`` with nothing
    to take back), ``total``; a withdrawal adds ``takes_back`` (the turn it took back, or
    ``null``), the end points add ``counted`` (the tiles counted)."""
    game = review.game
    out: list[dict[str, object]] = []
    for t in review.adjustments:
        item: dict[str, object] = {
            "turn": t.number,
            "line": t.line,
            "player": game.players[t.player],
            "kind": t.kind,
            "move": t.move_text,
            "score": t.score,
            "computed": t.computed,
            "total": t.total,
        }
        if t.kind == "withdrawn":
            # The replay takes back the turn just before, and computes a score only when it did.
            item["takes_back"] = t.number - 1 if t.computed is not None else None
        if t.kind in ("out", "penalty"):
            item["counted"] = t.counted
        out.append(item)
    return out


def review_turn(
    game: GameRecord, turn: GameTurn, gaddag: Gaddag, rules: Rules, leaves: LeaveTable | None = None, top: int = 1
) -> TurnReview:
    """One turn's review (see the module's docstring): one engine call, every candidate
    ranked and packed; only the few read (the best ``top``, a bisection for the rank and the
    ties, the scan for a bingo) become Python objects, so a turn costs about what the engine
    does, however many moves the rack has."""
    if turn.rack is None:
        return TurnReview(turn, False, "no rack in the record")
    if not turn.full_rack:
        return TurnReview(turn, False, "the record gives only part of the rack")
    if turn.kind == "exchange" and turn.bag < rules.exchange_min_bag:
        return TurnReview(turn, False, f"an exchange the rules do not allow ({turn.bag} in the bag)")
    if turn.kind == "exchange" and leaves is not None and not turn.exchanged:
        return TurnReview(turn, False, "the tiles exchanged are not in the record")
    board = game.board_before(turn.number)
    rack = parse_rack(turn.rack, rules.rack_size) if turn.rack else [0] * 27
    if leaves is not None and turn.bag == 0:
        unseen = unseen_tiles(board, rack, rules).total
        if unseen > rules.rack_size:
            # The reader counted tiles beyond the set out of the bag: which of the unseen
            # tiles the opponent holds, and so the end-of-game values, cannot be known.
            return TurnReview(
                turn,
                False,
                f"the bag is empty yet {unseen} tiles are unseen: the record's tiles do not fit the {rules.name} set",
            )
    valuation = turn_valuation(board, rack, turn, rules, leaves)
    # Every candidate, best first, valued in thousandths of a point: exact ranks and ties.
    candidates, records = ranked_records(board, rack, gaddag, rules, valuation=valuation)
    equities = _Equities(records)
    value = _played_value(rack, turn, valuation, rules)
    best_value = equities[0]
    # Equities fall along the ranking: those above a value are a prefix, found by bisection.
    rank = 1 + bisect_left(equities, -value, key=neg)
    tied = bisect_right(equities, -best_value, key=neg)
    options = [_option(board, rules, rack, record_at(records, k), valuation) for k in range(min(top, len(equities)))]

    bingo_available = _bingo_available(board, rules, records)
    played_bingo = turn.kind == "play" and turn.bingo and not turn.withdrawn
    points = _points(valuation)
    return TurnReview(
        turn,
        True,
        "",
        value=points(value),
        rank=rank,
        candidates=candidates,
        best_value=points(best_value),
        tied_best=tied,
        best=tuple(options),
        given_up=points(max(0, best_value - value)),
        matched=value >= best_value and not turn.phonies,
        bingo_available=bingo_available,
        bingo_missed=bingo_available and not played_bingo,
    )


class _Equities:
    """The equities of packed candidates, in their rank order (highest first), each read
    when asked for: what ``bisect`` needs, without a list of 100,000 numbers."""

    def __init__(self, records: bytes) -> None:
        self.records = records

    def __len__(self) -> int:
        return len(self.records) // RECORD.size

    def __getitem__(self, index: int) -> int:
        if not 0 <= index < len(self):
            raise IndexError(index)
        return equity_at(self.records, index)


def _points(valuation: Valuation) -> Callable[[int], float]:
    """Thousandths of a point as points: whole numbers by score, exact decimals by equity."""
    if valuation.equity:
        return lambda thousandths: thousandths / SCALE
    return lambda thousandths: thousandths // SCALE


def _played_value(rack: list[int], turn: GameTurn, valuation: Valuation, rules: Rules) -> int:
    """The move played, in thousandths of a point, as ``valuation`` values it: its score
    (a phony that stood included) plus the value of the tiles it kept. For a legal play this
    is the value the engine gives the same candidate (its score and leave are the same
    rules), so the played move need not be looked for among 100,000."""
    kept = list(rack)
    if turn.kind == "pass" or (turn.kind == "play" and turn.withdrawn):
        return valuation.leave_term(kept, rules)
    if turn.kind == "exchange":
        for ch in turn.exchanged:
            code = BLANK if ch == "?" else ord(ch) - 64
            kept[code] = max(0, kept[code] - 1)
        return valuation.leave_term(kept, rules)
    for _, _, code in turn.placed:
        tile = BLANK if code & BLANK_BIT else code & LETTER_MASK
        kept[tile] = max(0, kept[tile] - 1)
    return (turn.computed or 0) * SCALE + valuation.leave_term(kept, rules)


def _bingo_available(board: Board, rules: Rules, records: bytes) -> bool:
    """Whether a placement of a whole rack is among the packed candidates, read straight
    from the records: only those of a main word as long as a rack are looked at, found at C
    speed, in rank order (a bingo, where there is one, ranks near the top)."""
    size, step = rules.rack_size, RECORD.size
    long_enough = bytes(length >= size for length in range(256))
    # One byte per candidate: 1 where its main word has room for a whole rack.
    flags = records[LENGTH_OFFSET::step].translate(long_enough)
    kinds = records[KIND_OFFSET::step]
    squares, cols = board.squares, board.cols
    k = flags.find(1)
    while k >= 0:
        if kinds[k] == PLACE:
            score, _leave, _kind, down, line, start, length, *_ = RECORD.unpack_from(records, k * step)
            first, along = (start * cols + line, cols) if down else (line * cols + start, 1)
            placed = sum(1 for n in range(length) if not squares[first + n * along])
            if score >= rules.bingo_bonus and placed == size:
                return True
        k = flags.find(1, k + 1)
    return False


def _option(board: Board, rules: Rules, rack: list[int], c: Candidate, valuation: Valuation) -> Option:
    """A candidate as the review lists it (a play's ``Move`` in full)."""
    points = _points(valuation)
    value = points(c.equity)
    leave_value = c.leave / SCALE if valuation.equity else None
    if c.kind == PLACE:
        move = build_move(board, rules, rack, c.down, c.line, c.start, c.codes)
    else:
        move = other_move(KINDS[c.kind], rack, c.codes)
    if valuation.equity:
        move = replace(move, equity=c.equity / SCALE, leave_value=leave_value)
    if c.kind == PLACE:
        return Option("play", move.text, value, move.score, move.bingo, move, leave_value=leave_value)
    kind = "exchange" if c.kind == EXCHANGE else "pass"
    return Option(kind, move.text, value, 0, move=None, exchanged=move.exchanged, leave_value=leave_value)


def _summary(
    game: GameRecord, player: int, reviews: list[TurnReview], endgame: bool = False, sim: bool = False
) -> PlayerSummary:
    mine = [r for r in reviews if r.turn.player == player]
    done = [r for r in mine if r.reviewed]
    plays = [t for t in game.turns if t.player == player and t.kind == "play"]
    return PlayerSummary(
        player=player,
        nick=game.players[player],
        name=game.names[player],
        score=game.final_scores[player],
        turns=len(mine),
        reviewed=len(done),
        matched=sum(1 for r in done if r.matched),
        # Equity is exact to the thousandth: no float dust (0.1 + 0.2) in the total.
        given_up=round(sum(r.given_up for r in done if not _settled(r)), 3),
        bingos=sum(1 for t in plays if t.bingo and not t.withdrawn),
        bingos_missed=sum(1 for r in done if r.bingo_missed),
        phonies=sum(1 for t in plays if t.phonies),
        endgame_lost=sum(r.endgame.lost or 0 for r in done if r.endgame is not None) if endgame else None,
        endgame_unproven=sum(1 for r in done if r.endgame is not None and not r.endgame.proven),
        sim_turns=sum(1 for r in done if r.sim is not None),
        sim_best=sum(1 for r in done if r.sim is not None and r.sim.rank == 1),
        sim_lost=round(sum(r.sim.lost for r in done if r.sim is not None), 3) if sim else None,
    )


def _settled(review: TurnReview) -> bool:
    """Whether the endgame solver valued the turn exactly (its loss then counts apart)."""
    return review.endgame is not None and review.endgame.proven


# --- the endgame: turns settled exactly ---------------------------------------------------------


def scoreless_before(game: GameRecord, number: int) -> int:
    """The scoreless turns in a row before turn ``number`` (1-based; ``len(turns) + 1`` is
    after the last): passes, exchanges, plays scoring 0 and phonies taken back."""
    count = 0
    for t in reversed(game.turns[: number - 1]):
        if t.kind not in DECISIONS:
            continue  # a withdrawal, a bonus, a penalty: the play it follows counts
        if t.kind == "play" and not t.withdrawn and t.score != 0:
            break
        count += 1
    return count


def settle_endgame(
    game: GameRecord,
    turn: GameTurn,
    gaddag: Gaddag,
    rules: Rules,
    time_limit: float | None = None,
    top: int = 1,
) -> EndgameVerdict | None:
    """The exact verdict on ``turn`` (see ``EndgameVerdict``), or None when the endgame
    solver cannot settle it: tiles in the bag before it, a rack not wholly known, an
    exchange, no unseen tile, more unseen tiles than a rack holds (the record holds more
    tiles than the set), or tiles played that the rack does not hold. ``time_limit`` bounds
    the turn's searches together (the best move's, then the reply to the move played); a
    search it cuts leaves the verdict not ``proven``."""
    from solver_cli.lookahead.endgame import MAX_TOP, solve_endgame

    if turn.bag != 0 or turn.kind not in ("play", "pass") or not turn.full_rack or not turn.rack:
        return None
    board = game.board_before(turn.number)
    rack = parse_rack(turn.rack, rules.rack_size)
    unseen = list(unseen_tiles(board, rack, rules).counts)
    if not 0 < sum(unseen) <= rules.rack_size:
        return None
    scoreless = min(scoreless_before(game, turn.number), rules.scoreless_turns - 1)
    top = min(top, MAX_TOP)  # (the solver's most: the move played ranks >N below it)
    solved = solve_endgame(board, rack, unseen, gaddag, rules, scoreless=scoreless, time_limit=time_limit, top=top)
    nodes, seconds = solved.nodes, solved.seconds
    best = solved.best[0]
    options = tuple(_endgame_option(board, rules, rack, root.move, root.value) for root in solved.best)
    best_option = options[0]
    if not solved.proven:
        return EndgameVerdict(best_option, best.value, None, None, nodes, seconds, proven=False, options=options)
    # What the first search left of the limit (a moment at least: a reply that needs no search
    # is still exact, one that does is then cut at once).
    left_over = None if time_limit is None else max(time_limit - seconds, 1e-6)
    left = list(rack)
    after = list(board.squares)
    score = 0
    if turn.kind == "play" and not turn.withdrawn:  # a phony taken back is the pass it became
        for r, c, code in turn.placed:
            tile = BLANK if code & BLANK_BIT else code & LETTER_MASK
            left[tile] -= 1
            after[r * board.cols + c] = code
        if min(left) < 0:
            return None
        score = turn.computed if turn.computed is not None else turn.score
    value, rest = _value_after(
        Board(board.rows, board.cols, after),
        left,
        unseen,
        score,
        scoreless,
        turn.kind == "play",
        gaddag,
        rules,
        left_over,
    )
    if rest is not None:
        nodes, seconds = nodes + rest.nodes, seconds + rest.seconds
        if not rest.proven:
            return EndgameVerdict(best_option, best.value, None, None, nodes, seconds, proven=False, options=options)
    # The list holds every move worth more than the move played unless it is full (``top``
    # moves) and its last is worth no more than the move played: then the rank is below it.
    listed_all = len(solved.best) < top or solved.best[-1].value <= value
    rank = 1 + sum(1 for root in solved.best if root.value > value) if listed_all else None
    return EndgameVerdict(
        best=best_option,
        best_value=best.value,
        value=value,
        lost=max(0, best.value - value),
        nodes=nodes,
        seconds=seconds,
        options=options,
        rank=rank,
    )


def _value_after(
    board: Board,
    left: list[int],
    opponent: list[int],
    score: int,
    scoreless: int,
    placed: bool,
    gaddag: Gaddag,
    rules: Rules,
    time_limit: float | None = None,
) -> tuple[int, EndgameResult | None]:
    """The exact value of a move scoring ``score`` that leaves ``board`` and the rack
    ``left`` (by the game's definition: going out, the scoreless turns ending the game, or
    the score minus the opponent's best from there), and the search it took (None if none;
    the value is exact only if that search is ``proven`` within ``time_limit``)."""
    from solver_cli.lookahead.endgame import solve_endgame

    def face(rack: list[int]) -> int:
        return sum(n * rules.values[code] for code, n in enumerate(rack) if code)

    if placed and not any(left):
        return score + (rules.out_gain + rules.out_loss) * face(opponent), None
    now = scoreless + 1 if score == 0 else 0
    if now >= rules.scoreless_turns:
        return score - rules.stuck_loss * (face(left) - face(opponent)), None
    reply = solve_endgame(board, opponent, left, gaddag, rules, scoreless=now, time_limit=time_limit)
    return score - reply.value, reply


def _endgame_option(board: Board, rules: Rules, rack: list[int], move: Candidate, value: int) -> Option:
    if move.kind == PLACE:
        played = build_move(board, rules, rack, move.down, move.line, move.start, move.codes)
        return Option("play", played.text, value, played.score, played.bingo, played)
    return Option("pass", "pass", value, 0)


# --- simulation: the move played among simulated candidates ---------------------------------------


def simulate_turn(
    game: GameRecord, turn: GameTurn, gaddag: Gaddag, rules: Rules, leaves: LeaveTable, budget: SimBudget
) -> SimVerdict | None:
    """``turn`` simulated (``lookahead.sim.simulate``, by mean points after ``budget.plies``):
    the ``budget.candidates`` best moves by equity, and the move played when it is not among
    them (a phony that stood is played out as it stood; a phony withdrawn is the pass it
    became), against the tiles the opponent's own phony, just taken back, showed. None when
    the turn cannot be simulated: a rack not wholly known, an exchange
    whose tiles the record hides, tiles played that the rack does not hold, or a record
    holding more tiles than the set."""
    from solver_cli.games import workers
    from solver_cli.lookahead.sim import sim_candidates, simulate

    if not turn.full_rack or turn.rack is None or (turn.kind == "exchange" and not turn.exchanged):
        return None
    board = game.board_before(turn.number)
    rack = parse_rack(turn.rack, rules.rack_size) if turn.rack else [0] * 27
    unseen = unseen_tiles(board, rack, rules)
    if unseen.over or (turn.bag == 0 and unseen.total > rules.rack_size):
        return None
    played = _played_candidate(board, rack, turn, rules, leaves)
    if played is None:
        return None
    best_by_equity = sim_candidates(board, rack, gaddag, rules, leaves, budget.candidates)
    keys = [_candidate_key(board, c) for c in best_by_equity]
    played_key = _candidate_key(board, played)
    added = played_key not in keys
    chosen = [*best_by_equity, played] if added else best_by_equity
    mover = turn.player
    # The opponent's tiles the player saw (its phony challenged off just before) are its rack
    # in every iteration, as scrab sim plays them.
    shown = game.shown_tiles(turn.number)
    known = (
        shown[0] if shown is not None and all(n <= u for n, u in zip(shown[0], unseen.counts, strict=True)) else None
    )
    result = simulate(
        board,
        rack,
        gaddag,
        rules,
        leaves,
        candidates=chosen,
        plies=budget.plies,
        iterations=budget.iterations,
        time_limit=budget.time_limit,
        stop=budget.stop,
        seed=budget.seed,
        jobs=budget.jobs,
        workers=workers if budget.jobs > 1 else None,
        opponent_rack=known,
        spread=turn.scores[mover] - turn.scores[1 - mover],
        scoreless=min(scoreless_before(game, turn.number), rules.scoreless_turns - 1),
    )
    standings = result.standings
    rank = next(k for k, s in enumerate(standings, 1) if _candidate_key(board, s.candidate) == played_key)
    top, mine = standings[0], standings[rank - 1]
    valuation = turn_valuation(board, rack, turn, rules, leaves)
    # Means to the thousandth (the outcomes' unit): no float dust in the figures shown.
    best_mean, mean = round(top.mean, 3), round(mine.mean, 3)
    best = replace(_option(board, rules, rack, top.candidate, valuation), value=best_mean)
    return SimVerdict(
        rank=rank,
        candidates=len(standings),
        best=best,
        best_mean=best_mean,
        mean=mean,
        lost=round(max(0.0, best_mean - mean), 3),
        added=added,
        iterations=result.iterations,
        stopped=result.stopped,
        seconds=result.seconds,
        opponent_rack=None if known is None else rack_text(known),
    )


def _played_candidate(
    board: Board, rack: list[int], turn: GameTurn, rules: Rules, leaves: LeaveTable
) -> Candidate | None:
    """The move played as a simulation candidate (its leave valued as the engine values the
    candidates it ranks), None when the rack does not hold its tiles."""
    valuation = valuation_for(board, rack, rules, leaves)
    kept = list(rack)
    if turn.kind == "pass" or (turn.kind == "play" and turn.withdrawn):
        return Candidate(0, valuation.leave_term(kept, rules), PASS, False, 0, 0, ())
    if turn.kind == "exchange":
        thrown = sorted(BLANK if ch == "?" else ord(ch) - 64 for ch in turn.exchanged)
        for code in thrown:
            kept[code] -= 1
        if min(kept) < 0:
            return None
        return Candidate(0, valuation.leave_term(kept, rules), EXCHANGE, False, 0, 0, tuple(thrown))
    squares = list(board.squares)
    cols = board.cols
    for r, c, code in turn.placed:
        kept[BLANK if code & BLANK_BIT else code & LETTER_MASK] -= 1
        squares[r * cols + c] = code
    if min(kept) < 0 or not turn.placed:
        return None
    # The main word: from the first tile placed back and on while the squares are filled.
    down = turn.down
    step = cols if down else 1
    first = min(r * cols + c for r, c, _ in turn.placed)
    limit = board.rows if down else cols
    line, start = (first % cols, first // cols) if down else (first // cols, first % cols)
    while start > 0 and squares[first - step]:
        first, start = first - step, start - 1
    codes = []
    at, index = first, start
    while index < limit and squares[at]:
        codes.append(squares[at])
        at, index = at + step, index + 1
    score = turn.computed if turn.computed is not None else turn.score
    return Candidate(score, valuation.leave_term(kept, rules), PLACE, down, line, start, tuple(codes))


def _candidate_key(board: Board, c: Candidate) -> tuple[int, frozenset[tuple[int, int]]]:
    """What a candidate does, whichever way it is written: its kind and the tiles it puts on
    empty squares (a one-tile play found across is the same move recorded down)."""
    if c.kind != PLACE:
        return c.kind, frozenset(enumerate(c.codes))
    cols = board.cols
    placed = set()
    for k, code in enumerate(c.codes):
        square = (c.start + k) * cols + c.line if c.down else c.line * cols + c.start + k
        if not board.squares[square]:
            placed.add((square, code))
    return c.kind, frozenset(placed)

"""Reviewing a whole game, move by move: what each player played, how it ranks among every
legal move, the best moves and what the move played gave up.

Moves are valued by an ``Evaluator`` passed in. ``SCORE`` (the default) values a play by its
score and a pass or an exchange at 0; an equity evaluator (score plus the value of the tiles
kept) is one line: ``Evaluator("equity", lambda board, rack, raw: raw[0] +
leave_value(leave_of(board, rack, raw)), keep=leave_value)``. The pass is always a candidate (worth 0, or
what ``keep`` gives the whole rack); with ``keep`` set, every exchange is one too.

A turn is reviewed when the record gives the whole rack the player held (see
``GameTurn.full_rack``); a turn whose rack is unknown or partial is listed but not valued.
For each reviewed turn:

- ``rank``: 1 + the number of candidates valued strictly higher than the move played;
- ``given_up``: the best value minus the move's value, never below 0 (a phony that stood
  is valued as played; a phony withdrawn is valued as a pass, which is what the turn became);
- ``matched``: the move is valued as high as the best and formed no phony;
- ``bingo_missed``: a move placing a whole rack was legal and the move played was not one.

The record's other lines (a phony withdrawn, a challenge bonus, a time penalty, the points
at the end) are not moves: they are not reviewed, and are kept as ``adjustments`` with the
figures the record gives and those scrab computes (``adjustments_json``).

A record with no move to review (no play, exchange or pass; of the player asked for) is an
``InputError``, not an empty review.

This module never prints: ``review_game`` reports progress through a callback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations

from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK, parse_rack, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.history import GameRecord, GameTurn
from solver_cli.engine.movegen import RawMove, generate_moves, rank_key
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Move, build_move
from solver_cli.errors import InputError

PlayValue = Callable[[Board, list[int], RawMove], float]
KeepValue = Callable[[list[int]], float]


@dataclass(frozen=True)
class Evaluator:
    """How a review values moves. ``play(board, rack, raw)`` values a legal play;
    ``keep(tiles)`` values a pass or an exchange by the tiles (27 counts) it keeps, or is
    None: passes and exchanges are then worth 0 and only compared, not listed."""

    name: str
    play: PlayValue
    keep: KeepValue | None = None


SCORE = Evaluator("score", lambda board, rack, raw: raw[0])


def leave_of(board: Board, rack: list[int], raw: RawMove) -> list[int]:
    """The rack (27 counts) left after the play ``raw``."""
    _, down, line, start, codes = raw
    left = list(rack)
    for k, code in enumerate(codes):
        i = (start + k) * board.cols + line if down else line * board.cols + start + k
        if not board.squares[i]:
            left[BLANK if code & BLANK_BIT else code & LETTER_MASK] -= 1
    return left


@dataclass(frozen=True)
class Option:
    """A candidate move: a play (``move`` set) or a pass or an exchange (``exchanged``)."""

    kind: str  # "play", "exchange" or "pass"
    text: str  # "8D RE(T)AINS", "exchange QU", "pass"
    value: float
    score: int
    bingo: bool = False
    move: Move | None = None
    exchanged: str = ""


@dataclass(frozen=True)
class TurnReview:
    turn: GameTurn
    reviewed: bool
    reason: str  # why the turn is not reviewed ("" when it is)
    value: float | None = None  # the move played, as the evaluator values it
    rank: int | None = None
    candidates: int = 0  # legal plays, the pass, and the exchanges when the evaluator values them
    best_value: float | None = None
    tied_best: int = 0  # candidates valued as high as the best
    best: tuple[Option, ...] = ()  # the top candidates, best first
    given_up: float = 0
    matched: bool = False
    bingo_available: bool = False
    bingo_missed: bool = False


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


@dataclass(frozen=True)
class GameReview:
    game: GameRecord
    evaluator: str
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
    evaluator: Evaluator = SCORE,
    *,
    top: int = 1,
    players: Iterable[int] = (0, 1),
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review every move (play, exchange, pass) of ``players`` in ``game``; ``top``
    candidates are kept per turn. ``progress(done, total)`` is called after each turn."""
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
    reviews = []
    for done, turn in enumerate(chosen, 1):
        reviews.append(review_turn(game, turn, gaddag, rules, evaluator, top))
        if progress is not None:
            progress(done, len(chosen))
    summaries = tuple(_summary(game, index, reviews) for index in (0, 1) if index in wanted)
    adjustments = tuple(t for t in game.turns if t.kind in ADJUSTMENTS and t.player in wanted)
    return GameReview(game, evaluator.name, top, tuple(reviews), summaries, adjustments)


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
    game: GameRecord, turn: GameTurn, gaddag: Gaddag, rules: Rules, evaluator: Evaluator = SCORE, top: int = 1
) -> TurnReview:
    """One turn's review (see the module's docstring)."""
    if turn.rack is None:
        return TurnReview(turn, False, "no rack in the record")
    if not turn.full_rack:
        return TurnReview(turn, False, "the record gives only part of the rack")
    if turn.kind == "exchange" and evaluator.keep is not None and not turn.exchanged:
        return TurnReview(turn, False, "the tiles exchanged are not in the record")
    board = game.board_before(turn.number)
    rack = parse_rack(turn.rack, rules.rack_size) if turn.rack else [0] * 27
    raw = generate_moves(board, rack, gaddag, rules)
    valued = [(evaluator.play(board, rack, m), m) for m in raw]
    others = _pass_and_exchanges(rack, turn, rules, evaluator)

    value = _played_value(board, rack, turn, raw, evaluator)
    candidates = len(valued) + len(others)
    best_value = max([v for v, _ in valued] + [o.value for o in others])
    rank = 1 + sum(1 for v, _ in valued if v > value) + sum(1 for o in others if o.value > value)
    tied = sum(1 for v, _ in valued if v == best_value) + sum(1 for o in others if o.value == best_value)

    ordered = sorted(valued, key=lambda vm: (-vm[0], rank_key(vm[1])))[:top]
    options = [_play_option(board, rules, rack, v, m) for v, m in ordered]
    options += others
    options.sort(key=lambda o: -o.value)  # stable: plays before passes and exchanges of equal value

    size = rules.rack_size
    bingo_available = any(_placed_count(board, m) == size for m in raw if m[0] >= rules.bingo_bonus)
    played_bingo = turn.kind == "play" and turn.bingo and not turn.withdrawn
    return TurnReview(
        turn,
        True,
        "",
        value=value,
        rank=rank,
        candidates=candidates,
        best_value=best_value,
        tied_best=tied,
        best=tuple(options[:top]),
        given_up=max(0, best_value - value),
        matched=value >= best_value and not turn.phonies,
        bingo_available=bingo_available,
        bingo_missed=bingo_available and not played_bingo,
    )


def _pass_value(rack: list[int], evaluator: Evaluator) -> float:
    return evaluator.keep(rack) if evaluator.keep is not None else 0


def _played_value(board: Board, rack: list[int], turn: GameTurn, raw: list[RawMove], evaluator: Evaluator) -> float:
    if turn.kind == "pass" or (turn.kind == "play" and turn.withdrawn):
        return _pass_value(rack, evaluator)
    if turn.kind == "exchange":
        if evaluator.keep is None:
            return 0
        kept = list(rack)
        for ch in turn.exchanged:
            code = BLANK if ch == "?" else ord(ch) - 64
            kept[code] = max(0, kept[code] - 1)
        return evaluator.keep(kept)
    key = frozenset(turn.placed)
    for m in raw:
        if m[0] == turn.computed and _placed(board, m) == key:
            return evaluator.play(board, rack, m)
    # Not among the legal moves (a phony): valued as it was placed.
    return evaluator.play(board, rack, _raw_of(board, turn))


def _raw_of(board: Board, turn: GameTurn) -> RawMove:
    """The generator's form of a recorded play (its main word as written)."""
    placed = {(r, c): code for r, c, code in turn.placed}
    length = sum(1 for ch in turn.word if ch not in "()")
    codes = []
    for k in range(length):
        r, c = (turn.row + k, turn.col) if turn.down else (turn.row, turn.col + k)
        codes.append(placed.get((r, c)) or board.at(r, c))
    line, start = (turn.col, turn.row) if turn.down else (turn.row, turn.col)
    return (turn.computed or 0, turn.down, line, start, tuple(codes))


def _placed(board: Board, raw: RawMove) -> frozenset[tuple[int, int, int]]:
    _, down, line, start, codes = raw
    out = set()
    for k, code in enumerate(codes):
        r, c = (start + k, line) if down else (line, start + k)
        if not board.at(r, c):
            out.add((r, c, code))
    return frozenset(out)


def _placed_count(board: Board, raw: RawMove) -> int:
    _, down, line, start, codes = raw
    cols, squares = board.cols, board.squares
    step = cols if down else 1
    first = start * cols + line if down else line * cols + start
    return sum(1 for k in range(len(codes)) if not squares[first + k * step])


def _play_option(board: Board, rules: Rules, rack: list[int], value: float, raw: RawMove) -> Option:
    move = build_move(board, rules, rack, raw[1], raw[2], raw[3], raw[4])
    return Option("play", f"{move.position} {move.notation}", value, move.score, move.bingo, move)


def _pass_and_exchanges(rack: list[int], turn: GameTurn, rules: Rules, evaluator: Evaluator) -> list[Option]:
    """The pass, always a legal move; and, when the evaluator values the tiles kept, one
    exchange per distinct set of tiles if the bag holds a rack's worth."""
    options = [Option("pass", "pass", _pass_value(rack, evaluator), 0)]
    if evaluator.keep is None or turn.bag < rules.rack_size:
        return options
    tiles = [code for code, n in enumerate(rack) for _ in range(n)]
    seen = set()
    for size in range(1, len(tiles) + 1):
        for chosen in combinations(tiles, size):
            if chosen in seen:
                continue
            seen.add(chosen)
            kept = list(rack)
            out = [0] * 27
            for code in chosen:
                kept[code] -= 1
                out[code] += 1
            text = rack_text(out)
            options.append(Option("exchange", f"exchange {text}", evaluator.keep(kept), 0, exchanged=text))
    return options


def _summary(game: GameRecord, player: int, reviews: list[TurnReview]) -> PlayerSummary:
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
        given_up=sum(r.given_up for r in done),
        bingos=sum(1 for t in plays if t.bingo and not t.withdrawn),
        bingos_missed=sum(1 for r in done if r.bingo_missed),
        phonies=sum(1 for t in plays if t.phonies),
    )

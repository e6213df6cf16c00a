"""Opponent-rack inference: what the opponent kept, judged by the play it just made.

A play says something about the tiles it did not use: a player who keeps ``S?`` would not
have made a 12-point play that passes up a bingo. MAGPIE's rule (``src/impl/inference.c``)
turns that into a distribution: every rack the opponent could have held is tried, and kept
when the play it made is within ``margin`` points of that rack's best equity (score plus
leave value, by the opponent's leave table); each kept rack counts as many times as it could
have been drawn from the tiles unseen to us. Simulation (issue 22) draws the opponent's
rack from the result: a kept leave by its weight, plus random tiles from what remains.

What the opponent could have held. Before its play, its rack was ``full`` tiles (the rack
size, or every unseen tile when fewer are left) from the unseen tiles (the bag plus its
rack: everything not on the board or on our rack). After a placement of ``p`` tiles, the
rack was the tiles played plus a leave of ``full - p`` tiles from the unseen tiles less the
tiles played. After an exchange of ``n`` tiles the whole rack is unknown: every rack of
``full`` tiles is tried, and one is kept when its best exchange of ``n`` tiles (the best the
leave table says a player throwing ``n`` could do) is within the margin of its best move;
the leave is what that exchange keeps. A pass says nothing (a player may pass for reasons
no equity sees, and MAGPIE returns no inference for it): the result is the prior, a random
rack from the unseen tiles. When the bag was empty the rack was every unseen tile: known.

Weights. A leave counts the ways to draw the whole rack it implies from the unseen tiles,
the product over letters of C(unseen, in the rack). MAGPIE counts the ways to draw the
leave from the unseen tiles less the ones played, which over-weights a leave that repeats
a played letter by C(played + kept, played) for that letter (two As unseen, one played: the
rack AA is one draw of 66, not one in 11 of the racks holding an A).

Bounds. Each rack tried costs one best-move search (``ranked_moves(keep=1)``: about 0.5 ms
without a blank, 10 ms or more with one, on SOWPODS). When there are more than ``limit``
leaves (racks, for an exchange) to try, ``limit`` are drawn at random instead (a fixed
``seed``): the leaves of a placement as the unseen tiles would deal them (accepted with the
probability that corrects the draw to the weights above), the racks of an exchange the same;
each distinct one is searched once, and the weights are how often the kept ones were drawn.
The result says which (``method``): an estimate, good to about one part in sqrt(limit).
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from math import comb, isfinite

from solver_cli.engine.alphabet import ALPHABET_SIZE, BLANK, LETTERS
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import SCALE, LeaveTable, Valuation
from solver_cli.engine.movegen import ranked_moves
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError

CODES = ALPHABET_SIZE + 1
NO_TILES = (0,) * CODES
DEFAULT_MARGIN = 5.0  # points: MAGPIE's default (see docs/inference.md for why)
DEFAULT_LIMIT = 5_000  # racks searched at most; beyond it, that many random draws
MAX_LIMIT = 1_000_000
MAX_MARGIN = 1_000.0
PROGRESS_EVERY = 64  # racks between two progress reports

# What the opponent did.
PLAY, EXCHANGE, PASS = "play", "exchange", "pass"
# How the leaves were found: every one tried, a random sample of them, the rack was known
# (the bag was empty), or nothing learnt (a pass, or no rack within the margin).
EXACT, SAMPLED, KNOWN, PRIOR = "exact", "sampled", "known", "prior"

Progress = Callable[[int, int], None]  # racks searched, racks to search


@dataclass(frozen=True)
class OpponentPlay:
    """The opponent's last move: a placement (``tiles``: 27 counts, blanks at 0, and its
    ``score``), an exchange of ``exchanged`` tiles (which ones we do not see), or a pass."""

    kind: str
    tiles: tuple[int, ...] = NO_TILES
    score: int = 0
    exchanged: int = 0

    @classmethod
    def placement(cls, tiles: Sequence[int], score: int) -> OpponentPlay:
        return cls(PLAY, tuple(tiles), score)

    @classmethod
    def exchange(cls, count: int) -> OpponentPlay:
        return cls(EXCHANGE, exchanged=count)

    @classmethod
    def passed(cls) -> OpponentPlay:
        return cls(PASS)


def parse_opponent_play(
    board: Board, rules: Rules, text: str, contains: Callable[[str], bool], lexicon_name: str, name: str = "play"
) -> tuple[OpponentPlay, str]:
    """The opponent's move ``text`` on ``board`` and the move as it is shown: a placement in
    standard notation (``8D FAIRED``: checked and scored; ``IllegalMove`` when the rules or
    the lexicon do not allow it), ``exchange N`` (N tiles thrown back) or ``pass``. An
    ``InputError`` for anything else names the value as ``name`` (the caller's parameter)."""
    from solver_cli.engine.alphabet import CODE
    from solver_cli.engine.play import check_play

    words = text.split()
    if [w.lower() for w in words] == ["pass"]:
        return OpponentPlay.passed(), "pass"
    if words and words[0].lower() == "exchange":
        if len(words) != 2 or not (words[1].isascii() and words[1].isdigit() and len(words[1]) <= 2):
            raise InputError(f"{name} {text!r}: give the number of tiles exchanged, e.g. 'exchange 3'")
        count = int(words[1])
        if not 1 <= count <= rules.rack_size:
            raise InputError(f"{name} {text!r}: an exchange throws back 1 to {rules.rack_size} tiles")
        return OpponentPlay.exchange(count), f"exchange {count}"
    if len(words) != 2:
        raise InputError(f"{name} {text!r}: give a position and a word (8D FAIRED), 'exchange N' or 'pass'")
    played = check_play(board, rules, words[0], words[1], contains, lexicon_name)
    tiles = [0] * (ALPHABET_SIZE + 1)
    for tile in played.placed:
        tiles[BLANK if tile.blank else CODE[tile.letter]] += 1
    return OpponentPlay.placement(tiles, played.scored.score), f"{words[0].upper()} {words[1]}"


@dataclass(frozen=True)
class InferredLeave:
    """A leave the opponent may have kept: its tiles (27 counts), ``draws`` (the ways to draw
    the rack it implies, or with ``method`` SAMPLED how many random draws gave it), and its
    share of all the kept leaves' draws."""

    tiles: tuple[int, ...]
    draws: int
    weight: float

    @property
    def text(self) -> str:
        return tiles_text(self.tiles)


@dataclass(frozen=True)
class Inference:
    """What the opponent's last play says about its rack now.

    ``leaves``: the kept leaves, most likely first (empty for PRIOR). ``considered`` and
    ``kept``: the leaves (racks, for an exchange) tried and kept, or with SAMPLED the random
    draws; ``kept_share``: the kept ones' share of all the draws, i.e. how likely the play
    was before it was seen. ``pool``: the tiles unseen to us now (after the play), which the
    opponent's rack is drawn from; ``rack_size``: how many it holds (fewer when the pool
    is smaller). ``note`` says why nothing was learnt, for PRIOR."""

    play: OpponentPlay
    method: str
    leaves: tuple[InferredLeave, ...]
    considered: int
    kept: int
    kept_share: float
    margin: float
    leave_size: int
    pool: tuple[int, ...]
    rack_size: int
    note: str = ""
    _cumulative: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_cumulative", tuple(accumulate(leave.draws for leave in self.leaves)))

    def draw(self, rng: random.Random) -> list[int]:
        """One rack for the opponent (27 counts): a kept leave chosen by its weight (none for
        PRIOR), filled up to ``rack_size`` with tiles drawn at random from the rest of
        ``pool``. Thrown-back tiles count as drawable (strictly, the rules have the player
        draw before throwing back; the difference is ignored, as MAGPIE does)."""
        rack = [0] * CODES
        if self.leaves:
            chosen = self.leaves[bisect_right(self._cumulative, rng.randrange(self._cumulative[-1]))].tiles
            rack[:] = chosen
        rest = [code for code in range(CODES) for _ in range(self.pool[code] - rack[code])]
        for code in rng.sample(rest, min(self.rack_size - sum(rack), len(rest))):
            rack[code] += 1
        return rack


def tiles_text(tiles: Sequence[int]) -> str:
    """``AEI?``: letters in order, blanks last ("-" for none)."""
    text = "".join(LETTERS[code - 1] * tiles[code] for code in range(1, CODES)) + "?" * tiles[BLANK]
    return text or "-"


def infer(
    board: Board,
    unseen: Sequence[int],
    play: OpponentPlay,
    rules: Rules,
    gaddag: Gaddag,
    leaves: LeaveTable,
    *,
    margin: float = DEFAULT_MARGIN,
    limit: int = DEFAULT_LIMIT,
    seed: int = 0,
    engine: str | None = None,
    progress: Progress | None = None,
) -> Inference:
    """Infer the opponent's leave from ``play``, made on ``board`` (the position before it),
    ``unseen`` being the 27 tile counts unseen to us then (the bag plus the opponent's rack).
    ``leaves`` is the opponent's leave table. Raises ``InputError`` for arguments that cannot
    describe a position (tiles played that are not unseen, more than a rack, ...)."""
    pool = _check(unseen, play, rules, margin, limit)
    total = sum(pool)
    full = min(rules.rack_size, total)
    bag = total - full
    margin_thousandths = round(margin * SCALE)
    if play.kind == PASS:
        return Inference(
            play, PRIOR, (), 0, 0, 1.0, margin, full, pool, full, "a pass says nothing about the rack it keeps"
        )
    played = play.tiles
    after = tuple(n - p for n, p in zip(pool, played, strict=True))  # the pool once the play is on the board
    size = full - sum(played) if play.kind == PLAY else full - play.exchanged
    if play.kind == PLAY and sum(played) > full:
        raise InputError(f"the play uses {sum(played)} tiles; the opponent held at most {full}")
    if play.kind == EXCHANGE and size < 0:
        raise InputError(f"an exchange of {play.exchanged} tiles; the opponent held at most {full}")
    if bag == 0 and play.kind == EXCHANGE:
        raise InputError("an exchange with the bag empty: every unseen tile was on the opponent's rack")
    if bag == 0 and play.kind == PLAY:
        # Every unseen tile was on the opponent's rack: nothing to infer.
        leave = InferredLeave(after, 1, 1.0)
        return Inference(play, KNOWN, (leave,), 1, 1, 1.0, margin, size, after, full)
    valuation = Valuation(
        leaves,
        bag=bag,
        exchange=rules.exchange_max if bag >= rules.exchange_min_bag else 0,
        passes=True,
    )
    searcher = _Searcher(board, rules, gaddag, valuation, engine, margin_thousandths)

    def judge(candidate: tuple[int, ...]) -> tuple[int, ...] | None:
        """The leave kept, if the play is within the margin for this leave (this rack)."""
        if play.kind == PLAY:
            return searcher.placement(played, play.score, candidate)
        return searcher.exchange(candidate, play.exchanged)

    # A placement's unknowns are its leave; an exchange's, the whole rack.
    source, unit = (after, size) if play.kind == PLAY else (pool, full)
    if count_multisets(source, unit) <= limit:
        found = _exact(source, unit, played, judge, progress)
        method = EXACT
    else:
        found = _sampled(source, unit, played, judge, limit, random.Random(seed), progress)
        method = SAMPLED
    considered, kept_count, considered_draws, by_leave = found
    kept_draws = sum(by_leave.values())
    pool_now = after if play.kind == PLAY else pool
    if not by_leave:
        note = f"no rack it could have held makes the play within {margin:g} points of its best"
        return Inference(play, PRIOR, (), considered, 0, 0.0, margin, size, pool_now, full, note)
    ordered = sorted(by_leave.items(), key=lambda item: (-item[1], tiles_text(item[0])))
    result = tuple(InferredLeave(tiles, draws, draws / kept_draws) for tiles, draws in ordered)
    share = kept_draws / considered_draws
    return Inference(play, method, result, considered, kept_count, share, margin, size, pool_now, full)


def _check(unseen: Sequence[int], play: OpponentPlay, rules: Rules, margin: float, limit: int) -> tuple[int, ...]:
    if len(unseen) != CODES or not all(type(n) is int and n >= 0 for n in unseen):
        raise InputError("unseen tiles must be 27 non-negative integers: blanks first, then A..Z")
    if play.kind not in (PLAY, EXCHANGE, PASS):
        raise InputError(f"the opponent's move must be a play, an exchange or a pass, not {play.kind!r}")
    if len(play.tiles) != CODES or not all(type(n) is int and n >= 0 for n in play.tiles):
        raise InputError("the tiles played must be 27 non-negative integers: blanks first, then A..Z")
    if play.kind == PLAY and not any(play.tiles):
        raise InputError("the play places no tile")
    if play.kind != PLAY and any(play.tiles):
        raise InputError(f"{'an exchange' if play.kind == EXCHANGE else 'a pass'} places no tile")
    if play.kind == EXCHANGE and not (type(play.exchanged) is int and 1 <= play.exchanged <= rules.rack_size):
        raise InputError(f"an exchange throws back 1 to {rules.rack_size} tiles, not {play.exchanged!r}")
    missing = [code for code in range(CODES) if play.tiles[code] > unseen[code]]
    if missing:
        shown = tiles_text([play.tiles[c] - unseen[c] if c in missing else 0 for c in range(CODES)])
        raise InputError(f"the play uses {shown} beyond the tiles unseen to us ({tiles_text(unseen)})")
    if type(play.score) is not int:
        raise InputError(f"the play's score must be an integer, not {play.score!r}")
    if not (isinstance(margin, int | float) and isfinite(margin) and 0 <= margin <= MAX_MARGIN):
        raise InputError(f"the margin must be 0 to {MAX_MARGIN:g} points, not {margin!r}")
    if type(limit) is not int or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be 1 to {MAX_LIMIT:,} racks, not {limit!r}")
    return tuple(unseen)


class _Searcher:
    """Judges one candidate rack by its best move (MAGPIE's rule)."""

    def __init__(
        self, board: Board, rules: Rules, gaddag: Gaddag, valuation: Valuation, engine: str | None, margin: int
    ):
        self.board, self.rules, self.gaddag = board, rules, gaddag
        self.valuation, self.engine, self.margin = valuation, engine, margin

    def best(self, rack: list[int]) -> int:
        """The rack's best equity, in thousandths of a point (the pass is always a move)."""
        _, top = ranked_moves(self.board, rack, self.gaddag, self.rules, 1, self.valuation, self.engine)
        return top[0].equity

    def placement(self, played: tuple[int, ...], score: int, leave: tuple[int, ...]) -> tuple[int, ...] | None:
        """``leave`` if the play is within the margin of the best for the rack it implies."""
        rack = [p + k for p, k in zip(played, leave, strict=True)]
        recorded = score * SCALE + self.valuation.leave_term(leave, self.rules)
        return leave if recorded + self.margin >= self.best(rack) else None

    def exchange(self, rack: tuple[int, ...], thrown: int) -> tuple[int, ...] | None:
        """What ``rack``'s best exchange of ``thrown`` tiles keeps, if that exchange is within
        the margin of the rack's best move. Among equal leaves, the engine's order: fewer
        blanks thrown, then the tiles thrown in code order."""
        best_kept: tuple[int, ...] | None = None
        best_key: tuple[int, int, tuple[int, ...]] | None = None
        for kept in sub_multisets(rack, sum(rack) - thrown):
            out = tuple(r - k for r, k in zip(rack, kept, strict=True))
            codes = tuple(code for code in range(CODES) for _ in range(out[code]))
            key = (-self.valuation.leave_term(kept, self.rules), out[BLANK], codes)
            if best_key is None or key < best_key:
                best_kept, best_key = kept, key
        assert best_kept is not None and best_key is not None
        return best_kept if -best_key[0] + self.margin >= self.best(list(rack)) else None


# What a search found: racks (or draws) considered, kept, the draws they stand for, and the
# kept leaves with their draws.
Found = tuple[int, int, int, dict[tuple[int, ...], int]]


def _exact(
    source: tuple[int, ...],
    size: int,
    played: tuple[int, ...],
    judge: Callable[[tuple[int, ...]], tuple[int, ...] | None],
    progress: Progress | None,
) -> Found:
    """Every multiset of ``size`` tiles from ``source``, weighted by the ways to draw it
    together with ``played`` from the unseen tiles (``source + played``)."""
    todo = count_multisets(source, size)
    unseen = [s + p for s, p in zip(source, played, strict=True)]
    by_leave: dict[tuple[int, ...], int] = {}
    considered = kept = all_draws = 0
    for candidate in sub_multisets(source, size):
        ways = 1
        for code in range(CODES):
            if candidate[code] or played[code]:
                ways *= comb(unseen[code], candidate[code] + played[code])
        all_draws += ways
        considered += 1
        leave = judge(candidate)
        if leave is not None:
            kept += 1
            by_leave[leave] = by_leave.get(leave, 0) + ways
        if progress is not None and considered % PROGRESS_EVERY == 0:
            progress(considered, todo)
    return considered, kept, all_draws, by_leave


def _sampled(
    source: tuple[int, ...],
    size: int,
    played: tuple[int, ...],
    judge: Callable[[tuple[int, ...]], tuple[int, ...] | None],
    limit: int,
    rng: random.Random,
    progress: Progress | None,
) -> Found:
    """``limit`` random draws of ``size`` tiles from ``source``, each distinct one judged once.
    A draw from ``source`` alone under-weights a multiset repeating a played letter by
    C(played + drawn, played) for that letter against the exact weights, so it is accepted
    with probability 1 / that product (1 for most draws)."""
    tiles = [code for code in range(CODES) for _ in range(source[code])]
    seen: dict[tuple[int, ...], tuple[int, ...] | None] = {}
    by_leave: dict[tuple[int, ...], int] = {}
    accepted = kept = attempts = 0
    while accepted < limit and attempts < 100 * limit:
        attempts += 1
        candidate = [0] * CODES
        for code in rng.sample(tiles, size):
            candidate[code] += 1
        over = 1
        for code in range(CODES):
            if played[code] and candidate[code]:
                over *= comb(played[code] + candidate[code], played[code])
        if over > 1 and rng.randrange(over):
            continue
        accepted += 1
        key = tuple(candidate)
        if key not in seen:
            seen[key] = judge(key)
            if progress is not None and len(seen) % PROGRESS_EVERY == 0:
                progress(accepted, limit)
        leave = seen[key]
        if leave is not None:
            kept += 1
            by_leave[leave] = by_leave.get(leave, 0) + 1
    return accepted, kept, accepted, by_leave


def count_multisets(counts: Sequence[int], size: int) -> int:
    """How many distinct multisets of ``size`` tiles ``counts`` (27 counts) holds."""
    ways = [1] + [0] * size
    for n in counts:
        ways = [sum(ways[j - t] for t in range(min(n, j) + 1)) for j in range(size + 1)]
    return ways[size]


def sub_multisets(counts: Sequence[int], size: int) -> Iterator[tuple[int, ...]]:
    """Every distinct multiset of ``size`` tiles within ``counts`` (27 counts each), in
    odometer order (most of the first code first)."""
    chosen = [0] * CODES
    # room[c]: how many tiles the codes from c on can still give
    room = list(accumulate(reversed(counts)))[::-1] + [0]

    def walk(code: int, left: int) -> Iterator[tuple[int, ...]]:
        if left == 0:
            yield tuple(chosen)
            return
        if code == CODES or room[code] < left:
            return
        for take in range(min(counts[code], left), -1, -1):
            chosen[code] = take
            yield from walk(code + 1, left - take)
        chosen[code] = 0

    yield from walk(0, size)

"""The simulation's play-outs: a candidate, then best replies by equity, from one iteration's
opponent rack and bag (docs/sim.md, "One iteration").

``play_out`` is the readable specification and the twin of the native loop
(``engine/native/rollout.c``), which plays every live candidate of an iteration in one call
without coming back to Python between plies; ``play_outs`` runs one or the other. Both give
the same ``Outcome`` for the same arguments: the differential test in
``tests/lookahead/test_rollout.py`` holds them to it.

The only random draws inside a play-out are the reshuffles of the bag after an exchange,
made by ``SplitMix64`` (implemented identically in C), seeded once per iteration.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import BLANK_BIT
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import LeaveTable, Valuation
from solver_cli.engine.movegen import EXCHANGE, PLACE, Candidate, ranked_moves
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError

if TYPE_CHECKING:
    from solver_cli.engine import _movegen_c
else:
    _movegen_c = movegen._movegen_c  # None where the native engine is not built

MASK64 = (1 << 64) - 1


class SplitMix64:
    """splitmix64 (Steele, Lea and Flood 2014), as ``rng_next`` in rollout.c, and the two
    draws made from it: ``below(n)`` by rejection (no modulo bias) and ``shuffle``
    (Fisher-Yates from the end of the list)."""

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform in 0..n-1 (n >= 1): values above the largest multiple of n are redrawn."""
        limit = MASK64 - (MASK64 % n + 1) % n
        while True:
            x = self.next()
            if x <= limit:
                return x % n

    def shuffle(self, items: list[int]) -> None:
        for i in range(len(items), 1, -1):
            j = self.below(i)
            items[i - 1], items[j] = items[j], items[i - 1]


class Outcome(NamedTuple):
    """One play-out, from the mover's side: its points minus the opponent's (with a game that
    ended, its end-of-game adjustments too); the last leave terms' difference in thousandths
    (the mover's minus the opponent's; 0 when the game ended); whether the game ended; the
    side to move at the end (0 the mover) and the tiles that side cannot see (the bag and the
    other rack; 0 when the game ended)."""

    points: int
    leaves: int
    ended: bool
    side: int
    unseen: int


def face(rack: Sequence[int], values: Sequence[int]) -> int:
    return sum(n * values[code] for code, n in enumerate(rack) if n and code)


def exchange_allowed(rules: Rules, bag: int) -> int:
    """How many tiles a reply may throw back with ``bag`` tiles in the bag."""
    return min(rules.exchange_max, bag) if bag >= rules.exchange_min_bag else 0


def check_candidates(
    board: Board, rack: Sequence[int], rules: Rules, candidates: Sequence[Candidate], bag: int
) -> None:
    """``InputError`` unless every candidate is playable by ``rack`` on ``board`` (inside
    it, its word matching the board's tiles, its new tiles on the rack; an exchange of tiles
    the rack holds, no more than ``bag``; a pass): what the native loop checks too."""
    cols, rows, squares = board.cols, board.rows, board.squares
    for number, c in enumerate(candidates, 1):
        left = list(rack)
        problem = None
        if c.kind == PLACE:
            along, across = (rows, cols) if c.down else (cols, rows)
            if not (0 <= c.line < across and c.start >= 0 and len(c.codes) >= 1 and c.start + len(c.codes) <= along):
                problem = "does not fit on the board"
            else:
                for k, code in enumerate(c.codes):
                    i = (c.start + k) * cols + c.line if c.down else c.line * cols + c.start + k
                    if code not in movegen.VALID_SQUARES or code == 0:
                        problem = "holds a code that is not a tile"
                    elif squares[i]:
                        if squares[i] != code:
                            problem = "does not match the board's tiles"
                    else:
                        tile = 0 if code & BLANK_BIT else code
                        left[tile] -= 1
                        if left[tile] < 0:
                            problem = "uses tiles that are not on the rack"
                    if problem:
                        break
        elif c.kind == EXCHANGE:
            if not 1 <= len(c.codes) <= min(rules.exchange_max, bag):
                problem = "exchanges more tiles than the rules or the bag allow"
            for code in c.codes:
                if not 0 <= code < len(left) or left[code] == 0:
                    problem = "exchanges tiles that are not on the rack"
                    break
                left[code] -= 1
        elif c.codes:
            problem = "is a pass holding tiles"
        if not 0 <= c.score <= 1 << 57:
            problem = "has a score out of range"
        if problem:
            raise InputError(f"candidate {number} {problem}")


def play_out(
    board: Board,
    rack: Sequence[int],
    gaddag: Gaddag,
    rules: Rules,
    leaves: LeaveTable,
    candidate: Candidate,
    opponent: Sequence[int],
    bag_order: Sequence[int],
    seed: int,
    plies: int,
    scoreless: int,
    engine: str | None = None,
) -> Outcome:
    """The candidate, then ``plies`` best replies by equity (the opponent's first), the racks
    refilled from the end of ``bag_order`` after each placement; an exchange draws its tiles
    first, puts the thrown ones at the end of the bag and shuffles the whole bag with the
    play-out's ``SplitMix64(seed)``. ``engine`` picks the move generator of the replies."""
    values = rules.values
    cols = rules.cols
    squares = list(board.squares)
    played = Board(rules.rows, cols, squares)  # shares ``squares``: plays below change it
    bag = list(bag_order)
    racks = [list(rack), list(opponent)]
    gained = [0, 0]
    last_leave = [0, 0]
    rng = SplitMix64(seed)
    side = 0
    move = candidate
    for ply in range(plies + 1):
        hand = racks[side]
        if ply:
            valuation = Valuation(
                leaves,
                bag=len(bag),
                opponent=0 if bag else face(racks[1 - side], values),
                exchange=exchange_allowed(rules, len(bag)),
                passes=True,
            )
            move = ranked_moves(played, hand, gaddag, rules, keep=1, valuation=valuation, engine=engine)[1][0]
        score = move.score
        if move.kind == PLACE:
            _, down, line, start, codes = move.raw
            placed = 0
            for k, code in enumerate(codes):
                i = (start + k) * cols + line if down else line * cols + start + k
                if not squares[i]:
                    squares[i] = code
                    hand[0 if code & BLANK_BIT else code] -= 1
                    placed += 1
            gained[side] += score
            for _ in range(min(placed, len(bag))):
                hand[bag.pop()] += 1
            if not any(hand):  # out, with the bag empty
                left = face(racks[1 - side], values)
                gained[side] += rules.out_gain * left
                gained[1 - side] -= rules.out_loss * left
                return Outcome(gained[0] - gained[1], 0, True, 0, 0)
        elif move.kind == EXCHANGE:
            thrown = move.codes
            for code in thrown:
                hand[code] -= 1
            for _ in range(len(thrown)):
                hand[bag.pop()] += 1
            bag.extend(thrown)
            rng.shuffle(bag)
        last_leave[side] = move.leave
        scoreless = scoreless + 1 if score == 0 else 0
        if scoreless >= rules.scoreless_turns:
            gained[0] -= rules.stuck_loss * face(racks[0], values)
            gained[1] -= rules.stuck_loss * face(racks[1], values)
            return Outcome(gained[0] - gained[1], 0, True, 0, 0)
        side = 1 - side
    return Outcome(gained[0] - gained[1], last_leave[0] - last_leave[1], False, side, len(bag) + sum(racks[1 - side]))


def native_built() -> bool:
    """Whether the native loop is there (the native engine is built, with rollout.c)."""
    return _movegen_c is not None and hasattr(_movegen_c, "rollout")


def play_outs(
    board: Board,
    rack: Sequence[int],
    gaddag: Gaddag,
    rules: Rules,
    leaves: LeaveTable,
    candidates: Sequence[Candidate],
    packed: bytes,
    live: Sequence[int],
    opponent: Sequence[int],
    bag_order: Sequence[int],
    seed: int,
    plies: int,
    scoreless: int,
    engine: str,
) -> list[Outcome]:
    """``play_out`` for each candidate of ``live`` (indices into ``candidates``, which
    ``packed`` holds as the native engine packs them: ``pack_candidates``): in one native
    call when ``engine`` is "native" and the loop is built, else by the twin."""
    if engine != "native" or not native_built():
        return [
            play_out(
                board, rack, gaddag, rules, leaves, candidates[i], opponent, bag_order, seed, plies, scoreless, engine
            )
            for i in live
        ]
    assert _movegen_c is not None
    try:
        rows = _movegen_c.rollout(
            movegen.native_lexicon(gaddag),
            movegen._layout(rules),
            movegen.native_leaves(leaves),
            bytes(board.squares),
            bytes(rack),
            packed,
            live,
            bytes(opponent),
            bytes(bag_order),
            seed,
            plies,
            scoreless,
            rules.scoreless_turns,
            rules.exchange_min_bag,
            rules.exchange_max,
            rules.out_gain,
            rules.out_loss,
            rules.stuck_loss,
        )
    except ValueError as exc:  # the front checked everything: a refusal names what slipped through
        raise InputError(f"the native play-out refused its input: {exc}") from None
    return [Outcome(points, leave, bool(ended), side, unseen) for points, leave, ended, side, unseen in rows]


def pack_candidates(candidates: Sequence[Candidate]) -> bytes:
    """The candidates packed one record each, as the native loop reads them."""
    return b"".join(movegen._pack(c) for c in candidates)

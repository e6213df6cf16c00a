"""Small random endgames for the solver's tests, seeded and reproducible.

A board is the final or a late board of a greedy self-play game (small word list, both rule
sets); the racks are drawn from the tiles the board does not hold (1 to 4 each), so board +
racks never hold more of a tile than the bag. Each seed aims at one kind of endgame: blanks,
a stuck tile (a letter with no place to go), a scoreless count near the limit, uneven racks,
or changed end-of-game rules. Every endgame carries its value by the plain full-width
reference (reference.minimax); one whose tree is too big for the reference is skipped for
the next draw of the same seed.
"""

from __future__ import annotations

import dataclasses
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from solver_cli.engine.alphabet import BLANK_BIT, CODE, LETTER_MASK, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import ENGINE_ENV, NATIVE_BUILT, PASS, generate_moves, rank_key
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.games.selfplay import play_game
from solver_cli.lexicon.build import build_gaddag

from . import reference

RULES = {"scrabble": load_rules("scrabble"), "wwf": load_rules("wwf")}
GAMES = 6  # self-play games per rule set that boards are taken from
NODE_CAP = 500  # reference positions visited at most (a bigger tree is drawn again)
KINDS = ("plain", "blank", "stuck", "near-limit", "uneven", "rules", "four", "blanks-both")
STUCK_LETTERS = "QVJXZKWY"

Placement = frozenset[tuple[int, int, int]]  # the new tiles: (row, col, code)
PASS_MOVE: Placement = frozenset()  # the pass places nothing


@dataclass(frozen=True)
class Endgame:
    seed: int
    kind: str
    rules: Rules
    squares: tuple[int, ...]
    mover: tuple[int, ...]  # 27 counts, index 0 blanks
    opponent: tuple[int, ...]
    scoreless: int
    value: int  # reference.minimax
    nodes: int  # positions the reference visited
    lexicon: str  # "small" or "tiny" (see Lexicons)

    @property
    def board(self) -> Board:
        return Board(self.rules.rows, self.rules.cols, list(self.squares))

    def describe(self) -> str:
        """Everything needed to rebuild the position, for a failing test's message."""
        r = self.rules
        ends = f"out_gain={r.out_gain} out_loss={r.out_loss} stuck_loss={r.stuck_loss} L={r.scoreless_turns}"
        return (
            f"endgame seed {self.seed} ({self.kind}, {self.lexicon} lexicon, {r.name} {ends}): "
            f"mover {rack_text(list(self.mover))!r} vs {rack_text(list(self.opponent))!r}, "
            f"scoreless {self.scoreless}, reference value {self.value}\n" + self.board.to_text()
        )


def face(rack: list[int] | tuple[int, ...], rules: Rules) -> int:
    return sum(n * rules.values[code] for code, n in enumerate(rack) if code)


def tile_of(code: int) -> int:
    """The rack index a square's code takes a tile from (0 for a blank)."""
    return 0 if code & BLANK_BIT else code & LETTER_MASK


def unseen(rules: Rules, squares: list[int] | tuple[int, ...]) -> list[int]:
    """The bag's tiles less those on the board, by rack index."""
    pool = list(rules.counts)
    for code in squares:
        if code:
            pool[tile_of(code)] -= 1
    return pool


def consistent(endgame: Endgame) -> bool:
    pool = unseen(endgame.rules, endgame.squares)
    return all(m + o <= n for m, o, n in zip(endgame.mover, endgame.opponent, pool, strict=True))


@contextmanager
def _native_when_built() -> Iterator[None]:
    """Self-play boards are the same on both engines (the greedy choice is ranked alike); the
    native one only plays them faster, whatever engine the test under way has chosen."""
    before = os.environ.get(ENGINE_ENV)
    if NATIVE_BUILT:
        os.environ[ENGINE_ENV] = "native"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENGINE_ENV, None)
        else:
            os.environ[ENGINE_ENV] = before


class Lexicons:
    """The word lists endgames are played with: "small" (tests/conftest.py's few thousand
    words, which self-play boards are made with) and "tiny" (a sample of it, so that racks
    of four tiles still make trees the plain reference can search)."""

    def __init__(self, small_words: list[str], small: Gaddag):
        two = [w for w in small_words if len(w) == 2][::4]
        three = [w for w in small_words if len(w) == 3][::20]
        longer = [w for w in small_words if len(w) > 3][::10]
        self.gaddags = {"small": small, "tiny": build_gaddag(sorted(two + three + longer))}

    def __getitem__(self, name: str) -> Gaddag:
        return self.gaddags[name]


_games: dict[tuple[int, str, int], list[list[int]]] = {}


def game_boards(gaddag: Gaddag, name: str, game: int) -> list[list[int]]:
    """The board after each turn of one greedy self-play game (the last is its final board)."""
    key = (id(gaddag), name, game)
    if key not in _games:
        rules = RULES[name]
        with _native_when_built():
            result = play_game(gaddag, rules, 7_000 + game)
        squares = [0] * (rules.rows * rules.cols)
        boards = []
        for turn in result.turns:
            for row, col, code in turn.placed:
                squares[row * rules.cols + col] = code
            boards.append(list(squares))
        assert boards[-1] == list(result.squares)
        _games[key] = boards
    return _games[key]


class TooBig(Exception):
    pass


class Reference:
    """reference.minimax with the move generator's answers remembered (a tree repeats the
    same board and rack along many lines) and counted (a tree too big for the plain search
    is refused). The native generator is used when built, only for speed: the two
    generators are proven identical by tests/engine/test_movegen_diff.py."""

    def __init__(self, gaddag: Gaddag, cap: int | None = None):
        self.gaddag = gaddag
        self.cap = cap
        self.nodes = 0
        self._moves: dict[tuple[tuple[int, ...], tuple[int, ...]], list] = {}
        self._engine = "native" if NATIVE_BUILT else "python"

    def moves(self, board: Board, rack: list[int], gaddag: Gaddag, rules: Rules) -> list:
        self.nodes += 1
        if self.cap is not None and self.nodes > self.cap:
            raise TooBig
        key = (tuple(board.squares), tuple(rack))
        if key not in self._moves:
            self._moves[key] = generate_moves(board, rack, gaddag, rules, engine=self._engine)
        return self._moves[key]

    def minimax(
        self, rules: Rules, squares: list[int] | tuple[int, ...], me: list[int], them: list[int], scoreless: int
    ) -> int:
        original = reference.generate_moves
        reference.generate_moves = self.moves  # type: ignore[assignment]
        try:
            board = Board(rules.rows, rules.cols, list(squares))
            return reference.minimax(board, list(me), list(them), self.gaddag, rules, scoreless)
        finally:
            reference.generate_moves = original

    def first_moves(self, rules: Rules, squares, me, them, scoreless: int) -> list[tuple[Placement, int, int, tuple]]:
        """Every first move (the placements and the pass) as (placement, score, exact value,
        static-order key), in the static order of docs/endgame.md: placements that go out,
        then the other placements, each in rank order, then the pass."""
        rows: list[tuple[Placement, int, int, tuple]] = []
        limit = rules.scoreless_turns
        board = Board(rules.rows, rules.cols, list(squares))
        for raw in self.moves(board, list(me), self.gaddag, rules):
            after, left, placed = play(rules, squares, me, raw)
            score = raw[0]
            s2 = scoreless + 1 if score == 0 else 0
            if not any(left):
                value = score + (rules.out_gain + rules.out_loss) * face(them, rules)
            elif s2 >= limit:
                value = score - rules.stuck_loss * face(left, rules) + rules.stuck_loss * face(them, rules)
            else:
                value = score - self.minimax(rules, after, them, left, s2)
            rows.append((placed, score, value, (0 if not any(left) else 1, rank_key(raw))))
        if scoreless + 1 >= limit:
            value = rules.stuck_loss * (face(them, rules) - face(me, rules))
        else:
            value = -self.minimax(rules, squares, them, me, scoreless + 1)
        rows.sort(key=lambda row: row[3])
        rows.append((PASS_MOVE, 0, value, (2,)))
        return rows


def play(rules: Rules, squares, rack, raw) -> tuple[list[int], list[int], Placement]:
    """The board and the rack after a placement (a raw move), and its new tiles."""
    _, down, line, start, codes = raw
    after = list(squares)
    left = list(rack)
    placed = set()
    for k, code in enumerate(codes):
        row, col = (start + k, line) if down else (line, start + k)
        i = row * rules.cols + col
        if not after[i]:
            after[i] = code
            left[tile_of(code)] -= 1
            placed.add((row, col, code))
    return after, left, frozenset(placed)


def placement_of(rules: Rules, squares, move) -> Placement:
    """The new tiles of a solver's move (a Candidate); the pass places none."""
    if move.kind == PASS:
        return PASS_MOVE
    return play(rules, squares, [99] * 27, move.raw)[2]


def _rules_variant(rng: random.Random, base: Rules) -> Rules:
    """Other end-of-game rules: the bonus and penalties 0..3 each, and sometimes another
    number of scoreless turns."""
    return dataclasses.replace(
        base,
        name=base.name + "-variant",
        out_gain=rng.randint(0, 3),
        out_loss=rng.randint(0, 3),
        stuck_loss=rng.randint(0, 3),
        scoreless_turns=rng.choice((base.scoreless_turns, 1, 2, 4)),
    )


def _draw(rng: random.Random, pool: list[int], size: int, rack: list[int]) -> bool:
    tiles = [code for code, n in enumerate(pool) for _ in range(n)]
    if len(tiles) < size:
        return False
    for code in rng.sample(tiles, size):
        pool[code] -= 1
        rack[code] += 1
    return True


def _take(pool: list[int], code: int, rack: list[int]) -> bool:
    if pool[code] <= 0:
        return False
    pool[code] -= 1
    rack[code] += 1
    return True


def _attempt(rng: random.Random, lexicons: Lexicons, kind: str, name: str, lexicon: str):
    """One draw of an endgame of ``kind``: (rules, squares, mover, opponent, scoreless), or
    None when the drawn board cannot give that kind."""
    base = RULES[name]
    gaddag = lexicons[lexicon]
    boards = game_boards(lexicons["small"], name, rng.randrange(GAMES))
    # Racks of four play on late boards, whose few open places keep the tree small.
    back = {"four": 6, "uneven": 10}.get(kind, 20)
    squares = boards[max(0, len(boards) - 1 - rng.randint(0, back))]
    rules = _rules_variant(rng, base) if kind == "rules" else base
    pool = unseen(rules, squares)
    mover, opponent = [0] * 27, [0] * 27
    sizes = [rng.randint(1, 3), rng.randint(1, 3)]
    if kind == "blank":
        # A blank makes any letter: with one more tile at most beside it the tree stays small.
        holder = rng.randrange(2)
        if not _take(pool, 0, (mover, opponent)[holder]):
            return None
        sizes = [rng.randint(0, 1), rng.randint(1, 2)] if holder == 0 else [rng.randint(1, 2), rng.randint(0, 1)]
    elif kind == "blanks-both":
        if not (_take(pool, 0, mover) and _take(pool, 0, opponent)):
            return None
        sizes = [rng.randint(0, 1), rng.randint(0, 1)]
    elif kind == "stuck":
        # A heavy letter with no place to go on this board (in neither rack's moves).
        letters = [CODE[ch] for ch in STUCK_LETTERS if pool[CODE[ch]]]
        if not letters:
            return None
        letter = rng.choice(letters)
        board = Board(rules.rows, rules.cols, list(squares))
        alone = [0] * 27
        alone[letter] = 1
        if generate_moves(board, alone, gaddag, rules, engine="native" if NATIVE_BUILT else "python"):
            return None
        _take(pool, letter, rng.choice((mover, opponent)))
        sizes = [rng.randint(0, 3), rng.randint(0, 3)]
    elif kind == "uneven":
        sizes = [1, 4] if rng.random() < 0.5 else [4, 1]
    elif kind == "four":
        sizes = [rng.randint(3, 4), rng.randint(3, 4)]
    for rack, size in zip((mover, opponent), sizes, strict=True):
        size = max(size, 0 if any(rack) else 1)
        if not _draw(rng, pool, size, rack):
            return None
    board = Board(rules.rows, rules.cols, list(squares))
    engine = "native" if NATIVE_BUILT else "python"
    if rng.random() < 0.9 and not any(
        generate_moves(board, rack, gaddag, rules, engine=engine) for rack in (mover, opponent)
    ):
        return None  # mostly endgames where someone can play: passes alone are one line
    limit = rules.scoreless_turns
    if kind == "near-limit":
        scoreless = max(0, limit - rng.choice((1, 1, 2)))
    else:
        scoreless = rng.choice((0, 0, rng.randrange(limit)))
    return rules, squares, mover, opponent, scoreless


_endgames: dict[tuple[int, int, int, int], Endgame] = {}


def random_endgame(seed: int, lexicons: Lexicons, cap: int = NODE_CAP, floor: int = 0) -> Endgame:
    """``_random_endgame``, remembered: a test runs the same endgames on both engines."""
    key = (seed, id(lexicons), cap, floor)
    if key not in _endgames:
        _endgames[key] = _random_endgame(seed, lexicons, cap, floor)
    return _endgames[key]


def _random_endgame(seed: int, lexicons: Lexicons, cap: int, floor: int) -> Endgame:
    """The endgame of ``seed``: its kind, rule set and word list follow from the seed (every
    kind on both rule sets within 2 * len(KINDS) seeds, each word list within twice that);
    the board, racks and scoreless count from its draws, the first whose reference tree fits
    ``cap`` and has at least ``floor`` positions."""
    kind = KINDS[(seed // 2) % len(KINDS)]
    name = ("scrabble", "wwf")[seed % 2]
    lexicon = "tiny" if kind in ("four", "uneven", "blanks-both") or (seed // (2 * len(KINDS))) % 2 else "small"
    gaddag = lexicons[lexicon]
    rng = random.Random(f"endgame {seed}")
    while True:
        drawn = _attempt(rng, lexicons, kind, name, lexicon)
        if drawn is None:
            continue
        rules, squares, mover, opponent, scoreless = drawn
        ref = Reference(gaddag, cap)
        try:
            value = ref.minimax(rules, squares, mover, opponent, scoreless)
        except TooBig:
            continue
        if ref.nodes < floor:
            continue
        return Endgame(
            seed, kind, rules, tuple(squares), tuple(mover), tuple(opponent), scoreless, value, ref.nodes, lexicon
        )


__all__ = [
    "Endgame",
    "Lexicons",
    "Reference",
    "random_endgame",
    "face",
    "play",
    "placement_of",
    "consistent",
    "PASS_MOVE",
]


def hard_endgame() -> tuple[Board, list[int], list[int], Rules]:
    """An endgame no machine proves in seconds with the small word list: the 15th of the
    bench's (ACEEJRS against DINOQTU on a crowded sowpods board; not proven in 60 s on the
    project's machine on 2026-11-26, the native search at 25 million nodes), for the tests
    of time limits, which a search that proves first would not exercise."""
    from solver_cli.bench import ENDGAME_SET, bench_file
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.formats.boardfile import parse_board
    from solver_cli.formats.cgp import parse_cgp

    file, _, rules_name = ENDGAME_SET
    rules = RULES[rules_name]
    lines = [line for line in bench_file(file).splitlines() if line.strip() and not line.startswith("#")]
    position = parse_cgp(lines[14], f"{file}, position 15")
    assert position.racks[:2] == ["ACEEJRS", "DINOQTU"], "the bench's endgames changed"
    board = parse_board("\n".join(position.rows) + "\n", rules, file)
    return board, parse_rack(position.racks[0], rules.rack_size), parse_rack(position.racks[1], rules.rack_size), rules

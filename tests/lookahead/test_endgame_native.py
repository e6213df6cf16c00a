"""The native endgame search (``_movegen_c.endgame``, native/endgame.c) called directly:
its proven values and its K best first moves equal the plain minimax of reference.py on many
small random endgames (Scrabble and Words with Friends, blanks, stuck tiles, racks of 1 to 3
tiles, 1 to 3 scoreless turns to the end, other end-of-game factors), its principal
variation replays legally to the value, and every argument out of range is refused. The cut
statuses (plies, time, Ctrl-C) and the progress callback are checked on larger endgames.

The reference regenerates every position's moves with the Python twin's generator; here the
generator is memoised per (board, rack), which leaves the definition untouched and makes the
full-width search affordable.
"""

from __future__ import annotations

import _thread
import dataclasses
import functools
import random
import threading
import time

import pytest
from positions import bag_for, played_position
from soak import first_then_soak

from lookahead import reference
from lookahead.positions import hard_endgame
from solver_cli.engine import _movegen_py, movegen
from solver_cli.engine.alphabet import BLANK_BIT, CODE
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import NATIVE_BUILT, RECORD, rank_key
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.lexicon.build import build_gaddag
from solver_cli.lookahead.endgame import DEEPEN_STEP

pytestmark = pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")

PROVEN, CUT_PLIES, CUT_TIME, INTERRUPTED = 0, 1, 2, 3
PLACE, PASS = movegen.PLACE, movegen.PASS
RULES = {"scrabble": load_rules("scrabble"), "wwf": load_rules("wwf")}
CHUNKS = 15
PER_CHUNK = 20  # 15 x 20 = 300 random endgames per rule set
DEFAULT_CHUNKS = 2  # in a plain `pytest`; the rest are soak


@dataclasses.dataclass(frozen=True)
class _EndRules(Rules):
    """A rule set with the end-of-game factors (docs/endgame.md; Rules gains them too)."""

    out_gain: int = 1
    out_loss: int = 1
    stuck_loss: int = 1


def variant(rules: Rules, **changes: int) -> Rules:
    given = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    return _EndRules(**{**given, **changes})


def factors(rules: Rules) -> tuple[int, int, int]:
    return getattr(rules, "out_gain", 1), getattr(rules, "out_loss", 1), getattr(rules, "stuck_loss", 1)


def solve(
    board: Board,
    mover: list[int],
    opponent: list[int],
    gaddag: Gaddag,
    rules: Rules,
    scoreless: int = 0,
    *,
    plies: int = 0,
    top: int = 1,
    seconds: float = 0.0,
    tt_mb: int = 4,
    progress=None,
):
    return movegen._movegen_c.endgame(  # type: ignore[union-attr]
        movegen.native_lexicon(gaddag),
        movegen._layout(rules),
        bytes(board.squares),
        bytes(mover),
        bytes(opponent),
        scoreless,
        rules.scoreless_turns,
        *factors(rules),
        plies,
        top,
        seconds,
        tt_mb,
        progress,
    )


def decode(record: bytes) -> tuple[int, int, tuple]:
    """(kind, score, the raw move) of a packed record."""
    score, leave, kind, down, line, start, length, _blanks, codes = RECORD.unpack(record)
    assert leave == 0
    return kind, score, (score, bool(down), line, start, tuple(codes[:length]))


def squares_of(board: Board, raw) -> list[tuple[int, int]]:
    _, down, line, start, codes = raw
    return [
        ((start + k) * board.cols + line if down else line * board.cols + start + k, code)
        for k, code in enumerate(codes)
    ]


def play(squares: list[int], rack: list[int], board: Board, raw) -> tuple[list[int], list[int]]:
    after, left = list(squares), list(rack)
    for i, code in squares_of(board, raw):
        if not after[i]:
            after[i] = code
            left[0 if code & BLANK_BIT else code] -= 1
    return after, left


class TooBig(Exception):
    """The reference would visit more positions than a test affords."""


REFERENCE_BUDGET = 4_000  # positions the reference may visit for one endgame


@pytest.fixture
def memo_reference(monkeypatch):
    """reference.minimax with the twin's move lists memoised by (board, rack), and a budget
    of positions per endgame (``TooBig`` past it; ``generate_moves.visits = 0`` starts one)."""

    @functools.lru_cache(maxsize=200_000)
    def moves(rows: int, cols: int, squares: tuple, rack: tuple, gaddag_id: int, rules_id: int):
        board = Board(rows, cols, list(squares))
        return tuple(_movegen_py.generate_moves(board, list(rack), *known[gaddag_id, rules_id]))

    known: dict[tuple[int, int], tuple[Gaddag, Rules]] = {}

    def generate_moves(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules):
        generate_moves.visits += 1  # type: ignore[attr-defined]
        if generate_moves.visits > REFERENCE_BUDGET:  # type: ignore[attr-defined]
            raise TooBig
        known[id(gaddag), id(rules)] = (gaddag, rules)
        return moves(board.rows, board.cols, tuple(board.squares), tuple(rack), id(gaddag), id(rules))

    generate_moves.visits = 0  # type: ignore[attr-defined]
    monkeypatch.setattr(reference, "generate_moves", generate_moves)
    return generate_moves


def root_values(board, mover, opponent, gaddag, rules, scoreless, generate_moves) -> list[tuple[tuple, int, object]]:
    """Every first move's exact value by the reference, in static order: (static key, value,
    the raw move or None for the pass)."""
    out_gain, out_loss, stuck_loss = factors(rules)
    face = functools.partial(reference.face, rules=rules)
    limit = rules.scoreless_turns
    found = []
    for raw in generate_moves(board, mover, gaddag, rules):
        after, left = play(board.squares, mover, board, raw)
        score = raw[0]
        going_out = not any(left)
        if going_out:
            value = score + (out_gain + out_loss) * face(opponent)
        elif score == 0 and scoreless + 1 >= limit:
            value = score - stuck_loss * face(left) + stuck_loss * face(opponent)
        else:
            child = Board(board.rows, board.cols, after)
            value = score - reference.minimax(child, opponent, left, gaddag, rules, 0 if score else scoreless + 1)
        found.append(((0 if going_out else 1, rank_key(raw)), value, raw))
    if scoreless + 1 >= limit:
        value = stuck_loss * (face(opponent) - face(mover))
    else:
        value = -reference.minimax(board, opponent, mover, gaddag, rules, scoreless + 1)
    found.sort(key=lambda item: item[0])
    found.append(((2,), value, None))
    return found


def random_endgame(seed: int, gaddag: Gaddag, name: str):
    """A small endgame reached by random play: racks of 1-3 tiles from the unseen ones (a
    blank now and then, a heavy tile now and then, which often cannot be played), 1-3
    scoreless turns to the end, and now and then other end-of-game factors."""
    rng = random.Random(seed)
    base = RULES[name]
    board = played_position(base, gaddag, seed, rng.randint(2, 9), engine="python")
    unseen = bag_for(base)
    for code in board.squares:
        if code:
            unseen.remove(0 if code & BLANK_BIT else code)
    rng.shuffle(unseen)
    racks = []
    for side in range(2):
        rack = [0] * 27
        size = rng.choice((1, 1, 2, 2, 2, 3))
        if rng.random() < 0.25 and 0 in unseen and not (side and racks[0][0]):
            size = min(size, 2)  # (a blank multiplies the moves by up to 26)
            unseen.remove(0)
            rack[0] += 1
            size -= 1
        if size and rng.random() < 0.25:
            heavy = [code for code in unseen if code and base.values[code] >= 5]
            if heavy:
                unseen.remove(heavy[0])
                rack[heavy[0]] += 1
                size -= 1
        for _ in range(size):
            code = unseen.pop()
            rack[code] += 1
        if not any(rack):
            rack[unseen.pop()] += 1
        racks.append(rack)
    if rng.random() < 0.3:
        gains = {"out_gain": rng.randrange(3), "out_loss": rng.randrange(3), "stuck_loss": rng.randrange(3)}
    else:
        gains = {}
    limit = rng.choice((1, 2, 2, 3))
    if sum(racks[0]) + sum(racks[1]) <= 3 and rng.random() < 0.3:
        limit = 6  # the real rule, where the racks are small enough for the reference
    rules = variant(base, scoreless_turns=limit, **gains)
    return board, racks[0], racks[1], rules, rng.randrange(limit), rng.randint(1, 5)


def replay_pv(board, mover, opponent, gaddag, rules, scoreless, pv: bytes) -> tuple[int, bool]:
    """Replay the variation, each move checked legal: (the totals' difference, whether it
    reached the end of the game)."""
    out_gain, out_loss, stuck_loss = factors(rules)
    face = functools.partial(reference.face, rules=rules)
    squares, racks, totals, side, s = list(board.squares), [list(mover), list(opponent)], [0, 0], 0, scoreless
    steps = [pv[k : k + RECORD.size] for k in range(0, len(pv), RECORD.size)]
    for n, step in enumerate(steps):
        kind, score, raw = decode(step)
        me, them = racks[side], racks[1 - side]
        if kind == PASS:
            assert raw == (0, False, 0, 0, ())
            after, left = squares, me
        else:
            assert kind == PLACE
            here = Board(board.rows, board.cols, squares)
            legal = _movegen_py.generate_moves(here, me, gaddag, rules)
            assert raw in legal, f"step {n}: {raw} is not a legal move"
            after, left = play(squares, me, board, raw)
        totals[side] += score
        ended = False
        if kind == PLACE and not any(left):
            totals[side] += out_gain * face(them)
            totals[1 - side] -= out_loss * face(them)
            ended = True
        else:
            s = s + 1 if score == 0 else 0
            if s >= rules.scoreless_turns:
                totals[side] -= stuck_loss * face(left)
                totals[1 - side] -= stuck_loss * face(them)
                ended = True
        squares, racks[side] = after, left
        if ended:
            assert n == len(steps) - 1, "the variation goes on after the end of the game"
            return totals[0] - totals[1], True
        side = 1 - side
    return totals[0] - totals[1], False


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("chunk", first_then_soak(range(CHUNKS), DEFAULT_CHUNKS))
def test_proven_results_equal_the_plain_minimax(small_gaddag, memo_reference, name, chunk):
    """Value, the K best first moves (their values, and ties in static order) and the
    principal variation, against the reference, on random small endgames."""
    checked = 0
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        board, mover, opponent, rules, scoreless, top = random_endgame(seed, small_gaddag, name)
        status, depth, nodes, best, pv = solve(board, mover, opponent, small_gaddag, rules, scoreless, top=top)
        assert status == PROVEN, seed
        assert depth >= 1 and nodes >= 0
        memo_reference.visits = 0
        try:
            value = reference.minimax(board, mover, opponent, small_gaddag, rules, scoreless)
            expected = root_values(board, mover, opponent, small_gaddag, rules, scoreless, memo_reference)
        except TooBig:
            continue
        assert best[0][0] == value, seed
        # The K best by (value high first, static order): the same moves, the same values.
        ranked = sorted(range(len(expected)), key=lambda i: (-expected[i][1], i))[:top]
        assert [v for v, _ in best] == [expected[i][1] for i in ranked], seed
        for (_, record), i in zip(best, ranked, strict=True):
            kind, _, raw = decode(record)
            assert (kind == PASS and expected[i][2] is None) or raw == expected[i][2], seed
        # The principal variation: from the best first move, legal, to the end, worth the value.
        assert pv[: RECORD.size] == best[0][1]
        spread, ended = replay_pv(board, mover, opponent, small_gaddag, rules, scoreless, pv)
        assert ended and spread == best[0][0], seed
        checked += 1
    assert checked >= PER_CHUNK * 3 // 4  # the rest too big for the reference


def test_the_principal_variation_takes_the_first_move_in_static_order_that_keeps_the_value(
    small_gaddag, memo_reference
):
    """At each position after the first move: the first move (static order) whose exact value
    is the position's value."""
    checked = 0
    for seed in range(80):
        board, mover, opponent, rules, scoreless, _ = random_endgame(1000 + seed, small_gaddag, "scrabble")
        status, _, _, best, pv = solve(board, mover, opponent, small_gaddag, rules, scoreless)
        assert status == PROVEN
        memo_reference.visits = 0
        steps = [pv[k : k + RECORD.size] for k in range(0, len(pv), RECORD.size)]
        squares, racks, side, s = list(board.squares), [list(mover), list(opponent)], 0, scoreless
        for n, step in enumerate(steps):
            kind, score, raw = decode(step)
            here = Board(board.rows, board.cols, squares)
            if n > 0:
                try:
                    values = root_values(here, racks[side], racks[1 - side], small_gaddag, rules, s, memo_reference)
                except TooBig:
                    break
                top = max(v for _, v, _ in values)
                first = next(m for _, v, m in values if v == top)
                assert (raw if kind == PLACE else None) == first, (seed, n)
                checked += 1
            if kind == PLACE:
                squares, racks[side] = play(squares, racks[side], board, raw)
            s = s + 1 if score == 0 else 0
            side = 1 - side
    assert checked >= 20


# --- hand-built cases ----------------------------------------------------------------


def tiny(words: list[str]) -> Gaddag:
    return build_gaddag(sorted(words))


def rack(text: str) -> list[int]:
    counts = [0] * 27
    for ch in text:
        counts[0 if ch == "?" else CODE[ch]] += 1
    return counts


TINY = tiny(["AT", "TA", "ATE"])


def board_with(rules: Rules, word: str, row: int = 7, col: int = 7) -> Board:
    board = Board.empty(rules)
    for k, ch in enumerate(word):
        board.squares[row * rules.cols + col + k] = CODE[ch]
    return board


def test_both_sides_stuck_pass_to_the_end():
    """No move for either side: passes until the scoreless turns end the game; each loses its
    own rack (Q 10 against V 4: the mover loses 6 net)."""
    rules = RULES["scrabble"]
    gaddag = TINY
    board = board_with(rules, "AT")
    for scoreless in range(6):
        status, depth, _, best, pv = solve(board, rack("Q"), rack("V"), gaddag, rules, scoreless)
        assert status == PROVEN
        assert best == [(4 - 10, bytes(pv[: RECORD.size]))]
        assert len(pv) == (6 - scoreless) * RECORD.size
        # proven by the first iteration (1, 1 + DEEPEN_STEP, ...) that reaches the game's end
        assert depth == min(d for d in range(1, 20, DEEPEN_STEP) if d >= 6 - scoreless)
        assert all(decode(pv[k : k + RECORD.size])[0] == PASS for k in range(0, len(pv), RECORD.size))


def test_going_out_gains_both_factors_of_the_opponents_rack():
    rules = variant(RULES["scrabble"], out_gain=3, out_loss=2)
    gaddag = TINY
    board = board_with(rules, "AT")
    status, _, _, best, pv = solve(board, rack("E"), rack("Q"), gaddag, rules, 0, top=2)
    assert status == PROVEN
    kind, score, raw = decode(best[0][1])
    assert kind == PLACE and raw[4] == (CODE["A"], CODE["T"], CODE["E"])
    assert best[0][0] == score + (3 + 2) * 10
    assert decode(best[1][1])[0] == PASS and len(best) == 2
    assert pv == best[0][1]


def test_the_search_beats_the_greedy_first_move_where_it_should(small_gaddag, memo_reference):
    """Among random endgames, some whose best first move is worth more than the highest
    scoring one (a setup, keeping a tile, passing): the search, not the greedy choice."""
    found = 0
    for seed in range(30):
        board, mover, opponent, rules, scoreless, _ = random_endgame(5000 + seed, small_gaddag, "scrabble")
        _, _, _, best, _ = solve(board, mover, opponent, small_gaddag, rules, scoreless)
        memo_reference.visits = 0
        try:
            values = root_values(board, mover, opponent, small_gaddag, rules, scoreless, memo_reference)
        except TooBig:
            continue
        placements = [(rank_key(raw), value) for _, value, raw in values if raw is not None]
        if placements and min(placements)[1] < best[0][0]:
            found += 1
    assert found > 0


# --- the cut searches and the callback -----------------------------------------------


@pytest.fixture(scope="module")
def big_endgame(small_gaddag):
    """Seven tiles a side on a played board: far too many lines to prove in a second."""
    rules = RULES["scrabble"]
    board = played_position(rules, small_gaddag, 7, 6, engine="native")
    unseen = bag_for(rules)
    for code in board.squares:
        if code:
            unseen.remove(0 if code & BLANK_BIT else code)
    random.Random(7).shuffle(unseen)
    mover, opponent = [0] * 27, [0] * 27
    for k in range(14):
        (mover if k % 2 else opponent)[unseen.pop()] += 1
    return board, mover, opponent, rules


def test_a_plies_limit_cuts_the_search_with_the_best_found(big_endgame, small_gaddag):
    board, mover, opponent, rules = big_endgame
    status, depth, nodes, best, pv = solve(board, mover, opponent, small_gaddag, rules, plies=1, top=3)
    assert (status, depth) == (CUT_PLIES, 1)
    assert nodes > 0 and len(best) == 3
    assert [v for v, _ in best] == sorted((v for v, _ in best), reverse=True)
    assert pv[: RECORD.size] == best[0][1]
    status, depth, *_ = solve(board, mover, opponent, small_gaddag, rules, plies=2)
    assert (status, depth) == (CUT_PLIES, 2)


def test_the_time_limit_is_honoured_within_ten_percent(small_gaddag):
    board, mover, opponent, rules = hard_endgame()
    limit = 0.5
    started = time.perf_counter()
    status, depth, nodes, best, pv = solve(board, mover, opponent, small_gaddag, rules, seconds=limit)
    elapsed = time.perf_counter() - started
    assert status == CUT_TIME
    assert elapsed < limit * 1.1
    assert best and pv[: RECORD.size] == best[0][1]
    assert nodes > 0 and depth >= 1


def test_a_limit_too_short_for_any_first_move_answers_with_the_first_in_static_order(big_endgame, small_gaddag):
    board, mover, opponent, rules = big_endgame
    status, depth, _, best, pv = solve(board, mover, opponent, small_gaddag, rules, seconds=1e-9, top=3)
    assert (status, depth) == (CUT_TIME, 0)
    first = min(_movegen_py.generate_moves(board, mover, small_gaddag, rules), key=rank_key)  # none goes out
    assert [(value, decode(record)[2]) for value, record in best] == [(first[0], first)]
    assert pv == best[0][1]


def test_ctrl_c_in_the_progress_callback_is_an_interruption(big_endgame, small_gaddag):
    """(Python runs the Ctrl-C handler in whatever Python code runs: the callback too.)"""
    board, mover, opponent, rules = big_endgame

    def interrupt(*_):
        raise KeyboardInterrupt

    status, depth, _, best, pv = solve(board, mover, opponent, small_gaddag, rules, progress=interrupt)
    assert (status, depth) == (INTERRUPTED, 1)
    assert best and pv[: RECORD.size] == best[0][1]


def test_ctrl_c_stops_the_search_with_the_best_so_far(big_endgame, small_gaddag):
    board, mover, opponent, rules = big_endgame
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    started = time.perf_counter()
    try:
        status, _, nodes, best, pv = solve(board, mover, opponent, small_gaddag, rules, seconds=20.0)
    finally:
        timer.cancel()
    assert status == INTERRUPTED
    assert time.perf_counter() - started < 2.0
    assert best and nodes > 0 and pv[: RECORD.size] == best[0][1]


def test_progress_is_called_and_an_exception_it_raises_stops_the_search(big_endgame, small_gaddag):
    board, mover, opponent, rules = big_endgame
    calls = []

    class Enough(Exception):
        pass

    def progress(depth, nodes, value, record):
        calls.append((depth, nodes, value, record))
        if len(calls) == 2:
            raise Enough

    with pytest.raises(Enough):
        solve(board, mover, opponent, small_gaddag, rules, seconds=30.0, progress=progress)
    assert len(calls) == 2
    depth, nodes, value, record = calls[0]
    assert depth >= 1 and nodes > 0 and type(value) is int
    assert record is not None and len(record) == RECORD.size
    # A proven search calls it after each iteration, the last one too.
    gaddag = TINY
    calls.clear()
    board = board_with(rules, "AT")
    status, depth, *_ = solve(board, rack("Q"), rack("V"), gaddag, rules, progress=lambda *a: calls.append(a))
    assert status == PROVEN and sorted({c[0] for c in calls}) == list(range(1, depth + 1, DEEPEN_STEP))
    assert calls[-1][2] == -6


# --- arguments -----------------------------------------------------------------------


def good_args() -> dict:
    rules = RULES["scrabble"]
    board = board_with(rules, "AT")
    return {
        "lexicon": movegen.native_lexicon(TINY),
        "layout": movegen._layout(rules),
        "squares": bytes(board.squares),
        "mover": bytes(rack("E")),
        "opponent": bytes(rack("S")),
        "scoreless": 0,
        "scoreless_limit": 6,
        "out_gain": 1,
        "out_loss": 1,
        "stuck_loss": 1,
        "plies": 0,
        "top": 1,
        "seconds": 0.0,
        "tt_mb": 1,
        "progress": None,
    }


def test_every_range_is_met_at_its_edges():
    c = movegen._movegen_c
    assert c is not None
    base = good_args()
    for changes in (
        {"scoreless_limit": 255, "scoreless": 254},
        {"scoreless_limit": 1, "scoreless": 0},
        {"out_gain": 10, "out_loss": 10, "stuck_loss": 10},
        {"out_gain": 0, "out_loss": 0, "stuck_loss": 0},
        {"plies": 64},
        {"top": 1000},
        {"seconds": 86400.0},
        {"tt_mb": 2},
        {"mover": bytes(rack("Q" * 20)), "opponent": bytes(rack("V" * 20))},
    ):
        status, *_ = c.endgame(**{**base, **changes})
        assert status == PROVEN, changes


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"scoreless_limit": 0}, "scoreless_limit"),
        ({"scoreless_limit": 256}, "scoreless_limit"),
        ({"scoreless": -1}, "scoreless"),
        ({"scoreless": 6}, "scoreless"),
        ({"out_gain": 11}, "out_gain"),
        ({"out_loss": -1}, "out_loss"),
        ({"stuck_loss": 11}, "stuck_loss"),
        ({"plies": 65}, "plies"),
        ({"plies": -1}, "plies"),
        ({"top": 0}, "top"),
        ({"top": 1001}, "top"),
        ({"seconds": -0.5}, "seconds"),
        ({"seconds": 86400.5}, "seconds"),
        ({"seconds": float("nan")}, "seconds"),
        ({"tt_mb": 0}, "tt_mb"),
        ({"tt_mb": 65537}, "tt_mb"),
        ({"top": 1 << 80}, "top"),
        ({"squares": bytes(224)}, "squares"),
        ({"squares": bytes([27]) + bytes(224)}, "square 0 holds 27"),
        ({"squares": bytes(224) + bytes([BLANK_BIT])}, "square 224 holds 32"),
        ({"mover": bytes(26)}, "mover"),
        ({"mover": bytes(27)}, "mover must hold 1..20 tiles, not 0"),
        ({"opponent": bytes(27)}, "opponent must hold 1..20 tiles, not 0"),
        ({"opponent": bytes([21] + [0] * 26)}, "opponent must hold 1..20 tiles, not 21"),
        ({"mover": bytes([255] * 27)}, "mover"),
    ],
)
def test_every_argument_out_of_range_is_refused(changes, message):
    c = movegen._movegen_c
    assert c is not None
    with pytest.raises(ValueError, match=message):
        c.endgame(**{**good_args(), **changes})


def test_wrong_types_and_uninitialised_objects_are_refused():
    c = movegen._movegen_c
    assert c is not None
    base = good_args()
    with pytest.raises(TypeError):
        c.endgame(**{**base, "top": 1.5})
    with pytest.raises(TypeError):
        c.endgame(**{**base, "progress": 3})
    with pytest.raises(TypeError):
        c.endgame(**{**base, "lexicon": "not a lexicon"})
    with pytest.raises(ValueError, match="not initialised"):
        c.endgame(**{**base, "lexicon": c.Lexicon.__new__(c.Lexicon)})
    with pytest.raises(ValueError, match="not initialised"):
        c.endgame(**{**base, "layout": c.Layout.__new__(c.Layout)})

"""The native move generator against its pure-Python twin and the brute-force reference
(issue #13): the same moves with the same scores on thousands of random positions (Scrabble,
Words with Friends and Super Scrabble's 21x21; empty, played, crowded boards; blanks on the
board and 0-4 on the rack), the same ranking, best-move mode equal to the head of the full
ranked list, and a C boundary that refuses every malformed input with an exception.

The twin comparison is the bulk (both engines are fast on the small lexicon); the reference
comparison covers Super Scrabble, which tests/engine/test_movegen_diff.py does not.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter

import pytest
from positions import placement, played_position, random_rack, reference_args, scattered_position
from reference import reference_moves
from soak import first_then_soak

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import BLANK_BIT, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import NATIVE_BUILT, RECORD, generate_moves, rank_key, ranked_moves
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.lexicon.build import build_gaddag

pytestmark = pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")

RULES = [load_rules("scrabble"), load_rules("wwf"), load_rules("super")]
CHUNKS = 24
PER_CHUNK = 125  # 24 x 125 = 3,000 random positions
DEFAULT_CHUNKS = 3  # in a plain `pytest` (375 positions, every kind); the other 21 are soak


@pytest.fixture(autouse=True)
def _each_engine():
    """(Overrides the per-engine fixture of this folder: every test here runs both engines.)"""


def random_position(seed: int, gaddag: Gaddag) -> tuple[Board, list[int], object]:
    rng = random.Random(seed)
    rules = RULES[seed % 3]
    kind = rng.randrange(10)
    if kind == 0:
        board = Board.empty(rules)
    elif kind <= 2:  # crowded, with blanks on the board
        board = scattered_position(rules, seed, rng.randint(20, rules.rows * rules.cols // 2))
    else:
        board = played_position(rules, gaddag, seed, rng.randint(1, 14), engine="native")
    # 0-2 blanks mostly; 3 or 4 (Super Scrabble has 4) now and then: they make 100k+ moves.
    blanks = min(rng.choice((0, 0, 0, 1, 1, 2, 2)) if rng.random() < 0.96 else rng.choice((3, 4)), rules.counts[0])
    size = rules.rack_size if rng.random() < 0.85 else rng.randint(max(1, blanks), rules.rack_size)
    return board, random_rack(rules, rng, min(blanks, size), size), rules


def assert_same(board: Board, rack: list[int], gaddag: Gaddag, rules, python_ranking: bool = False) -> int:
    python = generate_moves(board, rack, gaddag, rules, engine="python")
    native = generate_moves(board, rack, gaddag, rules, engine="native")
    context = f"rack {rack_text(rack)} ({rules.name}) on\n{board.to_text()}"
    assert Counter(native) == Counter(python), context
    ranked = sorted(python, key=rank_key)
    total, ranked_n = ranked_moves(board, rack, gaddag, rules, engine="native")
    assert total == len(python) and [c.raw for c in ranked_n] == ranked, context
    engines = ("native", "python") if python_ranking else ("native",)
    for keep in (1, 3, 40):  # best-move mode and the bounded heap: the head of the full list
        for engine in engines:
            count, best = ranked_moves(board, rack, gaddag, rules, keep=keep, engine=engine)
            assert (count, [c.raw for c in best]) == (total, ranked[:keep])
    return len(python)


@pytest.mark.parametrize("chunk", first_then_soak(range(CHUNKS), DEFAULT_CHUNKS))
def test_same_moves_and_ranking_as_the_python_twin(chunk, small_gaddag):
    found = 0
    for i in range(PER_CHUNK):
        board, rack, rules = random_position(chunk * 1000 + i, small_gaddag)
        found += assert_same(board, rack, small_gaddag, rules, python_ranking=i % 10 == 0)
    assert found > 1000


@pytest.mark.parametrize("seed", first_then_soak(range(30), 6))  # 6: each rule set twice
def test_same_moves_with_the_full_lexicon(seed, full_lexicon):
    gaddag = full_lexicon.gaddag
    board, rack, rules = random_position(50_000 + seed, gaddag)
    assert_same(board, rack, gaddag, rules, python_ranking=True)


@pytest.mark.parametrize("seed", first_then_soak(range(24), 6))  # 6: 0-4 blanks, scattered boards
def test_super_scrabble_against_the_reference(seed, small_words, small_gaddag):
    rules = RULES[2]
    rng = random.Random(seed)
    if seed % 4 == 0:
        board = scattered_position(rules, seed, rng.randint(5, 60))
    else:
        board = played_position(rules, small_gaddag, seed, rng.randint(0, 10), engine="native")
    rack = random_rack(rules, rng, seed % 5)
    native = generate_moves(board, rack, small_gaddag, rules, engine="native")
    mine = {placement(board, d, line, start, codes): score for score, d, line, start, codes in native}
    assert len(mine) == len(native)  # no move twice
    theirs = reference_moves(board.to_rows(), rack_text(rack), set(small_words), **reference_args(rules))
    assert mine == theirs, f"rack {rack_text(rack)} on\n{board.to_text()}"


def test_records_decode_to_the_moves():
    """The packed record's layout (movegen.RECORD) is the C struct's."""
    from solver_cli.engine import _movegen_c

    assert RECORD.size == _movegen_c.RECORD_SIZE == 48


def test_the_native_engine_is_the_default_when_built(monkeypatch):
    monkeypatch.delenv("SCRAB_ENGINE", raising=False)
    assert movegen.chosen_engine() == "native"
    monkeypatch.setenv("SCRAB_ENGINE", " Python ")
    assert movegen.chosen_engine() == "python"
    monkeypatch.setenv("SCRAB_ENGINE", "fast")
    with pytest.raises(InputError, match="SCRAB_ENGINE='fast': expected one of native, python"):
        movegen.chosen_engine()


def test_native_can_be_required_only_when_built(monkeypatch):
    monkeypatch.setattr(movegen, "NATIVE_BUILT", False)
    monkeypatch.delenv("SCRAB_ENGINE", raising=False)
    assert movegen.chosen_engine() == "python"
    monkeypatch.setenv("SCRAB_ENGINE", "native")
    with pytest.raises(InputError, match="native move generator is not built"):
        movegen.chosen_engine()


# --- the C boundary trusts nothing ----------------------------------------------------------


def small() -> Gaddag:
    return build_gaddag(sorted(["AA", "AB", "BA", "CAB", "ABBA", "BAA"]), builder="python")


def test_a_damaged_node_array_is_refused_once(small_gaddag):
    from solver_cli.engine import _movegen_c

    good = small()
    _movegen_c.Lexicon(good.nodes, good.root, good.dawg_root)  # sound: accepted
    rng = random.Random(3)
    refused = 0
    for _ in range(3000):
        nodes = array("I", good.nodes)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(nodes))
            nodes[k] = rng.choice([nodes[k] ^ (1 << rng.randrange(32)), rng.randrange(len(nodes) + 2), 0xFFFFFFFF])
        root = rng.choice([good.root, good.dawg_root, rng.randrange(len(nodes) + 1)])
        try:
            lexicon = _movegen_c.Lexicon(nodes, root, good.dawg_root)
        except ValueError as exc:
            assert str(exc).startswith("not a usable GADDAG: ")
            refused += 1
            continue
        # Accepted: every read stays inside the array, whatever the words now are.
        layout = movegen._layout(RULES[0])
        board = Board.empty(RULES[0])
        board.squares[7 * 15 + 7] = 1
        _movegen_c.generate(lexicon, layout, bytes(board.squares), bytes(random_rack(RULES[0], rng, 1)))
    assert refused > 1000
    for nodes, root in [(array("I"), 0), (array("I", [0]), 1), (array("I", [1 << 28]), 0), (array("I", [2]), 0)]:
        with pytest.raises(ValueError, match="not a usable GADDAG"):
            _movegen_c.Lexicon(nodes, root, 0)
    with pytest.raises(TypeError):
        _movegen_c.Lexicon(array("H", [0, 0]), 0, 0)  # 2-byte items
    with pytest.raises(TypeError):
        _movegen_c.Lexicon(b"\0\0\0\0", 0, 0)  # bytes have no uint32 format


def test_a_damaged_gaddag_is_a_clear_error(monkeypatch):
    g = small()
    g.nodes[g.root] |= 1 << 30
    monkeypatch.setenv("SCRAB_ENGINE", "native")
    with pytest.raises(InputError, match="the lexicon's GADDAG is damaged: not a usable GADDAG"):
        generate_moves(Board.empty(RULES[0]), [0, 1, 1] + [0] * 24, g, RULES[0])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rows": 27}, "board must be 2..26"),
        ({"cols": 1}, "board must be 2..26"),
        ({"letter_mult": bytes(224)}, "letter_mult"),
        ({"word_mult": bytes([5] * 225)}, "word_mult"),
        ({"values": (0,) * 26}, "27 ints"),
        ({"values": (0,) * 26 + (1001,)}, "letter values must be"),
        ({"values": (0,) * 26 + (-1,)}, "letter values must be"),
        ({"rack_size": 21}, "rack size"),
        ({"bingo": 10_001}, "bingo"),
        ({"centre": 225}, "centre"),
        ({"out_gain": 11}, "out_gain and out_loss must be 0..10"),
        ({"out_loss": -1}, "out_gain and out_loss must be 0..10"),
    ],
)
def test_a_layout_is_checked(change, message):
    from solver_cli.engine import _movegen_c

    rules = RULES[0]
    args = {
        "rows": 15,
        "cols": 15,
        "letter_mult": bytes(rules.letter_mult),
        "word_mult": bytes(rules.word_mult),
        "values": rules.values,
        "rack_size": 7,
        "bingo": 50,
        "centre": 112,
    }
    _movegen_c.Layout(**args)
    with pytest.raises(ValueError, match=message):
        _movegen_c.Layout(**{**args, **change})


@pytest.mark.parametrize(
    ("squares", "rack", "keep", "message"),
    [
        (bytes(224), bytes(27), 0, "squares: one byte a square"),
        (bytes(225), bytes(26), 0, "rack: 27 counts"),
        (bytes([27]) + bytes(224), bytes(27), 0, "squares: a code"),
        (bytes([BLANK_BIT]) + bytes(224), bytes(27), 0, "squares: a code"),
        (bytes([BLANK_BIT | 27]) + bytes(224), bytes(27), 0, "squares: a code"),
        (bytes(225), bytes([21]) + bytes(26), 0, "rack: more tiles"),
        (bytes(225), bytes([10, 11]) + bytes(25), 0, "rack: more tiles"),
        (bytes(225), bytes(27), -1, "keep out of range"),
    ],
)
def test_generate_checks_its_arguments(squares, rack, keep, message):
    from solver_cli.engine import _movegen_c

    g = small()
    lexicon = movegen.native_lexicon(g)
    with pytest.raises(ValueError, match=message):
        _movegen_c.generate(lexicon, movegen._layout(RULES[0]), squares, rack, keep=keep)
    with pytest.raises(TypeError):
        _movegen_c.generate(g, movegen._layout(RULES[0]), bytes(225), bytes(27))  # not a native Lexicon
    with pytest.raises(ValueError, match="leaves must be"):
        _movegen_c.generate(lexicon, movegen._layout(RULES[0]), bytes(225), bytes(27), leaves=object())


def test_a_gaddag_crosses_to_worker_processes_without_its_native_view():
    import pickle

    g = small()
    movegen.native_lexicon(g)
    copy = pickle.loads(pickle.dumps(g))
    assert copy.native is None and copy.nodes == g.nodes and copy.root == g.root


@pytest.mark.parametrize("rules_name", ["scrabble", "wwf"])
def test_self_play_plays_the_same_games_on_both_engines(rules_name, small_gaddag, monkeypatch):
    """Same seed, same games, move for move, greedy and equity players alike: the engines
    rank identically, exchanges, passes and end-of-game adjustments included."""
    from dataclasses import replace

    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.formats.leavefile import shipped_leaves
    from solver_cli.games.selfplay import GREEDY, Player, play_game

    rules = load_rules(rules_name)
    table = shipped_leaves("scrabble", "kjxqz")
    assert isinstance(table, LeaveTable)
    players = [(GREEDY, GREEDY), (Player("equity", table), GREEDY)]
    games = {}
    for engine in ("python", "native"):
        monkeypatch.setenv("SCRAB_ENGINE", engine)
        games[engine] = [
            replace(play_game(small_gaddag, rules, seed=29, index=i, players=pair), seconds=0.0)
            for i in range(4)
            for pair in players
        ]
    assert games["python"] == games["native"]
    assert all(len(g.turns) > 8 for g in games["native"])
    kinds = {t.kind for g in games["native"] for t in g.turns}
    assert {"play", "exchange"} <= kinds, kinds

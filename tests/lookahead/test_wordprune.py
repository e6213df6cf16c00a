"""Word pruning (lookahead/wordprune.py and its C twin native/wordprune.c): the small GADDAG of
the words two racks could form on a board. What the endgame search relies on is checked
directly: along random lines of play from random late boards (both rule sets, blanks), the
moves of either side on the small GADDAG are exactly those on the whole word list, scores
included; both walks find the same words; a solved endgame is the same, node for node, on
either graph; past its bound the walk gives up and the whole word list is kept."""

from __future__ import annotations

import random

import pytest

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import BLANK_BIT, LETTER_MASK
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import NATIVE_BUILT, generate_moves
from solver_cli.lookahead import wordprune
from solver_cli.lookahead.endgame import _placed, solve_endgame

from .positions import RULES, game_boards, unseen

CASES = [(name, game, seed) for name in RULES for game in range(3) for seed in range(4)]


def late_position(name: str, game: int, seed: int, small_gaddag) -> tuple[Board, list[int], list[int]]:
    """A late board of a self-play game and two racks drawn from the tiles it does not hold
    (blanks whenever some are left; 1 to 7 tiles each)."""
    rules = RULES[name]
    rng = random.Random(f"{name}-{game}-{seed}")
    boards = game_boards(small_gaddag, name, game)
    squares = boards[rng.randrange(len(boards) // 2, len(boards))]
    pool = [code for code, n in enumerate(unseen(rules, squares)) for _ in range(n)]
    rng.shuffle(pool)
    if seed % 2 and 0 in pool:  # (a blank up front, on every other seed)
        pool.remove(0)
        pool.insert(0, 0)
    racks = []
    for _ in range(2):
        size = min(len(pool), rng.randint(1, rules.rack_size))
        rack = [0] * 27
        for code in pool[:size]:
            rack[code] += 1
        del pool[:size]
        racks.append(rack)
    return Board(rules.rows, rules.cols, list(squares)), racks[0], racks[1]


def moves(board: Board, rack: list[int], gaddag, name: str) -> set[tuple]:
    return set(generate_moves(board, rack, gaddag, RULES[name]))


@pytest.mark.parametrize(("name", "game", "seed"), CASES)
def test_every_side_has_the_same_moves_on_the_small_gaddag_along_a_line_of_play(name, game, seed, small_gaddag):
    board, mover, opponent = late_position(name, game, seed, small_gaddag)
    small = wordprune.pruned_gaddag(board, [a + b for a, b in zip(mover, opponent, strict=True)], small_gaddag)
    assert small is not small_gaddag and small.arc_count < small_gaddag.arc_count
    rng = random.Random(seed)
    racks = [list(mover), list(opponent)]
    for ply in range(8):
        rack = racks[ply % 2]
        found = moves(board, rack, small_gaddag, name)
        assert moves(board, rack, small, name) == found, f"ply {ply}"
        if not found or not any(rack):
            break
        move = sorted(found)[rng.randrange(len(found))]
        board = board.copy()
        for square, code in _placed(board.squares, board.cols, move):
            board.squares[square] = code
            rack[0 if code & BLANK_BIT else code & LETTER_MASK] -= 1


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native walk is not built")
@pytest.mark.parametrize(("name", "game", "seed"), CASES)
def test_both_walks_find_the_same_words(name, game, seed, small_gaddag):
    board, mover, opponent = late_position(name, game, seed, small_gaddag)
    tiles = [a + b for a, b in zip(mover, opponent, strict=True)]
    native = wordprune.possible_words(board, tiles, small_gaddag, "native")
    assert native, "no word at all: the case proves nothing"
    assert wordprune.possible_words(board, tiles, small_gaddag, "python") == native
    # every word is the lexicon's, and uses at most the tiles (or blanks) for letters not on the board
    assert all(small_gaddag.contains(word) for word in native)


@pytest.mark.parametrize("engine", ["python", "native"], indirect=True)
@pytest.mark.parametrize("seed", range(3))
def test_an_endgame_solves_the_same_on_either_graph(engine, seed, small_gaddag):
    positions = (late_position("scrabble", seed, draw, small_gaddag) for draw in range(10 * seed, 10 * seed + 10))
    board, mover, opponent = next(p for p in positions if any(p[1]) and any(p[2]))
    mover, opponent = trimmed(mover, 3), trimmed(opponent, 3)
    rules = RULES["scrabble"]
    pruned = solve_endgame(board, mover, opponent, small_gaddag, rules, top=3, engine=engine)
    whole = solve_endgame(board, mover, opponent, small_gaddag, rules, top=3, engine=engine, prune=False)
    assert pruned.proven and whole.proven
    assert (pruned.value, pruned.best, pruned.pv, pruned.nodes, pruned.depth) == (
        whole.value,
        whole.best,
        whole.pv,
        whole.nodes,
        whole.depth,
    )


def trimmed(rack: list[int], size: int) -> list[int]:
    """At most ``size`` of ``rack``'s tiles (a tree small enough for the Python twin)."""
    out = [0] * len(rack)
    for code, n in enumerate(rack):
        take = min(n, size - sum(out))
        out[code] = take
    return out


def test_past_its_bound_the_walk_keeps_the_whole_word_list(small_gaddag, monkeypatch):
    board, mover, opponent = late_position("scrabble", 0, 0, small_gaddag)
    tiles = [a + b for a, b in zip(mover, opponent, strict=True)]
    assert wordprune.possible_words(board, tiles, small_gaddag, "python")
    monkeypatch.setattr(wordprune, "MAX_STEPS", 5)
    assert wordprune.possible_words(board, tiles, small_gaddag, "python") is None
    monkeypatch.setattr(wordprune, "_movegen_c", None)  # (the native bound is fixed in C)
    assert wordprune.pruned_gaddag(board, tiles, small_gaddag) is small_gaddag


def test_no_tiles_no_words(small_gaddag):
    board, _, _ = late_position("scrabble", 0, 0, small_gaddag)
    for engine in ["python", "native"] if NATIVE_BUILT else ["python"]:
        assert wordprune.possible_words(board, [0] * 27, small_gaddag, engine) == []


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native walk is not built")
@pytest.mark.parametrize(
    ("squares", "rows", "cols", "tiles", "message"),
    [
        (bytes(225), 15, 15, bytes(26), r"squares must be rows\*cols bytes and tiles 27 counts"),
        (bytes(224), 15, 15, bytes(27), r"squares must be rows\*cols bytes and tiles 27 counts"),
        (bytes([27]) + bytes(224), 15, 15, bytes(27), "square 0 holds code 27"),
        (bytes(225), 0, 15, bytes(27), "rows must be 1..26"),
        (bytes(27 * 27), 27, 27, bytes(27), "rows must be 1..26"),
    ],
)
def test_the_native_walk_refuses_what_is_out_of_range(small_gaddag, squares, rows, cols, tiles, message):
    with pytest.raises(ValueError, match=message):
        movegen._movegen_c.possible_words(movegen.native_lexicon(small_gaddag), squares, rows, cols, tiles)
    with pytest.raises(TypeError):
        movegen._movegen_c.possible_words(object(), bytes(225), 15, 15, bytes(27))

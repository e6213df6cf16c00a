"""Random test positions: boards reached by seeded play, and deliberately odd boards."""

from __future__ import annotations

import random

from solver_cli.engine.alphabet import BLANK_BIT, CODE, LETTERS, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import generate_moves
from solver_cli.engine.rules import Rules


def bag_for(rules: Rules) -> list[int]:
    return [code for code in range(27) for _ in range(rules.counts[code])]


def played_position(rules: Rules, gaddag, seed: int, turns: int, engine: str | None = None) -> Board:
    """A board after ``turns`` random legal moves (any move, not only the best); the same
    board whichever engine lists the moves."""
    rng = random.Random(seed)
    bag = bag_for(rules)
    rng.shuffle(bag)
    board = Board.empty(rules)
    for _ in range(turns):
        rack = [0] * 27
        for _ in range(rules.rack_size):
            if bag:
                rack[bag.pop()] += 1
        moves = sorted(generate_moves(board, rack, gaddag, rules, engine=engine))
        if not moves:
            continue
        _, down, line, start, codes = rng.choice(moves)
        for k, code in enumerate(codes):
            r, c = (start + k, line) if down else (line, start + k)
            board.squares[r * rules.cols + c] = code
    return board


def scattered_position(rules: Rules, seed: int, tiles: int) -> Board:
    """Tiles dropped at random: words that are not words, islands, blanks anywhere."""
    rng = random.Random(seed)
    board = Board.empty(rules)
    for _ in range(tiles):
        i = rng.randrange(rules.rows * rules.cols)
        code = rng.choice("EEAAIOSTRNLDUCMPBGHKWYQXZ")
        board.squares[i] = CODE[code] | (BLANK_BIT if rng.random() < 0.1 else 0)
    return board


def random_rack(rules: Rules, rng: random.Random, blanks: int, size: int | None = None) -> list[int]:
    letters = [code for code in bag_for(rules) if code]
    rack = [0] * 27
    rack[0] = blanks
    for code in rng.sample(letters, (size or rules.rack_size) - blanks):
        rack[code] += 1
    return rack


def placement(board: Board, down: bool, line: int, start: int, codes) -> frozenset:
    tiles = set()
    for k, code in enumerate(codes):
        r, c = (start + k, line) if down else (line, start + k)
        if not board.at(r, c):
            tiles.add((r, c, LETTERS[(code & 31) - 1], bool(code & BLANK_BIT)))
    return frozenset(tiles)


def reference_args(rules: Rules) -> dict:
    return {
        "premiums": list(rules.layout),
        "values": {ch: rules.values[CODE[ch]] for ch in LETTERS},
        "bingo": rules.bingo_bonus,
        "rack_size": rules.rack_size,
        "centre": rules.centre,
    }


__all__ = ["played_position", "scattered_position", "random_rack", "placement", "reference_args", "rack_text"]

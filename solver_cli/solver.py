"""The library's front door: generate, rank and describe the moves for a position."""

from __future__ import annotations

from dataclasses import dataclass

from solver_cli.board import Board
from solver_cli.gaddag import Gaddag
from solver_cli.movegen import RawMove, generate_moves
from solver_cli.rules import Rules
from solver_cli.scoring import Move, build_move


@dataclass
class Solution:
    moves: list[Move]  # best first, at most ``limit`` of them
    total: int  # how many legal moves exist


def rank_key(raw: RawMove) -> tuple:
    """Highest score first; ties in a stable board order (across first, then by square)."""
    score, down, line, start, codes = raw
    return (-score, down, line, start, codes)


def solve(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, limit: int | None = None) -> Solution:
    raw = generate_moves(board, rack, gaddag, rules)
    raw.sort(key=rank_key)
    chosen = raw if limit is None else raw[:limit]
    moves = [build_move(board, rules, rack, down, line, start, codes) for _, down, line, start, codes in chosen]
    return Solution(moves, len(raw))

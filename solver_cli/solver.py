"""The library's front door: generate, rank and describe the moves for a position."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from solver_cli.alphabet import BLANK_BIT

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
    """Highest score first; among equal scores the move keeping more blanks, then a stable
    board order (across first, then by square, then by word)."""
    score, down, line, start, codes = raw
    return (-score, sum(code >= BLANK_BIT for code in codes), down, line, start, codes)


def solve(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, limit: int | None = None) -> Solution:
    raw = generate_moves(board, rack, gaddag, rules)
    if limit is not None and limit < len(raw):
        # Only the moves that can reach the top need the full ranking key.
        cutoff = heapq.nlargest(limit, raw)[-1][0]
        chosen = sorted((m for m in raw if m[0] >= cutoff), key=rank_key)[:limit]
    else:
        chosen = sorted(raw, key=rank_key)
    moves = [build_move(board, rules, rack, down, line, start, codes) for _, down, line, start, codes in chosen]
    return Solution(moves, len(raw))

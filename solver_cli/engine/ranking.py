"""The library's front door: generate, rank and describe the moves for a position."""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass

from solver_cli.engine.alphabet import BLANK_BIT, parse_rack, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import RankKey, RawMove, generate_moves, rank_key, ranked_moves
from solver_cli.engine.notation import parse_square
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Move, build_move
from solver_cli.errors import InputError


@dataclass
class Solution:
    moves: list[Move]  # best first, at most ``limit`` of them
    total: int  # how many legal moves exist
    matching: int  # how many of them pass the filters


SORTS = ("score", "length", "tiles")


@dataclass(frozen=True)
class Filters:
    """Which moves to keep, and in which order; every field optional."""

    at: tuple[int, int] | None = None  # the main word covers this (row, col)
    min_length: int | None = None  # main word length
    max_length: int | None = None
    must_use: tuple[int, ...] | None = None  # 27 counts of rack tiles the move must place
    min_score: int | None = None
    word: re.Pattern[str] | None = None  # the main word (uppercase) must match
    sort: str = "score"

    def active(self) -> bool:
        return any(
            v is not None for v in (self.at, self.min_length, self.max_length, self.must_use, self.min_score, self.word)
        )


def word_pattern(text: str) -> re.Pattern[str]:
    """``?`` one letter, ``*`` any run of letters, A-Z literal (any case)."""
    if not text:
        raise InputError("empty word pattern (use letters, ? for one letter, * for any run)")
    for position, ch in enumerate(text, 1):
        if ch not in "?*" and not (ch.isascii() and ch.isalpha()):
            raise InputError(f"word pattern {text!r}: bad character {ch!r} at position {position} (use A-Z, ? and *)")
    regex = "".join("[A-Z]" if ch == "?" else "[A-Z]*" if ch == "*" else ch.upper() for ch in text)
    return re.compile(regex)


def make_filters(
    rules: Rules,
    *,
    at: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    must_use: str | None = None,
    min_score: int | None = None,
    word: str | None = None,
    sort: str = "score",
) -> Filters:
    """``Filters`` from text as a user writes it: ``at="H8"``, ``must_use="Z?"``,
    ``word="*ING"``. Raises ``InputError`` naming the bad value."""
    square = None
    if at is not None:
        try:
            square = parse_square(at, rules.rows, rules.cols)
        except ValueError as exc:
            raise InputError(f"--at: {exc}") from None
    if min_length is not None and max_length is not None and min_length > max_length:
        raise InputError(f"--min-length {min_length} is more than --max-length {max_length}")
    if sort not in SORTS:
        raise InputError(f"unknown sort {sort!r} (use {', '.join(SORTS)})")
    need = tuple(parse_rack(must_use, rules.rack_size)) if must_use else None
    return Filters(
        at=square,
        min_length=min_length,
        max_length=max_length,
        must_use=need,
        min_score=min_score,
        word=word_pattern(word) if word is not None else None,
        sort=sort,
    )


def _keep(filters: Filters, board: Board, raw: RawMove) -> bool:
    score, down, line, start, codes = raw
    if filters.min_score is not None and score < filters.min_score:
        return False
    length = len(codes)
    if filters.min_length is not None and length < filters.min_length:
        return False
    if filters.max_length is not None and length > filters.max_length:
        return False
    if filters.at is not None:
        row, col = filters.at
        along, across = (row, col) if down else (col, row)
        if across != line or not start <= along < start + length:
            return False
    if filters.word is not None:
        text = "".join(chr(64 + (c & 31)) for c in codes)
        if not filters.word.fullmatch(text):
            return False
    if filters.must_use is not None:
        used = [0] * 27
        for code, tile in zip(codes, _line_tiles(board, down, line, start, length), strict=True):
            if not tile:
                used[0 if code & BLANK_BIT else code] += 1
        if any(u < need for u, need in zip(used, filters.must_use, strict=True)):
            return False
    return True


def _check_must_use(need: tuple[int, ...], rack: list[int]) -> None:
    missing = [max(0, n - held) for n, held in zip(need, rack, strict=True)]
    if any(missing):
        raise InputError(
            f"--must-use {rack_text(list(need))}: the rack {rack_text(rack) or '(empty)'} lacks {rack_text(missing)}"
        )


def _line_tiles(board: Board, down: bool, line: int, start: int, length: int) -> list[int]:
    if down:
        return [board.squares[(start + k) * board.cols + line] for k in range(length)]
    base = line * board.cols + start
    return board.squares[base : base + length]


def _sort_key(sort: str, board: Board) -> Callable[[RawMove], tuple[int, RankKey] | RankKey]:
    if sort == "length":
        return lambda raw: (-len(raw[4]), rank_key(raw))
    if sort == "tiles":
        return lambda raw: (
            -sum(1 for t in _line_tiles(board, raw[1], raw[2], raw[3], len(raw[4])) if not t),
            rank_key(raw),
        )
    return rank_key


def solve(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    limit: int | None = None,
    filters: Filters | None = None,
) -> Solution:
    """The legal moves, ranked (by score unless ``filters.sort`` says otherwise); ``total``
    counts every legal move, ``matching`` those the filters keep. ``InputError`` when
    ``filters.must_use`` asks for tiles the rack does not hold (no move could match)."""
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, not {limit}")
    if filters is not None and filters.must_use is not None:
        _check_must_use(filters.must_use, rack)
    sort = filters.sort if filters is not None else "score"
    if sort == "score" and (filters is None or not filters.active()):
        # The engine ranks while it generates: only the moves asked for become tuples.
        total, chosen = ranked_moves(board, rack, gaddag, rules, keep=limit)
        matching = total
    else:
        raw = generate_moves(board, rack, gaddag, rules)
        total = len(raw)
        if filters is not None and filters.active():
            raw = [m for m in raw if _keep(filters, board, m)]
        matching = len(raw)
        if sort == "score" and limit is not None and 0 < limit < len(raw):
            # Only the moves that can reach the top need the full ranking key.
            cutoff = heapq.nlargest(limit, raw)[-1][0]
            chosen = sorted((m for m in raw if m[0] >= cutoff), key=rank_key)[:limit]
        else:
            chosen = sorted(raw, key=_sort_key(sort, board))[:limit]
    moves = [build_move(board, rules, rack, down, line, start, codes) for _, down, line, start, codes in chosen]
    return Solution(moves, total, matching)

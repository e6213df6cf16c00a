"""The library's front door: generate, rank and describe the moves for a position."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from solver_cli.engine.alphabet import BLANK_BIT, parse_rack, rack_text, shown_char
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.leaves import SCALE, SCORE, Valuation
from solver_cli.engine.movegen import KINDS, PLACE, Candidate, RawMove, candidate_key, ranked_moves
from solver_cli.engine.notation import parse_square
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Move, build_move, other_move
from solver_cli.errors import InputError


@dataclass
class Solution:
    moves: list[Move]  # best first, at most ``limit`` of them
    total: int  # how many legal moves exist
    matching: int  # how many of them pass the filters


SORTS = ("score", "length", "tiles")


class Filters(NamedTuple):
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


class FilterError(InputError):
    """A filter argument ``make_filters`` refuses. ``param`` is the keyword argument
    (``at``, ``min_length``, ...) and ``neutral`` the message naming it so, as the Python API
    reports it. ``str()`` is the command line's wording where it names a flag (``--at: ...``):
    the CLI prints ``str(exc)`` as it is, and its tests and docs show those messages."""

    def __init__(self, param: str, neutral: str, flagged: str | None = None) -> None:
        super().__init__(flagged if flagged is not None else neutral)
        self.param = param
        self.neutral = neutral


def word_pattern(text: str) -> re.Pattern[str]:
    """``?`` one letter, ``*`` any run of letters, A-Z literal (any case)."""
    if not isinstance(text, str):
        raise FilterError("word", f"word pattern must be a string such as '*ING', not {type(text).__name__}")
    if not text:
        raise FilterError("word", "empty word pattern (use letters, ? for one letter, * for any run)")
    for position, ch in enumerate(text, 1):
        if ch not in "?*" and not (ch.isascii() and ch.isalpha()):
            raise FilterError(
                "word",
                f"word pattern {text!r}: bad character {shown_char(ch)} at position {position} (use A-Z, ? and *)",
            )
    regex = "".join("[A-Z]" if ch == "?" else "[A-Z]*" if ch == "*" else ch.upper() for ch in text)
    return re.compile(regex)


def _length(name: str, value: object) -> int | None:
    # bool is an int to Python, but True letters is a slip, not a length
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
        return value
    raise FilterError(name, f"{name} must be a positive integer or None, not {value!r}")


def _must_use(text: object, rack_size: int) -> tuple[int, ...] | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise FilterError("must_use", f"must_use must be rack letters such as 'Z?' or None, not {type(text).__name__}")
    tiles = text.strip()
    if not tiles:
        return None  # as an empty --must-use always was: no filter
    for position, ch in enumerate(tiles, 1):
        if ch != "?" and not (ch.isascii() and ch.isalpha()):
            detail = f"bad character {shown_char(ch)} at position {position} (use letters A-Z and ? for a blank)"
            raise FilterError("must_use", f"must_use {tiles!r}: {detail}", f"--must-use {tiles}: {detail}")
    if len(tiles) > rack_size:
        detail = f"{len(tiles)} tiles; a rack holds at most {rack_size}"
        raise FilterError("must_use", f"must_use {tiles!r} has {detail}", f"--must-use {tiles} has {detail}")
    return tuple(parse_rack(tiles, rack_size))


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
    ``word="*ING"``. Raises ``FilterError`` (an ``InputError``) naming the argument and the
    bad value."""
    square = None
    if at is not None:
        if not isinstance(at, str):
            raise FilterError("at", f"at must be a square such as 'H8' or None, not {type(at).__name__}")
        try:
            square = parse_square(at, rules.rows, rules.cols)
        except ValueError as exc:
            raise FilterError("at", f"at: {exc}", f"--at: {exc}") from None
    shortest = _length("min_length", min_length)
    longest = _length("max_length", max_length)
    if shortest is not None and longest is not None and shortest > longest:
        raise FilterError(
            "min_length",
            f"min_length {shortest} is more than max_length {longest}",
            f"--min-length {shortest} is more than --max-length {longest}",
        )
    if min_score is not None and (not isinstance(min_score, int) or isinstance(min_score, bool)):
        raise FilterError("min_score", f"min_score must be an integer or None, not {min_score!r}")
    if not isinstance(sort, str) or sort not in SORTS:
        raise FilterError("sort", f"unknown sort {sort!r} (use {', '.join(SORTS)})")
    return Filters(
        at=square,
        min_length=shortest,
        max_length=longest,
        must_use=_must_use(must_use, rules.rack_size),
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


def check_must_use(need: tuple[int, ...], rack: list[int]) -> None:
    """``InputError`` when ``need`` (``Filters.must_use``) asks for tiles ``rack`` does not hold."""
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


def _sort_key(sort: str, board: Board) -> Callable[[Candidate], int]:
    """More letters in the main word (``length``) or more tiles placed (``tiles``) first;
    exchanges and the pass count 0."""
    if sort == "length":
        return lambda c: -len(c.codes) if c.kind == PLACE else 0
    return lambda c: (
        -sum(1 for t in _line_tiles(board, c.down, c.line, c.start, len(c.codes)) if not t) if c.kind == PLACE else 0
    )


def fold_key(board: Board, c: Candidate) -> Hashable | None:
    """Candidates with the same key differ only in their main word, through a blank: the same
    squares, score, tiles used (so the same leave) and letters on the squares that form
    cross-words (so the same cross-words). None for a move that places no blank (never
    folded). Two candidates share it exactly when their ``Move``s share the table's key
    (``cli.render.fold_key``), which this computes without making the ``Move``s."""
    if c.kind != PLACE:
        return None
    squares, cols, rows = board.squares, board.cols, board.rows
    placed = []
    used = []
    crossing = []
    for k, code in enumerate(c.codes):
        along = c.start + k
        row, col = (along, c.line) if c.down else (c.line, along)
        square = row * cols + col
        if squares[square]:
            continue
        placed.append(square)
        used.append(0 if code >= BLANK_BIT else code)
        # A cross-word forms where a board tile touches the square across the move's line.
        if c.down:
            crosses = (col > 0 and squares[square - 1]) or (col + 1 < cols and squares[square + 1])
        else:
            crosses = (row > 0 and squares[square - cols]) or (row + 1 < rows and squares[square + cols])
        if crosses:
            crossing.append(code)
    if 0 not in used:
        return None
    return (tuple(placed), c.score, tuple(sorted(used)), tuple(crossing))


Block = Callable[[Candidate], tuple[object, ...]]


def _rank_block(c: Candidate) -> tuple[object, ...]:
    """What the moves of one folded row share at the head of the rank order: equity, blanks in
    the main word (they use the same tiles), kind, direction, line and first square (the same
    squares). So a row's moves lie in one run of the order, and only that run needs reading."""
    return candidate_key(c)[:6]


def _sorted_block(first: Callable[[Candidate], int]) -> Block:
    return lambda c: (first(c), *candidate_key(c)[:6])


def first_rows(
    board: Board, ranked: Sequence[Candidate], rows: int, block: Block, complete: bool
) -> list[Candidate] | None:
    """The candidates of the first ``rows`` rows of ``ranked`` with blank choices folded
    (``fold_key``), in their order: every candidate up to the last row's first, then the
    rest of those rows' candidates, which can only be in the ``block`` of the order the last
    row starts in. None when ``ranked`` is a prefix of the order (not ``complete``) that may
    end before them. The work is linear in the candidates up to the end of that block, not
    in the whole list."""
    if rows <= 0:
        return []
    seen: set[Hashable] = set()
    heads = 0
    for i, c in enumerate(ranked):
        key = fold_key(board, c)
        if key is not None and key in seen:
            continue
        if heads < rows:
            heads += 1
            if key is not None:
                seen.add(key)
            continue
        # c would start one row too many: the rows' other moves are in the block that ends here.
        chosen = list(ranked[:i])
        last = block(ranked[i - 1])
        for later in ranked[i:]:
            if block(later) != last:
                return chosen
            if fold_key(board, later) in seen:
                chosen.append(later)
        return chosen if complete else None
    return list(ranked) if complete else None


def _take(board: Board, ranked: list[Candidate], limit: int | None, fold: bool, block: Block) -> list[Candidate]:
    if not fold or limit is None:
        return ranked[:limit]
    chosen = first_rows(board, ranked, limit, block, complete=True)
    assert chosen is not None  # a complete list always holds its rows
    return chosen


def _best_rows(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, rows: int, valuation: Valuation
) -> tuple[int, list[Candidate]]:
    """(every candidate's count, the candidates of the first ``rows`` folded rows), asking
    the engine for the best few only: for 4 times more while a row may go on past them."""
    keep = rows
    while True:
        total, ranked = ranked_moves(board, rack, gaddag, rules, keep=keep, valuation=valuation)
        chosen = first_rows(board, ranked, rows, _rank_block, complete=len(ranked) == total)
        if chosen is not None:
            return total, chosen
        # Never more than there are (above MAX_KEEP, ranked_moves ranks all): this ends.
        keep = min(keep * 4, total)


def _check_limit(limit: int | None) -> None:
    if limit is not None and (type(limit) is not int or limit < 0):
        raise InputError(f"limit must be a non-negative integer or None, not {limit!r}")


def _filtered(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, filters: Filters | None, valuation: Valuation
) -> tuple[int, list[Candidate]]:
    """(every candidate's count, the candidates the filters keep in the ``filters.sort`` order)."""
    total, ranked = ranked_moves(board, rack, gaddag, rules, valuation=valuation)
    if filters is not None and filters.active():
        ranked = [c for c in ranked if _keep_candidate(filters, board, c)]
    if filters is not None and filters.sort != "score":
        ranked.sort(key=_sort_key(filters.sort, board))  # stable: equal keys keep their rank order
    return total, ranked


def solve(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    limit: int | None = None,
    filters: Filters | None = None,
    valuation: Valuation = SCORE,
    *,
    fold: bool = False,
) -> Solution:
    """The candidate moves ranked by ``valuation`` (by score, or by equity with exchanges
    and the pass among them), unless ``filters.sort`` says otherwise; ``total`` counts every
    candidate, ``matching`` those the filters keep (the placement filters keep placements
    only). ``InputError`` when ``filters.must_use`` asks for tiles the rack does not hold.

    With ``fold``, ``limit`` counts the rows of a table whose moves that differ only through
    a blank share a row (``fold_key``), and the solution holds every move of those rows, in
    order; ``Move``s are made for those moves only."""
    _check_limit(limit)
    if filters is not None and filters.must_use is not None:
        check_must_use(filters.must_use, rack)
    sort = filters.sort if filters is not None else "score"
    if sort == "score" and (filters is None or not filters.active()):
        # The engine ranks while it generates: only the moves asked for become tuples.
        if fold and limit is not None:
            total, chosen = _best_rows(board, rack, gaddag, rules, limit, valuation)
        else:
            total, chosen = ranked_moves(board, rack, gaddag, rules, keep=limit, valuation=valuation)
        matching = total
    else:
        total, ranked = _filtered(board, rack, gaddag, rules, filters, valuation)
        matching = len(ranked)
        block = _rank_block if sort == "score" else _sorted_block(_sort_key(sort, board))
        chosen = _take(board, ranked, limit, fold, block)
    return Solution([_move_of(board, rules, rack, c, valuation) for c in chosen], total, matching)


def solve_by_score(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    filters: Filters | None = None,
    valuation: Valuation = SCORE,
    limit: int | None = None,
    *,
    fold: bool = False,
) -> Solution:
    """``solve``'s candidates highest score first, ties in the ``valuation`` order: sorting
    by score while ranking by equity (the engine's heap keeps the best by equity, so every
    candidate is ranked and then sorted). ``fold`` as in ``solve``."""
    _check_limit(limit)
    if filters is not None and filters.must_use is not None:
        check_must_use(filters.must_use, rack)
    total, ranked = _filtered(board, rack, gaddag, rules, filters, valuation)
    ranked.sort(key=lambda c: -c.score)  # stable: equal scores keep their equity order
    sort = filters.sort if filters is not None else "score"
    first = _sort_key(sort, board) if sort != "score" else lambda c: 0
    chosen = _take(board, ranked, limit, fold, lambda c: (-c.score, first(c), *candidate_key(c)[:6]))
    return Solution([_move_of(board, rules, rack, c, valuation) for c in chosen], total, len(ranked))


def _keep_candidate(filters: Filters, board: Board, c: Candidate) -> bool:
    if c.kind != PLACE:
        placement_only = (filters.at, filters.min_length, filters.max_length, filters.must_use, filters.word)
        return all(f is None for f in placement_only) and (filters.min_score is None or c.score >= filters.min_score)
    return _keep(filters, board, c.raw)


def candidate_move(board: Board, rules: Rules, rack: list[int], c: Candidate) -> Move:
    """The ``Move`` users see (notation, tiles, score, cross-words) of the candidate ``c``
    for ``rack`` (27 counts) on ``board``: a placement, an exchange or the pass."""
    if c.kind == PLACE:
        return build_move(board, rules, rack, c.down, c.line, c.start, c.codes)
    return other_move(KINDS[c.kind], rack, c.codes)


def _move_of(board: Board, rules: Rules, rack: list[int], c: Candidate, valuation: Valuation) -> Move:
    move = candidate_move(board, rules, rack, c)
    if not valuation.equity:
        return move
    return replace(move, equity=c.equity / SCALE, leave_value=c.leave / SCALE)

"""Move generation: the front that picks an engine and hands back moves in one shape.

Two engines find the same moves with the same scores: the native one (the optional C
extension ``_movegen_c``, compiled at install time when a compiler is there) and the
pure-Python twin ``_movegen_py``, which is the readable specification and the fallback. The
native one is used when it is built, unless ``SCRAB_ENGINE=python`` asks for the twin
(``SCRAB_ENGINE=native`` insists on the native one, and is an error where it is not built).

A raw move is a tuple ``(score, down, line, start, codes)``: the direction, the row (across)
or column (down), the first square of the main word along the line, and the codes of the
main word's squares (board tiles included; ``BLANK_BIT`` marks blanks).

- ``generate_moves`` lists every move, unordered;
- ``ranked_moves`` gives the best ``keep`` moves in rank order (``rank_key``) and how
  many moves there are: the native engine keeps only those while it generates, so asking for
  the best move never builds the full list.

The native engine returns its moves packed (``RECORD``, one 48-byte record a move); they
become tuples only when read.
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING

from solver_cli.engine import _movegen_py
from solver_cli.engine._movegen_py import RawMove
from solver_cli.engine.alphabet import BLANK_BIT
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag, structure_problem
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError

if TYPE_CHECKING:
    from solver_cli.engine import _movegen_c
else:
    try:
        from solver_cli.engine import _movegen_c
    except ImportError:  # installed without a C compiler: the pure-Python twin does the work
        _movegen_c = None

__all__ = [
    "RawMove",
    "RankKey",
    "rank_key",
    "generate_moves",
    "ranked_moves",
    "chosen_engine",
    "requested_engine",
    "NATIVE_BUILT",
]

NATIVE_BUILT = _movegen_c is not None
ENGINE_ENV = "SCRAB_ENGINE"
ENGINES = ("native", "python")

# One record: score (int64), leave (int32, thousandths of a point), kind, down, line, start,
# length, blanks (uint8 each), the main word's codes (26 bytes, zero past its length), padding.
RECORD = struct.Struct("=qi6B26s4x")


RankKey = tuple[int, int, bool, int, int, tuple[int, ...]]


def rank_key(raw: RawMove) -> RankKey:
    """The rank order, the same in both engines (the C twin is ``rank_cmp``): highest score
    first; among equal scores the move keeping more blanks, then a stable board order
    (across first, then by square, then by word)."""
    score, down, line, start, codes = raw
    return (-score, sum(code >= BLANK_BIT for code in codes), down, line, start, codes)


def requested_engine() -> str | None:
    """The engine ``SCRAB_ENGINE`` asks for ("native" or "python"), None when it is unset."""
    wanted = os.environ.get(ENGINE_ENV, "").strip().lower()
    if not wanted:
        return None
    if wanted not in ENGINES:
        raise InputError(f"{ENGINE_ENV}={wanted!r}: expected one of {', '.join(ENGINES)}")
    return wanted


def chosen_engine() -> str:
    """The move generator in use: ``SCRAB_ENGINE`` if set, else native when it is built."""
    wanted = requested_engine()
    if wanted is None:
        return "native" if NATIVE_BUILT else "python"
    if wanted == "native" and not NATIVE_BUILT:
        raise InputError(
            f"{ENGINE_ENV}=native, but the native move generator is not built (it needs a C compiler at "
            f"install time); unset {ENGINE_ENV} or set it to python"
        )
    return wanted


def generate_moves(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, engine: str | None = None
) -> list[RawMove]:
    """All legal moves for ``rack`` (27 counts, index 0 = blanks), unordered."""
    _check(board, rules)
    if (engine or chosen_engine()) == "python":
        return _movegen_py.generate_moves(board, rack, gaddag, rules)
    _, records = _native_call(board, rack, gaddag, rules, 0, False)
    return _decode(records)


def ranked_moves(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, keep: int | None = None, engine: str | None = None
) -> tuple[int, list[RawMove]]:
    """(how many legal moves there are, the best ``keep`` of them in rank order); every move,
    ranked, when ``keep`` is None."""
    _check(board, rules)
    if keep is not None and keep < 0:
        raise ValueError(f"keep must be >= 0, not {keep}")
    if (engine or chosen_engine()) == "python":
        raw = _movegen_py.generate_moves(board, rack, gaddag, rules)
        if keep is None or keep >= len(raw):
            return len(raw), sorted(raw, key=rank_key)
        if keep == 0:
            return len(raw), []
        # Only the moves that can reach the top need the full ranking key.
        cutoff = sorted((m[0] for m in raw), reverse=True)[keep - 1]
        return len(raw), sorted((m for m in raw if m[0] >= cutoff), key=rank_key)[:keep]
    if keep == 0:
        total, _ = _native_call(board, rack, gaddag, rules, 1, False)
        return total, []
    total, records = _native_call(board, rack, gaddag, rules, keep or 0, keep is None)
    return total, _decode(records)


def _check(board: Board, rules: Rules) -> None:
    if board.rows != rules.rows or board.cols != rules.cols or len(board.squares) != rules.rows * rules.cols:
        raise ValueError("board and rules differ in size")


def _native_call(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, keep: int, sort: bool
) -> tuple[int, bytes]:
    assert _movegen_c is not None
    total, records = _movegen_c.generate(
        native_lexicon(gaddag), _layout(rules), bytes(board.squares), bytes(rack), keep=keep, sort=sort
    )
    return total, records


def _decode(records: bytes) -> list[RawMove]:
    return [
        (score, bool(down), line, start, tuple(codes[:length]))
        for score, _leave, _kind, down, line, start, length, _blanks, codes in RECORD.iter_unpack(records)
    ]


def native_lexicon(gaddag: Gaddag) -> _movegen_c.Lexicon:
    """The native engine's view of ``gaddag``'s node array, checked once (every arc inside
    the array) and kept with it."""
    assert _movegen_c is not None
    native: _movegen_c.Lexicon | None = gaddag.native
    if native is None:
        try:
            native = _movegen_c.Lexicon(gaddag.nodes, gaddag.root, gaddag.dawg_root)
        except ValueError as exc:
            raise InputError(f"the lexicon's GADDAG is damaged: {exc}") from None
        gaddag.native = native
    return native


def gaddag_problem(gaddag: Gaddag) -> str | None:
    """Why ``gaddag``'s node array cannot be used (None when it can), checked once: by the
    native engine when it is built (which keeps its checked view), else by the Python twin."""
    if _movegen_c is None:
        return structure_problem(gaddag.nodes, gaddag.root, gaddag.dawg_root)
    try:
        native_lexicon(gaddag)
    except InputError as exc:
        return str(exc).removeprefix("the lexicon's GADDAG is damaged: not a usable GADDAG: ")
    return None


_LAYOUTS: dict[int, tuple[Rules, _movegen_c.Layout]] = {}


def _layout(rules: Rules) -> _movegen_c.Layout:
    """The native engine's copy of a rule set's board and scores, made once per rule set."""
    assert _movegen_c is not None
    known = _LAYOUTS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    centre = rules.centre[0] * rules.cols + rules.centre[1]
    layout = _movegen_c.Layout(
        rules.rows,
        rules.cols,
        bytes(rules.letter_mult),
        bytes(rules.word_mult),
        rules.values,
        rules.rack_size,
        rules.bingo_bonus,
        centre,
    )
    if len(_LAYOUTS) > 64:  # rule sets are few; never let the table grow without bound
        _LAYOUTS.clear()
    _LAYOUTS[id(rules)] = (rules, layout)
    return layout

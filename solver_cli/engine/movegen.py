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
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from solver_cli.engine import _movegen_py
from solver_cli.engine._movegen_py import RawMove
from solver_cli.engine.alphabet import ALPHABET_SIZE, BLANK_BIT
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag, structure_problem
from solver_cli.engine.leaves import SCALE, SCORE, LeaveTable, Valuation, exchanges
from solver_cli.engine.rules import (
    MAX_BINGO_BONUS,
    MAX_END_FACTOR,
    MAX_RACK_SIZE,
    MAX_SIDE,
    MAX_TILE_VALUE,
    MAX_TILES,
    Rules,
)
from solver_cli.errors import InputError, RulesError

if TYPE_CHECKING:
    from solver_cli.engine import _movegen_c
else:
    try:
        from solver_cli.engine import _movegen_c
    except ImportError:  # installed without a C compiler: the pure-Python twin does the work
        _movegen_c = None

__all__ = [
    "RawMove",
    "Candidate",
    "candidate_key",
    "PLACE",
    "EXCHANGE",
    "PASS",
    "RankKey",
    "rank_key",
    "generate_moves",
    "count_moves",
    "ranked_moves",
    "ranked_records",
    "record_at",
    "equity_at",
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

# The ranges the native engine enforces at its entry points (``native/layout.c`` and
# generate), checked by this front before either engine runs, so that both refuse the same
# input with the same ``InputError`` (the native one would raise a bare ValueError, the twin
# would answer or fail somewhere inside). tests/engine/test_ranges.py holds them equal to the
# C's own constants.
MAX_MULTIPLIER = 4  # a premium square multiplies by at most 4 (q, Q)
MAX_BAG = 100_000  # tiles in the bag; a rule set has at most 1,000
MAX_OPPONENT = MAX_RACK_SIZE * MAX_TILE_VALUE  # the face value of a full rack
# The most moves the native engine keeps or lists (MAX_RECORDS, 768 MB of records). Asking
# for more of the best moves than that is asking for all of them: both engines then rank
# every move, so a --top beyond it is no error.
MAX_KEEP = 1 << 24
VALID_SQUARES = frozenset((0, *range(1, ALPHABET_SIZE + 1), *range(BLANK_BIT + 1, BLANK_BIT + ALPHABET_SIZE + 1)))


RankKey = tuple[int, int, bool, int, int, tuple[int, ...]]

# What a candidate move does: place tiles, throw some back, or pass.
PLACE, EXCHANGE, PASS = 0, 1, 2
KINDS = ("place", "exchange", "pass")


class Candidate(NamedTuple):
    """A ranked move: a placement (``codes`` as in a raw move), an exchange (``codes``: the
    tiles thrown back, ascending, 0 the blank) or the pass. ``leave`` is what the tiles kept
    add to the score, in thousandths of a point (0 when ranking by score)."""

    score: int
    leave: int
    kind: int
    down: bool
    line: int
    start: int
    codes: tuple[int, ...]

    @property
    def equity(self) -> int:
        """Score plus leave, in thousandths of a point."""
        return self.score * SCALE + self.leave

    @property
    def raw(self) -> RawMove:
        return (self.score, self.down, self.line, self.start, self.codes)


CandidateKey = tuple[int, int, int, bool, int, int, tuple[int, ...]]


def rank_key(raw: RawMove) -> RankKey:
    """The rank order by score, the same in both engines (the C twin is ``rank_cmp``): highest
    score first; among equal scores the move keeping more blanks, then a stable board order
    (across first, then by square, then by word)."""
    score, down, line, start, codes = raw
    return (-score, sum(code >= BLANK_BIT for code in codes), down, line, start, codes)


def candidate_key(c: Candidate) -> CandidateKey:
    """``rank_key`` for candidates: highest equity first, then the move keeping more blanks
    (fewer in the main word, or fewer thrown back), then placements, exchanges, the pass, then
    the board order. With every leave 0 it orders placements exactly as ``rank_key``."""
    blanks = c.codes.count(0) if c.kind == EXCHANGE else sum(code >= BLANK_BIT for code in c.codes)
    return (-c.equity, blanks, c.kind, c.down, c.line, c.start, c.codes)


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
    _check(board, rack, rules)
    if (engine or chosen_engine()) == "python":
        return _listable(_movegen_py.generate_moves(board, rack, gaddag, rules))
    _, records = _native_call(board, rack, gaddag, rules, 0, False)
    return _decode(records)


def count_moves(board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, engine: str | None = None) -> int:
    """Generate every legal move in the engine's own form (the native engine's packed
    records, the twin's tuples) and count them: what ``scrab bench`` times."""
    _check(board, rack, rules)
    if (engine or chosen_engine()) == "python":
        return len(_listable(_movegen_py.generate_moves(board, rack, gaddag, rules)))
    total, _ = _native_call(board, rack, gaddag, rules, 0, False)
    return total


def ranked_moves(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    keep: int | None = None,
    valuation: Valuation = SCORE,
    engine: str | None = None,
) -> tuple[int, list[Candidate]]:
    """(how many candidate moves there are, the best ``keep`` of them in rank order); every
    candidate, ranked, when ``keep`` is None. Candidates are the legal placements, and the
    exchanges and the pass when ``valuation`` allows them; they rank by score, or by equity
    when ``valuation`` has leave values. A ``keep`` above ``MAX_KEEP`` asks for every
    candidate (no engine can hold more)."""
    _check(board, rack, rules, valuation)
    if keep is not None:
        if type(keep) is not int or keep < 0:
            raise InputError(f"keep must be a non-negative integer or None, not {keep!r}")
        if keep > MAX_KEEP:
            keep = None
    if (engine or chosen_engine()) == "python":
        found = _python_candidates(board, rack, gaddag, rules, valuation)
        if keep is None or keep >= len(found):
            return len(found), sorted(_listable(found), key=candidate_key)
        if keep == 0:
            return len(found), []
        # Only the candidates that can reach the top need the full ranking key.
        cutoff = sorted((c.equity for c in found), reverse=True)[keep - 1]
        return len(found), sorted((c for c in found if c.equity >= cutoff), key=candidate_key)[:keep]
    if keep == 0:
        total, _ = _native_call(board, rack, gaddag, rules, 1, False, valuation)
        return total, []
    total, records = _native_call(board, rack, gaddag, rules, keep or 0, keep is None, valuation)
    return total, [
        Candidate(score, leave, kind, bool(down), line, start, tuple(codes[:length]))
        for score, leave, kind, down, line, start, length, _blanks, codes in RECORD.iter_unpack(records)
    ]


def _python_candidates(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, valuation: Valuation
) -> list[Candidate]:
    """Every candidate, unordered, by the Python twin (the native engine's other_moves and
    leave_term are the same rules)."""
    found = []
    cols = board.cols
    squares = board.squares
    for score, down, line, start, codes in _movegen_py.generate_moves(board, rack, gaddag, rules):
        leave = 0
        if valuation.equity:
            kept = list(rack)
            for k, code in enumerate(codes):
                if not squares[(start + k) * cols + line if down else line * cols + start + k]:
                    kept[0 if code & BLANK_BIT else code] -= 1
            leave = valuation.leave_term(kept, rules)
        found.append(Candidate(score, leave, PLACE, down, line, start, codes))
    for thrown in exchanges(rack, valuation.exchange):
        kept = [held - out for held, out in zip(rack, thrown, strict=True)]
        tiles = tuple(code for code, n in enumerate(thrown) for _ in range(n))
        found.append(Candidate(0, valuation.leave_term(kept, rules), EXCHANGE, False, 0, 0, tiles))
    if valuation.passes:
        found.append(Candidate(0, valuation.leave_term(rack, rules), PASS, False, 0, 0, ()))
    return found


def _check(board: Board, rack: list[int], rules: Rules, valuation: Valuation = SCORE) -> None:
    """Refuse, for both engines alike and before either runs, every argument the native
    engine's entry points refuse (``InputError``, ``RulesError`` for a rule set)."""
    check_rules(rules)
    if board.rows != rules.rows or board.cols != rules.cols or len(board.squares) != rules.rows * rules.cols:
        raise InputError(
            f"the board is {board.rows}x{board.cols} ({len(board.squares)} squares); "
            f"the {rules.name} board is {rules.rows}x{rules.cols}"
        )
    if not VALID_SQUARES.issuperset(board.squares):
        square, code = next((i, code) for i, code in enumerate(board.squares) if code not in VALID_SQUARES)
        raise InputError(f"the board's square {square} holds {code!r}, not a tile code")
    if len(rack) != ALPHABET_SIZE + 1 or not all(type(n) is int and n >= 0 for n in rack):
        raise InputError("rack counts must be 27 non-negative integers: blanks first, then A..Z")
    if sum(rack) > MAX_RACK_SIZE:
        raise InputError(f"rack has {sum(rack)} tiles; a rack holds at most {MAX_RACK_SIZE}")
    if valuation is not SCORE:
        _check_valuation(valuation)


def _check_valuation(valuation: Valuation) -> None:
    if valuation.leaves is not None and not isinstance(valuation.leaves, LeaveTable):
        raise InputError(f"leaves must be a LeaveTable or None, not {type(valuation.leaves).__name__}")
    for name, value, most in (
        ("bag", valuation.bag, MAX_BAG),
        ("opponent", valuation.opponent, MAX_OPPONENT),
        ("exchange", valuation.exchange, MAX_RACK_SIZE),
    ):
        if type(value) is not int or not 0 <= value <= most:
            raise InputError(f"valuation {name} must be an integer from 0 to {most:,}, not {value!r}")


# Rule sets already checked, by id (the object is kept, so its id is not reused meanwhile).
_CHECKED_RULES: dict[int, Rules] = {}


def check_rules(rules: Rules) -> None:
    """``RulesError`` unless ``rules`` is within what both engines take: the limits a rule
    file is read with (engine/rules.py), which a ``Rules`` made in code may not respect."""
    if _CHECKED_RULES.get(id(rules)) is rules:
        return
    squares = rules.rows * rules.cols if type(rules.rows) is int and type(rules.cols) is int else -1
    problem = None
    if squares < 0 or not (2 <= rules.rows <= MAX_SIDE and 2 <= rules.cols <= MAX_SIDE):
        problem = f"the board must be 2..{MAX_SIDE} squares a side, not {rules.rows}x{rules.cols}"
    elif any(
        len(mult) != squares or not all(type(m) is int and 1 <= m <= MAX_MULTIPLIER for m in mult)
        for mult in (rules.letter_mult, rules.word_mult)
    ):
        problem = f"the premiums must be {squares} multipliers of 1 to {MAX_MULTIPLIER}"
    elif len(rules.values) != ALPHABET_SIZE + 1 or not all(
        type(v) is int and 0 <= v <= MAX_TILE_VALUE for v in rules.values
    ):
        problem = f"the letter values must be 27 integers from 0 to {MAX_TILE_VALUE:,}"
    elif len(rules.counts) != ALPHABET_SIZE + 1 or not all(
        type(n) is int and 0 <= n <= MAX_TILES for n in rules.counts
    ):
        # (what the native leave training takes: self-play checks the rules before it trains)
        problem = f"the tile counts must be 27 integers from 0 to {MAX_TILES:,}"
    elif type(rules.rack_size) is not int or not 1 <= rules.rack_size <= MAX_RACK_SIZE:
        problem = f"the rack size must be 1 to {MAX_RACK_SIZE}, not {rules.rack_size!r}"
    elif type(rules.bingo_bonus) is not int or not 0 <= rules.bingo_bonus <= MAX_BINGO_BONUS:
        problem = f"the bingo bonus must be 0 to {MAX_BINGO_BONUS:,}, not {rules.bingo_bonus!r}"
    elif not (
        len(rules.centre) == 2
        and all(type(x) is int for x in rules.centre)
        and 0 <= rules.centre[0] < rules.rows
        and 0 <= rules.centre[1] < rules.cols
    ):
        problem = f"the centre {rules.centre!r} is off the {rules.rows}x{rules.cols} board"
    elif not all(type(f) is int and 0 <= f <= MAX_END_FACTOR for f in (rules.out_gain, rules.out_loss)):
        # (the equity ranking's end-of-game adjustments count them; the native Layout takes 0..10)
        problem = f"out_gain and out_loss must be 0 to {MAX_END_FACTOR}, not {rules.out_gain!r} and {rules.out_loss!r}"
    if problem is not None:
        raise RulesError(f"rule set {rules.name}: {problem}")
    if len(_CHECKED_RULES) > 64:  # rule sets are few; never let the table grow without bound
        _CHECKED_RULES.clear()
    _CHECKED_RULES[id(rules)] = rules


def _native_call(
    board: Board, rack: list[int], gaddag: Gaddag, rules: Rules, keep: int, sort: bool, valuation: Valuation = SCORE
) -> tuple[int, bytes]:
    assert _movegen_c is not None
    leaves = None if valuation.leaves is None else native_leaves(valuation.leaves)
    try:
        total, records = _movegen_c.generate(
            native_lexicon(gaddag),
            _layout(rules),
            bytes(board.squares),
            bytes(rack),
            keep=keep,
            sort=sort,
            leaves=leaves,
            bag=valuation.bag,
            opponent=valuation.opponent,
            exchange=valuation.exchange,
            passes=valuation.passes,
        )
    except MemoryError as exc:
        if str(exc).startswith("more than"):  # its list of every move is full (MAX_RECORDS)
            raise _too_many() from None
        raise
    return total, records


_Listed = TypeVar("_Listed")


def _listable(moves: list[_Listed]) -> list[_Listed]:
    """``moves``, unless they are more than the native engine can list (``MAX_KEEP``): then
    the same ``InputError`` as the native engine's, so both engines refuse alike."""
    if len(moves) > MAX_KEEP:
        raise _too_many()
    return moves


def _too_many() -> InputError:
    return InputError(f"more than {MAX_KEEP:,} moves: too many to list; ask for the best ones (keep, --top)")


def native_leaves(table: LeaveTable) -> _movegen_c.Leaves:
    """The native engine's checked copy of a leave table, made once per table."""
    assert _movegen_c is not None
    native: _movegen_c.Leaves | None = table.native
    if native is None:
        native = _movegen_c.Leaves(table.values)
        table.native = native
    return native


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
        out_gain=rules.out_gain,
        out_loss=rules.out_loss,
    )
    if len(_LAYOUTS) > 64:  # rule sets are few; never let the table grow without bound
        _LAYOUTS.clear()
    _LAYOUTS[id(rules)] = (rules, layout)
    return layout


# --- every candidate, packed: for callers that read a few of many -------------------------

# The two fields a record's equity is made of: score (int64) and leave (int32), at its start;
# and where its kind and its main word's length are (one byte each), for scans at C speed
# (``records[KIND_OFFSET::RECORD.size]``: every candidate's kind, in rank order).
_EQUITY = struct.Struct("=qi")
KIND_OFFSET, LENGTH_OFFSET = 12, 16


def ranked_records(
    board: Board,
    rack: list[int],
    gaddag: Gaddag,
    rules: Rules,
    valuation: Valuation = SCORE,
    engine: str | None = None,
) -> tuple[int, bytes]:
    """(how many candidates there are, every one of them in rank order, packed one
    ``RECORD`` each): what ``ranked_moves`` gives with ``keep`` None, for a caller that reads
    only a few of perhaps 100,000 (a game review: the best, one bisection, a scan that stops
    early) and so should not build a Python object per candidate. Read them with
    ``record_at`` and ``equity_at``. The native engine's records are passed on as they come
    from its one call; the twin's candidates are packed alike."""
    _check(board, rack, rules, valuation)
    if (engine or chosen_engine()) == "python":
        total, found = ranked_moves(board, rack, gaddag, rules, None, valuation, "python")
        return total, b"".join(_pack(c) for c in found)
    return _native_call(board, rack, gaddag, rules, 0, True, valuation)


def record_at(records: bytes, index: int) -> Candidate:
    """The candidate packed at ``index`` in ``records``."""
    score, leave, kind, down, line, start, length, _blanks, codes = RECORD.unpack_from(records, index * RECORD.size)
    return Candidate(score, leave, kind, bool(down), line, start, tuple(codes[:length]))


def equity_at(records: bytes, index: int) -> int:
    """The equity (thousandths of a point) of the candidate packed at ``index``, read
    without decoding the rest of its record."""
    score, leave = _EQUITY.unpack_from(records, index * RECORD.size)
    return int(score * SCALE + leave)


def _pack(c: Candidate) -> bytes:
    """A candidate as the native engine packs it (``blanks``: the rank's tie-break)."""
    blanks = c.codes.count(0) if c.kind == EXCHANGE else sum(code >= BLANK_BIT for code in c.codes)
    return RECORD.pack(c.score, c.leave, c.kind, c.down, c.line, c.start, len(c.codes), blanks, bytes(c.codes))

"""Reading a position: a board file, standard input, a CGP string, a file holding one, or
a GCG game record (the position before one of its turns).

``read_position`` sniffs which it is (an existing file is always read as a file first) and
returns the board, the rack the position names (CGP and GCG only) and a name for messages.
``position_cgp`` writes a board and rack back as CGP.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from solver_cli._io import path_exists, read_limited
from solver_cli.engine.board import Board
from solver_cli.engine.rules import Rules
from solver_cli.errors import InputError
from solver_cli.formats.boardfile import parse_board
from solver_cli.formats.cgp import Position, format_cgp, looks_like_cgp, parse_cgp
from solver_cli.formats.gcg_text import MAX_GCG_BYTES, decode_gcg, is_gcg_name, looks_like_gcg

if TYPE_CHECKING:
    from collections.abc import Callable

    from solver_cli.engine.history import GameRecord
    from solver_cli.formats.gcg_read import GcgFile

MAX_BOARD_BYTES = 1_000_000  # a 26x26 board with comments is a few kB


@dataclass
class LoadedPosition:
    """A position as read: the board, the rack a CGP position names, a name for messages."""

    board: Board
    rack: str | None  # from a CGP position or a game record's turn, when it gives one
    name: str
    game: GameRecord | None = None  # the whole game, for a position read from a GCG record
    turn: int | None = None  # the GCG turn the position is before (len(turns) + 1: after the last)
    board_text: str | None = None  # a board file's text, comments and all (for play -o to keep them)
    scores: tuple[int, int] | None = None  # a CGP position's two scores, the player on turn first
    scoreless: int = 0  # a CGP position's scoreless turns in a row (its ZERO_TURNS)
    opponent_rack: str | None = None  # the tiles a CGP position gives the other player, if any


def read_board_text(board: str) -> tuple[str, str]:
    """(text, name for messages) of a board file, or of stdin for ``-``."""
    data, name = read_board_bytes(board)
    return decode_board_bytes(data, name), name


def read_board_bytes(board: str, limit: int = MAX_BOARD_BYTES) -> tuple[bytes, str]:
    """(bytes, name for messages) of a board file, or of stdin for ``-``."""
    if board == "-":
        return sys.stdin.buffer.read(limit + 1), "<stdin>"
    if path_exists(board) and Path(board).is_dir():
        raise InputError(f"{board}: is a directory, not a board file")
    return read_limited(board, limit, "board file"), board


def decode_board_bytes(data: bytes, name: str) -> str:
    """The text of a board file's bytes, refusing what cannot be a board file."""
    if len(data) > MAX_BOARD_BYTES:
        raise InputError(f"{name}: far too large for a board file")
    if b"\0" in data:
        raise InputError(f"{name}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (bad byte at offset {exc.start})") from None


def read_position(arg: str, rules: Rules, turn: int | None = None) -> LoadedPosition:
    """A board file, ``-`` (stdin), a CGP string, a file holding a CGP string, or a GCG game
    record: the position before its turn ``turn`` (by default after its last turn)."""
    return read_position_under(arg, lambda _record: rules, turn)[0]


def read_position_under(
    arg: str, choose_rules: Callable[[GcgFile | None], Rules], turn: int | None = None
) -> tuple[LoadedPosition, Rules]:
    """``read_position`` with the rules chosen once the input is known: ``choose_rules`` is
    given the parsed game record (None for a board file or a CGP position), so that the rule
    set a record names can be the one its moves are replayed under."""
    if not arg.strip():
        raise InputError("the board argument is empty: give a board file, - for standard input, or a CGP position")
    if arg != "-" and not path_exists(arg) and looks_like_cgp(arg):
        text, name = arg, "CGP"
    else:
        data, name = read_board_bytes(arg, max(MAX_BOARD_BYTES, MAX_GCG_BYTES))
        if is_gcg_name(name) or looks_like_gcg(data[:20_000].decode("latin-1")):
            from solver_cli.formats.gcg_read import parse_gcg  # only for a record: a board file needs none of it

            record = parse_gcg(decode_gcg(data, name), name)
            rules = choose_rules(record)
            return record_position(record, rules, turn), rules
        text = decode_board_bytes(data, name)
    if turn is not None:
        raise InputError(f"--turn {turn}: {name} is not a GCG game record (--turn picks a turn of one)")
    rules = choose_rules(None)
    return parse_position(text, rules, name), rules


def record_position(record: GcgFile, rules: Rules, turn: int | None = None) -> LoadedPosition:
    """The position before turn ``turn`` of a parsed GCG record (``len(turns) + 1`` or
    ``None``: after the last turn), with the rack the record gives the player on turn.

    The rack comes from the turn's line when it is a play, an exchange or a pass and its
    rack is whole (not only the tiles played); for the position after the last turn, from
    ``#rack1`` / ``#rack2`` for the player to move. Otherwise there is no rack."""
    from solver_cli.formats.gcg_read import replay_gcg

    name = record.name
    game = replay_gcg(record, rules)
    count = len(game.turns)
    if turn is None:
        turn = count + 1
    if not 1 <= turn <= count + 1:
        raise InputError(
            f"--turn {turn}: {name} has {count} turn{'s' if count != 1 else ''} "
            f"(give 1 to {count + 1}; {count + 1} is the position after the last)"
        )
    rack: str | None = None
    if turn <= count:
        at = game.turns[turn - 1]
        if at.kind in ("play", "exchange", "pass") and at.full_rack:
            rack = at.rack
    else:
        movers = [t for t in game.turns if t.kind in ("play", "exchange", "pass")]
        ended = any(t.kind in ("out", "penalty") for t in game.turns)
        if not ended:
            rack = game.final_racks[1 - movers[-1].player if movers else 0]
    return LoadedPosition(game.board_before(turn), rack, name, game, turn)


def parse_position(text: str, rules: Rules, name: str = "board") -> LoadedPosition:
    """A position from text: a board file's content or a CGP string."""
    if not looks_like_cgp(text):
        return LoadedPosition(parse_board(text, rules, name), None, name, board_text=text)
    position = parse_cgp(text, name)
    width = len(position.rows[0]) if position.rows else 0
    if (len(position.rows), width) != (rules.rows, rules.cols):
        raise InputError(
            f"{name}: the CGP board is {len(position.rows)}x{width}, "
            f"the {rules.name} board is {rules.rows}x{rules.cols}"
        )
    board = parse_board("\n".join(position.rows), rules, name)
    rack = position.racks[0] if position.racks and position.racks[0] else None
    scores = (position.scores[0], position.scores[1]) if len(position.scores) == 2 else None
    opponent = position.racks[1] if len(position.racks) > 1 and position.racks[1] else None
    return LoadedPosition(board, rack, name, scores=scores, scoreless=position.zero_turns, opponent_rack=opponent)


def position_cgp(board: Board, rack: str, lexicon: str, scores: tuple[int, int] = (0, 0), scoreless: int = 0) -> str:
    """The board and the rack on turn as one CGP line, with the scores (the player on turn
    first) and the scoreless turns in a row, naming the lexicon."""
    # A word list given by path may have a name CGP cannot carry (';', spaces): name its stem.
    lex = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(lexicon).name.split(".")[0]) or "custom"
    return format_cgp(
        Position(
            rows=board.to_rows(), racks=[rack, ""], scores=list(scores), zero_turns=scoreless, options={"lex": lex}
        )
    )

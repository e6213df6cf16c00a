"""Rendering results for the terminal (Rich) and for scripts (JSON-ready dicts)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, NamedTuple

from solver_cli._text import plural
from solver_cli.cli._common import console
from solver_cli.engine.alphabet import BLANK_BIT, LETTERS, letter_of
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import SCALE
from solver_cli.engine.rules import Rules
from solver_cli.engine.scoring import Move, Word
from solver_cli.engine.unseen import Unseen

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from solver_cli.cli.table import Cell
    from solver_cli.engine.explain import Trace


def word_json(word: Word) -> dict[str, object]:
    out = {
        "word": word.word,
        "row": word.row,
        "col": word.col,
        "direction": word.direction,
        "score": word.score,
        "kind": word.kind,
    }
    if word.extends:
        out["extends"] = word.extends
    return out


class ExactNumber(float):
    """A number of points with thousandths too large for a float to hold exactly: ``text``
    is its exact decimal, which ``json_text`` writes (plain ``json.dumps`` writes the float)."""

    text: str

    def __new__(cls, thousandths: int) -> ExactNumber:
        number = super().__new__(cls, thousandths / SCALE)
        whole, part = divmod(abs(thousandths), SCALE)
        number.text = f"{'-' if thousandths < 0 else ''}{whole}.{part:03d}".rstrip("0").rstrip(".")
        return number


# Below this many thousandths a float's shortest repr is the exact decimal (15 digits at most).
_FLOAT_EXACT = 10**15


def exact_points(thousandths: int) -> int | float:
    """Points from thousandths, for JSON, exactly: an int when whole (at any size: 77, as
    ever), else a float while its repr is the exact decimal (40.33), else an
    ``ExactNumber``."""
    whole, part = divmod(thousandths, SCALE)
    if not part:
        return whole
    if abs(thousandths) < _FLOAT_EXACT:
        return thousandths / SCALE
    return ExactNumber(thousandths)


def json_text(payload: object) -> str:
    """``json.dumps(payload)``, with each ``ExactNumber`` in a move's ``equity`` or
    ``leave_value`` written as its exact decimal (JSON numbers have any precision)."""
    moves = payload.get("moves") if isinstance(payload, dict) else None
    exact: dict[str, str] = {}
    if isinstance(payload, dict) and isinstance(moves, list):
        marker = os.urandom(16).hex()  # a string no input holds by chance (secrets would import hashlib)
        marked = []
        for move in moves:
            if isinstance(move, dict) and any(isinstance(move.get(k), ExactNumber) for k in ("equity", "leave_value")):
                move = dict(move)
                for key in ("equity", "leave_value"):
                    value = move.get(key)
                    if isinstance(value, ExactNumber):
                        token = f"{marker}-{len(exact)}"
                        exact[json.dumps(token)] = value.text
                        move[key] = token
            marked.append(move)
        if exact:
            payload = {**payload, "moves": marked}
    text = json.dumps(payload)
    for token, number in exact.items():
        text = text.replace(token, number, 1)
    return text


def move_json(move: Move, rank: int) -> dict[str, object]:
    """A move for ``--json``: ``kind`` (``place``, ``exchange`` with ``exchanged``, ``pass``);
    an exchange or a pass has no square (``row``, ``col``, ``direction`` null), no word and
    no tiles placed. ``leave_value`` and ``equity`` are null when ranked by score, and exact
    (see ``exact_points``): ``score`` and ``equity`` are ints up to any size, a float being
    exact only to 2^53."""
    leave_value = equity = None
    if move.leave_value is not None:
        # The leave's value is small (at most 2^31 thousandths): its float is exact.
        leave = round(move.leave_value * SCALE)
        leave_value = exact_points(leave)
        equity = exact_points(move.score * SCALE + leave)
    place = move.kind == "place"
    out: dict[str, object] = {"rank": rank, "kind": move.kind}
    if move.kind == "exchange":
        out["exchanged"] = move.exchanged
    out.update(
        row=move.row if place else None,
        col=move.col if place else None,
        direction=move.direction if place else None,
        position=move.position,
        word=move.word,
        notation=move.notation,
        score=move.score,
        bingo=move.bingo,
        placed=[{"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in move.placed],
        leave=move.leave,
        leave_value=leave_value,
        equity=equity,
        cross_words=[word_json(w) for w in move.cross_words],
    )
    return out


def moves_json(moves: list[Move]) -> list[dict[str, object]]:
    return [move_json(m, i) for i, m in enumerate(moves, 1)]


def unseen_json(unseen: Unseen) -> dict[str, object]:
    return {
        "tiles": unseen.text(),
        "total": unseen.total,
        "vowels": unseen.vowels,
        "consonants": unseen.consonants,
        "blanks": unseen.counts[0],
        "counts": {("?" if i == 0 else LETTERS[i - 1]): n for i, n in enumerate(unseen.counts) if n},
        "overdrawn": [{"letter": letter, "held": held, "in_set": in_set} for letter, held, in_set in unseen.over],
    }


def cross_word_text(word: Word) -> str:
    return f"{word.word} {word.score} {word.kind}"


class MoveRow(NamedTuple):
    """One row of the moves table: a move, and with folding the other moves that differ
    from it only in the main word's letters, through the blank (``others``)."""

    rank: int  # the move's rank in the full list (the JSON ``rank``; what --move and explain take)
    move: Move
    others: tuple[Move, ...] = ()

    @property
    def blank_letters(self) -> str:
        """The letters the blanks stand for across the row's moves, lowercase, A-Z order."""
        letters = {t.letter for m in (self.move, *self.others) for t in m.placed if t.blank}
        return "".join(sorted(letters)).lower()


def fold_key(move: Move) -> tuple[object, ...] | None:
    """Moves with the same key differ only in their main word, through a blank: the same
    squares, score, leave and cross-words. None for a move without a blank (never folded)."""
    if not any(t.blank for t in move.placed):
        return None
    squares = tuple((t.row, t.col) for t in move.placed)
    crosses = tuple(cross_word_text(w) for w in move.cross_words)
    return (squares, move.score, move.leave, crosses)


def move_rows(moves: list[Move], fold: bool = False, first_rank: int = 1) -> list[MoveRow]:
    """The table's rows in ranking order; with ``fold``, the moves of one ``fold_key`` make
    one row, at the place (and rank) of the best of them."""
    if not fold:
        return [MoveRow(rank, move) for rank, move in enumerate(moves, first_rank)]
    rows: list[MoveRow] = []
    groups: dict[tuple[object, ...], int] = {}  # fold key -> index in rows
    for rank, move in enumerate(moves, first_rank):
        key = fold_key(move)
        at = groups.get(key) if key is not None else None
        if at is None:
            if key is not None:
                groups[key] = len(rows)
            rows.append(MoveRow(rank, move))
        else:
            row = rows[at]
            rows[at] = MoveRow(row.rank, row.move, (*row.others, move))
    return rows


def word_cell(notation: str) -> tuple[tuple[str, str], ...]:
    """The main word, blank letters bold, board letters (in parentheses) dim."""
    pieces = []
    inside = False
    for ch in notation:
        if ch in "()":
            inside = ch == "("
            pieces.append((ch, "dim"))
        else:
            pieces.append((ch, "dim" if inside else ("bold" if ch.islower() else "")))
    return tuple(pieces)


def move_cell(move: Move) -> tuple[tuple[str, str], ...]:
    """The Word column: the main word (``word_cell``), or ``exchange QU``, or ``pass``."""
    if move.kind == "exchange":
        return (("exchange", "italic"), (f" {move.exchanged}", ""))
    if move.kind == "pass":
        return (("pass", "italic"),)
    return word_cell(move.notation)


def tenths(points: float, signed: bool = False) -> str:
    """``points`` with one decimal, rounded half up from its exact thousandths (equity is
    counted in thousandths), so that a score plus a leave value shown is the equity shown:
    20 and -3.45 show as 20, -3.4 and 16.6, never 16.5."""
    return tenths_of(round(points * SCALE), signed)


def tenths_of(thousandths: int, signed: bool = False) -> str:
    """``tenths`` from exact thousandths (a float's are not exact above 2^53)."""
    count = (thousandths + 50) // 100
    sign = "-" if count < 0 else ("+" if signed else "")
    count = abs(count)
    return f"{sign}{count // 10:,}.{count % 10}"


def print_moves(
    moves: list[Move],
    total: int,
    rules: Rules,
    lexicon: str,
    rack: str,
    matching: int | None = None,
    unseen: Unseen | None = None,
    *,
    fold: bool = False,
    ranking: str = "",
    out: Console | None = None,
) -> None:
    """The moves table (``fold``: blank choices folded, see ``move_rows``), then the unseen
    tiles. ``ranking`` says in the title what orders the list ("equity (... leaves)"); the
    leave's value and the equity get columns when the moves have them."""
    from solver_cli.cli.table import Column, print_table

    out = out or console()
    if not moves:
        what = "legal move" if matching in (None, total) else "move matching the filters"
        out.print(f"No {what} for rack {rack} ({rules.name}, {lexicon}).")
        if unseen is not None:
            print_unseen(unseen, out)
        return
    rows = move_rows(moves, fold)
    of = f"{total:,}" if matching in (None, total) else f"{matching:,} matching ({total:,} legal)"
    folded = len(rows) < len(moves)
    in_rows = f" (in {plural(len(rows), 'row')}, blanks folded)" if folded else ""
    by = f", by {ranking}" if ranking else ""
    noun = "move" if total == 1 else "moves"
    title = f"{len(moves):,} of {of} {noun}{in_rows} for {rack}{by}  ({rules.name}, {lexicon})"
    equity = any(m.equity is not None for m in moves)
    # When the table is too wide, the cross-words give way first (they are the longest, and
    # `scrab explain` or --json has them), then the leave's value (equity minus score), then
    # the leave; the letters a folded row's blank can be go next to last, since without them
    # the row's "+N" says nothing, and the equity, which orders the list, last of all.
    columns = [Column("#", "right"), Column("Pos"), Column("Word"), Column("Score", "right")]
    if folded:
        columns.append(Column("Blank as", fold=4, label="blank as"))
    columns.append(Column("Leave", fold=3, label="leave"))
    if equity:
        columns += [Column("Value", "right", fold=2, label="value"), Column("Equity", "right", fold=5, label="equity")]
    columns.append(Column("Cross-words", fold=1, label=""))
    cells = []
    for row in rows:
        move = row.move
        word = move_cell(move) + (((f" +{len(row.others)}", "dim"),) if row.others else ())
        position = move.position or "-"
        line: list[Cell] = [str(row.rank), position, word, f"{move.score}" + (" bingo" if move.bingo else "")]
        if folded:
            line.append(row.blank_letters if row.others else "-")
        line.append(move.leave or "-")
        if equity:
            line.append(tenths(move.leave_value, signed=True) if move.leave_value is not None else "-")
            # from the exact score: the float equity loses its last digits above 2^53
            exact = move.score * SCALE + round(move.leave_value * SCALE) if move.leave_value is not None else None
            line.append(tenths_of(exact) if exact is not None else "-")
        line.append(", ".join(cross_word_text(w) for w in move.cross_words) or "-")
        cells.append(line)
    print_table(out, columns, cells, title)
    if unseen is not None:
        print_unseen(unseen, out)


def unseen_lines(unseen: Unseen, width: int) -> list[str]:
    """The unseen tiles in lines of at most ``width`` (when the words allow): on one line if
    it fits, else the count on its own line(s), broken between its two phrases (inside them
    only when one is wider than ``width``), and the tiles folded under it. No line ends in a
    space."""
    blanks = f", {plural(unseen.counts[0], 'blank')}" if unseen.counts[0] else ""
    count = f"Unseen {plural(unseen.total, 'tile')}"
    split = f"({plural(unseen.vowels, 'vowel')}, {plural(unseen.consonants, 'consonant')}{blanks}):"
    tiles = unseen.text() or "-"
    whole = f"{count} {split} {tiles}"
    if len(whole) <= width:
        return [whole]
    width = max(width, 1)
    if len(count) + 1 + len(split) <= width:
        head = [f"{count} {split}"]
    elif max(len(count), len(split)) <= width:
        head = [count, split]
    else:  # narrower than the phrases themselves: between any words
        import textwrap

        head = textwrap.wrap(f"{count} {split}", width, break_on_hyphens=False)
    return head + [tiles[i : i + width] for i in range(0, len(tiles), width)]


def print_unseen(unseen: Unseen, out: Console) -> None:
    for line in unseen_lines(unseen, out.width):
        out.print(line, soft_wrap=True)


PREMIUM_LABEL = {"d": "2L", "t": "3L", "q": "4L", "D": "2W", "T": "3W", "Q": "4W"}
PREMIUM_STYLE = {
    "d": "black on bright_cyan",
    "t": "white on blue",
    "q": "white on dark_blue",
    "D": "black on pink1",
    "T": "white on red",
    "Q": "white on dark_red",
}


def board_text(board: Board, rules: Rules, move: Move | None = None) -> Text:
    """The board as Rich text, 3 characters a square (fits 80 columns up to 25 squares wide).

    Without colour it stays readable: premiums are labelled (3W, 2L...), the centre is
    ``*``, blank tiles are lowercase, and the highlighted move's tiles are in brackets."""
    from rich.text import Text

    new = {(t.row, t.col): t for t in (move.placed if move else ())}
    text = Text()
    text.append("   " + "".join(f" {LETTERS[c]} " for c in range(board.cols)) + "\n", style="bold")
    for r in range(board.rows):
        text.append(f"{r + 1:>2} ", style="bold")
        for c in range(board.cols):
            code = board.at(r, c)
            premium = rules.layout[r][c]
            if (r, c) in new:
                tile = new[(r, c)]
                text.append(f"[{tile.letter.lower() if tile.blank else tile.letter}]", style="bold white on green")
            elif code:
                text.append(
                    f" {letter_of(code)} ", style="bold black on wheat1" if code < BLANK_BIT else "black on wheat1"
                )
            elif premium in PREMIUM_LABEL:
                text.append(f"{PREMIUM_LABEL[premium]} ", style=PREMIUM_STYLE[premium])
            elif (r, c) == rules.centre:
                text.append(" * ", style="bold")
            else:
                text.append(" . ", style="dim")
        text.append("\n")
    legend = "[X] the move  x blank  3W 2W word / 3L 2L letter premiums"
    if move:
        shown = f"{move.text} {move.score}" if move.kind == "place" else move.text
        legend = f"{shown}   " + legend
    text.append(legend, style="dim")
    return text


def print_board(board: Board, rules: Rules, move: Move | None = None, out: Console | None = None) -> None:
    (out or console()).print(board_text(board, rules, move))


def print_trace(trace: Trace, position: str) -> None:
    """The GADDAG walk of one move, as a numbered listing with a short explanation."""
    from rich.table import Table

    out = console()
    direction = "down" if trace.down else "across"
    out.print(f"{position} {trace.word} ({direction}, {trace.score} points): found from the anchor {trace.anchor}.")
    start = trace.start or trace.anchor
    out.print(
        "Gordon's GADDAG holds every word as REV(prefix) + separator + suffix. "
        + (
            ""
            if start == trace.anchor
            else f"Every word through {trace.anchor} holds the tiles right of it, so the walk starts on the last one. "
        )
        + f"From {start} the generator spells the prefix backwards ({trace.reversed_prefix})"
        + (
            f", crosses the separator, then spells the suffix forwards ({trace.suffix})."
            if trace.suffix
            else ", and the word ends there."
        )
    )
    table = Table(header_style="bold")
    for name in ("#", "phase", "square", "letter", "cross-check", "arcs next", "word", "rack left"):
        table.add_column(name, overflow="fold")
    for i, st in enumerate(trace.steps, 1):
        if st.phase == "separator":
            table.add_row(str(i), "turn", "", "<>", "", st.arcs or "-", "", st.rack_left or "-")
            continue
        word = "yes" if st.accepts else ("turn" if st.can_turn else "no")
        letter: str | None
        if st.source == "board":
            check, letter = "on board", f"({st.letter})"
        else:
            check = "any" if st.cross_check is None else (st.cross_check or "none")
            letter = st.letter
        table.add_row(str(i), st.phase, st.square, letter, check, st.arcs or "-", word, st.rack_left or "-")
    out.print(table)
    out.print(
        "word: yes = the letters so far spell a word, turn = the separator may follow. "
        "(X) = a tile already on the board. cross-check: the letters the perpendicular word allows."
    )

"""Rendering results for the terminal (Rich) and for scripts (JSON-ready dicts)."""

from __future__ import annotations

from solver_cli.rules import Rules
from solver_cli.scoring import Move, Word


def word_json(word: Word) -> dict:
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


def move_json(move: Move, rank: int) -> dict:
    return {
        "rank": rank,
        "row": move.row,
        "col": move.col,
        "direction": move.direction,
        "position": move.position,
        "word": move.word,
        "notation": move.notation,
        "score": move.score,
        "bingo": move.bingo,
        "placed": [{"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in move.placed],
        "leave": move.leave,
        "cross_words": [word_json(w) for w in move.cross_words],
    }


def moves_json(moves: list[Move]) -> list[dict]:
    return [move_json(m, i) for i, m in enumerate(moves, 1)]


def console():
    from rich.console import Console

    # Markup off: words such as RE(T)AINS or [A] are never read as Rich markup.
    return Console(markup=False, emoji=False, highlight=False)


def print_moves(moves: list[Move], total: int, rules: Rules, lexicon: str, rack: str) -> None:
    from rich.table import Table
    from rich.text import Text

    out = console()
    if not moves:
        out.print(f"No legal move for rack {rack} ({rules.name}, {lexicon}).")
        return
    table = Table(
        title=f"{len(moves)} of {total:,} moves for {rack}  ({rules.name}, {lexicon})",
        title_justify="left",
        header_style="bold",
    )
    table.add_column("#", justify="right")
    table.add_column("Pos")
    table.add_column("Word")
    table.add_column("Score", justify="right")
    table.add_column("Leave")
    table.add_column("Cross-words")
    for rank, move in enumerate(moves, 1):
        word = Text()
        inside = False
        for ch in move.notation:
            if ch in "()":
                inside = ch == "("
                word.append(ch, style="dim")
            else:
                word.append(ch, style="dim" if inside else ("bold" if ch.islower() else ""))
        score = f"{move.score}" + (" bingo" if move.bingo else "")
        crosses = ", ".join(f"{w.word} {w.score}" for w in move.cross_words)
        table.add_row(str(rank), move.position, word, score, move.leave or "-", crosses or "-")
    out.print(table)

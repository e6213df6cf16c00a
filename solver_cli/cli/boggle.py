"""The ``boggle`` command: every word in a Boggle grid, found through the lexicon's DAWG."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from solver_cli._text import plural
from solver_cli.cli._common import BadInput, complete_path, lexicon_option, load_lexicon_for, to_click_error

if TYPE_CHECKING:
    from solver_cli.games.boggle import BoggleResult, DiceSet

# --- boggle ------------------------------------------------------------------------------


@click.command()
@click.argument("grid", metavar="[GRID]", required=False, shell_complete=complete_path)
@lexicon_option
@click.option(
    "--min-length",
    "-m",
    type=click.IntRange(min=2),
    default=None,
    help="Shortest word listed, in letters (Qu counts as 2).  [default: 3 on 4x4, 4 on 5x5 and 6x6]",
)
@click.option("--random", "roll", is_flag=True, help="Roll a grid with the standard dice instead of giving GRID.")
@click.option(
    "--seed", type=click.IntRange(min=0), default=None, help="Seed for --random: the same seed rolls the same grid."
)
@click.option(
    "--size",
    type=click.Choice(["4", "5", "6"]),
    default=None,
    help="Grid size for --random: 4 (Boggle), 5 (Big Boggle), 6 (Super Big Boggle).  [default: 4]",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def boggle(
    grid: str | None,
    lexicon: str | None,
    min_length: int | None,
    roll: bool,
    seed: int | None,
    size: str | None,
    as_json: bool,
) -> None:
    """Every word in a Boggle GRID (4x4, 5x5 or 6x6), with its score and the total.

    GRID is a file (- reads stdin) or a string with rows separated by '/'. Letters in any
    case; Q or Qu is the Qu die; [Th] a face with several letters; '.' a blank face.
    Words run through adjacent dice in all 8 directions, each die at most once.

    \b
    Examples:
      scrab boggle SERS/PATG/LINE/SERS
      scrab boggle boards/grid.txt --min-length 4 --json
      scrab boggle --random --size 5 --seed 7
    """
    import secrets
    import sys

    from solver_cli.errors import ScrabError
    from solver_cli.games import boggle as bg

    if roll and grid is not None:
        raise click.UsageError("give either GRID or --random, not both")
    if not roll and grid is None:
        raise click.UsageError("missing GRID (a grid file or string such as ABCD/EFGH/IJKL/MNOP), or use --random")
    if not roll and (seed is not None or size is not None):
        option = "--seed" if seed is not None else "--size"
        raise click.UsageError(f"{option} applies only with --random")

    if grid is not None and not grid.strip():
        # (before the library, whose message for an empty grid text has a ';' where every
        # other message has a ':')
        raise BadInput(f"the grid is empty: give a grid file, - for standard input, or {bg.GRID_HELP}")

    dice = None
    try:
        if roll:
            if seed is None:
                seed = secrets.randbelow(1_000_000_000)
            dice = bg.DICE_SETS[int(size or 4)]
            board = bg.roll_grid(dice.size, seed)
            source = ""
        elif grid == "-":
            source = "<stdin>"
            data = sys.stdin.buffer.read(bg.MAX_GRID_BYTES + 1)
            board = bg.parse_grid(bg.decode_grid_bytes(data, source), source)
        else:
            assert grid is not None  # checked above: no GRID only with --random
            board, source = bg.load_grid(grid)
        # Words up to 15 letters, the limit of a Scrabble board, so Boggle shares solve's cache.
        lex = load_lexicon_for(lexicon, bg.MAX_WORD_LENGTH, as_json)
        result = bg.solve_boggle(board, lex.gaddag, min_length)
    except ScrabError as exc:
        raise to_click_error(exc) from None

    if as_json:
        payload = bg.result_json(result, lex.name)
        payload["seed"] = seed if roll else None
        payload["dice"] = dice.name if dice else None
        click.echo(json.dumps(payload))
        return
    _print_boggle(result, lex.name, source, dice, seed)


def _print_boggle(result: BoggleResult, lexicon: str, source: str, dice: DiceSet | None, seed: int | None) -> None:
    from rich import box
    from rich.table import Table

    from solver_cli.cli._common import console
    from solver_cli.cli.table import Column, print_table

    out = console()
    grid = result.grid
    n = grid.size
    if dice is not None:
        out.print(f"Rolled with seed {seed}: {dice.title}", soft_wrap=True)
    origin = f" from {source}" if source else ""
    out.print(f"{n}x{n} grid{origin}: {grid.to_text()}", soft_wrap=True)
    tray = Table(show_header=False, box=box.SQUARE, show_lines=True, padding=(0, 1))
    for _ in range(n):
        tray.add_column(justify="center", min_width=2)
    for row in grid.rows():
        tray.add_row(*(face or "·" for face in row))
    out.print(tray)

    words = result.words
    scope = f"{lexicon}, {result.min_length}+ letters"
    if not words:
        out.print(f"No words in this grid ({scope}).")
        return
    word_count, points = plural(len(words), "word"), plural(result.total, "point")
    out.print(f"{word_count}, {points}  ({scope})")
    columns = [Column("#", "right"), Column("Word"), Column("Letters", "right"), Column("Score", "right")]
    rows = [[str(rank), w.word, str(len(w.word)), str(w.score)] for rank, w in enumerate(words, 1)]
    print_table(out, columns, rows)
    out.print(f"Total: {points} for {word_count}")

"""``scrab bench``: build, cache load, memory, move generation and the whole command, timed."""

from __future__ import annotations

import sys

import click

from solver_cli.cli._common import json_option, lexicon_option, to_click_error
from solver_cli.errors import ScrabError


@click.command()
@lexicon_option
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Timed runs per position and of the cache load.",
)
@click.option("--runs", type=click.IntRange(min=1), default=5, show_default=True, help="Runs of the whole command.")
@click.option("--builds", type=click.IntRange(min=1), default=1, show_default=True, help="Cold GADDAG builds.")
@click.option("--skip-build", is_flag=True, help="Do not time a cold build.")
@click.option("--skip-command", is_flag=True, help="Do not time the whole command.")
@json_option
def bench(
    lexicon: str | None, repeat: int, runs: int, builds: int, skip_build: bool, skip_command: bool, as_json: bool
) -> None:
    """Measure build, cache load, memory, move generation and the whole solve command.

    Figures are medians with min and max over repeated runs, on a fixed suite of positions
    (empty board, opening, mid-games, a crowded late board; 0, 1 and 2 blanks; Scrabble
    and Words with Friends). Plain `scrab bench` measures everything; a quick look:

    \b
    Examples:
      scrab bench --skip-build --repeat 3 --runs 3
    """
    from solver_cli.bench import dumps, run_bench
    from solver_cli.cli.render import print_bench

    def report(step: str) -> None:
        if not as_json and sys.stderr.isatty():
            click.echo(f"measuring {step}...", err=True)

    try:
        result = run_bench(lexicon, repeat, runs, builds, skip_build, skip_command, report)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if as_json:
        click.echo(dumps(result))
    else:
        print_bench(result)

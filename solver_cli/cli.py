"""The ``scrab`` command line: parses options, calls the library, renders the result.

Results go to stdout (a Rich table, or JSON with ``--json``); warnings, errors and progress
go to stderr. Exit status: 0 success, 1 a failed check, 2 bad usage or bad input.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from solver_cli import __version__
from solver_cli.errors import InputError, ScrabError

MAX_BOARD_BYTES = 1_000_000  # a 26x26 board with comments is a few kB


class BadInput(click.ClickException):
    """Bad input (board, rack, word list, rules): one line on stderr, exit status 2."""

    exit_code = 2


def fail(exc: ScrabError) -> click.ClickException:
    if isinstance(exc, InputError):
        return BadInput(str(exc))
    return click.ClickException(str(exc))


def warn(message: str) -> None:
    click.echo(f"Warning: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scrab")
def cli() -> None:
    """scrab: every legal Scrabble / Words with Friends move, exactly scored, from a GADDAG."""


def lexicon_options(func):
    func = click.option(
        "--lexicon",
        "-l",
        metavar="NAME|PATH",
        default=None,
        help="Shipped word list (kjxqz [default], sowpods) or a word-list file.",
    )(func)
    func = click.option(
        "--rules", "-r", metavar="NAME|PATH", default="scrabble", show_default=True, help="Rule set: scrabble, wwf, or a .toml file."
    )(func)
    return func


@contextmanager
def build_progress(enabled: bool):
    """A Rich progress bar on stderr while a GADDAG is built, only on a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("Building GADDAG (first use of this word list)", total=1.0)
    weights = {"prefixes": (0.0, 0.0), "dawg": (0.0, 0.3), "gaddag": (0.3, 0.7)}

    def update(phase: str, fraction: float) -> None:
        start, span = weights.get(phase, (0.0, 1.0))
        progress.update(task, completed=start + span * fraction)

    with progress:
        yield update


def load_lexicon_for(lexicon: str | None, rules, quiet: bool):
    from solver_cli.lexicon import load_lexicon

    with build_progress(not quiet) as progress:
        return load_lexicon(lexicon, max(rules.rows, rules.cols), progress=progress, warn=warn)


def read_board_text(board: str) -> tuple[str, str]:
    """(text, name for messages) of a board file, or of stdin for ``-``."""
    if board == "-":
        data = sys.stdin.buffer.read(MAX_BOARD_BYTES + 1)
        name = "<stdin>"
    else:
        path = Path(board)
        name = board
        try:
            if path.is_dir():
                raise InputError(f"{name}: is a directory, not a board file")
            size = path.stat().st_size
            if size > MAX_BOARD_BYTES:
                raise InputError(f"{name}: {size:,} bytes is far too large for a board file")
            with open(path, "rb") as fh:
                data = fh.read(MAX_BOARD_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read board file {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_BOARD_BYTES:
        raise InputError(f"{name}: far too large for a board file")
    if b"\0" in data:
        raise InputError(f"{name}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (bad byte at offset {exc.start})") from None


@cli.command()
@click.argument("board", metavar="BOARD")
@click.option("--rack", required=True, help="Rack letters, ? for a blank, e.g. AEIRST?")
@lexicon_options
@click.option("--top", "-n", type=click.IntRange(min=1), default=20, show_default=True, help="Show the N best moves.")
@click.option("--all", "show_all", is_flag=True, help="List every legal move.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def solve(board: str, rack: str, rules: str, lexicon: str | None, top: int, show_all: bool, as_json: bool) -> None:
    """Every legal move for RACK on the board in file BOARD (- reads stdin), ranked by score.

    \b
    Examples:
      scrab solve boards/midgame.txt --rack AEIRST?
      scrab solve boards/wwf-midgame.txt --rules wwf --rack QUIZ??E --json
    """
    from solver_cli.alphabet import parse_rack, rack_text
    from solver_cli.board import parse_board
    from solver_cli.rules import load_rules
    from solver_cli.solver import solve as run_solve

    try:
        rule_set = load_rules(rules)
        text, name = read_board_text(board)
        grid = parse_board(text, rule_set, name)
        counts = parse_rack(rack, rule_set.rack_size)
        lex = load_lexicon_for(lexicon, rule_set, as_json)
        moves = run_solve(grid, counts, lex.gaddag, rule_set, limit=None if show_all else top)
    except ScrabError as exc:
        raise fail(exc) from None

    if as_json:
        from solver_cli.render import moves_json

        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "rack": rack_text(counts),
            "board": name,
            "total_moves": moves.total,
            "moves": moves_json(moves.moves),
        }
        click.echo(json.dumps(payload))
        return
    from solver_cli.render import print_moves

    print_moves(moves.moves, moves.total, rule_set, lex.name, rack_text(counts))


def main() -> None:
    cli()

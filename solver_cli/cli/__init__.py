"""The ``scrab`` command line: parses options, calls the library, renders the result.

Results go to stdout (a Rich table, or JSON with ``--json``); warnings, errors and progress
go to stderr. Exit status: 0 success, 1 a failed check, 2 bad usage or bad input.

Each command lives in its own module and is registered here with ``add_command``; no
command module imports this one, so there is no import cycle.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from solver_cli import __version__
from solver_cli.cli.bench import bench
from solver_cli.cli.boggle import boggle
from solver_cli.cli.cache import cache
from solver_cli.cli.explain import explain
from solver_cli.cli.play import play
from solver_cli.cli.review import review
from solver_cli.cli.selfplay import selfplay
from solver_cli.cli.solve import solve
from solver_cli.cli.words import anagram, check, hooks, pattern


def _stdout_to_devnull() -> None:
    """After the reader of a pipe went away: later writes and the flush at exit go nowhere."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class ScrabGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # `scrab solve ... | head`: the reader has what it wanted. Click would exit with
            # status 1; the convention is a quiet 0.
            _stdout_to_devnull()
            raise click.exceptions.Exit(0) from None


@click.group(cls=ScrabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scrab")
def cli() -> None:
    """scrab: every legal Scrabble / Words with Friends move, exactly scored, from a GADDAG."""


for command in (solve, play, explain, review, hooks, anagram, pattern, check, selfplay, boggle, bench, cache):
    cli.add_command(command)


def main() -> None:
    # Click's own standalone mode would let an OSError on stdout (a full disk) escape as a
    # traceback, so errors are handled here; ctx.exit(n) comes back as the return value.
    try:
        # One name, so `_SCRAB_COMPLETE=bash_source scrab` makes the completion script,
        # under `python -m solver_cli` too.
        code = cli(prog_name="scrab", complete_var="_SCRAB_COMPLETE", standalone_mode=False)
        sys.stdout.flush()
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # The reader went away during the final flush: not an error either.
        _stdout_to_devnull()
        sys.exit(0)
    except OSError as exc:
        click.echo(f"Error: cannot write output: {exc.strerror or exc}", err=True)
        with contextlib.suppress(OSError):
            sys.stdout.close()
        sys.exit(1)

"""The ``scrab`` command line: parses options, calls the library, renders the result.

Results go to stdout (a Rich table, or JSON with ``--json``); warnings, errors and progress
go to stderr. Exit status: 0 success, 1 a failed check or a failed write, 2 bad usage or bad input,
130 stopped by Ctrl-C or SIGTERM.

Every exit-2 error is one line on stderr, ``Error: ...``, whoever finds it: bad input (what a
value says: out of range, empty, bad letters, a file that cannot be read) names the value;
a usage error (which options and arguments are given: one unknown, missing, conflicting, or
given without the one it needs) ends with a pointer to the command's ``--help``. Click's
own usage errors are turned into that line too (``one_line``), instead of its usage block.

Each command lives in its own module, named in ``COMMANDS`` and imported when it runs; no
command module imports this one, so there is no import cycle.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import threading
import time
from typing import Any, NoReturn, TextIO, cast

import click

from solver_cli import __version__

# Each command's module, imported only when the command runs (or --help lists them all), so
# `scrab solve --json` does not pay for the imports of review, bench or Boggle.
COMMANDS = {
    "solve": "solver_cli.cli.solve:solve",
    "play": "solver_cli.cli.play:play",
    "explain": "solver_cli.cli.explain:explain",
    "infer": "solver_cli.cli.infer:infer",
    "endgame": "solver_cli.cli.endgame:endgame",
    "review": "solver_cli.cli.review:review",
    "peg": "solver_cli.cli.peg:peg",
    "hooks": "solver_cli.cli.words:hooks",
    "anagram": "solver_cli.cli.words:anagram",
    "pattern": "solver_cli.cli.words:pattern",
    "check": "solver_cli.cli.words:check",
    "selfplay": "solver_cli.cli.selfplay:selfplay",
    "sim": "solver_cli.cli.sim:sim",
    "boggle": "solver_cli.cli.boggle:boggle",
    "bench": "solver_cli.cli.bench:bench",
    "cache": "solver_cli.cli.cache:cache",
    "leaves": "solver_cli.cli.leaves:leaves",
    "lexicons": "solver_cli.cli.lexicons:lexicons",
    "winpct": "solver_cli.cli.winpct:winpct",
}


def load_command(cmd_name: str) -> click.Command | None:
    """The command named ``cmd_name``, its module imported; None if there is none."""
    target = COMMANDS.get(cmd_name)
    if target is None:
        return None
    module, name = target.split(":")
    command = getattr(importlib.import_module(module), name)
    assert isinstance(command, click.Command)
    return command


def _stdout_to_devnull() -> None:
    """After the reader of a pipe went away: later writes and the flush at exit go nowhere."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class ScrabGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: object
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise  # plain `scrab`: the help
        except click.UsageError as exc:  # `scrab --bogus`
            raise one_line(exc) from None

    def invoke(self, ctx: click.Context) -> object:
        args = [*ctx._protected_args, *ctx.args]  # the command and its arguments, taken by super()
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            if exc.ctx is None:
                # Click's parser raises some errors (an option missing its value) without
                # the command's context: find it, so the pointer names that command's help.
                exc.ctx = _command_context(ctx, args)
            raise one_line(exc) from None
        except BrokenPipeError:
            # `scrab solve ... | head`: the reader has what it wanted. Click would exit with
            # status 1; the convention is a quiet 0 (130 when the command was stopping).
            _reader_gone()
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM where the command had no partial result to show (the long
            # ones, selfplay and training, catch it themselves): one line, status 130, not
            # Click's blank line and "Aborted!" with status 1.
            from solver_cli.cli._common import stopped

            raise stopped("interrupted") from None


def _command_context(ctx: click.Context, args: list[str]) -> click.Context:
    """The context of the command ``args`` name under the group of ``ctx`` (``leaves
    train``), its options parsed leniently; as deep as can be told, ``ctx`` at worst."""
    try:
        while isinstance(ctx.command, click.Group) and args:
            name, command, rest = ctx.command.resolve_command(ctx, args)
            if name is None or command is None:
                break
            if not isinstance(command, click.Group):
                return click.Context(command, info_name=name, parent=ctx)
            ctx = command.make_context(name, rest, parent=ctx, resilient_parsing=True)
            args = [*ctx._protected_args, *ctx.args]
    except click.ClickException:
        pass
    return ctx


def one_line(exc: click.UsageError) -> click.ClickException:
    """A usage error as the one ``Error:`` line every exit-2 error is: a value Click's types
    refuse (``--top 0``, ``--sort x``) as it is, bad input like any other bad value; any
    other (a missing, unknown or conflicting option or argument) with a pointer to the
    command's ``--help`` instead of Click's usage block."""
    from solver_cli.cli._common import BadInput

    message = exc.format_message()
    if isinstance(exc, click.BadParameter) and not isinstance(exc, click.MissingParameter):
        return BadInput(message)
    where = exc.ctx.command_path if exc.ctx is not None else "scrab"
    return BadInput(f"{message.rstrip('.')} (see '{where} --help')")


@click.group(cls=ScrabGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scrab")
def cli() -> None:
    """scrab: every legal Scrabble / Words with Friends move, exactly scored, from a GADDAG."""


def all_commands() -> dict[str, click.Command]:
    """Every command by name, imported (for the tests and the docs)."""
    ctx = click.Context(cli)
    commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    return {name: command for name, command in commands.items() if command is not None}


# The time of the first Ctrl-C or SIGTERM (None: none yet); whether stdout is being written,
# and a stop asked meanwhile, held until the write is done.
_first_stop: float | None = None
_writing = False
_stop_held = False
# A later signal this long after the first forces the exit, if the stop is still under way.
FORCE_AFTER_SECONDS = 5.0


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM: the command stops (KeyboardInterrupt), once. Later ones are ignored:
    the stop under way, which prints the partial results, is the one asked for, and a second
    signal (`timeout -s INT` sends one to the process and one to its group; a quick double
    Ctrl-C) would otherwise interrupt that, losing the results or leaving half a document.
    A stop asked while stdout is written (blocked on a full pipe) waits for the write: a
    JSON document is written whole or not at all. A signal FORCE_AFTER_SECONDS or more after
    the first ends the process at once, should the stop hang (a reader that never reads)."""
    global _first_stop, _stop_held
    now = time.monotonic()
    if _first_stop is not None:
        if now - _first_stop >= FORCE_AFTER_SECONDS:
            _force_exit()
        return
    _first_stop = now
    if _writing:
        _stop_held = True
        return
    raise KeyboardInterrupt


def _force_exit() -> NoReturn:
    with contextlib.suppress(OSError):
        os.write(2, b"Stopped: forced (asked again while the first stop had not finished)\n")
    os._exit(130)


class _WholeWrites:
    """sys.stdout, each write of the main thread finished before a stop takes effect (see
    ``_interrupt``); everything else is the stream's own. On POSIX the text goes to the file
    descriptor by os.write, each partial write followed by the rest: a signal that interrupts
    a write to a pipe makes CPython's buffered stream drop the rest of that write (3 MB of
    JSON, 64 KiB out), even with a handler that returns."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        try:
            self._fd: int | None = stream.fileno() if os.name == "posix" else None
        except (AttributeError, OSError, ValueError):
            self._fd = None

    def write(self, text: str) -> int:
        global _writing, _stop_held
        if _writing or threading.current_thread() is not threading.main_thread():
            return self._stream.write(text)
        _writing = True
        try:
            if self._fd is None:
                return self._stream.write(text)
            self._stream.flush()  # (anything written another way first)
            data = memoryview(text.encode(self._stream.encoding or "utf-8", self._stream.errors or "strict"))
            while data:
                data = data[os.write(self._fd, data) :]
            return len(text)
        finally:
            _writing = False
            if _stop_held:
                _stop_held = False
                raise KeyboardInterrupt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _reader_gone() -> NoReturn:
    """stdout's reader went away: a quiet 0 (`scrab ... | head` has what it wanted), unless
    the command was stopping: Ctrl-C on a pipeline ends the reader too, and the stop is
    still a stop (status 130, its one line)."""
    from solver_cli.cli._common import stop_said

    _stdout_to_devnull()
    if _first_stop is not None:
        if not stop_said():
            click.echo("Stopped: interrupted", err=True)
        sys.exit(130)
    sys.exit(0)


def main() -> None:
    # SIGTERM stops a command as Ctrl-C does (its partial results, one "Stopped:" line,
    # status 130), where by default it would end the process with nothing said or cleaned.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    stdout = sys.stdout
    if stdout is not None:  # (None under pythonw)
        sys.stdout = cast(TextIO, _WholeWrites(stdout))
    # Click's own standalone mode would let an OSError on stdout (a full disk) escape as a
    # traceback, so errors are handled here; ctx.exit(n) comes back as the return value.
    try:
        # One name, so `_SCRAB_COMPLETE=bash_source scrab` makes the completion script,
        # under `python -m solver_cli` too.
        code = cli(prog_name="scrab", complete_var="_SCRAB_COMPLETE", standalone_mode=False)
        sys.stdout.flush()
        sys.exit(code if isinstance(code, int) else 0)
    except KeyboardInterrupt:  # (a stop held by the last flush, or after the command's end)
        click.echo("Stopped: interrupted", err=True)
        sys.exit(130)
    except click.exceptions.Abort:  # (an interrupt before the command started)
        click.echo("Stopped: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # The reader went away during the final flush: not an error either.
        _reader_gone()
    except OSError as exc:
        click.echo(f"Error: cannot write output: {exc.strerror or exc}", err=True)
        with contextlib.suppress(OSError):
            sys.stdout.close()
        sys.exit(1)

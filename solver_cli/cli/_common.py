"""What every command shares: error mapping, warnings, shared options, the lexicon loader
with its progress bar, and the console. No command module imports the root group."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import click

from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem
    from rich.console import Console

    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.engine.rules import Rules
    from solver_cli.lexicon import Lexicon

F = TypeVar("F", bound=Callable[..., Any])


class BadInput(click.ClickException):
    """Bad input (board, rack, word list, rules): one line on stderr, exit status 2."""

    exit_code = 2


def to_click_error(exc: ScrabError) -> click.ClickException:
    """The library's exception as the Click error that prints it (exit 2 for bad input)."""
    if isinstance(exc, InputError):
        return BadInput(str(exc))
    return click.ClickException(str(exc))


def warn(message: str) -> None:
    click.echo(f"Warning: {message}", err=True)


def shipped_rule_sets() -> list[str]:
    from solver_cli.engine.rules import shipped_rule_sets as names

    return names()


def shipped_lexicons() -> tuple[str, list[str]]:
    """The default word list's name, and every shipped list's name."""
    from solver_cli.lexicon.wordlist import DEFAULT_LEXICON
    from solver_cli.lexicon.wordlist import shipped_lexicons as names

    return DEFAULT_LEXICON, names()


# --- shell completion: shipped names, and the shell's own file-name completion ----------------


def _complete_names(names: list[str], incomplete: str) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem

    # Click's bash script empties its list at a "file" item, then lets bash complete file
    # names only if the list stays empty: so the file item comes first, and matching shipped
    # names win. zsh and fish offer both.
    items = [CompletionItem(incomplete, type="file")]
    if "/" not in incomplete and "." not in incomplete:
        items += [CompletionItem(name) for name in names if name.lower().startswith(incomplete.lower())]
    return items


def complete_path(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """A file argument (BOARD, GRID): the shell completes file names."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


def complete_rules(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return _complete_names(shipped_rule_sets(), incomplete)


def complete_lexicon(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The shipped lists, then the user's own that a name picks (see ``scrab lexicons``)."""
    from solver_cli.lexicon.wordlist import user_lexicons

    own = [found.name for found in user_lexicons()[1] if found.shadowed_by is None]
    return _complete_names(shipped_lexicons()[1] + own, incomplete)


# --- shared options ----------------------------------------------------------------------------


def lexicon_options(func: F) -> F:
    """``--lexicon`` and ``--rules``, shared by every command that reads words."""
    func = lexicon_option(func)
    func = rules_option(func)
    return func


def rules_option(func: F) -> F:
    names = ", ".join(shipped_rule_sets())
    return click.option(
        "--rules",
        "-r",
        metavar="NAME|PATH",
        default="scrabble",
        show_default=True,
        shell_complete=complete_rules,
        callback=_check_rules_value,
        help=f"Rule set: a shipped one ({names}; any case) or a .toml file.",
    )(func)


def _check_rules_value(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``-r AEIRST`` (a rack given to --rules, as -r might be read) or ``--rules sowpods`` (a
    word list): say which option was meant. Any other value is left to the rules loader."""
    import re

    from solver_cli._io import path_exists
    from solver_cli.engine.rules import shipped_rule_name

    if value is None or shipped_rule_name(value) is not None or value.lower().endswith(".toml") or path_exists(value):
        return value
    unknown = f"unknown rule set {value!r} (shipped: {', '.join(shipped_rule_sets())})"
    if value.lower() in shipped_lexicons()[1]:
        raise BadInput(f"{unknown}; did you mean --lexicon? ({value} is a word list)")
    takes_rack = any(p.name == "rack" and isinstance(p, click.Option) for p in ctx.command.params)
    # Letters in capitals or with a blank, as racks are written ('chess' reads as a name).
    if takes_rack and re.fullmatch(r"[A-Za-z?]{1,15}", value) and ("?" in value or value.isupper()):
        raise BadInput(f"{unknown}; did you mean --rack? (-r is short for --rules)")
    return value


def lexicon_option(func: F) -> F:
    default, names = shipped_lexicons()
    shown = ", ".join(f"{name} [default]" if name == default else name for name in names)
    return click.option(
        "--lexicon",
        "-l",
        metavar="NAME|PATH",
        default=None,
        shell_complete=complete_lexicon,
        help=f"Word list: a shipped one ({shown}; any case), one of your own by name (see scrab lexicons) "
        "or a word-list file.",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")(func)


RANKS = ("equity", "score")


def rank_option(func: F) -> F:
    return click.option(
        "--rank",
        type=click.Choice(RANKS),
        default="equity",
        show_default=True,
        help="Rank moves by equity (score plus the value of the tiles kept; exchanges and the pass "
        "included) or by score alone.",
    )(func)


def leaves_option(func: F) -> F:
    return click.option(
        "--leaves",
        "leaves_path",
        metavar="FILE",
        default=None,
        shell_complete=complete_path,
        help="With --rank equity: the leave values in FILE (from scrab leaves train) instead of the shipped ones.",
    )(func)


class Ranking(NamedTuple):
    """What orders the moves: ``leaves`` None ranks by score."""

    leaves: LeaveTable | None
    phrase: str  # for titles, after "by": "score", "equity (scrabble-kjxqz leaves)"
    table: str | None  # JSON "leaves": the table's name, the --leaves file, "zero"; None by score

    @property
    def name(self) -> str:
        return "score" if self.leaves is None else "equity"


def check_rank(ctx: click.Context, rank: str, leaves_path: str | None) -> None:
    """--leaves with --rank score is a usage error (checked before any work); an empty
    --leaves is bad input."""
    if leaves_path is None:
        return
    if rank == "score":
        raise click.UsageError("--leaves applies only with --rank equity (the default)", ctx)
    if not leaves_path.strip():
        raise BadInput("--leaves: the file name is empty")


def choose_ranking(rank: str, leaves_path: str | None, rules: Rules, lexicon: str | None) -> Ranking:
    """The ranking ``--rank`` and ``--leaves`` ask for, for ``rules`` and the word list
    ``lexicon`` (a name or path, None for the default). When no table is trained for them,
    the note saying so is a warning; so is a ``--leaves`` file trained for other rules.
    Raises the library's ``InputError`` for a file that is not a leave table."""
    if rank == "score":
        return Ranking(None, "score", None)
    from solver_cli.formats.leavefile import table_for
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    table, note = table_for(rules.name, lexicon_label(lexicon), leaves_path, own_list=is_own_lexicon(lexicon))
    if note:
        warn(note)
    if leaves_path is not None:
        trained = table.info.get("rules")
        if trained != rules.name:
            warn(f"--leaves {leaves_path} holds leave values trained for {trained}, not {rules.name}")
        return Ranking(table, f"equity (leaves from {leaves_path})", leaves_path)
    if note is not None and table.name == "zero":
        return Ranking(table, "equity (all leaves 0)", table.name)
    return Ranking(table, f"equity ({table.name} leaves)", table.name)


# --- options that conflict or mean nothing -------------------------------------------------------


def given(ctx: click.Context, name: str) -> bool:
    """Whether the option with parameter name ``name`` was given, rather than defaulted."""
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


def option_name(ctx: click.Context, name: str, option: str) -> str:
    """``option`` as an error names it, with its short form if it has one (``--top (-n)``),
    so whichever of the two was typed, the message names it."""
    for param in ctx.command.params:
        if param.name == name:
            short = [o for o in param.opts if not o.startswith("--")]
            if short and option not in short:
                return f"{option} ({short[0]})"
    return option


def refuse_together(ctx: click.Context, first: tuple[str, str], second: tuple[str, str], why: str = "") -> None:
    """A usage error (exit 2) when both options are given; each is (parameter name, option)."""
    if given(ctx, first[0]) and given(ctx, second[0]):
        one, other = option_name(ctx, *first), option_name(ctx, *second)
        raise click.UsageError(f"{one} cannot be used with {other}" + (f": {why}" if why else ""), ctx)


def require(ctx: click.Context, option: tuple[str, str], needs: tuple[str, str]) -> None:
    """A usage error (exit 2) when ``option`` is given without ``needs``."""
    if given(ctx, option[0]) and not given(ctx, needs[0]):
        raise click.UsageError(f"{option_name(ctx, *option)} applies only with {option_name(ctx, *needs)}", ctx)


def refuse_empty_rack(rack: str | None) -> None:
    """``--rack ''``: bad input, with an example quoted for the shell (checked here, before
    the library, whose message names no option)."""
    if rack is not None and not rack.strip():
        raise BadInput("--rack is empty: give its letters, e.g. --rack 'AEIRST?' (? is a blank)")


MAX_RANK_DIGITS = 9


def parse_rank(text: str) -> int | None:
    """A move's rank (1 is the best) written in ASCII digits; None when ``text`` is not a
    number (``²`` is not one, though ``str.isdigit`` says so); InputError for 0 or a huge one."""
    if not (text.isascii() and text.isdigit()):
        return None
    if len(text.lstrip("0")) > MAX_RANK_DIGITS:
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise InputError(f"rank {shown} is too large")
    rank = int(text)
    if rank < 1:
        raise InputError(f"rank {text}: ranks start at 1 (the best move)")
    return rank


# --- stopping early and worker processes ---------------------------------------------------------

STOPPED = 130  # a run stopped by Ctrl-C or SIGTERM: the shell's status for SIGINT (128 + 2)


_stop_said = False


def say_stopped(message: str) -> None:
    """The one ``Stopped:`` line of a command that Ctrl-C or SIGTERM stopped, on stderr."""
    global _stop_said
    _stop_said = True
    click.echo(f"Stopped: {message}", err=True)


def stop_said() -> bool:
    """Whether the ``Stopped:`` line was printed (so that no second one is)."""
    return _stop_said


def stopped(message: str) -> click.exceptions.Exit:
    """The end of a command that Ctrl-C or SIGTERM stopped: ``message`` as one ``Stopped:``
    line on stderr, and the exit (status 130) to raise once its partial results are out."""
    say_stopped(message)
    return click.exceptions.Exit(STOPPED)


def jobs_option(capped_at: str) -> Callable[[F], F]:
    """``--jobs``/``-j`` for the commands that play on worker processes; ``capped_at`` says
    what the work allows at once, as the help shows it (the cap is ``note_jobs``')."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help=f"Worker processes (at most {capped_at}, and 2 per CPU).",
    )


def note_jobs(jobs: int, used: int, work: int, unit: str) -> None:
    """A one-line note on stderr when ``--jobs`` was capped: to ``work`` (``unit``s that can
    run at once) or to the most worker processes scrab starts for this machine's CPUs."""
    if used >= jobs:
        return
    from solver_cli._text import plural
    from solver_cli.games.workers import WORKERS_PER_CPU, cpu_count

    why = (
        f"{unit} that can run at once: {work:,}"
        if used == work
        else f"at most {WORKERS_PER_CPU} per CPU, {plural(cpu_count(), 'CPU')} here"
    )
    click.echo(f"Note: --jobs {jobs:,}: using {plural(used, 'worker process', 'worker processes')} ({why})", err=True)


# --- output --------------------------------------------------------------------------------------


def console(stderr: bool = False, record: bool = False) -> Console:
    # Markup off: words such as RE(T)AINS or [A] are never read as Rich markup.
    return _console_class()(stderr=stderr, markup=False, emoji=False, highlight=False, record=record)


def print_wrapped(out: Console, text: str, style: str = "", indent: int = 0) -> None:
    """``text`` wrapped between words to the console's width, no line ending in a space
    (Rich's own wrapping leaves the space it breaks at), the lines after the first
    ``indent`` spaces in (under a numbered item's text)."""
    import textwrap

    width = max(out.width, 20 + indent)
    for line in textwrap.wrap(text, width, break_on_hyphens=False, subsequent_indent=" " * indent) or [""]:
        out.print(line, style=style or None, soft_wrap=True)


@functools.cache
def _console_class() -> type[Console]:
    from rich.console import Console

    class QuietPipeConsole(Console):
        def on_broken_pipe(self) -> None:
            # Rich would exit with status 1; a closed pipe (`scrab ... | head`) is no error:
            # main() ends quietly with status 0, as it does for JSON.
            self.quiet = True
            raise BrokenPipeError

    return QuietPipeConsole


def check_writable(path: str, option: str) -> None:
    """Refuse, before any work is done (and so before anything is printed), an output file
    that cannot be written: an empty name, a folder, a file in a folder that does not exist,
    or what the atomic write would refuse (a FIFO, a device, a link to nothing, a loop of
    links, another user's link)."""
    from solver_cli._io import check_target

    if not path.strip():
        raise BadInput(f"{option}: the file name is empty")
    target = Path(path)
    try:
        if target.is_dir():
            raise BadInput(f"{option}: cannot write {path}: it is a directory")
        if not target.parent.is_dir():
            raise BadInput(f"{option}: cannot write {path}: the folder {target.parent} does not exist")
        check_target(target)
    except InputError as exc:  # "cannot write PATH: why", as the write itself would say
        raise BadInput(f"{option}: {exc}") from None
    except (OSError, ValueError) as exc:  # a name the OS refuses (too long, a NUL byte)
        raise BadInput(f"{option}: cannot write {path}: {getattr(exc, 'strerror', None) or exc}") from None


def save_svg(out: Console, path: str, title: str, option: str = "--svg") -> None:
    """What ``out`` printed (a console made with ``record=True``) as an SVG image in ``path``,
    written atomically: if writing fails, an old file of that name stays whole. The file was
    checked by ``check_writable`` before anything was printed; what changed since is still
    one error line."""
    write_output(path, out.export_svg(title=title), option)


def write_output(path: str, content: str | bytes, option: str) -> None:
    """``content`` written atomically to ``path``, the file an option names (checked by
    ``check_writable`` before any work). A target refused now (it changed since) is bad input,
    exit 2; a write that fails (a full disk, no permission) exit 1: the input was fine."""
    from solver_cli._io import write_atomically

    try:
        write_atomically(Path(path), content)
    except InputError as exc:
        raise BadInput(f"{option}: {exc}") from None
    except OSError as exc:
        raise click.ClickException(f"{option}: cannot write {path}: {exc.strerror or exc}") from None


@contextmanager
def progress_bar(
    enabled: bool, description: str, total: float, *, counted: bool = False, lazy: bool = False
) -> Iterator[Callable[[float], None] | None]:
    """A Rich progress bar on stderr, only on a terminal (never with ``--json``). Yields
    ``update(completed)``, or None when no bar is shown. ``lazy``: the bar appears at the
    first update, so work that turns out to be instant (a warm cache) shows nothing."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn("{task.description}"), BarColumn()]
    columns += (
        [MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn()]
        if counted
        else [
            TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(),
        ]
    )
    progress = Progress(*columns, console=console(stderr=True), transient=True)
    task = progress.add_task(description, total=total)
    started = False

    def update(completed: float) -> None:
        nonlocal started
        if not started:
            progress.start()
            started = True
        progress.update(task, completed=completed)

    if not lazy:
        update(0)
    try:
        yield update
    finally:
        if started:
            progress.stop()


# Share of the build each phase takes, for one bar across both.
_BUILD_PHASES = {"dawg": (0.0, 0.3), "gaddag": (0.3, 0.7)}


def load_lexicon_for(lexicon: str | None, max_length: int, quiet: bool) -> Lexicon:
    """Load (or build and cache) a lexicon; a progress bar while a GADDAG is built."""
    from solver_cli.lexicon import load_lexicon

    with progress_bar(not quiet, "Building GADDAG (first use of this word list)", 1.0, lazy=True) as update:
        build_progress = None
        if update is not None:
            bar = update

            def build_progress(phase: str, fraction: float) -> None:
                begin, span = _BUILD_PHASES.get(phase, (0.0, 1.0))
                bar(begin + span * fraction)

        return load_lexicon(lexicon, max_length, progress=build_progress, warn=warn)

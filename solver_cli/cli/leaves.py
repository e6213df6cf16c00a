"""The ``leaves`` commands: look leave values up, and train a table by self-play."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from solver_cli._text import plural
from solver_cli.cli._common import (
    BadInput,
    check_writable,
    complete_path,
    console,
    jobs_option,
    json_option,
    lexicon_options,
    load_lexicon_for,
    note_jobs,
    progress_bar,
    stopped,
    to_click_error,
)
from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from collections.abc import Callable

    from solver_cli.engine.leaves import LeaveTable


def leaves_file_option(func: Any) -> Any:
    return click.option(
        "--leaves",
        "leaves_path",
        metavar="FILE",
        default=None,
        shell_complete=complete_path,
        help="A leave file (from `scrab leaves train`) instead of the shipped values.",
    )(func)


@click.group()
def leaves() -> None:
    """Leave values: what the tiles a move keeps are worth (see docs/equity.md).

    \b
    Examples:
      scrab leaves show '?' S QU UU
      scrab leaves train --games 40 --rounds 2 -o /tmp/scrab-try.leaves
    """


@leaves.command()
@click.argument("leave_texts", metavar="LEAVE...", nargs=-1, required=True)
@lexicon_options
@leaves_file_option
@json_option
def show(leave_texts: tuple[str, ...], rules: str, lexicon: str | None, leaves_path: str | None, as_json: bool) -> None:
    """The value of each LEAVE (letters, ? a blank), in points.

    Values are trained per rule set and word list; a leave of 7 tiles (what a pass keeps)
    is the mean of its 6-tile leaves.

    \b
    Examples:
      scrab leaves show '?' S Q QU UU 'ERS?'
      scrab leaves show AEI ERS --rules wwf --json
    """
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.engine.rules import load_rules
    from solver_cli.formats.leavefile import table_for
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    try:
        rule_set = load_rules(rules)
        parsed = []
        for text in leave_texts:
            if not text.strip():
                raise BadInput("a LEAVE is empty: give its letters, e.g. 'ERS?'")
            parsed.append((text.strip().upper(), parse_rack(text, rule_set.rack_size, "leave")))
        own = leaves_path is None and is_own_lexicon(lexicon)
        table, note = table_for(rule_set.name, lexicon_label(lexicon), leaves_path, own_list=own)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if note:
        click.echo(f"Warning: {note}", err=True)
    values = {text: table.value(counts) / 1000 for text, counts in parsed}
    if as_json:
        click.echo(json.dumps({"rules": rule_set.name, "table": table.name, "leaves": values}))
        return
    from rich.table import Table

    shown = Table(header_style="bold")
    shown.add_column("Leave")
    shown.add_column("Value", justify="right")
    for text, value in values.items():
        shown.add_row(text, f"{value:+.2f}")
    out = console()
    out.print(f"Leave values from {table.name}, in points ({rule_set.name})")
    out.print(shown)


@leaves.command()
@lexicon_options
@click.option("--games", "-g", type=click.IntRange(min=1), required=True, help="Games to play, over all rounds.")
@click.option("--rounds", type=click.IntRange(1, 12), default=4, show_default=True, help="Rounds (see docs).")
@jobs_option("one per batch of 500 games in a round")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed for every game's tile bag.")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="A Dask scheduler (tcp://host:8786) to play the games on; needs pip install 'scrab[dask]'.",
)
@click.option(
    "--resume",
    metavar="FILE",
    default=None,
    shell_complete=complete_path,
    help="Go on from a checkpoint (the -o file of a training that stopped).",
)
@click.option(
    "--output",
    "-o",
    metavar="FILE",
    default=None,
    shell_complete=complete_path,
    help="Where to write the table (after every round too). Needed but for a word list of your "
    "own by name, whose table goes where scrab finds it (see scrab lexicons).",
)
@json_option
@click.pass_context
def train(
    ctx: click.Context,
    rules: str,
    lexicon: str | None,
    games: int,
    rounds: int,
    jobs: int,
    seed: int,
    scheduler: str | None,
    resume: str | None,
    output: str | None,
    as_json: bool,
) -> None:
    """Train leave values by self-play and write them to FILE.

    Each round plays games between equity players using the table so far (all zeros at
    first: greedy), records how good each full rack turned out, and from that values every
    leave (docs/equity.md). The same --seed gives the same file, whatever --jobs or
    --scheduler. The table is written after every round, so an interrupted training goes
    on with --resume FILE. The shipped tables took --games 600000 --jobs 2: about half an
    hour each on two cores. For a word list of your own by name (--lexicon NWL2023) -o may
    be left out: the table goes to your data folder, where solve finds it.

    \b
    Examples:
      scrab leaves train --games 40 --rounds 2 --jobs 2 -o /tmp/scrab-try.leaves
      scrab leaves train --rules wwf --games 60 --rounds 1 --seed 7 -o /tmp/scrab-wwf.leaves
    """
    import logging

    from solver_cli._io import check_can_write
    from solver_cli.engine.rules import load_rules
    from solver_cli.formats.leavefile import read_leaves, write_leaves
    from solver_cli.games.leavegen import check_scheduler, check_trainable, most_batches, resume_point, training_plan
    from solver_cli.games.leavegen import train as run_training
    from solver_cli.games.workers import capped_jobs
    from solver_cli.lexicon.wordlist import lexicon_label

    # Everything that would stop the training is checked before the first game (and before
    # the word list is read): the settings, the rules, the output, the checkpoint.
    try:
        rule_set = load_rules(rules)
        check_trainable(rule_set)
        plan = training_plan(games, rounds, seed)  # (the defaults of batch and smoothing, as below)
        sizes = plan["rounds"]
        if output is None:
            output = own_table_path(ctx, rule_set.name, lexicon)
        if scheduler is not None:
            scheduler = check_scheduler(scheduler)
        check_writable(output, "--output")
        try:
            check_can_write(Path(output))
        except ScrabError as exc:
            raise BadInput(f"--output: {exc}") from None
        checkpoint_table = read_leaves(resume) if resume is not None else None
        if checkpoint_table is not None:
            try:
                resume_point(checkpoint_table.info, plan, rule_set)
            except ScrabError as exc:
                raise BadInput(f"--resume {resume}: {exc}") from None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if scheduler is None:
        work = most_batches(sizes)
        note_jobs(jobs, capped_jobs(jobs, work), work, "batches of games")

    # The last checkpoint written, for the command that goes on from it if training stops.
    latest: tuple[str, int] | None = None
    if resume is not None and checkpoint_table is not None:
        latest = (resume, int(str(checkpoint_table.info.get("round", 0))))

    def save(table: LeaveTable, info: dict[str, Any]) -> None:
        nonlocal latest
        try:
            write_leaves(Path(output), table, info)
        except OSError as exc:
            raise ScrabError(f"cannot write {output}: {exc.strerror or exc}") from None
        latest = (output, int(info["round"]))

    def how_to_go_on() -> str:
        """Where training stands, and the command that goes on from its last checkpoint."""
        if latest is None or latest[1] == 0:
            return "no round finished, so nothing was saved: run the same command again"
        path, done = latest
        words = ["scrab", "leaves", "train", "--games", str(games), "--rounds", str(rounds), "--seed", str(seed)]
        for option, value in (("--rules", rules), ("--lexicon", lexicon), ("--scheduler", scheduler)):
            if value is not None and (option != "--rules" or value != "scrabble"):
                words += [option, value]
        if jobs > 1:
            words += ["--jobs", str(jobs)]
        words += ["--resume", path, "-o", output] + (["--json"] if as_json else [])
        return f"{path} holds round {done} of {len(sizes)}; go on with: {shlex.join(words)}"

    before = [sum(sizes[:r]) for r in range(len(sizes))]  # games in the rounds before each
    if scheduler is not None:
        # The Dask client logs to stderr (tracebacks when the cluster goes away, for as long
        # as it tries to reconnect); scrab says what failed in one line of its own.
        logging.disable(logging.CRITICAL)
    try:
        with progress_bar(not as_json, f"Training ({plural(len(sizes), 'round')})", games, counted=True) as update:

            def progress(done: int, total: int, round_no: int) -> None:
                if update is not None:
                    update(before[round_no - 1] + done)

            result = run_training(
                lex.gaddag,
                rule_set,
                lexicon_label(lexicon),
                games,
                rounds=rounds,
                jobs=jobs,
                seed=seed,
                scheduler=scheduler,
                resume=checkpoint_table,
                progress=progress,
                checkpoint=save,
            )
        save(result.table, result.info)  # (a resumed training that was already done wrote nothing yet)
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM
        raise stopped(f"training interrupted; {how_to_go_on()}") from None
    except InputError as exc:  # (found before any round was played)
        raise to_click_error(exc) from None
    except ScrabError as exc:
        raise click.ClickException(f"{exc}; {how_to_go_on()}") from None
    finally:
        logging.disable(logging.NOTSET)

    summary = {
        "rules": rule_set.name,
        "lexicon": lexicon_label(lexicon),
        "output": output,
        "games": games,
        "seed": seed,
        "rounds": [vars(r) for r in result.rounds],
        "seconds": round(result.seconds, 1),
    }
    if as_json:
        click.echo(json.dumps(summary))
        return
    out = console()
    out.print(
        f"Trained {rule_set.name} x {lex.name} leave values on {plural(games, 'game')} in {result.seconds:,.0f} s:"
    )
    for r in result.rounds:
        out.print(
            f"  round {r.round}: {plural(r.games, 'game')}, {plural(r.samples, 'rack')} seen "
            f"({r.racks:,} distinct), {r.seconds:,.0f} s"
        )
    out.print(f"Wrote {output}")


def own_table_path(
    ctx: click.Context,
    rules: str,
    lexicon: str | None,
    path_for: Callable[[str, str], Path] | None = None,
    what: str = "leave tables",
) -> str:
    """Where a table trained without -o goes: the user data folder's ``leaves/`` (or the
    file ``path_for`` names: ``winpct/`` for win tables), for a word list of the user's by
    name only (made 0700, as the cache folder is, and refused if others could write it); a
    usage error for any other list."""
    import os

    from solver_cli._data import untrusted_folder
    from solver_cli.formats.leavefile import user_leaves_path
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    path_for = path_for or user_leaves_path

    if not is_own_lexicon(lexicon):
        raise click.UsageError(
            "Missing option '--output': only a word list of your own, given by name, may leave it out", ctx
        )
    try:
        path = path_for(rules, lexicon_label(lexicon))
    except OSError as exc:
        raise BadInput(f"no data folder for the table: {exc}; give --output") from None
    for folder in (path.parent.parent, path.parent):
        try:
            os.makedirs(folder.parent, exist_ok=True)
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise BadInput(f"cannot create {folder}: {exc.strerror or exc}") from None
    try:
        problem = untrusted_folder(path.parent)
    except OSError as exc:
        raise BadInput(f"cannot use {path.parent}: {exc.strerror or exc}") from None
    if problem is not None:
        raise BadInput(f"cannot use {path.parent} for {what}: {problem}")
    return str(path)

"""The ``leaves`` commands: look leave values up, and train a table by self-play."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from solver_cli._text import plural
from solver_cli.cli._common import (
    BadInput,
    check_writable,
    complete_path,
    console,
    json_option,
    lexicon_options,
    load_lexicon_for,
    progress_bar,
    to_click_error,
)
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
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
    from solver_cli.lexicon.wordlist import lexicon_label

    try:
        rule_set = load_rules(rules)
        parsed = []
        for text in leave_texts:
            if not text.strip():
                raise BadInput("a LEAVE is empty: give its letters, e.g. 'ERS?'")
            parsed.append((text.strip().upper(), parse_rack(text, rule_set.rack_size, "leave")))
        table, note = table_for(rule_set.name, lexicon_label(lexicon), leaves_path)
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
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
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
    required=True,
    shell_complete=complete_path,
    help="Where to write the table (after every round too).",
)
@json_option
def train(
    rules: str,
    lexicon: str | None,
    games: int,
    rounds: int,
    jobs: int,
    seed: int,
    scheduler: str | None,
    resume: str | None,
    output: str,
    as_json: bool,
) -> None:
    """Train leave values by self-play and write them to FILE.

    Each round plays games between equity players using the table so far (all zeros at
    first: greedy), records how good each full rack turned out, and from that values every
    leave (docs/equity.md). The same --seed gives the same file, whatever --jobs or
    --scheduler. The table is written after every round, so an interrupted training goes
    on with --resume FILE. The shipped tables took --games 600000 --jobs 2: about half an
    hour each on two cores.

    \b
    Examples:
      scrab leaves train --games 40 --rounds 2 --jobs 2 -o /tmp/scrab-try.leaves
      scrab leaves train --rules wwf --games 60 --rounds 1 --seed 7 -o /tmp/scrab-wwf.leaves
    """
    from solver_cli.engine.rules import load_rules
    from solver_cli.formats.leavefile import read_leaves, write_leaves
    from solver_cli.games.leavegen import round_sizes
    from solver_cli.games.leavegen import train as run_training
    from solver_cli.lexicon.wordlist import lexicon_label

    try:
        rule_set = load_rules(rules)
        sizes = round_sizes(games, rounds)
        check_writable(output, "--output")
        checkpoint_table = read_leaves(resume) if resume is not None else None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
    except ScrabError as exc:
        raise to_click_error(exc) from None

    def save(table: LeaveTable, info: dict[str, Any]) -> None:
        try:
            write_leaves(Path(output), table, info)
        except OSError as exc:
            raise ScrabError(f"cannot write {output}: {exc.strerror or exc}") from None

    before = [sum(sizes[:r]) for r in range(len(sizes))]  # games in the rounds before each
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
    except ScrabError as exc:
        raise to_click_error(exc) from None

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

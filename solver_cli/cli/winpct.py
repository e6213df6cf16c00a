"""The ``winpct`` commands: look win probabilities up, and train a table by self-play."""

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
    given,
    jobs_option,
    json_option,
    lexicon_options,
    load_lexicon_for,
    note_jobs,
    print_wrapped,
    progress_bar,
    require,
    stopped,
    to_click_error,
)
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from solver_cli.engine.winpct import WinTable
    from solver_cli.games.winpct import Training

# What `show` prints without --spread and --unseen: a few spreads against a few counts of
# unseen tiles (from the end of the game, 1 to 7 the opponent's rack alone, to the opening).
SHOWN_SPREADS = (-100, -50, -25, -10, 0, 10, 25, 50, 100)
SHOWN_UNSEEN = (1, 2, 4, 7, 10, 20, 40, 60, 86)


@click.group()
def winpct() -> None:
    """Win probabilities: the chance the player to move wins, by spread and tiles unseen.

    \b
    Examples:
      scrab winpct show --spread 25 --unseen 7
      scrab winpct train --games 20 -o /tmp/scrab-try.winpct
    """


@winpct.command()
@click.argument("path", metavar="[FILE]", required=False, shell_complete=complete_path)
@click.option("--spread", type=int, default=None, help="The mover's score less the opponent's (with --unseen).")
@click.option(
    "--unseen", type=click.IntRange(min=0), default=None, help="Tiles the mover cannot see: bag and opponent's rack."
)
@lexicon_options
@json_option
@click.pass_context
def show(
    ctx: click.Context,
    path: str | None,
    spread: int | None,
    unseen: int | None,
    rules: str,
    lexicon: str | None,
    as_json: bool,
) -> None:
    """The chance the player to move wins, from FILE or the table for the rules and word list.

    With --spread and --unseen, the one value (a draw counts half; spreads beyond the
    table's range count as its ends); without them, a grid of a few of each, in percent.

    \b
    Examples:
      scrab winpct show --spread 25 --unseen 7
      scrab winpct show --json --spread -40 --unseen 20
    """
    from solver_cli.engine.rules import load_rules
    from solver_cli.engine.winpct import win_probability
    from solver_cli.formats.winpctfile import read_winpct, winpct_for
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    require(ctx, ("spread", "--spread"), ("unseen", "--unseen"))
    require(ctx, ("unseen", "--unseen"), ("spread", "--spread"))
    note = None
    try:
        if path is not None:
            table: WinTable | None = read_winpct(path)
        else:
            rule_set = load_rules(rules)
            table, note = winpct_for(rule_set.name, lexicon_label(lexicon), own_list=is_own_lexicon(lexicon))
            if table is None:
                raise BadInput(note or "no win probabilities")
        assert table is not None
        if unseen is not None:
            table.check_unseen(unseen)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if note:
        click.echo(f"Warning: {note}", err=True)
    info = table.info
    if spread is not None and unseen is not None:
        chance = win_probability(table, spread, unseen)
        if as_json:
            click.echo(json.dumps({"table": table.name, "spread": spread, "unseen": unseen, "win_probability": chance}))
            return
        clamped = max(-table.spread_max, min(table.spread_max, spread))
        taken = f" (taken as {clamped:+d})" if clamped != spread and unseen else ""
        click.echo(
            f"{chance:.1%} to win at a spread of {spread:+d}{taken} with {plural(unseen, 'tile')} unseen "
            f"({table.name}, {plural(_count(info, 'games'), 'game')})"
        )
        return
    unseen_shown = [u for u in SHOWN_UNSEEN if u <= table.unseen_max]
    grid = [[win_probability(table, s, u) for u in unseen_shown] for s in SHOWN_SPREADS]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "table": table.name,
                    "rules": info.get("rules"),
                    "lexicon": info.get("lexicon"),
                    "games": info.get("games"),
                    "samples": info.get("samples"),
                    "standard_error": info.get("standard_error"),
                    "spread_max": table.spread_max,
                    "spread_step": table.spread_step,
                    "unseen_max": table.unseen_max,
                    "spreads": list(SHOWN_SPREADS),
                    "unseen": unseen_shown,
                    "win_probability": grid,
                }
            )
        )
        return
    from rich.table import Table

    shown = Table(header_style="bold", title="tiles unseen →", title_justify="right")
    shown.add_column("Spread", justify="right")
    for u in unseen_shown:
        shown.add_column(str(u), justify="right")
    for s, row in zip(SHOWN_SPREADS, grid, strict=True):
        shown.add_row(f"{s:+d}", *(f"{100 * p:.0f}" for p in row))
    out = console()
    print_wrapped(
        out,
        f"Win % for the player to move, from {table.name} ({plural(_count(info, 'games'), 'game')}, "
        f"{plural(_count(info, 'samples'), 'turn')})",
    )
    out.print(shown)


@winpct.command()
@lexicon_options
@click.option("--games", "-g", type=click.IntRange(min=1), required=True, help="Games to play (in all, with --resume).")
@jobs_option("one per batch of 100 games")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed for every game's tile bag.")
@click.option(
    "--resume",
    metavar="FILE",
    default=None,
    shell_complete=complete_path,
    help="Go on from a table of this training (the -o file of one that stopped or played fewer games).",
)
@click.option(
    "--no-counts",
    "no_counts",
    is_flag=True,
    help="Write the probabilities only (a few KB, as the shipped tables; such a file cannot be resumed).",
)
@click.option(
    "--output",
    "-o",
    metavar="FILE",
    default=None,
    shell_complete=complete_path,
    help="Where to write the table. Needed but for a word list of your own by name, whose table goes where "
    "scrab finds it (see scrab lexicons).",
)
@json_option
@click.pass_context
def train(
    ctx: click.Context,
    rules: str,
    lexicon: str | None,
    games: int,
    jobs: int,
    seed: int,
    resume: str | None,
    no_counts: bool,
    output: str | None,
    as_json: bool,
) -> None:
    """Train win probabilities by self-play and write them to FILE.

    Equity players (the leave table trained for the rules) play --games games; every turn
    counts, in the cell of its spread and tiles unseen, whether its mover won; the counts
    are then smoothed (docs/equity.md). The same --seed gives the same file, whatever
    --jobs, and --resume FILE goes on from a table of the same training (stopped, or
    trained on fewer games) to the same file as one run. Ctrl-C writes the games finished.

    \b
    Examples:
      scrab winpct train --games 20 -o /tmp/scrab-try.winpct
      scrab winpct train --games 40 --resume /tmp/scrab-try.winpct -o /tmp/scrab-try.winpct
    """
    from solver_cli._io import check_can_write
    from solver_cli.cli.leaves import own_table_path
    from solver_cli.engine.rules import load_rules
    from solver_cli.formats.leavefile import table_for
    from solver_cli.formats.winpctfile import read_winpct, user_winpct_path, write_winpct
    from solver_cli.games.winpct import TrainingStopped, check_trainable, max_batches, resume_point, training_plan
    from solver_cli.games.winpct import train as run_training
    from solver_cli.games.workers import capped_jobs
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    label = lexicon_label(lexicon)
    # Everything that would stop the training is checked before the first game (and before
    # the word list is read): the rules, the output, the table to go on from.
    try:
        rule_set = load_rules(rules)
        check_trainable(rule_set)
        if output is None:
            output = own_table_path(ctx, rule_set.name, lexicon, user_winpct_path, "win tables")
        check_writable(output, "--output")
        try:
            check_can_write(Path(output))
        except ScrabError as exc:
            raise BadInput(f"--output: {exc}") from None
        leaves, leaves_note = table_for(rule_set.name, label, own_list=is_own_lexicon(lexicon))
        resumed = read_winpct(resume) if resume is not None else None
        done = 0
        if resumed is not None:
            try:
                done = resume_point(resumed, training_plan(leaves, seed), rule_set, label, games)
            except ScrabError as exc:
                raise BadInput(f"--resume {resume}: {exc}") from None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if leaves_note:
        click.echo(f"Warning: {leaves_note}", err=True)
    work = max_batches(games, done)
    note_jobs(jobs, capped_jobs(jobs, work), work, "batches of 100 games")

    def save(result: Training) -> None:
        assert output is not None
        try:
            write_winpct(Path(output), result.table, result.info, counts=not no_counts)
        except OSError as exc:
            raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None

    def report(result: Training, stopped_early: bool) -> None:
        summary = {
            "rules": rule_set.name,
            "lexicon": label,
            "leaves": leaves.name,
            "output": output,
            "games": result.games,
            "resumed_from": done,
            "seed": seed,
            "samples": result.info["samples"],
            "standard_error": result.info["standard_error"],
            "seconds": round(result.seconds, 1),
            "stopped": stopped_early,
        }
        if as_json:
            click.echo(json.dumps(summary))
            return
        error = result.info["standard_error"]
        # (plain lines: a long path is not wrapped)
        click.echo(
            f"Trained {rule_set.name} x {label} win probabilities on {plural(result.games, 'game')} "
            f"({plural(result.info['samples'], 'turn')}) in {result.seconds:,.0f} s"
        )
        click.echo(f"  standard error: {error['mean']:.1%} on average over the turns, at most {error['max']:.1%}")
        click.echo(f"Wrote {output}")

    try:
        with progress_bar(not as_json, "Playing games", games, counted=True) as update:
            result = run_training(
                lex.gaddag,
                rule_set,
                label,
                leaves,
                games,
                jobs=jobs,
                seed=seed,
                resume=resumed,
                progress=None if update is None else lambda counted, total: update(counted),
            )
    except TrainingStopped as exc:  # Ctrl-C or SIGTERM
        partial = exc.training
        if partial.games == done:
            kept = f"{resume} still holds {plural(done, 'game')}" if resume is not None and done else "nothing saved"
            raise stopped(f"training interrupted before a batch finished; {kept}") from None
        save(partial)
        report(partial, True)
        how = (
            "written with --no-counts, it cannot be gone on from"
            if no_counts
            else f"go on with: {shlex.join(_go_on(ctx, games, output))}"
        )
        raise stopped(
            f"training interrupted; {output} holds {plural(partial.games, 'game')} of {games:,}; {how}"
        ) from None
    except ScrabError as exc:
        raise to_click_error(exc) from None
    save(result)
    report(result, False)


def _count(info: dict[str, object], key: str) -> int:
    """A whole number of the header (the reader checked it)."""
    value = info.get(key, 0)
    return value if isinstance(value, int) else 0


def _go_on(ctx: click.Context, games: int, output: str) -> list[str]:
    """The command that goes on from the table a stopped training wrote to ``output``."""
    params: dict[str, Any] = ctx.params
    words = ["scrab", "winpct", "train", "--games", str(games), "--seed", str(params["seed"])]
    for option, name in (("--rules", "rules"), ("--lexicon", "lexicon")):
        if given(ctx, name) and params[name] is not None:
            words += [option, str(params[name])]
    if params["jobs"] > 1:
        words += ["--jobs", str(params["jobs"])]
    return [*words, "--resume", output, "-o", output] + (["--json"] if params["as_json"] else [])

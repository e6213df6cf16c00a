"""``scrab bench``: build, cache load, memory, move generation and the whole command, timed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import console, json_option, lexicon_option, to_click_error
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from rich.console import Console

    from solver_cli.bench import BenchResult, Figure


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
@click.option(
    "--endgames",
    type=click.IntRange(min=1, max=200),
    default=20,
    show_default=True,
    help="Shipped endgames (sowpods self-play) to solve exactly, each timed to its proven value.",
)
@click.option(
    "--endgame-time-limit",
    type=click.FloatRange(min=0, min_open=True, max=86_400),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="Time limit of each endgame search.",
)
@click.option(
    "--endgame-plies",
    type=click.IntRange(min=1, max=64),
    default=None,
    metavar="N",
    help="Search each endgame N plies deep (MAGPIE's fixed-depth measure) instead of to its proven value.",
)
@click.option("--skip-endgames", is_flag=True, help="Do not time the endgame solver.")
@click.option(
    "--sim-iterations",
    type=click.IntRange(min=1, max=100_000),
    default=128,
    show_default=True,
    metavar="N",
    help="Iterations of each of the 10 candidates in a simulation run (midgame, sowpods; --repeat runs on one "
    "process and on two).",
)
@click.option("--skip-sim", is_flag=True, help="Do not time the simulation.")
@click.option(
    "--engine",
    type=click.Choice(["native", "python", "both"]),
    default=None,
    help="Move generator(s) to time; both: side by side in one run. [default: the one in use]",
)
@json_option
def bench(
    lexicon: str | None,
    repeat: int,
    runs: int,
    builds: int,
    skip_build: bool,
    skip_command: bool,
    endgames: int,
    endgame_time_limit: float,
    endgame_plies: int | None,
    skip_endgames: bool,
    sim_iterations: int,
    skip_sim: bool,
    engine: str | None,
    as_json: bool,
) -> None:
    """Measure build, cache load, memory, move generation and the whole solve command.

    Figures are medians with min and max over repeated runs, on a fixed suite of positions
    (empty board, opening, mid-games, a crowded late board; 0, 1 and 2 blanks; Scrabble
    and Words with Friends), the exact endgame solver's time to a proven value on
    endgames from sowpods self-play, and the simulation's two-ply iterations a second on
    one process and on two. Plain `scrab bench` measures everything; a quick look:

    \b
    Examples:
      scrab bench --skip-build --skip-endgames --skip-sim --repeat 1 --runs 1
      scrab bench --skip-build --skip-command --endgames 1 --endgame-time-limit 0.2 --skip-sim --repeat 1
      scrab bench --skip-build --skip-command --skip-endgames --sim-iterations 4 --repeat 1
    """
    from solver_cli.bench import BenchStopped, dumps, run_bench
    from solver_cli.cli._common import stopped
    from solver_cli.engine.movegen import chosen_engine

    def show(result: BenchResult) -> None:
        if as_json:
            click.echo(dumps(result))
        else:
            print_bench(result)

    def report(step: str) -> None:
        if not as_json and sys.stderr.isatty():
            click.echo(f"measuring {step}...", err=True)

    try:
        engines = ["native", "python"] if engine == "both" else [engine or chosen_engine()]
        result = run_bench(
            lexicon,
            repeat,
            runs,
            builds,
            skip_build,
            skip_command,
            report,
            engines,
            endgames=0 if skip_endgames else endgames,
            endgame_time_limit=endgame_time_limit,
            endgame_plies=endgame_plies,
            sim_iterations=0 if skip_sim else sim_iterations,
            sim_repeats=repeat,
        )
    except ScrabError as exc:
        raise to_click_error(exc) from None
    except BenchStopped as stop:
        if stop.result is None:
            raise stopped("interrupted before the move generation was measured") from None
        show(stop.result)
        raise stopped("interrupted; the sections measured before it are shown") from None
    show(result)


def print_bench(result: BenchResult) -> None:
    from rich.table import Table

    from solver_cli.bench import speedup

    out = console()

    def fig(f: Figure) -> str:
        return f"{f.median_ms:,.2f} ({f.min_ms:,.2f}-{f.max_ms:,.2f})"

    engines = " and ".join(result.engines)
    out.print(f"scrab bench: lexicon {result.lexicon}, {engines} engine, Python {result.python}, {result.machine}")
    out.print("Times in ms: median (min-max).")
    summary = Table(show_header=True, header_style="bold")
    summary.add_column("measure")
    summary.add_column("figure", justify="right")
    if result.build:
        b = result.build
        summary.add_row(f"cold GADDAG build ({b.builder} builder)", fig(b.build))
        summary.add_row("words / states / arcs", f"{b.words:,} / {b.states:,} / {b.arcs:,}")
        summary.add_row("cache file", f"{b.cache_bytes / 1e6:,.1f} MB")
    summary.add_row("cache load", fig(result.load))
    summary.add_row("peak memory after load", f"{result.peak_memory_after_load_mb:,.1f} MB")
    if result.command:
        summary.add_row(" ".join(result.command_args), fig(result.command))
        summary.add_row("peak memory of that command", f"{result.command_peak_memory_mb:,.1f} MB")
    ratio = speedup(result)
    if ratio is not None:
        summary.add_row("native speed-up (geometric mean, every move)", f"{ratio:,.1f}x")
    out.print(summary)
    table = Table(
        header_style="bold",
        title="Move generation and scoring, ms (medians; min and max in --json)",
        title_justify="left",
    )
    for name in ("position", "rules", "rack"):
        table.add_column(name, no_wrap=True)
    table.add_column("moves", justify="right")
    for name in result.engines:
        table.add_column(f"{name} every", justify="right")
        table.add_column(f"{name} best", justify="right")
    both = ratio is not None
    if both:
        table.add_column("x", justify="right")
    for p in result.positions:
        cells = [p.position, p.rules, p.rack, f"{p.moves:,}"]
        for name in result.engines:
            cells += [f"{p.engines[name].every.median_ms:,.2f}", f"{p.engines[name].best.median_ms:,.2f}"]
        if both:
            cells.append(f"{p.engines['python'].every.median_ms / p.engines['native'].every.median_ms:,.0f}")
        table.add_row(*cells)
    out.print(table)
    if result.endgames is not None:
        e = result.endgames
        plies = f"{e.plies} {'ply' if e.plies == 1 else 'plies'}"
        depth = "to the end" if e.plies is None else f"{plies} deep"
        endgame = Table(
            header_style="bold",
            title=f"Exact endgames ({e.source}, {e.lexicon}, {e.engine} engine, one thread, {depth}), seconds",
            title_justify="left",
        )
        columns = ["endgames", "proven", "median", "95th percentile", "max", "median nodes", "table"]
        cells = [
            f"{e.positions:,}",
            f"{e.proven:,}",
            f"{e.median_s:,.3f}",
            f"{e.p95_s:,.3f}",
            f"{e.max_s:,.3f}",
            f"{e.median_nodes:,}",
            f"{e.tt_mb:,} MB",
        ]
        if e.plies is not None:
            columns.insert(1, f"{plies} searched")
            cells.insert(1, f"{e.finished:,}")
        for name in columns:
            endgame.add_column(name, justify="right")
        endgame.add_row(*cells)
        out.print(endgame)
        if e.finished < e.positions:
            unproven = ", not proven" if e.plies is None else ""
            out.print(f"{e.positions - e.finished:,} of them stopped at the {e.time_limit_s:g} s time limit{unproven}.")
    if result.sim is not None:
        print_sim(out, result)


def print_sim(out: Console, result: BenchResult) -> None:
    from rich.table import Table

    sim = result.sim
    assert sim is not None
    out.print(
        f"Simulation ({sim.position} {sim.rack}, {sim.lexicon}, {sim.engine} engine): {sim.candidates} candidates x "
        f"{sim.iterations:,} iterations a run, two plies; two-ply iterations a second, median of {sim.repeats} runs"
    )
    table = Table(header_style="bold")
    for name in ("jobs", "median", "min-max", "after start-up", "x one job"):
        table.add_column(name, justify="right")
    for rate in (sim.one_job, sim.two_jobs):
        if rate is None:
            continue
        ratio = "" if rate.jobs == 1 or sim.ratio is None else f"{sim.ratio:,.2f}"
        table.add_row(
            str(rate.jobs),
            f"{rate.median:,.0f}",
            f"{rate.min:,.0f}-{rate.max:,.0f}",
            f"{rate.steady_median:,.0f}",
            ratio,
        )
    out.print(table)
    out.print(f"One job: {sim.cpu_per_second:,.0f} iterations per CPU second of the process.")

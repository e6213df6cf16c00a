"""The ``selfplay`` command: greedy-versus-greedy games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import console, lexicon_options, load_lexicon_for, progress_bar, to_click_error
from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from solver_cli.engine.history import GameResult
    from solver_cli.games.selfplay import SelfPlayRun


def prepare_folder(folder: str) -> Path:
    from solver_cli._io import check_link

    path = Path(folder)
    check_link(path, "--save-games")
    if path.exists() and not path.is_dir():
        raise InputError(f"--save-games {folder}: is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--save-games {folder}: cannot create the folder ({exc.strerror or exc})") from None
    return path


@click.command()
@click.option("--games", "-g", "games", type=click.IntRange(min=1), required=True, help="How many games to play.")
@lexicon_options
@click.option("--seed", type=int, default=None, help="Seed for the tile bags (default: a random seed, reported).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes.")
@click.option("--save-games", "save_dir", metavar="DIR", default=None, help="Write each game as a GCG file in DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def selfplay(
    games: int, rules: str, lexicon: str | None, seed: int | None, jobs: int, save_dir: str | None, as_json: bool
) -> None:
    """Play greedy-versus-greedy games and summarise them.

    Each player always plays its highest-scoring move, from a real tile bag; with no move
    it exchanges its whole rack (bag of 7 or more) or passes. The same --seed gives the
    same games, whatever --jobs.

    \b
    Examples:
      scrab selfplay --games 10 --seed 1 --jobs 2
      scrab selfplay --games 4 --rules wwf --save-games games/ --json
    """
    from solver_cli.engine.rules import load_rules
    from solver_cli.games.selfplay import random_seed, run_selfplay

    try:
        rule_set = load_rules(rules)
        folder = prepare_folder(save_dir) if save_dir is not None else None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    run_seed = random_seed() if seed is None else seed

    on_game = None
    if folder is not None:
        from solver_cli.formats.gcg import write_game

        def on_game(game: GameResult) -> None:
            try:
                write_game(folder, game, games, rules=rule_set.name, lexicon=lex.name, run_seed=run_seed)
            except InputError as exc:
                raise InputError(f"cannot write a game record in {folder}: {exc}") from None
            except OSError as exc:
                raise ScrabError(f"cannot write a game record in {folder}: {exc.strerror or exc}") from None

    try:
        with progress_bar(not as_json, "Playing games", games, counted=True) as update:
            progress = (lambda done, _total: update(done)) if update is not None else None
            run = run_selfplay(
                lex.gaddag,
                rule_set,
                games,
                run_seed,
                jobs,
                on_game=on_game,
                progress=progress,
            )
    except ScrabError as exc:
        raise to_click_error(exc) from None

    s = run.summary
    if as_json:
        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "seed": run_seed,
            "jobs": run.jobs,
            "games": s.games,
            "first_player_wins": s.first_player_wins,
            "second_player_wins": s.second_player_wins,
            "draws": s.draws,
            "score_mean": s.score_mean,
            "score_stdev": s.score_stdev,
            "first_player_score_mean": s.first_player_score_mean,
            "first_player_score_stdev": s.first_player_score_stdev,
            "second_player_score_mean": s.second_player_score_mean,
            "second_player_score_stdev": s.second_player_score_stdev,
            "bingos_per_game": s.bingos_per_game,
            "went_out": s.went_out,
            "scoreless_endings": s.scoreless_endings,
            "moves": s.moves,
            "plays": s.plays,
            "seconds": s.seconds,
            "seconds_per_game": s.game_seconds / s.games,
            "moves_per_second": s.moves_per_second,
            "games_per_second": s.games_per_second,
            "saved_to": str(folder) if folder is not None else None,
            "results": [
                {
                    "game": o.index + 1,
                    "seed": o.seed,
                    "scores": list(o.scores),
                    "winner": "draw" if o.winner is None else ("p1", "p2")[o.winner],
                    "bingos": list(o.bingos),
                    "moves": o.turns,
                    "end": o.end,
                }
                for o in run.outcomes
            ],
        }
        click.echo(json.dumps(payload))
        return
    print_summary(run, rule_set.name, lex.name, folder)


def print_summary(run: SelfPlayRun, rules: str, lexicon: str, folder: Path | None) -> None:
    from rich.table import Table

    s = run.summary
    n = s.games

    def share(k: int) -> str:
        return f"{k:,} ({100 * k / n:.1f}%)"

    jobs = f", {run.jobs} jobs" if run.jobs > 1 else ""
    table = Table(
        title=f"{n:,} greedy game{'s' if n != 1 else ''}  ({rules}, {lexicon}, seed {run.seed}{jobs})",
        title_justify="left",
        header_style="bold",
    )
    table.add_column("Statistic")
    table.add_column("Value", justify="right")
    table.add_row("First-player wins", share(s.first_player_wins))
    table.add_row("Second-player wins", share(s.second_player_wins))
    table.add_row("Draws", share(s.draws))
    table.add_row("Mean score (sd)", f"{s.score_mean:.1f} ({s.score_stdev:.1f})")
    table.add_row("First player's score (sd)", f"{s.first_player_score_mean:.1f} ({s.first_player_score_stdev:.1f})")
    table.add_row("Second player's score (sd)", f"{s.second_player_score_mean:.1f} ({s.second_player_score_stdev:.1f})")
    table.add_row("Bingos per game", f"{s.bingos_per_game:.2f}")
    table.add_row("Ended: out / six scoreless", f"{s.went_out:,} / {s.scoreless_endings:,}")
    table.add_row("Moves (plays)", f"{s.moves:,} ({s.plays:,})")
    table.add_row("Moves per second", f"{s.moves_per_second:,.1f}")
    table.add_row("Games per second", f"{s.games_per_second:,.2f}")
    table.add_row("Time (per game)", f"{s.seconds:,.1f} s ({s.game_seconds / n:.3f} s)")
    out = console()
    out.print(table)
    if folder is not None:
        out.print(f"Games saved as GCG files in {folder}")

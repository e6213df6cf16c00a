"""The ``selfplay`` command: games between two players, greedy ones by default."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    STOPPED,
    BadInput,
    console,
    jobs_option,
    lexicon_options,
    load_lexicon_for,
    note_jobs,
    print_wrapped,
    progress_bar,
    say_stopped,
    stopped,
    to_click_error,
    warn,
)
from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from rich.table import Table

    from solver_cli.engine.history import GameResult
    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.engine.rules import Rules
    from solver_cli.engine.winpct import WinTable
    from solver_cli.games.selfplay import Player, SelfPlayRun, Standing

PLAYER_KINDS = (
    "greedy, equity, endgame, peg, one of the last three with :FILE, "
    "or sim:iterations=N,plies=N,candidates=N,endgame=MS,rank=points|win"
)


def player_names(text: str) -> tuple[str, str]:
    """The two names of ``--players A,B`` (spaces around them ignored). A sim player's budget
    holds commas too: a part ``key=N`` belongs to the sim player before it."""
    from solver_cli.games.selfplay import parse_sim_budget

    names: list[str] = []
    for part in (part.strip() for part in text.split(",")):
        if "=" in part and ":" not in part and names and names[-1].startswith("sim:"):
            names[-1] += "," + part
        else:
            names.append(part)
    if len(names) != 2 or not all(names):
        raise BadInput(f"--players {text!r}: give two players separated by a comma, e.g. equity,greedy")
    for name in names:
        kind = name.split(":", 1)[0]
        if name in ("equity:", "endgame:", "peg:"):
            raise BadInput(f"--players {text!r}: {name} needs a leave file, e.g. {name}wwf.leaves")
        if kind == "sim":
            try:
                parse_sim_budget(name)
            except InputError as exc:
                raise BadInput(f"--players {text!r}: {exc}") from None
            continue
        if kind not in ("greedy", "equity", "endgame", "peg") or (kind == "greedy" and name != "greedy"):
            raise BadInput(f"--players {text!r}: unknown player {name!r} (use {PLAYER_KINDS})")
    return names[0], names[1]


def make_players(names: tuple[str, str], rules: Rules, lexicon: str | None) -> tuple[Player, Player]:
    """The players ``names`` stand for: ``greedy``, ``equity`` (the leave table trained for
    the rules and word list, as ``scrab solve`` ranks by) or ``equity:FILE``; ``endgame``
    and ``peg`` (and with ``:FILE``) play by equity too, and search the endgame (and the
    pre-endgame); ``sim:...`` simulates each move. Two players of one name are told apart as
    ``NAME (1)`` and ``NAME (2)``."""
    from solver_cli.formats.leavefile import read_leaves, table_for
    from solver_cli.games.selfplay import ENDGAME, GREEDY, PEG, Player, parse_sim_budget
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    shipped: LeaveTable | None = None
    players = []
    for name in names:
        if name == "greedy":
            players.append(GREEDY)
            continue
        kind, _, path = name.partition(":")
        if kind not in ("equity", ENDGAME, PEG):
            path = ""  # (a sim player's part after the colon is its budget)
        if path:
            table = read_leaves(path)
            trained = table.info.get("rules")
            if trained != rules.name:
                warn(f"--players {name}: {path} holds leave values trained for {trained}, not {rules.name}")
        else:
            if shipped is None:
                shipped, note = table_for(rules.name, lexicon_label(lexicon), own_list=is_own_lexicon(lexicon))
                if note:
                    warn(note)
            table = shipped
        budget = parse_sim_budget(name) if kind == "sim" else None
        chances = win_table_for(name, rules, lexicon) if budget is not None and budget.rank == "win" else None
        if budget is not None and budget.endgame is not None:  # (sim with the endgame solver)
            players.append(
                Player(name, table, lookahead=ENDGAME, seconds=budget.endgame / 1000, sim=budget, win_table=chances)
            )
        else:
            lookahead = kind if kind in (ENDGAME, PEG) else None
            players.append(Player(name, table, lookahead=lookahead, sim=budget, win_table=chances))
    first, second = players
    if first.name == second.name:
        first, second = replace(first, name=f"{first.name} (1)"), replace(second, name=f"{second.name} (2)")
    return first, second


def win_table_for(name: str, rules: Rules, lexicon: str | None) -> WinTable:
    """The win table a sim player ranking by win uses: ``scrab sim``'s for the rules and word
    list (a note when it is borrowed from another list); none is an error naming the player."""
    from solver_cli.formats.winpctfile import check_fits, winpct_for
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label

    table, note = winpct_for(rules.name, lexicon_label(lexicon), own_list=is_own_lexicon(lexicon))
    if table is None:
        raise InputError(f"--players {name}: rank=win needs a win table: {note}")
    check_fits(table, rules)
    if note:
        warn(note)
    return table


def prepare_folder(folder: str) -> Path:
    from solver_cli._io import check_link

    if not folder.strip():  # (Path("") is the current folder: a quoting slip would fill it)
        raise InputError("--save-games: the folder name is empty")
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
@jobs_option("one per game")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="A Dask scheduler (tcp://host:8786) to play the games on; needs pip install 'scrab[dask]'.",
)
@click.option(
    "--players",
    "players_text",
    metavar="A,B",
    default=None,
    help=f"Two players ({PLAYER_KINDS}), each bag played twice with the seats swapped; "
    "--games must then be even. Default: greedy against greedy, once per bag.",
)
@click.option("--save-games", "save_dir", metavar="DIR", default=None, help="Write each game as a GCG file in DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.pass_context
def selfplay(
    ctx: click.Context,
    games: int,
    rules: str,
    lexicon: str | None,
    seed: int | None,
    jobs: int,
    scheduler: str | None,
    players_text: str | None,
    save_dir: str | None,
    as_json: bool,
) -> None:
    """Play games between two players and summarise them.

    By default both players are greedy: each always plays its highest-scoring move, from a
    real tile bag; with no move it exchanges its whole rack (bag of 7 or more) or passes.
    --players A,B picks them: greedy; equity, which plays the move of highest equity (score
    plus the value of the tiles kept, exchanges and the pass included) with the leave table
    trained for the rules; equity:FILE with the table in FILE; endgame, which plays by
    equity until the bag is empty and then the exact endgame solver's move; peg, which
    also solves the pre-endgame with one tile in the bag (both with :FILE too, and a 10 s
    limit a search); or sim (sim:iterations=N,plies=N,candidates=N), which simulates each
    move as scrab sim does, and with endgame=MS solves the endgame in MS milliseconds.
    Each bag is then played twice with the seats swapped, and each player gets its wins
    (a draw counts half), its win rate with a 95% confidence interval, and its mean spread. The same --seed gives the
    same games, whatever --jobs, or on a Dask cluster with --scheduler.

    \b
    Examples:
      scrab selfplay --games 10 --seed 1 --jobs 2
      scrab selfplay --games 4 --rules wwf --save-games games/ --json
      scrab selfplay --players equity,greedy --games 2 --seed 1
      scrab selfplay --players equity,greedy --rules wwf --games 2 --json
    """
    import logging

    from solver_cli.engine.rules import load_rules
    from solver_cli.games.selfplay import GREEDY, SelfPlayStopped, random_seed, run_selfplay
    from solver_cli.games.workers import capped_jobs

    names = player_names(players_text) if players_text is not None else None
    if names is not None and games % 2:
        raise click.UsageError(
            f"--games {games}: with --players each bag is played twice, seats swapped, so --games must be even", ctx
        )
    try:
        if scheduler is not None:
            from solver_cli.games.cluster import check_scheduler

            scheduler = check_scheduler(scheduler)
        rule_set = load_rules(rules)
        players = make_players(names, rule_set, lexicon) if names is not None else (GREEDY, GREEDY)
        folder = prepare_folder(save_dir) if save_dir is not None else None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    mirrored = names is not None
    run_seed = random_seed() if seed is None else seed
    if scheduler is None:
        note_jobs(jobs, capped_jobs(jobs, games), games, "games")

    on_game = None
    saved: list[int] = []  # the games whose records were written (their indices)
    if folder is not None:
        from solver_cli.formats.gcg import write_game

        def on_game(game: GameResult) -> None:
            try:
                write_game(folder, game, games, rules=rule_set.name, lexicon=lex.name, run_seed=run_seed)
                saved.append(game.index)
            except InputError as exc:
                raise InputError(f"cannot write a game record in {folder}: {exc}") from None
            except OSError as exc:
                raise ScrabError(f"cannot write a game record in {folder}: {exc.strerror or exc}") from None

    if scheduler is not None:
        # The Dask client logs to stderr (tracebacks when the cluster goes away, for as long
        # as it tries to reconnect); scrab says what failed in one line of its own.
        logging.disable(logging.CRITICAL)
    try:
        with progress_bar(not as_json, "Playing games", games, counted=True) as update:
            progress = (lambda done, _total: update(done)) if update is not None else None
            run = run_selfplay(
                lex.gaddag,
                rule_set,
                games,
                run_seed,
                jobs,
                players=players,
                mirrored=mirrored,
                on_game=on_game,
                progress=progress,
                scheduler=scheduler,
            )
        stop = None
    except SelfPlayStopped as exc:  # Ctrl-C or SIGTERM: the games finished so far
        run, stop = exc.run, exc
    except ScrabError as exc:
        raise to_click_error(exc) from None
    finally:
        logging.disable(logging.NOTSET)
    if stop is not None:
        n = len(run.outcomes)
        pairs = " (whole pairs)" if mirrored else ""
        # A mirrored game saved whose pair did not finish: in the folder, not in the summary.
        covered = {o.index for o in run.outcomes}
        unpaired = sorted(index for index in saved if index not in covered)
        aside = ""
        if unpaired:
            from solver_cli.formats.gcg import game_filename

            records = ", ".join(game_filename(index, games) for index in unpaired)
            was, its = ("was", "its pair") if len(unpaired) == 1 else ("were", "their pairs")
            aside = f" ({records} {was} saved too, but {its} did not finish)"
        if not n:
            raise stopped(f"no game finished of {stop.games:,}{pairs}{aside}")
        say_stopped(f"{n:,} of {stop.games:,} games finished{pairs}; the summary covers them{aside}")

    from solver_cli.games.selfplay import standings

    s = run.summary
    table = standings(run.outcomes, (players[0].name, players[1].name), mirrored) if mirrored else None
    if as_json:
        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "seed": run_seed,
            "jobs": run.jobs,
            "scheduler": run.scheduler,
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
        }
        if stop is not None:
            payload["stopped"] = True
        if table is not None:
            payload["mirrored"] = True
            payload["players"] = [
                {
                    "name": p.name,
                    "wins": p.wins,
                    "win_rate": p.win_rate,
                    "ci95": list(p.ci95),
                    "spread_mean": p.spread_mean,
                }
                for p in table
            ]
        payload["results"] = [
            {
                "game": o.index + 1,
                "seed": o.seed,
                "scores": list(o.scores),
                "winner": "draw" if o.winner is None else ("p1", "p2")[o.winner],
                "bingos": list(o.bingos),
                "moves": o.turns,
                "end": o.end,
                **({"seats": list(o.seats)} if table is not None else {}),
            }
            for o in run.outcomes
        ]
        click.echo(json.dumps(payload))
    else:
        print_summary(run, rule_set.name, rule_set.scoreless_turns, lex.name, folder, table)
    if stop is not None:
        raise click.exceptions.Exit(STOPPED)


def print_summary(
    run: SelfPlayRun,
    rules: str,
    scoreless_turns: int,
    lexicon: str,
    folder: Path | None,
    players: list[Standing] | None = None,
) -> None:
    from rich.table import Table

    s = run.summary
    n = s.games

    def share(k: int) -> str:
        return f"{k:,} ({100 * k / n:.1f}%)"

    jobs = f", {run.jobs} jobs" if run.jobs > 1 else ""
    if run.scheduler is not None:
        jobs = f", on {run.scheduler}"
    games = f"game{'s' if n != 1 else ''}"
    out = console()
    if players is None:
        title: str | None = f"{n:,} greedy {games}  ({rules}, {lexicon}, seed {run.seed}{jobs})"
    else:
        # The standings come first, under a title of their own: they are what a match is for.
        match = f"{players[0].name} v {players[1].name}, each bag played twice with the seats swapped"
        print_wrapped(out, f"{n:,} {games}: {match}  ({rules}, {lexicon}, seed {run.seed}{jobs})")
        out.print(standings_table(players))
        title = None
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("Statistic")
    table.add_column("Value", justify="right")
    table.add_row("First-player wins", share(s.first_player_wins))
    table.add_row("Second-player wins", share(s.second_player_wins))
    table.add_row("Draws", share(s.draws))
    table.add_row("Mean score (sd)", f"{s.score_mean:.1f} ({s.score_stdev:.1f})")
    table.add_row("First player's score (sd)", f"{s.first_player_score_mean:.1f} ({s.first_player_score_stdev:.1f})")
    table.add_row("Second player's score (sd)", f"{s.second_player_score_mean:.1f} ({s.second_player_score_stdev:.1f})")
    table.add_row("Bingos per game", f"{s.bingos_per_game:.2f}")
    in_words = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}.get(scoreless_turns, str(scoreless_turns))
    table.add_row(f"Ended: out / {in_words} scoreless", f"{s.went_out:,} / {s.scoreless_endings:,}")
    table.add_row("Moves (plays)", f"{s.moves:,} ({s.plays:,})")
    table.add_row("Moves per second", f"{s.moves_per_second:,.1f}")
    table.add_row("Games per second", f"{s.games_per_second:,.2f}")
    table.add_row("Time (per game)", f"{s.seconds:,.1f} s ({s.game_seconds / n:.3f} s)")
    out.print(table)
    if folder is not None:
        out.print(f"Games saved as GCG files in {folder}")


def standings_table(players: list[Standing]) -> Table:
    """Each player's wins (a draw counts half), win rate with its 95% confidence interval,
    and mean spread (its score minus the opponent's, per game)."""
    from rich.table import Table

    table = Table(header_style="bold")
    table.add_column("Player")
    table.add_column("Wins", justify="right")
    table.add_column("Win rate", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("Spread", justify="right")
    for p in players:
        low, high = p.ci95
        wins = f"{p.wins:,.1f}".removesuffix(".0")
        table.add_row(
            p.name, wins, f"{100 * p.win_rate:.1f}%", f"{100 * low:.1f}-{100 * high:.1f}%", f"{p.spread_mean:+.1f}"
        )
    return table

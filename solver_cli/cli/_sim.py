"""Running a simulation from the command line and showing it: the live table on a terminal,
the standings or JSON at the end (``scrab sim`` and ``scrab solve --sim``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    STOPPED,
    BadInput,
    console,
    note_jobs,
    print_wrapped,
    say_stopped,
    to_click_error,
    warn,
)
from solver_cli.cli._game import game_setting, refuse_over_full, shown_opponent_tiles, warn_position
from solver_cli.errors import InputError, ScrabError
from solver_cli.lookahead.sim import DEFAULT_CANDIDATES, DEFAULT_PLIES, MAX_ITERATIONS

if TYPE_CHECKING:
    from rich.console import RenderableType

    from solver_cli.cli._common import Ranking
    from solver_cli.engine.board import Board
    from solver_cli.engine.movegen import Candidate
    from solver_cli.engine.rules import Rules
    from solver_cli.formats.position import LoadedPosition
    from solver_cli.lexicon import Lexicon
    from solver_cli.lookahead.sim import OpponentSampler, SimResult, TableChance, WinProbability

REFRESHES_PER_SECOND = 4
STOP_CHOICES = ("95", "98", "99", "none")
WHY = {
    "confident": "one candidate is ahead at {stop}% confidence",
    "iterations": "the iterations are done",
    "time": "the time limit is spent",
    "interrupted": "stopped",
    "determined": "with the bag empty every iteration plays out the same (scrab endgame solves it exactly)",
}


def default_iterations(plies: int) -> int:
    """Macondo's cap on a simulation's iterations: 2,000 plus 625 a ply."""
    return 2000 + 625 * plies


def run_sim(
    position: LoadedPosition,
    counts: list[int],
    rule_set: Rules,
    lex: Lexicon,
    ranking: Ranking,
    *,
    candidates: int = DEFAULT_CANDIDATES,
    plies: int = DEFAULT_PLIES,
    iterations: int | None = None,
    time_limit: float | None = None,
    stop: str = "99",
    opponent_rack: str | None = None,
    jobs: int = 1,
    seed: int | None = None,
    as_json: bool = False,
    win_probability: WinProbability | None = None,
    lexicon_choice: str | None = None,
    rank: str | None = None,
    infer: bool | None = None,
) -> None:
    """Simulate, with a live table on a terminal, then print the standings (``scrab sim``
    and ``scrab solve --sim``).

    The win table for the rules and ``lexicon_choice`` (the word list asked for) gives the
    win-probability function unless one is passed; ``rank`` ("win" or "spread"; None: win
    when there is a table) is what the candidates are ranked and dropped by. ``infer``
    (None: when the opponent's last play is known, from a game record's turn) draws the
    opponent's racks from the inference of that play."""
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.games import workers
    from solver_cli.games.selfplay import random_seed
    from solver_cli.lookahead.sim import SimStopped, simulate

    assert ranking.leaves is not None
    if iterations is None and time_limit is None:
        iterations = default_iterations(plies)
    run_seed = random_seed() if seed is None else seed
    used = workers.capped_jobs(jobs, iterations or MAX_ITERATIONS)
    note_jobs(jobs, used, iterations or MAX_ITERATIONS, "iterations")
    try:
        setting = game_setting(position, rule_set)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    spread, scoreless = setting.scores[0] - setting.scores[1], setting.scoreless
    table_name: str | None = None
    if win_probability is None:
        chance, note = win_chance_for(rule_set, lexicon_choice)
        if note:
            click.echo(f"Note: {note}" + ("" if chance is not None else "; no Win % column"), err=True)
        if chance is not None:
            win_probability, table_name = chance, chance.table.name
    if rank == "win" and win_probability is None:
        raise BadInput(f"--rank win needs a win-probability table for {rule_set.name}; use --rank spread")
    objective = "points" if rank == "spread" or win_probability is None else "win"
    try:
        from solver_cli.engine.unseen import check_opponent_tiles, unseen_tiles

        unseen = unseen_tiles(position.board, counts, rule_set)
        refuse_over_full(unseen, rule_set)  # (else a warning says it too)
        warn_position(position.board, counts, rule_set, lex)
        opponent = None
        if opponent_rack is not None:
            try:
                opponent = parse_rack(opponent_rack, rule_set.rack_size)
                check_opponent_tiles(opponent, list(unseen.counts), rule_set.rack_size)
            except ScrabError as exc:
                raise BadInput(f"--opponent-rack: {exc}") from None
        if opponent is None and position.opponent_rack is not None:
            warn(
                f"{position.name}: the opponent's tiles the CGP gives ({position.opponent_rack}) are not used "
                "(--opponent-rack uses a rack you give)"
            )
        shown = shown_opponent_tiles(position) if opponent is None and infer is not True else None
        racks: dict[str, object]
        if shown is not None:  # (the opponent's play taken back just before: its tiles are known)
            try:
                check_opponent_tiles(shown.tiles, list(unseen.counts), rule_set.rack_size)
            except ScrabError as exc:
                raise BadInput(f"{position.name}: the tiles of {shown.text}: {exc}") from None
            opponent = shown.tiles
            text = f"{rack_text(shown.tiles)} shown by {shown.text}"
            if sum(shown.tiles) < rule_set.rack_size:
                text += ", the rest drawn from the unseen tiles"
            sampler, racks = None, {"source": "shown", "rack": rack_text(shown.tiles), "text": text}
        else:
            sampler, racks = opponent_racks(position, counts, rule_set, lex, ranking, opponent, infer, run_seed)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    stopped_early = False
    describe = describer(position.board, rule_set, counts)
    with live_table(not as_json, describe) as show:
        try:
            result = simulate(
                position.board,
                counts,
                lex.gaddag,
                rule_set,
                ranking.leaves,
                candidates=candidates,
                plies=plies,
                iterations=iterations,
                time_limit=time_limit,
                stop=None if stop == "none" else int(stop),
                seed=run_seed,
                jobs=used,
                workers=workers,
                opponent_rack=opponent,
                spread=spread,
                scoreless=scoreless,
                win_probability=win_probability,
                objective=objective,
                sampler=sampler,
                progress=show,
            )
        except SimStopped as exc:
            result = exc.result
            stopped_early = True
        except ScrabError as exc:
            raise to_click_error(exc) from None
    shown_rack = rack_text(counts)
    if as_json:
        print_json(
            result, position, rule_set, lex.name, ranking, shown_rack, describe, (spread, scoreless), table_name, racks
        )
    else:
        out = console()
        title = (
            f"{len(result.standings)} candidates for {shown_rack}, {plies} {'ply' if plies == 1 else 'plies'}, "
            f"by {'win %' if objective == 'win' else 'mean points'}  ({rule_set.name}, {lex.name}, seed {result.seed}"
            + (f", {result.jobs} jobs" if result.jobs > 1 else "")
            + ")"
        )
        print_wrapped(out, title)
        print_wrapped(out, f"Opponent's racks: {racks['text']}")
        out.print(standings_table(result, describe, None))
        out.print(ending_line(result))
    if stopped_early:
        say_stopped(f"after {result.iterations:,} iterations; the standings cover them")
        raise click.exceptions.Exit(STOPPED)


def win_chance_for(rule_set: Rules, lexicon_choice: str | None) -> tuple[TableChance | None, str | None]:
    """The win-probability function of the win table for the rules and word list, and the
    note to show (a table borrowed from another word list, or none at all)."""
    from solver_cli.formats.winpctfile import check_fits, winpct_for
    from solver_cli.lexicon.wordlist import is_own_lexicon, lexicon_label
    from solver_cli.lookahead.sim import TableChance

    try:
        table, note = winpct_for(rule_set.name, lexicon_label(lexicon_choice), own_list=is_own_lexicon(lexicon_choice))
        if table is None:
            return None, note
        check_fits(table, rule_set)
    except ScrabError as exc:
        return None, str(exc)
    return TableChance(table), note


def opponent_racks(
    position: LoadedPosition,
    counts: list[int],
    rule_set: Rules,
    lex: Lexicon,
    ranking: Ranking,
    opponent: list[int] | None,
    infer: bool | None,
    seed: int,
) -> tuple[OpponentSampler | None, dict[str, object]]:
    """Where the opponent's racks come from: (the sampler to pass, how to show it: a dict
    with ``source``, "given", "inferred" or "unseen", and ``text``). Inference needs the
    opponent's last play, which a game record's turn gives; ``infer`` None infers when it
    does, True insists (``InputError`` when it cannot), False never."""
    from solver_cli.engine.alphabet import rack_text
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.infer import PRIOR
    from solver_cli.lookahead.infer import infer as run_infer
    from solver_cli.lookahead.sim import InferredRacks

    unseen_only: dict[str, object] = {"source": "unseen", "text": "drawn from the unseen tiles"}
    if opponent is not None:
        return None, {"source": "given", "rack": rack_text(opponent), "text": f"given ({rack_text(opponent)})"}
    game, turn = position.game, position.turn
    if infer is False:
        return None, unseen_only
    if game is None or turn is None:
        if infer:
            raise InputError("--infer needs the opponent's last play: a game record with --turn N")
        return None, unseen_only
    from solver_cli.cli._lastplay import move_line, recorded_move

    try:
        before, play, shown = recorded_move(game, turn)
    except InputError as exc:
        if infer:
            raise InputError(f"--infer: {exc}") from None
        return None, unseen_only
    board_before = game.board_before(before)
    assert ranking.leaves is not None
    unseen = unseen_tiles(board_before, counts, rule_set)
    inference = run_infer(board_before, unseen.counts, play, rule_set, lex.gaddag, ranking.leaves, seed=seed)
    move = move_line(shown, play.kind)
    if inference.method == PRIOR:
        text = f"drawn from the unseen tiles ({inference.note}: {move})"
        return None, {"source": "unseen", "last_play": shown, "text": text}
    kept = len(inference.leaves)
    text = f"inferred from {move}, {kept:,} {'leave' if kept == 1 else 'leaves'} kept"
    described = {"source": "inferred", "last_play": shown, "method": inference.method, "leaves": kept, "text": text}
    return InferredRacks(inference), described


Describe = Callable[["Candidate"], tuple[str, str]]


def describer(board: Board, rules: Rules, rack: list[int]) -> Describe:
    """(position, word) of a candidate as scrab solve shows them ("8H", "RE(T)AINS"; "-",
    "exchange QU"), each worked out once."""
    from solver_cli.engine.movegen import PLACE
    from solver_cli.engine.ranking import candidate_move

    known: dict[Candidate, tuple[str, str]] = {}

    def describe(c: Candidate) -> tuple[str, str]:
        text = known.get(c)
        if text is None:
            move = candidate_move(board, rules, rack, c)
            text = (move.position, move.notation) if c.kind == PLACE else ("-", move.text)
            known[c] = text
        return text

    return describe


def standings_table(result: SimResult, describe: Describe, title: str | None) -> RenderableType:
    from rich.table import Table

    from solver_cli.cli.render import tenths_of

    win = any(s.win is not None for s in result.standings)
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("Pos")
    table.add_column("Word")
    table.add_column("Score", justify="right")
    table.add_column("Equity", justify="right")
    table.add_column("Mean", justify="right")
    table.add_column("±SE", justify="right")
    if win:
        table.add_column("Win %", justify="right")
    table.add_column("Iter.", justify="right")
    table.add_column("Dropped", justify="right")
    for rank, s in enumerate(result.standings, 1):
        pos, word = describe(s.candidate)
        row = [
            str(rank),
            pos,
            word,
            str(s.candidate.score),
            tenths_of(s.candidate.equity),
            f"{s.mean:.1f}" if s.iterations else "-",
            f"{s.stderr:.1f}" if s.iterations > 1 else "-",
        ]
        if win:
            row.append(f"{100 * s.win:.1f}" if s.win is not None and s.iterations else "-")
        row += [f"{s.iterations:,}", f"at {s.pruned_at:,}" if s.pruned_at is not None else "-"]
        table.add_row(*row)
    return table


def ending_line(result: SimResult) -> str:
    why = WHY.get(result.stopped or "", "")
    if result.stopped == "confident":
        why = why.format(stop=result.stop)
    return f"{result.iterations:,} {'iteration' if result.iterations == 1 else 'iterations'}: {why}."


def print_json(
    result: SimResult,
    position: LoadedPosition,
    rules: Rules,
    lexicon: str,
    ranking: Ranking,
    rack: str,
    describe: Describe,
    state: tuple[int, int],
    win_table: str | None,
    racks: dict[str, object],
) -> None:
    from solver_cli.cli.render import exact_points, json_text

    standings = []
    for rank, s in enumerate(result.standings, 1):
        pos, word = describe(s.candidate)
        c = s.candidate
        standings.append(
            {
                "rank": rank,
                "equity_rank": s.equity_rank,
                "kind": ("place", "exchange", "pass")[c.kind],
                "position": pos if pos != "-" else "",
                "move": word,
                "score": c.score,
                "equity": exact_points(c.equity),
                "mean": s.mean if s.iterations else None,
                "stderr": s.stderr if s.iterations > 1 else None,
                "win": s.win if s.iterations else None,
                "win_stderr": s.win_stderr if s.iterations > 1 else None,
                "iterations": s.iterations,
                "pruned_at": s.pruned_at,
            }
        )
    payload = {
        "rules": rules.name,
        "lexicon": lexicon,
        "leaves": ranking.table,
        "board": position.name,
        "rack": rack,
        "spread": state[0],
        "scoreless_turns": state[1],
        "win_table": win_table,
        "ranked_by": "win" if result.objective == "win" else "spread",
        "opponent_racks": {key: value for key, value in racks.items() if key != "text"},
        "plies": result.plies,
        "seed": result.seed,
        "jobs": result.jobs,
        "stop": result.stop,
        "iterations": result.iterations,
        "stopped": result.stopped,
        "seconds": result.seconds,
        "standings": standings,
    }
    click.echo(json_text(payload))


def on_terminal() -> bool:
    return sys.stderr.isatty()


@contextmanager
def live_table(enabled: bool, describe: Describe) -> Iterator[Callable[[SimResult], None] | None]:
    """A Rich table of the standings so far on stderr, redrawn a few times a second, only on
    a terminal and never with --json; yields the progress callback (None when hidden)."""
    if not enabled or not on_terminal():
        yield None
        return
    from rich.live import Live

    live = Live(console=console(stderr=True), refresh_per_second=REFRESHES_PER_SECOND, transient=True)
    shown = 0.0

    def show(result: SimResult) -> None:
        nonlocal shown
        now = time.monotonic()
        if now - shown >= 1 / REFRESHES_PER_SECOND:  # (a table a refresh, not one an iteration)
            shown = now
            live.update(standings_table(result, describe, f"Simulating: {result.iterations:,} iterations"))
            # Started at the first results, after the workers: its refresh thread would make
            # them spawned instead of forked (games.workers.start_method).
            if not live.is_started:
                live.start()

    try:
        yield show
    finally:
        live.stop()

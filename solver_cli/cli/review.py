"""``scrab review``: replay a GCG game record and review every move."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    BadInput,
    Ranking,
    check_rank,
    check_writable,
    choose_ranking,
    complete_path,
    console,
    json_option,
    leaves_option,
    lexicon_options,
    load_lexicon_for,
    note_jobs,
    print_wrapped,
    progress_bar,
    rank_option,
    refuse_together,
    require,
    save_svg,
    stopped,
    to_click_error,
)
from solver_cli.cli._game import record_lexicon, record_rules_chooser, record_warnings_first, warn_problems
from solver_cli.errors import InputError, ScrabError
from solver_cli.lookahead.sim import DEFAULT_PLIES, MAX_CANDIDATES, MAX_ITERATIONS, MAX_PLIES

DEFAULT_SIM_ITERATIONS = 200  # a turn's default budget: a few seconds for 5 candidates

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod
    from rich.text import Text

    from solver_cli.engine.history import GameRecord, GameTurn
    from solver_cli.engine.rules import Rules
    from solver_cli.engine.scoring import Move
    from solver_cli.games.review import GameReview, Option, SimBudget, TurnReview


@click.command()
@click.argument("game", metavar="GAME.gcg", shell_complete=complete_path)
@lexicon_options
@rank_option
@leaves_option
@click.option("--player", metavar="NAME", help="Review one player only (nickname or full name).")
@click.option(
    "--top", "-n", type=click.IntRange(min=1), default=1, show_default=True, help="Best moves shown per turn."
)
@click.option(
    "--show-board",
    "show_boards",
    type=click.IntRange(min=1),
    multiple=True,
    metavar="N",
    help="Also draw the board after turn N (may be repeated).",
)
@click.option(
    "--endgame",
    is_flag=True,
    help="Also settle each turn played with the bag empty by the exact endgame solver: its best "
    "move and the points the move played lost.",
)
@click.option(
    "--endgame-time-limit",
    type=click.FloatRange(min=0, min_open=True, max=86_400),
    default=10.0,
    show_default=True,
    metavar="S",
    help="With --endgame: seconds of search a turn; a turn not proven within them is marked so.",
)
@click.option(
    "--sim",
    is_flag=True,
    help="Also simulate each turn reviewed (as scrab sim): the move played ranked among the best "
    "moves by equity by their mean points after --sim-plies replies, and the points it lost.",
)
@click.option(
    "--sim-candidates",
    type=click.IntRange(1, MAX_CANDIDATES),
    default=5,
    show_default=True,
    metavar="K",
    help="With --sim: the K best moves by equity simulated, and the move played when not among them.",
)
@click.option(
    "--sim-plies",
    type=click.IntRange(1, MAX_PLIES),
    default=DEFAULT_PLIES,
    show_default=True,
    metavar="P",
    help="With --sim: replies played after each candidate.",
)
@click.option(
    "--sim-iterations",
    type=click.IntRange(1, MAX_ITERATIONS),
    metavar="N",
    help=f"With --sim: at most N iterations a turn (default: {DEFAULT_SIM_ITERATIONS}, unless --sim-time-limit "
    "is given).",
)
@click.option(
    "--sim-time-limit",
    type=click.FloatRange(min=0, min_open=True, max=86_400),
    metavar="S",
    help="With --sim: at most S seconds a turn (the results then depend on the machine's speed).",
)
@click.option(
    "--seed", type=int, default=None, help="With --sim: seed for the draws (default: a random seed, reported)."
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --sim: worker processes for each turn's simulation (at most 2 per CPU); the same figures "
    "whatever the number.",
)
@click.option(
    "--svg",
    "svg_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also save what is printed (tables, boards) as an SVG image in FILE.",
)
@json_option
@click.pass_context
def review(
    ctx: click.Context,
    game: str,
    rules: str,
    lexicon: str | None,
    rank: str,
    leaves_path: str | None,
    player: str | None,
    top: int,
    show_boards: tuple[int, ...],
    endgame: bool,
    endgame_time_limit: float,
    sim: bool,
    sim_candidates: int,
    sim_plies: int,
    sim_iterations: int | None,
    sim_time_limit: float | None,
    seed: int | None,
    jobs: int,
    svg_path: str | None,
    as_json: bool,
) -> None:
    """Replay the GCG game record GAME.gcg and review every move: its rank among all legal
    moves, the best moves, and the points it gave up.

    Turns are the record's > lines, counted from 1 (the numbers `scrab solve GAME.gcg
    --turn N` takes). A turn is reviewed when the record gives the player's whole rack.
    Moves are ranked by equity (score plus the value of the tiles kept, with the bag the
    record implies at each turn; exchanges and the pass included), or with --rank score
    by score. Scores, totals and words that do not agree with the rules or the lexicon
    are reported as warnings (phonies are flagged in the table too).

    \b
    Examples:
      scrab review boards/example.gcg
      scrab review boards/example.gcg --player alice --top 3 --show-board 5
      scrab review boards/example.gcg --rank score
      scrab review boards/example.gcg --lexicon sowpods --json
      scrab review boards/example.gcg --endgame --player alice
      scrab review boards/example.gcg --sim --player bob --sim-iterations 8 --seed 1
    """
    refuse_together(ctx, ("as_json", "--json"), ("svg_path", "--svg"), "the SVG image is of the tables")
    check_rank(ctx, rank, leaves_path)
    require(ctx, ("endgame_time_limit", "--endgame-time-limit"), ("endgame", "--endgame"))
    for name in ("sim_candidates", "sim_plies", "sim_iterations", "sim_time_limit", "seed", "jobs"):
        require(ctx, (name, "--" + name.replace("_", "-")), ("sim", "--sim"))
    if sim and rank == "score":
        raise click.UsageError("--sim cannot be used with --rank score: the play-outs choose each move by equity", ctx)
    if not game.strip():
        raise BadInput("the game-record argument is empty: give a GCG file, or - for standard input")
    if player is not None and not player.strip():
        raise BadInput("--player is empty: give a player's nickname or full name")
    if svg_path is not None:
        check_writable(svg_path, "--svg")
    from solver_cli.formats.gcg_read import parse_gcg, read_gcg_text, record_lexicon_name, replay_gcg
    from solver_cli.games.review import ReviewStopped, SimBudget, review_game

    budget = None
    if sim:
        from solver_cli.games import workers
        from solver_cli.games.selfplay import random_seed

        used = workers.capped_jobs(jobs, MAX_ITERATIONS)
        note_jobs(jobs, used, MAX_ITERATIONS, "iterations")
        budget = SimBudget(
            candidates=sim_candidates,
            plies=sim_plies,
            iterations=sim_iterations or (None if sim_time_limit is not None else DEFAULT_SIM_ITERATIONS),
            time_limit=sim_time_limit,
            seed=random_seed() if seed is None else seed,
            jobs=used,
        )
    interrupted = False

    try:
        choose_rules = record_rules_chooser(ctx, rules)
        text, name = read_gcg_text(game)
        parsed = parse_gcg(text, name)
        rule_set = choose_rules(parsed)
        chosen = record_lexicon(lexicon, record_lexicon_name(parsed), name)
        lex = load_lexicon_for(chosen, rule_set.max_side, as_json)
        with record_warnings_first():
            record = replay_gcg(parsed, rule_set, lex.contains, lex.name)
        players: tuple[int, ...] = (0, 1)
        if player is not None:
            index = record.player_index(player)
            if index is None:
                raise InputError(
                    f"--player {player}: not a player of {name} "
                    f"({record.players[0]} {record.names[0]!r}, {record.players[1]} {record.names[1]!r})"
                )
            players = (index,)
        count = len(record.turns)
        for number in show_boards:
            if number > count:
                raise InputError(f"--show-board {number}: {name} has {count} turn{'s' if count != 1 else ''}")
        # Once the record replays: a record that cannot be reviewed needs no note on leave values.
        ranking = choose_ranking(rank, leaves_path, rule_set, chosen)
        wanted = sum(1 for t in record.turns if t.player in players and t.kind in ("play", "exchange", "pass"))
        with progress_bar(not as_json and wanted > 0, "Reviewing moves", wanted, counted=True) as update:
            progress = (lambda done, _total: update(done)) if update is not None else None
            try:
                result = review_game(
                    record,
                    lex.gaddag,
                    rule_set,
                    ranking.leaves,
                    top=top,
                    players=players,
                    progress=progress,
                    endgame=endgame,
                    endgame_time_limit=endgame_time_limit,
                    sim=budget,
                )
            except ReviewStopped as exc:  # Ctrl-C or SIGTERM: the turns done so far
                result, interrupted = exc.review, True
    except ScrabError as exc:
        raise to_click_error(exc) from None

    if as_json:
        payload = review_json(result, rule_set, lex.name, show_boards, ranking, budget)
        if interrupted:  # (as selfplay's: the turns reviewed before Ctrl-C or SIGTERM, not all asked)
            payload["stopped"] = True
        click.echo(json.dumps(payload))
    else:
        warn_problems(name, record.problems)
        out = console(record=svg_path is not None)
        if result.turns:
            print_review(result, rule_set, lex.name, out, ranking, budget)
        for number in show_boards:
            print_turn_board(record, rule_set, number, out)
        if svg_path is not None:
            save_svg(out, svg_path, f"scrab review {name}")
    if interrupted:
        count = len(result.turns)
        turns = f"turn{'s' if wanted != 1 else ''}"
        if not count:
            raise stopped(f"no turn reviewed of {wanted} {turns}")
        raise stopped(f"after {count} of {wanted} {turns}; the review covers them")


# --- JSON ------------------------------------------------------------------------------------


def review_json(
    result: GameReview,
    rules: Rules,
    lexicon: str,
    boards: tuple[int, ...],
    ranking: Ranking,
    budget: SimBudget | None = None,
) -> dict[str, object]:
    from solver_cli.games.review import adjustments_json

    game = result.game
    sim = {} if budget is None else {"sim": sim_settings_json(budget)}
    return {
        "game": game.source,
        "id": record_id(game),
        "rules": rules.name,
        "lexicon": lexicon,
        "ranking": result.ranking,
        "leaves": ranking.table,
        **sim,
        "pragmas": [{"name": key, "value": value} for key, value in game.pragmas],
        "players": [
            {"nick": game.players[i], "name": game.names[i], "final_score": game.final_scores[i]} for i in (0, 1)
        ],
        "turns": [turn_json(r, game) for r in result.turns],
        "adjustments": adjustments_json(result),
        "summary": [
            {
                "player": s.nick,
                "name": s.name,
                "final_score": s.score,
                "turns": s.turns,
                "reviewed": s.reviewed,
                "matched_best": s.matched,
                "given_up": s.given_up,
                "bingos": s.bingos,
                "bingos_missed": s.bingos_missed,
                "phonies": s.phonies,
                **(
                    {"endgame_lost": s.endgame_lost, "endgame_unproven": s.endgame_unproven}
                    if s.endgame_lost is not None
                    else {}
                ),
                **(
                    {"sim_turns": s.sim_turns, "sim_best": s.sim_best, "sim_lost": s.sim_lost}
                    if s.sim_lost is not None
                    else {}
                ),
            }
            for s in result.players
        ],
        "problems": [{"line": p.line, "turn": p.turn, "kind": p.kind, "message": p.message} for p in game.problems],
        "boards": [{"after_turn": n, "rows": game.board_after(n).to_rows()} for n in boards],
    }


def sim_settings_json(budget: SimBudget) -> dict[str, object]:
    return {
        "candidates": budget.candidates,
        "plies": budget.plies,
        "iterations": budget.iterations,
        "time_limit": budget.time_limit,
        "stop": budget.stop,
        "seed": budget.seed,
        "ranked_by": "spread",
    }


def record_id(game: GameRecord) -> str | None:
    """The record's ``#id`` (``io.woogles 2r8QNJNpbP``: the site and its game), None without one."""
    return next((value for key, value in game.pragmas if key == "id" and value), None)


def turn_json(review: TurnReview, game: GameRecord) -> dict[str, object]:
    t = review.turn
    out: dict[str, object] = {
        "turn": t.number,
        "line": t.line,
        "player": game.players[t.player],
        "rack": t.rack,
        "full_rack": t.full_rack,
        "kind": t.kind,
        "move": t.move_text,
        "score": t.score,
        "total": t.total,
        "bingo": t.bingo,
        "phonies": list(t.phonies),
        "withdrawn": t.withdrawn,
        "reviewed": review.reviewed,
    }
    if t.kind == "play":
        out["position"] = t.position
        out["word"] = t.word
    if t.kind == "exchange":
        out["exchanged"] = t.exchanged or None
        out["exchange_count"] = t.exchange_count
    if not review.reviewed:
        out["reason"] = review.reason
        return out
    out.update(
        value=review.value,
        rank=review.rank,
        candidates=review.candidates,
        best_value=review.best_value,
        tied_best=review.tied_best,
        given_up=review.given_up,
        matched_best=review.matched,
        bingo_available=review.bingo_available,
        bingo_missed=review.bingo_missed,
        best=[option_json(o) for o in review.best],
    )
    if review.endgame is not None:
        verdict = review.endgame
        out["endgame"] = {
            "proven": verdict.proven,
            "best": option_json(verdict.best),
            "best_value": verdict.best_value,
            "best_moves": [option_json(o) for o in verdict.options],
            "rank": verdict.rank,
            "value": verdict.value,
            "lost": verdict.lost,
            "nodes": verdict.nodes,
            "seconds": round(verdict.seconds, 3),
        }
    if review.sim is not None:
        simulated = review.sim
        out["sim"] = {
            "rank": simulated.rank,
            "candidates": simulated.candidates,
            "added": simulated.added,
            "mean": round(simulated.mean, 3),
            "best": option_json(simulated.best),
            "best_mean": round(simulated.best_mean, 3),
            "lost": simulated.lost,
            "iterations": simulated.iterations,
            "stopped": simulated.stopped,
            "seconds": round(simulated.seconds, 3),
            "opponent_rack": simulated.opponent_rack,
        }
    return out


def option_json(option: Option) -> dict[str, object]:
    from solver_cli.cli.render import move_json

    out: dict[str, object] = {
        "kind": option.kind,
        "move": option.text,
        "value": option.value,
        "score": option.score,
        "leave_value": option.leave_value,
    }
    if option.move is not None:
        details = move_json(option.move, 0)
        for key in ("rank", "kind", "score", "leave_value"):  # said above, in the review's terms
            del details[key]
        out.update(details)
    if option.kind == "exchange":
        out["exchanged"] = option.exchanged
    return out


# --- tables ----------------------------------------------------------------------------------


def _figure(value: float | None) -> str:
    """A count or a score as it is; a figure with a fraction (equity) with one decimal."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    from solver_cli.cli.render import tenths

    return tenths(value)


def _played(t: GameTurn, bingo_missed: bool) -> tuple[Text, str]:
    """The move played, and the part of it never to break: its position, word and score."""
    from rich.text import Text

    unit = t.move_text + (f" {t.score}" if t.kind == "play" else "")
    text = Text(unit)
    if t.kind == "play" and t.bingo:
        text.append(" bingo")
    if t.phonies:
        text.append(" phony" + (", withdrawn" if t.withdrawn else ""), style="bold red")
    if bingo_missed:
        text.append(", bingo missed")
    return text, unit


@dataclass
class _Column:
    header: str
    justify: JustifyMethod = "left"
    wraps: bool = False  # its cells may wrap between words (never inside a unit)
    cells: list[Text] = field(default_factory=list)
    units: list[str] = field(default_factory=list)  # each must stay whole on one line

    def add(self, cell: Text | str, *units: str) -> None:
        from rich.text import Text

        self.cells.append(cell if isinstance(cell, Text) else Text(cell))
        self.units.extend(units or (() if self.wraps else (str(cell),)))

    def natural(self) -> int:
        """The width at which nothing wraps."""
        from rich.cells import cell_len

        lines = [line for cell in self.cells for line in cell.plain.split("\n")]
        return max([cell_len(self.header), *(cell_len(line) for line in lines)])

    def least(self) -> int:
        """The narrowest width that keeps every unit, and every word, whole."""
        from rich.cells import cell_len

        words = [w for cell in self.cells for w in cell.plain.split()] + self.header.split()
        return max([1, *(cell_len(u) for u in self.units), *(cell_len(w) for w in words)])


def fit_columns(columns: list[_Column], width: int) -> list[int] | None:
    """Each column's width, so that the table fits ``width`` with no unit and no word cut:
    every column as wide as its longest line if that fits, else the widest of the columns
    that wrap narrowed first, one character at a time, never below ``least()``. None when
    even that does not fit (Rich then wraps and cuts as it must)."""
    widths = [c.natural() for c in columns]
    floors = [c.least() if c.wraps else w for c, w in zip(columns, widths, strict=True)]
    excess = sum(widths) + 3 * len(columns) + 1 - width
    while excess > 0:
        give = [i for i, c in enumerate(columns) if c.wraps and widths[i] > floors[i]]
        if not give:
            return None
        widest = max(give, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    return widths


def print_fitted(out: Console, layouts: list[list[_Column]], title: str) -> None:
    """The first of ``layouts`` that ``fit_columns`` fits (else the last, for Rich to wrap)
    as a Rich table (``HEAVY_HEAD``, the look of every scrab table), the title on its own
    line(s) above it."""
    from rich.table import Table

    print_wrapped(out, title)
    for columns in layouts:
        widths = fit_columns(columns, out.width)
        if widths is not None:
            break
    table = Table(header_style="bold")
    for k, column in enumerate(columns):
        table.add_column(
            column.header,
            justify=column.justify,
            no_wrap=not column.wraps,
            width=widths[k] if widths is not None else None,
        )
    for row in zip(*(c.cells for c in columns), strict=True):
        table.add_row(*row)
    out.print(table)


def print_review(
    result: GameReview, rules: Rules, lexicon: str, out: Console, ranking: Ranking, budget: SimBudget | None = None
) -> None:
    """The turns, then the summary with one column per player. The position, word and
    score of a move, played or best, are never cut or wrapped: side by side in six columns
    (about 80 terminal columns for a club game), else stacked in three (about 50)."""
    from rich.text import Text

    game = result.game
    scores = f"{game.players[0]} {game.final_scores[0]}, {game.players[1]} {game.final_scores[1]}"
    digits = len(str(max((r.turn.number for r in result.turns), default=1)))
    best_header = "Best" if result.top == 1 else f"Best {result.top}"
    if result.ranking == "equity":  # the best moves' figures are their equity, not their score
        best_header += " (equity)"
    turn, rack = _Column("Turn"), _Column("Rack")
    played, rank = _Column("Played", wraps=True), _Column("Rank", "right")
    best, lost = _Column(best_header, wraps=True), _Column("Lost", "right")
    # the narrow layout: turn over rack, played over best, rank over points lost
    who, figures = _Column("Turn"), _Column("Rank", "right")
    moves = _Column(f"Played / {best_header.lower()}", wraps=True)
    # With --sim: the move played's place among the candidates simulated, the best of them
    # by mean points, and the mean points lost (in the narrow layout, under the others).
    sim_rank, sim_best, sim_lost = (
        _Column("Sim", "right"),
        _Column("Sim best (mean)", wraps=True),
        _Column("Sim lost", "right"),
    )
    for r in result.turns:
        t = r.turn
        turn_text = f"{t.number:>{digits}} {game.players[t.player]}"
        turn.add(turn_text)
        rack.add(t.rack or "-")
        who.add(f"{turn_text}\n{t.rack or '-'}", turn_text, t.rack or "-")
        played_text, played_unit = _played(t, r.reviewed and r.bingo_missed)
        played.add(played_text, played_unit)
        sim_units = _sim_cells(r, sim_rank, sim_best, sim_lost)
        if not r.reviewed:
            rank.add("-")
            best.add(Text(r.reason, style="dim"))
            lost.add("-")
            moves.add(Text.assemble(played_text, "\n", (r.reason, "dim")), played_unit)
            figures.add("-")
            continue
        options = [f"{option.text} {_figure(option.value)}" for option in r.best]
        tied = f" ({r.tied_best} tied)" if r.tied_best > 1 else ""
        verdict = r.endgame
        unproven = verdict is not None and not verdict.proven
        if verdict is not None and verdict.proven:
            options = [f"{o.text} {o.score}, endgame {o.value:+d}" for o in verdict.options]
            tied = ""
        cell, stacked = Text(), Text.assemble(played_text)
        for k, option_text in enumerate(options):
            cell.append(("\n" if k else "") + option_text)
            stacked.append("\nbest ", style="dim")
            stacked.append(option_text)
            if k == 0 and tied:
                cell.append(tied, style="dim")
                stacked.append(tied, style="dim")
        if unproven:  # the time limit cut the search: the turn keeps its equity figures
            cell.append("\n" + UNPROVEN, style="dim")
            stacked.append("\n" + UNPROVEN, style="dim")
        rank_text = f"{r.rank}/{r.candidates}"
        if verdict is not None and verdict.proven:  # the exact rank (below the moves listed: >N)
            rank_text = f"{verdict.rank if verdict.rank is not None else f'>{len(verdict.options)}'}/{r.candidates}"
        given_up = r.given_up if verdict is None or not verdict.proven else verdict.lost
        lost_text = _figure(given_up) if given_up else "-"
        rank.add(rank_text)
        best.add(cell, *options, *([UNPROVEN] if unproven else []))
        lost.add(lost_text)
        extra = [f"best {o}" for o in options] + ([UNPROVEN] if unproven else [])
        if r.sim is not None:
            stacked.append("\n" + sim_units[0], style="dim")
            extra.append(sim_units[0])
        moves.add(stacked, played_unit, *extra)
        figure_text = f"{rank_text}\nlost {lost_text}" if given_up else rank_text
        if r.sim is not None:
            figure_text += f"\nsim {sim_units[1]}" + (f"\nlost {sim_units[2]}" if r.sim.lost else "")
        figures.add(figure_text)
    game_id = record_id(game)
    source = f"{game.source} (#id {game_id})" if game_id else game.source
    title = f"{source}: {scores}, ranked by {ranking.phrase}  ({rules.name}, {lexicon})"
    wide = [turn, rack, played, rank, best, lost]
    if budget is not None:
        wide += [sim_rank, sim_best, sim_lost]
    print_fitted(out, [wide, [who, moves, figures]], title)
    if any(r.endgame is not None and r.endgame.proven for r in result.turns):
        print_wrapped(
            out,
            "Turns with an endgame value were settled by the exact endgame solver: the best move, its value "
            "(the final spread change with both sides at their best), the move played's exact rank (>N: below "
            "the N moves listed) and the points it lost.",
        )
    if any(r.endgame is not None and not r.endgame.proven for r in result.turns):
        print_wrapped(
            out,
            f'"{UNPROVEN}": the endgame search was cut by its time limit (--endgame-time-limit) before it '
            "proved a value; the turn keeps its equity figures.",
        )
    if budget is not None:
        print_wrapped(out, sim_note(budget))
        shown = [(r.turn.number, r.sim.opponent_rack) for r in result.turns if r.sim and r.sim.opponent_rack]
        if shown:
            print_wrapped(out, shown_note(shown))

    # One column per player and a row per figure: narrow at any width, however many figures.
    figures = _Column("")
    lost_name = "Points lost" if result.ranking == "score" else "Equity lost"
    endgame = any(s.endgame_lost is not None for s in result.players)
    unproven = any(s.endgame_unproven for s in result.players)
    simulated = any(s.sim_lost is not None for s in result.players)
    names = ["Score", "Moves", "Reviewed", "Best found", lost_name, "Bingos", "Bingos missed", "Phonies"]
    names += ["Endgame points lost"] if endgame else []
    names += ["Endgames not proven"] if unproven else []
    names += ["Simulated", "Best by simulation", "Sim points lost"] if simulated else []
    for name in names:
        figures.add(name)
    summary = [figures]
    for s in result.players:
        column = _Column(s.nick, "right")
        values: list[float | None] = [
            s.score,
            s.turns,
            s.reviewed,
            s.matched,
            s.given_up,
            s.bingos,
            s.bingos_missed,
            s.phonies,
        ]
        values += [s.endgame_lost] if endgame else []
        values += [s.endgame_unproven] if unproven else []
        values += [s.sim_turns, s.sim_best, s.sim_lost] if simulated else []
        for value in values:
            column.add(_figure(value))
        summary.append(column)
    print_fitted(out, [summary], "Summary")


UNPROVEN = "endgame not proven"


def _sim_cells(r: TurnReview, rank: _Column, best: _Column, lost: _Column) -> tuple[str, str, str]:
    """The turn's simulation in the wide layout's three columns; (the best, the rank, the
    points lost) as the narrow layout shows them."""
    simulated = r.sim
    if simulated is None:
        for column in (rank, best, lost):
            column.add("-")
        return "", "", ""
    best_text = f"{simulated.best.text} {simulated.best_mean:.1f}"
    rank_text = f"{simulated.rank}/{simulated.candidates}" + (SHOWN_MARK if simulated.opponent_rack else "")
    lost_text = f"{simulated.lost:.1f}" if simulated.lost else "-"
    rank.add(rank_text)
    best.add(best_text, best_text)
    lost.add(lost_text)
    return f"sim best {best_text}", rank_text, lost_text


# A simulation played against the tiles the opponent's phony showed (the Sim column's rank).
SHOWN_MARK = "*"


def shown_note(shown: list[tuple[int, str]]) -> str:
    turns = "; ".join(f"turn {number}: {tiles}" for number, tiles in shown)
    return (
        f"{SHOWN_MARK} Simulated against the tiles the opponent's phony, taken back just before, showed on its "
        f"rack ({turns}); any other tiles it held drawn from the unseen ones."
    )


def sim_note(budget: SimBudget) -> str:
    budget_text = " and ".join(
        part
        for part in (
            f"{budget.iterations:,} iterations" if budget.iterations is not None else "",
            f"{budget.time_limit:g} s" if budget.time_limit is not None else "",
        )
        if part
    )
    plies = f"{budget.plies} {'ply' if budget.plies == 1 else 'plies'}"
    return (
        f"Sim: the move played's place among the {budget.candidates} best moves by equity (and itself when not "
        f"among them), simulated {plies} ahead, at most {budget_text} a turn, seed {budget.seed}; ranked by mean "
        "points, which the sim's best and the points lost are in."
    )


def print_turn_board(game: GameRecord, rules: Rules, number: int, out: Console) -> None:
    from solver_cli.cli.render import board_text

    turn = game.turns[number - 1]
    out.print(f"Board after turn {number} ({game.players[turn.player]}: {turn.move_text})")
    out.print(board_text(game.board_after(number), rules, _as_move(turn) if turn.kind == "play" else None))


def _as_move(turn: GameTurn) -> Move | None:
    """The recorded play as a ``Move`` for the board drawing (None once withdrawn)."""
    from solver_cli.engine.alphabet import BLANK_BIT, letter_of
    from solver_cli.engine.scoring import Move, Tile

    if turn.withdrawn:
        return None
    tiles = tuple(Tile(r, c, letter_of(code).upper(), bool(code & BLANK_BIT)) for r, c, code in turn.placed)
    return Move(
        row=turn.row,
        col=turn.col,
        down=turn.down,
        word=turn.word.replace("(", "").replace(")", ""),
        notation=turn.word,
        score=turn.score,
        placed=tiles,
        leave="",
        cross_words=(),
        bingo=turn.bingo,
    )

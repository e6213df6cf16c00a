"""``scrab peg``: the pre-endgame solver, each candidate played out over every draw."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    BadInput,
    choose_ranking,
    console,
    json_option,
    print_wrapped,
    progress_bar,
    stopped,
    to_click_error,
    warn,
)
from solver_cli.cli._game import (
    game_lexicon,
    game_setting,
    position_options,
    read_game,
    refuse_over_full,
    shown_opponent_tiles,
    warn_position,
)
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from solver_cli.engine.board import Board
    from solver_cli.engine.movegen import Candidate
    from solver_cli.engine.rules import Rules
    from solver_cli.lookahead.peg import PegCandidate, PegResult

MAX_BAG_SHOWN = 2  # the text lists the outcome by the bag's tiles up to this many (JSON: always)
MODEL_PHRASES = {
    "best reply": "best reply: the opponent replies at its best knowing only its own rack",
    "pessimistic": "pessimistic: the opponent replies worst for you, as if it saw your rack",
}


def move_text(board: Board, rules: Rules, rack: list[int], move: Candidate) -> str:
    from solver_cli.engine.ranking import candidate_move

    return candidate_move(board, rules, rack, move).text


@click.command()
@position_options("Your rack, ? for a blank, e.g. 'AEIRST?' (quoted for the shell).")
@click.option(
    "--top",
    "-n",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="Play out the N best moves by equity (and the pass).",
)
@click.option(
    "--max-bag",
    type=click.IntRange(1, 7),
    default=2,
    show_default=True,
    help="The most tiles in the bag to take on (each more multiplies the work).",
)
@click.option(
    "--pessimistic",
    is_flag=True,
    help="The opponent replies with what is worst for you, as if it saw your rack (default: its best reply).",
)
@click.option(
    "--spread",
    type=click.IntRange(-1_000_000, 1_000_000),  # (lookahead.peg.MAX_SPREAD)
    default=None,
    help="Your score minus the opponent's before the move (default: from a game record or CGP scores, else 0).",
)
@click.option(
    "--plies",
    type=click.IntRange(1, 64),
    default=None,
    help="Search the last stage's endgames N plies deep (default: to the end, exactly).",
)
@click.option(
    "--exhaustive",
    is_flag=True,
    help="Search every move in the last stage (default: stages keep the best few).",
)
@click.option(
    "--exact-spread",
    is_flag=True,
    help="Solve the last stage's endgames for their final spread too (default: only who wins each; slower).",
)
@click.option(
    "--opponent-rack",
    metavar="TILES",
    help="Tiles you know the opponent holds, some or all of its rack (say a phony challenged off showed them).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(0, 86_400, min_open=True),
    metavar="SECONDS",
    default=None,
    help="Stop after this long, each move with its figures from the last stage it finished.",
)
@json_option
@click.pass_context
def peg(
    ctx: click.Context,
    board: str,
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    top: int,
    max_bag: int,
    pessimistic: bool,
    spread: int | None,
    plies: int | None,
    exhaustive: bool,
    exact_spread: bool,
    opponent_rack: str | None,
    time_limit: float | None,
    as_json: bool,
) -> None:
    """Solve a pre-endgame: with 1 or 2 tiles in the bag (more with --max-bag), each of the
    best moves by equity and the pass, played out over every way the unseen tiles can lie
    between the opponent's rack and the bag, each game to its end.

    The moves are searched in stages (as MAGPIE): first every move by greedy play-outs,
    then the best half with endgames 1 ply deep, then the best 2 solved to the end (or
    --plies deep); the list is ranked by the stage reached, then by win rate, then by
    mean spread. A move of the last stage that can no longer rank above the best one
    found there is cut off, and keeps the stage before's figures (as Macondo's early
    cutoff); --exhaustive searches every move in the last stage, to its end. The last
    stage settles only who wins each draw (a null-window search, far faster), and a move's
    mean spread there is the stage before's estimate, marked ~; --exact-spread solves for
    the spread too.

    POSITION is anything scrab solve reads (a board file, - for standard input, a CGP
    position, a GCG game record with --turn N, whose rules, rack and spread are used).

    For each move: the draws won (a tie counts half) of all the equally likely ways the
    tiles can lie, the win rate, the mean final spread, how many endgames were valued and
    how deep (exact when every one was proven).
    The opponent replies at its best, knowing only its own rack (as MAGPIE); --pessimistic
    takes the reply worst for you instead. With --opponent-rack only the ways the tiles can
    lie that give the opponent those tiles are played out; from a game record, so are the
    tiles of the opponent's play taken back just before --turn N (a phony challenged off).
    Ctrl-C prints the moves finished so far.

    \b
    Examples:
      scrab peg boards/peg.gcg --turn 25 --top 5 --time-limit 20
      scrab peg boards/peg.gcg --turn 25 --top 1 --pessimistic --time-limit 2 --json
    """
    if opponent_rack is not None and not opponent_rack.strip():
        raise BadInput("--opponent-rack is empty: give the tiles you know it holds, e.g. --opponent-rack 'QU'")
    try:
        position, rule_set, counts = read_game(ctx, board, rules, turn, rack)
        if opponent_rack is None and position.opponent_rack is not None:
            warn(
                f"{position.name}: the opponent's tiles the CGP gives ({position.opponent_rack}) are not used: "
                "every way the unseen tiles can lie is played out (--opponent-rack uses tiles you give)"
            )
        known, shown = None, None
        if opponent_rack is not None:
            from solver_cli.engine.alphabet import parse_rack

            try:
                known = parse_rack(opponent_rack, rule_set.rack_size)
            except ScrabError as exc:
                raise BadInput(f"--opponent-rack: {exc}") from None
        else:
            shown = shown_opponent_tiles(position)
            known = None if shown is None else shown.tiles
        setting = game_setting(position, rule_set, check_spread=spread is None)  # (--spread replaces it)
        the_spread = spread if spread is not None else setting.scores[0] - setting.scores[1]
        scoreless = setting.scoreless
        from solver_cli.engine.unseen import unseen_tiles
        from solver_cli.lookahead.peg import MAX_BAG_LIMIT, pre_endgame_bag

        refuse_over_full(unseen_tiles(position.board, counts, rule_set), rule_set)  # (before counting the bag)
        in_bag = pre_endgame_bag(position.board, counts, rule_set)
        if in_bag == 0:
            raise BadInput(f"{position.name}: the bag is empty: this is an endgame (use scrab endgame)")
        if in_bag > max_bag:
            if in_bag <= MAX_BAG_LIMIT:
                takes = f"1 to {max_bag} (--max-bag {in_bag} takes it on)"
            elif max_bag < MAX_BAG_LIMIT:
                takes = f"1 to {max_bag} (at most {MAX_BAG_LIMIT} with --max-bag)"
            else:
                takes = f"at most {MAX_BAG_LIMIT}"
            raise BadInput(f"{position.name}: the bag holds {in_bag} tiles; scrab peg takes {takes}")
        if known is not None:  # (said before the word list is loaded and the position warned about)
            from solver_cli.engine.unseen import check_opponent_tiles

            unseen = list(unseen_tiles(position.board, counts, rule_set).counts)
            try:
                check_opponent_tiles(known, unseen, sum(unseen) - in_bag)
            except ScrabError as exc:
                where = f"{position.name}: the tiles of {shown.text}" if shown else "--opponent-rack"
                raise BadInput(f"{where}: {exc}") from None
            if shown is not None:
                from solver_cli.engine.alphabet import rack_text

                click.echo(
                    f"Note: the opponent holds {rack_text(known)}, shown by {shown.text}; only the draws that leave "
                    "it those tiles are played out (--opponent-rack replaces them)",
                    err=True,
                )
        chosen_lexicon, lex = game_lexicon(lexicon, position, rule_set, as_json)
        warn_position(position.board, counts, rule_set, lex)
        ranking = choose_ranking("equity", None, rule_set, chosen_lexicon)
    except ScrabError as exc:
        raise to_click_error(exc) from None

    from solver_cli.lookahead.peg import BEST_REPLY, PESSIMISTIC, PegStopped, solve_pre_endgame

    interrupted = False
    try:
        with progress_bar(not as_json, "Playing out the draws", 1.0) as update:
            progress = (lambda done, total, _last: update(done / total)) if update is not None else None
            result = solve_pre_endgame(
                position.board,
                counts,
                lex.gaddag,
                rule_set,
                leaves=ranking.leaves,
                spread=the_spread,
                scoreless=scoreless,
                top=top,
                max_bag=max_bag,
                model=PESSIMISTIC if pessimistic else BEST_REPLY,
                time_limit=time_limit,
                progress=progress,
                plies=plies,
                exhaustive=exhaustive,
                exact_spread=exact_spread,
                opponent_rack=known,
            )
    except PegStopped as exc:  # Ctrl-C or SIGTERM: the moves finished so far
        result, interrupted = exc.result, True
    except ScrabError as exc:
        raise to_click_error(exc) from None

    from solver_cli.engine.alphabet import rack_text

    texts = [move_text(position.board, rule_set, counts, c.move) for c in result.candidates]
    if as_json:
        from solver_cli.cli.render import exact_points, json_text

        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "rack": rack_text(counts),
            "board": position.name,
            "model": result.model,
            "bag": result.bag,
            "unseen": result.unseen,
            "draws": result.draws,
            "opponent_rack": None if result.opponent_rack is None else rack_text(list(result.opponent_rack)),
            "opponent_rack_source": None if result.opponent_rack is None else "shown" if shown else "given",
            "spread": result.spread,
            "considered": result.considered,
            "finished": len(result.candidates),
            "stopped": result.stopped,
            "seconds": result.seconds,
            "exhaustive": exhaustive,
            "stages": [
                {"plies": stage.plies, "moves": stage.moves, "first_win": stage.first_win} for stage in result.stages
            ],
            "moves": [
                {
                    "rank": rank,
                    "move": text,
                    "kind": "place" if c.move.kind == 0 else "pass",
                    "score": c.move.score,
                    "equity": exact_points(c.move.equity),
                    "wins": c.wins,
                    "draws": c.draws,
                    "win_rate": c.win_rate,
                    "spread_mean": c.spread_mean,
                    "spread_exact": c.spread_exact,
                    "endgames": c.endgames,
                    "proven": c.proven,
                    "stage": c.stage,
                    "plies": c.plies,
                    "cut_off": c.cut_off,
                    "wins_at_most": c.wins_at_most,
                    "by_bag": [{"bag": rack_text(list(o.bag)), "draws": o.draws, "wins": o.wins} for o in c.by_bag],
                }
                for rank, (c, text) in enumerate(zip(result.candidates, texts, strict=True), 1)
            ],
        }
        click.echo(json_text(payload))
    else:
        print_result(result, texts, rack_text(counts), position.name)
    if interrupted:
        raise stopped(finished_text(result))


def print_result(result: PegResult, texts: list[str], rack: str, name: str) -> None:
    from rich.table import Table

    from solver_cli.lookahead.peg import shown_win_rate, shown_wins

    out = console()
    tiles = "tile" if result.bag == 1 else "tiles"
    known = ""
    if result.opponent_rack is not None:
        from solver_cli.engine.alphabet import rack_text

        known = f" (the opponent holds {rack_text(list(result.opponent_rack))})"
    print_wrapped(
        out,
        f"Pre-endgame for {rack} on {name}: {result.bag} {tiles} in the bag, {result.unseen} unseen{known}, "
        f"{result.draws:,} {'draw' if result.draws == 1 else 'draws'}; spread {result.spread:+d}",
    )
    print_wrapped(out, f"Opponent model: {MODEL_PHRASES[result.model]}")
    table = Table(header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("Move", overflow="fold")
    table.add_column("Score", justify="right", no_wrap=True)  # (figures are never cut)
    table.add_column("Wins", justify="right", no_wrap=True)
    table.add_column("Win %", justify="right", no_wrap=True)
    table.add_column("Spread", justify="right", no_wrap=True)
    table.add_column("Endgames", justify="right")
    table.add_column("Searched", overflow="fold")
    for rank, (c, text) in enumerate(zip(result.candidates, texts, strict=True), 1):
        # a move cut off below its estimate: the most the last stage left it, marked ≤
        bounded = "≤" if shown_wins(c) < c.wins else ""
        wins = f"{shown_wins(c):,.1f}".removesuffix(".0")
        table.add_row(
            str(rank),
            text,
            str(c.move.score),
            f"{bounded}{wins}/{c.draws:,}",
            f"{bounded}{100 * shown_win_rate(c):.1f}%",
            ("" if c.spread_exact else "~") + f"{c.spread_mean:+.1f}",
            f"{c.endgames:,}",
            depth_text(c.plies, c.proven, c.spread_exact) + (", cut off" if c.cut_off else ""),
        )
    if result.candidates:
        out.print(table)
    if result.candidates and result.bag <= MAX_BAG_SHOWN:
        print_wrapped(
            out, f"By the {'tile' if result.bag == 1 else 'tiles'} in the bag (as exact as the Searched column says):"
        )
        for rank, (c, text) in enumerate(zip(result.candidates, texts, strict=True), 1):
            item = f"  {rank}. "
            if shown_wins(c) < c.wins:  # (cut off below the estimate the list would show)
                most = f"{shown_wins(c):,.1f}".removesuffix(".0")
                line = f"{item}{text}: cut off, at most {most} of the {c.draws:,} draws won"
            else:
                line = f"{item}{text}: {bag_text(c)}"
            print_wrapped(out, line, indent=len(item))
    if len(result.stages) > 1:
        stages = "; ".join(stage_text(s.plies, s.moves, s.first_win) for s in result.stages)
        print_wrapped(out, ("Stages planned: " if result.stopped else "Stages: ") + stages)
    if any(not c.spread_exact for c in result.candidates):
        print_wrapped(
            out, "~: the stage before's estimate, as the last stage settles who wins (--exact-spread: the spread)"
        )
    if any(c.cut_off for c in result.candidates):
        print_wrapped(
            out,
            "cut off: the last stage stopped searching the move once it could no longer rank above #1; its "
            "figures are the stage before's (≤: but for the most it could still win, where that is less)",
        )
    if result.stopped == "time":
        print_wrapped(out, f"Stopped by the time limit: {finished_text(result)}")


def bag_text(candidate: PegCandidate) -> str:
    """Which tiles in the bag the move wins with and which it loses with (a tie, or the
    chance of a draw from the bag after it, as a percentage), for the text output; ×N where
    the bag can hold them N ways (the draws with that bag)."""
    from solver_cli.engine.alphabet import rack_text

    won: list[str] = []
    lost: list[str] = []
    shared: dict[str, list[str]] = {}  # by the share won, "50%"
    for outcome in sorted(candidate.by_bag, key=lambda o: rack_text(list(o.bag))):
        tiles = rack_text(list(outcome.bag)) + (f"×{outcome.draws}" if outcome.draws > 1 else "")
        if outcome.wins >= outcome.draws:
            won.append(tiles)
        elif outcome.wins <= 0:
            lost.append(tiles)
        else:
            shared.setdefault(f"{100 * outcome.wins / outcome.draws:.0f}%", []).append(tiles)
    if len(candidate.by_bag) > 1 and not lost and not shared:
        return "wins whatever the bag holds"
    if len(candidate.by_bag) > 1 and not won and not shared:
        return "loses whatever the bag holds"
    parts = [f"wins with {' '.join(won)}"] if won else []
    parts += [f"loses with {' '.join(lost)}"] if lost else []
    parts += [f"{share} with {' '.join(tiles)}" for share, tiles in shared.items()]
    return "; ".join(parts)


def finished_text(result: PegResult) -> str:
    """How far a stopped search got: the moves finished, or in stages the stage reached."""
    if len(result.stages) > 1 and result.reached and result.candidates:
        figures = "each move has the figures of the last stage it finished"
        return f"in stage {result.reached} of {len(result.stages)}; {figures}"
    return f"{len(result.candidates)} of {result.considered} moves finished"


def depth_text(plies: int | None, proven: bool, spread_exact: bool = True) -> str:
    """How deep a move's endgames were searched, for the table."""
    if proven:
        return "exact" if spread_exact else "who wins: exact"
    if plies is None:  # (not proven: a move leaving tiles in the bag, whose reply is chosen by play-outs)
        return "to the end"
    if plies == 0:
        return "greedy play-outs"
    return f"{plies} ply" if plies == 1 else f"{plies} plies"


def stage_text(plies: int | None, moves: int, first_win: bool = False) -> str:
    depth = (
        "to the end"
        if plies is None
        else "by greedy play-outs"
        if plies == 0
        else "1 ply deep"
        if plies == 1
        else f"{plies} plies deep"
    )
    return f"{moves} {'move' if moves == 1 else 'moves'} {depth}" + (", who wins" if first_win else "")

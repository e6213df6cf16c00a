"""``scrab infer``: the leaves the opponent may have kept, judged by its last play."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    BadInput,
    choose_ranking,
    complete_path,
    json_option,
    leaves_option,
    lexicon_options,
    load_lexicon_for,
    progress_bar,
    to_click_error,
)
from solver_cli.cli._game import position_lexicon, rack_counts, read_game_position, turn_option, warn_position
from solver_cli.cli._lastplay import described, move_line, recorded_move
from solver_cli.errors import IllegalMove, ScrabError
from solver_cli.lookahead.infer import DEFAULT_LIMIT, DEFAULT_MARGIN, MAX_LIMIT, MAX_MARGIN

if TYPE_CHECKING:
    from solver_cli.engine.board import Board
    from solver_cli.engine.rules import Rules
    from solver_cli.lexicon import Lexicon
    from solver_cli.lookahead.infer import Inference, OpponentPlay


@click.command()
@click.argument("board", metavar="BOARD", shell_complete=complete_path)
@click.option("--rack", help="Your rack (taken from a CGP position or the game record's turn when not given).")
@click.option(
    "--last-play",
    metavar="MOVE",
    help="The opponent's last move on BOARD: '8D WORD' (H8 down), 'exchange N' or 'pass' "
    "(a game record gives it itself).",
)
@turn_option
@lexicon_options
@leaves_option
@click.option(
    "--margin",
    type=click.FloatRange(0, MAX_MARGIN),
    default=DEFAULT_MARGIN,
    show_default=True,
    metavar="POINTS",
    help="Keep a rack when the play is within this many points of its best equity.",
)
@click.option(
    "--top", "-n", type=click.IntRange(min=1), default=10, show_default=True, help="Show the N likeliest leaves."
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    metavar="N",
    help="Search at most N racks; when more are possible, N random draws instead (an estimate).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="The random draws' seed (past --limit).")
@json_option
@click.pass_context
def infer(
    ctx: click.Context,
    board: str,
    rack: str | None,
    last_play: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    leaves_path: str | None,
    margin: float,
    top: int,
    limit: int,
    seed: int,
    as_json: bool,
) -> None:
    """The leaves the opponent may have kept, judged by its last play.

    Every rack the opponent could have held (from the tiles unseen to you: not on the board,
    not on your rack) is tried; it is kept when the play made is within --margin points of
    that rack's best equity (MAGPIE's rule), and weighted by the ways it could have been
    drawn. An exchange is judged by the best exchange of as many tiles; a pass says nothing.

    BOARD is a GCG game record (--turn N: the opponent's move before turn N, seen by the
    player of turn N; without --turn, the last move), or a position as scrab solve reads it,
    before the opponent's move, which --last-play gives.

    \b
    Examples:
      scrab infer boards/example.gcg --turn 7
      scrab infer boards/empty.txt --rack EEILNOU --last-play '8D FAIRED' --json
    """
    from solver_cli.engine.alphabet import rack_text
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.infer import infer as run_infer

    if rack is not None and not rack.strip():
        raise BadInput("--rack is empty: give your rack, e.g. --rack 'AEIRST?' (quoted for the shell)")
    try:
        position, rule_set = read_game_position(ctx, board, rules, turn)
        # (the record's word list is chosen, with its warning, before the move is checked)
        chosen_lexicon = position_lexicon(lexicon, position)
        game = position.game
        if game is not None:
            if last_play is not None:
                raise click.UsageError("--last-play cannot be used with a game record: the record gives the move", ctx)
            before, play, shown = recorded_move(game, position.turn or len(game.turns) + 1)
            board_before = game.board_before(before)
            lex = load_lexicon_for(chosen_lexicon, rule_set.max_side, as_json)
        else:
            if last_play is None:
                raise click.UsageError(
                    "Missing option '--last-play': BOARD is no game record, so give the opponent's move "
                    "(e.g. --last-play '8D FAIRED')",
                    ctx,
                )
            board_before = position.board
            lex = load_lexicon_for(chosen_lexicon, rule_set.max_side, as_json)
            play, shown = given_move(board_before, rule_set, lex, last_play)
        counts = rack_counts(rack, position, rule_set.rack_size, rule_set.name)
        warn_position(board_before, counts, rule_set, lex)
        ranking = choose_ranking("equity", leaves_path, rule_set, chosen_lexicon)
        assert ranking.leaves is not None
        unseen = unseen_tiles(board_before, counts, rule_set)
        with progress_bar(not as_json, "Trying racks", 1.0, lazy=True) as update:
            bar = update

            def report(done: int, total: int) -> None:
                if bar is not None:
                    bar(done / total)

            result = run_infer(
                board_before,
                unseen.counts,
                play,
                rule_set,
                lex.gaddag,
                ranking.leaves,
                margin=margin,
                limit=limit,
                seed=seed,
                progress=report,
            )
    except IllegalMove as exc:
        raise click.ClickException(f"illegal move: {exc}") from None
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if as_json:
        from solver_cli.cli.render import json_text

        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "leaves": ranking.table,
            "board": position.name,
            "rack": rack_text(counts),
            "unseen": unseen.text(),
            **inference_json(result, shown, top),
        }
        click.echo(json_text(payload))
        return
    print_inference(result, shown, top, ranking.table)


def given_move(board: Board, rules: Rules, lex: Lexicon, text: str) -> tuple[OpponentPlay, dict[str, object]]:
    """The ``--last-play`` move on ``board``: a placement (checked and scored), an exchange of
    N tiles, or the pass."""
    from solver_cli.lookahead.infer import EXCHANGE, PASS, parse_opponent_play

    play, shown = parse_opponent_play(board, rules, text, lex.contains, lex.name, "--last-play")
    return play, described(shown, None if play.kind == PASS else 0 if play.kind == EXCHANGE else play.score)


def inference_json(result: Inference, shown: dict[str, object], top: int) -> dict[str, object]:
    return {
        "last_play": shown,
        "kind": result.play.kind,
        "method": result.method,
        "margin": result.margin,
        "leave_size": result.leave_size,
        "considered": result.considered,
        "kept": result.kept,
        "kept_share": result.kept_share,
        "distinct_leaves": len(result.leaves),
        "note": result.note or None,
        "top": [{"leave": leave.text, "draws": leave.draws, "weight": leave.weight} for leave in result.leaves[:top]],
    }


def print_inference(result: Inference, shown: dict[str, object], top: int, table: str | None) -> None:
    from solver_cli.cli._common import console, print_wrapped
    from solver_cli.cli.table import Column, print_table
    from solver_cli.lookahead.infer import EXACT, KNOWN, SAMPLED

    out = console()
    unit = "exchange racks" if result.play.kind == "exchange" else "racks"
    print_wrapped(out, f"The opponent's last move: {move_line(shown, result.play.kind)}")
    if result.method == KNOWN:
        print_wrapped(out, "The bag was empty: the opponent held every unseen tile.")
    elif result.method in (EXACT, SAMPLED):
        tried = (
            f"{result.considered:,} {unit} tried"
            if result.method == EXACT
            else f"{result.considered:,} random draws (more racks than --limit)"
        )
        print_wrapped(
            out,
            f"{tried}; {result.kept:,} kept, within {result.margin:g} points of their best equity "
            f"({table} leaves): {result.kept_share:.1%} of the ways to draw them",
        )
    else:
        print_wrapped(out, f"Nothing learnt: {result.note}; the opponent's rack is a random draw.")
        return
    rows = [
        [str(rank), leave.text, f"{leave.weight:.1%}", f"{leave.draws:,}"]
        for rank, leave in enumerate(result.leaves[:top], 1)
    ]
    columns = [Column("#", "right"), Column("Leave"), Column("Weight", "right"), Column("Draws", "right")]
    print_table(out, columns, rows, one_line_width=None)
    if len(result.leaves) > top:
        print_wrapped(out, f"The {top} likeliest of {len(result.leaves):,} leaves (--top to see more).")

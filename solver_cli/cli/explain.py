"""``scrab explain``: replay the generator's GADDAG walk for one move."""

from __future__ import annotations

import json

import click

from solver_cli.cli._common import (
    check_rank,
    choose_ranking,
    complete_path,
    json_option,
    leaves_option,
    lexicon_options,
    parse_rank,
    rank_option,
    to_click_error,
)
from solver_cli.cli._game import game_lexicon, read_game, turn_option
from solver_cli.errors import IllegalMove, InputError, ScrabError


@click.command()
@click.argument("board", metavar="BOARD", shell_complete=complete_path)
@click.argument("move", nargs=-1, required=True, metavar="MOVE")
@click.option("--rack", help="The rack (taken from a CGP position or a game record's turn when not given).")
@turn_option
@lexicon_options
@rank_option
@leaves_option
@json_option
@click.pass_context
def explain(
    ctx: click.Context,
    board: str,
    move: tuple[str, ...],
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    rank: str,
    leaves_path: str | None,
    as_json: bool,
) -> None:
    """Show how the GADDAG finds MOVE on BOARD, step by step.

    MOVE is a move in standard notation (8H RETAINS, or H8 for down) or a rank in the
    list `scrab solve` prints for the same board, rack, --rank and --leaves (the # column;
    1 is the best). BOARD may be a GCG game record: --turn N explains a move on the
    position before turn N.

    \b
    Examples:
      scrab explain boards/midgame.txt --rack RETAINS 1
      scrab explain boards/midgame.txt --rack RETAINS --rank score 2
      scrab explain boards/opening.txt --rack SQ 8D FORMATS
      scrab explain boards/example.gcg --turn 10 1
    """
    from solver_cli.engine.explain import explain_play
    from solver_cli.engine.play import check_play
    from solver_cli.engine.ranking import solve as run_solve
    from solver_cli.engine.unseen import valuation_for

    check_rank(ctx, rank, leaves_path)
    text = " ".join(move).strip()
    try:
        loaded, rule_set, counts = read_game(ctx, board, rules, turn, rack)
        chosen_lexicon, lex = game_lexicon(lexicon, loaded, rule_set, as_json)
        number = parse_rank(text)
        if number is not None:
            # The rank is in solve's list, so it is ranked the same way.
            ranking = choose_ranking(rank, leaves_path, rule_set, chosen_lexicon)
            valuation = valuation_for(loaded.board, counts, rule_set, ranking.leaves)
            ranked = run_solve(loaded.board, counts, lex.gaddag, rule_set, limit=number, valuation=valuation).moves
            if not 1 <= number <= len(ranked):
                raise InputError(f"there is no move ranked {number} (the list has {len(ranked)})")
            chosen = ranked[number - 1]
            if chosen.kind != "place":
                raise InputError(
                    f"the move ranked {number} is {chosen.text}, which places no tile: there is no GADDAG walk to show"
                )
            position, word = chosen.position, chosen.notation.replace("(", "").replace(")", "")
        else:
            parts = text.split()
            if len(parts) != 2:
                raise InputError(f"bad move {text!r}: give a position and a word, e.g. 8H RETAINS, or a rank")
            position, word = parts
        played = check_play(loaded.board, rule_set, position, word, lex.contains, lex.name, counts)
        trace = explain_play(loaded.board, rule_set, lex.gaddag, counts, played)
    except IllegalMove as exc:
        raise click.ClickException(f"illegal move: {exc}") from None
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if as_json:
        from dataclasses import asdict

        click.echo(json.dumps({"position": position.upper(), **asdict(trace)}))
        return
    from solver_cli.cli.render import print_trace

    print_trace(trace, position.upper())

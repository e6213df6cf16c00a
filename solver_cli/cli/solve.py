"""``scrab solve``: every legal move for a rack, ranked, as a table or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    BadInput,
    check_rank,
    check_writable,
    choose_ranking,
    given,
    json_option,
    leaves_option,
    option_name,
    rank_option,
    refuse_empty_rack,
    refuse_together,
    require,
    save_svg,
    to_click_error,
)
from solver_cli.cli._game import game_lexicon, position_options, read_game, warn_position
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from solver_cli.engine.scoring import Move


@click.command()
@position_options("Rack letters, ? for a blank, e.g. 'AEIRST?' (quoted for the shell).", metavar="BOARD")
@rank_option
@leaves_option
@click.option("--top", "-n", type=click.IntRange(min=1), default=20, show_default=True, help="Show the N best moves.")
@click.option("--all", "show_all", is_flag=True, help="List every legal move.")
@json_option
@click.option("--show-board", is_flag=True, help="Draw the board with the top move (or --move N) highlighted.")
@click.option(
    "--move",
    "move_rank",
    type=click.IntRange(min=1),
    default=1,
    help="With --show-board: the rank of the move to highlight.",
)
@click.option(
    "--fold-blanks/--no-fold-blanks",
    default=True,
    help="In the table, show the moves that differ only in what the blank stands for as one row "
    "(the default); JSON always lists every move.",
)
@click.option("--at", metavar="SQUARE", help="Only moves whose main word covers SQUARE, e.g. H8 (8H names it too).")
@click.option("--min-length", type=click.IntRange(min=1), help="Only main words of at least this length.")
@click.option("--max-length", type=click.IntRange(min=1), help="Only main words of at most this length.")
@click.option("--must-use", metavar="LETTERS", help="Only moves that play these rack tiles ('?' for a blank).")
@click.option("--min-score", type=int, help="Only moves scoring at least this.")
@click.option("--word", metavar="PATTERN", help="Only main words matching PATTERN: ? one letter, * any run.")
@click.option(
    "--sort",
    type=click.Choice(["rank", "score", "length", "tiles"]),
    default="rank",
    show_default=True,
    help="Order of the list: the --rank order, or highest score, longest main word or most tiles "
    "played first (ties in the --rank order).",
)
@click.option("--cgp", "print_cgp", is_flag=True, help="Also print the position as a CGP string.")
@click.option(
    "--sim",
    "simulate_moves",
    is_flag=True,
    help="Rank the best moves by simulating two plies ahead, as scrab sim does with its defaults "
    "(the --top N best by equity, 10 unless given).",
)
@click.option(
    "--svg",
    "svg_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also save what is printed (table, board) as an SVG image in FILE.",
)
@click.pass_context
def solve(
    ctx: click.Context,
    board: str,
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    rank: str,
    leaves_path: str | None,
    top: int,
    show_all: bool,
    as_json: bool,
    show_board: bool,
    move_rank: int,
    fold_blanks: bool,
    at: str | None,
    min_length: int | None,
    max_length: int | None,
    must_use: str | None,
    min_score: int | None,
    word: str | None,
    sort: str,
    print_cgp: bool,
    svg_path: str | None,
    simulate_moves: bool,
) -> None:
    """Every legal move for the rack (--rack) on the board BOARD, ranked by equity.

    BOARD is a board file, - for standard input, a CGP position (a string or a file
    holding one; its rack is used when --rack is not given), or a GCG game record
    (--turn N: the position before turn N, with that turn's rack).

    Equity is the score plus the value of the tiles kept (the leave), from the leave table
    trained for the rules and word list; the exchanges (when the bag allows one) and the
    pass are moves too. --rank score ranks by score alone, exchanges and the pass last.

    In the table, moves that differ only in what a blank stands for (same squares, score,
    leave and cross-words) share one row, with the letters the blank can be; the # column
    keeps each row's rank in the full list (the rank --move and scrab explain take).

    \b
    Examples:
      scrab solve boards/midgame.txt --rack 'AEIRST?'
      scrab solve boards/wwf-midgame.txt --rules wwf --rack QUIZERS --json
      scrab solve boards/midgame.txt --rack RETAINS --at N8 --show-board
      scrab solve boards/midgame.txt --rack 'AEIRST?' --must-use '?' --max-length 5
      scrab solve boards/example.gcg --turn 10
      scrab solve boards/midgame.txt --rack UUVWQIO --top 5
      scrab solve boards/midgame.txt --rack RETAINS --rank score --top 5
    """
    refuse_together(ctx, ("top", "--top"), ("show_all", "--all"))
    require(ctx, ("move_rank", "--move"), ("show_board", "--show-board"))
    refuse_together(ctx, ("as_json", "--json"), ("show_board", "--show-board"), "JSON has no board picture")
    refuse_together(ctx, ("as_json", "--json"), ("svg_path", "--svg"), "the SVG image is of the table")
    fold_flag = "--fold-blanks" if fold_blanks else "--no-fold-blanks"
    refuse_together(ctx, ("as_json", "--json"), ("fold_blanks", fold_flag), "JSON lists every move")
    if simulate_moves:
        refuse_with_sim(ctx)
    if svg_path is not None:
        check_writable(svg_path, "--svg")
    refuse_empty_rack(rack)
    check_rank(ctx, rank, leaves_path)
    if must_use is not None and not must_use.strip():
        # The library takes an empty filter as none; on the command line it is a slip.
        raise BadInput("--must-use is empty: give the rack tiles every move must play, e.g. --must-use '?' (a blank)")

    from solver_cli.engine.alphabet import rack_text
    from solver_cli.engine.ranking import check_must_use, make_filters
    from solver_cli.engine.unseen import unseen_tiles, valuation_for
    from solver_cli.formats.position import position_cgp

    fold = fold_blanks and not as_json
    try:
        position, rule_set, counts = read_game(ctx, board, rules, turn, rack)
        filters = make_filters(
            rule_set,
            at=at,
            min_length=min_length,
            max_length=max_length,
            must_use=must_use,
            min_score=min_score,
            word=word,
            sort="score" if sort in ("rank", "score") else sort,  # the library's name for its rank order
        )
        if filters.must_use is not None:  # said before the word list is loaded (or built: minutes for a big one)
            check_must_use(filters.must_use, counts)
        chosen_lexicon, lex = game_lexicon(lexicon, position, rule_set, as_json)
        if simulate_moves:
            from solver_cli.cli._sim import run_sim
            from solver_cli.lookahead.sim import DEFAULT_CANDIDATES

            ranking = choose_ranking(rank, leaves_path, rule_set, chosen_lexicon)
            candidates = top if given(ctx, "top") else DEFAULT_CANDIDATES
            run_sim(
                position,
                counts,
                rule_set,
                lex,
                ranking,
                candidates=candidates,
                as_json=as_json,
                lexicon_choice=chosen_lexicon,
            )
            return
        warnings = warn_position(position.board, counts, rule_set, lex)
        ranking = choose_ranking(rank, leaves_path, rule_set, chosen_lexicon)
        valuation = valuation_for(position.board, counts, rule_set, ranking.leaves)
        # With folding, the library counts table rows and returns every move in them.
        wanted = None if show_all else max(top, move_rank if show_board else 0)
        from solver_cli.engine.ranking import solve as run_solve
        from solver_cli.engine.ranking import solve_by_score

        if sort == "score" and ranking.leaves is not None:
            solution = solve_by_score(
                position.board, counts, lex.gaddag, rule_set, filters, valuation, wanted, fold=fold
            )
        else:
            solution = run_solve(position.board, counts, lex.gaddag, rule_set, wanted, filters, valuation, fold=fold)
        unseen = unseen_tiles(position.board, counts, rule_set)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    # Checked before anything is printed: a table followed by an error reads as a result.
    if show_board and given(ctx, "move_rank") and move_rank > len(solution.moves):
        raise BadInput(f"--move {move_rank}: {moves_there(len(solution.moves), solution.matching < solution.total)}")
    moves = solution.moves
    cgp_text = None
    if print_cgp:  # with the scores and scoreless turns of a record's turn or a CGP position
        from solver_cli.cli._game import game_setting

        setting = game_setting(position, rule_set, check_spread=False, check_over=False)
        cgp_text = position_cgp(position.board, rack_text(counts), lex.name, setting.scores, setting.scoreless)

    if as_json:
        from solver_cli.cli.render import json_text, moves_json, unseen_json

        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "rack": rack_text(counts),
            "board": position.name,
            "ranking": ranking.name,
            "leaves": ranking.table,
            "total_moves": solution.total,
            "matching_moves": solution.matching,
            "moves": moves_json(moves if show_all else moves[:top]),
            "unseen": unseen_json(unseen),
            "warnings": warnings,
        }
        if cgp_text:
            payload["cgp"] = cgp_text
        click.echo(json_text(payload))
        return
    from solver_cli.cli._common import console
    from solver_cli.cli.render import print_board, print_moves

    out = console(record=svg_path is not None)
    shown = moves if show_all else first_rows(moves, top, fold)
    shown_rack = rack_text(counts)
    order = ranking.phrase if sort == "rank" or sort == ranking.name else f"{sort}, then {ranking.phrase}"
    print_moves(
        shown,
        solution.total,
        rule_set,
        lex.name,
        shown_rack,
        solution.matching,
        unseen,
        fold=fold,
        ranking=order,
        out=out,
    )
    if show_board:
        highlighted = moves[move_rank - 1] if move_rank <= len(moves) else None
        print_board(position.board, rule_set, highlighted, out=out)
    if cgp_text:
        out.print(cgp_text, soft_wrap=True)
    if svg_path is not None:
        save_svg(out, svg_path, f"scrab solve {position.name} {rack_text(counts)}")


def refuse_with_sim(ctx: click.Context) -> None:
    """The options that mean nothing with --sim: a usage error (it ranks by equity, the best
    --top moves, and prints its own table)."""
    if ctx.params["rank"] == "score":
        raise click.UsageError("--sim cannot be used with --rank score: it plays moves by equity", ctx)
    for name, option in (
        ("show_all", "--all"),
        ("show_board", "--show-board"),
        ("svg_path", "--svg"),
        ("print_cgp", "--cgp"),
        ("sort", "--sort"),
        ("fold_blanks", "--fold-blanks"),
        ("at", "--at"),
        ("min_length", "--min-length"),
        ("max_length", "--max-length"),
        ("must_use", "--must-use"),
        ("min_score", "--min-score"),
        ("word", "--word"),
    ):
        if given(ctx, name):
            raise click.UsageError(f"--sim cannot be used with {option_name(ctx, name, option)}", ctx)


def moves_there(count: int, filtered: bool) -> str:
    """'there are only 12,487 moves' (or 'moves matching the filters'), for a rank past the end."""
    what = "move" if count == 1 else "moves"
    if filtered:
        what += " matching the filters"
    if count == 0:
        return f"there are no {what}"
    return f"there {'is' if count == 1 else 'are'} only {count:,} {what}"


def first_rows(moves: list[Move], rows: int, fold: bool) -> list[Move]:
    """The moves that make the first ``rows`` rows of the table (with ``fold``, a row holds
    every move that differs from its first only through a blank)."""
    if not fold:
        return moves[:rows]
    from solver_cli.cli.render import move_rows

    kept = move_rows(moves, fold=True)[:rows]
    chosen = {id(m) for row in kept for m in (row.move, *row.others)}
    return [m for m in moves if id(m) in chosen]

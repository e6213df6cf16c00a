"""``scrab play``: check one move, score it, apply it, and optionally save the new board."""

from __future__ import annotations

import json

import click

from solver_cli.cli._common import (
    check_writable,
    complete_path,
    json_option,
    lexicon_options,
    refuse_empty_rack,
    to_click_error,
    write_output,
)
from solver_cli.cli._game import game_lexicon, read_game_position, turn_option
from solver_cli.errors import IllegalMove, ScrabError


@click.command()
@click.argument("board", metavar="BOARD", shell_complete=complete_path)
@click.argument("position", metavar="POSITION")
@click.argument("word", metavar="WORD")
@click.option("--rack", help="Check that the rack holds the tiles played.")
@turn_option
@lexicon_options
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    shell_complete=complete_path,
    help="Write the new board to this file (atomically; a board file's comments are kept); may be BOARD itself.",
)
@json_option
@click.option(
    "--cgp", "print_cgp", is_flag=True, help="Print (or with -o, write) the new position as CGP instead of a board."
)
@click.pass_context
def play(
    ctx: click.Context,
    board: str,
    position: str,
    word: str,
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    output: str | None,
    as_json: bool,
    print_cgp: bool,
) -> None:
    """Check the move WORD at POSITION on BOARD, score it, and apply it.

    POSITION is standard notation: 8H is across from row 8 column H, H8 is down.
    WORD is the whole word along its line; lowercase letters are blanks; letters already
    on the board may be written as themselves, in parentheses (quoted for the shell), or
    as dots.
    Exit status 1 if the move is not legal (not a word, not connected, not on the rack,
    more of a tile than the tile set holds).
    BOARD may be a GCG game record: --turn N plays on the position before turn N and
    checks the rack that turn names.

    \b
    Examples:
      scrab play boards/opening.txt 8D FORMATS
      scrab play boards/opening.txt 8D FORMATS --rack SQ -o game.txt
      scrab play game.txt J6 'QI(S)' --rack QI -o game.txt
    """
    if as_json and print_cgp and output is None:
        raise click.UsageError("--cgp with --json applies only with -o (the file's format): JSON has the board", ctx)
    refuse_empty_rack(rack)
    if output is not None:
        check_writable(output, "-o")  # before any work: a folder, a missing folder, a FIFO
    from solver_cli.cli.render import word_json
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.engine.play import apply_play, check_play, leave_after
    from solver_cli.formats.boardfile import with_rows
    from solver_cli.formats.position import position_cgp

    try:
        loaded, rule_set = read_game_position(ctx, board, rules, turn)
        given = rack if rack is not None else (loaded.rack if turn is not None else None)  # a turn names its rack
        counts = parse_rack(given, rule_set.rack_size) if given is not None else None
        _, lex = game_lexicon(lexicon, loaded, rule_set, as_json)
        result = check_play(loaded.board, rule_set, position, word, lex.contains, lex.name, counts, count_tiles=True)
    except IllegalMove as exc:
        raise click.ClickException(f"illegal move: {exc}") from None
    except ScrabError as exc:
        raise to_click_error(exc) from None
    after = apply_play(loaded.board, result)
    leave = leave_after(counts, result) if counts is not None else None
    new_text = position_cgp(after, "", lex.name) + "\n" if print_cgp else after.to_text()
    if output:
        if not print_cgp and loaded.board_text is not None:
            new_text = with_rows(loaded.board_text, after)  # the file's comments kept
        write_output(output, new_text, "-o")
    scored = result.scored
    if as_json:
        payload = {
            "position": position.strip().upper(),
            "word": scored.main.word,
            "score": scored.score,
            "bingo": scored.bingo,
            "placed": [{"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in result.placed],
            "words": [word_json(w) for w in result.words],
            "leave": rack_text(leave) if leave is not None else None,
            "board": after.to_rows(),
        }
        if output:
            payload["written"] = output
        click.echo(json.dumps(payload))
        return
    words = ", ".join(f"{w.word} {w.score}" for w in result.words)
    bingo = f" + {rule_set.bingo_bonus} bingo" if scored.bingo else ""
    click.echo(f"{position.strip().upper()} {scored.main.word} scores {scored.score} ({words}{bingo})")
    if leave is not None:
        click.echo(f"Leave: {rack_text(leave) or '-'}")
    if output:
        click.echo(f"Wrote the new board to {output}", err=True)
    else:
        click.echo(new_text, nl=False)

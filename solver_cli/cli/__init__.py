"""The ``scrab`` command line: parses options, calls the library, renders the result.

Results go to stdout (a Rich table, or JSON with ``--json``); warnings, errors and progress
go to stderr. Exit status: 0 success, 1 a failed check, 2 bad usage or bad input.
"""

from __future__ import annotations

import json
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from solver_cli import __version__
from solver_cli.errors import InputError, ScrabError
from solver_cli.files import path_exists, read_limited

if TYPE_CHECKING:
    from solver_cli.board import Board

MAX_BOARD_BYTES = 1_000_000  # a 26x26 board with comments is a few kB


class BadInput(click.ClickException):
    """Bad input (board, rack, word list, rules): one line on stderr, exit status 2."""

    exit_code = 2


def fail(exc: ScrabError) -> click.ClickException:
    if isinstance(exc, InputError):
        return BadInput(str(exc))
    return click.ClickException(str(exc))


def warn(message: str) -> None:
    click.echo(f"Warning: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="scrab")
def cli() -> None:
    """scrab: every legal Scrabble / Words with Friends move, exactly scored, from a GADDAG."""


def lexicon_options(func):
    func = click.option(
        "--lexicon",
        "-l",
        metavar="NAME|PATH",
        default=None,
        help="Shipped word list (kjxqz [default], sowpods) or a word-list file.",
    )(func)
    func = click.option(
        "--rules", "-r", metavar="NAME|PATH", default="scrabble", show_default=True, help="Rule set: scrabble, wwf, or a .toml file."
    )(func)
    return func


@contextmanager
def build_progress(enabled: bool):
    """A Rich progress bar on stderr while a GADDAG is built, only on a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task("Building GADDAG (first use of this word list)", total=1.0)
    weights = {"dawg": (0.0, 0.3), "gaddag": (0.3, 0.7)}
    started = False

    def update(phase: str, fraction: float) -> None:
        nonlocal started
        if not started:  # a warm cache load never reports: no bar at all then
            progress.start()
            started = True
        begin, span = weights.get(phase, (0.0, 1.0))
        progress.update(task, completed=begin + span * fraction)

    try:
        yield update
    finally:
        if started:
            progress.stop()


def load_lexicon_for(lexicon: str | None, rules, quiet: bool):
    from solver_cli.lexicon import load_lexicon

    with build_progress(not quiet) as progress:
        return load_lexicon(lexicon, max(rules.rows, rules.cols), progress=progress, warn=warn)


def read_board_text(board: str) -> tuple[str, str]:
    """(text, name for messages) of a board file, or of stdin for ``-``."""
    if board == "-":
        data = sys.stdin.buffer.read(MAX_BOARD_BYTES + 1)
        name = "<stdin>"
    else:
        name = board
        if path_exists(board) and Path(board).is_dir():
            raise InputError(f"{name}: is a directory, not a board file")
        data = read_limited(board, MAX_BOARD_BYTES, "board file")
    if len(data) > MAX_BOARD_BYTES:
        raise InputError(f"{name}: far too large for a board file")
    if b"\0" in data:
        raise InputError(f"{name}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (bad byte at offset {exc.start})") from None


@dataclass
class LoadedPosition:
    board: Board
    rack: str | None  # from a CGP position, when it gives one
    name: str  # for messages and output


def read_position(arg: str, rules) -> LoadedPosition:
    """A board file, ``-`` (stdin), a CGP string, or a file holding a CGP string."""
    from solver_cli.board import parse_board
    from solver_cli.cgp import looks_like_cgp, parse_cgp

    if arg != "-" and not path_exists(arg) and looks_like_cgp(arg):
        text, name = arg, "CGP"
    else:
        text, name = read_board_text(arg)
    if not looks_like_cgp(text):
        return LoadedPosition(parse_board(text, rules, name), None, name)
    position = parse_cgp(text, name)
    width = len(position.rows[0]) if position.rows else 0
    if (len(position.rows), width) != (rules.rows, rules.cols):
        raise InputError(
            f"{name}: the CGP board is {len(position.rows)}x{width}, the {rules.name} board is {rules.rows}x{rules.cols}"
        )
    board = parse_board("\n".join(position.rows), rules, name)
    rack = position.racks[0] if position.racks and position.racks[0] else None
    return LoadedPosition(board, rack, name)


def rack_counts(rack: str | None, position: LoadedPosition, rules) -> list[int]:
    """The rack from ``--rack``, else from the CGP position; a usage error if neither."""
    from solver_cli.alphabet import parse_rack

    given = rack if rack is not None else position.rack
    if given is None:
        raise click.UsageError("Missing option '--rack' (the board gives no rack).")
    return parse_rack(given, rules.rack_size)


def position_cgp(board: Board, rack: str, lexicon: str) -> str:
    from solver_cli.cgp import Position, format_cgp

    # A word list given by path may have a name CGP cannot carry (';', spaces): name its stem.
    lex = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(lexicon).name.split(".")[0]) or "custom"
    return format_cgp(Position(rows=board.to_rows(), racks=[rack, ""], scores=[0, 0], zero_turns=0, options={"lex": lex}))


def parse_filters(at, min_length, max_length, must_use, min_score, word, sort, rules):
    from solver_cli.alphabet import parse_rack
    from solver_cli.rules import parse_square
    from solver_cli.solver import Filters, word_pattern

    square = None
    if at is not None:
        try:
            square = parse_square(at, rules.rows, rules.cols)
        except ValueError as exc:
            raise InputError(f"--at: {exc}") from None
    if min_length is not None and max_length is not None and min_length > max_length:
        raise InputError(f"--min-length {min_length} is more than --max-length {max_length}")
    need = tuple(parse_rack(must_use, rules.rack_size)) if must_use else None
    return Filters(
        at=square,
        min_length=min_length,
        max_length=max_length,
        must_use=need,
        min_score=min_score,
        word=word_pattern(word) if word is not None else None,
        sort=sort,
    )


@cli.command()
@click.argument("board", metavar="BOARD")
@click.option("--rack", help="Rack letters, ? for a blank, e.g. AEIRST?")
@lexicon_options
@click.option("--top", "-n", type=click.IntRange(min=1), default=20, show_default=True, help="Show the N best moves.")
@click.option("--all", "show_all", is_flag=True, help="List every legal move.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--show-board", is_flag=True, help="Draw the board with the top move (or --move N) highlighted.")
@click.option("--move", "move_rank", type=click.IntRange(min=1), default=1, help="With --show-board: the rank of the move to highlight.")
@click.option("--at", metavar="SQUARE", help="Only moves whose main word covers SQUARE, e.g. H8.")
@click.option("--min-length", type=click.IntRange(min=1), help="Only main words of at least this length.")
@click.option("--max-length", type=click.IntRange(min=1), help="Only main words of at most this length.")
@click.option("--must-use", metavar="LETTERS", help="Only moves that play these rack tiles (? for a blank).")
@click.option("--min-score", type=int, help="Only moves scoring at least this.")
@click.option("--word", metavar="PATTERN", help="Only main words matching PATTERN: ? one letter, * any run.")
@click.option("--sort", type=click.Choice(["score", "length", "tiles"]), default="score", show_default=True, help="Order of the list (ties by score).")
@click.option("--cgp", "print_cgp", is_flag=True, help="Also print the position as a CGP string.")
def solve(
    board: str,
    rack: str | None,
    rules: str,
    lexicon: str | None,
    top: int,
    show_all: bool,
    as_json: bool,
    show_board: bool,
    move_rank: int,
    at: str | None,
    min_length: int | None,
    max_length: int | None,
    must_use: str | None,
    min_score: int | None,
    word: str | None,
    sort: str,
    print_cgp: bool,
) -> None:
    """Every legal move for RACK on the board BOARD, ranked by score.

    BOARD is a board file, - for standard input, or a CGP position (a string or a file
    holding one; its rack is used when --rack is not given).

    \b
    Examples:
      scrab solve boards/midgame.txt --rack AEIRST?
      scrab solve boards/wwf-midgame.txt --rules wwf --rack QUIZERS --json
      scrab solve boards/midgame.txt --rack RETAINS --at N8 --show-board
    """
    from solver_cli.alphabet import rack_text
    from solver_cli.rules import load_rules
    from solver_cli.solver import solve as run_solve
    from solver_cli.tracking import position_warnings, unseen_tiles

    try:
        rule_set = load_rules(rules)
        position = read_position(board, rule_set)
        counts = rack_counts(rack, position, rule_set)
        filters = parse_filters(at, min_length, max_length, must_use, min_score, word, sort, rule_set)
        lex = load_lexicon_for(lexicon, rule_set, as_json)
        warnings = position_warnings(position.board, counts, rule_set, lex.contains, lex.name)
        for message in warnings:
            warn(message)
        limit = None if show_all else max(top, move_rank if show_board else 0)
        solution = run_solve(position.board, counts, lex.gaddag, rule_set, limit=limit, filters=filters)
        unseen = unseen_tiles(position.board, counts, rule_set)
    except ScrabError as exc:
        raise fail(exc) from None
    moves = solution.moves if show_all else solution.moves[:top]
    cgp_text = position_cgp(position.board, rack_text(counts), lex.name) if print_cgp else None

    if as_json:
        from solver_cli.render import moves_json, unseen_json

        payload = {
            "rules": rule_set.name,
            "lexicon": lex.name,
            "rack": rack_text(counts),
            "board": position.name,
            "total_moves": solution.total,
            "matching_moves": solution.matching,
            "moves": moves_json(moves),
            "unseen": unseen_json(unseen),
            "warnings": warnings,
        }
        if cgp_text:
            payload["cgp"] = cgp_text
        click.echo(json.dumps(payload))
        return
    from solver_cli.render import print_board, print_moves

    print_moves(moves, solution.total, rule_set, lex.name, rack_text(counts), solution.matching, unseen)
    if show_board:
        highlighted = solution.moves[move_rank - 1] if move_rank <= len(solution.moves) else None
        if highlighted is None and solution.moves:
            raise BadInput(f"--move {move_rank}: only {len(solution.moves)} move(s) listed")
        print_board(position.board, rule_set, highlighted)
    if cgp_text:
        click.echo(cgp_text)


@cli.command()
@click.argument("board", metavar="BOARD")
@click.argument("position", metavar="POSITION")
@click.argument("word", metavar="WORD")
@click.option("--rack", help="Check that the rack holds the tiles played.")
@lexicon_options
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the new board to this file (atomically); may be BOARD itself.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--cgp", "print_cgp", is_flag=True, help="Print the new position as CGP instead of a board.")
def play(board, position, word, rack, rules, lexicon, output, as_json, print_cgp):
    """Check the move WORD at POSITION on BOARD, score it, and apply it.

    POSITION is standard notation: 8H is across from row 8 column H, H8 is down.
    WORD is the whole word along its line; lowercase letters are blanks; letters already
    on the board may be written as themselves, in parentheses, or as dots.
    Exit status 1 if the move is not legal (not a word, not connected, not on the rack).

    \b
    Examples:
      scrab play boards/opening.txt 8D FORMATS
      scrab play game.txt 9G (T)OAD --rack ADO -o game.txt
    """
    from solver_cli.alphabet import parse_rack, rack_text
    from solver_cli.play import IllegalMove, apply_play, check_play, write_atomically
    from solver_cli.render import word_json
    from solver_cli.rules import load_rules

    try:
        rule_set = load_rules(rules)
        loaded = read_position(board, rule_set)
        counts = parse_rack(rack, rule_set.rack_size) if rack else None
        lex = load_lexicon_for(lexicon, rule_set, as_json)
        result = check_play(loaded.board, rule_set, position, word, lex.contains, lex.name, counts)
    except IllegalMove as exc:
        raise click.ClickException(f"illegal move: {exc}") from None
    except ScrabError as exc:
        raise fail(exc) from None
    after = apply_play(loaded.board, result)
    leave = None
    if counts is not None:
        leave = list(counts)
        for t in result.placed:
            leave[0 if t.blank else ord(t.letter) - 64] -= 1
    new_text = position_cgp(after, "", lex.name) + "\n" if print_cgp else after.to_text()
    if output:
        try:
            write_atomically(Path(output), new_text)
        except OSError as exc:
            raise click.ClickException(f"cannot write {output}: {exc.strerror or exc}") from None
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


@cli.command()
@click.argument("board", metavar="BOARD")
@click.argument("move", nargs=-1, required=True, metavar="MOVE")
@click.option("--rack", help="The rack (taken from a CGP position when not given).")
@lexicon_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def explain(board, move, rack, rules, lexicon, as_json):
    """Show how the GADDAG finds MOVE on BOARD, step by step.

    MOVE is a move in standard notation (8H RETAINS, or H8 for down) or a rank in the
    list `scrab solve` prints for the same board and rack.

    \b
    Examples:
      scrab explain boards/midgame.txt --rack RETAINS 1
      scrab explain boards/opening.txt --rack SQ 8D FORMATS
    """
    from solver_cli.explain import explain_play
    from solver_cli.play import IllegalMove, check_play
    from solver_cli.rules import load_rules
    from solver_cli.solver import solve as run_solve

    text = " ".join(move).strip()
    try:
        rule_set = load_rules(rules)
        loaded = read_position(board, rule_set)
        counts = rack_counts(rack, loaded, rule_set)
        lex = load_lexicon_for(lexicon, rule_set, as_json)
        if text.isdigit():
            rank = int(text)
            ranked = run_solve(loaded.board, counts, lex.gaddag, rule_set, limit=rank).moves
            if not 1 <= rank <= len(ranked):
                raise InputError(f"there is no move ranked {rank} (the list has {len(ranked)})")
            chosen = ranked[rank - 1]
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
        raise fail(exc) from None
    if as_json:
        from dataclasses import asdict

        click.echo(json.dumps({"position": position.upper(), **asdict(trace)}))
        return
    from solver_cli.render import print_trace

    print_trace(trace, position.upper())


@cli.command()
@click.option("--lexicon", "-l", metavar="NAME|PATH", default=None, help="Word list to measure (default kjxqz).")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Timed runs per position and of the cache load.")
@click.option("--runs", type=click.IntRange(min=1), default=5, show_default=True, help="Runs of the whole command.")
@click.option("--builds", type=click.IntRange(min=1), default=1, show_default=True, help="Cold GADDAG builds.")
@click.option("--skip-build", is_flag=True, help="Do not time a cold build.")
@click.option("--skip-command", is_flag=True, help="Do not time the whole command.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def bench(lexicon, repeat, runs, builds, skip_build, skip_command, as_json):
    """Measure build, cache load, memory, move generation and the whole solve command.

    Figures are medians with min and max over repeated runs, on a fixed suite of positions
    (empty board, opening, mid-games, a crowded late board; 0, 1 and 2 blanks; Scrabble
    and Words with Friends).

    \b
    Example:
      scrab bench --lexicon sowpods
    """
    from solver_cli.bench import dumps, run_bench
    from solver_cli.render import print_bench

    def report(step: str) -> None:
        if not as_json and sys.stderr.isatty():
            click.echo(f"measuring {step}...", err=True)

    try:
        result = run_bench(lexicon, repeat, runs, builds, skip_build, skip_command, report)
    except ScrabError as exc:
        raise fail(exc) from None
    if as_json:
        click.echo(dumps(result))
    else:
        print_bench(result)


def main() -> None:
    # Click's own standalone mode would let an OSError on stdout (a full disk) escape as a
    # traceback, so errors are handled here; ctx.exit(n) comes back as the return value.
    try:
        code = cli(standalone_mode=False)
        sys.stdout.flush()
        sys.exit(code if isinstance(code, int) else 0)
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error; silence the final flush too.
        sys.stderr.close()
        sys.exit(0)
    except OSError as exc:
        click.echo(f"Error: cannot write output: {exc.strerror or exc}", err=True)
        try:
            sys.stdout.close()
        except OSError:
            pass
        sys.exit(1)


# Commands kept in their own modules register themselves on ``cli`` when imported.
from solver_cli import cli_games, cli_lookup, cli_selfplay  # noqa: E402,F401

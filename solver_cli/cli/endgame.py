"""``scrab endgame``: the exact endgame solver on a position whose bag is empty."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import (
    BadInput,
    json_option,
    refuse_empty_rack,
    stopped,
    to_click_error,
)
from solver_cli.cli._game import (
    Setting,
    game_lexicon,
    game_setting,
    position_options,
    read_game,
    refuse_over_full,
    warn_position,
)
from solver_cli.errors import ScrabError
from solver_cli.lookahead.endgame import DEFAULT_TT_MB, MAX_PLIES, MAX_TT_MB

if TYPE_CHECKING:
    from rich.console import Console

    from solver_cli.engine.board import Board
    from solver_cli.engine.movegen import Candidate
    from solver_cli.engine.rules import Rules
    from solver_cli.engine.scoring import Move
    from solver_cli.formats.position import LoadedPosition
    from solver_cli.lookahead.endgame import EndgameResult, Progress

MAX_TOP = 1000
MAX_SECONDS = 86_400


@click.command()
@position_options("The rack of the player to move, ? for a blank (quoted for the shell).", name="position")
@click.option(
    "--top",
    "-n",
    type=click.IntRange(1, MAX_TOP),
    default=1,
    show_default=True,
    help="Also list the N best first moves, each with its exact value.",
)
@click.option(
    "--plies",
    type=click.IntRange(1, MAX_PLIES),
    metavar="N",
    help="Search at most N moves ahead (both sides' moves count); deeper lines are estimated.",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(0, MAX_SECONDS, min_open=True),
    metavar="SECONDS",
    help="Stop after SECONDS and show the best found so far.",
)
@click.option(
    "--tt-mb",
    type=click.IntRange(1, MAX_TT_MB),
    default=DEFAULT_TT_MB,
    show_default=True,
    metavar="MB",
    help="Memory for the transposition table, in MB.",
)
@json_option
@click.pass_context
def endgame(
    ctx: click.Context,
    position: str,
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    top: int,
    plies: int | None,
    time_limit: float | None,
    tt_mb: int,
    as_json: bool,
) -> None:
    """Solve the endgame of POSITION exactly: the best move for the rack (--rack) when the
    bag is empty, and how the game goes from there with both sides at their best.

    POSITION is anything scrab solve reads: a board file, - for standard input, a CGP
    position, or a GCG game record (--turn N: the position before turn N, with that turn's
    rack, the players' scores and the rules and word list the record names). The opponent
    holds the tiles the mover cannot see. A position with tiles left in the bag is not an
    endgame (see scrab peg).

    The value is the final spread change from the mover's side: every point both sides
    score from here on, the end-of-game adjustments included (going out, or the rule set's
    scoreless turns in a row). It is proven unless --plies or --time-limit cut the search;
    then it is the best found so far.

    \b
    Examples:
      scrab endgame boards/example.gcg --turn 27
      scrab endgame boards/example.gcg --turn 27 --top 3 --json
      scrab endgame boards/example.gcg --turn 26 --time-limit 2
    """
    refuse_empty_rack(rack)
    if not position.strip():
        raise BadInput("the position argument is empty: give a board file, a CGP position or a GCG record")
    from solver_cli.engine.alphabet import rack_text
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.endgame import EndgameStopped, solve_endgame

    try:
        loaded, rule_set, counts = read_game(ctx, position, rules, turn, rack)
        setting = game_setting(loaded, rule_set)
        unseen = unseen_tiles(loaded.board, counts, rule_set)
        # before the word list is loaded, the warnings (which would say it too) and the bag's count
        refuse_over_full(unseen, rule_set)
        _, lex = game_lexicon(lexicon, loaded, rule_set, as_json)
        warn_position(loaded.board, counts, rule_set, lex)
        check_endgame(loaded, unseen.total, rule_set)
        opponent = list(unseen.counts)
        interrupted = None
        with search_status(not as_json, loaded.board, counts, rule_set) as progress:
            try:
                result = solve_endgame(
                    loaded.board,
                    counts,
                    opponent,
                    lex.gaddag,
                    rule_set,
                    scoreless=setting.scoreless,
                    top=top,
                    plies=plies,
                    time_limit=time_limit,
                    tt_mb=tt_mb,
                    progress=progress,
                )
            except EndgameStopped as exc:  # Ctrl-C or SIGTERM: the best found so far
                result, interrupted = exc.result, exc
    except ScrabError as exc:
        raise to_click_error(exc) from None
    report = EndgameReport(
        loaded.name, rule_set, lex.name, loaded.board, counts, opponent, setting, result, rack_text(counts)
    )
    if as_json:
        click.echo(json.dumps(report_json(report)))
    else:
        from solver_cli.cli._common import console

        print_report(report, console())
    if interrupted is not None:
        raise stopped("interrupted: the best found so far is shown")


# --- the position -----------------------------------------------------------------------------


def check_endgame(loaded: LoadedPosition, unseen: int, rules: Rules) -> None:
    """Refuse what is not an endgame: tiles left in the bag (the opponent holds a full rack
    while the bag has tiles, so more unseen tiles than a rack holds means a bag), or no
    tile unseen (the opponent went out: the game is over)."""
    from solver_cli.errors import InputError

    if unseen > rules.rack_size:
        bag = unseen - rules.rack_size
        raise InputError(
            f"{loaded.name}: not an endgame: {bag} tile{'s' if bag != 1 else ''} left in the bag "
            f"({unseen} unseen, a rack holds {rules.rack_size}); scrab peg solves a pre-endgame"
        )
    if unseen == 0:
        raise InputError(f"{loaded.name}: the game is over: no tile is unseen, so the opponent's rack is empty")


# --- progress -----------------------------------------------------------------------------------


class search_status:  # noqa: N801 (used as a context manager, like a function)
    """A one-line status on stderr while the search runs (only on a terminal): the depth
    reached, the nodes searched, the best move and its value so far. Yields the progress
    callback, or None when nothing is shown."""

    def __init__(self, enabled: bool, board: Board, rack: list[int], rules: Rules) -> None:
        import sys

        self.enabled = enabled and sys.stderr.isatty()
        self.board, self.rack, self.rules = board, rack, rules

    def __enter__(self) -> Progress | None:
        if not self.enabled:
            return None
        from solver_cli.cli._common import console

        self.status = console(stderr=True).status("Searching...")
        self.status.start()
        board, rack, rules = self.board, self.rack, self.rules

        def progress(depth: int, nodes: int, value: int, move: Candidate | None) -> None:
            best = f", best so far {candidate_move(board, rules, rack, move).text} {value:+d}" if move else ""
            self.status.update(f"Searching: depth {depth}, {nodes:,} nodes{best}")

        return progress

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.status.stop()


# --- the result, replayed for display ---------------------------------------------------------


def candidate_move(board: Board, rules: Rules, rack: list[int], move: Candidate) -> Move:
    """A first move or a step of the variation as a ``Move`` (its notation, tiles and score)."""
    from solver_cli.engine.ranking import candidate_move as move_of

    return move_of(board, rules, rack, move)


@dataclass(frozen=True)
class Line:
    """One step of the principal variation, replayed: who plays (0 the mover), the move,
    its score, and both sides' running scores (the mover's first)."""

    side: int
    move: Move
    score: int
    scores: tuple[int, int]


@dataclass(frozen=True)
class EndgameReport:
    source: str
    rules: Rules
    lexicon: str
    board: Board
    rack: list[int]
    opponent: list[int]
    setting: Setting
    result: EndgameResult
    rack_shown: str

    def name(self, side: int) -> str:
        if self.setting.names is not None:
            return self.setting.names[side]
        return ("you", "opponent")[side]

    def possessive(self, side: int) -> str:
        """Whose, before a rack: "alice's", or "your" and "the opponent's" without names."""
        if self.setting.names is not None:
            return f"{self.setting.names[side]}'s"
        return ("your", "the opponent's")[side]

    def running(self, gained: tuple[int, int]) -> tuple[int, int]:
        start = self.setting.scores
        return (start[0] + gained[0], start[1] + gained[1])

    def lines(self) -> tuple[list[Line], tuple[list[int], list[int]]]:
        """The variation replayed from the position, and both racks after it (what is left
        at the end, which the adjustments count)."""
        from solver_cli.engine.board import Board as BoardClass

        squares = list(self.board.squares)
        racks = (list(self.rack), list(self.opponent))
        out = []
        for step in self.result.pv:
            here = BoardClass(self.board.rows, self.board.cols, list(squares))
            move = candidate_move(here, self.rules, racks[step.side], step.move)
            for tile in move.placed:
                code = square_code(tile.letter, tile.blank)
                squares[tile.row * self.board.cols + tile.col] = code
                racks[step.side][0 if tile.blank else code] -= 1
            out.append(Line(step.side, move, step.score, self.running(step.totals)))
        return out, racks


def square_code(letter: str, blank: bool) -> int:
    from solver_cli.engine.alphabet import BLANK_BIT

    code = ord(letter.upper()) - 64
    return code | BLANK_BIT if blank else code


def describe_state(result: EndgameResult) -> str:
    """ "proven", or why not and how deep the search went."""
    if result.proven:
        return "proven"
    why = {"plies": ", cut by --plies", "time": ", cut by --time-limit", "interrupted": ", interrupted"}.get(
        result.stopped or "", ""
    )
    depth = result.depth
    searched = "no iteration finished" if depth < 1 else f"searched {depth} {'ply' if depth == 1 else 'plies'} deep"
    return f"not proven{why}: the best found so far, {searched}"


# --- JSON -------------------------------------------------------------------------------------


def report_json(report: EndgameReport) -> dict[str, object]:
    from solver_cli.cli.render import move_json
    from solver_cli.engine.alphabet import rack_text

    result = report.result
    lines, racks = report.lines()

    def move_fields(move: Move) -> dict[str, object]:
        details = move_json(move, 0)
        for key in ("rank", "leave_value", "equity"):  # no ranking by equity here
            del details[key]
        return details

    ending = None
    if result.ending is not None:
        e = result.ending
        ending = {
            "reason": e.reason,
            "side": e.side,
            "player": report.name(e.side) if e.side is not None else None,
            "racks": [rack_text(racks[0]), rack_text(racks[1])],
            "adjustments": list(e.adjustments),
            "scores": list(report.running(e.totals)),
        }
    return {
        "position": report.source,
        "rules": report.rules.name,
        "lexicon": report.lexicon,
        "players": [report.name(0), report.name(1)],
        "rack": report.rack_shown,
        "opponent_rack": rack_text(report.opponent),
        "scores": list(report.setting.scores),
        "scoreless_turns": report.setting.scoreless,
        "value": result.value,
        "proven": result.proven,
        "stopped": result.stopped,
        "depth": result.depth,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 3),
        "engine": result.engine,
        "best": [
            {
                "rank": k,
                "value": root.value,
                "move": move_fields(candidate_move(report.board, report.rules, report.rack, root.move)),
            }
            for k, root in enumerate(result.best, 1)
        ],
        "pv": [
            {
                "side": line.side,
                "player": report.name(line.side),
                "move": move_fields(line.move),
                "score": line.score,
                "scores": list(line.scores),
            }
            for line in lines
        ],
        "ending": ending,
    }


# --- text -------------------------------------------------------------------------------------


def print_report(report: EndgameReport, out: Console) -> None:
    from rich.table import Table

    from solver_cli.cli._common import print_wrapped
    from solver_cli.engine.alphabet import rack_text

    result = report.result
    me, them = report.name(0), report.name(1)
    print_wrapped(
        out,
        f"Endgame: {me} to move with {report.rack_shown} against {report.possessive(1)} {rack_text(report.opponent)}"
        f"  ({report.rules.name}, {report.lexicon})",
    )
    if report.setting.scoreless:
        from solver_cli._text import plural

        so_far = plural(report.setting.scoreless, "scoreless turn")
        out.print(f"{so_far} in a row so far (the game ends at {report.rules.scoreless_turns})")
    best = result.best[0] if result.best else None
    if best is not None:
        first = candidate_move(report.board, report.rules, report.rack, best.move)
        out.print(f"Best: {first.text} {first.score}, value {best.value:+d} ({describe_state(result)})", soft_wrap=True)
    if len(result.best) > 1:
        table = Table(title=f"The {len(result.best)} best first moves", title_justify="left", header_style="bold")
        table.add_column("#", justify="right")
        table.add_column("Move")
        table.add_column("Score", justify="right")
        table.add_column("Value", justify="right")
        for k, root in enumerate(result.best, 1):
            move = candidate_move(report.board, report.rules, report.rack, root.move)
            table.add_row(str(k), move.text, str(move.score), f"{root.value:+d}")
        out.print(table)
    lines, racks = report.lines()
    table = Table(title="Principal variation", title_justify="left", header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("Player")
    table.add_column("Move")
    table.add_column("Score", justify="right")
    table.add_column(me, justify="right")
    table.add_column(them, justify="right")
    for k, line in enumerate(lines, 1):
        table.add_row(str(k), report.name(line.side), line.move.text, str(line.score), *map(str, line.scores))
    if result.ending is not None:
        e = result.ending
        scores = list(lines[-1].scores if lines else report.setting.scores)
        # The one who went out first: the other's tiles are what both adjustments count.
        for side in (e.side, 1 - e.side) if e.side is not None else (0, 1):
            if e.reason == "out" and side == e.side:
                what = f"went out: {report.possessive(1 - side)} {rack_text(racks[1 - side])}"
            elif not any(racks[side]):
                continue
            else:
                what = f"left on the rack: {rack_text(racks[side])}"
            scores[side] += e.adjustments[side]
            table.add_row("", report.name(side), what, f"{e.adjustments[side]:+d}", *map(str, scores))
    out.print(table)
    if result.ending is None:
        out.print("The variation stops before the end of the game (the search was cut).")
    elif result.ending.reason == "scoreless":
        out.print(f"The game ends after {report.rules.scoreless_turns} scoreless turns in a row.")
    out.print(f"Value: {result.value:+d} for {me}: {describe_state(result)}", soft_wrap=True)
    out.print(f"Searched {result.nodes:,} nodes in {result.seconds:.2f} seconds")

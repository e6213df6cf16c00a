"""What the commands that read a position share (solve, explain, sim, peg, endgame, infer):
the position with its rule set and the rack to move (``read_game``), the word list for it
(``game_lexicon``) and the warnings about it (``warn_position``); for GCG game records the
``--turn`` option, the rule set and the lexicon a record names, and its warnings before its
error."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import click

from solver_cli.cli._common import given, load_lexicon_for, refuse_empty_rack, warn

if TYPE_CHECKING:
    from solver_cli.engine.board import Board
    from solver_cli.engine.history import RecordProblem
    from solver_cli.engine.rules import Rules
    from solver_cli.engine.unseen import Unseen
    from solver_cli.formats.gcg_read import GcgFile
    from solver_cli.formats.position import LoadedPosition
    from solver_cli.lexicon import Lexicon

F = TypeVar("F", bound=Callable[..., Any])


def position_options(rack_help: str, *, name: str = "board", metavar: str = "POSITION") -> Callable[[F], F]:
    """The arguments every command that solves a position takes, in the order its help lists
    them: the position (``name``, shown as ``metavar``), ``--rack`` (``rack_help``, each
    command's own words), ``--turn``, ``--rules`` and ``--lexicon``."""
    from solver_cli.cli._common import complete_path, lexicon_options

    def decorate(func: F) -> F:
        func = lexicon_options(func)
        func = turn_option(func)
        func = click.option("--rack", help=rack_help)(func)
        return click.argument(name, metavar=metavar, shell_complete=complete_path)(func)

    return decorate


def turn_option(func: F) -> F:
    return click.option(
        "--turn",
        type=click.IntRange(min=1),
        metavar="N",
        help="BOARD is a GCG game record: the position before its turn N, with that turn's rack "
        "(turns are the record's > lines, counted from 1).",
    )(func)


class GamePosition(NamedTuple):
    """A position as the commands read it: where it came from (board, record, scores), its
    rule set, and the rack of the player to move (27 counts)."""

    position: LoadedPosition
    rules: Rules
    rack: list[int]


def read_game(ctx: click.Context, board: str, rules: str, turn: int | None, rack: str | None) -> GamePosition:
    """The position BOARD names with its rule set (``read_game_position``) and the rack to
    move (``rack_counts``), in that order, so the errors come as every command gives them."""
    position, rule_set = read_game_position(ctx, board, rules, turn)
    counts = rack_counts(rack, position, rule_set.rack_size, rule_set.name)
    if rack is None:  # (--rack replaces the CGP position's racks: its second is then not checked)
        check_opponent_rack(position, counts, rule_set)
    return GamePosition(position, rule_set, counts)


def check_opponent_rack(position: LoadedPosition, rack: list[int], rules: Rules) -> None:
    """Refuse a CGP position whose other rack holds a tile the player to move cannot see
    there (one on the board or on its own rack beyond the set): no game reaches it. A
    consistent one is taken as part of the unseen tiles (an endgame's opponent holds them
    all anyway)."""
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.errors import InputError

    if position.opponent_rack is None:
        return
    try:
        other = parse_rack(position.opponent_rack, rules.rack_size)
    except InputError as exc:
        raise InputError(f"{position.name}: the opponent's rack: {exc}") from None
    found = unseen_tiles(position.board, rack, rules)
    if found.over:
        return  # (the command refuses the board and rack themselves, in its own words)
    unseen = found.counts
    if any(n > unseen[code] for code, n in enumerate(other)):
        raise InputError(
            f"{position.name}: the opponent's rack {rack_text(other)} is not among the tiles unseen by the player "
            f"to move ({rack_text(list(unseen)) or 'none'}, with the {rules.name} set)"
        )


class ShownTiles(NamedTuple):
    tiles: list[int]  # 27 counts
    text: str  # what showed them, for the output: "bob's 8B GAVETTE (turn 1), taken back"


def shown_opponent_tiles(position: LoadedPosition) -> ShownTiles | None:
    """The opponent's tiles a game record's turn shows the player to move (its play taken
    back just before, a phony challenged off: ``GameRecord.shown_tiles``), else None."""
    game, turn = position.game, position.turn
    if game is None or turn is None:
        return None
    shown = game.shown_tiles(turn)
    if shown is None:
        return None
    tiles, play = shown
    return ShownTiles(tiles, f"{game.players[play.player]}'s {play.move_text} (turn {play.number}), taken back")


def game_lexicon(
    lexicon: str | None, position: LoadedPosition, rules: Rules, quiet: bool
) -> tuple[str | None, Lexicon]:
    """The word list chosen for the position (``position_lexicon``: --lexicon, else the
    record's) and that lexicon, loaded for the rules' board (a progress bar while its GADDAG
    is built, unless ``quiet``)."""
    chosen = position_lexicon(lexicon, position)
    return chosen, load_lexicon_for(chosen, rules.max_side, quiet)


def refuse_over_full(unseen: Unseen, rules: Rules) -> None:
    """Refuse a board and rack holding more of a tile than the set has (the first such tile)."""
    from solver_cli.errors import InputError

    if unseen.over:
        letter, held, in_set = unseen.over[0]
        name = ("blank" if letter == "?" else f"{letter} tile") + ("s" if held != 1 else "")
        raise InputError(f"the board and the rack hold {held} {name}, more than the {in_set} in the {rules.name} set")


def warn_position(board: Board, rack: list[int], rules: Rules, lexicon: Lexicon) -> list[str]:
    """Print the warnings about an odd position (``engine.unseen.position_warnings``) on
    stderr, and return them (JSON output lists them too)."""
    from solver_cli.engine.unseen import position_warnings

    messages = position_warnings(board, rack, rules, lexicon.contains, lexicon.name)
    for message in messages:
        warn(message)
    return messages


def rack_counts(rack: str | None, position: LoadedPosition, rack_size: int, rules_name: str) -> list[int]:
    """The rack from ``--rack``, else from the CGP position or the record's turn; a usage
    error if neither."""
    from solver_cli.engine.alphabet import parse_rack

    refuse_empty_rack(rack)
    not_a_move = non_move_turn(position)
    if not_a_move is not None:  # (a rack given would solve a position no player moves from)
        raise click.UsageError(not_a_move)
    given = rack if rack is not None else position.rack
    if given is None:
        raise click.UsageError(f"Missing option '--rack': {no_rack_reason(position, rules_name)}")
    return parse_rack(given, rack_size)


def non_move_turn(position: LoadedPosition) -> str | None:
    """For a game record's turn whose line is no move (a challenge bonus, a phony taken
    back, end-of-game points), what it is and where the next move is; else None."""
    game, turn = position.game, position.turn
    if game is None or turn is None or turn > len(game.turns):
        return None
    at = game.turns[turn - 1]
    what = {
        "challenge": "a challenge bonus",
        "out": "the points for going out",
        "penalty": "a rack penalty at the end",
        "time": "a time penalty",
        "withdrawn": "a withdrawn phony",
    }.get(at.kind)
    if what is None:
        return None
    after = next((t.number for t in game.turns[turn:] if t.kind in ("play", "exchange", "pass")), None)
    then = f"the next move is turn {after}" if after is not None else "no move follows it"
    return f"turn {turn} of {position.name} (line {at.line}) is {what}, not a move: it has no rack to solve ({then})"


def no_rack_reason(position: LoadedPosition, rules_name: str) -> str:
    """Why the position names no rack: for a game record, what its turn's line is."""
    game, turn = position.game, position.turn
    if game is None or turn is None:
        return "the board gives no rack"
    if turn > len(game.turns):
        return f"{position.name} gives no rack for the position after its last turn (#rack1 / #rack2)"
    at = game.turns[turn - 1]
    if at.rack is None:
        return f"turn {turn} of {position.name} (line {at.line}) does not give the player's rack"
    # (The tiles a player holds are counted by the rule set's tile set: under other rules
    # than the record's, a whole rack can look short.)
    return (
        f"turn {turn} of {position.name} (line {at.line}) gives the rack {at.rack}, fewer tiles than the "
        f"player holds then by the {rules_name} tile set (the record gives only the tiles played, or is "
        "of other rules)"
    )


def read_game_position(ctx: click.Context, board: str, rules: str, turn: int | None) -> tuple[LoadedPosition, Rules]:
    """The position BOARD names (see ``formats.position.read_position``) and its rule set
    (see ``record_rules_chooser``). A record that cannot be replayed prints the warnings of
    the lines before its error first: they often explain it."""
    from solver_cli.formats.position import read_position_under

    choose = record_rules_chooser(ctx, rules)
    with record_warnings_first():
        return read_position_under(board, choose, turn)


def record_rules_chooser(ctx: click.Context, rules: str) -> Callable[[GcgFile | None], Rules]:
    """How a command chooses its rule set, given the game record it reads (None for a board
    file): ``--rules`` when given; else the rule set the record names (``#game-type``, or
    ``rules NAME`` in the description of scrab's older records) when scrab knows it; else
    ``--rules``' default, with one warning when the record names rules scrab does not know.
    A bad ``--rules`` fails at once, before any file is read."""
    from solver_cli.engine.rules import load_rules

    explicit = load_rules(rules) if given(ctx, "rules") else None

    def choose(record: GcgFile | None) -> Rules:
        if explicit is not None:
            return explicit
        if record is not None:
            from solver_cli.formats.gcg_read import record_rules

            named = record_rules(record)
            if named is not None and named.rule_set is not None:
                return load_rules(named.rule_set)
            if named is not None:
                warn(
                    f"{record.name}, line {named.line}: the record names the rule set {named.name!r}, "
                    f"which scrab does not know; using {rules} (give --rules to choose)"
                )
        return load_rules(rules)

    return choose


@contextmanager
def record_warnings_first() -> Iterator[None]:
    """Print the warnings of a record that cannot be replayed before its error: a ``--``
    given to the wrong player is a warning, and the play it left on the board the error."""
    from solver_cli.formats.gcg_read import ReplayError

    try:
        yield
    except ReplayError as exc:
        warn_problems(exc.source, exc.problems)
        raise


def warn_problems(source: str, problems: Iterable[RecordProblem]) -> None:
    for problem in problems:
        warn(f"{source}, line {problem.line}: {problem.message}")


def position_lexicon(lexicon: str | None, position: LoadedPosition) -> str | None:
    """The lexicon for a position: ``--lexicon``, else the ``#lexicon`` of the game record
    the position comes from (see ``record_lexicon``)."""
    if position.game is None:
        return lexicon
    return record_lexicon(lexicon, position.game.lexicon, position.name)


def record_lexicon(lexicon: str | None, game_lexicon: str | None, source: str) -> str | None:
    """``--lexicon`` when given; else the record's ``#lexicon`` when it names a word list
    scrab ships or one of the user's (by name, any case; never a file); else None, the
    default list, with one warning naming the record's and how to add it."""
    if lexicon is not None or not game_lexicon or not game_lexicon.strip():
        return lexicon
    from solver_cli.lexicon.wordlist import DEFAULT_LEXICON, LIST_NAME, lexicon_folders, named_lexicon

    wanted = game_lexicon.strip()
    found = named_lexicon(wanted)
    if found is not None:
        return found
    shown = wanted if len(wanted) <= 40 else wanted[:37] + "..."
    if LIST_NAME.fullmatch(wanted):
        own = lexicon_folders()[0]
        fix = f"put your {wanted} list in {own.path} as {wanted}.txt, or give --lexicon"
        if own.problem is not None and own.problem != "missing":
            fix = f"your word-list folder {own.path} is {own.problem}; or give --lexicon"
    else:
        fix = "give --lexicon to choose"
    warn(f"{source} names the lexicon {shown!r}, which you do not have; using {DEFAULT_LEXICON} ({fix})")
    return None


# --- the scores and scoreless turns before the move ------------------------------------------


@dataclass(frozen=True)
class Setting:
    """What the position says beyond its board: the players' names (the mover first; None
    without a record), their scores before the move (from the record, else 0), and the
    scoreless turns in a row already played."""

    names: tuple[str, str] | None
    scores: tuple[int, int]
    scoreless: int


def game_setting(loaded: LoadedPosition, rules: Rules, check_spread: bool = True, check_over: bool = True) -> Setting:
    """The names, scores and scoreless turns of a position read from a game record (the
    mover is the player on turn); a CGP position gives its scores and scoreless turns, a
    board file none of them. InputError when the scoreless turns have already ended the game,
    or (``check_spread``) when the scores are more than ``lookahead.peg.MAX_SPREAD`` apart
    (no game's are); ``check_over`` False: the setting even so."""
    from solver_cli.errors import InputError
    from solver_cli.games.review import scoreless_before
    from solver_cli.lookahead.peg import MAX_SPREAD

    game, number = loaded.game, loaded.turn
    if game is None or number is None:
        setting = Setting(None, loaded.scores or (0, 0), loaded.scoreless)
    else:
        if number <= len(game.turns):
            mover = game.turns[number - 1].player
            before = game.turns[number - 1].scores
        else:
            moves = [t for t in game.turns if t.kind in ("play", "exchange", "pass")]
            mover = 1 - moves[-1].player if moves else 0
            before = game.final_scores
        names = (game.players[mover], game.players[1 - mover])
        setting = Setting(names, (before[mover], before[1 - mover]), scoreless_before(game, number))
    spread = setting.scores[0] - setting.scores[1]
    if check_spread and abs(spread) > MAX_SPREAD:
        raise InputError(
            f"{loaded.name}: the scores {setting.scores[0]} and {setting.scores[1]} are more than {MAX_SPREAD:,} apart"
        )
    if check_over and setting.scoreless >= rules.scoreless_turns:
        raise InputError(
            f"{loaded.name}: the game is over: {setting.scoreless} scoreless turns in a row "
            f"(the {rules.name} rules end the game after {rules.scoreless_turns})"
        )
    return setting

"""The public Python API: what a script does with scrab, in a few checked calls.

Everything here is re-exported from ``solver_cli`` itself (``import solver_cli as scrab``).
Arguments are checked at this boundary: a wrong one raises the library's own
``InputError`` (or ``LexiconError`` / ``RulesError``) with a message naming the argument (as
the Python parameter, never a command-line flag) and the bad value, never an ``IndexError``
or a ``TypeError`` from deep inside. Rules and lexicons may be given by name; names are
loaded once per process and kept.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from solver_cli.engine.alphabet import ALPHABET_SIZE, BLANK_BIT, Rack, rack_text
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.play import Play
from solver_cli.engine.play import apply_play as _apply_play
from solver_cli.engine.play import check_play as _check_play
from solver_cli.engine.ranking import FilterError, Solution, make_filters, solve_by_score
from solver_cli.engine.ranking import solve as _solve
from solver_cli.engine.rules import Rules, shipped_rule_name
from solver_cli.engine.rules import load_rules as _load_rules
from solver_cli.engine.scoring import Move
from solver_cli.engine.unseen import valuation_for
from solver_cli.engine.winpct import WinTable
from solver_cli.errors import InputError, LexiconError
from solver_cli.formats.leavefile import read_leaves, shipped_leaves, table_for
from solver_cli.formats.position import LoadedPosition
from solver_cli.formats.position import parse_position as _parse_position
from solver_cli.formats.position import read_position as _read_position
from solver_cli.lexicon import Lexicon
from solver_cli.lexicon import load_lexicon as _load_lexicon
from solver_cli.lexicon import lookup as _lookup
from solver_cli.lexicon.wordlist import open_source, shipped_lexicon_name, skipped_lines

if TYPE_CHECKING:  # (the look-ahead is imported when it is called: most scripts never do)
    from solver_cli.engine.movegen import Candidate
    from solver_cli.lookahead.endgame import EndgameResult
    from solver_cli.lookahead.infer import Inference
    from solver_cli.lookahead.peg import PegResult
    from solver_cli.lookahead.sim import SimResult

RulesArg = Rules | str
LexiconArg = Lexicon | str | Path | None
RackArg = Rack | str | Sequence[int]


class LeavesWarning(UserWarning):
    """``solve`` ranks by equity with a leave table not trained for its rules and word list
    (the table of another word list for the same rules, or none at all: then by score and
    the end-of-game adjustments); or a win-probability table of another word list is used."""


class LexiconWarning(UserWarning):
    """A word-list file has lines that are not words of letters A-Z (a list for another
    alphabet: ``AÑO``, ``NIÑO``): those lines are left out of the lexicon."""


@functools.cache
def _shipped_rules(name: str) -> Rules:
    return _load_rules(name)


def load_rules(name_or_path: str | Path = "scrabble") -> Rules:
    """A shipped rule set by name (``scrabble``, ``wwf``, ``super``) or a TOML file by path.
    Shipped rule sets are read once per process; a file is read at every call."""
    if not isinstance(name_or_path, str | Path):
        raise InputError(f"name_or_path must be a rule set's name or a path, not {type(name_or_path).__name__}")
    name = str(name_or_path)
    shipped = shipped_rule_name(name)
    return _shipped_rules(shipped) if shipped is not None else _load_rules(name)


def _rules(rules: RulesArg) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if not isinstance(rules, str | Path):
        raise InputError(f"rules must be Rules (from load_rules), a name or a path, not {type(rules).__name__}")
    return load_rules(rules)


@functools.cache
def _shipped_lexicon(name: str | None, max_length: int) -> Lexicon:
    return _load_lexicon(name, max_length)


def load_lexicon(
    name_or_path: str | Path | None = None, rules: RulesArg = "scrabble", *, strict: bool = False
) -> Lexicon:
    """A shipped word list by name (``kjxqz``, the default, or ``sowpods``) or a word-list
    file, for words up to the longest line of ``rules``' board. The GADDAG is built on
    first use and cached in the user's cache folder; later calls load it in milliseconds,
    and a shipped list is loaded once per process.

    A file's lines that are not words of letters A-Z (``AÑO``: a list for another alphabet)
    are left out, with a ``LexiconWarning`` at every call that says how many and names the
    first; with ``strict=True`` they are a ``LexiconError`` instead. Blank lines, ``#``
    comments and words longer than the board are not counted."""
    if name_or_path is not None and not isinstance(name_or_path, str | Path):
        raise InputError(f"name_or_path: a lexicon is a name or a path, not {type(name_or_path).__name__}")
    if not isinstance(strict, bool):
        raise InputError(f"strict must be True or False, not {strict!r}")
    max_length = _rules(rules).max_side
    name = None if name_or_path is None else str(name_or_path)
    shipped = None if name is None else shipped_lexicon_name(name)
    if name is None or shipped is not None:
        return _shipped_lexicon(shipped, max_length)
    # Checked at every call, not only when the GADDAG is built: a cached lexicon lacks the
    # same words, and the cache does not keep what the build skipped.
    count, number, line = skipped_lines(open_source(name).text(), max_length)
    if count:
        where = f"{name}, line {number}: {line!r}"
        if strict:
            raise LexiconError(
                f"{where} is not a word of letters A-Z ({count} such line{'s' if count != 1 else ''}; "
                "without strict=True they are skipped)"
            )
        warnings.warn(
            f"{name}: skipped {count} line{'s' if count != 1 else ''} that are not words of letters A-Z "
            f"(the first is line {number}: {line!r})",
            LexiconWarning,
            stacklevel=2,
        )
    return _load_lexicon(name, max_length)  # a file may change between calls: its cache decides


def _lexicon(lexicon: LexiconArg, rules: Rules, *, for_board: bool = True) -> Lexicon:
    if lexicon is None or isinstance(lexicon, str | Path):
        return load_lexicon(lexicon, rules)
    if not isinstance(lexicon, Lexicon):
        raise InputError(f"lexicon must be a Lexicon (from load_lexicon) or a name, not {type(lexicon).__name__}")
    if for_board and lexicon.max_length < rules.max_side:
        raise LexiconError(
            f"lexicon {lexicon.name} holds words up to {lexicon.max_length} letters; the {rules.name} board "
            f"needs {rules.max_side}: load it with load_lexicon({lexicon.name!r}, rules)"
        )
    return lexicon


def read_position(source: str | Path, rules: RulesArg = "scrabble") -> LoadedPosition:
    """A position from a board file, a file holding a CGP string, a CGP string, or ``-``
    (standard input). ``.board`` is the board; ``.rack`` the rack a CGP position names."""
    if not isinstance(source, str | Path):
        raise InputError(f"source must be a file's path or a CGP string, not {type(source).__name__}")
    return _read_position(str(source), _rules(rules))


def parse_board(text: str, rules: RulesArg = "scrabble") -> Board:
    """A board from text: a board file's content (15 lines of ``.``, ``A``-``Z``, blanks
    ``a``-``z``) or a CGP string."""
    if not isinstance(text, str):
        raise InputError(f"text must be a board's text or a CGP string, not {type(text).__name__}")
    return _parse_position(text, _rules(rules), "board").board


def make_rack(rack: RackArg, rules: RulesArg = "scrabble") -> Rack:
    """A rack from text (``AEIRST?``, ``?`` a blank, any case) or 27 counts (index 0 the
    blanks, then A..Z), checked against the rule set's rack size."""
    size = _rules(rules).rack_size
    counts: Sequence[int]
    if isinstance(rack, Rack):
        counts = rack.counts
    elif isinstance(rack, str):
        if not rack.strip():  # said here: the parser's message names the command line's --rack
            raise InputError("rack is empty: give its letters, e.g. 'AEIRST?' (? is a blank)")
        return Rack.parse(rack, size)
    elif isinstance(rack, list | tuple):
        counts = rack
    else:
        raise InputError(f"a rack is letters such as 'AEIRST?' or 27 counts, not {type(rack).__name__}")
    if len(counts) != ALPHABET_SIZE + 1 or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts
    ):
        raise InputError("rack counts must be 27 non-negative integers: blanks first, then A..Z")
    if sum(counts) > size:
        raise InputError(f"rack has {sum(counts)} tiles; a rack holds at most {size}")
    return Rack(tuple(counts))


def _board(board: Board | LoadedPosition, rules: Rules) -> Board:
    if isinstance(board, LoadedPosition):
        board = board.board
    if not isinstance(board, Board):
        raise InputError(f"board must be a Board (from read_position or parse_board), not {type(board).__name__}")
    if (board.rows, board.cols) != (rules.rows, rules.cols):
        raise InputError(f"the board is {board.rows}x{board.cols}; the {rules.name} board is {rules.rows}x{rules.cols}")
    if len(board.squares) != rules.rows * rules.cols:
        raise InputError(
            f"the board has {len(board.squares)} squares; "
            f"a {rules.rows}x{rules.cols} board has {rules.rows * rules.cols}"
        )
    for i, code in enumerate(board.squares):
        if not (code == 0 or 1 <= code & ~BLANK_BIT <= ALPHABET_SIZE) or code & ~(BLANK_BIT | 31):
            raise InputError(f"the board's square {i} holds {code!r}, not a tile code")
    return board


def solve(
    board: Board | LoadedPosition,
    rack: RackArg,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    rank: str = "equity",
    leaves: LeaveTable | str | Path | None = None,
    top: int | None = None,
    at: str | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    must_use: str | None = None,
    min_score: int | None = None,
    word: str | None = None,
    sort: str = "rank",
) -> Solution:
    """Every candidate move for ``rack`` on ``board`` (placements, exchanges when the bag
    allows them, the pass), best first (``top`` of them, or all), as ``scrab solve`` ranks
    them.

    ``rank="equity"`` (the default) ranks by score plus the value of the tiles kept, from
    ``leaves`` (a ``LeaveTable``, a leave file's path, or None for the table shipped for
    the rules and word list: a ``LeavesWarning`` says when there is none); ``rank="score"``
    by score, exchanges and the pass last. Filters, as on the command line: ``at="H8"``
    (the main word covers that square), ``min_length`` / ``max_length`` (main word),
    ``must_use="Z?"`` (rack tiles the move plays), ``min_score``, ``word="*ING"`` (``?`` one
    letter, ``*`` any run). ``sort`` is ``rank`` (the ``rank`` order), ``score``, ``length``
    or ``tiles`` (ties in the ``rank`` order). ``Solution.total`` counts every candidate and
    ``Solution.matching`` those the filters keep.
    """
    rule_set = _rules(rules)
    checked_board = _board(board, rule_set)
    counts = make_rack(rack, rule_set)
    if top is not None and (not isinstance(top, int) or isinstance(top, bool) or top < 1):
        raise InputError(f"top must be a positive integer or None, not {top!r}")
    if rank not in ("equity", "score"):
        raise InputError(f"rank must be 'equity' or 'score', not {rank!r}")
    if sort not in ("rank", "score", "length", "tiles"):
        raise FilterError("sort", f"unknown sort {sort!r}: use 'rank', 'score', 'length' or 'tiles'")
    by_score = sort == "score" and rank == "equity"
    try:
        filters = make_filters(
            rule_set,
            at=at,
            min_length=min_length,
            max_length=max_length,
            must_use=must_use,
            min_score=min_score,
            word=word,
            sort="score" if sort == "rank" else sort,  # the engine's name for its rank order
        )
    except FilterError as exc:  # the wording that names the parameter, not the CLI's flag
        raise FilterError(exc.param, exc.neutral) from None
    if filters.must_use is not None:
        _check_held(filters.must_use, counts.counts)
    lex = _lexicon(lexicon, rule_set)
    table = _leave_table(leaves, rule_set, lex, lexicon) if rank == "equity" else None
    valuation = valuation_for(checked_board, list(counts.counts), rule_set, table)
    rack_counts = list(counts.counts)
    run = solve_by_score if by_score else _solve
    return run(checked_board, rack_counts, lex.gaddag, rule_set, limit=top, filters=filters, valuation=valuation)


def load_leaves(
    name_or_path: str | Path | None = None, rules: RulesArg = "scrabble", lexicon: LexiconArg = None
) -> LeaveTable:
    """A leave table: from a leave file (``scrab leaves train`` writes them), or with
    ``name_or_path`` None the one shipped for ``rules`` and the word list ``lexicon``
    (``LexiconError`` when none is). ``LeaveTable.value(counts)`` is a leave's worth in
    thousandths of a point, ``counts`` as a rack's (``make_rack(...).counts``)."""
    if name_or_path is not None:
        if not isinstance(name_or_path, str | Path):
            raise InputError(f"name_or_path must be a leave file's path or None, not {type(name_or_path).__name__}")
        return read_leaves(name_or_path)
    rule_set = _rules(rules)
    name = _lexicon_name(lexicon)
    table = shipped_leaves(rule_set.name, name)
    if table is None:
        raise LexiconError(f"no leave values are shipped for {rule_set.name} with {name}")
    return table


def _lexicon_name(lexicon: LexiconArg) -> str:
    from solver_cli.lexicon.wordlist import lexicon_label

    if isinstance(lexicon, Lexicon):
        return lexicon_label(lexicon.name)  # a file's name without its folder and suffixes
    if lexicon is not None and not isinstance(lexicon, str | Path):
        raise InputError(f"lexicon must be a Lexicon, a name or a path, not {type(lexicon).__name__}")
    return lexicon_label(None if lexicon is None else str(lexicon))


def _leave_table(
    leaves: LeaveTable | str | Path | None, rules: Rules, lexicon: Lexicon, given: LexiconArg = None
) -> LeaveTable:
    if isinstance(leaves, LeaveTable):
        return leaves
    if leaves is not None and not isinstance(leaves, str | Path):
        raise InputError(f"leaves must be a LeaveTable, a leave file's path or None, not {type(leaves).__name__}")
    from solver_cli.lexicon.wordlist import is_own_lexicon

    # A list of the user's own, by name, ranks by its own trained table as the CLI's does (a
    # path never counts as a name; a Lexicon loaded beforehand goes by the name it was given).
    name = given if isinstance(given, str) else lexicon.name if isinstance(given, Lexicon) else None
    own_list = leaves is None and is_own_lexicon(name)
    table, note = table_for(
        rules.name, _lexicon_name(lexicon), None if leaves is None else str(leaves), own_list=own_list
    )
    if note:
        warnings.warn(note, LeavesWarning, stacklevel=3)
    return table


def _check_held(need: Sequence[int], rack: Sequence[int]) -> None:
    missing = [max(0, n - held) for n, held in zip(need, rack, strict=True)]
    if any(missing):
        raise FilterError(
            "must_use",
            f"must_use {rack_text(list(need))!r}: the rack {rack_text(list(rack)) or '(empty)'} "
            f"lacks {rack_text(missing)}",
        )


def check_play(
    board: Board | LoadedPosition,
    position: str,
    word: str,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    rack: RackArg | None = None,
) -> Play:
    """Check one move in standard notation (``8H`` across, ``H8`` down; the whole word,
    blanks lowercase, board letters as themselves, ``.`` or in parentheses) and score it.
    Raises ``IllegalMove`` when the rules or the lexicon do not allow it (more of a tile
    than the tile set holds included)."""
    rule_set = _rules(rules)
    checked_board = _board(board, rule_set)
    for value, what, example in ((position, "position", "'8H'"), (word, "word", "'RETAINS'")):
        if not isinstance(value, str):
            raise InputError(f"{what} must be a string such as {example}, not {type(value).__name__}")
    counts = None if rack is None else list(make_rack(rack, rule_set).counts)
    lex = _lexicon(lexicon, rule_set)
    return _check_play(checked_board, rule_set, position, word, lex.contains, lex.name, counts, count_tiles=True)


def apply_play(board: Board | LoadedPosition, play: Play | Move) -> Board:
    """A new board with ``play`` on it: a ``Play`` from ``check_play`` or a ``Move`` from
    ``solve`` (an exchange or a pass leaves the board as it was); ``board`` is not changed."""
    if isinstance(board, LoadedPosition):
        board = board.board
    if not isinstance(board, Board):
        raise InputError(f"board must be a Board (from read_position or parse_board), not {type(board).__name__}")
    if isinstance(play, Play):
        return _apply_play(board, play)
    if not isinstance(play, Move):
        raise InputError(f"play must be a Play (from check_play) or a Move (from solve), not {type(play).__name__}")
    new = board.copy()
    for tile in play.placed:
        if not (0 <= tile.row < board.rows and 0 <= tile.col < board.cols):
            raise InputError(f"the move {play.text} is off this {board.rows}x{board.cols} board")
        square = tile.row * board.cols + tile.col
        if new.squares[square]:
            raise InputError(f"the move {play.text} places a tile on an occupied square: it is not for this board")
        new.squares[square] = tile.code
    return new


def hooks(word: str, lexicon: LexiconArg = None) -> _lookup.Hooks:
    """The letters that make a word before (``front``) and after (``back``) ``word``."""
    target = _lookup.parse_word(_text(word, "word"))
    lex = _lexicon(lexicon, load_rules(), for_board=False)
    return _lookup.word_hooks(lex.gaddag, target)


def anagrams(
    rack: RackArg,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    partial: bool = False,
    min_length: int = 2,
    max_length: int | None = None,
) -> list[_lookup.Found]:
    """The words ``rack`` spells with all its tiles (``partial``: with some of them), best
    face-value score first; blank letters lowercase in ``Found.display``."""
    rule_set = _rules(rules)
    counts = make_rack(rack, rule_set)
    if not isinstance(partial, bool):
        raise InputError(f"partial must be True or False, not {partial!r}")
    _lookup.check_lengths(min_length, max_length)
    if max_length is not None and min_length > max_length:
        raise InputError(f"min_length {min_length} is more than max_length {max_length}")
    lex = _lexicon(lexicon, rule_set)
    return _lookup.anagrams(lex.gaddag, list(counts.counts), rule_set.values, partial, min_length, max_length)


def pattern(
    text: str, lexicon: LexiconArg = None, rules: RulesArg = "scrabble", *, rack: RackArg | None = None
) -> list[_lookup.Found]:
    """Words matching ``text``: ``?`` one letter, ``*`` any run, letters literal; with
    ``rack``, only those whose ``?``/``*`` letters the rack can supply."""
    rule_set = _rules(rules)
    tokens = _lookup.parse_pattern(_text(text, "pattern"))
    counts = None if rack is None else list(make_rack(rack, rule_set).counts)
    lex = _lexicon(lexicon, rule_set)
    return _lookup.pattern_words(lex.gaddag, tokens, rule_set.values, counts)


def check(words: str | Iterable[str], lexicon: LexiconArg = None) -> dict[str, bool]:
    """Whether each word is in the lexicon, by word (uppercase)."""
    if isinstance(words, str):
        words = [words]
    elif isinstance(words, bytes | bytearray) or not isinstance(words, Iterable):
        raise InputError(f"words must be a word or an iterable of words, not {type(words).__name__}")
    targets = [_lookup.parse_word(_text(w, "word")) for w in words]
    lex = _lexicon(lexicon, load_rules(), for_board=False)
    return dict(_lookup.check_words(lex.gaddag, targets))


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, not {type(value).__name__}")
    return value


# --- looking ahead --------------------------------------------------------------------------


def _position(board: Board | LoadedPosition, rack: RackArg, rules: RulesArg) -> tuple[Rules, Board, list[int]]:
    """The rule set, the board checked against it and the rack's counts: what every look-ahead
    call starts from."""
    rule_set = _rules(rules)
    return rule_set, _board(board, rule_set), list(make_rack(rack, rule_set).counts)


def endgame(
    board: Board | LoadedPosition,
    rack: RackArg,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    scoreless: int = 0,
    top: int = 1,
    plies: int | None = None,
    time_limit: float | None = None,
    tt_mb: int | None = None,
) -> EndgameResult:
    """Solve the endgame of ``board`` exactly, as ``scrab endgame`` does: ``rack`` to move
    with the bag empty, the opponent holding every tile ``rack`` cannot see, after
    ``scoreless`` scoreless turns in a row. ``EndgameResult.value`` is the final spread
    change from the mover's side with both at their best, ``best`` the ``top`` best first
    moves, ``pv`` the game from there; exact (``proven``) unless ``plies`` or
    ``time_limit`` (seconds) cut the search; ``tt_mb``: the transposition table's memory
    (None: 256 MB). A position with tiles in the bag, or none
    unseen, is an ``InputError``. See docs/endgame.md."""
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.endgame import DEFAULT_TT_MB, solve_endgame

    rule_set, checked_board, counts = _position(board, rack, rules)
    unseen = unseen_tiles(checked_board, counts, rule_set)
    _check_tiles(unseen.over, rule_set)
    if unseen.total > rule_set.rack_size:
        bag = unseen.total - rule_set.rack_size
        raise InputError(
            f"not an endgame: {bag} tile{'s' if bag != 1 else ''} left in the bag ({unseen.total} unseen, "
            f"a rack holds {rule_set.rack_size}); peg solves a pre-endgame"
        )
    if unseen.total == 0:
        raise InputError("the game is over: no tile is unseen, so the opponent's rack is empty")
    lex = _lexicon(lexicon, rule_set)
    return solve_endgame(
        checked_board,
        counts,
        list(unseen.counts),
        lex.gaddag,
        rule_set,
        scoreless=scoreless,
        top=top,
        plies=plies,
        time_limit=time_limit,
        tt_mb=DEFAULT_TT_MB if tt_mb is None else tt_mb,
    )


def _opponent_rack(opponent_rack: RackArg | None, rules: Rules) -> list[int] | None:
    """The ``opponent_rack`` argument as 27 counts (None: not given); its errors name it."""
    if opponent_rack is None:
        return None
    try:
        return list(make_rack(opponent_rack, rules).counts)
    except InputError as exc:
        raise InputError(f"opponent_rack: {exc}") from None


def peg(
    board: Board | LoadedPosition,
    rack: RackArg,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    leaves: LeaveTable | str | Path | None = None,
    spread: int = 0,
    scoreless: int = 0,
    top: int = 10,
    max_bag: int = 2,
    pessimistic: bool = False,
    time_limit: float | None = None,
    plies: int | None = None,
    exhaustive: bool = False,
    exact_spread: bool = False,
    opponent_rack: RackArg | None = None,
) -> PegResult:
    """Solve a pre-endgame, as ``scrab peg`` does: with 1 to ``max_bag`` tiles in the bag
    (at most 7), the ``top`` best moves by equity (``leaves`` as in ``solve``) and the pass,
    each played out over every way the unseen tiles can lie between the opponent's rack and
    the bag, each game to its end. ``spread`` is the mover's score less
    the opponent's before the move. The opponent replies at its best knowing only its own
    rack, or with ``pessimistic`` the reply worst for the mover. The moves are searched in
    stages (greedy play-outs, the best half one ply deep, the best 2 to the end or ``plies``
    deep); ``exhaustive`` searches every move in the last stage. The last stage settles
    only who wins each draw, and its moves' mean spreads are the stage before's estimates
    (``spread_exact`` False), unless ``exact_spread``. ``opponent_rack``: tiles known to
    be on the opponent's rack (some or all of it, say shown by a phony challenged off):
    only the draws that give it them are played out.
    ``PegResult.candidates`` are best first: by the stage reached, then win rate (a draw
    counting half), then mean final spread."""
    from solver_cli.lookahead.peg import BEST_REPLY, PESSIMISTIC, solve_pre_endgame

    rule_set, checked_board, counts = _position(board, rack, rules)
    if not isinstance(pessimistic, bool):
        raise InputError(f"pessimistic must be True or False, not {pessimistic!r}")
    if not isinstance(exhaustive, bool):
        raise InputError(f"exhaustive must be True or False, not {exhaustive!r}")
    if not isinstance(exact_spread, bool):
        raise InputError(f"exact_spread must be True or False, not {exact_spread!r}")
    opponent = _opponent_rack(opponent_rack, rule_set)
    lex = _lexicon(lexicon, rule_set)
    table = _leave_table(leaves, rule_set, lex, lexicon)
    return solve_pre_endgame(
        checked_board,
        counts,
        lex.gaddag,
        rule_set,
        leaves=table,
        spread=spread,
        scoreless=scoreless,
        top=top,
        max_bag=max_bag,
        model=PESSIMISTIC if pessimistic else BEST_REPLY,
        time_limit=time_limit,
        plies=plies,
        exhaustive=exhaustive,
        exact_spread=exact_spread,
        opponent_rack=opponent,
    )


def sim(
    board: Board | LoadedPosition,
    rack: RackArg,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    leaves: LeaveTable | str | Path | None = None,
    candidates: int = 10,
    plies: int = 2,
    iterations: int | None = None,
    time_limit: float | None = None,
    stop: int | None = 99,
    seed: int = 0,
    opponent_rack: RackArg | None = None,
    rank: str | None = None,
    win_table: WinTable | str | Path | None = None,
    spread: int = 0,
    scoreless: int = 0,
) -> SimResult:
    """Rank the ``candidates`` best moves by equity (``leaves`` as in ``solve``) by playing
    the game forward, as ``scrab sim`` does (docs/sim.md): ``plies`` replies at their best
    by equity after each candidate, the opponent's rack drawn from the unseen tiles (or
    ``opponent_rack``, completed at random when short), every candidate seeing the same
    draws. It stops when one candidate is ahead at ``stop`` percent confidence (95, 98 or
    99; None: never early), after ``iterations`` (default: 2,000 + 625 a ply, unless
    ``time_limit`` is given), or after ``time_limit`` seconds; the same ``seed`` gives the
    same standings. ``rank`` is "win" (by the chance to win, read from ``win_table``: a
    ``WinTable``, a file, or None for the table shipped for the rules and word list) or
    "spread" (by mean points); None: "win" when there is a table. ``spread`` and
    ``scoreless``: the score difference and the scoreless turns in a row before the move."""
    from solver_cli.lookahead.sim import TableChance, simulate

    rule_set, checked_board, counts = _position(board, rack, rules)
    opponent = _opponent_rack(opponent_rack, rule_set)
    for value, name in ((candidates, "candidates"), (plies, "plies"), (seed, "seed"), (spread, "spread")):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{name} must be an integer, not {value!r}")
    for optional, name in ((iterations, "iterations"), (stop, "stop")):
        if optional is not None and (not isinstance(optional, int) or isinstance(optional, bool)):
            raise InputError(f"{name} must be an integer or None, not {optional!r}")
    if time_limit is not None and (not isinstance(time_limit, int | float) or isinstance(time_limit, bool)):
        raise InputError(f"time_limit must be a number of seconds or None, not {time_limit!r}")
    if type(scoreless) is not int or not 0 <= scoreless < rule_set.scoreless_turns:
        raise InputError(f"scoreless must be 0..{rule_set.scoreless_turns - 1}, not {scoreless!r}")
    if rank not in (None, "win", "spread"):
        raise InputError(f"rank must be 'win', 'spread' or None, not {rank!r}")
    lex = _lexicon(lexicon, rule_set)
    table = _leave_table(leaves, rule_set, lex, lexicon)
    chances = None if rank == "spread" else _win_table(win_table, rule_set, lexicon)
    if rank == "win" and chances is None:
        raise InputError(f"rank 'win' needs a win-probability table for {rule_set.name}; use rank='spread'")
    if iterations is None and time_limit is None:
        iterations = 2000 + 625 * plies  # Macondo's cap, as scrab sim's
    return simulate(
        checked_board,
        counts,
        lex.gaddag,
        rule_set,
        table,
        candidates=candidates,
        plies=plies,
        iterations=iterations,
        time_limit=time_limit,
        stop=stop,
        seed=seed,
        opponent_rack=opponent,
        win_probability=None if chances is None else TableChance(chances),
        objective="points" if chances is None else "win",
        spread=spread,
        scoreless=scoreless,
    )


def infer(
    board: Board | LoadedPosition,
    rack: RackArg,
    play: str,
    lexicon: LexiconArg = None,
    rules: RulesArg = "scrabble",
    *,
    leaves: LeaveTable | str | Path | None = None,
    margin: float | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> Inference:
    """The leaves the opponent may have kept, judged by its move ``play`` on ``board`` (the
    position before it), as ``scrab infer`` does (docs/inference.md): ``"8D FAIRED"``,
    ``"exchange 3"`` or ``"pass"``. The tiles unseen are those not on ``board`` nor on
    ``rack`` (yours). A rack is kept when ``play`` is within ``margin`` points of its best
    equity (``leaves`` as in ``solve``; None: 5 points, MAGPIE's), weighted by the ways to
    draw it; past ``limit`` racks (None: 5,000), random draws (``seed``) estimate the
    answer. ``Inference.leaves`` are the kept leaves, likeliest first. An illegal placement
    is an ``IllegalMove``."""
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.infer import DEFAULT_LIMIT, DEFAULT_MARGIN, parse_opponent_play
    from solver_cli.lookahead.infer import infer as _infer

    rule_set, checked_board, counts = _position(board, rack, rules)
    text = _text(play, "play")
    margin = DEFAULT_MARGIN if margin is None else margin
    limit = DEFAULT_LIMIT if limit is None else limit
    for value, name in ((limit, "limit"), (seed, "seed")):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{name} must be an integer, not {value!r}")
    if not isinstance(margin, int | float) or isinstance(margin, bool):
        raise InputError(f"margin must be a number of points, not {margin!r}")
    lex = _lexicon(lexicon, rule_set)
    opponent_play, _ = parse_opponent_play(checked_board, rule_set, text, lex.contains, lex.name, "play")
    unseen = unseen_tiles(checked_board, counts, rule_set)
    _check_tiles(unseen.over, rule_set)
    table = _leave_table(leaves, rule_set, lex, lexicon)
    return _infer(
        checked_board, unseen.counts, opponent_play, rule_set, lex.gaddag, table, margin=margin, limit=limit, seed=seed
    )


def load_winpct(
    name_or_path: str | Path | None = None, rules: RulesArg = "scrabble", lexicon: LexiconArg = None
) -> WinTable:
    """A win-probability table: from a file (``scrab winpct train`` writes them), or with
    ``name_or_path`` None the one for ``rules`` and the word list ``lexicon`` (shipped, or
    one shipped for the same rules and another word list: a ``LeavesWarning`` says so;
    ``LexiconError`` when there is none)."""
    rule_set = _rules(rules)
    if name_or_path is not None and not isinstance(name_or_path, str | Path):
        raise InputError(
            f"name_or_path must be a win-probability file's path or None, not {type(name_or_path).__name__}"
        )
    table = _win_table(name_or_path, rule_set, lexicon)
    if table is None:
        raise LexiconError(f"no win probabilities are shipped for {rule_set.name}")
    return table


def win_probability(
    spread: float,
    unseen: int,
    table: WinTable | str | Path | None = None,
    rules: RulesArg = "scrabble",
    lexicon: LexiconArg = None,
) -> float:
    """The chance that the player to move wins (a draw counting half) with ``spread`` points
    more than the opponent (fractions of a point interpolate as whole points do) and
    ``unseen`` tiles it cannot see (the bag and the opponent's rack), from ``table`` (a
    ``WinTable``, a file, or None: ``load_winpct(None, rules, lexicon)``). The spread is
    clamped to the table's range; no tile unseen gives the exact 1, 0.5 or 0."""
    from solver_cli.engine.winpct import win_probability as _win_probability

    if isinstance(spread, bool) or not isinstance(spread, int | float):
        raise InputError(f"spread must be a number of points, not {spread!r}")
    if isinstance(unseen, bool) or not isinstance(unseen, int):
        raise InputError(f"unseen must be a whole number of tiles, not {unseen!r}")
    chosen = table if isinstance(table, WinTable) else load_winpct(table, rules, lexicon)
    return _win_probability(chosen, spread, unseen)


def _win_table(table: WinTable | str | Path | None, rules: Rules, lexicon: LexiconArg) -> WinTable | None:
    """The win table given (a file is read), or the one for the rules and word list (a
    ``LeavesWarning`` when it was trained for another list), checked against the rules;
    None when there is none."""
    from solver_cli.formats.winpctfile import check_fits, read_winpct, winpct_for
    from solver_cli.lexicon.wordlist import is_own_lexicon

    if isinstance(table, WinTable):
        found = table
    elif table is not None:
        if not isinstance(table, str | Path):
            raise InputError(
                f"win_table must be a WinTable, a win-probability file's path or None, not {type(table).__name__}"
            )
        found = read_winpct(table)
    else:
        name = lexicon.name if isinstance(lexicon, Lexicon) else lexicon if isinstance(lexicon, str) else None
        shipped, note = winpct_for(rules.name, _lexicon_name(lexicon), own_list=is_own_lexicon(name))
        if shipped is None:
            return None
        if note:
            warnings.warn(note, LeavesWarning, stacklevel=3)
        found = shipped
    check_fits(found, rules)
    return found


def _check_tiles(over: Sequence[tuple[str, int, int]], rules: Rules) -> None:
    """More of a tile on the board and the rack than the rule set holds: an InputError."""
    if over:
        letter, held, in_set = over[0]
        raise InputError(
            f"the board and the rack hold {held} of {letter}, more than the {in_set} in the {rules.name} set"
        )


def move_of(board: Board | LoadedPosition, rack: RackArg, candidate: Candidate, rules: RulesArg = "scrabble") -> Move:
    """The ``Move`` (notation, tiles, score, cross-words) of a candidate that a look-ahead
    result names (``EndgameResult.best``, ``PegResult.candidates``, ``SimResult.standings``),
    played with ``rack`` on ``board``: a placement, an exchange or the pass."""
    from solver_cli.engine.movegen import Candidate as _Candidate
    from solver_cli.engine.ranking import candidate_move

    rule_set, checked_board, counts = _position(board, rack, rules)
    if not isinstance(candidate, _Candidate):
        raise InputError(f"candidate must be a Candidate from a look-ahead result, not {type(candidate).__name__}")
    return candidate_move(checked_board, rule_set, counts, candidate)

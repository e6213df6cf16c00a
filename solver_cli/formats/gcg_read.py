"""Reading GCG game records (John Chew's .gcg format) and replaying them on the board.

Reading is two steps. ``parse_gcg`` reads the text into pragmata and events, line by line,
and refuses what it cannot read (an ``InputError`` naming the file and the line).
``replay_gcg`` then plays the events on an empty board under a rule set and builds the
neutral ``GameRecord`` (engine/history.py): each turn with the board before it, the rack,
the move and the scores. A move that does not fit the board stops the replay (an
``InputError``); a score or running total that scrab's scoring does not give, a word not in
the lexicon (a phony), a rack that does not hold the tiles played or turns out of order are
``RecordProblem``s, and the replay goes on with the record's own figures.

What is read (the subset the docs list in docs/formats.md):

    #character-encoding UTF-8           first line only; without it UTF-8, else ISO-8859-1
    #player1 nick Full Name             #player2 likewise; without them, the first two nicks
    #game-type classic                  the rule set (classic, classic_super, or scrab's own names)
    #lexicon #title #description #id #rack1 #rack2 #incomplete ...   kept; unknown ones too
    #note text                          a note on the event before (later plain lines continue it)
    >nick: RACK 8H WORD +score total    a play across (row first), H8 down (column first);
                                        lowercase letters are blanks, tiles already on the board
                                        are ``.``, in parentheses, or written as themselves
    >nick: RACK -ABC +0 total           an exchange; ``-3`` when the tiles are hidden
    >nick: RACK - +0 total              a pass
    >nick: RACK -- -score total         the play before withdrawn (a phony challenged off)
    >nick: RACK (challenge) +5 total    a challenge bonus
    >nick: (ABC) +12 total              going out: the opponent's rack counted (once or twice)
    >nick: ABC (ABC) -6 total           a player's own rack at the end
    >nick: RACK (time) -10 total        a time penalty

The rack is optional on every event line, and may be partial (online sites often give only
the tiles played for an opponent). Anything after the cumulative score is ignored (some
tools list the cross-words there).

The rule set and the word list a record names (``record_rules``, ``record_lexicon_name``)
are for the caller to choose with: replaying takes the rules it is given.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from solver_cli._io import path_exists, read_limited
from solver_cli._text import plural
from solver_cli.engine.alphabet import BLANK, BLANK_BIT, CODE, LETTER_MASK, LETTERS, letter_of, rack_text, shown_char
from solver_cli.engine.board import Board
from solver_cli.engine.history import GameRecord, GameTurn, RecordProblem
from solver_cli.engine.notation import position_text
from solver_cli.engine.play import check_play
from solver_cli.engine.rules import Rules, shipped_rule_name
from solver_cli.errors import IllegalMove, InputError
from solver_cli.formats.gcg import GAME_TYPES, lexicon_name
from solver_cli.formats.gcg_text import _EVENT, _HEADER_PRAGMAS, _PRAGMA, MAX_GCG_BYTES, decode_gcg

MAX_EVENTS = 1_000  # a game has about 30; even six-pass endings and penalties stay far below
MAX_POINTS_DIGITS = 6

_POSITION = re.compile(r"[0-9]{1,2}[A-Za-z]|[A-Za-z][0-9]{1,2}")
_RACK = re.compile(r"[A-Za-z?]+")
_WORD = re.compile(r"[A-Za-z.()]+")
_POINTS = re.compile(r"[+-]?[0-9]+")


@dataclass
class GcgEvent:
    """One ``>`` line as written (before it is checked against a board)."""

    line: int
    nick: str
    rack: str | None  # as written (uppercase), None when the line gives none
    kind: str  # a ``GameTurn`` kind
    score: int
    total: int
    position: str = ""
    word: str = ""
    exchanged: str = ""
    exchange_count: int = 0
    counted: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class GcgFile:
    """A record as read: pragmata in order (name, value, line) and events."""

    name: str
    pragmas: list[tuple[str, str, int]]
    events: list[GcgEvent]
    problems: list[RecordProblem]

    def pragma(self, name: str) -> str | None:
        """The value of the first pragma ``name`` (without ``#``), None when absent."""
        return next((value for key, value, _ in self.pragmas if key == name), None)


class ReplayError(InputError):
    """An event that cannot be replayed, with the problems found before it: a warning on an
    earlier line (a ``--`` given to the wrong player) often explains the error."""

    def __init__(self, message: str, source: str, problems: tuple[RecordProblem, ...]):
        super().__init__(message)
        self.source = source  # the record's name, as messages give it
        self.problems = problems


@dataclass(frozen=True)
class NamedRules:
    """The rule set a record names, as written, and the shipped rule set that is (None when
    scrab has none by that name)."""

    name: str
    line: int
    rule_set: str | None


# --- text ------------------------------------------------------------------------------------


def read_gcg_text(source: str) -> tuple[str, str]:
    """(text, name for messages) of a record file, or of standard input for ``-``."""
    if source == "-":
        data, name = sys.stdin.buffer.read(MAX_GCG_BYTES + 1), "<stdin>"
    else:
        if path_exists(source) and Path(source).is_dir():
            raise InputError(f"{source}: is a directory, not a game record")
        data, name = read_limited(source, MAX_GCG_BYTES, "game record"), source
    return decode_gcg(data, name), name


# --- parsing ---------------------------------------------------------------------------------


def parse_gcg(text: str, name: str = "game") -> GcgFile:
    """Pragmata and events of a record; ``InputError`` (file and line) for a line that is
    neither, or an event line that cannot be read."""
    if text.startswith("\ufeff"):
        text = text[1:]
    pragmas: list[tuple[str, str, int]] = []
    events: list[GcgEvent] = []
    problems: list[RecordProblem] = []
    in_note = False
    recognised = False  # a move line or a #player / #character-encoding pragma seen so far
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line.isprintable():  # names, ids and notes are shown: no escape reaches a terminal
            # '?' in a move line is a blank: there a control character becomes U+FFFD, which
            # no rack, word or score takes, so the line is refused rather than read anew.
            stand_in = "\ufffd" if line.startswith(">") else "?"
            line = "".join(ch if ch.isprintable() or ch == "\t" else stand_in for ch in line)
        if not line:
            continue
        where = f"{name}, line {number}"
        if line.startswith(">"):
            recognised = True
            in_note = False
            if len(events) >= MAX_EVENTS:
                raise InputError(f"{where}: more than {MAX_EVENTS:,} event lines; not a game record")
            events.append(_parse_event(line, number, where))
        elif line.startswith("#"):
            match = _PRAGMA.fullmatch(line)
            key, value = (match.group(1).lower(), match.group(2).strip()) if match else ("", "")
            in_note = key == "note"
            if not key:
                _refuse_unless(recognised, name, number, line)
                raise InputError(f"{where}: a pragma needs a name after '#' (e.g. #player1, #note)")
            recognised = recognised or (key in _HEADER_PRAGMAS and bool(value))
            if key == "note" and events:
                events[-1].notes.append(value)
                continue
            if key == "character-encoding" and number != 1:
                problems.append(
                    RecordProblem(number, None, "record", "#character-encoding is only read on the first line")
                )
            pragmas.append((key, value, number))
        elif in_note:
            if events:
                events[-1].notes.append(line)
            else:
                key, value, at = pragmas[-1]
                pragmas[-1] = (key, f"{value}\n{line}", at)
        else:
            _refuse_unless(recognised, name, number, line)
            raise InputError(f"{where}: not a GCG line {_shown(line)} (pragmas start with '#', moves with '>nick:')")
    if not events and not any(key in ("player1", "player2") for key, _, _ in pragmas):
        raise InputError(f"{name}: not a GCG game record (no #player pragma and no '>' move line)")
    return GcgFile(name, pragmas, events, problems)


def _refuse_unless(recognised: bool, name: str, number: int, line: str) -> None:
    """A line no record has, before anything that makes the file a record (a board file's
    ``# comment`` or row, a note): the file is not a game record at all, which says more
    than the line's own error."""
    if not recognised:
        raise InputError(
            f"{name}: not a GCG game record (line {number} is {_shown(line)}; a record has "
            "#player1/#player2 pragmas and '>nick:' move lines)"
        )


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _parse_event(line: str, number: int, where: str) -> GcgEvent:
    match = _EVENT.fullmatch(line)
    if not match:
        raise InputError(f"{where}: a move line starts with '>nick:' (got {_shown(line)})")
    nick, rest = match.group(1), match.group(2)
    tokens = rest.split()
    if not tokens:
        raise InputError(f"{where}: the move line for {nick} is empty")
    rack: str | None = None
    i = 0
    if _RACK.fullmatch(tokens[0]):
        rack = tokens[0].upper()
        i = 1
    elif len(tokens) > 1 and _looks_like_move(tokens[1]) and not _looks_like_move(tokens[0]):
        bad = next((ch for ch in tokens[0] if not (ch.isascii() and ch.isalpha()) and ch != "?"), "?")
        raise InputError(
            f"{where}: bad rack {_shown(tokens[0])}: bad character {shown_char(bad)} "
            "(use letters A-Z and ? for a blank)"
        )
    if i >= len(tokens):
        raise InputError(f"{where}: {nick}'s line has a rack but no move")
    move = tokens[i]
    lowered = move.lower()

    def points(k: int, what: str, sign: int) -> int:
        if k >= len(tokens):
            raise InputError(f"{where}: the {what} is missing (a move line ends with +score and the total)")
        token = tokens[k]
        if not _POINTS.fullmatch(token):
            raise InputError(f"{where}: bad {what} {_shown(token)} (a number such as +12 or 345)")
        digits = token.lstrip("+-")
        if len(digits) > MAX_POINTS_DIGITS:
            raise InputError(f"{where}: the {what} {_shown(token)} is too large")
        value = int(digits)
        if token[0] == "-":
            return -value
        if token[0] == "+":
            return value
        return sign * value  # no sign: the one the event's kind has

    def event(kind: str, at: int, sign: int) -> GcgEvent:
        return GcgEvent(number, nick, rack, kind, points(at, "score", sign), points(at + 1, "total", 1))

    if _POSITION.fullmatch(move):
        if i + 1 >= len(tokens):
            raise InputError(f"{where}: the play at {move} has no word")
        word = tokens[i + 1]
        if not _WORD.fullmatch(word):
            raise InputError(
                f"{where}: bad word {_shown(word)} "
                "(letters A-Z, lowercase for blanks, '.' or ( ) for tiles on the board)"
            )
        found = event("play", i + 2, 1)
        found.position, found.word = move.upper(), word
        return found
    if move == "-":
        return event("pass", i + 1, 1)
    if move == "--":
        return event("withdrawn", i + 1, -1)
    if lowered == "(challenge)":
        return event("challenge", i + 1, 1)
    if lowered == "(time)":
        return event("time", i + 1, -1)
    if move.startswith("-") and move[1:].isdigit() and move[1:].isascii():
        found = event("exchange", i + 1, 1)
        found.exchange_count = int(move[1:]) if len(move) <= 4 else 1_000
        return found
    if move.startswith("-") and _RACK.fullmatch(move[1:]):
        found = event("exchange", i + 1, 1)
        found.exchanged, found.exchange_count = move[1:].upper(), len(move) - 1
        return found
    if move.startswith("(") and move.endswith(")") and _RACK.fullmatch(move[1:-1]):
        found = event("out", i + 1, 1)
        found.counted = move[1:-1].upper()
        if found.score < 0 or tokens[i + 1].startswith("-"):  # "-0": a rack penalty of a zero factor
            found.kind = "penalty"
        return found
    bad = next((ch for ch in move if not (ch.isascii() and (ch.isalnum() or ch in "?-.()"))), None)
    hint = f": bad character {shown_char(bad)}" if bad is not None else ""
    raise InputError(
        f"{where}: cannot read the move {_shown(move)}{hint} (expected a position such as 8H or H8, "
        "-ABC, -, --, (challenge), (ABC) or (time))"
    )


def _looks_like_move(token: str) -> bool:
    return bool(_POSITION.fullmatch(token)) or token.startswith(("-", "("))


# --- replaying -------------------------------------------------------------------------------


def read_gcg(
    text: str,
    rules: Rules,
    name: str = "game",
    contains: Callable[[str], bool] | None = None,
    lexicon: str = "the lexicon",
) -> GameRecord:
    """Parse and replay a record (see ``replay_gcg``)."""
    return replay_gcg(parse_gcg(text, name), rules, contains, lexicon)


def replay_gcg(
    gcg: GcgFile,
    rules: Rules,
    contains: Callable[[str], bool] | None = None,
    lexicon: str = "the lexicon",
) -> GameRecord:
    """Play a parsed record's events on an empty board under ``rules``.

    ``contains`` checks each word a play forms (``None``: no phony check); ``lexicon`` names
    the word list in messages. Raises ``InputError`` (file and line) when an event cannot
    be replayed; anything else that disagrees is a ``RecordProblem`` in the result."""
    replay = _Replay(gcg, rules, contains, lexicon)
    for number, event in enumerate(gcg.events, 1):
        try:
            replay.event(number, event)
        except InputError as exc:
            raise ReplayError(str(exc), gcg.name, replay.sorted_problems()) from None
    return replay.record()


# --- what the record names -------------------------------------------------------------------

_SCRAB_TITLE = re.compile(r"scrab selfplay game [0-9]+")
_RULE_SETS = {game_type: rules for rules, game_type in GAME_TYPES.items()}


def record_rules(gcg: GcgFile) -> NamedRules | None:
    """The rule set the record names: its ``#game-type`` (``classic`` and ``classic_super``,
    as Macondo and Woogles write them, are ``scrabble`` and ``super``; scrab's own names are
    taken in any case); else, in a record scrab wrote before it had that pragma, the ``rules
    NAME`` of its description. None when it names none."""
    for key, value, line in gcg.pragmas:
        if key == "game-type" and value.strip():
            name = value.strip()
            return NamedRules(name, line, _RULE_SETS.get(name.lower()) or shipped_rule_name(name))
    found = _described(gcg, "rules")
    if found is None:
        return None
    name, line = found
    return NamedRules(name, line, shipped_rule_name(name))


def record_lexicon_name(gcg: GcgFile) -> str | None:
    """The word list the record names: its ``#lexicon``; else, in a record scrab wrote before
    it had that pragma, the ``lexicon NAME`` of its description (a path's file name, as
    scrab writes ``#lexicon`` now). None when it names none."""
    named = gcg.pragma("lexicon")
    if named and named.strip():
        return named.strip()
    found = _described(gcg, "lexicon")
    return lexicon_name(found[0]) if found is not None else None


def _described(gcg: GcgFile, what: str) -> tuple[str, int] | None:
    """``what NAME`` from the description of a scrab self-play record (its title says so):
    ``greedy versus greedy, rules wwf, lexicon kjxqz, ...``. Other records' descriptions are
    free text, never read for names."""
    title = gcg.pragma("title")
    if title is None or not _SCRAB_TITLE.fullmatch(title.strip()):
        return None
    for key, value, line in gcg.pragmas:
        if key == "description":
            for part in value.split(", "):
                if part.startswith(f"{what} ") and part[len(what) + 1 :].strip():
                    return part[len(what) + 1 :].strip(), line
    return None


@dataclass
class _Undo:
    """What a withdrawn play restores."""

    turn: int  # index in the turns list
    player: int
    squares: list[int]
    held: list[int]
    bag: int
    on_board: list[int]
    score: int


class _Replay:
    """The state of a game being replayed, one event at a time."""

    def __init__(self, gcg: GcgFile, rules: Rules, contains: Callable[[str], bool] | None, lexicon: str):
        self.gcg = gcg
        self.rules = rules
        self.contains = contains
        self.lexicon = lexicon
        self.problems = list(gcg.problems)
        self.nicks, self.names = _players(gcg)
        # Both players under one nickname (Quackle writes "NoName" for unnamed players): each
        # line is given to a player by the order of play (``player_of``), and they are told
        # apart by their full names, else by number.
        self.shared_nick = self.nicks[0] if self.nicks[0] and self.nicks[0] == self.nicks[1] else None
        if self.shared_nick is not None:
            nick = self.shared_nick
            distinct = self.names[0] != self.names[1] and nick not in self.names
            self.nicks = list(self.names) if distinct else [f"{nick}-1", f"{nick}-2"]
            line = max(line for key, _, line in gcg.pragmas if key in ("player1", "player2"))
            self.problems.append(
                RecordProblem(
                    line,
                    None,
                    "record",
                    f"both players have the nickname {nick!r}: each line is given to a player by the order "
                    f"of play ({self.nicks[0]} first)",
                )
            )
        self.last_player: int | None = None  # the player of the last line read (any kind)
        self.board = Board.empty(rules)
        self.totals = [0, 0]
        size = rules.rack_size
        # How many tiles each rack and the bag hold, as far as the rules' tile set tells: a
        # rack with fewer tiles than its player holds is a partial rack. The first player
        # draws first (a tile set smaller than two racks leaves the second player short).
        first = min(size, rules.tile_total)
        self.held = [first, min(size, rules.tile_total - first)]
        self.bag = rules.tile_total - sum(self.held)
        self.on_board = [0] * 27  # tiles on the board by rack code (blanks at 0)
        self.over_reported: set[int] = set()
        self.turns: list[GameTurn] = []
        self.undo: _Undo | None = None
        self.last_mover: int | None = None

    def problem(self, turn: GameTurn, kind: str, message: str) -> None:
        self.problems.append(RecordProblem(turn.line, turn.number, kind, message))

    def sorted_problems(self) -> tuple[RecordProblem, ...]:
        return tuple(sorted(self.problems, key=lambda p: p.line))

    def player_of(self, nick: str, where: str, kind: str = "play") -> int:
        if nick == self.shared_nick:
            return self.player_in_turn(kind)
        if nick in self.nicks:
            return self.nicks.index(nick)
        if "" in self.nicks:  # the record names fewer than two players: the first nicks seen are them
            index = self.nicks.index("")
            self.nicks[index] = self.names[index] = nick
            return index
        raise InputError(f"{where}: {nick!r} is not one of the players ({self.nicks[0]}, {self.nicks[1]})")

    def player_in_turn(self, kind: str) -> int:
        """Whose line it is when both players have one nickname: a move is the player's who
        did not make the last one (the first player's at the start); a play taken back, a
        challenge bonus or going-out points are the last mover's; a rack or time penalty is
        the other player's than the line before's (after going out, or the first of the two
        after the scoreless turns, the player who did not move last)."""
        if kind in ("play", "exchange", "pass"):
            return 0 if self.last_mover is None else 1 - self.last_mover
        if kind in ("withdrawn", "challenge", "out"):
            return 0 if self.last_mover is None else self.last_mover
        before = self.last_player if self.last_player is not None else self.last_mover
        return 0 if before is None else 1 - before

    def event(self, number: int, ev: GcgEvent) -> None:
        where = f"{self.gcg.name}, line {ev.line}"
        player = self.player_of(ev.nick, where, ev.kind)
        self.last_player = player
        field = ev.rack
        if ev.kind == "challenge" and field is not None and field.upper() == "UNKNOWN":
            field = None  # (a placeholder some exports write on a bonus line: no rack, not U N K N O W N)
        rack = _rack(field, self.rules.rack_size, where) if field is not None else None
        holds = self.held[player]
        if ev.kind == "withdrawn" and self.undo is not None and self.undo.player == player:
            holds = self.undo.held[player]  # (the line gives the rack of the play it takes back, before its draw)
        turn = GameTurn(
            number=number,
            line=ev.line,
            player=player,
            kind=ev.kind,
            rack=rack_text(rack) if rack is not None else None,
            full_rack=rack is not None and sum(rack) >= holds,
            board=tuple(self.board.squares),
            scores=(self.totals[0], self.totals[1]),
            bag=self.bag,
            score=ev.score,
            total=ev.total,
            note="\n".join(ev.notes),
        )
        if rack is not None and sum(rack) > holds:
            self.problem(
                turn,
                "rack",
                f"the rack {turn.rack} has {plural(sum(rack), 'tile')}; the player should hold {holds} "
                f"(with the {self.rules.name} tile set)",
            )
        if ev.kind in ("play", "exchange", "pass"):
            if self.last_mover == player:
                self.problem(turn, "order", f"{self.nicks[player]} moves twice in a row")
            self.last_mover = player
        if ev.kind == "play":
            turn = self.play(turn, ev, rack, where)
        elif ev.kind == "withdrawn":
            turn = self.withdraw(turn)
        elif ev.kind in ("exchange", "pass"):
            turn = self.exchange(turn, ev, rack, where)
        elif ev.kind in ("out", "penalty"):
            turn = self.end_points(turn, ev, rack, where)
        elif ev.kind == "challenge":
            self.challenge(turn)
        elif ev.kind == "time" and ev.score > 0:
            self.problem(turn, "score", f"a time penalty takes points off; the record gives {ev.score:+d}")
        # A challenge bonus or a time penalty is taken as recorded: the amounts vary by rules and clocks.
        if ev.kind not in ("play", "withdrawn"):
            self.undo = None
        expected = self.totals[player] + ev.score
        if ev.total != expected:
            self.problem(
                turn,
                "total",
                f"{self.nicks[player]}'s total should be {expected} ({self.totals[player]} {ev.score:+d}); "
                f"the record says {ev.total}",
            )
        self.totals[player] = ev.total  # the record's figures stand; one slip is reported once
        self.turns.append(turn)

    def play(self, turn: GameTurn, ev: GcgEvent, rack: list[int] | None, where: str) -> GameTurn:
        rules = self.rules
        try:
            played = check_play(self.board, rules, ev.position, ev.word, lambda _word: True, self.lexicon)
        except (InputError, IllegalMove) as exc:
            raise InputError(f"{where}: {ev.position} {ev.word} does not fit the board: {exc}") from None
        phonies = tuple(w.word for w in played.words if self.contains is not None and not self.contains(w.word))
        for word in phonies:
            self.problem(turn, "phony", f"{word.upper()} (played at {ev.position}) is not in {self.lexicon}")
        computed = played.scored.score
        if computed != ev.score:
            self.problem(
                turn,
                "score",
                f"{ev.position} {ev.word} scores {computed} under the {rules.name} rules; "
                f"the record says {ev.score:+d}",
            )
        placed = tuple((t.row, t.col, t.code) for t in played.placed)
        if rack is not None:
            missing = _missing(rack, [code for _, _, code in placed])
            if missing:
                self.problem(turn, "rack", f"the rack {turn.rack} does not hold the tiles played ({missing})")
        squares = self.board.squares
        self.undo = _Undo(
            len(self.turns), turn.player, list(squares), list(self.held), self.bag, list(self.on_board), ev.score
        )
        for r, c, code in placed:
            squares[r * rules.cols + c] = code
            key = BLANK if code & BLANK_BIT else code & LETTER_MASK
            self.on_board[key] += 1
            if self.on_board[key] > rules.counts[key] and key not in self.over_reported:
                self.over_reported.add(key)
                letter = "blanks" if key == BLANK else f"{LETTERS[key - 1]}s"
                self.problem(
                    turn,
                    "tiles",
                    f"the board holds {self.on_board[key]} {letter}, more than the {rules.counts[key]} "
                    f"in the {rules.name} set",
                )
        drawn = min(len(placed), self.bag)
        self.bag -= drawn
        self.held[turn.player] = max(0, self.held[turn.player] - len(placed) + drawn)
        return replace(
            turn,
            position=position_text(played.row, played.col, played.down),
            word=_notation(turn.board, rules.cols, played.row, played.col, played.down, ev.word),
            row=played.row,
            col=played.col,
            down=played.down,
            placed=placed,
            computed=computed,
            bingo=played.scored.bingo,
            phonies=phonies,
        )

    def withdraw(self, turn: GameTurn) -> GameTurn:
        undo, self.undo = self.undo, None
        if undo is None or undo.player != turn.player or undo.turn != len(self.turns) - 1:
            self.problem(
                turn,
                "record",
                "'--' takes back the play before it, but the event before is not a play by "
                f"{self.nicks[turn.player]}: nothing was taken off the board",
            )
            return turn
        self.board.squares[:] = undo.squares
        self.held, self.bag, self.on_board = undo.held, undo.bag, undo.on_board
        withdrawn = self.turns[undo.turn]
        self.turns[undo.turn] = replace(withdrawn, withdrawn=True)
        if turn.score != -undo.score:
            self.problem(
                turn,
                "score",
                f"withdrawing a play of {undo.score} takes {-undo.score}; the record says {turn.score:+d}",
            )
        if self.contains is not None and not withdrawn.phonies:
            self.problem(
                turn, "record", f"the play withdrawn, {withdrawn.move_text}, forms only words in {self.lexicon}"
            )
        return replace(turn, computed=-undo.score)

    def challenge(self, turn: GameTurn) -> None:
        """A bonus goes to the player whose play was challenged and stood: the play on the line
        before. (A negative line is a penalty on the challenger under some rules: not checked.)"""
        if turn.score <= 0:
            return
        before = self.turns[-1] if self.turns else None
        if before is None:
            self.problem(turn, "record", "a challenge bonus is for the play on the line before, but there is none")
        elif before.kind != "play":
            self.problem(
                turn,
                "record",
                "a challenge bonus is for the play on the line before, "
                f"but that line is not a play ({before.move_text})",
            )
        elif before.player != turn.player:
            self.problem(
                turn,
                "record",
                f"a challenge bonus is for the player whose play stood, {self.nicks[before.player]} "
                f"({before.move_text}), not {self.nicks[turn.player]}",
            )

    def exchange(self, turn: GameTurn, ev: GcgEvent, rack: list[int] | None, where: str) -> GameTurn:
        if ev.exchange_count > self.rules.rack_size:
            raise InputError(f"{where}: an exchange of {ev.exchange_count} tiles; a rack holds {self.rules.rack_size}")
        if rack is not None and ev.exchanged:
            missing = _missing(rack, [_code(ch) for ch in ev.exchanged])
            if missing:
                self.problem(turn, "rack", f"the rack {turn.rack} does not hold the tiles exchanged ({missing})")
        if ev.kind == "exchange" and self.bag < self.rules.exchange_min_bag:
            self.problem(
                turn,
                "tiles",
                f"an exchange with {plural(self.bag, 'tile')} in the bag; the {self.rules.name} rules need "
                f"{self.rules.exchange_min_bag} or more",
            )
        if ev.score != 0:
            what = "an exchange" if ev.kind == "exchange" else "a pass"
            self.problem(turn, "score", f"{what} scores 0; the record says {ev.score:+d}")
        return replace(turn, computed=0, exchanged=ev.exchanged, exchange_count=ev.exchange_count)

    def end_points(self, turn: GameTurn, ev: GcgEvent, rack: list[int] | None, where: str) -> GameTurn:
        rules = self.rules
        counted = _rack(ev.counted, rules.tile_total, where)
        value = sum(n * rules.values[code] for code, n in enumerate(counted) if code)
        shown = rack_text(counted)
        if ev.kind == "penalty":
            # The opponent of the player who went out loses out_loss x its rack; scoreless
            # turns ending the game cost each stuck_loss x its own (both 1 in Scrabble).
            losses = sorted({-rules.out_loss * value, -rules.stuck_loss * value}, reverse=True)
            if ev.score not in losses:
                costs = "" if losses == [-value] else f" (it costs {' or '.join(str(-loss) for loss in losses)})"
                self.problem(turn, "score", f"({shown}) is worth {value}{costs}; the record says {ev.score:+d}")
            if rack is not None and rack != counted:
                self.problem(turn, "rack", f"the rack {turn.rack} is not the rack counted, ({shown})")
            return replace(turn, computed=ev.score if ev.score in losses else losses[0], counted=shown)
        # Going out: out_gain x the opponent's rack (taken from the opponent), or the whole
        # difference counted on one line, (out_gain + out_loss) x it.
        gain, both = rules.out_gain * value, (rules.out_gain + rules.out_loss) * value
        if ev.score not in (gain, both):
            self.problem(
                turn, "score", f"({shown}) is worth {_going_out_worth(rules, value)}; the record says {ev.score:+d}"
            )
        left = [max(0, rules.counts[code] - self.on_board[code]) for code in range(27)]
        if self.bag == 0 and sum(left) == self.held[1 - turn.player] and left != counted:
            self.problem(
                turn, "tiles", f"the tiles left after the last play are {rack_text(left) or 'none'}, not {shown}"
            )
        return replace(turn, computed=ev.score if ev.score in (gain, both) else gain, counted=shown)

    def record(self) -> GameRecord:
        nicks, names = list(self.nicks), list(self.names)
        for index in (0, 1):
            if not nicks[index]:
                nicks[index] = names[index] = f"player{index + 1}"
        size = self.rules.rack_size
        return GameRecord(
            source=self.gcg.name,
            rows=self.rules.rows,
            cols=self.rules.cols,
            players=(nicks[0], nicks[1]),
            names=(names[0], names[1]),
            pragmas=tuple((key, value) for key, value, _ in self.gcg.pragmas),
            lexicon=record_lexicon_name(self.gcg),
            turns=tuple(self.turns),
            final_board=tuple(self.board.squares),
            final_scores=(self.totals[0], self.totals[1]),
            final_racks=(_final_rack(self.gcg, 1, size, self.problems), _final_rack(self.gcg, 2, size, self.problems)),
            problems=self.sorted_problems(),
        )


def _players(gcg: GcgFile) -> tuple[list[str], list[str]]:
    """Nicknames and full names from #player1 / #player2 ("" where the record has none)."""
    nicks = ["", ""]
    names = ["", ""]
    for key, value, line in gcg.pragmas:
        if key not in ("player1", "player2"):
            continue
        index = int(key[-1]) - 1
        parts = value.split(None, 1)
        if not parts:
            raise InputError(f"{gcg.name}, line {line}: #{key} needs a nickname (#{key} nick Full Name)")
        if nicks[index]:
            raise InputError(f"{gcg.name}, line {line}: #{key} is given twice")
        nicks[index] = parts[0]
        names[index] = parts[1].strip() if len(parts) > 1 else parts[0]
    return nicks, names


def _going_out_worth(rules: Rules, value: int) -> str:
    """What the line of the player who went out may score for a rack worth ``value``: out_gain
    x it, or (out_gain + out_loss) x it when the opponent's loss is counted on the same line
    (the GCG habit: twice the rack when both factors are 1, as in every shipped rule set)."""
    gain, both = rules.out_gain * value, (rules.out_gain + rules.out_loss) * value
    if rules.out_gain == rules.out_loss == 1:
        return f"{gain} (or {both} counted twice)"
    with_loss = f"; {both} with the opponent's loss, out_loss {rules.out_loss} x {value}, on the same line"
    return (
        f"{gain} (out_gain {rules.out_gain} x {value} under the {rules.name} rules{with_loss if both != gain else ''})"
    )


def _rack(text: str, limit: int, where: str) -> list[int]:
    counts = [0] * 27
    for ch in text:
        counts[_code(ch)] += 1
    if len(text) > limit:
        raise InputError(f"{where}: the rack {text} has {len(text)} tiles; a rack holds at most {limit}")
    return counts


def _code(ch: str) -> int:
    """Rack code of a letter or ``?`` (the text was matched against ``[A-Za-z?]``)."""
    return BLANK if ch == "?" else CODE[ch.upper()]


def _missing(rack: list[int], codes: list[int]) -> str:
    """The tiles of ``codes`` the rack does not hold, as text (blanks as ``?``)."""
    left = list(rack)
    short = [0] * 27
    for code in codes:
        key = BLANK if code == BLANK or code & BLANK_BIT else code & LETTER_MASK
        if left[key]:
            left[key] -= 1
        else:
            short[key] += 1
    return rack_text(short)


def _notation(before: tuple[int, ...], cols: int, row: int, col: int, down: bool, written: str) -> str:
    """The main word with the tiles already on the board in parentheses (as the board has
    them), the new tiles as the record writes them (lowercase for blanks)."""
    out = []
    inside = False
    for k, ch in enumerate(ch for ch in written if ch not in "()"):
        r, c = (row + k, col) if down else (row, col + k)
        code = before[r * cols + c]
        if bool(code) != inside:
            out.append("(" if code else ")")
            inside = bool(code)
        out.append(letter_of(code) if code else ch)
    if inside:
        out.append(")")
    return "".join(out)


def _final_rack(gcg: GcgFile, index: int, size: int, problems: list[RecordProblem]) -> str | None:
    for key, value, line in gcg.pragmas:
        if key == f"rack{index}":
            text = value.strip()
            if not _RACK.fullmatch(text) or len(text) > size:
                problems.append(RecordProblem(line, None, "record", f"#rack{index} {_shown(text)} is not a rack"))
                return None
            return rack_text(_rack(text, size, gcg.name))
    return None

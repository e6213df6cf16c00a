"""What happened in a game, turn by turn: the record self-play produces, GCG files are
written from, and a game review reads. Neutral data, so formats never import a game mode."""

from __future__ import annotations

from dataclasses import dataclass

from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK
from solver_cli.engine.board import Board

PLAYERS = ("p1", "p2")


@dataclass(frozen=True)
class Turn:
    """One turn. ``rack`` is the rack before the turn (letters in order, ``?`` blanks last)."""

    player: int  # 0 = first player, 1 = second
    rack: str
    kind: str  # "play", "exchange" or "pass"
    score: int  # points this turn (a bingo's bonus included)
    total: int  # the player's total after the turn
    down: bool = False  # for plays: the generator's raw move (direction, line, start, codes)
    line: int = 0
    start: int = 0
    codes: tuple[int, ...] = ()  # the main word's codes, board tiles included
    placed: tuple[tuple[int, int, int], ...] = ()  # new tiles: (row, col, code)
    bingo: bool = False
    exchanged: str = ""  # for exchanges: the tiles put back
    drawn: str = ""  # tiles drawn from the bag after the turn

    @property
    def row(self) -> int:
        return self.start if self.down else self.line

    @property
    def col(self) -> int:
        return self.line if self.down else self.start


@dataclass(frozen=True)
class Adjustment:
    """End-of-game rack points for one player."""

    player: int
    rack: str  # the player's own rack at the end ("" for a player who went out)
    counted: str  # the rack whose value is counted (the opponent's for a player who went out)
    points: int  # positive for the player who went out, negative for rack penalties
    total: int  # the player's final total


@dataclass
class GameResult:
    """A finished game, with everything needed to replay and check it."""

    index: int  # 0-based position in the run
    seed: int  # this game's own seed (derived from the run's seed and ``index``)
    turns: list[Turn]
    adjustments: list[Adjustment]
    scores: tuple[int, int]  # final scores, end adjustments included
    end: str  # "out" (a player went out) or "scoreless" (six scoreless turns)
    bingos: tuple[int, int]
    squares: tuple[int, ...]  # the final board, row-major
    racks: tuple[str, str]  # the racks at the end
    bag: str  # tiles left in the bag
    seconds: float  # time spent playing this game (in whichever process played it)
    seats: tuple[str, str] = ("greedy", "greedy")  # the players' names, first mover first

    @property
    def winner(self) -> int | None:
        """0 or 1, or None for a draw."""
        a, b = self.scores
        return None if a == b else (0 if a > b else 1)

    @property
    def plays(self) -> int:
        return sum(1 for t in self.turns if t.kind == "play")

    def outcome(self) -> GameOutcome:
        return GameOutcome(
            self.index,
            self.seed,
            self.scores,
            self.bingos,
            len(self.turns),
            self.plays,
            self.end,
            self.seconds,
            self.seats,
        )


@dataclass(frozen=True)
class GameOutcome:
    """The few numbers the summary needs from a game (games' full records are not kept)."""

    index: int
    seed: int
    scores: tuple[int, int]
    bingos: tuple[int, int]
    turns: int
    plays: int
    end: str
    seconds: float
    seats: tuple[str, str] = ("greedy", "greedy")

    @property
    def winner(self) -> int | None:
        a, b = self.scores
        return None if a == b else (0 if a > b else 1)


# --- a game as read back from a record (a GCG file), for replaying and reviewing ------------

TURN_KINDS = ("play", "exchange", "pass", "withdrawn", "challenge", "out", "penalty", "time")


@dataclass(frozen=True)
class GameTurn:
    """One event of a game record (a GCG ``>`` line) and the position before it.

    ``kind`` is one of ``TURN_KINDS``: a ``play``, an ``exchange``, a ``pass``, a
    ``withdrawn`` phony (its tiles taken back), a ``challenge`` bonus, ``out`` (the rack
    points a player gains by going out), a ``penalty`` (a player's own rack at the end) or
    a ``time`` penalty."""

    number: int  # 1-based: the record's event lines counted from the first
    line: int  # line of the record this turn was read from
    player: int  # 0 = the first player, 1 = the second
    kind: str
    rack: str | None  # the rack before the turn (letters in order, ? last), None when the record gives none
    full_rack: bool  # the rack holds every tile the player had (online records often give only the tiles played)
    board: tuple[int, ...]  # the squares before the turn, row-major
    scores: tuple[int, int]  # both players' totals before the turn, as recorded
    bag: int  # tiles in the bag before the turn, as the rule set's tile distribution tells
    score: int  # this turn's points as recorded (negative for a withdrawn phony and penalties)
    total: int  # the player's total after the turn, as recorded
    position: str = ""  # plays: standard notation, 8D across or D8 down
    word: str = ""  # plays: the main word, blanks lowercase, tiles already on the board in parentheses
    row: int = 0
    col: int = 0
    down: bool = False
    placed: tuple[tuple[int, int, int], ...] = ()  # plays: the new tiles as (row, col, code)
    computed: int | None = None  # the points scrab's scoring gives this turn, where it can tell
    bingo: bool = False
    exchanged: str = ""  # exchanges: the tiles put back ("" when the record hides them)
    exchange_count: int = 0  # exchanges: how many tiles were put back
    counted: str = ""  # "out" and "penalty": the rack whose value is counted
    phonies: tuple[str, ...] = ()  # plays: the words formed that are not in the lexicon
    withdrawn: bool = False  # plays: taken back by a later ``withdrawn`` turn
    note: str = ""  # the record's notes on this turn

    @property
    def move_text(self) -> str:
        """The move as a person writes it: ``8D RE(T)AINS``, ``exchange ABC``, ``pass``."""
        if self.kind == "play":
            return f"{self.position} {self.word}"
        if self.kind == "exchange":
            return f"exchange {self.exchanged or self.exchange_count}"
        if self.kind in ("out", "penalty"):
            return f"({self.counted})"
        return {"pass": "pass", "withdrawn": "phony withdrawn", "challenge": "challenge bonus"}.get(
            self.kind, "time penalty"
        )


@dataclass(frozen=True)
class RecordProblem:
    """Something in a record that does not agree with the rules or the lexicon. The replay
    goes on: the record's own scores are kept."""

    line: int
    turn: int | None  # the turn's number, None for a pragma
    kind: str  # "phony", "score", "total", "rack", "tiles", "order" or "record"
    message: str


@dataclass(frozen=True)
class GameRecord:
    """A whole game read back from a record: every turn with the position before it."""

    source: str  # a name for messages (the file's path)
    rows: int
    cols: int
    players: tuple[str, str]  # nicknames, as the record's move lines name them
    names: tuple[str, str]  # full names (the nicknames when the record gives none)
    pragmas: tuple[tuple[str, str], ...]  # every pragma as (name, value), in order, unknown ones included
    lexicon: str | None  # the #lexicon pragma
    turns: tuple[GameTurn, ...]
    final_board: tuple[int, ...]
    final_scores: tuple[int, int]  # the last recorded total of each player
    final_racks: tuple[str | None, str | None]  # from #rack1 / #rack2, when given
    problems: tuple[RecordProblem, ...]

    def board_before(self, number: int) -> Board:
        """The board before turn ``number`` (1-based); ``len(turns) + 1`` is the final board."""
        squares = self.turns[number - 1].board if number <= len(self.turns) else self.final_board
        return Board(self.rows, self.cols, list(squares))

    def board_after(self, number: int) -> Board:
        return self.board_before(number + 1)

    def shown_tiles(self, number: int) -> tuple[list[int], GameTurn] | None:
        """The tiles the player to move before turn ``number`` has seen on the opponent's
        rack, as 27 counts, and the play that showed them: the opponent's play taken back
        (a phony challenged off) just before, whose tiles went back to its rack with no
        draw. None when the move before (a challenge bonus or a time penalty skipped) is
        not such a withdrawal by the other player."""
        before = number - 1
        while before >= 1 and self.turns[before - 1].kind in ("challenge", "time"):
            before -= 1
        if before < 2 or before > len(self.turns) or self.turns[before - 1].kind != "withdrawn":
            return None
        withdrawal, play = self.turns[before - 1], self.turns[before - 2]
        mover = self.turns[number - 1].player if number <= len(self.turns) else 1 - withdrawal.player
        if mover == withdrawal.player or play.player != withdrawal.player or not play.withdrawn:
            return None
        tiles = [0] * 27
        for _row, _col, code in play.placed:
            tiles[BLANK if code & BLANK_BIT else code & LETTER_MASK] += 1
        return tiles, play

    def player_index(self, name: str) -> int | None:
        """0 or 1 for a nickname or full name (any case), None if neither player has it."""
        wanted = name.strip().casefold()
        for index in (0, 1):
            if wanted in (self.players[index].casefold(), self.names[index].casefold()):
                return index
        return None

"""Writing self-play games as GCG game records (John Chew's .gcg format).

A record starts with pragmata (``#player1 p1 Player 1`` ...), then one event line per turn,
each ``>nick: RACK ...`` with the rack held before the turn (letters in order, ``?`` for a
blank) and, last, the player's cumulative score:

    >p1: AEINRST 8D RETAINS +72 72      a play across from row 8, column D
    >p2: ADEIOQU H8 .EQUIO +30 30       a play down from column H, row 8; . = a tile already
                                        on the board; a blank's letter is lowercase
    >p1: AEIIOUU -AEIIOUU +0 72         an exchange (the tiles put back)
    >p2: AEIIOUU - +0 30                a pass (``>p2: - +0 30`` with an empty rack)
    >p1: (BEW) +8 420                   going out: the opponent's rack (BEW) is worth +8
    >p2: BEW (BEW) -8 290               the opponent loses the value of its own rack
    >p1: AE (AE) -2 300                 after six scoreless turns each player loses the
    >p2: Q (Q) -10 280                  value of its own rack

Scoring at the end follows the rule self-play uses (the player who goes out gains the
opponent's rack value and the opponent loses it), so the cumulative totals are the final
scores of the game. An end line for an empty rack (possible only with a tiny tile set) is
left out: it would be ``()`` and worth nothing, and no reader takes an empty ``()``.

The header names the rule set in ``#game-type`` (the pragma Macondo and Woogles write for
the game's variant; ``classic`` is theirs for the standard game) and the word list in
``#lexicon``, so that reading the record back needs neither ``--rules`` nor ``--lexicon``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, Unpack

from solver_cli._io import one_line, write_atomically
from solver_cli.engine.alphabet import letter_of
from solver_cli.engine.history import PLAYERS, GameResult, Turn
from solver_cli.engine.notation import position_text

NAMES = ("Player 1", "Player 2")

# scrab's rule sets under the names other tools give the same game in #game-type (the
# variant, as Macondo, Woogles and MAGPIE write it); the others go by scrab's own name.
GAME_TYPES = {"scrabble": "classic", "super": "classic_super"}


class GameMeta(TypedDict, total=False):
    """What ``game_lines`` may add to a record's description."""

    rules: str
    lexicon: str
    run_seed: int | None


def gcg_word(turn: Turn) -> str:
    """The main word with letters already on the board as ``.`` and blanks in lowercase."""
    new = {(r, c) for r, c, _ in turn.placed}
    out = []
    for k, code in enumerate(turn.codes):
        row, col = (turn.start + k, turn.line) if turn.down else (turn.line, turn.start + k)
        out.append(letter_of(code) if (row, col) in new else ".")
    return "".join(out)


def turn_line(turn: Turn) -> str:
    nick = PLAYERS[turn.player]
    if turn.kind == "play":
        move = f"{position_text(turn.row, turn.col, turn.down)} {gcg_word(turn)}"
    elif turn.kind == "exchange":
        move = f"-{turn.exchanged}"
    else:
        move = "-"
    rack = f"{turn.rack} " if turn.rack else ""  # an empty rack is left out, not written as nothing
    return f">{nick}: {rack}{move} +{turn.score} {turn.total}"


def game_lines(game: GameResult, *, rules: str = "", lexicon: str = "", run_seed: int | None = None) -> list[str]:
    # The players' names say who sat where: in a match the seats swap from game to game.
    names = [f"{NAMES[i]} ({one_line(game.seats[i])})" for i in (0, 1)]
    lines = [
        "#character-encoding UTF-8",
        f"#player1 {PLAYERS[0]} {names[0]}",
        f"#player2 {PLAYERS[1]} {names[1]}",
        f"#title scrab selfplay game {game.index + 1}",
    ]
    if rules:
        lines.append(f"#game-type {game_type(rules)}")
    if lexicon:
        lines.append(f"#lexicon {lexicon_name(lexicon)}")
    about = [f"{one_line(game.seats[0])} versus {one_line(game.seats[1])}"]
    if rules:
        about.append(f"rules {one_line(rules)}")
    if lexicon:
        about.append(f"lexicon {one_line(lexicon)}")
    if run_seed is not None:
        about.append(f"run seed {run_seed}")
    about.append(f"game seed {game.seed}")
    lines.append("#description " + ", ".join(about))
    lines.extend(turn_line(t) for t in game.turns)
    for adj in game.adjustments:
        nick = PLAYERS[adj.player]
        if not adj.counted:  # nothing to count (a tiny tile set): the line would be "()" and +0
            continue
        if adj.points >= 0 and not adj.rack:  # the player who went out
            lines.append(f">{nick}: ({adj.counted}) +{adj.points} {adj.total}")
        else:
            lines.append(f">{nick}: {adj.rack} ({adj.counted}) -{abs(adj.points)} {adj.total}")
    return lines


def game_type(rules: str) -> str:
    """The ``#game-type`` value for scrab's rule set ``rules``: one word, printable."""
    name = GAME_TYPES.get(rules, rules)
    return "".join(ch if ch.isprintable() and not ch.isspace() else "_" for ch in name)


def lexicon_name(lexicon: str) -> str:
    """The ``#lexicon`` value for a word list: its name (a list given by path goes by its file
    name without extensions, as other tools name lists: a record does not carry your paths)."""
    return one_line(Path(lexicon).name.split(".")[0] or lexicon)


def game_text(game: GameResult, **meta: Unpack[GameMeta]) -> str:
    return "\n".join(game_lines(game, **meta)) + "\n"


def game_filename(index: int, games: int) -> str:
    """``game-0001.gcg`` ... numbered from 1, zero-padded to the run's size (at least 4 digits)."""
    width = max(4, len(str(games)))
    return f"game-{index + 1:0{width}d}.gcg"


def write_game(folder: Path, game: GameResult, games: int, **meta: Unpack[GameMeta]) -> Path:
    """Write the record atomically (a full disk leaves no partial file). A symbolic link or
    anything but a regular file at the record's name is refused (InputError), never followed."""
    path = folder / game_filename(game.index, games)
    write_atomically(path, game_text(game, **meta), follow_links=False)
    return path

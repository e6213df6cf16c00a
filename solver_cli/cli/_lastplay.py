"""The opponent's last move in a game record, as ``scrab infer`` and ``scrab sim`` find it
and show it (here, not in ``infer``, so that ``_sim`` can use it without an import cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from solver_cli.errors import InputError

if TYPE_CHECKING:
    from solver_cli.engine.history import GameRecord
    from solver_cli.lookahead.infer import OpponentPlay

MOVE_KINDS = ("play", "exchange", "pass")


def recorded_move(game: GameRecord, turn: int) -> tuple[int, OpponentPlay, dict[str, object]]:
    """(the opponent's move's turn, the move, how to show it) for the position before
    ``turn``: the last play, exchange or pass before it (a challenge bonus or a time
    penalty, which belong to the move before them, skipped), by the other player."""
    from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK
    from solver_cli.lookahead.infer import OpponentPlay

    name = game.source
    number = turn - 1
    while number >= 1 and game.turns[number - 1].kind in ("challenge", "time"):
        number -= 1
    if number < 1:
        raise InputError(f"--turn {turn}: {name} has no move before it to infer from")
    move = game.turns[number - 1]
    where = f"turn {number} of {name} (line {move.line})"
    shown = game.shown_tiles(turn) if move.kind == "withdrawn" else None
    if shown is not None:
        from solver_cli.engine.alphabet import rack_text

        tiles, phony = shown
        raise InputError(
            f"{where} takes back {game.players[phony.player]}'s {phony.move_text} (turn {phony.number}): its tiles, "
            f"{rack_text(tiles)}, are known to be on that rack, and there is no play to infer from"
        )
    if move.kind not in MOVE_KINDS:
        raise InputError(f"{where} is not a play, an exchange or a pass ({move.move_text}): nothing to infer from")
    if move.withdrawn:
        raise InputError(f"{where}, {move.move_text}, was withdrawn: the opponent took its tiles back")
    mover = game.turns[turn - 1].player if turn <= len(game.turns) else 1 - move.player
    if mover == move.player:
        raise InputError(f"{where} is {game.players[move.player]}'s own move, not the opponent's")
    who = game.players[move.player]
    if move.kind == "pass":
        return number, OpponentPlay.passed(), described("pass", None, who, number)
    if move.kind == "exchange":
        count = move.exchange_count
        return number, OpponentPlay.exchange(count), described(f"exchange {count}", 0, who, number)
    tiles = [0] * 27
    for _row, _col, code in move.placed:
        tiles[BLANK if code & BLANK_BIT else code & LETTER_MASK] += 1
    score = move.computed if move.computed is not None else move.score
    return number, OpponentPlay.placement(tiles, score), described(move.move_text, score, who, number)


def described(move: str, score: int | None, player: str | None = None, turn: int | None = None) -> dict[str, object]:
    """The opponent's move as the output shows it (the JSON's ``last_play``)."""
    return {"move": move, "score": score, "player": player, "turn": turn}


def move_line(shown: dict[str, object], kind: str) -> str:
    """``bob's L2 GELADA, 34 points (turn 6)``"""
    text = str(shown["move"])
    if kind == "exchange":
        text = text.replace("exchange", "exchange of") + " tiles"
    if shown["player"] is not None:
        text = f"{shown['player']}'s {text}"
    if kind == "play":
        text += f", {shown['score']} points"
    if shown["turn"] is not None:
        text += f" (turn {shown['turn']})"
    return text

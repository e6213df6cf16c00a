"""What the commands that read a position share for GCG game records: the ``--turn``
option and the lexicon a record names."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from solver_cli.cli._common import warn

if TYPE_CHECKING:
    from solver_cli.formats.position import LoadedPosition

F = TypeVar("F", bound=Callable[..., Any])


def turn_option(func: F) -> F:
    return click.option(
        "--turn",
        type=click.IntRange(min=1),
        metavar="N",
        help="BOARD is a GCG game record: the position before its turn N, with that turn's rack "
        "(turns are the record's > lines, counted from 1).",
    )(func)


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

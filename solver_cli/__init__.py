"""scrab: a Scrabble / Words with Friends move solver built on a minimized GADDAG.

The public API (documented in docs/api.md)::

    import solver_cli as scrab

    rules = scrab.load_rules("scrabble")
    position = scrab.read_position("boards/midgame.txt", rules)
    best = scrab.solve(position, "AEIRST?", "kjxqz", rules, top=5)
    for move in best.moves:
        print(move.position, move.word, move.score)

Names are resolved on first use (PEP 562), so ``import solver_cli`` stays cheap for the
command line, which imports only what each command needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> (module, name in that module)
_EXPORTS: dict[str, tuple[str, str]] = {
    "load_rules": ("solver_cli.api", "load_rules"),
    "load_lexicon": ("solver_cli.api", "load_lexicon"),
    "read_position": ("solver_cli.api", "read_position"),
    "parse_board": ("solver_cli.api", "parse_board"),
    "make_rack": ("solver_cli.api", "make_rack"),
    "solve": ("solver_cli.api", "solve"),
    "check_play": ("solver_cli.api", "check_play"),
    "apply_play": ("solver_cli.api", "apply_play"),
    "hooks": ("solver_cli.api", "hooks"),
    "anagrams": ("solver_cli.api", "anagrams"),
    "pattern": ("solver_cli.api", "pattern"),
    "check": ("solver_cli.api", "check"),
    "load_leaves": ("solver_cli.api", "load_leaves"),
    "endgame": ("solver_cli.api", "endgame"),
    "peg": ("solver_cli.api", "peg"),
    "sim": ("solver_cli.api", "sim"),
    "infer": ("solver_cli.api", "infer"),
    "load_winpct": ("solver_cli.api", "load_winpct"),
    "win_probability": ("solver_cli.api", "win_probability"),
    "move_of": ("solver_cli.api", "move_of"),
    "WinTable": ("solver_cli.engine.winpct", "WinTable"),
    "EndgameResult": ("solver_cli.lookahead.endgame", "EndgameResult"),
    "PegResult": ("solver_cli.lookahead.peg", "PegResult"),
    "SimResult": ("solver_cli.lookahead.sim", "SimResult"),
    "Inference": ("solver_cli.lookahead.infer", "Inference"),
    "LeaveTable": ("solver_cli.engine.leaves", "LeaveTable"),
    "LeavesWarning": ("solver_cli.api", "LeavesWarning"),
    "Rules": ("solver_cli.engine.rules", "Rules"),
    "Board": ("solver_cli.engine.board", "Board"),
    "Rack": ("solver_cli.engine.alphabet", "Rack"),
    "Position": ("solver_cli.formats.position", "LoadedPosition"),
    "Lexicon": ("solver_cli.lexicon", "Lexicon"),
    "Solution": ("solver_cli.engine.ranking", "Solution"),
    "Move": ("solver_cli.engine.scoring", "Move"),
    "Word": ("solver_cli.engine.scoring", "Word"),
    "Tile": ("solver_cli.engine.scoring", "Tile"),
    "Play": ("solver_cli.engine.play", "Play"),
    "Found": ("solver_cli.lexicon.lookup", "Found"),
    "Hooks": ("solver_cli.lexicon.lookup", "Hooks"),
    "ScrabError": ("solver_cli.errors", "ScrabError"),
    "InputError": ("solver_cli.errors", "InputError"),
    "LexiconError": ("solver_cli.errors", "LexiconError"),
    "RulesError": ("solver_cli.errors", "RulesError"),
    "IllegalMove": ("solver_cli.errors", "IllegalMove"),
    "FilterError": ("solver_cli.engine.ranking", "FilterError"),
    "LexiconWarning": ("solver_cli.api", "LexiconWarning"),
}

__all__ = [
    "__version__",
    "load_rules",
    "load_lexicon",
    "read_position",
    "parse_board",
    "make_rack",
    "solve",
    "check_play",
    "apply_play",
    "hooks",
    "anagrams",
    "pattern",
    "check",
    "load_leaves",
    "endgame",
    "peg",
    "sim",
    "infer",
    "load_winpct",
    "win_probability",
    "move_of",
    "WinTable",
    "EndgameResult",
    "PegResult",
    "SimResult",
    "Inference",
    "Rules",
    "Board",
    "Rack",
    "Position",
    "Lexicon",
    "Solution",
    "Move",
    "Word",
    "Tile",
    "Play",
    "Found",
    "Hooks",
    "ScrabError",
    "InputError",
    "LexiconError",
    "RulesError",
    "IllegalMove",
    "FilterError",
    "LexiconWarning",
    "LeaveTable",
    "LeavesWarning",
]

if TYPE_CHECKING:
    from solver_cli.api import (
        LeavesWarning,
        LexiconWarning,
        anagrams,
        apply_play,
        check,
        check_play,
        endgame,
        hooks,
        infer,
        load_leaves,
        load_lexicon,
        load_rules,
        load_winpct,
        make_rack,
        move_of,
        parse_board,
        pattern,
        peg,
        read_position,
        sim,
        solve,
        win_probability,
    )
    from solver_cli.engine.alphabet import Rack
    from solver_cli.engine.board import Board
    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.engine.play import Play
    from solver_cli.engine.ranking import FilterError, Solution
    from solver_cli.engine.rules import Rules
    from solver_cli.engine.scoring import Move, Tile, Word
    from solver_cli.engine.winpct import WinTable
    from solver_cli.errors import IllegalMove, InputError, LexiconError, RulesError, ScrabError
    from solver_cli.formats.position import LoadedPosition as Position
    from solver_cli.lexicon import Lexicon
    from solver_cli.lexicon.lookup import Found, Hooks
    from solver_cli.lookahead.endgame import EndgameResult
    from solver_cli.lookahead.infer import Inference
    from solver_cli.lookahead.peg import PegResult
    from solver_cli.lookahead.sim import SimResult


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'solver_cli' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

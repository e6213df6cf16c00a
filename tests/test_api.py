"""The public API (solver_cli/__init__.py, solver_cli/api.py): every exported name resolves,
the import stays lazy, results match the engine, and wrong arguments raise scrab's own
errors with messages that name the bad value."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import solver_cli as scrab
from solver_cli.engine.ranking import solve as engine_solve

BOARDS = Path(__file__).resolve().parents[1] / "boards"


@pytest.fixture(scope="module")
def midgame(full_lexicon):
    return scrab.read_position(BOARDS / "midgame.txt")


def test_every_exported_name_resolves():
    for name in scrab.__all__:
        assert getattr(scrab, name) is not None, name
    assert set(dir(scrab)) == set(scrab.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        scrab.nonsense  # noqa: B018


def test_importing_the_package_loads_no_engine():
    code = "import sys, solver_cli; print(sorted(m for m in sys.modules if m.startswith('solver_cli')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['solver_cli']"


def test_solve_matches_the_engine(midgame, full_lexicon, scrabble):
    rack = scrab.make_rack("AEIRST?")
    api = scrab.solve(midgame, rack, full_lexicon, scrabble, top=15)
    direct = engine_solve(midgame.board, list(rack.counts), full_lexicon.gaddag, scrabble, limit=15)
    assert api == direct
    assert api.total == 12487 and len(api.moves) == 15
    # names work as well as loaded objects
    assert scrab.solve(midgame.board, "AEIRST?", "kjxqz", "scrabble", top=15) == api


def test_racks_from_text_and_counts():
    rack = scrab.make_rack("qu?")
    assert rack.text == str(rack) == "QU?" and rack.size == 3
    assert scrab.make_rack(list(rack.counts)) == rack == scrab.make_rack(rack)


@pytest.mark.parametrize(
    "rack, message",
    [
        ("AB1", "rack 'AB1': bad character '1' at position 3"),
        ("ABCDEFGH", "rack 'ABCDEFGH' has 8 tiles; a rack holds at most 7"),
        ("", "rack is empty"),
        ([1, 2, 3], "rack counts must be 27 non-negative integers"),
        ([0] * 26 + [-1], "rack counts must be 27 non-negative integers"),
        ([3] * 27, "rack has 81 tiles; a rack holds at most 7"),
        (42, "a rack is letters such as 'AEIRST?' or 27 counts, not int"),
        (b"AB", "not bytes"),
    ],
)
def test_bad_racks(midgame, rack, message):
    with pytest.raises(scrab.InputError, match=message.replace("?", r"\?")):
        scrab.solve(midgame, rack)


def test_bad_boards_and_lexicons(midgame, full_lexicon):
    with pytest.raises(scrab.InputError, match="the board is 15x15; the super board is 21x21"):
        scrab.solve(midgame, "RETAINS", full_lexicon, scrab.load_rules("super"))
    with pytest.raises(scrab.InputError, match="board must be a Board .* not str"):
        scrab.solve("boards/midgame.txt", "RETAINS")  # a path, not a board
    broken = scrab.Board(15, 15, [0] * 224)
    with pytest.raises(scrab.InputError, match="the board has 224 squares; a 15x15 board has 225"):
        scrab.solve(broken, "RETAINS")
    odd = scrab.Board(15, 15, [99] + [0] * 224)
    with pytest.raises(scrab.InputError, match="square 0 holds 99, not a tile code"):
        scrab.solve(odd, "RETAINS")
    super_rules = scrab.load_rules("super")
    empty_super = scrab.parse_board("21/" * 20 + "21 / 0/0 0", super_rules)
    with pytest.raises(scrab.LexiconError, match="holds words up to 15 letters; the super board needs 21"):
        scrab.solve(empty_super, "RETAINS", full_lexicon, super_rules)
    with pytest.raises(scrab.InputError, match="lexicon must be a Lexicon .* not int"):
        scrab.solve(midgame, "RETAINS", 3)
    with pytest.raises(scrab.LexiconError, match="no word list 'nonsense-list'"):
        scrab.load_lexicon("nonsense-list")
    with pytest.raises(scrab.RulesError, match="unknown rule set 'chess'"):
        scrab.load_rules("chess")


def test_bad_options(midgame):
    with pytest.raises(scrab.InputError, match="top must be a positive integer"):
        scrab.solve(midgame, "RETAINS", top=0)
    with pytest.raises(scrab.InputError, match="square 'Z99' is off the 15x15 board|bad square"):
        scrab.solve(midgame, "RETAINS", at="Z99")
    with pytest.raises(scrab.InputError, match="unknown sort 'random'"):
        scrab.solve(midgame, "RETAINS", sort="random")
    with pytest.raises(scrab.InputError, match="word pattern '1\\*'"):
        scrab.solve(midgame, "RETAINS", word="1*")


def test_plays_and_look_ups(full_lexicon):
    opening = scrab.read_position(BOARDS / "opening.txt")
    play = scrab.check_play(opening, "8D", "FORMATS", rack="SQ")
    after = scrab.apply_play(opening, play)
    assert after.to_rows()[7] == "...FORMATS....." and opening.board.to_rows()[7] != after.to_rows()[7]
    with pytest.raises(scrab.IllegalMove, match="not in kjxqz: FZ, OA"):
        scrab.check_play(opening, "9D", "ZA")
    with pytest.raises(scrab.InputError, match="position and word must be strings"):
        scrab.check_play(opening, 8, "ZA")  # type: ignore[arg-type]
    assert scrab.check("qi") == {"QI": True}
    assert scrab.hooks("qi").back == "S"
    assert [f.word for f in scrab.pattern("Q?")] == ["QI"]
    assert scrab.anagrams("QI")[0].score == 11
    with pytest.raises(scrab.InputError, match="word must be a string, not int"):
        scrab.check([1])  # type: ignore[list-item]

"""The public API (solver_cli/__init__.py, solver_cli/api.py): every exported name resolves,
the import stays lazy, results match the engine, and wrong arguments raise scrab's own
errors with messages that name the bad value."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver_cli as scrab
from solver_cli.engine.ranking import solve as engine_solve
from solver_cli.engine.unseen import valuation_for
from solver_cli.lexicon.wordlist import open_source, parse_word_list, skipped_lines

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
    counts = list(rack.counts)
    table = scrab.load_leaves(None, scrabble, full_lexicon)
    for rank, leaves in (("equity", table), ("score", None)):
        api = scrab.solve(midgame, rack, full_lexicon, scrabble, rank=rank, top=15)
        valuation = valuation_for(midgame.board, counts, scrabble, leaves)
        direct = engine_solve(midgame.board, counts, full_lexicon.gaddag, scrabble, limit=15, valuation=valuation)
        assert api == direct
        # 12,487 placements, the pass and the 127 exchanges of a rack of 7 distinct tiles
        assert api.total == 12487 + 1 + 127 and len(api.moves) == 15
        # names work as well as loaded objects
        assert scrab.solve(midgame.board, "AEIRST?", "kjxqz", "scrabble", rank=rank, top=15) == api
    assert all(m.equity is not None for m in scrab.solve(midgame, rack, top=5).moves)
    assert all(m.equity is None for m in scrab.solve(midgame, rack, rank="score", top=5).moves)


def test_solve_ranks_like_the_command_line(midgame, full_lexicon):
    """The same order, equity and leave value as `scrab solve --json`, by default and with
    --rank score and --sort score."""
    from click.testing import CliRunner

    from solver_cli.cli import cli

    for options, kwargs in (
        ([], {}),
        (["--rank", "score"], {"rank": "score"}),
        (["--sort", "score"], {"sort": "score"}),
    ):
        args = ["solve", MIDGAME, "--rack", "AEIQRST", "--top", "12", "--json", *options]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        moves = scrab.solve(midgame, "AEIQRST", full_lexicon, **kwargs, top=12).moves
        assert [(m.text, m.score, m.equity, m.leave_value) for m in moves] == [
            (
                {"place": f"{m['position']} {m['notation']}", "pass": "pass"}.get(
                    m["kind"], f"exchange {m.get('exchanged')}"
                ),
                m["score"],
                m.get("equity"),
                m.get("leave_value"),
            )
            for m in shown["moves"]
        ]


def test_solve_with_a_leave_table_or_file(midgame, full_lexicon, tmp_path):
    from solver_cli.formats.leavefile import write_leaves

    zero = scrab.LeaveTable.zeros()
    by_zero = scrab.solve(midgame, "AEIQRST", full_lexicon, leaves=zero, top=20).moves
    assert all(m.leave_value == 0 and m.equity == m.score for m in by_zero)
    path = tmp_path / "zero.leaves"
    write_leaves(path, zero, {"rules": "scrabble", "lexicon": "kjxqz", "rack_size": 7})
    assert scrab.solve(midgame, "AEIQRST", full_lexicon, leaves=path, top=20).moves == by_zero
    assert scrab.solve(midgame, "AEIQRST", full_lexicon, leaves=str(path), top=20).moves == by_zero
    # sort="score" without top: every move, by score, ties in the equity order
    every = scrab.solve(midgame, "AEIQRST", full_lexicon, sort="score")
    assert len(every.moves) == every.total == 1053
    assert [m.score for m in every.moves] == sorted((m.score for m in every.moves), reverse=True)
    assert every.moves[:20] == scrab.solve(midgame, "AEIQRST", full_lexicon, sort="score", top=20).moves
    # the shipped table keeps the Q's partner: QI(s) for 13 beats TRA(N)QS for 30
    best = scrab.solve(midgame, "AEIQRST", full_lexicon, top=1).moves[0]
    assert best.text == "M1 QI(s)" and best.score == 13
    assert best.equity == pytest.approx(best.score + best.leave_value)


def test_a_word_list_without_its_own_leaves_warns_and_uses_the_rules_table(tmp_path, midgame, full_lexicon):
    words = tmp_path / "mine.txt"
    words.write_text("QI\nZA\nAT\nTA\n")
    with pytest.warns(scrab.LeavesWarning, match="no leave values trained for scrabble with mine; using those of"):
        moves = scrab.solve(midgame, "AEIQRST", words, top=3).moves
    assert moves and all(m.equity is not None for m in moves)


def test_a_list_of_ones_own_ranks_by_its_own_trained_table(tmp_path, monkeypatch, midgame):
    """As the CLI does: a list found by name in the user's folder uses the table that
    `scrab leaves train --lexicon NAME` kept for it there, with no borrowing warning."""
    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.formats.leavefile import write_leaves

    data = tmp_path / "data"
    (data / "lexicons").mkdir(mode=0o700, parents=True)
    (data / "leaves").mkdir(mode=0o700)
    data.chmod(0o700)
    (data / "lexicons" / "MINE.txt").write_text("QI\nZA\nAT\nTA\nQAT\n")
    write_leaves(
        data / "leaves" / "scrabble-MINE.leaves",
        LeaveTable.zeros(),
        {"rules": "scrabble", "lexicon": "MINE", "rack_size": 7},
    )
    monkeypatch.setenv("SCRAB_DATA_DIR", str(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error", scrab.LeavesWarning)
        moves = scrab.solve(midgame, "AEIQRST", "mine", top=5).moves
    assert moves and all(m.leave_value == 0 and m.equity == m.score for m in moves)
    # A file given by its path is not the list of that name: it borrows, with the warning.
    copy = tmp_path / "mine.txt"
    copy.write_text("QI\nZA\nAT\nTA\nQAT\n")
    with pytest.warns(scrab.LeavesWarning, match="using those of scrabble-kjxqz"):
        scrab.solve(midgame, "AEIQRST", str(copy), top=5)


# --- the look-ahead --------------------------------------------------------------------------


def test_endgame_is_the_lookaheads_solver(full_lexicon):
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.lookahead.endgame import solve_endgame

    board, rules = _last_turn(), scrab.load_rules()
    result = scrab.endgame(board, "QRT", top=3)
    mover = parse_rack("QRT", 7)
    opponent = list(unseen_tiles(board, mover, rules).counts)
    direct = solve_endgame(board, mover, opponent, full_lexicon.gaddag, rules, top=3)
    assert (result.value, result.best, result.pv, result.ending) == (
        direct.value,
        direct.best,
        direct.pv,
        direct.ending,
    )
    assert result.proven and result.value == -2
    assert scrab.move_of(board, "QRT", result.best[0].move).text == "10M Q(I)"
    assert scrab.move_of(board, "QRT", _pass()).text == "pass"
    with pytest.raises(scrab.InputError, match="the game is over: no tile is unseen"):
        scrab.endgame(board, "QRTLU")  # (the rack holds every unseen tile)


def test_peg_plays_out_every_draw(tmp_path):
    """The Z world of tests/lookahead/test_peg.py, through the API: the only word is ZA,
    with one spot; we hold ZE, the unseen Z E E (one in the bag). ZA wins 2 of the 3 draws
    from 5 behind; the pass none."""
    import dataclasses

    from solver_cli.engine.board import Board

    base = scrab.load_rules()
    counts = [0] * 27
    for letter in "AZEZEE":
        counts[ord(letter) - 64] += 1
    rules = dataclasses.replace(
        base,
        name="tiny",
        rows=5,
        cols=5,
        layout=("." * 5,) * 5,
        letter_mult=(1,) * 25,
        word_mult=(1,) * 25,
        centre=(2, 2),
        counts=tuple(counts),
        rack_size=2,
        exchange_max=2,  # (as a rule file must: the greedy stage's play-outs check it)
    )
    words = tmp_path / "za.txt"
    words.write_text("ZA\n", encoding="ascii")
    board = Board.from_rows([".....", ".....", "A....", ".....", "....."])
    result = scrab.peg(board, "ZE", scrab.load_lexicon(words, rules), rules, leaves=scrab.LeaveTable.zeros(), spread=-5)
    assert (result.bag, result.unseen, result.draws) == (1, 3, 3)
    play, passing = result.candidates
    assert scrab.move_of(board, "ZE", play.move, rules).text == "A2 Z(A)" and play.move.score == 11
    assert (play.wins, play.draws, passing.wins) == (2, 3, 0)
    assert not play.spread_exact  # (the last stage settles who wins; exact_spread solves the spread too)
    exact = scrab.peg(board, "ZE", words, rules, leaves=scrab.LeaveTable.zeros(), spread=-5, exact_spread=True)
    assert exact.candidates[0].spread_exact and exact.candidates[0].spread_mean == pytest.approx(-5 + 42 / 3)
    with pytest.raises(scrab.InputError, match="exact_spread must be True or False, not 'yes'"):
        scrab.peg(board, "ZE", words, rules, exact_spread="yes")
    pessimistic = scrab.peg(board, "ZE", words, rules, leaves=scrab.LeaveTable.zeros(), spread=-5, pessimistic=True)
    assert pessimistic.model == "pessimistic"
    # the opponent known to hold the Z: the bag holds one of the Es, and ZA wins both draws
    known = scrab.peg(board, "ZE", words, rules, leaves=scrab.LeaveTable.zeros(), spread=-5, opponent_rack="z")
    assert (known.draws, known.candidates[0].wins) == (2, 2)
    assert known.opponent_rack is not None and sum(known.opponent_rack) == 1
    with pytest.raises(scrab.InputError, match="the opponent's rack holds 2 Z, but only 1 is unseen"):
        scrab.peg(board, "ZE", words, rules, leaves=scrab.LeaveTable.zeros(), opponent_rack="ZZ")
    for bad, message in (("", "opponent_rack: rack is empty"), (5, "opponent_rack: a rack is letters")):
        with pytest.raises(scrab.InputError, match=message):
            scrab.peg(board, "ZE", words, rules, leaves=scrab.LeaveTable.zeros(), opponent_rack=bad)


def test_sim_is_the_lookaheads_simulation_with_the_commands_defaults(midgame, full_lexicon):
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.formats.leavefile import shipped_leaves
    from solver_cli.formats.winpctfile import shipped_winpct
    from solver_cli.lookahead.sim import TableChance, simulate

    rules = scrab.load_rules()
    result = scrab.sim(midgame, "UUVWQIO", candidates=3, iterations=20, seed=7)
    table = shipped_winpct("scrabble", "kjxqz")
    direct = simulate(
        midgame.board,
        parse_rack("UUVWQIO", 7),
        full_lexicon.gaddag,
        rules,
        shipped_leaves("scrabble", "kjxqz"),
        candidates=3,
        iterations=20,
        seed=7,
        win_probability=TableChance(table),
        objective="win",
    )
    assert result.objective == "win" and result.standings == direct.standings
    by_points = scrab.sim(midgame, "UUVWQIO", candidates=3, iterations=20, seed=7, rank="spread")
    assert by_points.objective == "points" and all(s.win is None for s in by_points.standings)
    assert [s.mean for s in by_points.standings] == sorted((s.mean for s in by_points.standings), reverse=True)


def test_sim_without_a_win_table_ranks_by_points_unless_told_to_rank_by_wins(full_lexicon):
    wwf = scrab.read_position(BOARDS / "wwf-midgame.txt", "wwf")
    with pytest.raises(scrab.InputError, match="rank 'win' needs a win-probability table for wwf"):
        scrab.sim(wwf, "QUIZERS", rules="wwf", candidates=2, iterations=4, rank="win")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scrab.LeavesWarning)
        assert scrab.sim(wwf, "QUIZERS", rules="wwf", candidates=2, iterations=4).objective == "points"


def test_infer_is_the_lookaheads_inference(full_lexicon):
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.engine.unseen import unseen_tiles
    from solver_cli.formats.leavefile import shipped_leaves
    from solver_cli.lookahead.infer import OpponentPlay, infer

    rules = scrab.load_rules()
    empty = scrab.read_position(BOARDS / "empty.txt")
    result = scrab.infer(empty, "EEILNOU", "8d FAIRED")
    unseen = unseen_tiles(empty.board, parse_rack("EEILNOU", 7), rules).counts
    faired = [0] * 27
    for letter in "FAIRED":
        faired[ord(letter) - 64] += 1
    play = OpponentPlay.placement(faired, 28)  # 8D FAIRED: (2 x 4 + 1 + 1 + 1 + 1 + 2) x 2
    direct = infer(empty.board, unseen, play, rules, full_lexicon.gaddag, shipped_leaves("scrabble", "kjxqz"))
    assert result == direct and result.play.score == 28
    assert scrab.infer(empty, "EEILNOU", "exchange 3").play.exchanged == 3
    assert scrab.infer(empty, "EEILNOU", "pass").leaves == ()
    with pytest.raises(scrab.IllegalMove):
        scrab.infer(empty, "EEILNOU", "8D FAIRDE")


def test_win_probability_reads_the_shipped_table_and_interpolates_fractions(full_lexicon):
    from solver_cli.engine.winpct import win_probability

    table = scrab.load_winpct()
    assert table.name == "scrabble-kjxqz" and scrab.load_winpct(None, "scrabble", "sowpods").name == "scrabble-sowpods"
    low, high = scrab.win_probability(25, 20), scrab.win_probability(26, 20)
    assert low == win_probability(table, 25, 20) and high == win_probability(table, 26, 20)
    assert low < scrab.win_probability(25.5, 20, table) < high
    assert scrab.win_probability(-1, 0) == 0.0 and scrab.win_probability(0, 0) == 0.5


def test_load_leaves(full_lexicon, tmp_path):
    table = scrab.load_leaves()
    assert table.value(list(scrab.make_rack("ERS").counts)) > 0 > table.value(list(scrab.make_rack("UU").counts))
    assert scrab.load_leaves(None, "scrabble", "kjxqz").values == table.values
    with pytest.raises(scrab.LexiconError, match="no leave values are shipped for super with kjxqz"):
        scrab.load_leaves(None, "super")
    with pytest.raises(scrab.InputError, match="leaves/none.leaves"):
        scrab.load_leaves(tmp_path / "leaves" / "none.leaves")


def test_apply_play_takes_a_move_from_solve(midgame, full_lexicon):
    best = scrab.solve(midgame, "RETAINS", full_lexicon, rank="score", top=1).moves[0]
    after = scrab.apply_play(midgame, best)
    checked = scrab.check_play(midgame, best.position, best.notation, full_lexicon)
    assert after == scrab.apply_play(midgame, checked) and after != midgame.board
    exchange = next(m for m in scrab.solve(midgame, "RETAINS", full_lexicon).moves if m.kind == "exchange")
    assert scrab.apply_play(midgame, exchange) == midgame.board
    with pytest.raises(scrab.InputError, match="places a tile on an occupied square"):
        scrab.apply_play(after, best)


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
    with pytest.raises(scrab.InputError, match="position must be a string such as '8H', not int"):
        scrab.check_play(opening, 8, "ZA")  # type: ignore[arg-type]
    assert scrab.check("qi") == {"QI": True}
    assert scrab.hooks("qi").back == "S"
    assert [f.word for f in scrab.pattern("Q?")] == ["QI"]
    assert scrab.anagrams("QI")[0].score == 11
    with pytest.raises(scrab.InputError, match="word must be a string, not int"):
        scrab.check([1])  # type: ignore[list-item]


# ---------------------------------------------------------------------------------------------
# Wrong calls: every public function, wrong types and out-of-range values. Each raises scrab's
# own exception, whose message names the argument (as the Python parameter, never a CLI flag)
# and the bad value, not a TypeError or AttributeError from inside.

MIDGAME = str(BOARDS / "midgame.txt")
OPENING = str(BOARDS / "opening.txt")


def _board() -> Any:
    return scrab.read_position(MIDGAME)


def _play() -> Any:
    return scrab.check_play(scrab.read_position(OPENING), "8D", "FORMATS")


LAST_TURN_CGP = (  # boards/example.gcg before turn 27: alice's QRT against bob's LU, the bag empty
    "3DYKEY7/3O7G3/3N2R4EH2/2BA1GO4LA2/2R1JOT3BAE2/2U1UNITIZED3/DOX1TI4AA3/EH1WEAvE1INSECT/"
    "RIPEs5S2L1/MAR4R5I1/I1O4E5V1/COWING1F5I1/2L2OVUM3FA1/PESETA1N4OS1/7D4N2 QRT/ 0/0 0"
)


def _last_turn() -> Any:
    return scrab.parse_board(LAST_TURN_CGP)


def _pass() -> Any:
    from solver_cli.engine.movegen import PASS, Candidate

    return Candidate(0, 0, PASS, False, 0, 0, ())


# (call, exception type, the argument named, what else the message says)
WRONG: list[tuple[str, Callable[[], object], type[Exception], str, str]] = [
    ("load_rules type", lambda: scrab.load_rules(5), scrab.InputError, "name_or_path", "not int"),
    ("load_rules unknown", lambda: scrab.load_rules("chess"), scrab.RulesError, "rule set", "'chess'"),
    ("load_lexicon type", lambda: scrab.load_lexicon(5), scrab.InputError, "name_or_path", "not int"),
    ("load_lexicon rules", lambda: scrab.load_lexicon("kjxqz", 5), scrab.InputError, "rules", "not int"),
    ("load_lexicon strict", lambda: scrab.load_lexicon("kjxqz", strict="yes"), scrab.InputError, "strict", "'yes'"),
    ("read_position type", lambda: scrab.read_position(5), scrab.InputError, "source", "not int"),
    ("read_position rules", lambda: scrab.read_position(MIDGAME, None), scrab.InputError, "rules", "not NoneType"),
    ("parse_board type", lambda: scrab.parse_board(5), scrab.InputError, "text", "not int"),
    ("make_rack type", lambda: scrab.make_rack(5), scrab.InputError, "rack", "not int"),
    ("make_rack letters", lambda: scrab.make_rack("AB1"), scrab.InputError, "rack", "'AB1'"),
    ("make_rack empty", lambda: scrab.make_rack("  "), scrab.InputError, "rack", "is empty"),
    ("make_rack size", lambda: scrab.make_rack("ABCDEFGH"), scrab.InputError, "rack", "8 tiles"),
    ("make_rack bools", lambda: scrab.make_rack([True] * 7 + [0] * 20), scrab.InputError, "rack", "27 non-negative"),
    ("make_rack rules", lambda: scrab.make_rack("QI", 5), scrab.InputError, "rules", "not int"),
    ("solve board", lambda: scrab.solve(MIDGAME, "RETAINS"), scrab.InputError, "board", "not str"),
    ("solve rack", lambda: scrab.solve(_board(), 5), scrab.InputError, "rack", "not int"),
    ("solve lexicon", lambda: scrab.solve(_board(), "RETAINS", 5), scrab.InputError, "lexicon", "not int"),
    ("solve rules", lambda: scrab.solve(_board(), "RETAINS", None, 5), scrab.InputError, "rules", "not int"),
    ("solve top 0", lambda: scrab.solve(_board(), "RETAINS", top=0), scrab.InputError, "top", "not 0"),
    ("solve top str", lambda: scrab.solve(_board(), "RETAINS", top="3"), scrab.InputError, "top", "not '3'"),
    ("solve at type", lambda: scrab.solve(_board(), "RETAINS", at=5), scrab.FilterError, "at", "not int"),
    ("solve at off", lambda: scrab.solve(_board(), "RETAINS", at="Z99"), scrab.FilterError, "at", "'Z99' is off"),
    ("solve at bad", lambda: scrab.solve(_board(), "RETAINS", at="8"), scrab.FilterError, "at", "bad square '8'"),
    ("min_length str", lambda: scrab.solve(_board(), "R", min_length="3"), scrab.FilterError, "min_length", "'3'"),
    ("min_length <0", lambda: scrab.solve(_board(), "R", min_length=-3), scrab.FilterError, "min_length", "not -3"),
    ("min_length 0", lambda: scrab.solve(_board(), "R", min_length=0), scrab.FilterError, "min_length", "not 0"),
    ("min_length bool", lambda: scrab.solve(_board(), "R", min_length=True), scrab.FilterError, "min_length", "True"),
    ("max_length float", lambda: scrab.solve(_board(), "R", max_length=1.5), scrab.FilterError, "max_length", "1.5"),
    (
        "min over max",
        lambda: scrab.solve(_board(), "R", min_length=5, max_length=3),
        scrab.FilterError,
        "min_length",
        "min_length 5 is more than max_length 3",
    ),
    ("min_score str", lambda: scrab.solve(_board(), "R", min_score="3"), scrab.FilterError, "min_score", "'3'"),
    ("min_score float", lambda: scrab.solve(_board(), "R", min_score=2.5), scrab.FilterError, "min_score", "2.5"),
    ("must_use type", lambda: scrab.solve(_board(), "R", must_use=5), scrab.FilterError, "must_use", "not int"),
    ("must_use char", lambda: scrab.solve(_board(), "R", must_use="Q1"), scrab.FilterError, "must_use", "'1'"),
    ("must_use size", lambda: scrab.solve(_board(), "R", must_use="Q" * 8), scrab.FilterError, "must_use", "8 tiles"),
    (
        "must_use lacks",
        lambda: scrab.solve(_board(), "RETAINS", must_use="Q"),
        scrab.FilterError,
        "must_use",
        "must_use 'Q': the rack AEINRST lacks Q",
    ),
    ("word type", lambda: scrab.solve(_board(), "R", word=5), scrab.FilterError, "word", "not int"),
    ("word empty", lambda: scrab.solve(_board(), "R", word=""), scrab.FilterError, "word", "empty"),
    ("word char", lambda: scrab.solve(_board(), "R", word="1*"), scrab.FilterError, "word", "'1*'"),
    ("sort type", lambda: scrab.solve(_board(), "R", sort=5), scrab.FilterError, "sort", "5"),
    ("sort name", lambda: scrab.solve(_board(), "R", sort="random"), scrab.FilterError, "sort", "'random'"),
    ("solve rank", lambda: scrab.solve(_board(), "R", rank="best"), scrab.InputError, "rank", "'best'"),
    ("solve leaves", lambda: scrab.solve(_board(), "R", leaves=5), scrab.InputError, "leaves", "not int"),
    ("load_leaves type", lambda: scrab.load_leaves(5), scrab.InputError, "name_or_path", "not int"),
    ("load_leaves rules", lambda: scrab.load_leaves(None, 5), scrab.InputError, "rules", "not int"),
    ("check_play position", lambda: scrab.check_play(_board(), 8, "ZA"), scrab.InputError, "position", "not int"),
    ("check_play word", lambda: scrab.check_play(_board(), "8H", None), scrab.InputError, "word", "not NoneType"),
    ("check_play off", lambda: scrab.check_play(_board(), "Z99", "ZA"), scrab.InputError, "position", "'Z99'"),
    ("check_play rack", lambda: scrab.check_play(_board(), "8H", "ZA", rack=5), scrab.InputError, "rack", "not int"),
    ("apply_play board", lambda: scrab.apply_play(5, _play()), scrab.InputError, "board", "not int"),
    ("apply_play play", lambda: scrab.apply_play(_board(), "8H ZA"), scrab.InputError, "play", "not str"),
    ("hooks type", lambda: scrab.hooks(5), scrab.InputError, "word", "not int"),
    ("hooks empty", lambda: scrab.hooks(" "), scrab.InputError, "word", "is empty"),
    ("hooks letters", lambda: scrab.hooks("Q1"), scrab.InputError, "word", "'Q1'"),
    ("hooks lexicon", lambda: scrab.hooks("QI", 5), scrab.InputError, "lexicon", "not int"),
    ("anagrams rack", lambda: scrab.anagrams(5), scrab.InputError, "rack", "not int"),
    ("anagrams min str", lambda: scrab.anagrams("AEIRST", min_length="2"), scrab.InputError, "min_length", "'2'"),
    ("anagrams min 0", lambda: scrab.anagrams("AEIRST", min_length=0), scrab.InputError, "min_length", "not 0"),
    ("anagrams max <0", lambda: scrab.anagrams("AEIRST", max_length=-1), scrab.InputError, "max_length", "not -1"),
    ("anagrams max f", lambda: scrab.anagrams("AEIRST", max_length=2.5), scrab.InputError, "max_length", "2.5"),
    (
        "anagrams min>max",
        lambda: scrab.anagrams("AEIRST", min_length=5, max_length=2),
        scrab.InputError,
        "min_length",
        "min_length 5 is more than max_length 2",
    ),
    ("anagrams partial", lambda: scrab.anagrams("AEIRST", partial="yes"), scrab.InputError, "partial", "'yes'"),
    ("pattern type", lambda: scrab.pattern(5), scrab.InputError, "pattern", "not int"),
    ("pattern chars", lambda: scrab.pattern("C1"), scrab.InputError, "pattern", "'C1'"),
    ("pattern rack", lambda: scrab.pattern("C?T", rack=5), scrab.InputError, "rack", "not int"),
    ("check int", lambda: scrab.check(5), scrab.InputError, "words", "not int"),
    ("check None", lambda: scrab.check(None), scrab.InputError, "words", "not NoneType"),
    ("check bytes", lambda: scrab.check(b"QI"), scrab.InputError, "words", "not bytes"),
    ("check item", lambda: scrab.check(["QI", 5]), scrab.InputError, "word", "not int"),
    ("check letters", lambda: scrab.check(["Q1"]), scrab.InputError, "word", "'Q1'"),
    ("endgame top", lambda: scrab.endgame(_last_turn(), "QRT", top=0), scrab.InputError, "top", "not 0"),
    ("endgame plies", lambda: scrab.endgame(_last_turn(), "QRT", plies="2"), scrab.InputError, "plies", "'2'"),
    ("endgame bag", lambda: scrab.endgame(_board(), "RETAINS"), scrab.InputError, "endgame", "left in the bag"),
    ("peg top", lambda: scrab.peg(_board(), "RETAINS", top=0), scrab.InputError, "top", "not 0"),
    ("peg pessimistic", lambda: scrab.peg(_board(), "R", pessimistic="no"), scrab.InputError, "pessimistic", "'no'"),
    ("peg empty bag", lambda: scrab.peg(_last_turn(), "QRT"), scrab.InputError, "endgame", "the bag is empty"),
    ("sim candidates", lambda: scrab.sim(_board(), "R", candidates="3"), scrab.InputError, "candidates", "'3'"),
    ("sim iterations", lambda: scrab.sim(_board(), "R", iterations=1.5), scrab.InputError, "iterations", "1.5"),
    ("sim rank", lambda: scrab.sim(_board(), "R", rank="best"), scrab.InputError, "rank", "'best'"),
    ("sim scoreless", lambda: scrab.sim(_board(), "R", scoreless=6), scrab.InputError, "scoreless", "not 6"),
    ("sim opponent", lambda: scrab.sim(_board(), "R", opponent_rack=5), scrab.InputError, "rack", "not int"),
    ("sim win_table", lambda: scrab.sim(_board(), "R", win_table=5), scrab.InputError, "win_table", "not int"),
    ("infer play type", lambda: scrab.infer(_board(), "R", 5), scrab.InputError, "play", "not int"),
    ("infer play text", lambda: scrab.infer(_board(), "R", "exchange x"), scrab.InputError, "play", "'exchange x'"),
    ("infer margin", lambda: scrab.infer(_board(), "R", "pass", margin="5"), scrab.InputError, "margin", "'5'"),
    ("load_winpct type", lambda: scrab.load_winpct(5), scrab.InputError, "name_or_path", "not int"),
    ("load_winpct none", lambda: scrab.load_winpct(None, "wwf"), scrab.LexiconError, "wwf", "no win probabilities"),
    ("win_probability spread", lambda: scrab.win_probability("3", 5), scrab.InputError, "spread", "'3'"),
    ("win_probability nan", lambda: scrab.win_probability(float("nan"), 5), scrab.InputError, "spread", "nan"),
    ("win_probability unseen", lambda: scrab.win_probability(3, 2.0), scrab.InputError, "unseen", "2.0"),
    ("win_probability range", lambda: scrab.win_probability(3, 94), scrab.InputError, "unseen", "94 tiles"),
    ("move_of candidate", lambda: scrab.move_of(_board(), "R", "8H ZA"), scrab.InputError, "candidate", "not str"),
]


@pytest.mark.parametrize("call, error, argument, detail", [row[1:] for row in WRONG], ids=[row[0] for row in WRONG])
def test_wrong_calls_raise_scrabs_own_errors_naming_the_argument(full_lexicon, call, error, argument, detail):
    with pytest.raises(scrab.ScrabError) as caught:
        call()
    assert type(caught.value) is error
    message = str(caught.value)
    assert re.search(rf"\b{re.escape(argument)}\b", message), message
    assert detail in message, message
    assert "--" not in message and "\n" not in message  # no CLI flag, one line
    if isinstance(caught.value, scrab.FilterError):
        assert caught.value.param == argument


def test_every_public_function_has_a_wrong_call():
    functions = {name for name in scrab.__all__ if name[0].islower() and callable(getattr(scrab, name))}
    called = {row[0].split()[0] for row in WRONG}
    assert functions <= called


def test_the_command_line_keeps_its_flag_names(full_lexicon):
    """The same checks from `scrab solve` still name the flags (the CLI prints str(exc))."""
    from solver_cli.engine.ranking import FilterError, make_filters

    rules = scrab.load_rules()
    for kwargs, shown in [
        ({"at": "Z99"}, "--at: square 'Z99' is off the 15x15 board"),
        ({"min_length": 5, "max_length": 3}, "--min-length 5 is more than --max-length 3"),
        ({"must_use": "Q1"}, "--must-use Q1: bad character '1' at position 2"),
    ]:
        with pytest.raises(FilterError) as caught:
            make_filters(rules, **kwargs)
        assert str(caught.value).startswith(shown)
        assert not caught.value.neutral.startswith("--")


# ---------------------------------------------------------------------------------------------
# A word list for another alphabet: its skipped lines are said, at every load, or refused


SPANISH = "CASA\nAÑO\n# un comentario\n\nNIÑO\nPERRO\n"


def test_a_word_list_with_lines_it_cannot_use_warns_at_every_load(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "spanish.txt"
    path.write_text(SPANISH, encoding="utf-8")
    expected = f"{path}: skipped 2 lines that are not words of letters A-Z (the first is line 2: 'AÑO')"
    for built in (True, False):  # the build, then the cache
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lexicon = scrab.load_lexicon(path)
        assert lexicon.built is built and lexicon.word_count == 2
        assert [(w.category, str(w.message)) for w in caught] == [(scrab.LexiconWarning, expected)]
        assert caught[0].filename == __file__  # pointed at the caller's line
    with pytest.raises(scrab.LexiconError) as refused:
        scrab.load_lexicon(path, strict=True)
    assert str(refused.value) == (
        f"{path}, line 2: 'AÑO' is not a word of letters A-Z (2 such lines; without strict=True they are skipped)"
    )


def test_a_clean_word_list_loads_without_a_warning(tmp_path, monkeypatch):
    """Windows line ends, comments, blank lines, spaces around a word and words longer than
    the board are not lines skipped."""
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "clean.txt"
    path.write_bytes(b"# a list\r\nCASA\r\n\r\n  perro \r\n" + b"A" * 16 + b"\r\nQI")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lexicon = scrab.load_lexicon(path, strict=True)
    assert lexicon.word_count == 3


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(
    lines=st.lists(
        st.one_of(
            st.sampled_from(["CASA", "qi", "", " ", "# note", "#", "AÑO", "NO WAY", "A", "ZZZZZZZZZZZZZZZZ", "\t x "]),
            st.text(alphabet="AZaz #\t\r.Ñ1", max_size=6),
        ),
        max_size=30,
    ),
    crlf=st.booleans(),
)
def test_the_lines_counted_are_the_lines_the_build_skips(tmp_path_factory, lines, crlf):
    """The scan at each load agrees with the reader that builds the lexicon."""
    path = tmp_path_factory.mktemp("lists") / "list.txt"
    text = ("\r\n" if crlf else "\n").join(lines)
    path.write_bytes(text.encode("utf-8"))
    built = parse_word_list(text, 15)
    count, number, line = skipped_lines(open_source(str(path)).text(), 15)
    assert (count, number) == (built.skipped, built.first_skipped)
    if count:
        assert line == text.replace("\r\n", "\n").split("\n")[number - 1].strip()

"""``scrab peg``: the pre-endgame solver on the command line, on the hand-worked 5x5
position of tests/lookahead/test_peg.py (the only word ZA, one spot for it)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.alphabet import LETTERS
from solver_cli.lookahead import peg

LAYOUT = ("T.d.T", ".D.D.", "d.D.d", ".D.D.", "T.d.T")
VALUES = {"A": 1, "E": 1, "Z": 10}


def five_world(tmp_path, counts: dict[str, int], words: str, row: str, rack: str) -> list[str]:
    """(rules file, word list, board file) for a 5x5 board whose bag holds ``counts``,
    ``row`` its middle row, and the arguments that load them with ``rack``."""
    tiles = "\n".join(f'"{ch}" = [{counts.get(ch, 0)}, {VALUES.get(ch, 1)}]' for ch in [*LETTERS, "?"])
    layout = ", ".join(f'"{line}"' for line in LAYOUT)
    rules = tmp_path / "five.toml"
    rules.write_text(f'name = "five"\nrack_size = 2\ncentre = "C3"\nlayout = [{layout}]\n[tiles]\n{tiles}\n')
    word_list = tmp_path / "words.txt"
    word_list.write_text(words)
    board = tmp_path / "board.txt"
    board.write_text(f".....\n.....\n{row}\n.....\n.....\n")
    return [str(board), "--rack", rack, "--rules", str(rules), "--lexicon", str(word_list)]


@pytest.fixture
def za_world(tmp_path):
    """A on the board, ZE on our rack and Z E E unseen (one in the bag); ``extra`` more Es
    put that many more tiles in the bag."""

    def make(extra: int = 0, unseen_e: int = 2) -> list[str]:
        return five_world(tmp_path, {"A": 1, "Z": 2, "E": 1 + unseen_e + extra}, "ZA\n", "A....", "ZE")

    return make


@pytest.fixture
def at_world(tmp_path):
    """Four plays and the pass from XT (tests/lookahead/test_peg.py's AT world): enough
    moves for the stages to drop some."""
    counts = {"A": 2, "T": 2, "X": 1, "Z": 1, "I": 1}
    words = "AT\nTA\nZA\nAX\nXI\nTAX\nZAX\n"
    return [*five_world(tmp_path, counts, words, ".AT..", "XT"), "--top", "4", "--spread", "3"]


def test_the_stages_in_json_and_in_the_table(at_world):
    data = json.loads(run([*at_world, "--exact-spread", "--json"]).stdout)
    assert data["exhaustive"] is False
    assert data["stages"] == [
        {"plies": 0, "moves": 5, "first_win": False},
        {"plies": 1, "moves": 3, "first_win": False},
        {"plies": None, "moves": 2, "first_win": False},
    ]
    stages = [m["stage"] for m in data["moves"]]
    assert stages[:2] == [3, 3] and stages == sorted(stages, reverse=True) and min(stages) < 3
    assert all(m["proven"] and m["spread_exact"] for m in data["moves"][:2])
    assert any(m["plies"] == 0 and not m["proven"] for m in data["moves"])
    text = " ".join(run([*at_world, "--exact-spread"]).stdout.split())
    assert "Stages: 5 moves by greedy play-outs; 3 moves 1 ply deep; 2 moves to the end" in text
    assert "│ exact │" in text and "│ greedy play-outs │" in text and "~" not in text
    full = json.loads(run([*at_world, "--exhaustive", "--exact-spread", "--json"]).stdout)
    assert full["exhaustive"] is True and full["stages"] == [{"plies": None, "moves": 5, "first_win": False}]
    assert all(m["proven"] and m["stage"] == 1 for m in full["moves"])
    exact = {m["move"]: (m["wins"], m["spread_mean"]) for m in full["moves"]}
    for m in data["moves"][:2]:
        assert (m["wins"], m["spread_mean"]) == exact[m["move"]]
    shallow = json.loads(run([*at_world, "--exhaustive", "--plies", "1", "--exact-spread", "--json"]).stdout)
    assert shallow["stages"] == [{"plies": 1, "moves": 5, "first_win": False}]
    assert {m["plies"] for m in shallow["moves"]} == {1}


def test_by_default_the_last_stage_settles_who_wins_and_marks_the_spread_estimated(at_world):
    data = json.loads(run([*at_world, "--json"]).stdout)
    assert [s["first_win"] for s in data["stages"]] == [False, False, True]
    exact = {m["move"]: m for m in json.loads(run([*at_world, "--exact-spread", "--json"]).stdout)["moves"]}
    last = [m for m in data["moves"] if m["stage"] == 3]
    cut = [m for m in data["moves"] if m["cut_off"]]
    assert last and len(last) + len(cut) == 2 and data["moves"][0] == last[0]
    for m in last:
        assert m["proven"] and not m["spread_exact"] and m["wins"] == exact[m["move"]]["wins"]
    for m in cut:  # the stage before's figures; by its exact wins it ranks below the best
        assert m["stage"] == 2 and exact[m["move"]]["wins"] <= last[0]["wins"]
    assert all(m["spread_exact"] for m in data["moves"] if m["stage"] < 3)
    text = " ".join(run(at_world).stdout.split())
    assert "2 moves to the end, who wins" in text and "│ who wins: exact │" in text
    assert "~: the stage before's estimate, as the last stage settles who wins (--exact-spread: the spread)" in text
    full = json.loads(run([*at_world, "--exhaustive", "--json"]).stdout)
    assert full["stages"] == [
        {"plies": 0, "moves": 5, "first_win": False},
        {"plies": None, "moves": 5, "first_win": True},
    ]
    assert {m["move"]: m["wins"] for m in full["moves"]} == {move: m["wins"] for move, m in exact_all(at_world).items()}


def exact_all(at_world) -> dict:
    return {
        m["move"]: m for m in json.loads(run([*at_world, "--exhaustive", "--exact-spread", "--json"]).stdout)["moves"]
    }


def run(args: list[str]):
    return CliRunner().invoke(cli, ["peg", *args], prog_name="scrab")


def test_json_gives_each_move_over_every_draw(za_world):
    result = run([*za_world(), "--spread", "-5", "--exact-spread", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["model"], data["bag"], data["unseen"], data["draws"], data["spread"]) == ("best reply", 1, 3, 3, -5)
    assert (data["considered"], data["finished"], data["stopped"]) == (2, 2, None)
    play, passing = data["moves"]
    # Worked by hand in tests/lookahead/test_peg.py: ZA ends +2 (bag Z) or +20 (bag E).
    assert (play["move"], play["score"], play["wins"], play["draws"]) == ("A2 Z(A)", 11, 2, 3)
    assert play["spread_mean"] == pytest.approx(-5 + 42 / 3) and play["proven"] and play["endgames"] == 2
    assert (passing["move"], passing["kind"], passing["wins"]) == ("pass", "pass", 0)
    assert not play["cut_off"] and not passing["cut_off"]
    # by the tile in the bag: ZA wins both draws of an E and loses the Z's
    assert sorted(map(tuple, (o.values() for o in play["by_bag"]))) == [("E", 2, 2.0), ("Z", 1, 0.0)]
    assert sorted(map(tuple, (o.values() for o in passing["by_bag"]))) == [("E", 2, 0.0), ("Z", 1, 0.0)]
    fast = json.loads(run([*za_world(), "--spread", "-5", "--json"]).stdout)
    first, second = fast["moves"]
    assert (first["move"], first["wins"], first["proven"], first["cut_off"]) == ("A2 Z(A)", 2, True, False)
    # the pass cannot win more than ZA once it loses a draw: cut off, with the greedy stage's figures
    assert (second["move"], second["cut_off"], second["stage"], second["plies"]) == ("pass", True, 1, 0)
    # cut off once it lost the bag-Z draw: at most the 2 Es' draws left, as many as ZA won
    assert (second["wins_at_most"], first["wins_at_most"]) == (2, None)
    table = " ".join(run([*za_world(), "--spread", "-5"]).stdout.split())
    # (the estimate, 0 of 3, is less than that most: shown as it is)
    assert "│ 2 │ pass │ 0 │ 0/3 │ 0.0% │" in table and "2. pass: loses whatever the bag holds" in table
    assert "│ greedy play-outs, │" in table and "│ cut off │" in table  # (the column wraps)
    assert "cut off: the last stage stopped searching the move once it could no longer rank above #1" in table


def test_the_table_names_the_opponent_model(za_world):
    result = run([*za_world(), "--spread", "-5", "--exact-spread"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())  # the header wraps with the terminal
    assert "1 tile in the bag, 3 unseen, 3 draws; spread -5" in text
    assert "Opponent model: best reply: the opponent replies at its best knowing only its own rack" in text
    assert "│ 1 │ A2 Z(A) │ 11 │ 2/3 │ 66.7% │ +9.0 │ 2 │" in text
    assert (
        "By the tile in the bag (as exact as the Searched column says): 1. A2 Z(A): wins with E×2; loses with Z "
        "2. pass: loses whatever the bag holds" in text
    )
    # on a narrow terminal an item's lines after its first are indented under its text
    narrow = CliRunner().invoke(cli, ["peg", *za_world(), "--spread", "-5", "--exact-spread"], env={"COLUMNS": "24"})
    items = narrow.stdout[narrow.stdout.index("By the tile") :].split("\n")
    first = next(k for k, line in enumerate(items) if line.startswith("  1. "))
    assert items[first : first + 3] == [
        "  1. A2 Z(A): wins with",
        "     E×2; loses with Z",
        "  2. pass: loses whatever",
    ]
    tie = " ".join(run([*za_world(), "--spread", "-2", "--exact-spread"]).stdout.split())
    assert "1. A2 Z(A): wins with E×2; 50% with Z" in tie  # (bag Z: +2 from -2, a tie)
    ahead = " ".join(run([*za_world(), "--spread", "5", "--exact-spread"]).stdout.split())
    assert "1. A2 Z(A): wins whatever the bag holds" in ahead
    pessimistic = run([*za_world(), "--pessimistic"])
    assert pessimistic.exit_code == 0, pessimistic.output
    assert "Opponent model: pessimistic: the opponent replies worst for you" in " ".join(pessimistic.stdout.split())


def test_the_bag_must_hold_one_to_max_bag_tiles(za_world):
    empty = run(za_world(unseen_e=1))
    assert empty.exit_code == 2
    assert empty.stderr.strip().endswith("the bag is empty: this is an endgame (use scrab endgame)")
    three = run(za_world(extra=2))
    assert three.exit_code == 2
    assert three.stderr.strip().endswith("the bag holds 3 tiles; scrab peg takes 1 to 2 (--max-bag 3 takes it on)")
    assert len(three.stderr.strip().splitlines()) == 1
    assert run([*za_world(extra=2), "--max-bag", "3", "--json"]).exit_code == 0
    ten = run(za_world(extra=9))
    assert ten.stderr.strip().endswith("the bag holds 10 tiles; scrab peg takes 1 to 2 (at most 7 with --max-bag)")
    ten = run([*za_world(extra=9), "--max-bag", "7"])
    assert ten.exit_code == 2 and ten.stderr.strip().endswith("the bag holds 10 tiles; scrab peg takes at most 7")


def test_a_spread_beyond_any_game_is_refused_at_once(za_world):
    from solver_cli.lookahead.peg import MAX_SPREAD

    for spread in (MAX_SPREAD + 1, -(10**22)):
        result = run([*za_world(), "--spread", str(spread)])
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.startswith("Error: Invalid value for '--spread'") and len(result.stderr.splitlines()) == 1
    assert run([*za_world(), "--spread", str(-MAX_SPREAD), "--json"]).exit_code == 0


def test_more_tiles_than_the_set_is_said_before_the_bag_is_counted(za_world):
    """(It said the bag held too many tiles: the rack's extra Z counted as one unseen.)"""
    args = za_world()
    args[args.index("--rack") + 1] = "Z?"  # a blank: the set has none
    result = run(args)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == "Error: the board and the rack hold 1 blank, more than the 0 in the five set"


def test_ctrl_c_prints_the_moves_finished_and_exits_130(za_world, monkeypatch):
    solve = peg.solve_pre_endgame

    def stopped_after_one(*args, **kwargs):
        def progress(done, total, last):
            raise KeyboardInterrupt

        return solve(*args, **{**kwargs, "progress": progress})

    monkeypatch.setattr(peg, "solve_pre_endgame", stopped_after_one)
    result = run([*za_world(), "--json"])
    assert result.exit_code == 130
    data = json.loads(result.stdout)
    assert (data["finished"], data["considered"], data["stopped"]) == (1, 2, "interrupted")
    last_stage = "in stage 1 of 2; each move has the figures of the last stage it finished"
    assert result.stderr.strip().splitlines()[-1] == f"Stopped: {last_stage}"


@python_engine_in_soak()  # the twin's moves on a full board: long, and nothing new here
def test_a_game_records_spread_is_the_player_to_moves(monkeypatch):
    """boards/peg.gcg, turn 25: p1 to move with 411 against p2's 328, one tile in the bag."""
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parents[2])
    result = run(["boards/peg.gcg", "--turn", "25", "--top", "1", "--time-limit", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["rack"], data["bag"], data["unseen"], data["spread"]) == ("ADEMNQ?", 1, 8, 411 - 328)
    # p2 to move at turn 26: the other side of the same spread, after p1's QAD for 24.
    result = run(["boards/peg.gcg", "--turn", "26", "--top", "1", "--time-limit", "0.5", "--json"])
    assert result.exit_code == 2  # p1 drew the last tile: an endgame
    assert "the bag is empty" in result.stderr
    given = run(["boards/peg.gcg", "--turn", "25", "--spread", "-7", "--top", "1", "--time-limit", "0.5", "--json"])
    assert json.loads(given.stdout)["spread"] == -7


def test_the_searched_column_names_each_depth():
    from solver_cli.cli.peg import depth_text, stage_text

    assert [depth_text(p, False) for p in (None, 0, 1, 4)] == ["to the end", "greedy play-outs", "1 ply", "4 plies"]
    assert depth_text(0, True) == depth_text(None, True) == "exact"
    assert [stage_text(p, 2) for p in (None, 0, 1, 5)] == [
        "2 moves to the end",
        "2 moves by greedy play-outs",
        "2 moves 1 ply deep",
        "2 moves 5 plies deep",
    ]


def test_a_stopped_search_names_the_stage_it_reached():
    from solver_cli.cli.peg import finished_text
    from solver_cli.lookahead.peg import GREEDY, PASS_MOVE, PegCandidate, PegResult, Stage

    def result(stages, reached, *finished):
        moves = tuple(PegCandidate(PASS_MOVE, 0, 3, 0.0, 0.0, 0, False, s, None) for s in finished)
        return PegResult(moves, "best reply", 1, 3, 3, 0, 5, "time", 1.0, stages, None, reached)

    staged = (Stage(GREEDY, 5), Stage(1, 3), Stage(None, 2))
    # stopped in stage 3, before any move finished it: the stage searched, not the last finished
    assert finished_text(result(staged, 3, 2, 2, 2, 1, 1)) == (
        "in stage 3 of 3; each move has the figures of the last stage it finished"
    )
    assert finished_text(result(staged, 1)) == "0 of 5 moves finished"
    assert finished_text(result((Stage(None, 5),), 1, 1, 1)) == "2 of 5 moves finished"


def test_a_search_stopped_in_the_last_stage_says_so(za_world, monkeypatch):
    """The time limit runs out in the last stage's first endgame: the moves keep the greedy
    stage's figures, and the output names stage 2 (where it stopped) and the stages planned."""
    from solver_cli.lookahead import peg

    def out_of_time(*args, **kwargs):
        raise peg._OutOfTime

    monkeypatch.setattr(peg._Search, "evaluate", out_of_time)
    data = json.loads(run([*za_world(), "--json"]).stdout)
    assert data["stopped"] == "time" and all(m["stage"] == 1 for m in data["moves"])
    text = " ".join(run(za_world()).stdout.split())
    assert "Stages planned: 2 moves by greedy play-outs; 2 moves to the end, who wins" in text
    assert "Stopped by the time limit: in stage 2 of 2; each move has the figures of the last stage" in text


def test_a_cgp_position_gives_the_spread_and_the_scoreless_turns(za_world, tmp_path):
    """A CGP position's scores (the player to move first) are the spread, as a record's are;
    --spread overrides them. (The Z world: from -5 ZA wins 2 of the 3 draws, from 0 all.)"""
    board_file, _, _, *rest = za_world()
    cgp = tmp_path / "za.cgp"
    cgp.write_text("5/5/A4/5/5 ZE/ 40/45 0\n", encoding="utf-8")
    from_board = json.loads(run([board_file, "--rack", "ZE", *rest, "--spread", "-5", "--json"]).stdout)
    from_cgp = json.loads(run([str(cgp), *rest, "--json"]).stdout)
    assert from_cgp["spread"] == -5 and from_cgp["moves"] == from_board["moves"]
    assert [m["wins"] for m in from_cgp["moves"]][0] == 2
    overridden = json.loads(run([str(cgp), *rest, "--spread", "0", "--json"]).stdout)
    assert overridden["spread"] == 0 and overridden["moves"][0]["wins"] == 3
    # the opponent's tiles, when a CGP gives them, are checked but not used: said once
    cgp.write_text("5/5/A4/5/5 ZE/E 40/45 0\n", encoding="utf-8")
    known = run([str(cgp), *rest, "--json"])
    assert json.loads(known.stdout)["moves"] == from_cgp["moves"]
    assert "the opponent's tiles the CGP gives (E) are not used" in known.stderr
    # a CGP whose game is over, or whose scores no game reaches: one line each, before any search
    for tail, message in (("40/45 6", "the game is over: 6 scoreless turns in a row"), ("4000000/45 0", "apart")):
        cgp.write_text(f"5/5/A4/5/5 ZE/ {tail}\n", encoding="utf-8")
        refused = run([str(cgp), *rest])
        assert refused.exit_code == 2 and refused.stdout == "" and message in refused.stderr
        assert len(refused.stderr.splitlines()) == 1
    assert run([str(cgp), *rest, "--spread", "-5", "--json"]).exit_code == 0  # (--spread replaces the scores')
    # five scoreless turns in a row already (of six): a pass ends the game
    cgp.write_text("5/5/A4/5/5 ZE/ 40/45 5\n", encoding="utf-8")
    ending = json.loads(run([str(cgp), *rest, "--json"]).stdout)
    assert ending["moves"] != from_cgp["moves"]


def test_tiles_known_on_the_opponents_rack(za_world, tmp_path):
    """--opponent-rack plays out only the draws that give the opponent those tiles (the Z
    world, from -5: ZA wins when the bag holds an E; worked in tests/lookahead/test_peg.py)."""
    holds_z = run([*za_world(), "--spread", "-5", "--opponent-rack", "z", "--json"])
    assert holds_z.exit_code == 0, holds_z.output
    data = json.loads(holds_z.stdout)
    assert (data["draws"], data["opponent_rack"], data["opponent_rack_source"]) == (2, "Z", "given")
    assert (data["moves"][0]["move"], data["moves"][0]["wins"], data["moves"][0]["draws"]) == ("A2 Z(A)", 2, 2)
    unknown = json.loads(run([*za_world(), "--spread", "-5", "--json"]).stdout)
    assert (unknown["draws"], unknown["opponent_rack"], unknown["opponent_rack_source"]) == (3, None, None)
    table = run([*za_world(), "--spread", "-5", "--opponent-rack", "EE"])
    assert table.exit_code == 0, table.output
    text = " ".join(table.stdout.split())
    assert "1 tile in the bag, 3 unseen (the opponent holds EE), 1 draw; spread -5" in text
    # given with a CGP's second rack: the tiles given are used, and nothing is said of the CGP's
    cgp = tmp_path / "za.cgp"
    cgp.write_text("5/5/A4/5/5 ZE/E 40/45 0\n", encoding="utf-8")
    _, _, _, *rest = za_world()
    given = run([str(cgp), *rest, "--opponent-rack", "Z", "--json"])
    assert given.exit_code == 0 and "CGP gives" not in given.stderr
    assert json.loads(given.stdout)["moves"] == data["moves"]


@pytest.mark.parametrize(
    "tiles, message",
    [
        ("Q", "--opponent-rack: the opponent's rack holds 1 Q, but only 0 are unseen (not on the board or your rack)"),
        ("ZZ", "--opponent-rack: the opponent's rack holds 2 Z, but only 1 is unseen"),
        ("E1", "--opponent-rack: rack 'E1': bad character '1' at position 2"),
        ("EEE", "--opponent-rack: rack 'EEE' has 3 tiles; a rack holds at most 2"),
        (" ", "--opponent-rack is empty: give the tiles you know it holds"),
    ],
)
def test_opponent_tiles_that_cannot_be_are_refused_in_one_line(za_world, tiles, message):
    refused = run([*za_world(), "--opponent-rack", tiles])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert message in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_a_phony_taken_back_just_before_shows_its_tiles_to_peg_and_sim(tmp_path):
    """p2's phony ZE(T) is challenged off: p1, to move with ZE and one tile in the bag (the
    unseen tiles Z E E), knows p2 holds E and Z. peg plays out the one draw left and says
    so; sim draws no other rack; --opponent-rack replaces the tiles shown."""
    board_file, _, _, *rest = five_world(tmp_path, {"A": 1, "T": 1, "Z": 2, "E": 3}, "AT\nZA\nEAT\nTE\n", ".....", "ZE")
    record = tmp_path / "game.gcg"
    record.write_text(
        "#player1 p1 Player One\n#player2 p2 Player Two\n>p1: AT 3B AT +4 4\n>p2: EZ C1 ZE. +22 22\n>p2: EZ -- -22 0\n",
        encoding="utf-8",
    )
    args = [str(record), "--turn", "4", "--rack", "ZE", *rest]
    shown = run([*args, "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert (data["draws"], data["opponent_rack"], data["opponent_rack_source"], data["spread"]) == (1, "EZ", "shown", 4)
    assert "Note: the opponent holds EZ, shown by p2's C1 ZE(T) (turn 2), taken back" in shown.stderr
    given = json.loads(run([*args, "--opponent-rack", "Z", "--json"]).stdout)
    assert (given["draws"], given["opponent_rack"]) == (2, "Z")
    sim = ["sim", *args, "--iterations", "8", "--seed", "1"]
    simulated = CliRunner().invoke(cli, [*sim, "--json"], prog_name="scrab")
    assert simulated.exit_code == 0, simulated.output
    assert json.loads(simulated.stdout)["opponent_racks"] == {"source": "shown", "rack": "EZ"}
    table = CliRunner().invoke(cli, sim, prog_name="scrab")
    assert "Opponent's racks: EZ shown by p2's C1 ZE(T) (turn 2), taken back" in " ".join(table.stdout.split())
    replaced = CliRunner().invoke(cli, [*sim, "--opponent-rack", "E", "--json"], prog_name="scrab")
    assert json.loads(replaced.stdout)["opponent_racks"] == {"source": "given", "rack": "E"}
    # a rack of ours that leaves no Z unseen cannot face the Z shown: said in one line, naming the play
    clash = [str(record), "--turn", "4", "--rack", "ZZ", *rest]
    for command in (["peg", *clash], ["sim", *clash, "--iterations", "8"]):
        refused = CliRunner().invoke(cli, command, prog_name="scrab")
        assert refused.exit_code == 2 and refused.stdout == "", command
        assert refused.stderr.strip().splitlines()[-1] == (
            f"Error: {record}: the tiles of p2's C1 ZE(T) (turn 2), taken back: the opponent's rack holds 1 Z, "
            "but only 0 are unseen (not on the board or your rack)"
        )
    for tiles, message in (
        ("E1", "--opponent-rack: rack 'E1': bad character '1'"),
        ("ZZ", "--opponent-rack: the opponent's rack holds 2 Z, but only 1"),
    ):
        refused = CliRunner().invoke(cli, [*sim, "--opponent-rack", tiles], prog_name="scrab")
        assert refused.exit_code == 2 and message in refused.stderr, refused.stderr
    # the turn before, p2's own, shows nothing
    before = json.loads(run([str(record), "--turn", "2", "--rack", "EZ", *rest, "--json"]).stdout)
    assert before["opponent_rack"] is None


def test_a_move_cut_off_below_its_estimate_shows_the_most_it_could_win(at_world, monkeypatch):
    """Every greedy estimate says 3 of 3 (tests/lookahead/test_peg.py's inflate_greedy):
    from -40 the best wins 2, and the moves cut off below their estimate of 3 show ≤ the
    most they could still win, in the table and in the list by bag."""
    from lookahead.test_peg import inflate_greedy

    inflate_greedy(monkeypatch)
    args = [*at_world[:-2], "--spread", "-40"]
    data = json.loads(run([*args, "--json"]).stdout)
    cut = [m for m in data["moves"] if m["cut_off"] and m["wins"] > m["wins_at_most"]]
    assert data["moves"][0]["wins"] == 2 and len(cut) == 2  # (the greedy stage's, estimated 3 of 3)
    assert all(m["wins"] == 3 and m["wins_at_most"] <= 2 for m in cut)
    assert data["stages"][-1]["moves"] == 4  # (the two the greedy stage dropped, searched too)
    text = " ".join(run(args).stdout.split())
    for m in cut:
        most = f"{m['wins_at_most']:g}"
        assert f"│ {m['rank']} │ {m['move']} │ {m['score']} │ ≤{most}/3 │" in text
        assert f"{m['rank']}. {m['move']}: cut off, at most {most} of the 3 draws won" in text

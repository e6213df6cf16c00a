"""``scrab infer`` through Click's CliRunner: a game record's turn, a position and its last
play, the table, JSON, and bad input (one line each)."""

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.rules import load_rules
from solver_cli.engine.unseen import unseen_tiles
from solver_cli.formats import leavefile
from solver_cli.formats.position import read_position
from solver_cli.lookahead.infer import OpponentPlay, infer

BOARDS = Path(__file__).resolve().parents[2] / "boards"
GAME = str(BOARDS / "example.gcg")
EMPTY = str(BOARDS / "empty.txt")


@pytest.fixture(scope="module")
def runner(full_lexicon):  # the default list is built once, into the test cache
    return CliRunner()


def infer_json(runner, *args):
    result = runner.invoke(cli, ["infer", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def one_line_error(runner, args, status=2) -> str:
    result = runner.invoke(cli, ["infer", *args])
    assert result.exit_code == status, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


def test_a_game_record_turn_infers_from_the_move_before_it(runner, full_lexicon):
    # Turn 7 is alice's; turn 6 was bob's L2 GELADA, six tiles: bob kept one.
    data = infer_json(runner, GAME, "--turn", "7", "--top", "100")
    assert data["last_play"] == {"move": "L2 GELADA", "score": 34, "player": "bob", "turn": 6}
    assert data["kind"] == "play" and data["method"] == "exact" and data["leave_size"] == 1
    assert data["rack"] == "CEEINST" and data["margin"] == 5
    assert data["kept"] == data["distinct_leaves"] == len(data["top"]) and 0 < data["kept"] <= data["considered"]
    assert math.isclose(sum(leave["weight"] for leave in data["top"]), 1.0)
    # What the library says for the same position, the same table, seen by alice.
    rules = load_rules("scrabble")
    board = read_position(GAME, rules, 6).board
    unseen = unseen_tiles(board, parse_rack("CEEINST", 7), rules).counts
    table = leavefile.shipped_leaves("scrabble", "kjxqz")
    played = parse_rack("GELADA", 7)
    direct = infer(board, unseen, OpponentPlay.placement(played, 34), rules, full_lexicon.gaddag, table)
    assert [(leave["leave"], leave["draws"]) for leave in data["top"]] == [(x.text, x.draws) for x in direct.leaves]


def test_the_table_names_the_move_and_the_leaves(runner):
    result = runner.invoke(cli, ["infer", GAME, "--turn", "7", "--top", "2"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    data = infer_json(runner, GAME, "--turn", "7", "--top", "2")
    assert "The opponent's last move: bob's L2 GELADA, 34 points (turn 6)" in out
    assert f"{data['considered']} racks tried; {data['kept']} kept, within 5 points of their best equity" in out
    for header in ("#", "Leave", "Weight", "Draws"):
        assert header in out
    for leave in data["top"]:
        assert f"{leave['leave']} " in out and f"{leave['weight']:.1%}" in out
    assert f"The 2 likeliest of {data['distinct_leaves']} leaves" in out


def test_a_position_and_its_last_play(runner):
    data = infer_json(runner, EMPTY, "--rack", "EEILNOU", "--last-play", "8D FAIRED", "--margin", "2.5")
    assert data["last_play"] == {"move": "8D FAIRED", "score": 28, "player": None, "turn": None}
    assert data["method"] == "exact" and data["margin"] == 2.5 and data["leave_size"] == 1
    assert data["unseen"].count("E") == 12 - 2  # our two Es are not unseen
    wider = infer_json(runner, EMPTY, "--rack", "EEILNOU", "--last-play", "8D FAIRED", "--margin", "20")
    assert wider["kept"] >= data["kept"]  # a wider margin keeps at least as many


def test_a_pass_says_nothing(runner):
    data = infer_json(runner, EMPTY, "--rack", "EEILNOU", "--last-play", "pass")
    assert data["method"] == "prior" and data["top"] == [] and "says nothing" in data["note"]
    result = runner.invoke(cli, ["infer", EMPTY, "--rack", "EEILNOU", "--last-play", "pass"])
    assert result.exit_code == 0 and "Nothing learnt: a pass says nothing" in result.stdout


def test_an_exchange_past_the_limit_is_sampled(runner):
    args = [EMPTY, "--rack", "EEILNOU", "--last-play", "exchange 7", "--limit", "20", "--seed", "3", "--margin", "200"]
    data = infer_json(runner, *args)
    assert data["kind"] == "exchange" and data["method"] == "sampled" and data["considered"] == 20
    assert (
        data["leave_size"] == 0 and data["kept"] == 20 and data["top"] == [{"leave": "-", "draws": 20, "weight": 1.0}]
    )
    assert infer_json(runner, *args) == data  # the same seed, the same draws
    result = runner.invoke(cli, ["infer", *args])
    assert "20 random draws (more racks than --limit)" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [GAME, "--turn", "7", "--last-play", "pass"],
            "--last-play cannot be used with a game record: the record gives the move",
        ),
        ([EMPTY, "--rack", "EEILNOU"], "Missing option '--last-play': BOARD is no game record"),
        ([EMPTY, "--rack", "EEILNOU", "--last-play", "exchange x"], "give the number of tiles exchanged"),
        ([EMPTY, "--rack", "EEILNOU", "--last-play", "exchange 9"], "an exchange throws back 1 to 7 tiles"),
        ([EMPTY, "--rack", "EEILNOU", "--last-play", "8D"], "give a position and a word (8D FAIRED)"),
        ([EMPTY, "--rack", "", "--last-play", "8D FAIRED"], "--rack is empty"),
        ([EMPTY, "--last-play", "8D FAIRED"], "Missing option '--rack'"),
        ([EMPTY, "--rack", "EEILNOU", "--last-play", "8D FAIRED", "--margin", "-1"], "-1"),
        ([EMPTY, "--rack", "EEILNOU", "--last-play", "8D FAIRED", "--limit", "0"], "0"),
        ([EMPTY, "--rack", "??EEEEE", "--last-play", "8D FAIReD"], "the play uses ? beyond the tiles unseen to us"),
        ([GAME, "--turn", "1"], "--turn 1: "),
        ([GAME, "--turn", "9"], "(line 15) takes back alice's M7 ENTICSE (turn 7): its tiles, CEEINST, are known"),
        ([GAME, "--turn", "12"], "is bob's own move, not the opponent's"),
        ([GAME, "--turn", "8"], "ENTICSE, was withdrawn"),
    ],
)
def test_bad_input_is_one_line(runner, args, message):
    assert message in one_line_error(runner, args)


def test_an_illegal_last_play_is_a_failed_check(runner):
    line = one_line_error(runner, [EMPTY, "--rack", "EEILNOU", "--last-play", "8D FAIRXD"], status=1)
    assert line.startswith("Error: illegal move: not in kjxqz: FAIRXD")

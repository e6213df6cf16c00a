"""The real CLI through Click's CliRunner: output, JSON shape, stdin, and bad input."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import all_commands, cli
from solver_cli.engine.rules import load_rules
from solver_cli.formats.boardfile import parse_board

BOARDS = Path(__file__).resolve().parents[2] / "boards"


@pytest.fixture(scope="module")
def runner(full_lexicon):  # full_lexicon: the default list is built once, into the test cache
    return CliRunner()


def solve_json(runner, *args):
    result = runner.invoke(cli, ["solve", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_table_lists_ranked_moves(runner):
    args = ["solve", str(BOARDS / "midgame.txt"), "--rack", "AEIRST?", "--top", "5", "--no-fold-blanks"]
    result = runner.invoke(cli, args, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "5 of " in out and "moves for AEIRST?" in out and "(scrabble, kjxqz)" in out
    for header in ("Pos", "Word", "Score", "Leave", "Cross-words"):
        assert header in out
    data = solve_json(runner, str(BOARDS / "midgame.txt"), "--rack", "AEIRST?", "--top", "5")
    best = data["moves"][0]
    assert best["position"] in out and best["notation"] in out and str(best["score"]) in out


def test_json_shape_and_ranking(runner, full_lexicon):
    board_file = BOARDS / "midgame.txt"
    data = solve_json(runner, str(board_file), "--rack", "retains", "--top", "7")
    assert data["rules"] == "scrabble" and data["lexicon"] == "kjxqz" and data["rack"] == "AEINRST"
    moves = data["moves"]
    assert len(moves) == 7 and data["total_moves"] > 7
    assert [m["score"] for m in moves] == sorted((m["score"] for m in moves), reverse=True)
    board = parse_board(board_file.read_text(), load_rules("scrabble"), "midgame")
    for m in moves:
        assert set(m) >= {
            "row",
            "col",
            "direction",
            "position",
            "word",
            "score",
            "bingo",
            "placed",
            "leave",
            "cross_words",
        }
        for tile in m["placed"]:
            assert board.at(tile["row"], tile["col"]) == 0
            assert tile["letter"].isupper() and tile["blank"] is False
        assert m["bingo"] == (len(m["placed"]) == 7)
        assert len(m["leave"]) + len(m["placed"]) == 7
        assert full_lexicon.contains(m["word"])
        for cw in m["cross_words"]:
            assert full_lexicon.contains(cw["word"]) and cw["direction"] != m["direction"]
        row, col = m["row"], m["col"]
        dr, dc = (1, 0) if m["direction"] == "down" else (0, 1)
        letters = [m["word"][k] for k in range(len(m["word"]))]
        for k, ch in enumerate(letters):  # the word lies on the board where it says
            sq = board.at(row + k * dr, col + k * dc)
            if sq:
                assert board.to_rows()[row + k * dr][col + k * dc] == ch


def test_all_lists_every_move_and_blanks_are_lowercase(runner):
    args = [str(BOARDS / "opening.txt"), "--rack", "QI?"]
    everything = solve_json(runner, *args, "--all")
    assert len(everything["moves"]) == everything["total_moves"] > 20
    blank_moves = [m for m in everything["moves"] if any(t["blank"] for t in m["placed"])]
    assert blank_moves
    for m in blank_moves:
        blank_letters = {t["letter"].lower() for t in m["placed"] if t["blank"]}
        assert any(ch in m["word"] for ch in blank_letters)
    places = [m for m in everything["moves"] if m["kind"] == "place"]
    keys = [json.dumps(sorted(map(json.dumps, m["placed"]))) for m in places]
    assert len(keys) == len(set(keys))  # no move reported twice
    # the other moves: the pass, and the 7 exchanges of QI? (2 x 2 x 2 tile sets, less none)
    others = [(m["kind"], m.get("exchanged")) for m in everything["moves"] if m["kind"] != "place"]
    assert sorted(others, key=str) == sorted(
        [("pass", None)] + [("exchange", e) for e in ("I", "Q", "?", "IQ", "I?", "Q?", "IQ?")], key=str
    )


def test_board_from_stdin(runner):
    text = (BOARDS / "opening.txt").read_text()
    result = runner.invoke(cli, ["solve", "-", "--rack", "RETAINS", "--json", "--top", "3"], input=text)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["board"] == "<stdin>"


def test_words_with_friends_rules(runner):
    wwf = solve_json(runner, str(BOARDS / "wwf-midgame.txt"), "--rules", "wwf", "--rack", "AEIRSTL", "--top", "50")
    assert wwf["rules"] == "wwf"
    bingos = [m for m in wwf["moves"] if m["bingo"]]
    assert bingos  # 7-tile plays exist and carry the 35-point bonus in their score


def test_empty_board_first_move_covers_centre(runner):
    data = solve_json(runner, str(BOARDS / "empty.txt"), "--rack", "RETAINS", "--all")
    assert data["moves"][0]["bingo"] and data["moves"][0]["score"] >= 50 + 2 * 7
    places = [m for m in data["moves"] if m["kind"] == "place"]
    for m in places:
        assert any((t["row"], t["col"]) == (7, 7) for t in m["placed"])
    directions = {m["direction"] for m in places}
    assert directions == {"across", "down"}
    assert len(data["moves"]) - len(places) == 2**7 - 1 + 1  # every exchange of 7 distinct tiles, and the pass


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "missing.txt", "--rack", "AB"], "cannot read board file missing.txt"),
        (["solve", "{boards}/midgame.txt", "--rack", "AB1"], "rack 'AB1': bad character '1' at position 3"),
        (["solve", "{boards}/midgame.txt", "--rack", "ABCDEFGH"], "has 8 tiles"),
        (["solve", "{boards}/midgame.txt", "--rack", "AB", "--rules", "chess"], "unknown rule set 'chess'"),
        (["solve", "{boards}/midgame.txt", "--rack", "AB", "--lexicon", "nope"], "no word list 'nope'"),
        (["solve", "{bad}", "--rack", "AB"], "line 3, column 2: unexpected character '7'"),
        (["solve", "{boards}", "--rack", "AB"], "is a directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runner, tmp_path, args, message):
    bad = tmp_path / "bad.txt"
    bad.write_text("...............\n" * 2 + ".7" + "." * 13 + "\n" + "...............\n" * 12)
    args = [a.format(boards=BOARDS, bad=bad) for a in args]
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]
    assert "Traceback" not in result.output


def test_missing_rack_is_a_usage_error(runner):
    result = runner.invoke(cli, ["solve", str(BOARDS / "midgame.txt")])
    assert result.exit_code == 2 and "Missing option '--rack'" in result.stderr


def test_every_command_has_help():
    for command in all_commands().values():
        assert command.help, command.name

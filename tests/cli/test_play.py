"""`scrab play`: checking, scoring and applying one move, and writing the board back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli

BOARDS = Path(__file__).resolve().parents[2] / "boards"


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def run_json(runner, *args):
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_play_checks_scores_and_writes_atomically(runner, tmp_path):
    game = tmp_path / "game.txt"
    game.write_text((BOARDS / "opening.txt").read_text())
    result = runner.invoke(cli, ["play", str(game), "8D", "FORMATS", "--rack", "SQ", "-o", str(game)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["8D FORMATS scores 12 (FORMATS 12)", "Leave: Q"]
    assert game.read_text().splitlines()[7] == "...FORMATS....."
    assert [p.name for p in tmp_path.iterdir()] == ["game.txt"]  # no temporary file left
    # A down play through a board tile, written with parentheses, with a blank.
    data = run_json(runner, "play", str(game), "I7", "a(T)e", "--rack", "??")
    assert data["word"] == "aTe" and data["score"] == 1 and [w["word"] for w in data["words"]] == ["aTe"]
    assert data["board"][6][8] == "a" and data["board"][8][8] == "e"


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["9D", "ZA"], 1, "illegal move: not in kjxqz: FZ, OA"),
        (["1A", "QI"], 1, "does not touch any tile"),
        (["8D", "FORMATS", "--rack", "Q"], 1, "the rack Q does not hold the tiles S"),
        (["8E", "ORMATS"], 1, "the tiles make FORMATS at 8D, not ORMATS at 8E"),
        (["8D", "FXRMATS"], 2, "square E8 holds O, not X"),
        (["Q8", "AB"], 2, "off the 15x15 board"),
        (["8H8", "AB"], 2, "bad position '8H8'"),
        (["8D", "F(OR"], 2, "unbalanced parentheses"),
    ],
)
def test_play_rejects_bad_moves_and_leaves_the_file(runner, tmp_path, args, code, message):
    game = tmp_path / "game.txt"
    original = (BOARDS / "opening.txt").read_text()
    game.write_text(original)
    result = runner.invoke(cli, ["play", str(game), *args, "-o", str(game)])
    assert result.exit_code == code, result.output
    assert message in result.stderr and result.stdout == ""
    assert game.read_text() == original


def test_play_without_output_prints_the_new_board(runner):
    result = runner.invoke(cli, ["play", str(BOARDS / "empty.txt"), "H7", "QI"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "H7 QI scores 22 (QI 22)"  # (10 + 1) x 2 on the centre
    assert lines[7][7] == "Q" and lines[8][7] == "I" and len(lines) == 16

"""`scrab play`: checking, scoring and applying one move, and writing the board back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import solver_cli as scrab
from solver_cli.cli import cli
from solver_cli.errors import IllegalMove
from solver_cli.formats.boardfile import parse_board, with_rows

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
    assert game.read_text().splitlines()[1 + 7] == "...FORMATS....."  # after the file's comment line
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


# --------------------------------------------------------------------------- the tile set's counts

MIDGAME = str(BOARDS / "midgame.txt")  # one blank on the board already (the s of VERGLAs)


def test_play_refuses_more_blanks_than_the_set_holds(runner, tmp_path):
    """N8 nastier is seven blanks: it used to score 56 and write a board holding 8 of the 2."""
    game = tmp_path / "game.txt"
    game.write_text((BOARDS / "midgame.txt").read_text())
    result = runner.invoke(cli, ["play", str(game), "N8", "nastier", "-o", str(game)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        "Error: illegal move: the board would hold 8 blanks, more than the 2 in the scrabble set "
        "(lowercase letters are blanks: NASTIER plays letter tiles)"
    )
    assert game.read_text() == (BOARDS / "midgame.txt").read_text()
    # Some blanks, some letters: no hint about case, which the user wrote on purpose.
    mixed = runner.invoke(cli, ["play", MIDGAME, "N8", "nAstIer"])
    assert mixed.exit_code == 1
    assert (
        mixed.stderr.strip()
        == "Error: illegal move: the board would hold 6 blanks, more than the 2 in the scrabble set"
    )
    # One blank more is still within the set: VERGLAs's and this one.
    assert runner.invoke(cli, ["play", MIDGAME, "N8", "NASTIEr"]).exit_code == 0


def test_play_refuses_more_of_a_letter_than_the_set_holds(runner):
    result = runner.invoke(cli, ["play", str(BOARDS / "empty.txt"), "8G", "ZZZ"])
    assert result.exit_code == 1
    assert (
        result.stderr.strip()
        == "Error: illegal move: the board would hold 3 Z tiles, more than the 1 in the scrabble set"
    )
    # the lexicon is asked only after the count: a real word with two Zs is refused the same way
    assert "2 Z tiles" in runner.invoke(cli, ["play", str(BOARDS / "empty.txt"), "8G", "ZiZ"]).stderr


def test_the_api_refuses_them_too():
    opening = scrab.read_position(str(BOARDS / "midgame.txt"))
    with pytest.raises(IllegalMove, match="the board would hold 8 blanks, more than the 2 in the scrabble set"):
        scrab.check_play(opening, "N8", "nastier")
    assert scrab.check_play(opening, "N8", "NASTIER").scored.score == 77


def test_a_board_already_over_the_counts_still_takes_moves_of_other_tiles(runner, tmp_path):
    """solve warns about such a board; play only refuses to add to the excess."""
    odd = tmp_path / "odd.txt"
    rows = ["." * 15] * 15
    rows[7] = "....ZZZ........"  # three Zs of the 1
    odd.write_text("\n".join(rows) + "\n")
    ok = runner.invoke(cli, ["play", str(odd), "G7", "A.", "--lexicon", str(_word_list(tmp_path, "AZ"))])
    assert ok.exit_code == 0, ok.stderr
    more = runner.invoke(cli, ["play", str(odd), "G7", "Z.", "--lexicon", str(_word_list(tmp_path, "ZZ"))])
    assert more.exit_code == 1 and "4 Z tiles" in more.stderr


def _word_list(folder: Path, *words: str) -> Path:
    path = folder / "words.txt"
    path.write_text("\n".join(words) + "\n")
    return path


# --------------------------------------------------------------------------- comments kept


def test_play_output_keeps_the_board_files_comment_lines(runner, tmp_path):
    game = tmp_path / "game.txt"
    original = (BOARDS / "opening.txt").read_text().splitlines()
    original.insert(5, "   # a note between rows")
    original += ["", "# the last word"]
    game.write_text("\n".join(original) + "\n")
    result = runner.invoke(cli, ["play", str(game), "9D", "AX", "-o", str(game)])
    assert result.exit_code == 0, result.stderr
    lines = game.read_text().splitlines()
    assert [line for line in lines if not line.startswith((".", "A", "F", "X"))] == [
        original[0],
        "   # a note between rows",
        "",
        "# the last word",
    ]
    assert lines[5] == "   # a note between rows" and lines[1 + 7 + 1] == "...FORMAT......"
    assert lines[1 + 8 + 1] == "...AX.........."


def test_with_rows_replaces_only_the_rows():
    rows = ["." * 15] * 15
    text = "\ufeff# top\r\n" + "\r\n".join(rows[:3]) + "\r\n\r\n  # mid\n" + "\n".join(rows[3:])  # no last newline
    rules = scrab.load_rules("scrabble")
    board = parse_board(text, rules, "test")
    board.squares[14 * 15 + 14] = 2  # a B in the bottom right corner
    expected = ["# top", *rows[:3], "", "  # mid", *rows[3:14], "." * 14 + "B"]
    assert with_rows(text, board) == "\n".join(expected) + "\n"
    assert parse_board(with_rows(text, board), rules, "test").squares == board.squares


def test_output_onto_a_folder_says_so_in_scrabs_words(runner, tmp_path):
    """It was Click's "Invalid value for '-o' / '--output': File ... is a directory."."""
    result = runner.invoke(cli, ["play", str(BOARDS / "opening.txt"), "8D", "FORMATS", "-o", str(tmp_path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"Error: -o: cannot write {tmp_path}: it is a directory"

"""`scrab leaves show` and `scrab leaves train` (issue #14)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.engine.alphabet import parse_rack
from solver_cli.formats.leavefile import read_leaves


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_show_prints_each_leave_in_points(stand_in_tables):
    table = stand_in_tables["scrabble-kjxqz"]
    result = run("leaves", "show", "?", "s", "QU", "AEIRST?", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    data = json.loads(result.stdout)
    assert data["table"] == "scrabble-kjxqz" and data["rules"] == "scrabble"
    expected = {text.upper(): table.value(parse_rack(text, 7)) / 1000 for text in ("?", "s", "QU", "AEIRST?")}
    assert data["leaves"] == expected
    assert set(data["leaves"]) == {"?", "S", "QU", "AEIRST?"}
    shown = run("leaves", "show", "QU", "UU").stdout
    assert "scrabble-kjxqz" in shown and f"{expected['QU']:+.2f}" in shown


def test_show_says_when_no_table_fits():
    result = run("leaves", "show", "Q", "--rules", "super", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["leaves"] == {"Q": 0.0}
    assert result.stderr.startswith("Warning: no leave values for super")


def test_show_refuses_a_bad_leave():
    for bad, words in (("Q1", "bad character"), ("", "is empty"), ("ABCDEFGH", "a rack holds at most 7")):
        result = run("leaves", "show", bad)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.startswith("Error: ") and words in result.stderr, result.stderr


def test_train_writes_a_table_that_show_and_solve_use(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    out = tmp_path / "t.leaves"
    result = run("leaves", "train", "--lexicon", str(words), "--games", "12", "--rounds", "2", "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [r["games"] for r in summary["rounds"]] == [4, 8] and summary["output"] == str(out)
    table = read_leaves(out)
    assert table.info["round"] == 2 and table.info["lexicon"] == "words"
    shown = json.loads(run("leaves", "show", "?", "--leaves", str(out), "--json").stdout)
    assert shown["leaves"]["?"] == table.value(parse_rack("?", 7)) / 1000
    # Resuming the finished training adds nothing: the same table.
    again = tmp_path / "again.leaves"
    args = ["leaves", "train", "--lexicon", str(words), "--games", "12", "--rounds", "2", "-o", str(again)]
    assert run(*args, "--resume", str(out), "--json").exit_code == 0
    assert again.read_bytes() == out.read_bytes()


def test_train_refuses_bad_settings(tmp_path):
    out = str(tmp_path / "x.leaves")
    cases = [
        (["--games", "2", "--rounds", "4"], "games must be 4"),
        (["--games", "10", "--resume", str(tmp_path / "missing.leaves")], "missing.leaves"),
    ]
    for extra, words in cases:
        result = run("leaves", "train", "-o", out, *extra)
        assert result.exit_code == 2 and result.stderr.startswith("Error: ") and words in result.stderr, result.stderr

"""`scrab leaves show` and `scrab leaves train` (issue #14); hostile leave files through
every command that reads one, and trainings refused before their first game (issue #23)."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli._data import data_folder
from solver_cli.cli import cli
from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.leaves import TABLE_SIZE
from solver_cli.formats.leavefile import MAGIC_V2, read_leaves
from solver_cli.games import leavegen

MIDGAME = str(Path(__file__).parents[2] / "boards" / "midgame.txt")
VALUES = bytes(2 * TABLE_SIZE)


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


# --- hostile leave files, through every command that reads one (issue #23) -------------------


def version3(header: str) -> bytes:
    """A version 3 leave file with the header line ``header`` and a right checksum."""
    rest = header.encode() + b"\n" + VALUES
    return b"scrab-leaves 3 %08x\n" % zlib.crc32(rest) + rest


def readers(path: str, words: str) -> dict[str, list[str]]:
    """Every command line that reads the leave file ``path`` (words: a small word list)."""
    train = ["leaves", "train", "--games", "2", "--rounds", "1", "--lexicon", words]
    return {
        "leaves show --leaves": ["leaves", "show", "QU", "--leaves", path],
        "solve --leaves": ["solve", MIDGAME, "--rack", "RETAINS", "--leaves", path, "--json"],
        "selfplay equity:FILE": ["selfplay", "--players", f"equity:{path},greedy", "--games", "2", "--lexicon", words],
        "leaves train --resume": [*train, "--resume", path, "-o", str(Path(path).parent / "out.leaves")],
    }


@pytest.fixture
def word_file(tmp_path, small_words) -> str:
    path = tmp_path / "words.txt"
    path.write_text("\n".join(small_words) + "\n")
    return str(path)


@pytest.fixture
def games_played(monkeypatch) -> list[int]:
    played: list[int] = []
    real = leavegen.play_training_batch

    def counted(*args):
        played.append(args[-1])
        return real(*args)

    monkeypatch.setattr(leavegen, "play_training_batch", counted)
    return played


@pytest.mark.parametrize("version", [2, 3])
def test_a_deeply_nested_header_is_one_error_in_every_reader(tmp_path, word_file, version, full_lexicon):
    """The magic line and 1,000 ``[`` gave a RecursionError traceback in every reader."""
    path = tmp_path / "deep.leaves"
    path.write_bytes(MAGIC_V2 + b"[" * 1000 + b"\n" + VALUES if version == 2 else version3("[" * 1000))
    for what, args in readers(str(path), word_file).items():
        result = run(*args)
        assert result.exit_code == 2, (what, result.output)
        assert result.stdout == "" and "Traceback" not in result.stderr, what
        assert result.stderr.splitlines() == [f"Error: {path}: the header is nested more than 8 deep"], what
    assert not (tmp_path / "out.leaves").exists()


def test_control_characters_in_a_header_never_reach_the_terminal(tmp_path, word_file, full_lexicon):
    """An ANSI escape and a line break in 'rules' printed the escape and forged an Error: line."""
    forged = "\x1b[2J\x1b[31mscrabble\nError: forged by the file"
    header = {"rules": forged, "lexicon": "kjxqz\x1b]0;title\x07", "rack_size": 7, "entries": TABLE_SIZE}
    path = tmp_path / "forged.leaves"
    path.write_bytes(version3(json.dumps(header)))
    for what, args in readers(str(path), word_file).items():
        if what == "leaves train --resume":
            continue  # refused (another training); its message shows no header string
        result = run(*args)
        assert result.exit_code == 0, (what, result.output)
        for line in result.output.splitlines():
            assert line.isprintable() and not line.startswith("Error:"), (what, line)
    warned = run(*readers(str(path), word_file)["solve --leaves"]).stderr
    assert "trained for ?[2J?[31mscrabble?Error: forged by the file, not scrabble" in warned
    shown = run(*readers(str(path), word_file)["leaves show --leaves"]).stdout
    assert "?[2J?[31mscrabble?Error: forged by the file-kjxqz?]0;title?" in shown


def test_a_resumed_checkpoint_is_checked_before_the_word_list_is_read(tmp_path, word_file, games_played):
    """A version 2 checkpoint (its header outside the checksum) whose "round":1 flipped to 0."""
    plan = leavegen.training_plan(2, 1, 1)
    reports = [{"round": 1, "games": 2, "samples": 9, "racks": 9}]
    info = {"rules": "scrabble", "lexicon": "words", "rack_size": 7, "entries": TABLE_SIZE, "plan": plan}
    header = dict(info, round=0, round_reports=reports, crc32=zlib.crc32(VALUES))
    path = tmp_path / "flipped.leaves"
    path.write_bytes(MAGIC_V2 + json.dumps(header).encode() + b"\n" + VALUES)
    result = run(*readers(str(path), word_file)["leaves train --resume"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: --resume {path}: the checkpoint's round is 0; a checkpoint of this training is written after "
        "round 1 to 1"
    ]
    assert games_played == [] and not (tmp_path / "out.leaves").exists()


@pytest.mark.parametrize("rack_size", [8, 20])
def test_a_training_for_racks_of_more_than_7_is_refused_before_any_game(tmp_path, games_played, rack_size):
    rules_text = (data_folder("rules") / "scrabble.toml").read_text()
    rules_text = rules_text.replace('name = "scrabble"', 'name = "long"').replace(
        "rack_size = 7", f"rack_size = {rack_size}"
    )
    rules = tmp_path / "long.toml"
    rules.write_text(rules_text)
    out = tmp_path / "long.leaves"
    result = run("leaves", "train", "--rules", str(rules), "--games", "2", "--rounds", "1", "-o", str(out))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Error: rules long: racks of {rack_size} tiles; leave tables are trained for racks of 1 to 7 tiles "
        "(they value leaves of up to 6)"
    ]
    assert games_played == [] and not out.exists()


@pytest.mark.skipif(not Path("/proc/version").is_file(), reason="no /proc")
def test_an_output_the_os_will_not_take_is_refused_before_any_game(games_played):
    """/proc/version is a regular file root may open, in a folder where nothing can be made:
    the training used to play every game and fail at the end."""
    before = Path("/proc/version").read_bytes()
    result = run("leaves", "train", "--games", "2", "--rounds", "1", "-o", "/proc/version")
    assert result.exit_code == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("Error: --output: cannot write /proc/version: cannot create a file in /proc"), line
    assert games_played == [] and Path("/proc/version").read_bytes() == before


def test_checking_the_output_creates_and_changes_nothing(tmp_path, games_played):
    """The check of -o runs before the (here missing) checkpoint is read: whatever is at -o,
    the folder is left as it was, and a file there keeps its content and time."""
    new = tmp_path / "new.leaves"
    mine = tmp_path / "mine.leaves"
    mine.write_bytes(b"precious")
    linked = tmp_path / "linked.leaves"
    linked.write_bytes(b"shared")
    os.link(linked, tmp_path / "other-name")  # rewritten in place by a write: opened, not truncated
    os.utime(mine, (1_000_000_000, 1_000_000_000))
    os.utime(linked, (1_000_000_000, 1_000_000_000))
    listing = sorted(os.listdir(tmp_path))
    for out in (new, mine, linked):
        result = run("leaves", "train", "--games", "2", "--rounds", "1", "-o", str(out), "--resume", "missing.leaves")
        assert result.exit_code == 2 and "cannot read leave file missing.leaves" in result.stderr, result.output
    assert sorted(os.listdir(tmp_path)) == listing
    assert mine.read_bytes() == b"precious" and linked.read_bytes() == b"shared"
    assert mine.stat().st_mtime == linked.stat().st_mtime == 1_000_000_000
    assert games_played == []

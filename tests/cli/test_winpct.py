"""`scrab winpct show` and `scrab winpct train` (issue #22): what they print, their JSON,
their exit statuses, trainings refused before their first game, and a training stopped by
Ctrl-C or SIGTERM (its games so far written, one line with the command that goes on, 130)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import workers_of
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.winpct import win_probability
from solver_cli.formats.winpctfile import read_winpct
from solver_cli.games import winpct


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def word_file(tmp_path_factory, small_words) -> str:
    path = tmp_path_factory.mktemp("winpct") / "words.txt"
    path.write_text("\n".join(small_words) + "\n")
    return str(path)


@pytest.fixture
def trained(tmp_path, word_file) -> Path:
    out = tmp_path / "t.winpct"
    result = run("winpct", "train", "--games", "4", "--seed", "2", "--lexicon", word_file, "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def games_played(monkeypatch) -> list[int]:
    played: list[int] = []
    real = winpct.play_batch

    def counted(*args):
        played.append(args[-1])
        return real(*args)

    monkeypatch.setattr(winpct, "play_batch", counted)
    return played


def test_train_writes_a_table_and_says_what_it_holds(tmp_path, word_file, games_played):
    out = tmp_path / "t.winpct"
    result = run("winpct", "train", "--games", "4", "--seed", "2", "--lexicon", word_file, "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    table = read_winpct(out)
    assert summary == {
        "rules": "scrabble",
        "lexicon": "words",
        "leaves": "scrabble-kjxqz",
        "output": str(out),
        "games": 4,
        "resumed_from": 0,
        "seed": 2,
        "samples": sum(table.samples),
        "standard_error": table.info["standard_error"],
        "seconds": summary["seconds"],
        "stopped": False,
    }
    assert games_played == [4] and table.info["games"] == 4 and table.info["counts"] is True
    # the leave table the players used was borrowed from another word list: said once
    assert result.stderr == (
        "Warning: no leave values trained for scrabble with words; using those of scrabble-kjxqz\n"
    )
    text = run("winpct", "train", "--games", "4", "--seed", "2", "--lexicon", word_file, "-o", str(out))
    lines = text.stdout.splitlines()
    assert lines[0].startswith(
        f"Trained scrabble x words win probabilities on 4 games ({sum(table.samples)} turns) in "
    )
    assert lines[1].startswith("  standard error: ") and lines[2] == f"Wrote {out}"


def test_no_counts_writes_a_smaller_file_that_cannot_be_gone_on_from(tmp_path, trained, word_file):
    light = tmp_path / "light.winpct"
    args = ["winpct", "train", "--games", "4", "--seed", "2", "--lexicon", word_file]
    result = run(*args, "--resume", str(trained), "--no-counts", "-o", str(light), "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["resumed_from"] == 4
    assert light.stat().st_size < trained.stat().st_size
    assert read_winpct(light).values == read_winpct(trained).values
    refused = run(*args, "--games", "6", "--resume", str(light), "-o", str(tmp_path / "x.winpct"))
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.endswith(
        f"Error: --resume {light}: the table keeps no counts (it was written with --no-counts): it cannot be "
        "trained on\n"
    )


def test_show_looks_one_chance_up(trained):
    table = read_winpct(trained)
    result = run("winpct", "show", str(trained), "--spread", "23", "--unseen", "7", "--json")
    assert result.exit_code == 0 and result.stderr == ""
    assert json.loads(result.stdout) == {
        "table": "scrabble-words",
        "spread": 23,
        "unseen": 7,
        "win_probability": win_probability(table, 23, 7),
    }
    text = run("winpct", "show", str(trained), "--spread", "-900", "--unseen", "7").stdout
    chance = win_probability(table, -300, 7)
    assert text == (
        f"{chance:.1%} to win at a spread of -900 (taken as -300) with 7 tiles unseen (scrabble-words, 4 games)\n"
    )
    over = run("winpct", "show", str(trained), "--spread", "5", "--unseen", "0", "--json")
    assert json.loads(over.stdout)["win_probability"] == 1.0


def test_show_prints_a_grid_of_chances(trained):
    table = read_winpct(trained)
    data = json.loads(run("winpct", "show", str(trained), "--json").stdout)
    assert data["spreads"] == [-100, -50, -25, -10, 0, 10, 25, 50, 100]
    assert data["unseen"] == [1, 2, 4, 7, 10, 20, 40, 60, 86]
    assert data["win_probability"] == [[win_probability(table, s, u) for u in data["unseen"]] for s in data["spreads"]]
    assert (data["games"], data["samples"], data["unseen_max"], data["spread_step"]) == (4, sum(table.samples), 93, 5)
    text = run("winpct", "show", str(trained)).stdout.splitlines()
    assert text[0] == f"Win % for the player to move, from scrabble-words (4 games, {sum(table.samples)} turns)"
    [plus_ten] = [line for line in text if line.startswith("│    +10 ")]
    cells = [cell.strip() for cell in plus_ten.split("│")[2:-1]]
    assert cells == [f"{100 * win_probability(table, 10, u):.0f}" for u in data["unseen"]]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--spread", "5"], "Error: --spread applies only with --unseen (see 'scrab winpct show --help')"),
        (["--unseen", "5"], "Error: --unseen applies only with --spread (see 'scrab winpct show --help')"),
        (["--spread", "5", "--unseen", "94"], "Error: 94 tiles unseen: the table scrabble-words covers 0 to 93"),
        (["--spread", "5", "--unseen", "-1"], "Error: Invalid value for '--unseen': -1 is not in the range x>=0."),
    ],
)
def test_show_refuses_a_bad_lookup_in_one_line(trained, args, line):
    result = CliRunner().invoke(cli, ["winpct", "show", str(trained), *args], prog_name="scrab")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [line]


def test_show_without_a_table_for_the_rules_is_one_error():
    result = run("winpct", "show", "--rules", "super")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "Error: no win probabilities for super (train a table with: scrab winpct train --rules super ...)\n"
    )
    missing = run("winpct", "show", "missing.winpct")
    assert missing.exit_code == 2
    assert missing.stderr.startswith("Error: cannot read win-probability file missing.winpct: ")


def test_trainings_that_cannot_work_are_refused_before_any_game(tmp_path, word_file, trained, games_played):
    out = str(tmp_path / "x.winpct")
    cases = [
        (["--resume", str(tmp_path / "missing.winpct")], "cannot read win-probability file"),
        (["--resume", str(trained), "--seed", "3"], "the table was made by another training"),
        (["--resume", str(trained), "--games", "3"], "the table holds 4 games, more than --games 3"),
        (["-o", str(tmp_path)], "--output: cannot write"),
    ]
    for extra, words in cases:
        result = run("winpct", "train", "--games", "4", "--seed", "2", "--lexicon", word_file, "-o", out, *extra)
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert result.stderr.splitlines()[-1].startswith("Error: ") and words in result.stderr, result.stderr
    own = run("winpct", "train", "--games", "4", "--lexicon", word_file)
    assert own.exit_code == 2 and "Missing option '--output'" in own.stderr
    assert games_played == [] and not Path(out).exists()


def test_a_table_for_ones_own_list_goes_where_show_finds_it(tmp_path, monkeypatch, small_words):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "lexicons").mkdir(mode=0o700)
    (data / "lexicons" / "NWL2023.txt").write_text(f"# {data}\n" + "\n".join(small_words) + "\n")
    monkeypatch.setenv("SCRAB_DATA_DIR", str(data))
    borrowed = run("winpct", "show", "--lexicon", "NWL2023", "--spread", "0", "--unseen", "7", "--json")
    assert json.loads(borrowed.stdout)["table"] == "scrabble-kjxqz"
    assert borrowed.stderr == (
        "Warning: no win probabilities trained for scrabble with NWL2023; using those of scrabble-kjxqz\n"
    )
    training = run("winpct", "train", "--lexicon", "nwl2023", "--games", "3", "--json")
    assert training.exit_code == 0, training.output
    table = data / "winpct" / "scrabble-NWL2023.winpct"
    assert json.loads(training.stdout)["output"] == str(table) and table.is_file()
    assert (table.parent.stat().st_mode & 0o777) == 0o700
    found = run("winpct", "show", "--lexicon", "NWL2023", "--spread", "0", "--unseen", "7", "--json")
    assert found.stderr == "" and json.loads(found.stdout)["table"] == "scrabble-NWL2023"


# --- stopping early ----------------------------------------------------------------------------


def go_on_command(line: str) -> list[str]:
    command = shlex.split(line.split("go on with: ", 1)[1])
    assert command[:3] == ["scrab", "winpct", "train"]
    return command[1:]


@python_engine_in_soak()  # (the stopping does not depend on the engine)
def test_ctrl_c_writes_the_games_finished_and_says_how_to_go_on(tmp_path, word_file, monkeypatch, engine):
    real = winpct.play_batch

    def interrupted_second_batch(*args):
        if args[-2] >= 100:  # (the batches are of 100 games: the second starts at game 100)
            raise KeyboardInterrupt
        return real(*args)

    out = tmp_path / "out dir" / "t.winpct"  # (a space: the command is quoted for the shell)
    out.parent.mkdir()
    plan = ["winpct", "train", "--games", "150", "--seed", "5", "--lexicon", word_file]
    monkeypatch.setattr(winpct, "play_batch", interrupted_second_batch)
    stopped = CliRunner().invoke(cli, [*plan, "-o", str(out), "--json"])
    monkeypatch.setattr(winpct, "play_batch", real)
    assert stopped.exit_code == 130, stopped.output
    summary = json.loads(stopped.stdout)
    assert summary["stopped"] is True and summary["games"] == 100
    line = stopped.stderr.splitlines()[-1]
    assert line.startswith(f"Stopped: training interrupted; {out} holds 100 games of 150; go on with: scrab winpct")
    assert read_winpct(out).info["games"] == 100

    resumed = CliRunner().invoke(cli, go_on_command(line))
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["resumed_from"] == 100
    whole = tmp_path / "whole.winpct"
    assert CliRunner().invoke(cli, [*plan, "-o", str(whole)]).exit_code == 0
    assert out.read_bytes() == whole.read_bytes()


def test_ctrl_c_before_a_batch_finished_saves_nothing(tmp_path, word_file, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(winpct, "play_batch", interrupted)
    out = tmp_path / "t.winpct"
    result = run("winpct", "train", "--games", "10", "--lexicon", word_file, "-o", str(out))
    assert result.exit_code == 130 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "Stopped: training interrupted before a batch finished; nothing saved"
    assert not out.exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc")
@python_engine_in_soak()
def test_sigterm_stops_a_training_on_workers_in_one_line(tmp_path, word_file, engine):
    out = tmp_path / "t.winpct"
    args = ["winpct", "train", "--games", "4000", "--jobs", "2", "--lexicon", word_file, "-o", str(out), "--json"]
    proc = subprocess.Popen([sys.executable, "-m", "solver_cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while len(workers := workers_of(proc.pid)) < 2:
            assert time.monotonic() < deadline, "no two workers within 60 s"
            time.sleep(0.05)
        time.sleep(3)  # (a batch or two may finish meanwhile: either way is one line)
    except BaseException:
        proc.kill()
        raise
    proc.send_signal(signal.SIGTERM)
    result: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda k=k, p=p: result.__setitem__(k, p.read()), daemon=True)
        for k, p in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(20)
        assert not reader.is_alive(), "the output did not end: a process still holds it"
    proc.wait(5)
    assert proc.returncode == 130
    lines = result["err"].decode().splitlines()
    assert len(lines) == 2 and lines[0].startswith("Warning: no leave values trained"), lines
    if out.exists():
        games = read_winpct(out).info["games"]
        assert lines[1].startswith(f"Stopped: training interrupted; {out} holds {games:,} games of 4,000; go on")
        assert json.loads(result["out"])["games"] == games and games % 100 == 0
    else:
        assert lines[1] == "Stopped: training interrupted before a batch finished; nothing saved"
        assert result["out"] == b""
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in workers):
        assert time.monotonic() < deadline, "workers left behind"
        time.sleep(0.05)

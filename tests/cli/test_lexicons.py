"""Word lists of the user's own on the command line (issue #24, "Their own word lists"):
`scrab lexicons`, `--lexicon NAME` for a list in the user's folder, a record's `#lexicon`,
shell completion, and the leave table such a list ranks by (borrowed, or trained by name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.lexicon import wordlist

ROOT = Path(__file__).resolve().parents[2]
GCG = ROOT / "tests" / "formats" / "gcg" / "no_players.gcg"


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    (folder / "lexicons").mkdir(mode=0o700)
    monkeypatch.setenv("SCRAB_DATA_DIR", str(folder))
    return folder


@pytest.fixture
def nwl(data, small_words) -> Path:
    """NWL2023: a few thousand real words and one invented (QZXV), in the user's folder."""
    path = data / "lexicons" / "NWL2023.txt"
    # (The comment makes each test's list its own, so none finds another's GADDAG in the cache.)
    path.write_text(f"# {data}\n" + "\n".join([*small_words, "QZXV"]) + "\n")
    return path


def run(*args: str, code: int = 0):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def test_lexicons_lists_the_shipped_lists_and_the_users_own(data, nwl, small_words):
    (data / "lexicons" / "Sowpods.txt").write_text("QI\n")  # a shipped name: shadowed
    result = run("lexicons", "--json")
    listing = json.loads(result.stdout)
    assert listing["rules"] == "scrabble" and listing["max_length"] == 15
    assert listing["folders"] == [
        {"folder": str(data / "lexicons"), "origin": "user folder", "problem": None, "searched": True}
    ]
    by = {(e["name"], e["origin"]): e for e in listing["lexicons"]}
    assert list(by) == [
        ("kjxqz", "shipped"),
        ("sowpods", "shipped"),
        ("NWL2023", "user folder"),
        ("Sowpods", "user folder"),
    ]
    own = by["NWL2023", "user folder"]
    assert own["path"] == str(nwl) and own["words"] == len(small_words) + 1 and own["cached"] is False
    assert own["leaves"] == "scrabble-kjxqz" and own["leaves_trained"] is False  # borrowed
    assert by["kjxqz", "shipped"]["default"] and by["kjxqz", "shipped"]["leaves_trained"]
    assert by["Sowpods", "user folder"]["shadowed_by"] == "shipped"

    run("check", "QI", "--lexicon", "nwl2023")  # builds and caches it
    again = {e["name"]: e for e in json.loads(run("lexicons", "--json").stdout)["lexicons"]}
    assert again["NWL2023"]["cached"] is True

    shown = CliRunner().invoke(cli, ["lexicons"], env={"COLUMNS": "400"}).stdout
    assert "NWL2023" in shown and "(borrowed)" in shown and str(data / "lexicons") in shown
    assert f"Shadowed: {data / 'lexicons' / 'Sowpods.txt'}, by a shipped list" in shown


def test_a_list_of_ones_own_is_taken_by_name_in_any_case(nwl, full_lexicon):
    own = json.loads(run("check", "QZXV", "--lexicon", "nwl2023", "--json").stdout)
    assert own["lexicon"] == "NWL2023" and own["all_valid"] is True
    assert json.loads(run("check", "QZXV", "--json", code=1).stdout)["all_valid"] is False  # not in kjxqz


def test_a_record_picks_its_lexicon_when_the_user_has_it(data, tmp_path):
    record = tmp_path / "nwl.gcg"
    record.write_text("#lexicon NWL2020\n" + GCG.read_text())
    missing = run("review", str(record), "--json")
    assert missing.stderr == (
        f"Warning: {record} names the lexicon 'NWL2020', which you do not have; using kjxqz "
        f"(put your NWL2020 list in {data / 'lexicons'} as NWL2020.txt, or give --lexicon)\n"
    )
    (data / "lexicons" / "nwl2020.txt").write_text("WEAVE\nJUTE\nGONIA\nJUT\nAW\n")
    found = run("review", str(record), "--json")
    assert "names the lexicon" not in found.stderr
    assert json.loads(found.stdout)["lexicon"] == "nwl2020"
    assert json.loads(run("solve", str(record), "--turn", "2", "--json").stdout)["lexicon"] == "nwl2020"


def test_a_record_never_names_a_file(data, tmp_path, monkeypatch):
    (tmp_path / "words.txt").write_text("QI\n")
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "r.gcg"
    record.write_text("#lexicon words.txt\n" + GCG.read_text())
    result = run("review", str(record), "--json")
    assert json.loads(result.stdout)["lexicon"] == "kjxqz"
    assert "'words.txt', which you do not have; using kjxqz (give --lexicon to choose)" in result.stderr


def test_a_list_without_a_table_borrows_one_and_training_by_name_keeps_one(data, nwl):
    args = ("solve", "boards/empty.txt", "--rack", "AEIRST?", "--top", "1", "--lexicon", "NWL2023", "--json")
    borrowed = run(*args)
    assert borrowed.stderr == (
        "Warning: no leave values trained for scrabble with NWL2023; using those of scrabble-kjxqz "
        "(train its own: scrab leaves train --rules scrabble --lexicon NWL2023 --games N)\n"
    )
    assert json.loads(borrowed.stdout)["leaves"] == "scrabble-kjxqz"

    training = run("leaves", "train", "--lexicon", "nwl2023", "--games", "4", "--rounds", "1", "--json")
    trained = json.loads(training.stdout)
    table = data / "leaves" / "scrabble-NWL2023.leaves"
    assert trained["output"] == str(table) and table.is_file()
    assert (table.parent.stat().st_mode & 0o777) == 0o700

    found = run(*args)
    assert found.stderr == ""
    assert json.loads(found.stdout)["leaves"] == "scrabble-NWL2023"
    shown = json.loads(run("leaves", "show", "AEI", "--lexicon", "nwl2023", "--json").stdout)
    assert shown["table"] == "scrabble-NWL2023"
    listed = {e["name"]: e for e in json.loads(run("lexicons", "--json").stdout)["lexicons"]}
    assert listed["NWL2023"]["leaves"] == "scrabble-NWL2023" and listed["NWL2023"]["leaves_trained"]


@pytest.mark.parametrize("lexicon", [None, "sowpods", "words.txt"])
def test_training_without_output_is_only_for_ones_own_lists(data, tmp_path, monkeypatch, lexicon):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "words.txt").write_text("QI\n")
    extra = [] if lexicon is None else ["--lexicon", lexicon]
    result = run("leaves", "train", "--games", "4", *extra, code=2)
    assert result.stderr.startswith("Error: Missing option '--output': only a word list of your own")
    assert not (data / "leaves").exists()


def completions(args: list[str], incomplete: str) -> list[str]:
    complete = ShellComplete(cli, {}, "scrab", "_SCRAB_COMPLETE")
    return [item.value for item in complete.get_completions(args, incomplete) if item.type == "plain"]


def test_completion_offers_the_users_lists_too(data, nwl):
    (data / "lexicons" / "kjxqz.txt").write_text("QI\n")  # shadowed: offered once, as shipped
    assert completions(["solve", "b.txt", "--lexicon"], "nw") == ["NWL2023"]
    assert completions(["anagram", "QI", "-l"], "") == ["kjxqz", "sowpods", "NWL2023"]
    assert completions(["anagram", "QI", "-l"], "K") == ["kjxqz"]


def test_a_warm_command_looks_at_no_folder_for_a_shipped_name_or_a_path(data, nwl, monkeypatch, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text(nwl.read_text())

    def no_scan():
        raise AssertionError("a word-list folder was searched")

    monkeypatch.setattr(wordlist, "lexicon_folders", no_scan)
    for lexicon in ("KJXQZ", str(words)):
        run("solve", "boards/midgame.txt", "--rack", "AEIRST?", "--top", "1", "--lexicon", lexicon, "--json")
        run("leaves", "show", "AEI", "--lexicon", lexicon)


@pytest.mark.parametrize("lexicon", ["KJXQZ", "{words}"])
def test_a_warm_command_never_asks_where_the_data_folder_is(lexicon, tmp_path, session_cache, full_lexicon):
    """With no plain answer to where the data folder is (a relative HOME), finding it would
    import platformdirs (4 ms): a shipped name or a path never needs it."""
    words = tmp_path / "words.txt"
    words.write_text("QI\nZA\nQAT\n")
    args = ["solve", "boards/midgame.txt", "--rack", "AEIRST?", "--json", "--lexicon", lexicon.format(words=words)]
    code = (
        "import sys, click\n"
        "from solver_cli.cli import cli\n"
        f"cli({args!r}, standalone_mode=False)\n"
        "sys.stderr.write('PLATFORMDIRS ' + str('platformdirs' in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("SCRAB_DATA_DIR", "XDG_DATA_HOME")}
    env.update(HOME="relative-home", SCRAB_CACHE_DIR=str(session_cache))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("PLATFORMDIRS False"), done.stderr

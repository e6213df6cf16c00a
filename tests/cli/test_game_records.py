"""Records carry their rules (issue #24): `review`, and `solve`/`play`/`explain` on a record,
take the rule set and the word list the record names unless told otherwise, show its
`#id`, and print the warnings that explain an error before the error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "formats" / "gcg"


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


@pytest.fixture(scope="module")
def wwf_record(tmp_path_factory, full_lexicon) -> Path:
    """A WwF self-play game as scrab writes it (``#game-type wwf``, ``#lexicon kjxqz``)."""
    folder = tmp_path_factory.mktemp("wwf-games")
    made = CliRunner().invoke(
        cli, ["selfplay", "--games", "1", "--seed", "3", "--rules", "wwf", "--save-games", str(folder)]
    )
    assert made.exit_code == 0, made.output
    return folder / "game-0001.gcg"


def invoke(runner, *args):
    result = runner.invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def warnings(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("Warning:")]


def test_scrab_writes_the_rule_set_and_the_word_list_as_pragmas(wwf_record):
    header = wwf_record.read_text().splitlines()[:7]
    assert "#game-type wwf" in header and "#lexicon kjxqz" in header


def test_review_takes_the_records_rules(runner, wwf_record):
    result = invoke(runner, "review", wwf_record, "--json")
    assert json.loads(result.stdout)["rules"] == "wwf"
    assert warnings(result) == []


def test_older_records_name_their_rules_in_the_description_only(runner, wwf_record, tmp_path):
    old = tmp_path / "old.gcg"
    lines = wwf_record.read_text().splitlines(keepends=True)
    old.write_text("".join(line for line in lines if not line.startswith(("#game-type", "#lexicon"))))
    assert "rules wwf, lexicon kjxqz" in old.read_text()
    result = invoke(runner, "review", old, "--json")
    assert json.loads(result.stdout)["rules"] == "wwf" and warnings(result) == []


def test_an_explicit_rules_option_wins_over_the_record(runner, wwf_record):
    result = invoke(runner, "review", wwf_record, "--rules", "scrabble", "--json")
    data = json.loads(result.stdout)
    assert data["rules"] == "scrabble"
    # WwF scores read under Scrabble's rules: the warnings the issue saw without the pragma.
    assert any("under the scrabble rules" in p["message"] for p in data["problems"])


def test_rules_scrab_does_not_know_are_one_warning_and_the_default(runner, wwf_record, tmp_path):
    record = tmp_path / "smog.gcg"
    record.write_text(wwf_record.read_text().replace("#game-type wwf", "#game-type wordsmog"))
    result = invoke(runner, "solve", record, "--turn", "1", "--json")
    assert json.loads(result.stdout)["rules"] == "scrabble"
    assert warnings(result) == [
        f"Warning: {record}, line 5: the record names the rule set 'wordsmog', which scrab does not know; "
        "using scrabble (give --rules to choose)"
    ]


@pytest.mark.parametrize(
    ("game_type", "rules"),
    [("classic", "scrabble"), ("CLASSIC", "scrabble"), ("WWF", "wwf"), ("classic_super", "super")],
)
def test_game_types_other_tools_write(runner, tmp_path, game_type, rules):
    record = tmp_path / "game.gcg"
    record.write_text(f"#player1 a A\n#player2 b B\n#game-type {game_type}\n")  # no move: any board will do
    result = invoke(runner, "solve", record, "--turn", "1", "--rack", "QI", "--json")
    assert json.loads(result.stdout)["rules"] == rules


def test_solve_play_and_explain_read_a_turn_under_the_records_rules(runner, wwf_record):
    data = json.loads(invoke(runner, "solve", wwf_record, "--turn", "2", "--json").stdout)
    assert data["rules"] == "wwf"
    best = data["moves"][0]
    played = json.loads(
        invoke(runner, "play", wwf_record, best["position"], best["notation"], "--turn", "2", "--json").stdout
    )
    assert played["score"] == best["score"]  # scored with WwF's values and layout, as solve did
    explained = invoke(runner, "explain", wwf_record, "--turn", "2", "1")
    assert f"{best['score']}" in explained.stdout


def test_the_records_id_is_in_the_review(runner):
    record = DATA / "woogles.gcg"
    data = json.loads(invoke(runner, "review", record, "--json").stdout)
    assert data["id"] == "io.woogles 4kQ7mZr"
    assert f"{record} (#id io.woogles 4kQ7mZr):" in invoke(runner, "review", record).stdout
    assert json.loads(invoke(runner, "review", DATA / "quackle.gcg", "--json").stdout)["id"] is None


WITHDRAWN_BY_THE_WRONG_PLAYER = """\
#player1 alice Alice Smith
#player2 bob Bob Jones
>alice: AEEEOW? 8D WEAvE +22 22
>bob: LOTEXYZ G8 .OLT +4 4
>alice: AEEKORS -- -4 18
>bob: LOTEXYZ G8 .OLE +4 8
"""


@pytest.mark.parametrize("command", [["review"], ["solve", "--turn", "2"]])
def test_a_warning_that_explains_the_error_comes_before_it(runner, tmp_path, command):
    """The `--` is bob's withdrawal given to alice: nothing comes off the board, so bob's next
    play meets his own T. The warning saying so is printed, and before the error."""
    record = tmp_path / "withdrawn.gcg"
    record.write_text(WITHDRAWN_BY_THE_WRONG_PLAYER)
    result = runner.invoke(cli, [command[0], str(record), *command[1:]])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"Warning: {record}, line 5: '--' takes back the play before it, but the event before is not a play "
        "by alice: nothing was taken off the board",
        f"Warning: {record}, line 6: bob moves twice in a row",
        f"Error: {record}, line 6: G8 .OLE does not fit the board: square G11 holds T, not E",
    ]


def test_a_record_never_makes_scrab_read_a_rule_file(runner, tmp_path):
    rules_file = tmp_path / "mine.toml"
    rules_file.write_text((ROOT / "solver_cli" / "data" / "rules" / "wwf.toml").read_text().replace('"wwf"', '"mine"'))
    record = tmp_path / "game.gcg"
    record.write_text(f"#player1 a A\n#player2 b B\n#game-type {rules_file}\n")
    result = invoke(runner, "solve", record, "--rack", "QI", "--json")
    assert json.loads(result.stdout)["rules"] == "scrabble"
    assert warnings(result) == [
        f"Warning: {record}, line 3: the record names the rule set '{rules_file}', which scrab does not know; "
        "using scrabble (give --rules to choose)"
    ]

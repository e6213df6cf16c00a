"""Options that conflict or mean nothing, names in any case, empty arguments, ranks, errors
under --json, and --version: through Click's CliRunner, as a user or a script meets them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli import __version__
from solver_cli.cli import all_commands, cli

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "boards"
MIDGAME = str(BOARDS / "midgame.txt")
EXAMPLE_GCG = "boards/example.gcg"  # relative: the tests that read it run from ROOT
OPENING = str(BOARDS / "opening.txt")


@pytest.fixture(scope="module")
def runner(full_lexicon):  # the default list, built once into the test cache
    return CliRunner()


def one_error_line(result, code: int = 2) -> str:
    """The run failed with ``code``, nothing on stdout, one ``Error:`` line last on stderr."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("Error: "), lines
    return lines[-1]


# --------------------------------------------------------------------------- conflicts


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--move", "2"], "--move applies only with --show-board"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--json", "--show-board"], "--json cannot be used with --show-board"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--json", "--svg", "x.svg"], "--json cannot be used with --svg"),
        (["solve", MIDGAME, "--rack", "A?", "--json", "--no-fold-blanks"], "--json cannot be used with --no-fold"),
        (["solve", MIDGAME, "--rack", "A?", "--json", "--fold-blanks"], "--json cannot be used with --fold-blanks"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--must-use", "Z"], "--must-use Z: the rack AEINRST lacks Z"),
        (["solve", MIDGAME, "--rack", "ZA", "--must-use", "ZZ?"], "--must-use ZZ?: the rack AZ lacks Z?"),
        (["solve", MIDGAME, "--rack", ""], "rack is empty"),
        (["anagram", "RETAINS", "--top", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["pattern", "Q?", "--top", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["hooks", "--letter", "E", "--rack", "ST", "--top", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["boggle", "ABCD/EFGH/IJKL/MNOP", "--size", "5"], "--size applies only with --random"),
        (["boggle", "ABCD/EFGH/IJKL/MNOP", "--seed", "5"], "--seed applies only with --random"),
        (["play", OPENING, "8D", "FORMATS", "--rack", ""], "rack is empty"),
        (["play", OPENING, "8D", "FORMATS", "--json", "--cgp"], "--cgp with --json applies only with -o"),
    ],
)
def test_conflicting_or_meaningless_options_are_usage_errors(runner, tmp_path, args, message):
    result = runner.invoke(cli, args)
    line = one_error_line(result)
    assert message in line, line


def test_must_use_error_names_what_the_rack_lacks(runner):
    line = one_error_line(runner.invoke(cli, ["solve", MIDGAME, "--rack", "ZA", "--must-use", "ZZ?"]))
    assert line == "Error: --must-use ZZ?: the rack AZ lacks Z?"
    # what the rack holds is fine, in any case, and gives moves that use it
    data = json.loads(runner.invoke(cli, ["solve", MIDGAME, "--rack", "ZA", "--must-use", "z", "--json"]).stdout)
    assert data["moves"] and all(any(t["letter"] == "Z" for t in m["placed"]) for m in data["moves"])


def test_move_out_of_range_prints_nothing_before_the_error(runner):
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--show-board", "--move", "5000"])
    # as the title counts: 1,470 plays, 127 exchanges and the pass
    assert one_error_line(result) == "Error: --move 5000: there are only 1,598 moves"
    filtered = ["solve", MIDGAME, "--rack", "RETAINS", "--min-length", "7", "--show-board", "--move", "5000"]
    assert (
        one_error_line(runner.invoke(cli, filtered))
        == "Error: --move 5000: there are only 35 moves matching the filters"
    )
    one = ["solve", MIDGAME, "--rack", "RETAINS", "--word", "NASTIER", "--at", "N8", "--show-board", "--move", "2"]
    assert one_error_line(runner.invoke(cli, one)) == "Error: --move 2: there is only 1 move matching the filters"


def test_move_in_range_highlights_that_move(runner):
    data = json.loads(runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--json"]).stdout)
    third = data["moves"][2]
    out = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--show-board", "--move", "3"])
    assert out.exit_code == 0, out.stderr
    assert f"{third['position']} {third['notation']} {third['score']}" in out.stdout.splitlines()[-1]


def test_play_with_an_empty_rack_used_to_skip_the_rack_check(runner):
    ok = runner.invoke(cli, ["play", OPENING, "8D", "FORMATS"])
    assert ok.exit_code == 0  # no --rack: no rack check
    one_error_line(runner.invoke(cli, ["play", OPENING, "8D", "FORMATS", "--rack", ""]))


# --------------------------------------------------------------------------- names and empty arguments


@pytest.mark.parametrize("spelling", ["WWF", "Wwf", "wwf"])
def test_rule_set_names_in_any_case(runner, spelling):
    args = ["solve", str(BOARDS / "wwf-midgame.txt"), "--rack", "QUIZERS", "--top", "3", "--json"]
    data = json.loads(runner.invoke(cli, [*args, "--rules", spelling]).stdout)
    assert data["rules"] == "wwf"
    assert data == json.loads(runner.invoke(cli, [*args, "--rules", "wwf"]).stdout)


@pytest.mark.parametrize("spelling", ["KJXQZ", "Kjxqz"])
def test_lexicon_names_in_any_case(runner, spelling):
    data = json.loads(runner.invoke(cli, ["check", "QI", "--lexicon", spelling, "--json"]).stdout)
    assert data["lexicon"] == "kjxqz" and data["all_valid"] is True


def test_a_path_is_used_as_given(runner, tmp_path, monkeypatch):
    """Only shipped names ignore case: a rules path in another case is another file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.toml").write_text((ROOT / "solver_cli/data/rules/wwf.toml").read_text())
    ok = runner.invoke(cli, ["anagram", "QI", "--rules", "mine.toml", "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["total"] == 1
    assert "MINE.toml" in one_error_line(runner.invoke(cli, ["anagram", "QI", "--rules", "MINE.toml"]))


def test_empty_names_say_what_is_empty(runner):
    line = one_error_line(runner.invoke(cli, ["solve", MIDGAME, "--rack", "AB", "--rules", ""]))
    assert line == "Error: empty rule-set name: give a shipped rule set (scrabble, super, wwf) or a .toml file"
    for command in (["solve", "", "--rack", "AB"], ["play", "", "8D", "FORMATS"], ["explain", "", "--rack", "A", "1"]):
        line = one_error_line(runner.invoke(cli, command))
        assert line.startswith("Error: the board argument is empty"), line
    assert "empty word-list name" in one_error_line(runner.invoke(cli, ["check", "QI", "--lexicon", ""]))


# --------------------------------------------------------------------------- explain's ranks


@pytest.mark.parametrize(
    "rank, message",
    [
        ("0", "rank 0: ranks start at 1"),
        ("00", "rank 00: ranks start at 1"),
        ("²", "bad move '²'"),  # str.isdigit() is true for it; it is no rank
        ("١", "bad move '١'"),  # an Arabic-Indic digit one
        ("9" * 5000, "is too large"),
        ("1599", "there is no move ranked 1599 (the list has 1598)"),
    ],
)
def test_explain_ranks_are_parsed_strictly(runner, rank, message):
    line = one_error_line(runner.invoke(cli, ["explain", MIDGAME, "--rack", "RETAINS", rank]))
    assert message in line and len(line) < 200, line


def test_explain_rank_is_the_json_rank(runner):
    data = json.loads(runner.invoke(cli, ["solve", MIDGAME, "--rack", "AEIRST?", "--top", "3", "--json"]).stdout)
    third = data["moves"][2]
    result = runner.invoke(cli, ["explain", MIDGAME, "--rack", "AEIRST?", "003", "--json"])
    assert result.exit_code == 0, result.stderr
    trace = json.loads(result.stdout)
    assert trace["position"] == third["position"] and trace["score"] == third["score"]


# --------------------------------------------------------------------------- errors under --json

# Every command with --json, given bad input: exit 2, the error on stderr, stdout empty (no
# JSON error object: a script checks the exit status, as for any other failure).
JSON_BAD_INPUT = {
    "solve": ["solve", MIDGAME, "--rack", "AB1"],
    "play": ["play", OPENING, "8D", "FORMATS", "--rack", "AB1"],
    "explain": ["explain", MIDGAME, "--rack", "RETAINS", "0"],
    "infer": ["infer", OPENING, "--rack", "AEIRST?", "--last-play", "exchange 8"],
    "endgame": ["endgame", MIDGAME, "--rack", "RETAINS"],  # tiles in the bag: no endgame
    "hooks": ["hooks", "Q1"],
    "anagram": ["anagram", "ABCDEFGH"],
    "pattern": ["pattern", ""],
    "check": ["check", "Q1"],
    "selfplay": ["selfplay", "--games", "1", "--rules", "chess"],
    "sim": ["sim", MIDGAME, "--rack", "AB1"],
    "boggle": ["boggle", "ABCD/E1GH/IJKL/MNOP"],
    "bench": ["bench", "--lexicon", "no-such-list"],
    "review": ["review", "no-such-game.gcg"],
    "peg": ["peg", MIDGAME, "--rack", "RETAINS"],  # a bag of 61 tiles
    "cache": ["cache", "no-such-subcommand"],
    "lexicons": ["lexicons", "--rules", "chess"],
}
# ... and a failed check: exit 1, the same streams.
JSON_FAILED_CHECK = {
    "play": ["play", OPENING, "9D", "ZA"],
    "explain": ["explain", OPENING, "--rack", "ZA", "9D", "ZA"],
    "infer": ["infer", OPENING, "--rack", "AEIRST?", "--last-play", "9D ZA"],
}


def test_every_command_with_json_is_covered():
    with_json = {name for name, command in all_commands().items() if any(p.name == "as_json" for p in command.params)}
    assert with_json == set(JSON_BAD_INPUT)


@pytest.mark.parametrize("name", sorted(JSON_BAD_INPUT))
def test_json_errors_go_to_stderr_and_leave_stdout_empty(runner, name):
    one_error_line(runner.invoke(cli, [*JSON_BAD_INPUT[name], "--json"]), code=2)
    if name in JSON_FAILED_CHECK:
        line = one_error_line(runner.invoke(cli, [*JSON_FAILED_CHECK[name], "--json"]), code=1)
        assert "illegal move" in line


def test_json_usage_errors_too(runner):
    result = runner.invoke(cli, ["solve", MIDGAME, "--json"])  # no rack
    assert result.exit_code == 2 and result.stdout == "" and "Missing option '--rack'" in result.stderr


# --------------------------------------------------------------------------- --version


def test_version(runner):
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"scrab, version {__version__}\n"
    assert __version__.count(".") >= 1 and __version__[0].isdigit()


# --------------------------------------------------------------------------- hooks through a blank


def test_hooks_letter_takes_a_blank_on_the_board(runner):
    """--letter e: the board's E is a blank (lowercase, as in a board file): same words as
    through a natural E, that square shown lowercase and worth 0 instead of 1."""
    args = ["hooks", "--rack", "ST?", "--max-length", "4", "--all", "--json"]
    natural = json.loads(runner.invoke(cli, [*args, "--letter", "E"]).stdout)
    blank = json.loads(runner.invoke(cli, [*args, "--letter", "e"]).stdout)
    # TEeS and TeES (natural E on the board at 1 or at 2) are both TeeS through a blank
    assert blank["letters"] == "e" and 20 < blank["total"] <= natural["total"]
    expected = set()
    for w in natural["words"]:
        for at in w["board_at"]:
            display = w["display"][:at] + w["display"][at].lower() + w["display"][at + 1 :]
            expected.add((w["word"], display, w["score"] - 1))
    got = {(w["word"], w["display"], w["score"]) for w in blank["words"]}
    assert got == expected
    table = runner.invoke(cli, ["hooks", "--letter", "e", "--rack", "ST?", "--top", "3"]).stdout
    assert "through e for rack ST?" in table


# --------------------------------------------------------------------------- every exit-2 error is one line


def usage_error(result) -> str:
    """A usage error: exit 2, stdout empty, one Error: line (no Click usage block) that ends
    with a pointer to the command's --help."""
    line = one_error_line(result)
    assert result.stderr.strip().splitlines() == [line], result.stderr
    assert re.search(r" \(see '\S+( \S+)* --help'\)$", line), line
    return line


def bad_input(result) -> str:
    """Bad input: exit 2, stdout empty, one Error: line naming the value, no pointer."""
    line = one_error_line(result)
    assert result.stderr.strip().splitlines() == [line], result.stderr
    assert "--help'" not in line, line
    return line


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", MIDGAME, "--rack", "RETAINS", "-n", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["anagram", "RETAINS", "-n", "3", "--all"], "--top (-n) cannot be used with --all"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--move", "2"], "--move applies only with --show-board"),
        (["solve", MIDGAME], "Missing option '--rack': the board gives no rack"),
        (
            ["solve", EXAMPLE_GCG, "--turn", "12"],
            "turn 12 of boards/example.gcg (line 20) is a challenge bonus, not a move: it has no rack to solve",
        ),
        (
            ["solve", EXAMPLE_GCG, "--turn", "29"],
            "turn 29 of boards/example.gcg (line 37) is the points for going out, not a move",
        ),
        (  # (a rack given does not make the line a move: the phony is still on the board there)
            ["peg", EXAMPLE_GCG, "--turn", "8", "--rack", "AEIOU"],
            "Error: turn 8 of boards/example.gcg (line 15) is a withdrawn phony, not a move: it has no rack to solve "
            "(the next move is turn 9)",
        ),
        (["solve"], "Missing argument 'BOARD'"),
        (["solve", MIDGAME, "--rack", "A", "--bogus"], "No such option '--bogus'"),
        (["hooks", "--rack", "ST", "CARE"], "--rack applies only with --letter"),
        (["hooks", "--letter", "E"], "--letter needs --rack"),
        (["hooks"], "give one or more WORDs"),
        (["boggle", "ABCD/EFGH/IJKL/MNOP", "--size", "5"], "--size applies only with --random"),
        (["nosuch"], "No such command 'nosuch'"),
        (["--bogus"], "No such option '--bogus'"),
        (["cache", "clear", "--bogus"], "No such option '--bogus'"),
        (["solve", MIDGAME, "--rack", "A", "extra"], "Got unexpected extra argument (extra)"),
    ],
)
def test_usage_errors_point_at_help(runner, args, message, monkeypatch):
    monkeypatch.chdir(ROOT)  # so the record's name reads as in the message
    """Which options and arguments are given: one line with a pointer to --help, whoever
    finds it (Click's own checks printed a usage block, scrab's a bare line)."""
    assert message in usage_error(runner.invoke(cli, args))


POSITION_COMMANDS = ["solve", "explain", "sim", "peg", "endgame"]


@pytest.mark.parametrize("command", POSITION_COMMANDS)
def test_every_command_that_reads_a_position_finds_its_rack_alike(runner, command, monkeypatch):
    """solve, explain, sim, peg and endgame read the position and its rack with one helper
    (cli._game.read_game): the same message for the same missing or empty rack."""
    monkeypatch.chdir(ROOT)

    def run(position: str, *more: str):
        return runner.invoke(cli, [command, position, *more, *(["1"] if command == "explain" else [])])

    assert "Missing option '--rack': the board gives no rack" in usage_error(run(MIDGAME))
    challenge = usage_error(run(EXAMPLE_GCG, "--turn", "12"))
    assert (
        "turn 12 of boards/example.gcg (line 20) is a challenge bonus, not a move: it has no rack to solve" in challenge
    )
    empty = one_error_line(run(MIDGAME, "--rack", ""))
    assert empty == "Error: --rack is empty: give its letters, e.g. --rack 'AEIRST?' (? is a blank)"


@pytest.mark.parametrize(
    "args, line",
    [
        # Click's parser raises these without the command's context: they pointed at `scrab --help`
        (
            ["solve", MIDGAME, "--rack"],
            "Error: Option '--rack' requires an argument (see 'scrab solve --help')",
        ),
        (["check", "QI", "--json=yes"], "Error: Option '--json' does not take a value (see 'scrab check --help')"),
        (
            ["leaves", "train", "out.leaves", "--rules"],
            "Error: Option '--rules' requires an argument (see 'scrab leaves train --help')",
        ),
        (["cache", "list", "--json=1"], "Error: Option '--json' does not take a value (see 'scrab cache list --help')"),
        (["--version=1"], "Error: Option '--version' does not take a value (see 'scrab --help')"),
        # ... and those that had it
        (["leaves", "show"], "Error: Missing argument 'LEAVE...' (see 'scrab leaves show --help')"),
        (["cache", "nosuch"], "Error: No such command 'nosuch' (see 'scrab cache --help')"),
    ],
)
def test_usage_errors_name_the_commands_own_help(runner, args, line):
    assert usage_error(runner.invoke(cli, args, prog_name="scrab")) == line


# Every command and subcommand, written out: the test below holds it equal to what the CLI has.
COMMAND_PATHS = {
    "solve",
    "play",
    "explain",
    "infer",
    "endgame",
    "review",
    "peg",
    "hooks",
    "anagram",
    "pattern",
    "check",
    "selfplay",
    "sim",
    "boggle",
    "bench",
    "cache",
    "cache list",
    "cache clear",
    "leaves",
    "leaves show",
    "leaves train",
    "lexicons",
    "winpct",
    "winpct show",
    "winpct train",
}


@pytest.mark.parametrize("path", sorted(COMMAND_PATHS))
def test_every_command_points_at_its_own_help(runner, path):
    line = usage_error(runner.invoke(cli, [*path.split(), "--no-such-option"], prog_name="scrab"))
    assert line.endswith(f"(see 'scrab {path} --help')"), line


def test_every_command_is_in_that_list():
    names = set()
    for name, command in all_commands().items():
        names.add(name)
        if isinstance(command, click.Group):
            names.update(f"{name} {sub}" for sub in command.commands)
    assert names == COMMAND_PATHS


# --------------------------------------------------------------------------- --rules given what it is not


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["solve", MIDGAME, "-r", "AEIRST"],
            "Error: unknown rule set 'AEIRST' (shipped: scrabble, super, wwf); did you mean --rack? "
            "(-r is short for --rules)",
        ),
        (
            ["play", OPENING, "8D", "FORMATS", "--rules", "sq?"],
            "Error: unknown rule set 'sq?' (shipped: scrabble, super, wwf); did you mean --rack? "
            "(-r is short for --rules)",
        ),
        (
            ["check", "QI", "-r", "sowpods"],
            "Error: unknown rule set 'sowpods' (shipped: scrabble, super, wwf); did you mean --lexicon? "
            "(sowpods is a word list)",
        ),
        # a name, not letters in capitals: the library's own line
        (
            ["solve", MIDGAME, "-r", "chess"],
            "Error: unknown rule set 'chess' (shipped: scrabble, super, wwf; or give a .toml path)",
        ),
        # anagram takes no --rack: the library's own line
        (
            ["anagram", "QI", "-r", "AEIRST"],
            "Error: unknown rule set 'AEIRST' (shipped: scrabble, super, wwf; or give a .toml path)",
        ),
        (
            ["solve", MIDGAME, "--rack", "A", "--rules", MIDGAME],
            f"Error: {MIDGAME} is a board file, not a rule file "
            "(give a shipped rule set (scrabble, super, wwf) or a .toml file)",
        ),
        (
            ["solve", MIDGAME, "--rack", "A", "--rules", str(ROOT / EXAMPLE_GCG)],
            f"Error: {ROOT / EXAMPLE_GCG} is a GCG game record, not a rule file "
            "(give a shipped rule set (scrabble, super, wwf) or a .toml file)",
        ),
    ],
)
def test_rules_given_a_rack_a_word_list_or_a_board_says_so(runner, args, line):
    assert bad_input(runner.invoke(cli, args)) == line


def test_a_rules_file_that_is_broken_toml_is_still_reported_as_such(runner, tmp_path):
    bad = tmp_path / "mine.toml"
    bad.write_text("layout = [\n")
    line = bad_input(runner.invoke(cli, ["check", "QI", "--rules", str(bad)]))
    assert line.startswith(f"Error: {bad}: not valid TOML"), line


# --------------------------------------------------------------------------- --at in either notation


def test_at_takes_a_square_in_either_order(runner):
    args = ["solve", MIDGAME, "--rack", "RETAINS", "--all", "--json", "--rank", "score"]
    square = json.loads(runner.invoke(cli, [*args, "--at", "N8"]).stdout)
    move = json.loads(runner.invoke(cli, [*args, "--at", "8n"]).stdout)
    assert square["moves"] == move["moves"] and square["moves"][0]["position"] == "N8"
    line = bad_input(runner.invoke(cli, [*args, "--at", "8"]))
    assert line == "Error: --at: bad square '8' (expected a column letter and a row number, e.g. H8 or 8H)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", MIDGAME, "--rack", ""], "Error: --rack is empty"),
        (["solve", MIDGAME, "--rack", "AB1"], "Error: rack 'AB1': bad character '1'"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--must-use", "Z"], "Error: --must-use Z: the rack AEINRST lacks Z"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--top", "0"], "Error: Invalid value for '--top' / '-n': 0 is not"),
        (["solve", MIDGAME, "--rack", "RETAINS", "--sort", "x"], "Error: Invalid value for '--sort': 'x' is not one"),
        (["solve", "", "--rack", "AB"], "Error: the board argument is empty"),
        (["review", ""], "Error: the game-record argument is empty"),
        (["bench", "--runs", "0"], "Error: Invalid value for '--runs'"),
        (["cache", "clear", "--json", "--json"], None),  # a flag given twice is fine: no error at all
    ],
)
def test_bad_values_are_one_error_line(runner, args, message, tmp_path, monkeypatch):
    """What a value says (out of range, empty, bad letters): the Error: line alone, Click's
    own checks included (they printed a usage block)."""
    if args[0] == "cache":  # `cache clear` clears a folder of its own, not the session's lexicons
        monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    result = runner.invoke(cli, args)
    if message is None:
        assert result.exit_code == 0, result.stderr
        return
    assert bad_input(result).startswith(message)


def test_empty_must_use_is_refused(runner):
    """It used to be ignored: every move listed, as though no filter had been given."""
    line = bad_input(runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--must-use", ""]))
    assert line == "Error: --must-use is empty: give the rack tiles every move must play, e.g. --must-use '?' (a blank)"
    assert bad_input(runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--must-use", "  "])) == line


@python_engine_in_soak()  # it builds a word list: the twin's builder takes 7 s
def test_must_use_tiles_the_rack_lacks_are_refused_before_the_word_list_is_built(runner, tmp_path, monkeypatch):
    """A slip is said at once: building a big word list's GADDAG on first use takes a while."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(cache))
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--must-use", "ZZ"])
    assert bad_input(result) == "Error: --must-use ZZ: the rack AEINRST lacks ZZ"
    assert not cache.exists() or not any(cache.rglob("*.*"))  # no lexicon built or cached
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--must-use", "TS", "--json"])
    assert result.exit_code == 0 and any(cache.rglob("*.*"))  # (a filter the rack can meet: built)


@pytest.mark.parametrize(
    "args, line",
    [
        (
            ["review", ""],
            "Error: the game-record argument is empty: give a GCG file, or - for standard input",
        ),
        (["review", str(ROOT / "boards" / "example.gcg"), "--player", " "], "Error: --player is empty"),
        (
            ["anagram", ""],
            "Error: the rack argument is empty: give its letters, e.g. scrab anagram 'AEIRST?' (? is a blank)",
        ),
        (
            ["boggle", " "],
            "Error: the grid is empty: give a grid file, - for standard input, or rows of letters "
            "separated by '/', e.g. ABCD/EFGH/IJKL/MNQuP",
        ),
    ],
)
def test_empty_arguments_say_they_are_empty(runner, args, line):
    got = bad_input(runner.invoke(cli, args))
    assert got.startswith(line), got
    assert ";" not in got and "directory" not in got


def test_solve_help_says_the_rack_is_an_option(runner):
    text = " ".join(runner.invoke(cli, ["solve", "--help"]).stdout.split())
    assert "Every legal move for the rack (--rack) on the board BOARD" in text
    assert "for RACK" not in text


@pytest.mark.parametrize(
    "args",
    [
        ["solve", MIDGAME, "--rack", ""],
        ["explain", MIDGAME, "--rack", " ", "1"],
        ["play", OPENING, "8D", "FORMATS", "--rack", ""],
        ["hooks", "--letter", "E", "--rack", ""],
        ["pattern", "Q?", "--rack", ""],
    ],
)
def test_empty_rack_option_is_one_line_with_a_quoted_example(runner, args):
    line = bad_input(runner.invoke(cli, args))
    assert line == "Error: --rack is empty: give its letters, e.g. --rack 'AEIRST?' (? is a blank)"


def test_scrab_alone_prints_the_help(runner):
    """Not an error line: with no command, the list of commands (Click's exit status 2)."""
    result = runner.invoke(cli, [])
    assert "Commands:" in result.output and "solve" in result.output and "Error:" not in result.output

"""Ranking by equity on the command line (issue #14): `scrab solve` ranks by score plus the
leave's value by default, lists exchanges and the pass, and says which table it used;
`--rank score` gives the old order; `--leaves FILE` another table; `scrab explain` ranks as
solve does. (The table is the stand-in of conftest.py, never the shipped values.)"""

from __future__ import annotations

import itertools
import json
from array import array
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.cli.render import tenths
from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.leaves import NOT_OUT_PENALTY, TABLE_SIZE, LeaveTable
from solver_cli.engine.movegen import generate_moves, rank_key
from solver_cli.engine.rules import load_rules
from solver_cli.formats import leavefile
from solver_cli.formats.boardfile import parse_board
from solver_cli.formats.leavefile import write_leaves

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "boards"
MIDGAME = str(BOARDS / "midgame.txt")
EMPTY = str(BOARDS / "empty.txt")
EXAMPLE = str(BOARDS / "example.gcg")
SCRABBLE = load_rules("scrabble")


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def solve(runner, *args):
    result = runner.invoke(cli, ["solve", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def thousandths(points):
    return round(points * 1000)


@pytest.fixture(scope="module")
def flat_file(tmp_path_factory) -> Path:
    """A table worth 5 points for every leave of up to six tiles."""
    path = tmp_path_factory.mktemp("leaves") / "flat.leaves"
    write_leaves(
        path, LeaveTable(array("h", [500]) * TABLE_SIZE), {"rules": "scrabble", "lexicon": "x", "rack_size": 7}
    )
    return path


# --------------------------------------------------------------------------- the ranking


@pytest.mark.parametrize("rack", ["RETAINS", "AEIRST?", "UUVWQIO"])
def test_equity_is_score_plus_leave_value_and_orders_the_list(runner, rack):
    data = solve(runner, MIDGAME, "--rack", rack, "--all")
    assert (data["ranking"], data["leaves"]) == ("equity", "scrabble-kjxqz")
    moves = data["moves"]
    assert len(moves) == data["total_moves"]
    for m in moves:
        assert thousandths(m["equity"]) == 1000 * m["score"] + thousandths(m["leave_value"]), m
    equities = [thousandths(m["equity"]) for m in moves]
    assert equities == sorted(equities, reverse=True)
    # not the score order: the leave values change it
    scores = [m["score"] for m in moves if m["kind"] == "place"]
    assert scores != sorted(scores, reverse=True)
    # the best move alone (one native call) is the first of the full list
    assert solve(runner, MIDGAME, "--rack", rack, "--top", "1")["moves"] == moves[:1]


def test_rank_score_is_the_old_order_with_exchanges_and_the_pass_last(runner, full_lexicon):
    data = solve(runner, MIDGAME, "--rack", "AEIRST?", "--all", "--rank", "score")
    assert (data["ranking"], data["leaves"]) == ("score", None)
    moves = data["moves"]
    board = parse_board(Path(MIDGAME).read_text(), SCRABBLE, "midgame")
    raw = sorted(generate_moves(board, parse_rack("AEIRST?", 7), full_lexicon.gaddag, SCRABBLE), key=rank_key)
    places = [m for m in moves if m["kind"] == "place"]
    assert moves[: len(places)] == places  # every placement first...
    assert [(m["score"], m["direction"] == "down", m["row"], m["col"]) for m in places] == [
        (r[0], r[1], r[3] if r[1] else r[2], r[2] if r[1] else r[3]) for r in raw
    ]
    others = moves[len(places) :]  # ...then the exchanges and the pass, worth 0
    assert len(others) == 2**7 - 1 + 1 and [m["kind"] for m in others].count("pass") == 1
    assert all(m["score"] == 0 and m["equity"] is None and m["leave_value"] is None for m in others)
    assert all(m["equity"] is None and m["leave_value"] is None for m in places)


def counts(tiles: str) -> list[int]:
    out = [0] * 27
    for ch in tiles:
        out[0 if ch == "?" else ord(ch) - 64] += 1
    return out


def test_exchanges_are_every_distinct_set_of_tiles(runner, stand_in_tables):
    """UUUVVWQ: 4 x 3 x 2 x 2 choices of how many of each, less throwing none: 47."""
    data = solve(runner, EMPTY, "--rack", "UUUVVWQ", "--all")
    exchanges = [m for m in data["moves"] if m["kind"] == "exchange"]
    tiles = "QUUUVVW"
    expected = {"".join(c) for k in range(1, 8) for c in itertools.combinations(tiles, k)}
    assert len(expected) == 47
    assert sorted(m["exchanged"] for m in exchanges) == sorted(expected)
    table = stand_in_tables["scrabble-kjxqz"]
    for m in exchanges:
        assert (m["position"], m["word"], m["placed"], m["row"], m["direction"]) == ("", "", [], None, None)
        assert sorted(m["leave"] + m["exchanged"]) == sorted(tiles)
        assert thousandths(m["leave_value"]) == table.value(counts(m["leave"]))
    passes = [m for m in data["moves"] if m["kind"] == "pass"]
    assert len(passes) == 1 and passes[0]["leave"] == tiles and "exchanged" not in passes[0]


def test_no_exchange_once_the_bag_is_too_small_and_the_end_of_game_values(runner):
    """Turn 27 of the example: alice holds QRT, bob LU, the bag is empty: no exchange, and
    instead of the table the end-of-game values: a move keeping tiles pays twice their
    value and 10 points."""
    data = solve(runner, EXAMPLE, "--turn", "27", "--all")
    kinds = [m["kind"] for m in data["moves"]]
    assert "exchange" not in kinds and kinds.count("pass") == 1
    values = {"Q": 10, "R": 1, "T": 1}
    for m in data["moves"]:
        kept = sum(values[ch] for ch in m["leave"])
        expected = -(2 * kept + NOT_OUT_PENALTY) if m["leave"] else 2 * 2  # bob's LU
        assert m["leave_value"] == expected, m
    mart = next(m for m in data["moves"] if m["notation"] == "(MAR)T" and m["position"] == "10A")
    assert mart["equity"] == 12 - 2 * 11 - NOT_OUT_PENALTY


# --------------------------------------------------------------------------- the table


def test_the_table_shows_leave_value_equity_and_the_kind_of_each_move(runner):
    args = ["solve", MIDGAME, "--rack", "UUVWQIO", "--all"]
    data = solve(runner, *args[1:])
    out = runner.invoke(cli, args, env={"COLUMNS": "160"}).stdout
    lines = out.splitlines()
    assert lines[0].startswith(f"{data['total_moves']:,} of {data['total_moves']:,} moves for IOQUUVW, by equity")
    assert "(scrabble-kjxqz leaves)" in lines[0]
    header = next(line for line in lines if "Pos" in line)
    assert [h.strip() for h in header.strip("┃").split("┃")] == [
        "#",
        "Pos",
        "Word",
        "Score",
        "Leave",
        "Value",
        "Equity",
        "Cross-words",
    ]
    rows = {int(cells[0]): cells for line in lines if line.startswith("│") for cells in [_cells(line)]}
    for m in data["moves"]:
        rank, position, word, score, leave, value, equity, _ = rows[m["rank"]]
        word_shown = {"place": m["notation"], "exchange": f"exchange {m.get('exchanged')}", "pass": "pass"}[m["kind"]]
        assert (position, word, score.split()[0]) == (m["position"] or "-", word_shown, str(m["score"]))
        assert (leave, value, equity) == (m["leave"] or "-", tenths(m["leave_value"], True), tenths(m["equity"]))
    by_score = runner.invoke(cli, [*args, "--rank", "score"], env={"COLUMNS": "160"}).stdout.splitlines()
    assert by_score[0].endswith("moves for IOQUUVW, by score  (scrabble, kjxqz)")
    header = next(line for line in by_score if "Pos" in line)
    assert "Leave" in header and "Value" not in header and "Equity" not in header


def _cells(line):
    return [c.strip() for c in line.strip("│").split("│")]


def test_equity_outlasts_the_other_columns_at_narrow_widths(runner):
    """At 60 columns the cross-words and the leave's value go first; below, they move under
    the row, and the equity, which orders the list, is the last to leave the row."""
    args = ["solve", MIDGAME, "--rack", "AEIRST?", "--top", "5"]
    wide = runner.invoke(cli, args, env={"COLUMNS": "60"}).stdout.splitlines()
    header = next(line for line in wide if "Pos" in line)
    assert "Equity" in header and "Blank as" in header and "Value" not in header and "Cross-words" not in header
    assert max(map(len, wide)) <= 60
    note = " ".join(line for line in wide if "Left out" in line or "terminal" in line)
    assert "Left out at this width: Leave, Value, Cross-words" in note
    narrow = runner.invoke(cli, args, env={"COLUMNS": "36"}).stdout.splitlines()
    assert max(map(len, narrow)) <= 36
    assert "equity" in " ".join(narrow)  # under the row, with its name


def test_tenths_add_up():
    assert [tenths(x) for x in (16.55, 85.0, -3.45, 0.049, 1234.5)] == ["16.6", "85.0", "-3.4", "0.0", "1,234.5"]
    assert tenths(20 + -3.45) == "16.6" and tenths(-3.45, signed=True) == "-3.4" and tenths(0, signed=True) == "+0.0"


def test_sort_score_orders_by_score_ties_by_equity(runner):
    moves = solve(runner, MIDGAME, "--rack", "UUVWQIO", "--sort", "score", "--all")["moves"]
    keys = [(-m["score"], -thousandths(m["equity"])) for m in moves]
    assert keys == sorted(keys)
    by_rank = solve(runner, MIDGAME, "--rack", "UUVWQIO", "--all")["moves"]
    assert sorted(_move_key(m) for m in moves) == sorted(_move_key(m) for m in by_rank)  # the same moves
    assert [_move_key(m) for m in moves] != [_move_key(m) for m in by_rank]  # in another order


def _move_key(m):
    return (m["kind"], m["position"], m["word"], m.get("exchanged", ""))


def test_filters_keep_placements_in_equity_order(runner):
    moves = solve(runner, MIDGAME, "--rack", "AEIRST?", "--max-length", "4", "--top", "30")["moves"]
    assert moves and all(m["kind"] == "place" and len(m["word"]) <= 4 for m in moves)
    equities = [thousandths(m["equity"]) for m in moves]
    assert equities == sorted(equities, reverse=True)
    # --min-score 0 is no placement filter: the exchanges and the pass stay
    kinds = {m["kind"] for m in solve(runner, MIDGAME, "--rack", "AEIRST?", "--min-score", "0", "--all")["moves"]}
    assert kinds == {"place", "exchange", "pass"}


def test_show_board_of_an_exchange_names_it(runner):
    data = solve(runner, MIDGAME, "--rack", "UUVWQIO", "--all")
    exchange = next(m for m in data["moves"] if m["kind"] == "exchange")
    args = ["solve", MIDGAME, "--rack", "UUVWQIO", "--all", "--show-board", "--move", str(exchange["rank"])]
    out = runner.invoke(cli, args).stdout.splitlines()
    assert out[-1].startswith(f"exchange {exchange['exchanged']}   [X] the move")


# --------------------------------------------------------------------------- which table


def test_leaves_file_changes_the_values(runner, flat_file):
    data = solve(runner, MIDGAME, "--rack", "RETAINS", "--all", "--leaves", str(flat_file))
    assert (data["ranking"], data["leaves"]) == ("equity", str(flat_file))
    default = solve(runner, MIDGAME, "--rack", "RETAINS", "--all")
    assert [m["leave_value"] for m in default["moves"]] != [m["leave_value"] for m in data["moves"]]
    for m in data["moves"]:
        assert m["leave_value"] == 5.0 and m["equity"] == m["score"] + 5  # every leave, even the pass's seven
    out = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "2", "--leaves", str(flat_file)])
    assert f"by equity (leaves from {flat_file})" in " ".join(out.stdout.split())
    assert out.stderr == ""


def test_leaves_file_for_other_rules_is_a_warning(runner, tmp_path):
    path = tmp_path / "wwf.leaves"
    write_leaves(path, LeaveTable.zeros(), {"rules": "wwf", "lexicon": "kjxqz", "rack_size": 7})
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "1", "--leaves", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"Warning: --leaves {path} holds leave values trained for wwf, not scrabble\n"
    json.loads(result.stdout)


def test_without_a_trained_table_the_note_is_a_warning(runner, monkeypatch):
    monkeypatch.setattr(leavefile, "shipped_tables", lambda: [])
    monkeypatch.setattr(leavefile, "shipped_leaves", lambda rules, lexicon: None)
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Warning: no leave values for scrabble: ranking by score")
    assert len(result.stderr.splitlines()) == 1
    data = json.loads(result.stdout)  # nothing but JSON on stdout
    assert data["leaves"] == "zero" and all(m["leave_value"] == 0 for m in data["moves"])
    table = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3"])
    assert "by equity (all leaves 0)" in " ".join(table.stdout.split())
    assert table.stderr.startswith("Warning: no leave values for scrabble")


def test_another_word_list_borrows_the_table_of_its_rules(runner, tmp_path):
    words = tmp_path / "mini.txt"
    words.write_text("QI\nZA\nAT\nTA\nCAT\nACT\n")
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "AT", "--lexicon", str(words), "--json"])
    assert result.exit_code == 0, result.output
    assert "Warning: no leave values trained for scrabble with mini; using those of scrabble-kjxqz" in result.stderr
    assert json.loads(result.stdout)["leaves"] == "scrabble-kjxqz"


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--rank", "score", "--leaves", "x.leaves"], 2, "--leaves applies only with --rank equity"),
        (["--leaves", ""], 2, "--leaves: the file name is empty"),
        (["--leaves", "/no/such.leaves"], 2, "cannot read leave file /no/such.leaves"),
        (["--leaves", MIDGAME], 2, "not a scrab leave file"),
        (["--rank", "best"], 2, "'best' is not one of 'equity', 'score'"),
    ],
)
def test_bad_ranking_options(runner, args, code, message):
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", *args])
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    last = result.stderr.strip().splitlines()
    assert message in result.stderr and any(line.startswith("Error: ") for line in last)


# --------------------------------------------------------------------------- explain


def test_explain_takes_solves_rank_in_either_ranking(runner):
    for rank_args in ([], ["--rank", "score"]):
        moves = solve(runner, MIDGAME, "--rack", "RETAINS", "--top", "4", *rank_args)["moves"]
        for m in moves:
            result = runner.invoke(cli, ["explain", MIDGAME, "--rack", "RETAINS", *rank_args, str(m["rank"]), "--json"])
            assert result.exit_code == 0, result.output
            trace = json.loads(result.stdout)
            assert (trace["position"], trace["score"]) == (m["position"], m["score"])


def test_explain_of_an_exchange_says_there_is_no_walk(runner):
    moves = solve(runner, MIDGAME, "--rack", "UUVWQIO", "--all")["moves"]
    exchange = next(m for m in moves if m["kind"] == "exchange")
    result = runner.invoke(cli, ["explain", MIDGAME, "--rack", "UUVWQIO", str(exchange["rank"])])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == (
        f"Error: the move ranked {exchange['rank']} is exchange {exchange['exchanged']}, which places no tile: "
        "there is no GADDAG walk to show"
    )

"""`scrab solve` beyond the move list, through the CLI: filters, sorting, unseen tiles,
warnings, the board view, CGP in and out, Super Scrabble and custom rule files."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from positions import placement, reference_args
from reference import reference_moves

from solver_cli.cli import cli
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import generate_moves
from solver_cli.engine.rules import load_rules
from solver_cli.formats.boardfile import parse_board
from solver_cli.lexicon.build import build_gaddag

BOARDS = Path(__file__).resolve().parents[2] / "boards"
MIDGAME = str(BOARDS / "midgame.txt")


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def run_json(runner, *args):
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def every_move(runner):
    return run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--all")["moves"]


def squares_of(move):
    dr, dc = (1, 0) if move["direction"] == "down" else (0, 1)
    return {(move["row"] + k * dr, move["col"] + k * dc) for k in range(len(move["word"]))}


def key(move):
    return (move["position"], move["word"])


@pytest.mark.parametrize(
    "args, keep",
    [
        (["--at", "N8"], lambda m: (7, 13) in squares_of(m)),
        (["--min-length", "6"], lambda m: len(m["word"]) >= 6),
        (["--max-length", "3"], lambda m: len(m["word"]) <= 3),
        (["--min-score", "30"], lambda m: m["score"] >= 30),
        (["--must-use", "ST"], lambda m: {"S", "T"} <= {t["letter"] for t in m["placed"]}),
        (["--word", "*AT?"], lambda m: re.fullmatch("[A-Z]*AT[A-Z]", m["word"].upper())),
        (
            ["--word", "R*", "--min-score", "10", "--max-length", "5"],
            lambda m: m["word"].upper().startswith("R") and m["score"] >= 10 and len(m["word"]) <= 5,
        ),
    ],
)
def test_filters_keep_exactly_the_matching_moves(runner, every_move, args, keep):
    data = run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--all", *args)
    # placement filters keep placements only (an exchange or the pass has no word)
    expected = {key(m) for m in every_move if m["kind"] == "place" and keep(m)}
    assert expected, "the filter should keep something on this board"
    assert {key(m) for m in data["moves"]} == expected
    assert data["matching_moves"] == len(expected) and data["total_moves"] == len(every_move)


def test_sort_by_length_and_tiles(runner):
    by_length = run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--sort", "length", "--top", "40")["moves"]
    lengths = [len(m["word"]) for m in by_length]
    assert lengths == sorted(lengths, reverse=True)
    by_tiles = run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--sort", "tiles", "--top", "40")["moves"]
    tiles = [len(m["placed"]) for m in by_tiles]
    assert tiles == sorted(tiles, reverse=True) and tiles[0] == 7
    for group in (by_length, by_tiles):  # ties keep the ranking's order: equity
        for a, b in zip(group, group[1:], strict=False):
            if (len(a["word"]), len(a["placed"])) == (len(b["word"]), len(b["placed"])):
                assert a["equity"] >= b["equity"]


def test_filter_errors(runner):
    for args, message in [
        (["--at", "Z99"], "--at: square 'Z99' is off the 15x15 board"),
        (["--word", "A-B"], "bad character '-'"),
        (["--min-length", "5", "--max-length", "3"], "--min-length 5 is more than --max-length 3"),
        (["--must-use", "Q1"], "bad character '1'"),
    ]:
        result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", *args])
        assert result.exit_code == 2 and message in result.stderr, (args, result.output)


def test_unseen_tiles_are_distribution_minus_board_and_rack(runner):
    data = run_json(runner, "solve", MIDGAME, "--rack", "AEIRST?", "--top", "1")
    rules = load_rules("scrabble")
    board = (BOARDS / "midgame.txt").read_text().splitlines()
    held = Counter(
        ch.upper() if ch.isupper() else "?" for line in board if not line.startswith("#") for ch in line if ch != "."
    )
    held.update("AEIRST?")
    letters = "?ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    expected = {ch: rules.counts[i] - held[ch] for i, ch in enumerate(letters) if rules.counts[i] - held[ch] > 0}
    unseen = data["unseen"]
    assert unseen["counts"] == expected
    assert unseen["total"] == sum(expected.values()) == 100 - sum(held.values())
    assert unseen["vowels"] == sum(n for ch, n in expected.items() if ch in "AEIOU")
    assert unseen["vowels"] + unseen["consonants"] + unseen["blanks"] == unseen["total"]
    table = runner.invoke(cli, ["solve", MIDGAME, "--rack", "AEIRST?", "--top", "1"]).stdout
    assert f"Unseen {unseen['total']} tiles" in table and unseen["tiles"] in table.replace("\n", "")


def write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_odd_boards_warn_but_still_solve(runner, tmp_path):
    rows = ["." * 15 for _ in range(15)]
    rows[2] = "..QXZ.........."  # not a word, not connected to the rest, off the centre
    rows[10] = "........ZZZ...."  # a second island, more Zs than the one in the set
    result = runner.invoke(cli, ["solve", write(tmp_path, "odd.txt", rows), "--rack", "AE", "--json"])
    assert result.exit_code == 0, result.output
    warnings = list(result.stderr.splitlines())
    assert all(w.startswith("Warning: ") for w in warnings)
    text = "\n".join(warnings)
    assert "no tile covers the centre square H8" in text
    assert "not connected to the rest of the board" in text
    assert "the word QXZ at 3C across is not in kjxqz" in text
    assert "board and rack hold 4 Zs, more than the 1 in the scrabble set" in text
    data = json.loads(result.stdout)
    assert data["warnings"] == [w[len("Warning: ") :] for w in warnings]
    assert data["unseen"]["overdrawn"] == [{"letter": "Z", "held": 4, "in_set": 1}]


def test_board_view_fits_80_columns_without_colour(runner, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    top = run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--top", "3")["moves"]
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--show-board", "--move", "2"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "\x1b[" not in out  # no colour codes
    assert all(len(line) <= 80 for line in out.splitlines())
    board_lines = [line for line in out.splitlines() if re.match(r"^[ \d]\d ", line) and len(line) >= 47]
    assert len(board_lines) == 15 and " A  B  C " in out
    bracketed = re.findall(r"\[([A-Za-z])\]", "\n".join(board_lines))
    second = top[1]
    assert bracketed == [t["letter"].lower() if t["blank"] else t["letter"] for t in second["placed"]]
    assert "3W" in out and "2L" in out and f"{second['position']} {second['notation']} {second['score']}" in out


def test_cgp_round_trip_through_solve(runner):
    first = run_json(runner, "solve", MIDGAME, "--rack", "RETAINS", "--top", "5", "--cgp")
    cgp = first["cgp"]
    assert cgp.startswith("15/11T3/6VERGLAs2/") and " AEINRST/ 0/0 0 lex kjxqz;" in cgp
    again = run_json(runner, "solve", cgp, "--top", "5")  # rack taken from the CGP
    assert again["rack"] == "AEINRST" and again["moves"] == first["moves"]


def test_cgp_of_a_record_turn_keeps_its_scores_and_scoreless_turns(runner):
    """boards/preendgame.gcg before turn 20: the player on turn has 368 against 383; the
    CGP carries them (it wrote 0/0, so peg on it played a spread of 0, not -15)."""
    record = "boards/preendgame.gcg"
    cgp = run_json(runner, "solve", record, "--turn", "20", "--top", "1", "--cgp")["cgp"]
    assert " AFIILOT/ 368/383 0 lex kjxqz;" in cgp
    assert run_json(runner, "solve", cgp, "--top", "1", "--cgp")["cgp"] == cgp  # read back the same
    quick = ["--top", "1", "--time-limit", "0.01"]  # (the spread is all that is compared)
    from_record = run_json(runner, "peg", record, "--turn", "20", *quick)
    assert from_record["spread"] == run_json(runner, "peg", cgp, *quick)["spread"] == -15


def test_cgp_file_and_wrong_size(runner, tmp_path):
    path = tmp_path / "pos.cgp"
    path.write_text("# a position\n15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 QI/ 0/0 0\n")
    data = run_json(runner, "solve", str(path))
    assert {m["word"] for m in data["moves"] if m["kind"] == "place"} == {"QI"}
    small = runner.invoke(cli, ["solve", "5/5/5/5/5 AB/ 0/0 0"])
    assert small.exit_code == 2 and "the CGP board is 5x5, the scrabble board is 15x15" in small.stderr


def test_super_scrabble_against_the_reference(small_words, small_gaddag):
    rules = load_rules("super")
    assert (rules.rows, rules.cols, rules.tile_total, rules.counts[0]) == (21, 21, 200, 4)
    words = set(small_words)
    board = Board.empty(rules)
    for _turn, rack_text in enumerate(["RETAINS", "QUIZ?ED", "AEIOU?S", "STRANGE"]):
        rack = [0] * 27
        for ch in rack_text:
            rack[0 if ch == "?" else ord(ch) - 64] += 1
        moves = generate_moves(board, rack, small_gaddag, rules)
        mine = {placement(board, d, li, st, co): s for s, d, li, st, co in moves}
        theirs = reference_moves(board.to_rows(), rack_text, words, **reference_args(rules))
        assert mine == theirs
        best = max(moves)
        for k, code in enumerate(best[4]):
            r, c = (best[3] + k, best[2]) if best[1] else (best[2], best[3] + k)
            board.squares[r * rules.cols + c] = code
    assert board.tile_count() > 10


def test_custom_rules_file(tmp_path, runner):
    rules_file = tmp_path / "mini.toml"
    rules_file.write_text(
        'name = "mini"\nrack_size = 5\nbingo_bonus = 20\ncentre = "C3"\n'
        'layout = ["T...T", ".q.Q.", "..D..", ".Q.q.", "T...T"]\n'
        "[tiles]\n"
        + "".join(f"{ch} = [2, {i % 5 + 1}]\n" for i, ch in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        + '"?" = [1, 0]\n'
    )
    rules = load_rules(str(rules_file))
    words = ["AT", "TA", "CAT", "ACT", "TACT", "SCAT", "CATS", "ACTS", "CAST", "CASTS"]
    gaddag = build_gaddag(sorted(words))
    board = parse_board(".....\n.....\n.CAT.\n.....\n.....\n", rules, "mini")
    rack = [0] * 27
    for ch in "STC?":
        rack[0 if ch == "?" else ord(ch) - 64] += 1
    mine = {placement(board, d, li, st, co): s for s, d, li, st, co in generate_moves(board, rack, gaddag, rules)}
    assert mine == reference_moves(board.to_rows(), "STC?", set(words), **reference_args(rules))
    assert mine  # e.g. CATS, SCAT, TACT...
    result = runner.invoke(
        cli, ["solve", "-", "--rules", str(rules_file), "--rack", "SAT", "--json"], input=".....\n" * 5
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rules"] == "mini"

"""`scrab endgame` and `scrab review --endgame`, on a tiny game whose endgames the plain
full-width minimax of tests/lookahead/reference.py settles in moments: a 7x7 board, racks of
3, ten tiles, a word list of sixty words, and two scoreless turns in a row end the game.

The expected values come from that reference (every line of play, no pruning, no table),
never from the solver under test."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from lookahead.reference import face, minimax
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.rules import load_rules
from solver_cli.engine.unseen import unseen_tiles
from solver_cli.formats.gcg_read import parse_gcg, read_gcg_text, replay_gcg
from solver_cli.lexicon import load_lexicon

# The Python twin's runs of these tests go to the soak step
# (the solver's engines are compared in tests/lookahead/test_endgame_diff.py).
pytestmark = python_engine_in_soak()

VALUES = {"A": 1, "C": 3, "E": 1, "Q": 10, "R": 1, "S": 1, "T": 1}
TILES = {"A": 3, "C": 1, "E": 1, "Q": 1, "R": 1, "S": 1, "T": 2}
LAYOUT = ["T..d..T", ".D...D.", "..d.d..", "d..D..d", "..d.d..", ".D...D.", "T..d..T"]
WORDS = (
    "AE AR ARS AS AT EA EAR EAST EAT EATS ERA ERAS ARE ARES ART ARTS ACE ACES ACT ACTS ARC ARCS CAR "
    "CARS CART CARE CARES CAST CAT CATS CASE CRATE QAT QATS RACE RACES RAT RATE RATS REST SAT SATE "
    "SEA SEAT SECT SET STAR TA TAR TARS TAE TAS TEA TEAR TEAS TEE TES TSAR SCAT"
)
# Alice's pass on turn 3 and bob's RAT on turn 4 are both worse than the best; the bag
# empties with bob's draw on turn 2 (alice AEQ against bob AT).
GAME = """#character-encoding UTF-8
#player1 alice Alice
#player2 bob Bob
>alice: ACT 4C CAT +15 15
>bob: ARS D4 .RS +3 3
>alice: AEQ - +0 15
>bob: AT 5D .AT +7 10
>bob: (AEQ) +24 34
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiny")
    tiles = "\n".join(
        f"{letter} = [{TILES.get(letter, 0)}, {VALUES.get(letter, 1)}]" for letter in map(chr, range(65, 91))
    )
    (folder / "tiny.toml").write_text(
        'name = "tiny"\nrack_size = 3\nbingo_bonus = 5\nscoreless_turns = 2\ncentre = "D4"\n'
        f"layout = {json.dumps(LAYOUT)}\n\n[tiles]\n{tiles}\n",
        encoding="utf-8",
    )
    (folder / "words.txt").write_text("\n".join(sorted(set(WORDS.split()))) + "\n", encoding="utf-8")
    (folder / "game.gcg").write_text(GAME, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def world(tiny):
    """The rules, the word list and the replayed game, as the reference needs them."""
    rules = load_rules(str(tiny / "tiny.toml"))
    lexicon = load_lexicon(str(tiny / "words.txt"), rules.max_side)
    text, name = read_gcg_text(str(tiny / "game.gcg"))
    return rules, lexicon, replay_gcg(parse_gcg(text, name), rules, lexicon.contains, lexicon.name)


def options(tiny):
    return ["--rules", str(tiny / "tiny.toml"), "--lexicon", str(tiny / "words.txt")]


def invoke(*args, env=None):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="scrab", env=env)


def ok(*args, env=None):
    result = invoke(*args, env=env)
    assert result.exit_code == 0, result.output
    return result


def endgame_json(tiny, *args):
    return json.loads(ok("endgame", tiny / "game.gcg", *options(tiny), *args, "--json").stdout)


def reference(world, turn, scoreless=0):
    """The exact value of the position before ``turn`` by the plain minimax, and the racks."""
    rules, lexicon, game = world
    board = game.board_before(turn)
    rack = parse_rack(game.turns[turn - 1].rack, rules.rack_size)
    opponent = list(unseen_tiles(board, rack, rules).counts)
    return minimax(board, rack, opponent, lexicon.gaddag, rules, scoreless), board, rack, opponent


def one_error(result, code=2):
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


# --------------------------------------------------------------------------- a real endgame


def test_the_value_and_variation_are_the_plain_minimax(tiny, world):
    value, _, _, _ = reference(world, 3)
    out = endgame_json(tiny, "--turn", 3)
    assert out["value"] == value
    assert out["proven"] is True and out["stopped"] is None
    assert out["players"] == ["alice", "bob"]
    assert (out["rack"], out["opponent_rack"]) == ("AEQ", "AT")
    assert out["scores"] == [15, 3]  # the record's totals before turn 3, the mover's first
    assert out["scoreless_turns"] == 0
    assert out["best"][0]["value"] == value
    # The variation runs to the end of the game, and its final scores differ by the value.
    ending = out["ending"]
    assert ending["reason"] in ("out", "scoreless")
    start, final = out["scores"], ending["scores"]
    assert (final[0] - start[0]) - (final[1] - start[1]) == value
    pv = out["pv"]
    assert pv[0]["move"]["position"] == out["best"][0]["move"]["position"]
    assert [step["side"] for step in pv] == [k % 2 for k in range(len(pv))]
    running = list(start)
    for step in pv:
        running[step["side"]] += step["score"]
        assert step["scores"] == running
        assert step["player"] == out["players"][step["side"]]
    assert [a + b for a, b in zip(running, ending["adjustments"], strict=True)] == final
    assert out["nodes"] > 0 and out["seconds"] >= 0 and out["depth"] >= 1
    assert out["engine"] in ("native", "python")


def test_the_end_of_game_adjustments_are_the_racks_left(tiny, world):
    rules = world[0]
    out = endgame_json(tiny, "--turn", 3)
    ending = out["ending"]
    left = [parse_rack(r, 20) if r else [0] * 27 for r in ending["racks"]]
    if ending["reason"] == "out":
        goer = ending["side"]
        assert not any(left[goer])
        assert ending["adjustments"][goer] == face(left[1 - goer], rules)
        assert ending["adjustments"][1 - goer] == -face(left[1 - goer], rules)
    else:
        assert ending["adjustments"] == [-face(left[0], rules), -face(left[1], rules)]


def test_top_lists_exact_values_of_the_best_first_moves(tiny, world):
    rules, lexicon, game = world
    value, board, rack, opponent = reference(world, 3)
    best = endgame_json(tiny, "--turn", 3, "--top", 3)["best"]
    assert len(best) == 3
    assert best[0]["value"] == value
    assert [b["rank"] for b in best] == [1, 2, 3]
    values = [b["value"] for b in best]
    assert values == sorted(values, reverse=True)
    # Each listed move's value, by the reference: its score minus the best reply from there.
    for entry in best:
        move = entry["move"]
        if move["kind"] == "pass":
            continue
        after = list(board.squares)
        left = list(rack)
        for tile in move["placed"]:
            code = ord(tile["letter"]) - 64
            after[tile["row"] * board.cols + tile["col"]] = code
            left[code] -= 1
        from solver_cli.engine.board import Board

        if not any(left):
            expected = move["score"] + 2 * face(opponent, rules)
        else:
            reply = minimax(Board(board.rows, board.cols, after), opponent, left, lexicon.gaddag, rules, 0)
            expected = move["score"] - reply
        assert entry["value"] == expected, move["notation"]


def test_the_table_shows_the_best_move_variation_value_and_search(tiny, world):
    value, _, _, _ = reference(world, 3)
    text = ok("endgame", tiny / "game.gcg", *options(tiny), "--turn", 3, "--top", 2).stdout
    assert "Endgame: alice to move with AEQ against bob's AT" in text
    assert re.search(rf"^Best: \S+ \S+ \d+, value {value:+d} \(proven\)$", text, re.M), text
    assert "The 2 best first moves" in text
    assert "Principal variation" in text
    assert f"Value: {value:+d} for alice: proven" in text
    assert re.search(r"^Searched [\d,]+ nodes in [\d.]+ seconds$", text, re.M)


def test_a_board_file_starts_the_scores_from_zero(tiny, world, tmp_path):
    """A board file gives no scores: the running scores start at 0; the rack is --rack."""
    value, board, _, _ = reference(world, 3)
    path = tmp_path / "board.txt"
    path.write_text(board.to_text() + "\n", encoding="utf-8")
    out = json.loads(ok("endgame", path, *options(tiny), "--rack", "QEA", "--json").stdout)
    assert out["value"] == value
    assert out["scores"] == [0, 0] and out["players"] == ["you", "opponent"]
    final = out["ending"]["scores"]
    assert final[0] - final[1] == value
    # without names the racks are "your" and "the opponent's"
    text = ok("endgame", path, *options(tiny), "--rack", "QEA").stdout
    assert "Endgame: you to move with AEQ against the opponent's AT" in text
    assert out["ending"]["reason"] == "out"
    assert re.search(r"│ went out: (your|the opponent's) [A-Z?]+ +│", text), text
    assert "you's" not in text


def test_scoreless_turns_in_a_row_come_from_the_record(tiny, world):
    """Before turn 4 alice has passed: one scoreless turn, and with two the game ends, so
    bob's pass would end it at once; the value is the minimax's with that count."""
    value, _, _, _ = reference(world, 4, scoreless=1)
    out = endgame_json(tiny, "--turn", 4)
    assert out["scoreless_turns"] == 1
    assert out["value"] == value


def test_a_cgp_position_gives_its_scores_and_scoreless_turns(tiny, world, tmp_path):
    from solver_cli.formats.cgp import Position, format_cgp

    value, board, _, _ = reference(world, 3, scoreless=1)
    path = tmp_path / "position.cgp"
    path.write_text(format_cgp(Position(board.to_rows(), ["AEQ", ""], [40, 52], 1)) + "\n", encoding="utf-8")
    out = json.loads(ok("endgame", path, *options(tiny), "--json").stdout)
    assert (out["scores"], out["scoreless_turns"]) == ([40, 52], 1)
    assert out["value"] == value
    final = out["ending"]["scores"]
    assert (final[0] - 40) - (final[1] - 52) == value
    # Two scoreless turns end a game under these rules: that position is no endgame.
    path.write_text(format_cgp(Position(board.to_rows(), ["AEQ", ""], [40, 52], 2)) + "\n", encoding="utf-8")
    assert "the game is over: 2 scoreless turns in a row" in one_error(invoke("endgame", path, *options(tiny)))


def test_a_cgp_opponent_rack_must_be_among_the_unseen_tiles(tiny, world, tmp_path):
    """The other rack a CGP position gives is checked against the tiles the mover cannot
    see: part or all of them is the same endgame; a tile that is not unseen is an error."""
    from solver_cli.engine.alphabet import rack_text
    from solver_cli.formats.cgp import Position, format_cgp

    value, board, _, unseen = reference(world, 3, scoreless=1)
    opponent = rack_text(unseen)
    path = tmp_path / "position.cgp"
    for given in (opponent, opponent[:1]):
        path.write_text(format_cgp(Position(board.to_rows(), ["AEQ", given], [40, 52], 1)) + "\n", encoding="utf-8")
        assert json.loads(ok("endgame", path, *options(tiny), "--json").stdout)["value"] == value
    path.write_text(format_cgp(Position(board.to_rows(), ["AEQ", "Q"], [40, 52], 1)) + "\n", encoding="utf-8")
    message = one_error(invoke("endgame", path, *options(tiny)))
    assert f"the opponent's rack Q is not among the tiles unseen by the player to move ({opponent}" in message
    # --rack replaces the position's racks: the CGP's second one is not held against it
    path.write_text(format_cgp(Position(board.to_rows(), ["AEQ", opponent], [40, 52], 1)) + "\n", encoding="utf-8")
    other = json.loads(ok("endgame", path, *options(tiny), "--rack", opponent, "--json").stdout)
    assert other["rack"] == opponent


def test_plies_cut_is_shown_as_not_proven(tiny):
    out = endgame_json(tiny, "--turn", 3, "--plies", 1)
    assert out["proven"] is False and out["stopped"] == "plies"
    assert out["depth"] == 1
    text = ok("endgame", tiny / "game.gcg", *options(tiny), "--turn", 3, "--plies", 1).stdout
    assert "not proven, cut by --plies: the best found so far, searched 1 ply deep" in text


def test_ctrl_c_prints_the_best_found_so_far_and_exits_130(tiny, monkeypatch):
    """The solver raises EndgameStopped with what it has: the command prints it, then one
    Stopped: line, status 130 (the result is a real search's, marked as interrupted)."""
    import dataclasses

    from solver_cli.lookahead import endgame as lookahead

    solve = lookahead.solve_endgame

    def interrupted(*args, **kwargs):
        result = solve(*args, **kwargs)
        raise lookahead.EndgameStopped(dataclasses.replace(result, proven=False, stopped=lookahead.INTERRUPTED))

    monkeypatch.setattr(lookahead, "solve_endgame", interrupted)
    result = invoke("endgame", tiny / "game.gcg", *options(tiny), "--turn", 3)
    assert result.exit_code == 130, result.output
    assert "Best: " in result.stdout
    assert "not proven, interrupted: the best found so far" in result.stdout
    assert result.stderr.strip().splitlines() == ["Stopped: interrupted: the best found so far is shown"]
    result = invoke("endgame", tiny / "game.gcg", *options(tiny), "--turn", 3, "--json")
    assert result.exit_code == 130
    out = json.loads(result.stdout)
    assert (out["proven"], out["stopped"]) == (False, "interrupted")


def test_no_progress_line_off_a_terminal(tiny):
    result = ok("endgame", tiny / "game.gcg", *options(tiny), "--turn", 3)
    assert result.stderr == ""


# --------------------------------------------------------------------------- refusals and bad input


def test_a_bag_with_tiles_is_refused_naming_peg(tiny):
    line = one_error(invoke("endgame", tiny / "game.gcg", *options(tiny), "--turn", 2))
    assert "not an endgame" in line and "left in the bag" in line and "scrab peg" in line


def test_no_unseen_tile_is_refused(tiny, world, tmp_path):
    """Every tile on the board or the rack: the opponent went out, the game is over."""
    rules = world[0]
    board = world[2].board_before(5)
    path = tmp_path / "board.txt"
    path.write_text(board.to_text() + "\n", encoding="utf-8")
    held = unseen_tiles(board, [0] * 27, rules)
    rack = held.text()
    line = one_error(invoke("endgame", path, *options(tiny), "--rack", rack))
    assert "the game is over" in line


@pytest.mark.parametrize(
    "args, message",
    [
        (["--top", "0"], "--top"),
        (["--top", "1001"], "--top"),
        (["--plies", "0"], "--plies"),
        (["--plies", "65"], "--plies"),
        (["--time-limit", "0"], "--time-limit"),
        (["--time-limit", "-1"], "--time-limit"),
        (["--time-limit", "86401"], "--time-limit"),
        (["--tt-mb", "0"], "--tt-mb"),
        (["--rack", ""], "--rack is empty"),
        (["--rack", "AB1"], "rack 'AB1'"),
        (["--turn", "9"], "--turn 9"),
    ],
)
def test_bad_values_are_one_line_with_status_2(tiny, args, message):
    args = ["--turn", "3", *args] if "--turn" not in args else args
    line = one_error(invoke("endgame", tiny / "game.gcg", *options(tiny), *args))
    assert message in line


def test_a_missing_file_is_one_line(tiny, tmp_path):
    line = one_error(invoke("endgame", tmp_path / "nothing.txt", *options(tiny), "--rack", "AEQ"))
    assert "nothing.txt" in line


def test_a_rack_with_more_tiles_than_the_set_is_refused(tiny, world, tmp_path):
    board = world[2].board_before(3)
    path = tmp_path / "board.txt"
    path.write_text(board.to_text() + "\n", encoding="utf-8")
    line = one_error(invoke("endgame", path, *options(tiny), "--rack", "QQ"))  # (no warning saying it too)
    assert line == "Error: the board and the rack hold 2 Q tiles, more than the 1 in the tiny set"


# --------------------------------------------------------------------------- review --endgame


def test_review_endgame_settles_the_turns_with_the_bag_empty(tiny, world):
    rules, lexicon, game = world
    out = json.loads(ok("review", tiny / "game.gcg", *options(tiny), "--endgame", "--json").stdout)
    turns = {t["turn"]: t for t in out["turns"]}
    assert "endgame" not in turns[1] and "endgame" not in turns[2]  # tiles in the bag
    # Turn 3: alice passed (one scoreless turn; a second ends the game).
    best3, board, rack, opponent = reference(world, 3)
    passed = -minimax(board, opponent, rack, lexicon.gaddag, rules, 1)
    verdict = turns[3]["endgame"]
    assert (verdict["best_value"], verdict["value"]) == (best3, passed)
    assert verdict["lost"] == best3 - passed > 0
    # Turn 4: bob went out with RAT for 7, after one scoreless turn.
    best4, _, _, opponent4 = reference(world, 4, scoreless=1)
    verdict = turns[4]["endgame"]
    assert verdict["value"] == 7 + 2 * face(opponent4, rules)
    assert verdict["best_value"] == best4
    assert verdict["lost"] == best4 - verdict["value"]
    summary = {s["player"]: s for s in out["summary"]}
    assert summary["alice"]["endgame_lost"] == best3 - passed
    assert summary["bob"]["endgame_lost"] == best4 - verdict["value"]


def test_review_endgame_ranks_the_move_played_exactly_and_lists_top_moves(tiny, world):
    """The Rank of a settled turn is its exact rank (1 + the moves worth more), not the
    equity rank beside an exact loss; --top N lists the N best by exact value."""
    best3, *_ = reference(world, 3)
    review = ["review", tiny / "game.gcg", *options(tiny), "--endgame"]
    one = {t["turn"]: t for t in json.loads(ok(*review, "--json").stdout)["turns"]}
    verdict = one[3]["endgame"]
    assert verdict["lost"] > 0 and verdict["rank"] is None  # below the one move listed
    assert [m["value"] for m in verdict["best_moves"]] == [best3]
    for turn in one.values():  # with one move listed: first if it lost nothing, else below it
        if "endgame" in turn:
            assert turn["endgame"]["rank"] == (1 if turn["endgame"]["lost"] == 0 else None)
    every = {t["turn"]: t for t in json.loads(ok(*review, "--top", 5000, "--json").stdout)["turns"]}
    verdict = every[3]["endgame"]
    values = [m["value"] for m in verdict["best_moves"]]
    assert len(values) == every[3]["candidates"] and values == sorted(values, reverse=True)
    assert values[0] == best3 and verdict["value"] in values
    assert verdict["rank"] == 1 + sum(v > verdict["value"] for v in values) > 1
    assert {m["move"] for m in verdict["best_moves"]} == {m["move"] for m in every[3]["best"]}
    text = ok(*review, env={"COLUMNS": "200"}).stdout
    row = next(line for line in text.splitlines() if re.match(r"│ +3 alice ", line))
    assert f" >1/{one[3]['candidates']} " in row
    text = ok(*review, "--top", 5000, env={"COLUMNS": "200"}).stdout
    row = next(line for line in text.splitlines() if re.match(r"│ +3 alice ", line))
    assert f" {verdict['rank']}/{one[3]['candidates']} " in row


def test_review_endgame_follows_the_rule_sets_end_of_game(tiny, tmp_path):
    """Other factors for going out and for the racks left (out_gain 3, out_loss 0,
    stuck_loss 2): the values follow them, by the reference."""
    text = (tiny / "tiny.toml").read_text(encoding="utf-8")
    (tmp_path / "other.toml").write_text(
        text.replace("scoreless_turns = 2", "scoreless_turns = 2\nout_gain = 3\nout_loss = 0\nstuck_loss = 2"),
        encoding="utf-8",
    )
    rules = load_rules(str(tmp_path / "other.toml"))
    lexicon = load_lexicon(str(tiny / "words.txt"), rules.max_side)
    text, name = read_gcg_text(str(tiny / "game.gcg"))
    game = replay_gcg(parse_gcg(text, name), rules, lexicon.contains, lexicon.name)
    args = ["--rules", tmp_path / "other.toml", "--lexicon", tiny / "words.txt"]
    out = json.loads(ok("review", tiny / "game.gcg", *args, "--endgame", "--json").stdout)
    turns = {t["turn"]: t for t in out["turns"]}
    value4, _, _, opponent4 = reference((rules, lexicon, game), 4, scoreless=1)
    assert turns[4]["endgame"]["best_value"] == value4
    assert turns[4]["endgame"]["value"] == 7 + 3 * face(opponent4, rules)
    value3, board, rack, opponent = reference((rules, lexicon, game), 3)
    assert turns[3]["endgame"]["best_value"] == value3
    assert turns[3]["endgame"]["value"] == -minimax(board, opponent, rack, lexicon.gaddag, rules, 1)
    single = json.loads(ok("endgame", tiny / "game.gcg", *args, "--turn", 3, "--json").stdout)
    assert single["value"] == value3


def test_review_without_endgame_is_as_before(tiny):
    out = json.loads(ok("review", tiny / "game.gcg", *options(tiny), "--json").stdout)
    assert all("endgame" not in t for t in out["turns"])
    assert all("endgame_lost" not in s for s in out["summary"])


def test_review_endgame_table(tiny):
    text = ok("review", tiny / "game.gcg", *options(tiny), "--endgame").stdout
    assert "endgame" in text
    assert "Endgame points lost" in text
    assert "settled by the exact endgame solver" in text


def test_review_endgame_time_limit_marks_a_cut_turn_unproven(tiny, world):
    """A limit too short for any search: each endgame turn is marked not proven, with no
    exact loss (value and lost null), keeps its equity figures, and counts as unproven; a
    limit the searches fit in gives the exact loss (the reference's)."""
    args = ["review", tiny / "game.gcg", *options(tiny), "--endgame"]
    cut = json.loads(ok(*args, "--endgame-time-limit", "0.000001", "--json").stdout)
    turns = {t["turn"]: t for t in cut["turns"]}
    for number in (3, 4):
        verdict = turns[number]["endgame"]
        assert verdict["proven"] is False and verdict["value"] is None and verdict["lost"] is None
        assert verdict["best"]["move"]
    assert turns[3]["matched_best"] is False and turns[3]["given_up"] > 0  # the pass, by equity
    for summary in cut["summary"]:
        assert summary["endgame_unproven"] == 1 and summary["endgame_lost"] == 0
    table = ok(*args, "--endgame-time-limit", "0.000001").stdout
    assert table.count("endgame not proven") == 3  # the two turns and the note under the table
    assert "Endgames not proven" in table and "settled by the exact endgame solver" not in table

    settled = json.loads(ok(*args, "--endgame-time-limit", "60", "--json").stdout)
    verdict = {t["turn"]: t for t in settled["turns"]}[3]["endgame"]
    best3, board, rack, opponent = reference(world, 3)
    rules, lexicon, _ = world
    assert verdict["proven"] is True
    assert verdict["lost"] == best3 + minimax(board, opponent, rack, lexicon.gaddag, rules, 1)
    assert all(s["endgame_unproven"] == 0 for s in settled["summary"])


def test_review_endgame_time_limit_needs_endgame(tiny):
    result = invoke("review", tiny / "game.gcg", *options(tiny), "--endgame-time-limit", "5")
    assert result.exit_code == 2 and "--endgame-time-limit applies only with --endgame" in result.stderr


def test_a_rack_that_looks_short_under_other_rules_says_why():
    """Under rules whose tile set has more tiles than the record's, a player would hold
    more than the whole rack the record gives: the message names the rack and the rules."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "boards" / "example.gcg"
    message = one_error(invoke("endgame", example, "--turn", 27, "--rules", "wwf"))
    assert "gives the rack QRT, fewer tiles than the player holds then by the wwf tile set" in message
    assert "(the record gives only the tiles played, or is of other rules)" in message

"""`scrab explain`: the replayed GADDAG walk is the generator's own path to the move."""

import json
import random
from pathlib import Path

from click.testing import CliRunner
from positions import played_position, random_rack

from solver_cli.cli import cli
from solver_cli.engine.board import anchors
from solver_cli.engine.explain import explain_play
from solver_cli.engine.play import check_play
from solver_cli.engine.ranking import solve
from solver_cli.engine.rules import load_rules

BOARDS = Path(__file__).resolve().parents[2] / "boards"


def test_trace_reconstructs_every_sampled_move(small_gaddag, small_words):
    words = set(small_words)
    checked = runs = 0
    for seed in range(40):
        rng = random.Random(seed)
        rules = load_rules("wwf" if seed % 2 else "scrabble")
        board = played_position(rules, small_gaddag, seed, rng.randint(0, 8))
        rack = random_rack(rules, rng, seed % 3)
        moves = solve(board, rack, small_gaddag, rules).moves
        flags = anchors(board, rules.centre)
        for move in rng.sample(moves, min(8, len(moves))):
            word = move.notation.replace("(", "").replace(")", "")
            play = check_play(board, rules, move.position, word, lambda w: w.upper() in words, "small", rack)
            trace = explain_play(board, rules, small_gaddag, rack, play)
            along = [s for s in trace.steps if s.phase != "separator"]
            letters = [s.letter for s in along]
            # Left phase: from the anchor back to the word's first letter, then the rest.
            n_left = len([s for s in along if s.phase == "left"])
            assert "".join(letters[:n_left])[::-1] + "".join(letters[n_left:]) == move.word
            assert trace.reversed_prefix == "".join(letters[:n_left]) and trace.suffix == "".join(letters[n_left:])
            assert along[-1].accepts and trace.score == move.score
            assert (len(trace.steps) > n_left and trace.steps[n_left].phase == "separator") == bool(trace.suffix)
            # The anchor is the leftmost placed square that is an anchor.
            placed_anchor_squares = sorted((t.row, t.col) for t in move.placed if flags[t.row * rules.cols + t.col])
            first = placed_anchor_squares[0]
            assert trace.anchor == f"{chr(65 + first[1])}{first[0] + 1}"
            assert trace.steps[-1].rack_left == move.leave
            # The walk starts on the anchor, or on the last of the board tiles right of it,
            # read backwards first; so the right phase starts with a placed tile.
            run = 0
            while trace.steps[run].source == "board":
                run += 1
            assert trace.steps[0].square == trace.start and trace.steps[run].square == trace.anchor
            assert (trace.start == trace.anchor) == (run == 0)
            if trace.suffix:
                assert trace.steps[n_left + 1].source in ("rack", "blank")
            runs += run > 0
            checked += 1
    assert checked > 200 and runs > 10


def test_explain_cli_by_rank_and_by_notation(full_lexicon):
    runner = CliRunner()
    board = str(BOARDS / "midgame.txt")
    ranked = json.loads(runner.invoke(cli, ["solve", board, "--rack", "RETAINS", "--top", "1", "--json"]).stdout)[
        "moves"
    ][0]
    by_rank = runner.invoke(cli, ["explain", board, "--rack", "RETAINS", "1", "--json"])
    assert by_rank.exit_code == 0, by_rank.output
    data = json.loads(by_rank.stdout)
    assert (
        data["position"] == ranked["position"] and data["word"] == ranked["word"] and data["score"] == ranked["score"]
    )
    by_move = runner.invoke(cli, ["explain", board, "--rack", "RETAINS", ranked["position"], ranked["word"], "--json"])
    assert json.loads(by_move.stdout) == data
    table = runner.invoke(cli, ["explain", board, "--rack", "RETAINS", "1"])
    assert f"found from the anchor {data['anchor']}" in table.stdout and "separator" in table.stdout


def test_explain_errors(full_lexicon):
    runner = CliRunner()
    board = str(BOARDS / "opening.txt")
    for args, code, message in [
        (["--rack", "QI", "9D", "ZA"], 1, "illegal move"),
        (["--rack", "QI", "99"], 2, "there is no move ranked 99"),
        (["--rack", "QI", "8H"], 2, "bad move '8H'"),
        (["--rack", "Q", "8D", "FORMATS"], 1, "does not hold the tiles S"),
    ]:
        result = runner.invoke(cli, ["explain", board, *args])
        assert result.exit_code == code and message in result.stderr, (args, result.output)

"""The self-play players that look ahead (issue #21): ``endgame`` plays the exact endgame
solver's best move once the bag is empty, ``peg`` also the pre-endgame solver's with one
tile in the bag. On a tiny tile set (racks of three on a 7x7 board) a few games run in
moments; each is checked (check_game), written as GCG and read back, and every searched
turn is held against the searches' own answers on the recorded position."""

from __future__ import annotations

import json

import pytest
from soak import python_engine_in_soak

from solver_cli.engine.alphabet import BLANK_BIT, LETTERS, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.rules import load_rules
from solver_cli.formats.gcg import game_text
from solver_cli.formats.gcg_read import read_gcg
from solver_cli.games import selfplay
from solver_cli.games.selfplay import ENDGAME, PEG, Player, SimBudget, check_game, play_game
from solver_cli.lexicon.build import build_gaddag

TILES = {"A": 3, "E": 3, "I": 2, "O": 2, "N": 2, "R": 2, "S": 2, "T": 2, "D": 1, "L": 1, "?": 1}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, small_words):
    folder = tmp_path_factory.mktemp("tiny-rules")
    tiles = "\n".join(f'"{ch}" = [{TILES.get(ch, 0)}, {1 + LETTERS.find(ch) % 4}]' for ch in [*LETTERS, "?"])
    layout = ", ".join(['"..d.d.."'] * 7)
    path = folder / "tiny.toml"
    path.write_text(f'name = "tiny"\nrack_size = 3\ncentre = "D4"\nlayout = [{layout}]\n[tiles]\n{tiles}\n')
    return build_gaddag(small_words), load_rules(str(path))


def replay(game, rules):
    """Each turn with the board, both racks (the bag empty: the opponent holds every tile
    not on the board or the mover's rack), the bag's size and the scoreless turns before."""
    squares = [0] * (rules.rows * rules.cols)
    bag = sum(rules.counts) - 2 * rules.rack_size
    scoreless = 0
    for turn in game.turns:
        yield turn, Board(rules.rows, rules.cols, list(squares)), bag, scoreless
        for row, col, code in turn.placed:
            squares[row * rules.cols + col] = code
        bag -= len(turn.drawn)
        scoreless = scoreless + 1 if turn.score == 0 else 0


def opponent_rack(board, rack, rules):
    counts = list(rules.counts)
    for code in board.squares:
        if code:
            counts[0 if code & BLANK_BIT else code] -= 1
    return [n - r for n, r in zip(counts, rack, strict=True)]


def is_move(turn, move) -> bool:
    """Whether the recorded ``turn`` is the candidate ``move`` (a pass, or the same tiles)."""
    if move.kind == 2:
        return turn.kind == "pass"
    squares = {
        ((move.start + k, move.line) if move.down else (move.line, move.start + k)) + (code,)
        for k, code in enumerate(move.codes)
    }
    return turn.kind == "play" and turn.score == move.score and set(turn.placed) <= squares and turn.placed != ()


@python_engine_in_soak()
@pytest.mark.parametrize("kind", ["endgame", "sim"])
def test_the_endgame_player_plays_the_exact_solvers_best_move(tiny, monkeypatch, kind):
    """``endgame``, and ``sim`` with an endgame budget (``sim:...,endgame=MS``)."""
    gaddag, rules = tiny
    calls = []
    solve = selfplay.solve_endgame

    def spy(board, mover, opponent, *args, **kwargs):
        found = solve(board, mover, opponent, *args, **kwargs)
        calls.append((tuple(board.squares), tuple(mover), found.best[0].move))
        return found

    monkeypatch.setattr(selfplay, "solve_endgame", spy)
    zeros = LeaveTable.zeros()
    if kind == "sim":
        budget = SimBudget(iterations=8, plies=1, candidates=3, endgame=10_000)
        searcher = Player("sim:endgame=10000", zeros, lookahead=ENDGAME, seconds=10.0, sim=budget)
    else:
        searcher = Player(ENDGAME, zeros, lookahead=ENDGAME)
    players = (searcher, Player("equity", zeros))
    searched = 0
    for index in range(2):
        seats = players if index % 2 == 0 else players[::-1]
        game = play_game(gaddag, rules, 7, index, seats)
        assert check_game(game, gaddag, rules) == []
        record = read_gcg(game_text(game, rules=str(rules.name)), rules, "game.gcg")
        assert record.problems == () and list(record.final_scores) == list(game.scores)
        for turn, board, bag, scoreless in replay(game, rules):
            if bag or seats[turn.player].lookahead != ENDGAME:
                continue
            rack = parse_rack(turn.rack, 20)
            other = opponent_rack(board, rack, rules)
            # The solver was asked about this very position, and its move was played ...
            asked = [m for squares, mover, m in calls if squares == tuple(board.squares) and mover == tuple(rack)]
            assert asked, turn
            assert is_move(turn, asked[-1]), turn
            # ... and it is as good as any, by the solver's values of every first move here.
            every = solve(board, rack, other, gaddag, rules, scoreless=scoreless, top=1000)
            assert every.proven
            assert [r.value for r in every.best if is_move(turn, r.move)] == [every.value], turn
            searched += 1
    assert searched >= 4


@python_engine_in_soak()
def test_the_peg_player_plays_the_pre_endgame_solvers_best_move(tiny, monkeypatch):
    gaddag, rules = tiny
    chosen = []
    solve = selfplay.solve_pre_endgame

    def spy(board, rack, *args, **kwargs):
        found = solve(board, rack, *args, **kwargs)
        chosen.append((tuple(board.squares), tuple(rack), found.best.move if found.best else None))
        return found

    monkeypatch.setattr(selfplay, "solve_pre_endgame", spy)
    zeros = LeaveTable.zeros()
    players = (Player(PEG, zeros, lookahead=PEG), Player(ENDGAME, zeros, lookahead=ENDGAME))
    searched = games = 0
    while searched < 2 and games < 20:  # until the peg player has met one tile in the bag twice
        seats = players if games % 2 == 0 else players[::-1]
        game = play_game(gaddag, rules, 10, games, seats)
        games += 1
        record = read_gcg(game_text(game, rules=str(rules.name)), rules, "game.gcg")
        assert record.problems == () and list(record.final_scores) == list(game.scores)
        for turn, board, bag, _ in replay(game, rules):
            if bag != 1 or seats[turn.player].lookahead != PEG:
                continue
            rack = parse_rack(turn.rack, 20)
            found = [m for squares, r, m in chosen if squares == tuple(board.squares) and r == tuple(rack)]
            assert found and found[-1] is not None, turn
            assert is_move(turn, found[-1]), turn
            searched += 1
    assert searched >= 2


@python_engine_in_soak()
def test_selfplay_takes_the_look_ahead_players(tiny, tmp_path, small_words):
    from click.testing import CliRunner

    from solver_cli.cli import cli

    words = tmp_path / "small.txt"
    words.write_text("\n".join(small_words) + "\n")
    rules = tmp_path / "tiny.toml"
    tiles = "\n".join(f'"{ch}" = [{TILES.get(ch, 0)}, {1 + LETTERS.find(ch) % 4}]' for ch in [*LETTERS, "?"])
    layout = ", ".join(['"..d.d.."'] * 7)
    rules.write_text(f'name = "tiny"\nrack_size = 3\ncentre = "D4"\nlayout = [{layout}]\n[tiles]\n{tiles}\n')
    games = tmp_path / "games"
    args = ["--players", "peg,endgame", "--games", "2", "--seed", "10", "--rules", rules, "--lexicon", words]
    result = CliRunner().invoke(cli, ["selfplay", *map(str, [*args, "--save-games", games]), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["name"] for p in data["players"]] == ["peg", "endgame"]
    for path in sorted(games.glob("*.gcg")):
        record = read_gcg(path.read_text(), load_rules(str(rules)), str(path))
        assert record.problems == ()
    refused = CliRunner().invoke(cli, ["selfplay", "--players", "peg:,greedy", "--games", "2"])
    assert refused.exit_code == 2 and "peg: needs a leave file" in refused.stderr

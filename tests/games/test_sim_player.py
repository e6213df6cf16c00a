"""The self-play player ``sim`` (issue 22): its budget in its name, its games legal and
recorded like the others, each move the simulation's best for the position."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.board import Board
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.formats.gcg_read import decode_gcg, read_gcg
from solver_cli.formats.leavefile import table_for
from solver_cli.formats.winpctfile import winpct_for
from solver_cli.games.selfplay import (
    Player,
    SimBudget,
    check_game,
    game_seed,
    parse_sim_budget,
    play_game,
    sim_move_seed,
)
from solver_cli.lookahead.sim import TableChance, sim_candidates, simulate

# The Python twin's runs of these tests go to the soak step
# (the simulation's engines are compared in tests/lookahead/test_sim.py).
pytestmark = python_engine_in_soak()

BUDGET = SimBudget(iterations=12, plies=1, candidates=3)


def test_the_budget_is_read_from_the_name():
    assert parse_sim_budget("sim") == SimBudget()
    assert parse_sim_budget("sim:plies=3, iterations=50") == SimBudget(iterations=50, plies=3, candidates=8)
    assert parse_sim_budget("sim:iterations=200,plies=2,candidates=8") == SimBudget(200, 2, 8)
    assert parse_sim_budget("sim:endgame=500,iterations=100") == SimBudget(iterations=100, endgame=500)
    assert parse_sim_budget("sim:rank=win,iterations=100") == SimBudget(iterations=100, rank="win")
    assert parse_sim_budget("sim:rank=points") == SimBudget()


def test_a_sim_player_with_an_endgame_budget_solves_the_endgame_in_that_time():
    from solver_cli.cli.selfplay import make_players
    from solver_cli.games.selfplay import ENDGAME

    rules = load_rules("scrabble")
    timed, plain = make_players(("sim:iterations=100,endgame=500", "sim:iterations=100"), rules, "kjxqz")
    assert (timed.lookahead, timed.seconds, timed.sim) == (ENDGAME, 0.5, SimBudget(iterations=100, endgame=500))
    assert plain.lookahead is None and plain.sim == SimBudget(iterations=100)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sim:iterations=0", "iterations must be a whole number from 1 to 100,000, not '0'"),
        ("sim:endgame=0.5", "endgame must be a whole number from 1 to 3,600,000, not '0.5'"),
        ("sim:plies=x", "plies must be a whole number from 1 to 10, not 'x'"),
        ("sim:depth=2", "'depth=2' is not a budget"),
        ("sim:plies=2,plies=3", "plies is given twice"),
        ("sim:rank=win,rank=win", "rank is given twice"),
        ("sim:rank=spread", "rank must be points or win, not 'spread'"),
        ("sim:rank", "'rank' is not a budget"),
        ("sim:", "give a budget after the colon"),
    ],
)
def test_a_bad_budget_is_one_line(name, message):
    with pytest.raises(InputError, match=message):
        parse_sim_budget(name)
    result = CliRunner().invoke(cli, ["selfplay", "--games", "2", "--players", f"{name},equity"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"Error: --players '{name},equity': {parse_error(name)}"]


def parse_error(name: str) -> str:
    try:
        parse_sim_budget(name)
    except InputError as exc:
        return str(exc)
    raise AssertionError(name)


def test_a_sim_player_ranking_by_win_gets_the_win_table_scrab_sim_uses():
    from solver_cli.cli.selfplay import make_players
    from solver_cli.formats.winpctfile import winpct_for

    rules = load_rules("scrabble")
    by_win, by_points = make_players(("sim:rank=win", "sim"), rules, "sowpods")
    assert by_win.win_table == winpct_for("scrabble", "sowpods")[0] and by_win.win_table is not None
    assert by_points.win_table is None


def test_a_sim_player_ranking_by_win_needs_a_win_table():
    result = CliRunner().invoke(cli, ["selfplay", "--games", "2", "--rules", "wwf", "--players", "sim:rank=win,equity"])
    assert result.exit_code != 0 and result.stdout == ""
    assert result.stderr.startswith("Error: --players sim:rank=win: rank=win needs a win table: no win probabilities")


@pytest.fixture(scope="module", params=["points", "win"])
def players(request):
    leaves, _ = table_for("scrabble", "kjxqz")
    budget = dataclasses.replace(BUDGET, rank=request.param)
    chances = winpct_for("scrabble", "kjxqz")[0] if request.param == "win" else None
    return Player("sim", leaves, sim=budget, win_table=chances), Player("equity", leaves)


def board_before(game, turn: int, rules) -> Board:
    board = Board.empty(rules)
    for before in game.turns[:turn]:
        for row, col, code in before.placed:
            board.squares[row * rules.cols + col] = code
    return board


def test_the_sim_players_move_is_the_simulations_best(small_gaddag, players):
    from solver_cli.engine.alphabet import parse_rack

    rules = load_rules("scrabble")
    game = play_game(small_gaddag, rules, 8, 0, players)
    assert check_game(game, small_gaddag, rules) == []
    tiles_out = 14
    checked = differed = ranked_apart = 0
    for number, turn in enumerate(game.turns):
        in_bag = sum(rules.counts) - tiles_out
        tiles_out += len(turn.placed)
        if turn.player != 0 or in_bag <= 0 or turn.kind != "play":
            continue
        board = board_before(game, number, rules)
        rack = parse_rack(turn.rack, rules.rack_size)
        candidates = sim_candidates(board, rack, small_gaddag, rules, players[0].leaves, BUDGET.candidates)
        if len(candidates) < 2:
            continue
        scoreless = 0
        for before in reversed(game.turns[:number]):
            if before.score:
                break
            scoreless += 1
        totals = [0, 0]
        for before in game.turns[:number]:
            totals[before.player] = before.total
        by_win = players[0].sim.rank == "win"
        result = simulate(
            board,
            rack,
            small_gaddag,
            rules,
            players[0].leaves,
            candidates=candidates,
            plies=BUDGET.plies,
            iterations=BUDGET.iterations,
            seed=sim_move_seed(game_seed(8, 0), number),
            scoreless=scoreless,
            spread=totals[0] - totals[1],
            win_probability=TableChance(players[0].win_table) if by_win else None,
            objective="win" if by_win else "points",
        )
        best = result.standings[0].candidate
        if by_win:  # (a move the ranking by points would not have chosen shows the ranking is by win)
            by_points = simulate(
                board,
                rack,
                small_gaddag,
                rules,
                players[0].leaves,
                candidates=candidates,
                plies=BUDGET.plies,
                iterations=BUDGET.iterations,
                seed=sim_move_seed(game_seed(8, 0), number),
                scoreless=scoreless,
            )
            ranked_apart += by_points.standings[0].candidate != best
        assert best.kind == 0 and (best.down, best.line, best.start) == (turn.down, turn.line, turn.start)
        assert tuple(best.codes) == turn.codes
        checked += 1
        differed += best != candidates[0]
    assert checked >= 3 and differed >= 1  # (the simulation, not equity, chose some moves)
    assert ranked_apart >= 1 or not by_win


def test_a_sim_match_runs_and_its_records_read_back(tmp_path, small_words):
    words = tmp_path / "small.txt"
    words.write_text("\n".join(small_words) + "\n")
    games = tmp_path / "games"
    players = "sim:iterations=8,plies=1,candidates=3,equity"
    args = ["--games", "2", "--seed", "3", "--players", players, "--lexicon", str(words), "--save-games", str(games)]
    result = CliRunner().invoke(cli, ["selfplay", *args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["name"] for p in data["players"]] == ["sim:iterations=8,plies=1,candidates=3", "equity"]
    rules = load_rules("scrabble")
    paths = sorted(games.glob("*.gcg"))
    assert len(paths) == 2
    for number, path in enumerate(paths):
        record = read_gcg(decode_gcg(path.read_bytes(), str(path)), rules, str(path))
        assert record.problems == ()
        assert list(record.final_scores) == data["results"][number]["scores"]

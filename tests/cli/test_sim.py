"""``scrab sim`` and ``scrab solve --sim``: the standings, JSON, exit statuses, Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import wait_until, workers_of
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.lookahead import sim

# The Python twin's runs of these tests go to the soak step
# (the simulation's engines are compared in tests/lookahead/test_sim.py).
pytestmark = python_engine_in_soak()

SMALL = ["boards/midgame.txt", "--rack", "RETAINS", "--candidates", "2", "--iterations", "4"]


@pytest.fixture
def runner(full_lexicon):
    return CliRunner()


def standings(result) -> list[dict]:
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    return data["standings"]


def test_the_standings_table(runner):
    result = runner.invoke(cli, ["sim", *SMALL, "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no live table off a terminal
    lines = result.stdout.splitlines()
    assert lines[0] == "2 candidates for AEINRST, 2 plies, by win %  (scrabble, kjxqz, seed 1)"
    assert lines[-1] == "4 iterations: the iterations are done."
    rows = [line for line in lines if line.startswith("│")]
    assert len(rows) == 2 and all(" 4 │" in row for row in rows)
    assert "NASTIER" in result.stdout


def test_json_has_every_figure_and_the_reason(runner):
    result = runner.invoke(cli, ["sim", *SMALL, "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["stopped"] == "iterations" and data["iterations"] == 4
    assert (data["plies"], data["seed"], data["jobs"], data["stop"]) == (2, 1, 1, 99)
    assert (data["spread"], data["scoreless_turns"]) == (0, 0)
    assert [s["rank"] for s in data["standings"]] == [1, 2]
    assert sorted(s["equity_rank"] for s in data["standings"]) == [1, 2]
    means = [s["mean"] for s in data["standings"]]
    assert means == sorted(means, reverse=True)
    for s in data["standings"]:
        assert s["iterations"] == 4 and s["stderr"] > 0 and s["pruned_at"] is None
        assert s["kind"] == "place" and s["position"] and s["move"]


def test_the_same_seed_gives_the_same_standings_whatever_jobs(runner):
    one = standings(runner.invoke(cli, ["sim", *SMALL, "--seed", "5", "--json"]))
    again = standings(runner.invoke(cli, ["sim", *SMALL, "--seed", "5", "--json"]))
    two = standings(runner.invoke(cli, ["sim", *SMALL, "--seed", "5", "--json", "--jobs", "2"]))
    assert one == again == two
    other = standings(runner.invoke(cli, ["sim", *SMALL, "--seed", "6", "--json"]))
    assert other != one


def test_solve_sim_simulates_the_top_moves(runner, monkeypatch):
    from solver_cli.cli import _sim as sim_command

    monkeypatch.setattr(sim_command, "default_iterations", lambda plies: 6)  # (the real budget takes minutes)
    result = runner.invoke(cli, ["solve", "boards/midgame.txt", "--rack", "RETAINS", "--sim", "--top", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["standings"]) == 2 and data["iterations"] == 6 and data["plies"] == 2


def test_the_default_budget_is_macondos_cap():
    from solver_cli.cli._sim import default_iterations

    assert default_iterations(2) == 3250


def test_a_game_record_turn_gives_the_spread(runner):
    result = runner.invoke(cli, ["sim", "boards/example.gcg", "--turn", "10", "-k", "2", "--iterations", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rack"] and len(data["standings"]) == 2
    assert data["spread"] != 0  # turn 10 of the example: the scores differ


def test_a_cgp_position_gives_the_spread_and_its_opponent_rack_is_not_used(runner, tmp_path):
    """A CGP position's scores are the spread, as a record's are; the other rack it gives is
    checked against the unseen tiles and said not to be used (--opponent-rack is)."""
    position = runner.invoke(cli, ["solve", "boards/midgame.txt", "--rack", "RETAINS", "--cgp", "--top", "1"])
    assert position.exit_code == 0, position.output
    board = position.stdout.splitlines()[-1].split()[0]
    cgp = tmp_path / "midgame.cgp"
    cgp.write_text(f"{board} RETAINS/QZ 300/250 1\n", encoding="utf-8")
    result = runner.invoke(cli, ["sim", str(cgp), "-k", "2", "--iterations", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["spread"], data["scoreless_turns"]) == (50, 1)
    assert "the opponent's tiles the CGP gives (QZ) are not used" in result.stderr
    given = runner.invoke(cli, ["sim", str(cgp), "-k", "2", "--iterations", "2", "--opponent-rack", "QZ", "--json"])
    assert given.exit_code == 0 and "not used" not in given.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponent-rack", "QQ"], "Error: --opponent-rack: the opponent's rack holds 2 Q, but only 1 is unseen"),
        (["--opponent-rack", " "], "Error: --opponent-rack is empty"),
        (["--stop", "90"], "Error: Invalid value for '--stop'"),
        (["--plies", "0"], "Error: Invalid value for '--plies'"),
        (["--time-limit", "0"], "Error: Invalid value for '--time-limit'"),
        (["--time-limit", "inf"], "Error: Invalid value for '--time-limit'"),
        (["--time-limit", "86401"], "Error: Invalid value for '--time-limit'"),
        (["--rack", ""], "Error: --rack is empty"),
        # (one line: no warning about the position saying it too)
        (["--rack", "ZZZ"], "Error: the board and the rack hold 3 Z tiles, more than the 1 in the scrabble set"),
    ],
)
def test_bad_input_is_one_line_and_status_2(runner, args, message):
    result = runner.invoke(cli, ["sim", *SMALL, *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(message), result.stderr


@pytest.mark.parametrize("option", [["--rank", "score"], ["--all"], ["--at", "H8"], ["--show-board"]])
def test_solve_sim_refuses_what_means_nothing_with_it(runner, option):
    result = runner.invoke(cli, ["solve", "boards/midgame.txt", "--rack", "RETAINS", "--sim", *option])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: --sim cannot be used with {option[0]}"), result.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_ctrl_c_prints_the_standings_so_far(runner, monkeypatch, as_json):
    real = sim.run_iteration
    calls = []

    def interrupted_sixth(*args):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(sim, "run_iteration", interrupted_sixth)
    args = ["sim", "boards/midgame.txt", "--rack", "RETAINS", "-k", "2", "--iterations", "100", "--seed", "1"]
    result = runner.invoke(cli, args + (["--json"] if as_json else []))
    assert result.exit_code == 130, result.output
    assert result.stderr == "Stopped: after 4 iterations; the standings cover them\n"
    if as_json:
        data = json.loads(result.stdout)
        assert data["stopped"] == "interrupted" and data["iterations"] == 4
        assert all(s["iterations"] == 4 for s in data["standings"])
    else:
        assert result.stdout.splitlines()[-1] == "4 iterations: stopped."


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc")
def test_sigterm_stops_a_run_on_workers_with_the_standings_so_far(full_lexicon):
    args = ["sim", "boards/midgame.txt", "--rack", "RETAINS", "-k", "3", "--iterations", "1000000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver_cli", *args, "--stop", "none", "--jobs", "2", "--seed", "1", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        pids = wait_until(lambda: len(workers_of(proc.pid)) == 2 and workers_of(proc.pid), 60, "two workers")
        time.sleep(1)  # (some iterations done, most likely)
    finally:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    data = json.loads(out)
    assert data["stopped"] == "interrupted" and data["jobs"] == 2
    assert err.decode() == f"Stopped: after {data['iterations']:,} iterations; the standings cover them\n"
    assert all(s["iterations"] == data["iterations"] for s in data["standings"])
    wait_until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), 5, "workers gone")


@pytest.mark.parametrize("as_json", [False, True])
def test_the_live_table_is_for_a_terminal_only(runner, monkeypatch, as_json):
    """On a terminal the standings so far are drawn on stderr while the run goes on (never
    with --json); stdout is the same either way."""
    from solver_cli.cli import _sim as sim_command

    drawn = []
    real = sim_command.standings_table

    def counted(result, describe, title):
        drawn.append(title)
        return real(result, describe, title)

    monkeypatch.setattr(sim_command, "standings_table", counted)
    args = ["sim", *SMALL, "--seed", "3"] + (["--json"] if as_json else [])
    plain = runner.invoke(cli, args)
    monkeypatch.setattr(sim_command, "on_terminal", lambda: True)
    drawn.clear()
    live = runner.invoke(cli, args)
    assert live.exit_code == plain.exit_code == 0, live.output
    if as_json:
        assert drawn == [] and live.stderr == ""
        assert json.loads(live.stdout)["standings"] == json.loads(plain.stdout)["standings"]
    else:
        assert drawn[0] == "Simulating: 4 iterations" and drawn[-1] is None  # the live one, then stdout's
        assert live.stdout == plain.stdout


def test_a_win_probability_function_gives_the_win_column(runner, monkeypatch):
    """``run_sim`` passes a win-probability function on (the table of P(win | spread, unseen)
    plugs in there): the standings gain a Win % column and the JSON its figures."""
    from solver_cli.cli import _sim

    real = _sim.run_sim

    def with_chances(*args, **kwargs):
        return real(*args, **kwargs, win_probability=lambda spread, unseen: 0.25)

    monkeypatch.setattr("solver_cli.cli.sim.run_sim", with_chances)
    table = runner.invoke(cli, ["sim", *SMALL, "--seed", "1"])
    assert table.exit_code == 0, table.output
    assert "Win %" in table.stdout and " 75.0 │" in table.stdout  # the opponent is to move: 1 - 0.25
    data = json.loads(runner.invoke(cli, ["sim", *SMALL, "--seed", "1", "--json"]).stdout)
    assert all(s["win"] == pytest.approx(0.75) and s["win_stderr"] == 0 for s in data["standings"])


# --- win probabilities and the opponent's racks (issue 22) ------------------------------------


def test_the_shipped_win_table_ranks_by_win_percent(runner):
    data = json.loads(runner.invoke(cli, ["sim", *SMALL, "-k", "3", "--seed", "2", "--json"]).stdout)
    assert (data["win_table"], data["ranked_by"]) == ("scrabble-kjxqz", "win")
    wins = [s["win"] for s in data["standings"]]
    assert all(0 < w < 1 for w in wins) and wins == sorted(wins, reverse=True)
    table = runner.invoke(cli, ["sim", *SMALL, "--seed", "2"])
    assert "by win %" in table.stdout.splitlines()[0] and "Win %" in table.stdout


def test_rank_spread_orders_by_mean_points_and_keeps_the_win_column(runner):
    data = json.loads(
        runner.invoke(cli, ["sim", *SMALL, "-k", "3", "--seed", "2", "--json", "--rank", "spread"]).stdout
    )
    assert data["ranked_by"] == "spread" and all(s["win"] is not None for s in data["standings"])
    means = [s["mean"] for s in data["standings"]]
    assert means == sorted(means, reverse=True)


def test_the_stopping_rule_compares_what_is_ranked(runner, monkeypatch):
    seen = []
    real = sim.simulate

    def spy(*args, **kwargs):
        seen.append(kwargs["objective"])
        return real(*args, **kwargs)

    monkeypatch.setattr(sim, "simulate", spy)
    for rank in ("win", "spread"):
        assert runner.invoke(cli, ["sim", *SMALL, "--seed", "1", "--rank", rank]).exit_code == 0
    assert seen == ["win", "points"]


WWF = ["boards/wwf-midgame.txt", "--rules", "wwf", "--rack", "RETAINS", "-k", "2", "--iterations", "4", "--seed", "1"]


def test_without_a_win_table_one_note_and_no_win_column(runner):
    result = runner.invoke(cli, ["sim", *WWF])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Note: no win probabilities for wwf") and len(result.stderr.splitlines()) == 1
    assert "Win %" not in result.stdout and "by mean points" in result.stdout
    data = json.loads(runner.invoke(cli, ["sim", *WWF, "--json"]).stdout)
    assert data["win_table"] is None and data["ranked_by"] == "spread"
    assert all(s["win"] is None for s in data["standings"])
    refused = runner.invoke(cli, ["sim", *WWF, "--rank", "win"])
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (
        "Error: --rank win needs a win-probability table for wwf; use --rank spread"
    )


def test_solve_sim_carries_the_win_percent(runner, monkeypatch):
    from solver_cli.cli import _sim as sim_command

    monkeypatch.setattr(sim_command, "default_iterations", lambda plies: 4)
    result = runner.invoke(cli, ["solve", "boards/midgame.txt", "--rack", "RETAINS", "--sim", "--top", "2", "--json"])
    data = json.loads(result.stdout)
    assert data["ranked_by"] == "win" and all(s["win"] is not None for s in data["standings"])


OPENING = "#player1 bob Bob\n#player2 alice Alice\n>bob: ADEFIR 8D FAIRED +28 28\n>alice: EEILNOU -EEU +0 0\n"


@pytest.fixture
def opening(tmp_path):
    path = tmp_path / "opening.gcg"
    path.write_text(OPENING)
    return str(path)


def _drawn_racks(monkeypatch):
    drawn = []
    real = sim.InferredRacks.__call__

    def recording(self, rng, unseen):
        rack = real(self, rng, unseen)
        drawn.append((rack, unseen))
        return rack

    monkeypatch.setattr(sim.InferredRacks, "__call__", recording)
    return drawn


def test_sim_draws_the_opponents_racks_from_the_inference(runner, monkeypatch, opening):
    """bob opened with FAIRED, keeping one tile: the inference keeps only some of the 27
    leaves, and every rack the simulation gives bob holds one of them."""
    from solver_cli.engine.alphabet import parse_rack

    inferred = json.loads(runner.invoke(cli, ["infer", opening, "--turn", "2", "--top", "30", "--json"]).stdout)
    kept = {entry["leave"] for entry in inferred["top"]}
    assert 1 <= len(kept) < 27
    drawn = _drawn_racks(monkeypatch)
    args = ["sim", opening, "--turn", "2", "-k", "2", "--iterations", "40", "--stop", "none", "--seed", "4"]
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["opponent_racks"]["source"] == "inferred" and data["opponent_racks"]["leaves"] == len(kept)
    assert len(drawn) == 40
    kept_codes = [parse_rack(leave, 7) for leave in kept]
    for rack, unseen in drawn:
        assert sum(rack) == 7 and all(n <= u for n, u in zip(rack, unseen, strict=True))
        assert any(all(n <= r for n, r in zip(leave, rack, strict=True)) for leave in kept_codes), rack
    text = runner.invoke(cli, args)
    shown = " ".join(text.stdout.split())  # (the line may be wrapped)
    assert f"Opponent's racks: inferred from bob's 8D FAIRED, 28 points (turn 1), {len(kept)} leaves kept" in shown


def test_no_infer_draws_from_the_unseen_tiles(runner, monkeypatch, opening):
    drawn = _drawn_racks(monkeypatch)
    samplers = []
    real = sim.draw_opponent

    def spy(setup, rng):
        samplers.append(setup.sampler)
        return real(setup, rng)

    monkeypatch.setattr(sim, "draw_opponent", spy)
    args = ["sim", opening, "--turn", "2", "-k", "2", "--iterations", "8", "--seed", "4", "--no-infer"]
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["opponent_racks"] == {"source": "unseen"}
    assert drawn == [] and samplers == [None] * 8
    assert "Opponent's racks: drawn from the unseen tiles" in runner.invoke(cli, args).stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--infer"], "Error: --infer needs the opponent's last play: a game record with --turn N"),
        (["--infer", "--opponent-rack", "EIRST"], "Error: --infer cannot be used with --opponent-rack"),
    ],
)
def test_infer_without_a_last_play_is_refused(runner, args, message):
    result = runner.invoke(cli, ["sim", *SMALL, *args])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith(message), result.stderr


def test_a_given_opponent_rack_is_named(runner):
    data = json.loads(runner.invoke(cli, ["sim", *SMALL, "--opponent-rack", "EIRST", "--json"]).stdout)
    assert data["opponent_racks"] == {"source": "given", "rack": "EIRST"}

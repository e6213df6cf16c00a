"""`scrab bench` runs end to end and reports every figure (no timing is asserted)."""

import json

import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.bench import POSITIONS
from solver_cli.cli import cli
from solver_cli.engine.movegen import NATIVE_BUILT, chosen_engine
from solver_cli.lexicon.build import chosen_builder


def test_bench_reports_every_field(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(
        cli,
        ["bench", "--lexicon", str(words), "--repeat", "1", "--runs", "1", "--skip-endgames", "--skip-sim", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    build = data["build"]
    assert build["builder"] == chosen_builder()
    assert build["words"] == len(small_words) and build["states"] > 0 and build["arcs"] > build["states"] // 2
    assert build["cache_bytes"] > 4 * (build["states"] + build["arcs"])
    for figure in (build["build"], data["load"], data["command"]):
        assert figure["min_ms"] <= figure["median_ms"] <= figure["max_ms"] and figure["min_ms"] > 0
    assert 5 < data["peak_memory_after_load_mb"] < 2000 and 5 < data["command_peak_memory_mb"] < 2000
    assert [(p["position"], p["rack"]) for p in data["positions"]] == [(name, rack) for name, _, _, rack in POSITIONS]
    assert {p["blanks"] for p in data["positions"]} == {0, 1, 2}
    assert {p["rules"] for p in data["positions"]} == {"scrabble", "wwf"}
    assert data["engines"] == [chosen_engine()]
    for p in data["positions"]:
        figures = p["engines"][chosen_engine()]
        assert p["moves"] > 0 and figures["every"]["median_ms"] > 0 and figures["best"]["median_ms"] > 0
    assert data["command_args"][:2] == ["scrab", "solve"] and "--json" in data["command_args"]
    assert data["sim"] is None  # --skip-sim


def test_bench_table(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(
        cli,
        [
            "bench",
            "--lexicon",
            str(words),
            "--repeat",
            "1",
            "--skip-build",
            "--skip-command",
            "--skip-endgames",
            "--skip-sim",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "cache load" in result.stdout and "Move generation and scoring" in result.stdout
    assert "cold GADDAG build" not in result.stdout
    for _name, _, _, rack in POSITIONS:
        assert rack in result.stdout


@python_engine_in_soak()  # --engine both times the two whatever SCRAB_ENGINE says: one run is enough
@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
def test_both_engines_side_by_side(tmp_path, small_words):
    """--engine both: each position timed on both engines in one run, and the speed-up."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-endgames"]
    args += ["--engine", "both", "--skip-sim"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data["engines"] == ["native", "python"]
    assert all(set(p["engines"]) == {"native", "python"} for p in data["positions"])
    table = CliRunner().invoke(cli, args, env={"COLUMNS": "200"}).stdout
    assert "native every" in table and "python best" in table and "native speed-up" in table


def test_an_engine_that_is_not_built_is_a_clear_error(monkeypatch):
    from solver_cli.engine import movegen

    monkeypatch.setattr(movegen, "NATIVE_BUILT", False)
    result = CliRunner().invoke(cli, ["bench", "--skip-build", "--skip-command", "--engine", "both", "--skip-sim"])
    assert result.exit_code == 2 and "native move generator is not built" in result.stderr


@python_engine_in_soak()  # the twin's endgame searches: 15 s, and its values are compared in tests/lookahead
def test_bench_endgames_section(tmp_path, small_words):
    """The endgame section solves the first N shipped endgames and reports how many were
    proven within the time limit, with the median, 95th percentile and max."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-sim"]
    args += ["--endgames", "2", "--endgame-time-limit", "1"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    endgames = data["endgames"]
    assert endgames["positions"] == 2 and 0 <= endgames["proven"] <= 2
    assert endgames["lexicon"] == "sowpods" and endgames["source"] == "endgames-sowpods.cgp"
    assert 0 < endgames["median_s"] <= endgames["p95_s"] <= endgames["max_s"] <= 1.1 + 0.5
    assert endgames["median_nodes"] > 0
    assert endgames["plies"] is None and endgames["finished"] == endgames["proven"]
    table = " ".join(CliRunner().invoke(cli, args, env={"COLUMNS": "200"}).stdout.split())  # (the title wraps)
    assert "Exact endgames" in table and "95th percentile" in table and "to the end)" in table
    assert (
        CliRunner()
        .invoke(cli, [*args[:-4], "--skip-endgames", "--skip-sim", "--json"])
        .stdout.count('"endgames": null')
        == 1
    )


@python_engine_in_soak()  # the twin's endgame searches
def test_bench_endgames_to_a_fixed_depth(tmp_path, small_words):
    """--endgame-plies N searches each endgame N plies deep: one that ends sooner is proven,
    the others finish their N plies unproven, and both count as searched to the end of N."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-sim"]
    args += ["--endgames", "3", "--endgame-time-limit", "20", "--endgame-plies", "1"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)["endgames"]
    # one ply settles none of the first three (each mover holds 7 tiles and none goes out at once)
    assert data["plies"] == 1 and data["finished"] == 3 and data["proven"] == 0
    table = " ".join(CliRunner().invoke(cli, args, env={"COLUMNS": "200"}).stdout.split())  # (the title wraps)
    assert "1 ply deep)" in table and "1 ply searched" in table and "time limit" not in table
    refused = CliRunner().invoke(cli, [*args[:-1], "0"])
    assert refused.exit_code == 2 and "--endgame-plies" in refused.stderr


@python_engine_in_soak()  # the twin's play-outs: long, and the simulation's engines are compared in tests/lookahead
def test_bench_sim_section(tmp_path, small_words, monkeypatch):
    """The sim section: two-ply iterations a second of ``simulate`` itself (whatever runs
    inside it), --repeat runs on one process and on two, the medians, the ratio; in the table
    and the JSON (--skip-sim leaves it out: test_bench_reports_every_field)."""
    from solver_cli.lookahead import sim

    calls = []
    simulate = sim.simulate

    def counted(*args, **kwargs):
        calls.append(kwargs["jobs"])
        return simulate(*args, **kwargs)

    monkeypatch.setattr(sim, "simulate", counted)
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "2", "--skip-build", "--skip-command", "--skip-endgames"]
    args += ["--sim-iterations", "3"]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["sim"]
    assert calls == [1, 2, 1, 2]  # the runs alternate
    assert (figures["position"], figures["rack"], figures["lexicon"]) == ("midgame.txt", "RETAINS", "sowpods")
    assert (figures["candidates"], figures["iterations"], figures["repeats"]) == (10, 3, 2)
    one, two = figures["one_job"], figures["two_jobs"]
    assert (one["jobs"], two["jobs"]) == (1, 2)
    for rate in (one, two):
        assert 0 < rate["min"] <= rate["median"] <= rate["max"] and rate["steady_median"] > 0
    assert figures["ratio"] == round(two["median"] / one["median"], 2) and figures["cpu_per_second"] > 0
    table = CliRunner().invoke(cli, [*args[:4], "1", *args[5:]], env={"COLUMNS": "200"}).stdout
    assert "Simulation (midgame.txt RETAINS, sowpods" in table and "median of 1 runs" in table
    assert "x one job" in table and "iterations per CPU second" in table


def test_a_stopped_bench_shows_the_sections_measured(tmp_path, small_words, monkeypatch):
    """Ctrl-C (or SIGTERM) during the endgames: the move generation measured before is
    shown (valid JSON, the endgames null), one Stopped: line, status 130; stopped before
    the move generation, nothing but the line."""
    from solver_cli import bench

    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-sim"]
    args += ["--endgames", "2"]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "measure_endgames", interrupted)
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 130
    data = json.loads(result.stdout)
    assert len(data["positions"]) == len(POSITIONS) and data["endgames"] is None and data["load"]["median_ms"] > 0
    assert result.stderr == "Stopped: interrupted; the sections measured before it are shown\n"
    table = CliRunner().invoke(cli, args)
    assert table.exit_code == 130 and "Move generation and scoring" in table.stdout
    monkeypatch.setattr(bench, "measure_positions", interrupted)
    early = CliRunner().invoke(cli, [*args, "--json"])
    assert (early.exit_code, early.stdout) == (130, "")
    assert early.stderr == "Stopped: interrupted before the move generation was measured\n"

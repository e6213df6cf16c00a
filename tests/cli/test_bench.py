"""`scrab bench` runs end to end and reports every figure (no timing is asserted)."""

import json

import pytest
from click.testing import CliRunner

from solver_cli.bench import POSITIONS
from solver_cli.cli import cli
from solver_cli.engine.movegen import NATIVE_BUILT, chosen_engine
from solver_cli.lexicon.build import chosen_builder


def test_bench_reports_every_field(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(
        cli, ["bench", "--lexicon", str(words), "--repeat", "1", "--runs", "1", "--skip-endgames", "--json"]
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


def test_bench_table(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(
        cli, ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-endgames"]
    )
    assert result.exit_code == 0, result.output
    assert "cache load" in result.stdout and "Move generation and scoring" in result.stdout
    assert "cold GADDAG build" not in result.stdout
    for _name, _, _, rack in POSITIONS:
        assert rack in result.stdout


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
def test_both_engines_side_by_side(tmp_path, small_words):
    """--engine both: each position timed on both engines in one run, and the speed-up."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command", "--skip-endgames"]
    args += ["--engine", "both"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    assert data["engines"] == ["native", "python"]
    assert all(set(p["engines"]) == {"native", "python"} for p in data["positions"])
    table = CliRunner().invoke(cli, args, env={"COLUMNS": "200"}).stdout
    assert "native every" in table and "python best" in table and "native speed-up" in table


def test_an_engine_that_is_not_built_is_a_clear_error(monkeypatch):
    from solver_cli.engine import movegen

    monkeypatch.setattr(movegen, "NATIVE_BUILT", False)
    result = CliRunner().invoke(cli, ["bench", "--skip-build", "--skip-command", "--engine", "both"])
    assert result.exit_code == 2 and "native move generator is not built" in result.stderr


def test_bench_endgames_section(tmp_path, small_words):
    """The endgame section solves the first N shipped endgames and reports how many were
    proven within the time limit, with the median, 95th percentile and max."""
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    args = ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command"]
    args += ["--endgames", "2", "--endgame-time-limit", "1"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout)
    endgames = data["endgames"]
    assert endgames["positions"] == 2 and 0 <= endgames["proven"] <= 2
    assert endgames["lexicon"] == "sowpods" and endgames["source"] == "endgames-sowpods.cgp"
    assert 0 < endgames["median_s"] <= endgames["p95_s"] <= endgames["max_s"] <= 1.1 + 0.5
    assert endgames["median_nodes"] > 0
    table = CliRunner().invoke(cli, args, env={"COLUMNS": "200"}).stdout
    assert "Exact endgames" in table and "95th percentile" in table
    assert CliRunner().invoke(cli, [*args[:-4], "--skip-endgames", "--json"]).stdout.count('"endgames": null') == 1

"""`scrab bench` runs end to end and reports every figure (no timing is asserted)."""

import json

from click.testing import CliRunner

from solver_cli.bench import POSITIONS
from solver_cli.cli import cli
from solver_cli.lexicon.build import chosen_builder


def test_bench_reports_every_field(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(cli, ["bench", "--lexicon", str(words), "--repeat", "1", "--runs", "1", "--json"])
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
    assert all(p["moves"] > 0 and p["generate"]["median_ms"] > 0 for p in data["positions"])
    assert data["command_args"][:2] == ["scrab", "solve"] and "--json" in data["command_args"]


def test_bench_table(tmp_path, small_words):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(small_words) + "\n")
    result = CliRunner().invoke(
        cli, ["bench", "--lexicon", str(words), "--repeat", "1", "--skip-build", "--skip-command"]
    )
    assert result.exit_code == 0, result.output
    assert "cache load" in result.stdout and "Move generation and scoring" in result.stdout
    assert "cold GADDAG build" not in result.stdout
    for _name, _, _, rack in POSITIONS:
        assert rack in result.stdout

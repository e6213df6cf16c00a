"""`scrab selfplay --save-games` with a tile set too small to fill both racks (issue #23,
item 8): every record it writes reads back, with no warning, as the game the run reported.
(The property over random rule sets is tests/formats/test_gcg_roundtrip.py.)"""

from __future__ import annotations

import json

from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.engine.alphabet import LETTERS
from solver_cli.engine.rules import load_rules
from solver_cli.formats.gcg_read import decode_gcg, read_gcg

TINY = {"A": 2, "E": 1, "T": 1, "?": 1}  # five tiles, racks of three: the second rack is short


def test_records_of_a_tiny_tile_set_read_back(tmp_path, small_words):
    words = tmp_path / "small.txt"
    words.write_text("\n".join(small_words) + "\n")
    tiles = "\n".join(f'"{ch}" = [{TINY.get(ch, 0)}, 1]' for ch in [*LETTERS, "?"])
    layout = ", ".join(['"....."'] * 5)
    rules_file = tmp_path / "tiny.toml"
    rules_file.write_text(f'name = "tiny"\nrack_size = 3\nlayout = [{layout}]\n[tiles]\n{tiles}\n')
    games = tmp_path / "games"
    args = ["--games", "8", "--seed", "5", "--rules", rules_file, "--lexicon", words, "--save-games", games]
    result = CliRunner().invoke(cli, ["selfplay", *map(str, args), "--json"])
    assert result.exit_code == 0, result.output
    reported = json.loads(result.stdout)["results"]
    rules = load_rules(str(rules_file))
    for number, path in enumerate(sorted(games.glob("*.gcg"))):
        text = decode_gcg(path.read_bytes(), str(path))
        assert "()" not in text and ":  " not in text, text
        record = read_gcg(text, rules, str(path))
        assert record.problems == (), text
        assert list(record.final_scores) == reported[number]["scores"]

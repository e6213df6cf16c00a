import pytest

from solver_cli.engine.rules import load_rules, parse_rules, shipped_rule_sets
from solver_cli.errors import RulesError


@pytest.mark.parametrize("name", ["scrabble", "wwf"])
def test_layout_is_symmetric_under_all_eight_board_symmetries(name):
    rules = load_rules(name)
    grid = [list(row) for row in rules.layout]
    n = rules.rows
    assert rules.rows == rules.cols == 15
    for r in range(n):
        for c in range(n):
            ch = grid[r][c]
            assert ch == grid[c][r] == grid[n - 1 - r][c] == grid[r][n - 1 - c], (r, c)


def test_shipped_rule_sets_are_listed():
    assert {"scrabble", "wwf"} <= set(shipped_rule_sets())


@pytest.mark.parametrize("spelling", ["WWF", "Wwf", "wWf"])
def test_shipped_names_in_any_case(spelling):
    from solver_cli import api

    assert load_rules(spelling) == load_rules("wwf")
    assert load_rules(spelling).name == "wwf" and api.load_rules(spelling) is api.load_rules("wwf")


def test_empty_rule_set_name_says_so():
    for name in ("", "   "):
        with pytest.raises(RulesError, match="empty rule-set name: give a shipped rule set .*super.* or a .toml file"):
            load_rules(name)


def test_scrabble_tiles_values_and_premiums():
    rules = load_rules("scrabble")
    assert rules.tile_total == 100 and rules.counts[0] == 2
    assert sum(c * v for c, v in zip(rules.counts, rules.values, strict=False)) == 187  # standard set
    assert rules.bingo_bonus == 50 and rules.rack_size == 7
    assert rules.centre == (7, 7)
    flat = "".join(rules.layout)
    assert [flat.count(code) for code in "dtDT"] == [24, 12, 17, 8]
    assert rules.layout[7][7] == "D"  # double-word centre
    assert rules.value_of("Q") == 10 and rules.value_of("K") == 5


def test_wwf_tiles_values_and_premiums():
    rules = load_rules("wwf")
    assert rules.tile_total == 104 and rules.counts[0] == 2
    assert rules.bingo_bonus == 35
    flat = "".join(rules.layout)
    assert [flat.count(code) for code in "dtDT"] == [24, 16, 12, 8]
    assert rules.layout[7][7] == "."  # no premium on the centre
    assert rules.value_of("J") == 10 and rules.value_of("B") == 4 and rules.value_of("V") == 5


@pytest.mark.parametrize(
    "text, message",
    [
        ("layout = ['..', '.']\n[tiles]\nA=[1,1]", "rectangular"),
        ("layout = ['.x', '..']\n[tiles]\nA=[1,1]", "unknown premium code 'x'"),
        ("layout = ['..', '..']", "missing [tiles]"),
        ("layout = ['..', '..']\n[tiles]\nA=[1,1]", "missing letter value for B"),
        ("layout = 3", "'layout' must be a list"),
        ("layout = [", "not valid TOML"),
    ],
)
def test_bad_rule_files_are_explained(text, message):
    with pytest.raises(RulesError, match=message.replace("[", r"\[")):
        parse_rules(text, "custom.toml")


def test_unknown_rule_set_name():
    with pytest.raises(RulesError, match="unknown rule set 'chess'"):
        load_rules("chess")

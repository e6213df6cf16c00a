"""Rule files are checked against fixed limits before anything is built from them (issue #15,
item 9): deep nesting, huge tile counts or values, and names that would break a GCG header
are one-line RulesErrors naming the file."""

from __future__ import annotations

from importlib import resources

import pytest

from solver_cli.engine.rules import (
    MAX_BINGO_BONUS,
    MAX_NAME_LENGTH,
    MAX_RACK_SIZE,
    MAX_TILE_VALUE,
    MAX_TILES,
    load_rules,
    parse_rules,
)
from solver_cli.errors import RulesError

SCRABBLE = (resources.files("solver_cli.data") / "rules" / "scrabble.toml").read_text()


def edited(old: str, new: str) -> str:
    assert old in SCRABBLE, old
    return SCRABBLE.replace(old, new, 1)


def refused(text: str, *words: str) -> str:
    with pytest.raises(RulesError) as info:
        parse_rules(text, "mine.toml")
    message = str(info.value)
    assert message.startswith("mine.toml: ") and "\n" not in message, message
    for word in words:
        assert word in message, message
    return message


def test_the_shipped_rules_are_within_the_limits():
    for name in ("scrabble", "wwf", "super"):
        rules = load_rules(name)
        assert rules.tile_total <= MAX_TILES and rules.rack_size <= MAX_RACK_SIZE


@pytest.mark.parametrize("depth", [40, 10_000])
def test_deeply_nested_toml_is_refused(depth):
    refused(SCRABBLE + "\nextra = " + "[" * depth + "]" * depth + "\n", "nested")


def test_nesting_in_strings_and_comments_is_not_counted():
    text = 'note = "' + "[" * 100 + '"\n# ' + "{" * 100 + "\nmore = '''" + "[" * 50 + "'''\n" + SCRABBLE
    assert parse_rules(text, "ok.toml").rack_size == 7


@pytest.mark.parametrize("count", [10**9, 10**30, MAX_TILES + 1])
def test_huge_tile_counts_are_refused(count):
    refused(edited("E = [12, 1]", f"E = [{count}, 1]"), "E", "tiles")


def test_the_total_of_the_tiles_is_bounded():
    text = SCRABBLE
    for letter in "ABCDEFGHIJ":
        text = text.replace(f"\n{letter} = [", f"\n{letter} = [{MAX_TILES // 8}, 1]\n#", 1)
    refused(text, "tiles", f"{MAX_TILES:,}")


@pytest.mark.parametrize("value", [10**9, 10**30, MAX_TILE_VALUE + 1])
def test_huge_letter_values_are_refused(value):
    refused(edited("Q = [1, 10]", f"Q = [1, {value}]"), "Q")


@pytest.mark.parametrize(("key", "value"), [("rack_size", MAX_RACK_SIZE + 1), ("rack_size", 10**30), ("rack_size", 0)])
def test_rack_size_is_bounded(key, value):
    refused(edited("rack_size = 7", f"{key} = {value}"), key)


@pytest.mark.parametrize("value", [MAX_BINGO_BONUS + 1, 10**30])
def test_bingo_bonus_is_bounded(value):
    refused(edited("bingo_bonus = 50", f"bingo_bonus = {value}"), "bingo_bonus")


@pytest.mark.parametrize(
    "name",
    [
        '"two\\nlines"',
        '"tab\\there"',
        '"bell\\u0007"',
        '"sep\\u2028x"',
        '""',
        '"' + "x" * (MAX_NAME_LENGTH + 1) + '"',
        "3",
    ],
)
def test_names_that_could_break_a_record_are_refused(name):
    refused(f"name = {name}\n" + SCRABBLE.replace('name = "scrabble"', ""), "name")


def test_titles_must_be_one_printable_line():
    refused('title = "a\\nb"\n' + SCRABBLE.replace("title = ", "old_title = "), "title")


def test_a_plain_name_and_title_are_kept():
    rules = parse_rules('name = "my-rules 2"\ntitle = "Mine, with é"\n' + _without("name", "title"), "x.toml")
    assert (rules.name, rules.title) == ("my-rules 2", "Mine, with é")


def _without(*keys: str) -> str:
    return "\n".join(line for line in SCRABBLE.splitlines() if line.split(" = ")[0] not in keys)


def test_a_file_name_with_a_line_break_gives_a_printable_default_name():
    rules = parse_rules(_without("name"), "/tmp/two\nlines.toml")
    assert rules.name == "two?lines"

"""Rule files are checked against fixed limits before anything is built from them (issue #15,
item 9): deep nesting, huge tile counts or values, and names that would break a GCG header
are one-line RulesErrors naming the file."""

from __future__ import annotations

from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver_cli.engine.rules import (
    MAX_BINGO_BONUS,
    MAX_KEY_PARTS,
    MAX_KEYS,
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


@pytest.mark.parametrize("key", ["out_gain", "out_loss", "stuck_loss"])
@pytest.mark.parametrize("value", ["-1", "11", "1.5", "true", '"2"'])
def test_end_of_game_factors_are_bounded(key, value):
    message = refused(edited(f"{key} = 1 ", f"{key} = {value} "), key)
    assert "from 0 to 10" in message


def test_end_of_game_factors_are_read_and_default_to_one():
    rules = parse_rules(edited("out_gain = 1 ", "out_gain = 2 ").replace("stuck_loss = 1 ", "stuck_loss = 0 "), "x")
    assert (rules.out_gain, rules.out_loss, rules.stuck_loss) == (2, 1, 0)
    bare = "\n".join(line for line in SCRABBLE.splitlines() if not line.startswith(("out_", "stuck_")))
    assert (lambda r: (r.out_gain, r.out_loss, r.stuck_loss))(parse_rules(bare, "x")) == (1, 1, 1)
    for name in ("scrabble", "wwf", "super"):
        shipped = load_rules(name)
        assert (shipped.out_gain, shipped.out_loss, shipped.stuck_loss) == (1, 1, 1)


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


# --- dotted keys, table headers and key counts: bounded before tomllib sees the text -------
# tomllib's time and memory grow with the square of a dotted key's parts: a 40,000-part key
# took 52 s and 6 GB, a 160,000-part header 33 s.


def test_a_long_dotted_key_is_refused_on_its_line():
    refused("y" + ".y" * 40_000 + " = 1\n" + SCRABBLE, "line 1:", "dotted key", f"more than {MAX_KEY_PARTS} parts")


def test_a_long_table_header_is_refused_on_its_line():
    lines = SCRABBLE.count("\n")
    refused(SCRABBLE + "[" + "y." * 160_000 + "y]\n", f"line {lines + 1}:", "table header")
    refused(SCRABBLE + "[[" + "y." * 50 + "y]]\n", f"line {lines + 1}:", "table header")


@pytest.mark.parametrize(
    "key",
    [
        ".".join(["a"] * (MAX_KEY_PARTS + 1)),
        " . ".join(["a"] * (MAX_KEY_PARTS + 1)),  # blanks around the dots are allowed in TOML
        ".".join(['"q.x"', "'lit'", "b", '""'] * 3),  # quoted parts count, their own dots do not
    ],
)
def test_every_spelling_of_a_dotted_key_is_counted(key):
    refused(SCRABBLE + f"\n{key} = 1\n", "dotted key")
    refused(SCRABBLE + f"\n[{key}]\n", "table header")
    refused(SCRABBLE + f"\nt = {{ {key} = 1 }}\n", "dotted key")


def test_keys_and_headers_at_the_limit_are_read():
    key = ".".join(f"k{i}" for i in range(MAX_KEY_PARTS))
    rules = parse_rules(f"{key} = 1\n" + SCRABBLE + f"\n[{key.replace('k0', 'h0')}]\nx = 1\n", "ok.toml")
    assert rules.rack_size == 7


@pytest.mark.parametrize(
    "trap",
    [
        "t = {{ s = '''a'''', {key} = 1 }}",  # a closing ''' may be followed by two of its own quotes
        't = {{ s = """a"""", {key} = 1 }}',
        't = {{ s = """a""""", {key} = 1 }}',
        't = {{ s = "a\\"", {key} = 1 }}',  # an escaped quote does not end the string
        "t = {{ s = 'a\\', {key} = 1 }}",  # but a backslash in a literal string escapes nothing
        't = {{ s = """a\\"""b""", {key} = 1 }}',
        "t = [ '''x\n''', {{ {key} = 1 }} ]",
    ],
)
def test_a_string_cannot_hide_a_dotted_key_from_the_scan(trap):
    import tomllib

    text = SCRABBLE + "\n" + trap.format(key=".".join(["y"] * 20)) + "\n"
    tomllib.loads(text)  # valid TOML: tomllib would read the key
    refused(text, "dotted key")


def test_dots_in_strings_comments_and_numbers_are_not_counted():
    dots = "a." * 50
    text = (
        f"note = \"{dots}\"\nlit = '{dots}'\nml = \"\"\"\n{dots}\n\"\"\"\nmll = '''{dots}'''\n"
        f"# {dots}\nnumbers = [1.5, 2.5, 3.5e3, 1979-05-27T07:32:00.999]\n" + SCRABBLE
    )
    assert parse_rules(text, "ok.toml").rack_size == 7


def test_the_number_of_keys_and_headers_is_bounded():
    extra = "".join(f"x{i} = 1\n" for i in range(MAX_KEYS))
    import tomllib

    data = tomllib.loads(SCRABBLE)
    shipped = len(data) - 1 + len(data["tiles"]) + 1  # its keys, the [tiles] header and its keys
    first_too_many = SCRABBLE.count("\n") + MAX_KEYS + 1 - shipped
    refused(SCRABBLE + extra, f"mine.toml: line {first_too_many}: more than {MAX_KEYS:,} keys and table headers")
    refused(SCRABBLE + "".join(f"[t{i}]\n" for i in range(MAX_KEYS)), "keys and table headers")
    refused(SCRABBLE + "x = [" + ", ".join("{a = 1}" for _ in range(MAX_KEYS)) + "]\n", "keys and table headers")


def test_a_few_hundred_extra_keys_are_fine():
    extra = "".join(f"x{i} = [1, 2]\n" for i in range(MAX_KEYS // 2))
    assert parse_rules(SCRABBLE + "\n[extra]\n" + extra, "ok.toml").rack_size == 7


@pytest.mark.parametrize(
    "text",
    [
        "y" + ".y" * 499_000 + " = 1\n",  # as long as the 1 MB file limit allows
        "[" + "y." * 499_000 + "y]\n",
        "[[" + "y." * 499_000 + "y]]\n",
    ],
)
def test_scrab_refuses_a_huge_dotted_key_at_once(tmp_path, text):
    """The whole command, in a fresh process with its memory capped and a generous timeout
    (before the pre-scan, such a file ran for hours and needed hundreds of GB)."""
    import os
    import resource
    import subprocess
    import sys

    rules = tmp_path / "dotted.toml"
    rules.write_text(text + SCRABBLE)
    words = tmp_path / "words.txt"
    words.write_text("CAT\nAT\n")

    def cap() -> None:
        if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # ASan's shadow memory exceeds any cap
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = subprocess.run(
        [sys.executable, "-m", "solver_cli", "check", "CAT", "--rules", str(rules), "--lexicon", str(words)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
        env={**os.environ, "SCRAB_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr[-2000:]
    assert proc.stderr == f"Error: {rules}: line 1: a dotted key or table header of more than {MAX_KEY_PARTS} parts\n"


STRING_CHARS = st.sampled_from(["a", ".", "'", '"', "\\", "\n", "[", "{", "]", "}", "#", "=", " ", '\\"', "\\\\"])


@st.composite
def toml_strings(draw) -> str:
    """A TOML string of any of the four kinds with awkward content (quotes, escapes, dots,
    brackets); often not valid TOML, which tomllib then refuses."""
    body = "".join(draw(st.lists(STRING_CHARS, max_size=12)))
    quote = draw(st.sampled_from(['"', "'", '"""', "'''"]))
    return quote + body + quote + draw(st.sampled_from(["", quote[0], quote[0] * 2]))


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(strings=st.lists(toml_strings(), min_size=1, max_size=3), deep=st.booleans())
def test_the_scan_finds_exactly_the_dotted_keys_that_tomllib_reads(strings, deep):
    """Whatever the strings before it, a long dotted key that tomllib reads is refused, and
    one that is not there is not: the pre-scan ends every string where tomllib does."""
    import tomllib

    key = ".".join(["y"] * (MAX_KEY_PARTS + 4 if deep else 2))
    text = "t = { " + ", ".join(f"s{i} = {s}" for i, s in enumerate(strings)) + f", {key} = 1 }}\n" + SCRABBLE
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # not TOML: whatever the scan says, tomllib refuses it
    if deep:
        refused(text, "dotted key")
    else:
        assert parse_rules(text, "ok.toml").rack_size == 7

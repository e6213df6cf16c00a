"""CGP (Macondo / Woogles position notation): parsing, formatting, detection, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from soak import examples, scaled

from solver_cli.errors import InputError
from solver_cli.formats.boardfile import parse_board
from solver_cli.formats.cgp import (
    Position,
    board_rows_to_cgp,
    format_cgp,
    looks_like_cgp,
    parse_cgp,
)

BOARDS = Path(__file__).resolve().parents[2] / "boards"
EMPTY_15 = "/".join(["15"] * 15)
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# The mid-game of boards/midgame.txt (the s of VERGLAs is a blank).
MIDGAME_BOARD = "15/11T3/6VERGLAs2/11N3/11N3/11E3/7OK2R3/7FADDY3/8BO5/9CARR2/15/15/15/15/15"
MIDGAME = f"{MIDGAME_BOARD} EIIMOTU/ 187/203 0 lex CSW21; bb 50; bdn CrosswordGame; ld english;"


def items(position: Position) -> list[tuple[str, str]]:
    """Options in order (dict equality ignores order)."""
    return list(position.options.items())


# ---------------------------------------------------------------------------------------------
# Parsing and formatting known strings


def test_empty_board_macondo_style():
    text = f"{EMPTY_15} AEINRST/ 0/0 0 lex NWL20;"
    position = parse_cgp(text)
    assert position == Position(["." * 15] * 15, ["AEINRST", ""], [0, 0], 0, {"lex": "NWL20"})
    assert format_cgp(position) == text


def test_midgame_matches_the_board_file(scrabble):
    position = parse_cgp(MIDGAME)
    expected = parse_board((BOARDS / "midgame.txt").read_text(), scrabble, "midgame.txt").to_rows()
    assert position.rows == expected
    assert position.rows[2] == "......VERGLAs.."
    assert position.racks == ["EIIMOTU", ""]
    assert position.scores == [187, 203]
    assert position.zero_turns == 0
    assert items(position) == [("lex", "CSW21"), ("bb", "50"), ("bdn", "CrosswordGame"), ("ld", "english")]
    assert board_rows_to_cgp(expected) == MIDGAME_BOARD
    assert format_cgp(position) == MIDGAME


@pytest.mark.parametrize(
    "row, squares",
    [
        ("15", "." * 15),
        ("10ABCDE", "." * 10 + "ABCDE"),
        ("ABCD11", "ABCD" + "." * 11),
        ("7RETAINs1", ".......RETAINs."),
        ("1A1b1C1d1E1f1G1", ".A.b.C.d.E.f.G."),
        ("ABCDEFGHIJKLMNO", "ABCDEFGHIJKLMNO"),
    ],
)
def test_multi_digit_runs_and_rows(row, squares):
    text = f"{row}/{row} A/B 1/2 3"
    position = parse_cgp(text)
    assert position.rows == [squares, squares]
    assert format_cgp(position) == text


def test_run_wider_than_ten_in_the_middle():
    position = parse_cgp("A11B/13 / 0/0 0")
    assert position.rows == ["A" + "." * 11 + "B", "." * 13]


def test_leading_zeros_in_a_run_are_read_but_not_written():
    position = parse_cgp("07A/8 / 0/0 0")
    assert position.rows == [".......A", "........"]
    assert format_cgp(position) == "7A/8 / 0/0 0"


@pytest.mark.parametrize(
    "text",
    [
        f"{EMPTY_15} / 0/0 0",
        f"{EMPTY_15} AEIRST?/ 0/0 0",
        f"{EMPTY_15} /AEIRST? 12/-7 3",
        f"{EMPTY_15} ABC/DEF/GHI 1/2/3 6 var classic;",
        f"{EMPTY_15} Q 0 0",
        f"{MIDGAME_BOARD} ??/ 0/-5 0",
        MIDGAME,
        f"{EMPTY_15} A/B 0/0 0 lex NWL20; bb 35; x; gid ab cd; tmr 600000/600000;",
        f"{EMPTY_15} A/B 0/0 0 foo;",
        "1/1 / 0/0 0",
        "a/Z / 0/0 0",
    ],
)
def test_canonical_strings_round_trip(text):
    assert format_cgp(parse_cgp(text)) == text


def test_racks_scores_and_zero_turns():
    position = parse_cgp(f"{EMPTY_15} aeiRST?/bq 340/-412 5")
    assert position.racks == ["AEIRST?", "BQ"]  # lowercase rack letters are read as uppercase
    assert position.scores == [340, -412]
    assert position.zero_turns == 5
    assert position.options == {}
    assert format_cgp(position) == f"{EMPTY_15} AEIRST?/BQ 340/-412 5"


def test_slash_alone_is_two_empty_racks():
    assert parse_cgp(f"{EMPTY_15} / 0/0 0").racks == ["", ""]


def test_opcodes_with_and_without_values_in_order_unknown_kept():
    text = f"{EMPTY_15} A/ 0/0 0 zeta 1; lex CSW21; nothing; bb -5; gid a  b; ld english; alpha;"
    position = parse_cgp(text)
    assert items(position) == [
        ("zeta", "1"),
        ("lex", "CSW21"),
        ("nothing", ""),
        ("bb", "-5"),
        ("gid", "a  b"),  # inner whitespace of a value is kept
        ("ld", "english"),
        ("alpha", ""),
    ]
    assert format_cgp(position) == text


def test_opcode_spacing_is_normalised():
    position = parse_cgp(f"{EMPTY_15} A/ 0/0 0   lex   CSW21 ;bb 0;x  ;  var wordsmith;")
    assert items(position) == [("lex", "CSW21"), ("bb", "0"), ("x", ""), ("var", "wordsmith")]
    assert format_cgp(position) == f"{EMPTY_15} A/ 0/0 0 lex CSW21; bb 0; x; var wordsmith;"


def test_runs_of_whitespace_between_fields():
    text = f"  {EMPTY_15} \t AEINRST/   0/0\t\t0    lex NWL20;  "
    position = parse_cgp(text)
    assert position == parse_cgp(f"{EMPTY_15} AEINRST/ 0/0 0 lex NWL20;")
    assert format_cgp(position) == f"{EMPTY_15} AEINRST/ 0/0 0 lex NWL20;"


def test_file_content_with_comments_blank_lines_bom_and_crlf():
    text = f"\ufeff# a saved position\r\n\r\n   # indented comment\r\n{MIDGAME}\r\n\r\n# trailing\r\n"
    assert looks_like_cgp(text)
    position = parse_cgp(text, "pos.cgp")
    assert format_cgp(position) == MIDGAME


def test_board_rows_to_cgp_is_only_the_board_field():
    assert board_rows_to_cgp(["." * 15] * 15) == EMPTY_15
    assert board_rows_to_cgp(["...CAt", "......", "Q....."]) == "3CAt/6/Q5"


def test_default_position_fields():
    position = Position(["..."], ["A", ""], [0, 0])
    assert position.zero_turns == 0 and position.options == {}
    assert format_cgp(position) == "3 A/ 0/0 0"


# ---------------------------------------------------------------------------------------------
# Round trips with generated positions

SQUARE = st.sampled_from(["."] * 52 + list(UPPER) + list(UPPER.lower()))
KNOWN = ("lex", "bb", "bdn", "ld", "var")
OP_NAME = st.text(alphabet=UPPER.lower() + "0123456789_-.:", min_size=1, max_size=6).filter(lambda s: s not in KNOWN)
# Values: anything one line long with no ';' and no whitespace at either end (tabs, unicode...).
OP_VALUE = st.text(
    alphabet=st.characters(
        blacklist_characters=";\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", blacklist_categories=("Cs",)
    ),
    max_size=12,
).filter(lambda s: s == s.strip())
WORD = st.text(alphabet=UPPER + UPPER.lower() + "0123456789", min_size=1, max_size=10)


@st.composite
def boards(draw):
    height = draw(st.integers(1, 21))
    width = draw(st.integers(1, 25))
    return ["".join(draw(st.lists(SQUARE, min_size=width, max_size=width))) for _ in range(height)]


@st.composite
def option_dicts(draw):
    options: dict[str, str] = {}
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["unknown", "valued", "bb"]))
        if kind == "unknown":
            options[draw(OP_NAME)] = draw(OP_VALUE)
        elif kind == "valued":
            options[draw(st.sampled_from(("lex", "bdn", "ld", "var")))] = draw(WORD)
        else:
            options["bb"] = str(draw(st.integers(-100, 100)))
    return options


@st.composite
def positions(draw):
    players = draw(st.integers(1, 4))
    racks = draw(
        st.lists(st.text(alphabet=UPPER + "?", max_size=9), min_size=players, max_size=players).filter(
            lambda r: r != [""]
        )
    )
    scores = draw(st.lists(st.integers(-(10**6), 10**6), min_size=players, max_size=players))
    return Position(draw(boards()), racks, scores, draw(st.integers(0, 10**4)), draw(option_dicts()))


@scaled  # a sixth of the cases in a plain run, all in the soak step
@settings(max_examples=examples(300))
@given(positions())
def test_parse_format_round_trip(position):
    text = format_cgp(position)
    back = parse_cgp(text)
    assert back == position
    assert items(back) == items(position)
    assert format_cgp(back) == text
    assert "\n" not in text and "  " not in text.split(" ", 4)[0]
    if len(position.rows) > 1:
        assert looks_like_cgp(text)


@given(boards())
def test_board_field_round_trip(rows):
    field = board_rows_to_cgp(rows)
    assert "." not in field and ".." not in field
    assert parse_cgp(f"{field} / 0/0 0").rows == rows
    assert field.count("/") == len(rows) - 1


# ---------------------------------------------------------------------------------------------
# Detection


@pytest.mark.parametrize(
    "text",
    [
        f"{EMPTY_15} AEINRST/ 0/0 0 lex NWL20;",
        MIDGAME,
        f"{EMPTY_15} / 0/0 0",
        f"  {EMPTY_15}   A/B  0/0   0  ",
        f"# saved\n\n{MIDGAME}\n# end\n",
        f"\ufeff{MIDGAME}\r\n",
        f"{EMPTY_15} AEINRST/",  # incomplete, but clearly meant as CGP: parse_cgp names the gap
    ],
)
def test_looks_like_cgp(text):
    assert looks_like_cgp(text)


@pytest.mark.parametrize("name", ["empty.txt", "midgame.txt", "opening.txt", "wwf-midgame.txt"])
def test_shipped_board_files_are_not_cgp(name):
    text = (BOARDS / name).read_text()
    assert text.lstrip().startswith("#")  # they have comments
    assert not looks_like_cgp(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n# only a comment\n",
        "\n".join(["." * 15] * 15) + "\n",
        "# one-row board\n...CAT.\n",
        "...CAT.",
        "boards/midgame.txt",
        "/tmp/positions/board",  # a path: one field only
        "./boards/x y",
        EMPTY_15,  # a board field alone is not a position
        f"{EMPTY_15} A/ 0/0 0\n{EMPTY_15} A/ 0/0 0",  # two positions
        "15/15/15.txt AEI/ 0/0 0",
        "15/15/1#3 AEI/ 0/0 0",
        "15 AEI/ 0/0 0",  # a one-row board has no '/': the rule leaves it out
    ],
)
def test_does_not_look_like_cgp(text):
    assert not looks_like_cgp(text)


# ---------------------------------------------------------------------------------------------
# Errors, each a single line naming the source


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "CGP: no position (the text is empty)"),
        ("  \n# comment only\n\n", "CGP: no position (the text is empty)"),
        (
            f"# c\n{EMPTY_15} A/ 0/0 0\n\n{EMPTY_15} A/ 0/0 0\n",
            "CGP: more than one line (line 4 is neither blank nor a '#' comment)",
        ),
        (EMPTY_15, "CGP: no racks field after the board"),
        (f"{EMPTY_15} A/", "CGP: no scores field after the racks"),
        (f"{EMPTY_15} A/ 0/0", "CGP: no zero-turns field after the scores"),
        ("15//15 A/ 0/0 0", "CGP: board row 2 is empty"),
        ("15/15/ A/ 0/0 0", "CGP: board row 3 is empty"),
        ("/15 A/ 0/0 0", "CGP: board row 1 is empty"),
        ("15/7RETAIN0s1 A/ 0/0 0", "CGP: board row 2 has a run of 0 empty squares"),
        ("00/15 A/ 0/0 0", "CGP: board row 1 has a run of 0 empty squares"),
        ("1001/1001 A/ 0/0 0", "CGP: board row 1 is more than 1000 squares wide"),
        ("15/999A1 A/ 0/0 0", "CGP: board row 2 is more than 1000 squares wide"),
        ("1000/999AB A/ 0/0 0", "CGP: board row 2 is more than 1000 squares wide"),
        ("15/7RE#AIN1 A/ 0/0 0", "CGP: bad character '#' in board row 2, column 10"),
        ("15/15/7RETAIN.1 A/ 0/0 0", "CGP: bad character '.' in board row 3, column 14"),
        ("?14/15 A/ 0/0 0", "CGP: bad character '?' in board row 1, column 1"),
        ("15/14é A/ 0/0 0", "CGP: bad character 'é' in board row 2, column 15"),
        ("15/14\x00 A/ 0/0 0", "CGP: bad character U+0000 in board row 2, column 15"),
        ("15/15/14 A/ 0/0 0", "CGP: board row 3 has 14 squares, expected 15"),
        ("15/15/16 A/ 0/0 0", "CGP: board row 3 has 16 squares, expected 15"),
        ("15/7RETAINs2 A/ 0/0 0", "CGP: board row 2 has 16 squares, expected 15"),
        (f"{EMPTY_15} AB1/ 0/0 0", "CGP: bad character '1' in rack 1 (use A-Z, ? for a blank)"),
        (f"{EMPTY_15} A/B*C 0/0 0", "CGP: bad character '*' in rack 2 (use A-Z, ? for a blank)"),
        (f"{EMPTY_15} A/É 0/0 0", "CGP: bad character 'É' in rack 2 (use A-Z, ? for a blank)"),
        (f"{EMPTY_15} A/ 0/x 0", "CGP: score 2 must be an integer, got 'x'"),
        (f"{EMPTY_15} A/ 0/ 0", "CGP: score 2 must be an integer, got ''"),
        (f"{EMPTY_15} A/ +3/0 0", "CGP: score 1 must be an integer, got '+3'"),
        (f"{EMPTY_15} A/ 1.5/0 0", "CGP: score 1 must be an integer, got '1.5'"),
        (f"{EMPTY_15} A/B 0/0/0 0", "CGP: 2 racks but 3 scores"),
        (f"{EMPTY_15} A/B/C 0/0 0", "CGP: 3 racks but 2 scores"),
        (f"{EMPTY_15} A 0/0 0", "CGP: 1 rack but 2 scores"),
        (f"{EMPTY_15} A/B 0 0", "CGP: 2 racks but 1 score"),
        (f"{EMPTY_15} A/ 0/0 -1", "CGP: zero-turns count must be a non-negative integer, got '-1'"),
        (f"{EMPTY_15} A/ 0/0 x", "CGP: zero-turns count must be a non-negative integer, got 'x'"),
        (f"{EMPTY_15} A/ 0/0 1.0", "CGP: zero-turns count must be a non-negative integer, got '1.0'"),
        (f"{EMPTY_15} A/ 0/0 0 lex CSW21", "CGP: opcode 'lex' must end with ';'"),
        (f"{EMPTY_15} A/ 0/0 0 lex CSW21; bb 0", "CGP: opcode 'bb' must end with ';'"),
        (f"{EMPTY_15} A/ 0/0 0 ;", "CGP: empty opcode (a ';' with no name before it)"),
        (f"{EMPTY_15} A/ 0/0 0 lex CSW21;;", "CGP: empty opcode (a ';' with no name before it)"),
        (f"{EMPTY_15} A/ 0/0 0 lex CSW21;  ; bb 0;", "CGP: empty opcode (a ';' with no name before it)"),
        (f"{EMPTY_15} A/ 0/0 0 lex CSW21; x; lex NWL20;", "CGP: opcode 'lex' given twice"),
        (f"{EMPTY_15} A/ 0/0 0 foo; foo 1;", "CGP: opcode 'foo' given twice"),
        (f"{EMPTY_15} A/ 0/0 0 lex;", "CGP: opcode 'lex' needs a value"),
        (f"{EMPTY_15} A/ 0/0 0 bdn ;", "CGP: opcode 'bdn' needs a value"),
        (f"{EMPTY_15} A/ 0/0 0 ld;", "CGP: opcode 'ld' needs a value"),
        (f"{EMPTY_15} A/ 0/0 0 var;", "CGP: opcode 'var' needs a value"),
        (f"{EMPTY_15} A/ 0/0 0 bb fifty;", "CGP: opcode 'bb' needs an integer, got 'fifty'"),
        (f"{EMPTY_15} A/ 0/0 0 bb;", "CGP: opcode 'bb' needs an integer, got ''"),
        (f"{EMPTY_15} A/ 0/0 0 bb 1.5;", "CGP: opcode 'bb' needs an integer, got '1.5'"),
        (f"{EMPTY_15} A/ 0/0 0 bb 5 0;", "CGP: opcode 'bb' needs an integer, got '5 0'"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(InputError) as info:
        parse_cgp(text)
    assert str(info.value) == message
    assert "\n" not in str(info.value)


def test_errors_name_the_source():
    with pytest.raises(InputError) as info:
        parse_cgp("# saved\n15/15/14 A/ 0/0 0\n", "games/pos.cgp")
    assert str(info.value) == "games/pos.cgp: board row 3 has 14 squares, expected 15"


# ---------------------------------------------------------------------------------------------
# Positions CGP cannot hold


@pytest.mark.parametrize(
    "position, message",
    [
        (Position([], ["A", ""], [0, 0]), "a CGP board needs at least one row"),
        (Position(["", ""], ["A", ""], [0, 0]), "a CGP board row cannot be empty"),
        (Position(["...", ".."], ["A", ""], [0, 0]), "board row 2 has 2 squares, expected 3"),
        (Position(["...", ".1."], ["A", ""], [0, 0]), "bad character '1' in board row 2"),
        (Position(["...", ".?."], ["A", ""], [0, 0]), "bad character '?' in board row 2"),
        (Position(["..."], [], []), "CGP cannot write no racks or a single empty rack"),
        (Position(["..."], [""], [0]), "CGP cannot write no racks or a single empty rack"),
        (Position(["..."], ["A", "b"], [0, 0]), "bad character 'b' in rack 2"),
        (Position(["..."], ["A/B", ""], [0, 0]), "bad character '/' in rack 1"),
        (Position(["..."], ["A", ""], [0]), "2 racks but 1 score"),
        (Position(["..."], ["A", ""], [0, 0], -1), "the zero-turns count cannot be negative"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"": "x"}), "bad opcode name ''"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"a b": "x"}), "bad opcode name 'a b'"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"a;": "x"}), "bad opcode name 'a;'"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"x": "a;b"}), "opcode 'x' has a value CGP cannot hold: 'a;b'"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"x": " a"}), "opcode 'x' has a value CGP cannot hold: ' a'"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"x": "a\nb"}), "opcode 'x' has a value CGP cannot hold: 'a\\nb'"),
        (
            Position(["..."], ["A", ""], [0, 0], 0, {"x": "a\u2028b"}),
            "opcode 'x' has a value CGP cannot hold: 'a\\u2028b'",
        ),
        (Position(["..."], ["A", ""], [0, 0], 0, {"lex": ""}), "opcode 'lex' needs a value"),
        (Position(["..."], ["A", ""], [0, 0], 0, {"bb": "x"}), "opcode 'bb' needs an integer, got 'x'"),
    ],
)
def test_format_errors(position, message):
    with pytest.raises(ValueError) as info:
        format_cgp(position)
    assert str(info.value) == message

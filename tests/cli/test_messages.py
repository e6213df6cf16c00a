"""Counts in messages agree with their nouns: "1 tile", "1 row", "1 vowel", "1 die" (one
helper, solver_cli._text.plural, words them all)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from solver_cli._text import plural
from solver_cli.cli import cli
from solver_cli.cli.render import unseen_lines
from solver_cli.engine.alphabet import CODE
from solver_cli.engine.rules import load_rules
from solver_cli.engine.unseen import Unseen
from solver_cli.errors import InputError
from solver_cli.formats.boardfile import parse_board
from solver_cli.games.boggle import parse_grid


def test_plural():
    assert [plural(n, "tile") for n in (0, 1, 2, 1598)] == ["0 tiles", "1 tile", "2 tiles", "1,598 tiles"]
    assert plural(1, "die", "dice") == "1 die" and plural(3, "die", "dice") == "3 dice"


def test_the_unseen_line_says_1_vowel_1_consonant_1_blank():
    counts = [0] * 27
    counts[0] = counts[CODE["E"]] = counts[CODE["Z"]] = 1
    assert unseen_lines(Unseen(tuple(counts), ()), 200) == ["Unseen 3 tiles (1 vowel, 1 consonant, 1 blank): EZ?"]
    counts[0] = counts[CODE["Z"]] = 0
    assert unseen_lines(Unseen(tuple(counts), ()), 200) == ["Unseen 1 tile (1 vowel, 0 consonants): E"]


def test_a_board_file_with_1_row_of_1_square():
    rules = load_rules("scrabble")
    with pytest.raises(InputError, match=r"^b\.txt, line 1: row has 1 square, expected 15$"):
        parse_board(".\n", rules, "b.txt")
    with pytest.raises(InputError, match=r"^b\.txt: board has 1 row, expected 15 for scrabble$"):
        parse_board("." * 15 + "\n", rules, "b.txt")


@pytest.mark.parametrize(
    "grid, message",
    [
        ("ABCD", "grid 'ABCD': 1 row of 4 dice; a 4x4 grid needs 4 rows"),
        ("ABCD/EFGH/IJKL/M", "row 4: row has 1 die, expected 4"),
        ("A/BCDE/FGHI/JKLM", "row 1: a row of 1 die; a Boggle grid is"),
    ],
)
def test_a_boggle_grid_with_1_row_or_1_die(grid, message):
    with pytest.raises(InputError) as info:
        parse_grid(grid)
    assert message in str(info.value)


def test_2_results_of_1_word(tmp_path, full_lexicon):
    words = tmp_path / "words.txt"
    words.write_text("AA\nQI\n")
    result = CliRunner().invoke(cli, ["anagram", "A?", "--lexicon", str(words)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("2 results (1 word) using all of A?")


def test_a_bad_leave_is_called_a_leave(full_lexicon):
    """leaves show reads a leave as a rack is read; the error said "rack 'QX1'"."""
    result = CliRunner().invoke(cli, ["leaves", "show", "QX1"])
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "Error: leave 'QX1': bad character '1' at position 3 (use letters A-Z and ? for a blank)"
    )

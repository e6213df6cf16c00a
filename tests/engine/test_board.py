import pytest

from solver_cli.engine.alphabet import BLANK_BIT, CODE, parse_rack, rack_text
from solver_cli.engine.board import Board, anchors
from solver_cli.engine.crosscheck import cross_checks
from solver_cli.errors import InputError
from solver_cli.formats.boardfile import parse_board

EMPTY = "\n".join(["." * 15] * 15) + "\n"


def board_text(rows: dict[int, str]) -> str:
    lines = ["." * 15] * 15
    for r, text in rows.items():
        lines[r] = text.ljust(15, ".")
    return "\n".join(lines) + "\n"


def test_parse_tiles_blanks_comments_and_blank_lines(scrabble):
    text = "# a comment\n\n" + board_text({7: "...CAt"}).replace("\n", "\r\n", 3)
    board = parse_board("\ufeff" + text, scrabble, "b.txt")
    assert board.at(7, 3) == CODE["C"] and board.at(7, 5) == CODE["T"] | BLANK_BIT
    assert board.to_rows()[7] == "...CAt........."
    assert board.words() == [("CAt", 7, 3, False)]


@pytest.mark.parametrize(
    "text, message",
    [
        (board_text({3: "..X.1"}), "b.txt, line 4, column 5: unexpected character '1'"),
        (board_text({0: "....\t"}), "b.txt, line 1, column 5: unexpected character U+0009"),
        (board_text({2: "..é"}), "b.txt, line 3, column 3: unexpected character 'é'"),
        (board_text({5: "." * 16}), "b.txt, line 6: row has 16 squares, expected 15"),
        ("\n".join(["." * 15] * 14), "b.txt: board has 14 rows, expected 15 for scrabble"),
        (EMPTY + "...............\n", "b.txt, line 16: more than 15 rows"),
        ("", "b.txt: board has 0 rows"),
    ],
)
def test_bad_boards_name_file_line_and_column(scrabble, text, message):
    with pytest.raises(InputError) as info:
        parse_board(text, scrabble, "b.txt")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_anchors_on_empty_board_is_the_centre(scrabble):
    board = Board.empty(scrabble)
    flags = anchors(board, scrabble.centre)
    assert [i for i, f in enumerate(flags) if f] == [7 * 15 + 7]


def test_anchors_surround_tiles(scrabble):
    board = parse_board(board_text({7: "......AT"}), scrabble, "b")
    found = {(i // 15, i % 15) for i, f in enumerate(anchors(board, scrabble.centre)) if f}
    assert found == {(7, 5), (7, 8), (6, 6), (6, 7), (8, 6), (8, 7)}


def test_cross_checks_use_the_lexicon(scrabble, small_gaddag):
    # AT across on row 8. A down move's cross-check looks along the row: a tile on the
    # square left of AT must make ?AT a word.
    board = parse_board(board_text({7: "......AT"}), scrabble, "b")
    masks, scores = cross_checks(board, small_gaddag, scrabble.values, down=True)
    left = 7 * 15 + 5
    allowed = {chr(64 + c) for c in range(1, 27) if masks[left] >> c & 1}
    assert allowed == {
        w[0]
        for w in (
            "BAT",
            "CAT",
            "EAT",
            "FAT",
            "GAT",
            "HAT",
            "KAT",
            "LAT",
            "MAT",
            "OAT",
            "PAT",
            "QAT",
            "RAT",
            "SAT",
            "TAT",
            "VAT",
            "WAT",
        )
        if small_gaddag.contains(w)
    }
    assert scores[left] == 2  # A + T face values
    assert scores[7 * 15 + 4] == -1  # no perpendicular neighbour: anything goes
    # A blank on the board counts 0 toward the cross score.
    blank = parse_board(board_text({7: "......aT"}), scrabble, "b")
    assert cross_checks(blank, small_gaddag, scrabble.values, down=True)[1][left] == 1


def test_rack_parsing():
    assert rack_text(parse_rack("retains", 7)) == "AEINRST"
    assert rack_text(parse_rack("?a?", 7)) == "A??"
    for bad, message in [
        ("", "rack is empty"),
        ("ABCDEFGH", "has 8 tiles; a rack holds at most 7"),
        ("AB1", "bad character '1' at position 3"),
        ("AB*", "bad character '*' at position 3"),
    ]:
        with pytest.raises(InputError, match=message.replace("*", r"\*")):
            parse_rack(bad, 7)

"""Reading GCG game records: the constructs players' tools write, the records scrab itself
writes, malformed records (one error naming the line) and records that replay with
warnings (each problem on its line), scores checked against the brute-force reference,
and a fuzz test (garbled records never raise anything but InputError, and never hang)."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import reference_args
from reference import reference_score
from soak import examples, scaled

from solver_cli.engine.alphabet import BLANK_BIT, LETTERS, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.formats.gcg import game_text
from solver_cli.formats.gcg_read import decode_gcg, parse_gcg, read_gcg, replay_gcg
from solver_cli.formats.gcg_text import looks_like_gcg
from solver_cli.games.selfplay import play_game

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "gcg"
SCRABBLE = load_rules("scrabble")
WWF = load_rules("wwf")


def load(path: Path, rules=SCRABBLE, lexicon=None):
    text = decode_gcg(path.read_bytes(), str(path))
    contains = lexicon.contains if lexicon is not None else None
    return read_gcg(text, rules, str(path), contains, "kjxqz")


def problems(record) -> list[tuple[int, str]]:
    return [(p.line, p.kind) for p in record.problems]


def rows(squares) -> list[str]:
    return Board(SCRABBLE.rows, SCRABBLE.cols, list(squares)).to_rows()


def reference_turn_score(record, turn) -> int:
    """The brute-force reference's score of a recorded play (independent of scrab's scoring)."""
    placement = frozenset((r, c, LETTERS[(code & 31) - 1], bool(code & BLANK_BIT)) for r, c, code in turn.placed)
    args = reference_args(SCRABBLE)
    return reference_score(
        rows(turn.board), placement, args["premiums"], args["values"], args["bingo"], args["rack_size"]
    )


# ---------------------------------------------------------------------------------------------
# The example game and the styles of the tools that write GCG


def test_example_game_replays(full_lexicon):
    record = load(ROOT / "boards" / "example.gcg", lexicon=full_lexicon)
    assert record.players == ("alice", "bob")
    assert record.names == ("Alice Smith", "Bob Jones")
    assert record.lexicon == "kjxqz"
    assert record.final_scores == (331, 351)  # the last line of each player
    assert len(record.turns) == 29  # the '>' lines
    kinds = [t.kind for t in record.turns]
    assert kinds.count("exchange") == 1 and kinds.count("withdrawn") == 1
    assert kinds.count("challenge") == 1 and kinds[-1] == "out"
    # The phony, taken back on the next line: flagged, and off the board afterwards.
    phony = record.turns[6]
    assert (phony.line, phony.word, phony.phonies, phony.withdrawn) == (14, "ENTICSE", ("ENTICSE",), True)
    assert record.turns[8].board == phony.board  # the turn after the one taking it back
    assert problems(record) == [(14, "phony")]
    # Every play's score is what the brute-force reference gives, and every total adds up.
    for turn in record.turns:
        if turn.kind == "play":
            assert turn.score == turn.computed == reference_turn_score(record, turn), turn.line
    totals = [0, 0]
    for turn in record.turns:
        totals[turn.player] += turn.score
        assert turn.total == totals[turn.player]
    # The notes belong to the turn before them.
    assert record.turns[0].note.startswith("The blank for 22 points")
    assert record.turns[9].note.startswith("ENTICES was still there")


def test_the_same_game_in_every_style_replays_to_the_same_boards():
    """Quackle-style (lowercase coordinates, played-through letters written out, padded
    columns, cross-words after the total), Woogles-style (dots, extra passes, a time penalty,
    a note over two lines, unknown pragmas) and the example itself."""
    example = load(ROOT / "boards" / "example.gcg")
    quackle = load(DATA / "quackle.gcg")
    woogles = load(DATA / "woogles.gcg")
    plays = [t for t in example.turns if t.kind == "play"]
    for other in (quackle, woogles):
        assert [(t.position, t.word, t.placed) for t in other.turns if t.kind == "play"] == [
            (t.position, t.word, t.placed) for t in plays
        ]
        assert other.final_board == example.final_board
    assert quackle.final_scores == example.final_scores and not quackle.problems
    assert woogles.final_scores == (321, 351)  # alice's 10-point time penalty
    assert woogles.turns[-1].kind == "time" and woogles.turns[-1].score == -10
    assert woogles.names == ("Alice Smith", "Bøb Jönes")
    assert ("tile-set", "english") in woogles.pragmas and ("id", "io.woogles 4kQ7mZr") in woogles.pragmas
    assert woogles.turns[0].note.endswith("all vowels.\nwhich is why it went.")
    assert [t.kind for t in woogles.turns[5:7]] == ["pass", "pass"]
    assert not woogles.problems


def test_partial_and_missing_racks():
    record = load(DATA / "partial.gcg")
    by_line = {t.line: t for t in record.turns}
    assert by_line[5].rack == "AEEEOW?" and by_line[5].full_rack
    assert by_line[6].rack == "AJTU" and not by_line[6].full_rack  # only the tiles played
    assert by_line[8].kind == "exchange" and by_line[8].rack is None and by_line[8].exchange_count == 2
    assert by_line[8].exchanged == ""  # hidden
    assert by_line[10].full_rack  # a whole rack given for the opponent once
    assert by_line[13].rack is None and by_line[13].word == "HAE"
    assert by_line[16].kind == "challenge" and by_line[16].score == 5
    assert by_line[19].word == "B(E)A(N)S"  # parentheses for tiles on the board
    assert record.final_racks == ("ADLNNOR", "EIIKUYY")
    assert record.final_scores == (186, 175)
    assert ("incomplete", "") in record.pragmas
    assert not record.problems


def test_records_without_player_pragmas_take_the_first_two_nicknames():
    record = load(DATA / "no_players.gcg")
    assert record.players == ("alice", "bob") and record.names == ("alice", "bob")
    assert record.final_scores == (45, 22)


def test_iso_8859_1_with_and_without_the_encoding_pragma():
    plain = load(DATA / "latin1.gcg")
    marked = load(DATA / "latin1_header.gcg")  # with CRLF line ends too
    assert plain.names[0] == marked.names[0] == "José Núñez"
    assert plain.turns[0].note == "¡Olé!"
    assert plain.final_scores == marked.final_scores == (22, 22)


@pytest.mark.parametrize("spelling", ["ISO-8859-1", "iso 8859-1", "iso8859_1", "Latin-1"])
def test_the_spellings_of_iso_8859_1_tools_write(spelling):
    # "JosÃ©" in ISO-8859-1 is also valid UTF-8 (for "José"): only the pragma tells them apart.
    data = f"#Character-Encoding {spelling}\n#player1 j JosÃ©\n#player2 b Bob\n".encode("latin-1")
    assert "JosÃ©" in decode_gcg(data, "g.gcg")


@pytest.mark.parametrize("spelling", ["KOI8-R", "utf-16 le", "x" * 100])
def test_an_encoding_scrab_does_not_read_is_one_line_naming_the_file_and_line(spelling):
    with pytest.raises(InputError) as caught:
        decode_gcg(f"#character-encoding {spelling}\n#player1 a A\n".encode(), "g.gcg")
    message = str(caught.value)
    assert message.startswith("g.gcg, line 1: unsupported character encoding '") and len(message) < 120


def test_blanks_are_lowercase_and_board_blanks_stay_blanks():
    record = load(ROOT / "boards" / "example.gcg")
    first = record.turns[0]
    assert first.word == "WEAvE" and (7, 6, ord("V") - 64 | BLANK_BIT) in first.placed
    # Later plays through the blank show it lowercase, as the board holds it.
    assert rows(record.final_board)[7][6] == "v"


def test_single_tile_plays_and_both_directions():
    text = "\n".join(
        [
            "#player1 a A",
            "#player2 b B",
            ">a: AEEEOW? 8D WEAvE +22 22",
            ">b: S 8D .....S +8 8",  # a hook: the whole word, the board tiles as dots
            ">a: T E7 T. +2 24",  # one tile above the W, written down
        ]
    )
    record = read_gcg(text, SCRABBLE)
    hook, down = record.turns[1], record.turns[2]
    assert (hook.position, hook.word, hook.placed) == ("8D", "(WEAvE)S", ((7, 8, 19),))
    assert (down.position, down.word, down.down) == ("E7", "T(E)", True)
    assert [t.score for t in record.turns] == [reference_turn_score(record, t) for t in record.turns]
    assert not record.problems


# ---------------------------------------------------------------------------------------------
# scrab's own records (formats/gcg.py) read back: both rule sets


@pytest.mark.parametrize("rules", [SCRABBLE, WWF], ids=["scrabble", "wwf"])
def test_selfplay_records_read_back(small_gaddag, rules):
    for index in range(6):
        game = play_game(small_gaddag, rules, seed=17, index=index)
        record = read_gcg(game_text(game, rules=rules.name), rules, "game", small_gaddag.contains)
        assert record.problems == ()
        assert record.final_scores == game.scores
        assert record.final_board == game.squares
        moves = [t for t in record.turns if t.kind in ("play", "exchange", "pass")]
        assert [(t.kind, t.score, t.rack) for t in moves] == [(t.kind, t.score, t.rack) for t in game.turns]
        assert all(t.full_rack for t in moves)  # every rack the writer gives is whole


# ---------------------------------------------------------------------------------------------
# Malformed records: one error naming the file and the line

BAD = {
    "off_board.gcg": (3, "'WEAvE' from 8L runs off the board"),
    "occupied.gcg": (4, "square E8 holds E, not S"),
    "not_touching.gcg": (4, "does not touch any tile"),
    "off_centre.gcg": (3, "must cover the centre square H8"),
    "not_whole_word.gcg": (4, "the tiles make JUTE at E5, not JUT at E5"),
    "unknown_player.gcg": (4, "'carol' is not one of the players (alice, bob)"),
    "not_a_line.gcg": (4, "not a GCG line 'bob played JUTE next'"),
    "missing_total.gcg": (3, "the total is missing"),
    "no_move.gcg": (3, "has a rack but no move"),
    "bad_rack.gcg": (3, "bad rack 'AEE1OW?': bad character '1'"),
    "bad_word.gcg": (3, "bad word 'WEA3E'"),
    "bad_score.gcg": (3, "bad score '+2x'"),
    "huge_score.gcg": (3, "is too large"),
    "big_exchange.gcg": (4, "an exchange of 8 tiles; a rack holds 7"),
    "long_rack.gcg": (3, "has 8 tiles; a rack holds at most 7"),
    "unknown_move.gcg": (4, "cannot read the move '*swap*': bad character '*'"),
    "encoding.gcg": (1, "unsupported character encoding 'ebcdic'"),
    "bad_utf8.gcg": (2, "not UTF-8 text"),
    "empty.gcg": (None, "not a GCG game record"),
    # a board file given as a record: said so, not "line 1: a pragma needs a name"
    "board_file.gcg": (None, "not a GCG game record (line 1 is '# A Scrabble mid-game"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_records_fail_on_their_line(name):
    path = DATA / "bad" / name
    line, fragment = BAD[name]
    with pytest.raises(InputError) as caught:
        load(path)
    message = str(caught.value)
    where = f"{path}, line {line}: " if line is not None else f"{path}: "
    assert message.startswith(where), message
    assert fragment in message
    assert "\n" not in message


def test_every_malformed_sample_is_listed():
    assert sorted(p.name for p in (DATA / "bad").glob("*.gcg")) == sorted(BAD)


# ---------------------------------------------------------------------------------------------
# Records that replay, with each problem flagged on its line

WARN = {
    "score.gcg": [(3, "score")],
    "total.gcg": [(5, "total")],
    "rack.gcg": [(4, "rack")],
    "twice.gcg": [(4, "order")],
    "blanks.gcg": [(3, "tiles")],
    "encoding_late.gcg": [(3, "record")],
    "withdraw_nothing.gcg": [(5, "record")],
    "withdraw_valid.gcg": [(5, "record")],
    "end.gcg": [(14, "phony"), (37, "score"), (37, "tiles"), (38, "score")],
    "time_bonus.gcg": [(5, "score")],
    "challenge_other_player.gcg": [(4, "record")],
    "challenge_no_play.gcg": [(5, "record")],
    "exchange_empty_bag.gcg": [(14, "phony"), (35, "tiles")],
}


@pytest.mark.parametrize("name", sorted(WARN))
def test_problems_are_flagged_and_the_replay_goes_on(full_lexicon, name):
    record = load(DATA / "warn" / name, lexicon=full_lexicon)
    assert problems(record) == WARN[name]
    assert all(p.message and "\n" not in p.message for p in record.problems)
    # The record's figures stand: the final scores are the last totals written.
    text = (DATA / "warn" / name).read_text(encoding="utf-8")
    last = {}
    for match in re.finditer(r"^>(\w+):.* (-?\d+)$", text, re.M):
        last[match.group(1)] = int(match.group(2))
    assert record.final_scores == tuple(last.get(nick, 0) for nick in record.players)


def test_every_warning_sample_is_listed():
    assert sorted(p.name for p in (DATA / "warn").glob("*.gcg")) == sorted(WARN)


def test_one_nickname_for_both_players_replays_by_the_order_of_play():
    """Quackle writes "NoName" for both unnamed players: each line then goes to a player by
    the order of play, as the example game with its own nicknames says (its exchange, the
    phony taken back, the challenge bonus and the going-out points included), and the two
    are told apart by their full names."""
    shared = load(DATA / "duplicate_nick.gcg")
    named = load(ROOT / "boards" / "example.gcg")
    assert [(t.player, t.kind, t.move_text) for t in shared.turns] == [
        (t.player, t.kind, t.move_text) for t in named.turns
    ]
    assert shared.final_scores == named.final_scores and shared.players == ("Alice Smith", "Bob Jones")
    assert [(p.line, p.kind, p.message) for p in shared.problems] == [
        (
            2,
            "record",
            "both players have the nickname 'NoName': each line is given to a player by the order of play "
            "(Alice Smith first)",
        )
    ]


def test_warning_messages_name_what_is_wrong(full_lexicon):
    score = load(DATA / "warn" / "score.gcg").problems[0].message
    assert score == "8D WEAvE scores 22 under the scrabble rules; the record says +24"
    total = load(DATA / "warn" / "total.gcg").problems[0].message
    assert total == "alice's total should be 45 (22 +23); the record says 46"
    rack = load(DATA / "warn" / "rack.gcg").problems[0].message
    assert rack == "the rack AADGTUV does not hold the tiles played (J)"
    end = load(DATA / "warn" / "end.gcg", lexicon=full_lexicon).problems
    assert end[2].message == "the tiles left after the last play are QR, not QT"
    time = load(DATA / "warn" / "time_bonus.gcg").problems[0].message
    assert time == "a time penalty takes points off; the record gives +10"
    other = load(DATA / "warn" / "challenge_other_player.gcg").problems[0].message
    assert other == "a challenge bonus is for the player whose play stood, alice (8D WEAvE), not bob"
    no_play = load(DATA / "warn" / "challenge_no_play.gcg").problems[0].message
    exchange = load(DATA / "warn" / "exchange_empty_bag.gcg").problems[-1].message
    assert exchange == "an exchange with 0 tiles in the bag; the scrabble rules need 7 or more"
    assert no_play == "a challenge bonus is for the play on the line before, but that line is not a play (pass)"


def test_a_wrong_going_out_score_under_other_end_factors_names_the_factors():
    """(QT) is worth 11: with out_gain 2 and out_loss 1 the line may say 22 or 33, not
    "counted twice"; with out_loss 0 there is only one right score."""
    path = DATA / "warn" / "end.gcg"
    odd = replace(SCRABBLE, name="odd", out_gain=2, out_loss=1)
    message = load(path, odd).problems[0].message
    assert message == (
        "(QT) is worth 22 (out_gain 2 x 11 under the odd rules; 33 with the opponent's loss, "
        "out_loss 1 x 11, on the same line); the record says +21"
    )
    no_loss = replace(SCRABBLE, name="no-loss", out_gain=1, out_loss=0)
    message = load(path, no_loss).problems[0].message
    assert message == "(QT) is worth 11 (out_gain 1 x 11 under the no-loss rules); the record says +21"
    assert load(path).problems[0].message == "(QT) is worth 11 (or 22 counted twice); the record says +21"


def test_challenge_bonuses_and_time_penalties_as_the_tools_write_them_raise_nothing():
    """The bonus on the line of the player whose play stood, right after it; a penalty that
    takes points; and a negative challenge line (a penalty on the challenger under some
    rules) are not flagged."""
    for path in (ROOT / "boards" / "example.gcg", DATA / "woogles.gcg", DATA / "partial.gcg"):
        assert not [p for p in load(path).problems if p.kind != "phony"], path
    text = "\n".join(
        ["#player1 a A", "#player2 b B", ">a: AEEEOW? 8D WEAvE +22 22", ">b: (challenge) -5 -5", ">b: (time) -0 -5"]
    )
    assert read_gcg(text, SCRABBLE).problems == ()
    # some exports write UNKNOWN for the rack on a bonus line: no rack, not the tiles U N K N O W N
    text = "\n".join(["#player1 a A", "#player2 b B", ">a: AEEEOW? 8D WEAvE +22 22", ">a: UNKNOWN (challenge) +5 27"])
    record = read_gcg(text, SCRABBLE)
    assert record.problems == () and record.turns[-1].kind == "challenge" and record.turns[-1].rack is None
    unknown = read_gcg(text.replace("UNKNOWN (challenge)", "UNKNOWN 9A KNOWN"), SCRABBLE)
    assert unknown.turns[-1].rack == "KNNNOUW"  # (on a move line the word is a rack as ever)


def test_a_board_file_is_not_a_game_record():
    text = (ROOT / "boards" / "midgame.txt").read_text()
    with pytest.raises(InputError) as caught:
        parse_gcg(text, "boards/midgame.txt")
    assert str(caught.value).startswith("boards/midgame.txt: not a GCG game record (line 1 is '# A Scrabble")
    # Once the file is a record (a #player pragma, a move line), a bad line is that line's error.
    with pytest.raises(InputError, match=r"^r.gcg, line 2: a pragma needs a name after '#'"):
        parse_gcg("#player1 a A\n# a comment\n", "r.gcg")
    with pytest.raises(InputError, match=r"^r.gcg, line 2: not a GCG line '...............'"):
        parse_gcg(">a: AEEEOW? 8D WEAvE +22 22\n...............\n", "r.gcg")


def test_records_without_a_move_read_but_hold_no_move():
    """Read (a record of a game not yet played is a record; review refuses it, see
    tests/games/test_game_review.py); a lone '--' is flagged, as it takes nothing back."""
    empty = load(DATA / "no_moves.gcg")
    assert empty.turns == () and empty.players == ("alice", "bob") and not empty.problems
    lone = load(DATA / "only_withdrawn.gcg")
    assert [t.kind for t in lone.turns] == ["withdrawn"]
    assert problems(lone) == [(3, "record")]


def test_a_withdrawn_play_restores_the_board_and_the_bag():
    record = load(DATA / "warn" / "withdraw_valid.gcg")
    jut, back, after = record.turns[1], record.turns[2], record.turns[3]
    assert jut.withdrawn and back.kind == "withdrawn" and back.computed == -22
    assert after.board == jut.board
    assert after.bag == jut.bag  # the tiles bob drew went back
    assert record.final_scores == (30, 0)


def test_a_play_taken_back_shows_its_tiles_to_the_other_player():
    """alice's phony ENTICSE (turn 7) is taken back (turn 8): bob, to move at turn 9, has
    seen those seven tiles on her rack. No other turn shows any."""
    record = load(ROOT / "boards" / "example.gcg")
    shown = record.shown_tiles(9)
    assert shown is not None
    tiles, play = shown
    assert tiles == parse_rack("CEEINST", 7) and (play.number, play.word, play.player) == (7, "ENTICSE", 0)
    assert [n for n in range(1, len(record.turns) + 2) if record.shown_tiles(n) is not None] == [9]
    # the same record cut after the withdrawal: the position after its last turn shows them too
    text = (ROOT / "boards" / "example.gcg").read_text()
    cut = text[: text.index(">bob: AEEHIII")]
    record = read_gcg(cut, SCRABBLE, "cut.gcg", None, "kjxqz")
    assert record.shown_tiles(len(record.turns) + 1) == shown
    assert record.shown_tiles(len(record.turns)) is None  # (alice's own turn, before taking it back)
    # a blank played in the phony is shown as a blank
    blank = cut.replace(
        ">alice: CEEINST M7 ENTICSE +75 156\n>alice: CEEINST -- -75 81",
        ">alice: CEEIN?T M7 ENTICsE +73 154\n>alice: CEEIN?T -- -73 81",
    )
    record = read_gcg(blank, SCRABBLE, "blank.gcg", None, "kjxqz")
    assert record.shown_tiles(len(record.turns) + 1)[0] == parse_rack("CEEIN?T", 7)
    assert load(DATA / "only_withdrawn.gcg").shown_tiles(2) is None


def test_shown_tiles_skip_a_time_penalty_and_not_the_withdrawers_own_move():
    """A time penalty between the line taking the phony back and bob's move does not hide
    alice's tiles from bob; a record where alice moves again right after shows them to no
    one (she is not her own opponent)."""
    text = (ROOT / "boards" / "example.gcg").read_text()
    penalty = text.replace(">alice: CEEINST -- -75 81\n", ">alice: CEEINST -- -75 81\n>alice: CEEINST (time) -10 71\n")
    record = read_gcg(penalty, SCRABBLE, "penalty.gcg", None, "kjxqz")
    assert [t.kind for t in record.turns[7:10]] == ["withdrawn", "time", "play"]
    assert record.shown_tiles(10)[0] == parse_rack("CEEINST", 7)  # bob's HAE, after the penalty
    assert record.shown_tiles(9) is None  # (the penalty's line is alice's own)
    again = text.replace(">alice: CEEINST 8J INSECT +37 118\n", "", 1).replace(
        ">bob: AEEHIII M3 HAE +26 82\n", ">alice: CEEINST 8J INSECT +37 118\n>bob: AEEHIII M3 HAE +26 82\n", 1
    )
    record = read_gcg(again, SCRABBLE, "again.gcg", None, "kjxqz")
    assert (record.turns[8].player, record.turns[8].word) == (0, "INSECT")
    assert record.shown_tiles(9) is None and record.shown_tiles(10) is None


def test_a_play_taken_back_with_the_bag_nearly_empty_keeps_its_rack():
    """p2's phony UNIR draws the bag's last tile and is taken back: the line taking it back
    gives the rack it was played from (7 tiles), as the player holds again; no warning."""
    text = (ROOT / "boards" / "peg.gcg").read_text()
    text = text[: text.index(">p1: ADEMNQ? 12H")]
    text += ">p1: ADEMNQ? - +0 411\n>p2: INRSTUW O12 UNIR +53 381\n>p2: INRSTUW -- -53 328\n"
    record = read_gcg(text, SCRABBLE, "late.gcg", None, "kjxqz")
    assert problems(record) == []
    phony, back = record.turns[-2:]
    assert phony.bag == 1 and phony.withdrawn and back.full_rack
    assert record.shown_tiles(len(record.turns) + 1)[0] == parse_rack("INRU", 7)


def test_the_rules_decide_the_scores():
    """A Scrabble record read under Words with Friends rules replays (same board) but its
    scores are flagged."""
    record = load(ROOT / "boards" / "example.gcg", rules=WWF)
    assert record.final_board == load(ROOT / "boards" / "example.gcg").final_board
    assert {kind for _, kind in problems(record)} >= {"score"}


# ---------------------------------------------------------------------------------------------
# Detection


def test_looks_like_gcg():
    assert looks_like_gcg((DATA / "no_players.gcg").read_text())
    assert looks_like_gcg("#player1 a A\n")
    assert not looks_like_gcg((ROOT / "boards" / "midgame.txt").read_text())
    assert not looks_like_gcg("# a comment\n...............\n")
    assert not looks_like_gcg("#idea: a board file whose comment starts like a pragma\n")
    assert looks_like_gcg("#Character-Encoding UTF-8\n")
    # A board file's comment that happens to read like a pragma (found by the board fuzzer):
    rows = ["." * 15] * 15
    assert not looks_like_gcg("\n".join([*rows[:8], "#PLAYER1", *rows[8:]]) + "\n")
    assert not looks_like_gcg("\n".join([*rows[:3], "#player1 me Me", *rows[3:]]) + "\n")
    assert not looks_like_gcg("#player1\n")  # no nickname: not a pragma


# ---------------------------------------------------------------------------------------------
# Fuzz: garbled records never raise anything but InputError, and never hang

EXAMPLE = (ROOT / "boards" / "example.gcg").read_text(encoding="utf-8")
TOKENS = [
    ">alice:",
    ">bob:",
    ">carol:",
    ">:",
    ">",
    "#player1",
    "#player2",
    "#note",
    "#lexicon",
    "#character-encoding",
    "#rack1",
    "AEIRST?",
    "???????",
    "QQQQQQQQ",
    "8D",
    "H8",
    "8d",
    "15O",
    "O15",
    "99Z",
    "A0",
    "WORD",
    "W.RD",
    "(WO)RD",
    "((",
    ")",
    ".",
    "..",
    "-",
    "--",
    "-ABC",
    "-7",
    "-99999",
    "(challenge)",
    "(time)",
    "(QR)",
    "()",
    "+5",
    "-5",
    "+0",
    "0",
    "+999999",
    "-1234567",
    "12",
    "é",
    "\t",
    "\x00",
    "\ufeff",
    "字",
]


@st.composite
def garbled_records(draw):
    lines = EXAMPLE.split("\n")
    for _ in range(draw(st.integers(0, 6))):
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "text", "truncate"]))
        i = draw(st.integers(0, len(lines) - 1))
        if action == "delete" and len(lines) > 1:
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "token":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words)))
            words.insert(k, draw(st.sampled_from(TOKENS)))
            lines[i] = " ".join(words)
        elif action == "text":
            lines[i] = draw(st.text(max_size=40))
        else:
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
    return "\n".join(lines)


random_lines = st.lists(
    st.one_of(
        st.lists(st.sampled_from(TOKENS), max_size=7).map(" ".join),
        st.text(max_size=30),
    ),
    max_size=12,
).map("\n".join)

FUZZ = {
    "derandomize": True,
    "database": None,
    "deadline": None,
    "print_blob": False,
    "suppress_health_check": list(HealthCheck),
}


def _read_any(text: str, lexicon) -> None:
    try:
        gcg = parse_gcg(text, "fuzz.gcg")
        record = replay_gcg(gcg, SCRABBLE, lexicon.contains, "kjxqz")
    except InputError as exc:
        message = str(exc)
        assert message.startswith("fuzz.gcg") and "\n" not in message, message
        return
    for problem in record.problems:
        assert "\n" not in problem.message
    assert len(record.turns) == len(gcg.events)


@scaled  # a sixth of the cases in a plain run, all in the soak step
@settings(max_examples=examples(600), **FUZZ)
@given(text=garbled_records())
def test_fuzz_garbled_example(small_gaddag, text):
    _read_any(text, small_gaddag)


@scaled  # a sixth of the cases in a plain run, all in the soak step
@settings(max_examples=examples(600), **FUZZ)
@given(text=random_lines)
def test_fuzz_random_lines(small_gaddag, text):
    _read_any(text, small_gaddag)


@settings(max_examples=300, **FUZZ)
@given(data=st.binary(max_size=400))
def test_fuzz_bytes(data):
    try:
        text = decode_gcg(data, "fuzz.gcg")
    except InputError:
        return
    try:
        read_gcg(text, SCRABBLE, "fuzz.gcg")
    except InputError as exc:
        assert str(exc).startswith("fuzz.gcg")


def test_a_huge_record_is_refused_without_reading_it_all():
    with pytest.raises(InputError, match="too large for a game record"):
        decode_gcg(b">a: 8D WORD +1 1\n" * 100_000, "huge.gcg")


def test_too_many_events_are_refused():
    line = ">a: - +0 0\n"
    with pytest.raises(InputError, match=r"line 1001: more than 1,000 event lines"):
        parse_gcg(line * 1_001, "many.gcg")


def test_random_valid_games_never_flag_problems(small_gaddag):
    """Random (not greedy) legal games written by hand-rolled GCG lines replay cleanly."""
    from solver_cli.engine.movegen import generate_moves
    from solver_cli.engine.notation import position_text

    rng = random.Random(5)
    for _ in range(5):
        board = Board.empty(SCRABBLE)
        bag = [code for code in range(27) for _ in range(SCRABBLE.counts[code])]
        rng.shuffle(bag)
        racks = [[0] * 27, [0] * 27]
        for rack in racks:
            for _ in range(7):
                rack[bag.pop()] += 1
        lines = ["#player1 a A", "#player2 b B"]
        totals = [0, 0]
        for turn in range(12):
            player = turn % 2
            rack = racks[player]
            before = "".join(LETTERS[i - 1] * rack[i] for i in range(1, 27)) + "?" * rack[0]
            moves = generate_moves(board, rack, small_gaddag, SCRABBLE)
            if not moves:
                lines.append(f">{'ab'[player]}: {before} - +0 {totals[player]}")
                continue
            score, down, line, start, codes = rng.choice(moves)
            word = ""
            for k, code in enumerate(codes):
                r, c = (start + k, line) if down else (line, start + k)
                i = r * SCRABBLE.cols + c
                if board.squares[i]:
                    word += "."
                else:
                    board.squares[i] = code
                    rack[0 if code & BLANK_BIT else code] -= 1
                    word += LETTERS[(code & 31) - 1].lower() if code & BLANK_BIT else LETTERS[code - 1]
                    if bag:
                        rack[bag.pop()] += 1
            totals[player] += score
            row, col = (start, line) if down else (line, start)
            lines.append(f">{'ab'[player]}: {before} {position_text(row, col, down)} {word} +{score} {totals[player]}")
        record = read_gcg("\n".join(lines), SCRABBLE, "random", small_gaddag.contains)
        assert record.problems == ()
        assert record.final_board == tuple(board.squares)
        assert record.final_scores == (totals[0], totals[1])

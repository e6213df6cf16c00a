"""`scrab review`, and `--turn` on `solve`, `explain` and `play`: a GCG record as a position."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.cli._game import record_lexicon
from solver_cli.cli.render import tenths

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "boards" / "example.gcg")
DATA = ROOT / "tests" / "formats" / "gcg"


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def run(runner, *args):
    result = runner.invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result


def run_json(runner, *args):
    return json.loads(run(runner, *args, "--json").stdout)


def fails(runner, *args, code=2):
    result = runner.invoke(cli, list(args))
    assert result.exit_code == code, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().split("\n")
    return lines[-1]


# ---------------------------------------------------------------------------------------------
# scrab review


def test_review_json_has_every_figure(runner):
    data = run_json(runner, "review", EXAMPLE, "--top", "2", "--rank", "score")
    assert (data["game"], data["rules"], data["lexicon"], data["ranking"]) == (EXAMPLE, "scrabble", "kjxqz", "score")
    assert data["leaves"] is None and "stopped" not in data  # (only a review Ctrl-C stopped has it)
    assert data["pragmas"][:2] == [
        {"name": "character-encoding", "value": "UTF-8"},
        {"name": "player1", "value": "alice Alice Smith"},
    ]
    assert {"name": "title", "value": "Club night, round 3"} in data["pragmas"]
    assert data["players"] == [
        {"nick": "alice", "name": "Alice Smith", "final_score": 331},
        {"nick": "bob", "name": "Bob Jones", "final_score": 351},
    ]
    turns = data["turns"]
    assert len(turns) == 26  # plays, exchanges and passes; not the withdrawal, bonus or end points
    first = turns[0]
    assert (first["turn"], first["line"], first["player"], first["rack"], first["move"]) == (
        1,
        7,
        "alice",
        "AEEEOW?",
        "8D WEAvE",
    )
    assert first["reviewed"] and first["rank"] == 1 and first["given_up"] == 0 and len(first["best"]) == 2
    assert first["best"][0]["score"] == 22 and first["best"][0]["position"] == "8D"
    phony = next(t for t in turns if t["phonies"])
    assert phony["move"] == "M7 ENTICSE" and phony["withdrawn"] and phony["value"] == 0
    assert phony["best"][0]["notation"] == "ENTICES" and phony["best"][0]["bingo"]
    assert phony["bingo_missed"] and phony["given_up"] == 75
    exchange = next(t for t in turns if t["kind"] == "exchange")
    assert exchange["exchanged"] == "IV" and exchange["value"] == 0
    summary = {s["player"]: s for s in data["summary"]}
    assert summary["alice"]["phonies"] == 1 and summary["alice"]["bingos_missed"] == 2
    assert summary["alice"]["given_up"] == sum(t["given_up"] for t in turns if t["player"] == "alice")
    assert data["problems"] == [
        {"line": 14, "turn": 7, "kind": "phony", "message": "ENTICSE (played at M7) is not in kjxqz"}
    ]


@pytest.mark.parametrize(
    "rank, ranked_by", [("score", "score"), ("equity", "equity (scrabble-kjxqz leaves)")], ids=["score", "equity"]
)
def test_review_table(runner, rank, ranked_by):
    result = runner.invoke(cli, ["review", EXAMPLE, "--rank", rank], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    words = " ".join(result.stdout.split())
    assert words.startswith(f"{EXAMPLE}: alice 331, bob 351, ranked by {ranked_by} (scrabble, kjxqz)")
    assert "M7 ENTICSE 75 bingo phony, withdrawn" in words
    assert "Summary" in words and "Bingos missed" in words
    assert result.stderr == f"Warning: {EXAMPLE}, line 14: ENTICSE (played at M7) is not in kjxqz\n"


def figure(value):
    """A value as the review table shows it: a whole number as it is, else one decimal."""
    return str(int(value)) if float(value).is_integer() else tenths(value)


def units_of(data):
    """Every "position word score" the review table shows: each move played, each best."""
    units = []
    for t in data["turns"]:
        units.append(t["move"] + (f" {t['score']}" if t["kind"] == "play" else ""))
        units += [f"{b['move']} {figure(b['value'])}" for b in t.get("best", [])]
    return units


@python_engine_in_soak()  # the layout is the engines' alike (their figures are compared elsewhere)
@pytest.mark.parametrize("rank", ["score", "equity"])
@pytest.mark.parametrize("top", ["1", "3"])
@pytest.mark.parametrize("width", [80, 60])
def test_review_table_keeps_each_move_on_one_line(runner, width, top, rank):
    """At 80 columns a move's position, word and score used to wrap (F4 GONI(A) / 23), and
    the summary's headers were cut (Revie…, Phoni…)."""
    data = run_json(runner, "review", EXAMPLE, "--top", top, "--rank", rank)
    result = runner.invoke(cli, ["review", EXAMPLE, "--top", top, "--rank", rank], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= width and not line.endswith(" ") for line in lines), "\n".join(lines)
    assert "…" not in result.stdout
    for unit in units_of(data):
        assert any(unit in line for line in lines), (unit, "\n".join(lines))
    text = "\n".join(lines)
    lost = "Points lost" if rank == "score" else "Equity lost"
    for name in ("Score", "Moves", "Reviewed", "Best found", lost, "Bingos missed", "Phonies"):
        assert f"│ {name} " in text, name
    summary = {
        line.split("│")[1].strip(): line.split("│")[2:4] for line in lines[lines.index("Summary") :] if "│" in line
    }
    assert [c.strip() for c in summary[lost]] == [figure(s["given_up"]) for s in data["summary"]]
    if rank == "score":
        assert [c.strip() for c in summary[lost]] == ["118", "30"]
    assert [c.strip() for c in summary["Bingos missed"]] == ["2", "0"]


def test_review_table_flags_a_missed_bingo_with_the_move(runner):
    text = " ".join(runner.invoke(cli, ["review", EXAMPLE], env={"COLUMNS": "200"}).stdout.split())
    assert "8J INSECT 37, bingo missed │" in text
    assert "M7 ENTICSE 75 bingo phony, withdrawn, bingo missed │" in text


def test_review_one_player_and_boards(runner):
    data = run_json(runner, "review", EXAMPLE, "--player", "Bob Jones", "--show-board", "3", "--show-board", "29")
    assert {t["player"] for t in data["turns"]} == {"bob"}
    assert [s["player"] for s in data["summary"]] == ["bob"]
    boards = {b["after_turn"]: b["rows"] for b in data["boards"]}
    assert boards[3][7] == "...WEAvE......."  # row 8 after GONI(A) down column F
    assert [row[5] for row in boards[3][3:8]] == list("GONIA")
    assert boards[29][14] == ".....LUD....N.."  # LU(D) last, the N of FON (M13 down) before
    table = run(runner, "review", EXAMPLE, "--player", "alice", "--show-board", "1").stdout
    assert "Board after turn 1 (alice: 8D WEAvE)" in table
    assert "[v]" in table  # the new tiles, bracketed; the blank lowercase


def test_review_errors(runner, tmp_path):
    assert "--player carol: not a player of" in fails(runner, "review", EXAMPLE, "--player", "carol")
    assert fails(runner, "review", EXAMPLE, "--show-board", "30") == (f"Error: --show-board 30: {EXAMPLE} has 29 turns")
    bad = DATA / "bad" / "occupied.gcg"
    assert fails(runner, "review", str(bad)) == (
        f"Error: {bad}, line 4: E5 JUTS does not fit the board: square E8 holds E, not S"
    )
    assert "cannot read game record" in fails(runner, "review", str(tmp_path / "missing.gcg"))
    assert "is a directory" in fails(runner, "review", str(tmp_path))


def test_review_reads_standard_input(runner):
    result = runner.invoke(cli, ["review", "-", "--json"], input=(DATA / "no_players.gcg").read_text())
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "<stdin>" and [p["final_score"] for p in data["players"]] == [45, 22]


def test_the_record_lexicon_is_used_when_shipped(runner, tmp_path, monkeypatch):
    assert record_lexicon(None, "SOWPODS", "g") == "sowpods"
    assert record_lexicon(None, "kjxqz", "g") == "kjxqz"
    assert record_lexicon("mine.txt", "SOWPODS", "g") == "mine.txt"  # --lexicon wins
    assert record_lexicon(None, None, "g") is None
    record = tmp_path / "nwl.gcg"
    record.write_text("#lexicon NWL2020\n" + (DATA / "no_players.gcg").read_text())
    result = runner.invoke(cli, ["review", str(record), "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"Warning: {record} names the lexicon 'NWL2020', which you do not have; using kjxqz "
        f"(put your NWL2020 list in {os.environ['SCRAB_DATA_DIR']}/lexicons as NWL2020.txt, or give --lexicon)\n"
    )
    assert json.loads(result.stdout)["lexicon"] == "kjxqz"


def test_review_of_a_record_holding_more_tiles_than_the_set(runner, tmp_path):
    """Dear tiles (1,000 points) and 42 As played of the one the set holds: the record
    empties the bag with 43 tiles unseen. The native engine used to stop on their value (a
    traceback); now both engines list those turns as not valued by equity, and say why."""
    standard = (ROOT / "solver_cli" / "data" / "rules" / "scrabble.toml").read_text(encoding="utf-8")
    head = standard[: standard.index("[tiles]")].replace('name = "scrabble"', 'name = "dear"')
    letters = "".join(f"{chr(c)} = [2, 1000]\n" for c in range(ord("B"), ord("Z") + 1))
    (tmp_path / "dear.toml").write_text(f"{head}[tiles]\nA = [1, 1]\n{letters}", encoding="utf-8")
    plays = [f">{('alice', 'bob')[k % 2]}: AAAAAAA {8 + k}H AAAAAAA +7 {7 * (k // 2 + 1)}" for k in range(6)]
    lines = ["#player1 alice Alice", "#player2 bob Bob", *plays, ">alice: BCDEFGH - +0 21", ">bob: IJKLMNO - +0 21"]
    record = tmp_path / "overfull.gcg"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["review", str(record), "--rules", str(tmp_path / "dear.toml"), "--lexicon", "kjxqz"]
    reason = "the bag is empty yet 43 tiles are unseen: the record's tiles do not fit the dear set"
    data = run_json(runner, *args)
    assert [t["reviewed"] for t in data["turns"]] == [True] * 6 + [False] * 2
    assert [t["reason"] for t in data["turns"][6:]] == [reason, reason]
    assert any(p["kind"] == "tiles" for p in data["problems"])
    result = runner.invoke(cli, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0 and result.exception is None, result.output
    assert reason in " ".join(result.stdout.split())
    assert "Traceback" not in result.output and "Warning: " in result.stderr


# ---------------------------------------------------------------------------------------------
# --turn on solve, explain and play


def test_solve_turn_is_the_position_before_it(runner, tmp_path):
    data = run_json(runner, "solve", EXAMPLE, "--turn", "10", "--top", "3")
    assert data["rack"] == "CEEINST"  # line 17, turn 10 (the line numbers are not the turns)
    assert data["moves"][0]["position"] == "M7" and data["moves"][0]["notation"] == "ENTICES"
    # The same as solving the board the record had before turn 10, written out by hand
    # from the moves on lines 7 to 16 (the phony ENTICSE taken back).
    rows = ["..............."] * 15
    rows = [list(r) for r in rows]
    for square, letter in {
        "D8": "W", "E8": "E", "F8": "A", "G8": "v", "H8": "E",  # WEAvE
        "E5": "J", "E6": "U", "E7": "T",  # JUT(E)
        "F4": "G", "F5": "O", "F6": "N", "F7": "I",  # GONI(A)
        "G6": "I", "H6": "T", "I6": "I", "J6": "Z", "K6": "E",  # (UN)ITIZE
        "L2": "G", "L3": "E", "L4": "L", "L5": "A", "L6": "D", "L7": "A",  # GELADA
        "M3": "H", "M4": "A", "M5": "E",  # HAE
    }.items():  # fmt: skip
        rows[int(square[1:]) - 1][ord(square[0]) - 65] = letter
    board = tmp_path / "before-10.txt"
    board.write_text("\n".join("".join(r) for r in rows) + "\n")
    by_hand = run_json(runner, "solve", str(board), "--rack", "CEEINST", "--top", "3")
    assert by_hand["moves"] == data["moves"] and by_hand["total_moves"] == data["total_moves"]
    assert by_hand["unseen"] == data["unseen"]


def test_solve_turn_with_a_rack_of_ones_own(runner):
    data = run_json(runner, "solve", EXAMPLE, "--turn", "1", "--rack", "QI", "--top", "1")
    assert data["rack"] == "IQ" and data["moves"][0]["word"] == "QI"


def test_turn_errors(runner):
    midgame = str(ROOT / "boards" / "midgame.txt")
    assert fails(runner, "solve", midgame, "--turn", "3", "--rack", "A") == (
        f"Error: --turn 3: {midgame} is not a GCG game record (--turn picks a turn of one)"
    )
    assert fails(runner, "solve", EXAMPLE, "--turn", "31") == (
        f"Error: --turn 31: {EXAMPLE} has 29 turns (give 1 to 30; 30 is the position after the last)"
    )
    assert "Invalid value for '--turn'" in fails(runner, "solve", EXAMPLE, "--turn", "0")
    # The game is over after turn 29: no rack to solve with unless one is given.
    assert "Missing option '--rack'" in fails(runner, "solve", EXAMPLE, "--turn", "30")
    # A partial rack is not offered as the rack.
    assert "Missing option '--rack'" in fails(runner, "solve", str(DATA / "partial.gcg"), "--turn", "2")


def test_solve_a_record_without_turn_is_its_last_position(runner):
    data = run_json(runner, "solve", str(DATA / "partial.gcg"), "--top", "1")
    assert data["rack"] == "ADLNNOR"  # #rack1: alice moves after bob's last play


def test_play_and_explain_at_a_turn(runner):
    played = run_json(runner, "play", EXAMPLE, "--turn", "10", "M7", "ENTICES")
    assert played["score"] == 75 and played["bingo"] and played["leave"] == ""
    # The turn's rack is checked: INSECT's rack holds no Z.
    result = runner.invoke(cli, ["play", EXAMPLE, "--turn", "10", "8J", "ZINS"])
    assert result.exit_code == 1 and "illegal move" in result.stderr
    trace = run_json(runner, "explain", EXAMPLE, "--turn", "10", "1")
    assert trace["word"] == "ENTICES" and trace["score"] == 75


@python_engine_in_soak()  # where the bar goes does not depend on the engine; two runs of the whole review
def test_progress_bar_on_a_terminal_only(full_lexicon):
    """With stderr on a terminal the review shows its progress bar there; stdout holds the
    table alone; with --json nothing but the JSON is written."""
    import os
    import pty
    import subprocess
    import sys
    import threading

    def review_on_a_terminal(*extra: str) -> tuple[str, str]:
        primary, secondary = pty.openpty()
        chunks: list[bytes] = []

        def drain() -> None:
            while True:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                chunks.append(chunk)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "solver_cli", "review", EXAMPLE, *extra],
                stdout=subprocess.PIPE,
                stderr=secondary,
                cwd=ROOT,
            )
            os.close(secondary)
            out, _ = child.communicate(timeout=300)
            reader.join(timeout=10)
        finally:
            os.close(primary)
        assert child.returncode == 0
        return out.decode(), b"".join(chunks).decode("utf-8", "replace")

    out, terminal = review_on_a_terminal()
    assert "Reviewing moves" in terminal and "Reviewing" not in out and "\x1b[" not in out
    assert "ENTICSE (played at M7) is not in kjxqz" in terminal
    out, terminal = review_on_a_terminal("--json")
    assert "Reviewing" not in terminal
    assert json.loads(out)["game"] == EXAMPLE


def test_review_saves_what_it_printed_as_svg(runner, tmp_path):
    import html
    import re

    target = tmp_path / "review.svg"
    result = run(runner, "review", EXAMPLE, "--show-board", "10", "--svg", str(target))
    svg = target.read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    assert svg.startswith("<svg") and "Board after turn 10" in text
    first_line = result.stdout.splitlines()[0].strip()
    assert first_line and first_line in text  # the SVG holds what was printed
    assert fails(runner, "review", EXAMPLE, "--json", "--svg", str(target)).startswith("Error:")


# ---------------------------------------------------------------------------------------------
# by equity (the default) and by score


def test_review_by_equity_and_by_score(runner):
    equity = run_json(runner, "review", EXAMPLE, "--top", "3")
    score = run_json(runner, "review", EXAMPLE, "--top", "3", "--rank", "score")
    assert (equity["ranking"], equity["leaves"]) == ("equity", "scrabble-kjxqz")
    assert (score["ranking"], score["leaves"]) == ("score", None)
    differ = 0
    for by_equity, by_score in zip(equity["turns"], score["turns"], strict=True):
        assert by_equity["turn"] == by_score["turn"] and by_equity["reviewed"] and by_score["reviewed"]
        for option in by_equity["best"]:
            assert round(1000 * option["value"]) == 1000 * option["score"] + round(1000 * option["leave_value"])
        assert all(option["leave_value"] is None and option["value"] == option["score"] for option in by_score["best"])
        lost = max(0, round(1000 * by_equity["best_value"]) - round(1000 * by_equity["value"]))
        assert round(1000 * by_equity["given_up"]) == lost
        differ += [b["move"] for b in by_equity["best"]] != [b["move"] for b in by_score["best"]]
    assert differ > 0  # the leave values change the best moves
    # by score the candidates are the plays and the pass; by equity the exchanges too, while
    # the bag holds 7 tiles: alice's first rack AEEEOW? has 2 x 4 x 2 x 2 x 2 - 1 of them
    first_equity, first_score = equity["turns"][0], score["turns"][0]
    assert first_equity["candidates"] - first_score["candidates"] == 63
    last_equity, last_score = equity["turns"][-1], score["turns"][-1]  # the bag empty: none
    assert last_equity["candidates"] == last_score["candidates"]


def test_review_with_a_leave_file(runner, tmp_path):
    from array import array

    from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
    from solver_cli.formats.leavefile import write_leaves

    path = tmp_path / "flat.leaves"
    info = {"rules": "scrabble", "lexicon": "kjxqz", "rack_size": 7}
    write_leaves(path, LeaveTable(array("h", [300]) * TABLE_SIZE), info)
    data = run_json(runner, "review", EXAMPLE, "--leaves", str(path), "--player", "bob")
    assert data["leaves"] == str(path)
    first = data["turns"][0]  # bob's E5 JUT(E) 22 keeps ADV: 3 points, as every leave before the end
    assert (first["move"], first["value"]) == ("E5 JUT(E)", 25.0)
    assert first["best"][0]["value"] == first["best"][0]["score"] + 3
    result = runner.invoke(cli, ["review", EXAMPLE, "--rank", "score", "--leaves", str(path)])
    assert result.exit_code == 2 and "--leaves applies only with --rank equity" in result.stderr


def test_greedy_games_reviewed_by_score_lose_nothing(runner, tmp_path, small_words):
    words = tmp_path / "small.txt"
    words.write_text("\n".join(small_words) + "\n")
    games = tmp_path / "games"
    made = runner.invoke(
        cli, ["selfplay", "--games", "2", "--seed", "9", "--lexicon", str(words), "--save-games", str(games)]
    )
    assert made.exit_code == 0, made.output
    for path in sorted(games.glob("*.gcg")):
        data = run_json(runner, "review", str(path), "--lexicon", str(words), "--rank", "score")
        assert all(t["given_up"] == 0 and t["rank"] == 1 for t in data["turns"])
        by_equity = run_json(runner, "review", str(path), "--lexicon", str(words))
        assert by_equity["ranking"] == "equity"


def test_json_has_every_figure_of_the_record_lines_that_are_not_moves(runner, tmp_path):
    """A withdrawn phony, a challenge bonus, a time penalty and the end-of-game points are
    in the JSON with the recorded and the computed figures (issue #17: every figure)."""
    seen = set()
    for record in ("quackle.gcg", "woogles.gcg"):
        data = run_json(runner, "review", str(DATA / record))
        for a in data["adjustments"]:
            assert {"turn", "line", "player", "kind", "move", "score", "computed", "total"} <= set(a)
            seen.add(a["kind"])
            if a["kind"] == "out":
                assert a["computed"] == a["score"] == 22 and a["counted"] == "QR"
            if a["kind"] == "withdrawn":
                assert a["score"] == a["computed"] == -75 and a["takes_back"] == a["turn"] - 1
    assert seen == {"withdrawn", "challenge", "out", "time"}


def test_control_characters_in_a_record_never_reach_the_terminal(runner, tmp_path):
    """A name, an #id or a note holding a terminal escape or a carriage return is shown with
    '?' for each, in the table and the JSON alike; the record still reads."""
    record = tmp_path / "evil.gcg"
    record.write_text(
        "#character-encoding UTF-8\n#player1 a \x1b[31mEvil\r\x1b[0m\n#player2 b Bob\n"
        "#id io.x \x1b[2Jclear\n>a: AEINRST 8D STAINER +66 66\n#note \x07ding\n"
    )
    table = run(runner, "review", str(record)).output
    data = run_json(runner, "review", str(record))
    assert "\x1b" not in table and "\r" not in table and "\x07" not in table
    assert "io.x ?[2Jclear" in table
    assert data["id"] == "io.x ?[2Jclear" and data["players"][0]["name"] == "?[31mEvil??[0m"
    assert data["turns"][0]["score"] == 66


def test_a_control_character_in_a_rack_is_refused_not_read_as_a_blank(runner, tmp_path):
    record = tmp_path / "odd.gcg"
    record.write_text("#player1 a Al\n#player2 b Bob\n>a: AEGIL\x01Y 8H AGLEY +26 26\n")
    line = fails(runner, "review", str(record))
    assert line.startswith(f"Error: {record}, line 3:") and "\x01" not in line


# ---------------------------------------------------------------------------------------------
# scrab review --sim (native only in the plain run: the twin's play-outs take minutes, and the
# simulation's engines are compared in tests/lookahead)

# Ben's rack BEJKOUX after Ann's RETAINS: E5 JUK(E)BOX scores 108, no other move 40 (the best
# by equity after it: 9F OX, 36). Simulated two plies ahead, the bingo stays ahead by far.
HAND_MADE = """#character-encoding UTF-8
#player1 ann Ann
#player2 ben Ben
>ann: AEINRST 8D RETAINS +66 66
>ben: BEJKOUX {move}
"""
JUKEBOX = "E5 JUK.BOX +108 108"
BLUNDER = "7C KOB +20 20"  # 20 points, keeping EJUX, where the bingo is 108
SIM = ("--sim", "--player", "ben", "--sim-candidates", "3", "--sim-iterations", "12", "--seed", "7")


def hand_made(tmp_path, move):
    path = tmp_path / "game.gcg"
    path.write_text(HAND_MADE.format(move=move), encoding="utf-8")
    return str(path)


@python_engine_in_soak()
def test_review_sim_ranks_the_best_move_played_first(runner, tmp_path):
    data = run_json(runner, "review", hand_made(tmp_path, JUKEBOX), *SIM)
    assert data["sim"] == {
        "candidates": 3,
        "plies": 2,
        "iterations": 12,
        "time_limit": None,
        "stop": 99,
        "seed": 7,
        "ranked_by": "spread",
    }
    (turn,) = data["turns"]
    sim = turn["sim"]
    assert sim["rank"] == 1 and sim["candidates"] == 3 and sim["added"] is False
    assert sim["best"]["move"] == "E5 JUK(E)BOX" and sim["lost"] == 0 and sim["mean"] == sim["best_mean"]
    assert sim["iterations"] == 12 and sim["stopped"] == "iterations"
    (summary,) = data["summary"]
    assert (summary["sim_turns"], summary["sim_best"], summary["sim_lost"]) == (1, 1, 0)


@python_engine_in_soak()
def test_review_sim_finds_a_clear_blunder(runner, tmp_path):
    """KOB for 20 is not among the 3 best by equity: it is added, ranks below the bingo, and
    loses most of its 108 points (the replies cannot give back 50)."""
    data = run_json(runner, "review", hand_made(tmp_path, BLUNDER), *SIM)
    sim = data["turns"][0]["sim"]
    assert sim["added"] is True and sim["candidates"] == 4 and sim["rank"] > 1
    assert sim["best"]["move"] == "E5 JUK(E)BOX"
    assert sim["lost"] > 50 and sim["lost"] == round(sim["best_mean"] - sim["mean"], 3)
    assert data["summary"][0]["sim_lost"] == sim["lost"] and data["summary"][0]["sim_best"] == 0
    # The same seed, the same figures; the table shows them.
    assert run_json(runner, "review", hand_made(tmp_path, BLUNDER), *SIM)["turns"][0]["sim"]["mean"] == sim["mean"]
    table = runner.invoke(cli, ["review", hand_made(tmp_path, BLUNDER), *SIM], env={"COLUMNS": "160"}).stdout
    rank = f"{sim['rank']}/4"
    assert "Sim best (mean)" in table and f"E5 JUK(E)BOX {sim['best_mean']:.1f}" in table and rank in table
    assert f"{sim['lost']:.1f}" in table and "seed 7" in table and "Sim points lost" in table
    narrow = runner.invoke(cli, ["review", hand_made(tmp_path, BLUNDER), *SIM], env={"COLUMNS": "60"}).stdout
    assert f"sim {rank}" in narrow and f"sim best E5 JUK(E)BOX {sim['best_mean']:.1f}" in narrow


@python_engine_in_soak()
def test_review_sim_on_a_real_game(runner):
    """boards/example.gcg: turn 10's INSECT (37) where ENTICES (75) was there ranks below it;
    the phony withdrawn on turn 7 is simulated as the pass it became; every turn reviewed
    is simulated, and a turn's figures agree with themselves."""
    data = run_json(runner, "review", EXAMPLE, "--sim", "--player", "alice", "--sim-iterations", "8", "--seed", "1")
    turns = {t["turn"]: t for t in data["turns"]}
    assert all("sim" in t for t in turns.values() if t["reviewed"])
    insect = turns[10]["sim"]
    assert insect["rank"] > 1 and insect["best"]["move"] in ("M7 ENTICES", "I1 NICET(I)ES") and insect["lost"] > 20
    withdrawn = turns[7]["sim"]
    assert withdrawn["added"] is True and withdrawn["lost"] > 20
    for t in turns.values():
        sim = t["sim"]
        assert 1 <= sim["rank"] <= sim["candidates"] <= 6 and sim["lost"] >= 0
        assert sim["candidates"] == 5 + sim["added"]
        if sim["rank"] == 1:
            assert sim["lost"] == 0 and sim["mean"] == sim["best_mean"]


def test_review_sim_plays_against_the_tiles_a_phony_taken_back_showed(runner, monkeypatch):
    """alice's ENTICSE (turn 7) is challenged off: bob's turn 9 is simulated against
    CEEINST on her rack, every other turn against racks drawn from the unseen tiles."""
    from solver_cli.engine.alphabet import parse_rack
    from solver_cli.lookahead import sim

    seen = {}
    simulate = sim.simulate

    def recording(board, rack, *args, **kwargs):
        seen[tuple(rack)] = kwargs.get("opponent_rack")
        return simulate(board, rack, *args, **kwargs)

    monkeypatch.setattr(sim, "simulate", recording)
    data = run_json(runner, "review", EXAMPLE, "--sim", "--player", "bob", "--sim-iterations", "2", "--seed", "1")
    assert 9 in {t["turn"] for t in data["turns"] if "sim" in t}
    assert seen.pop(tuple(parse_rack("AEEHIII", 7))) == parse_rack("CEEINST", 7)
    assert seen and all(known is None for known in seen.values())
    # the JSON says which turn played against shown tiles
    shown = {t["turn"]: t["sim"]["opponent_rack"] for t in data["turns"] if "sim" in t}
    assert shown.pop(9) == "CEEINST" and set(shown.values()) == {None}
    # ... and so does the text: turn 9's Sim rank marked, and a note saying with what
    options = ["--sim", "--player", "bob", "--sim-iterations", "2", "--seed", "1"]
    text = runner.invoke(cli, ["review", EXAMPLE, *options], env={"COLUMNS": "200"}).stdout
    ranks = {t["turn"]: f"{t['sim']['rank']}/{t['sim']['candidates']}" for t in data["turns"] if "sim" in t}
    rows = {int(line.split()[1]): line for line in text.splitlines() if re.match(r"│ +\d+ bob ", line)}
    assert set(rows) == set(ranks)
    for number, row in rows.items():
        assert f" {ranks[number]}{'*' if number == 9 else ''} " in row
        assert ("* " in row) == (number == 9)
    note = " ".join(text.split())
    assert "* Simulated against the tiles the opponent's phony, taken back just before, showed" in note
    assert "showed on its rack (turn 9: CEEINST); any other tiles" in note


@python_engine_in_soak()
def test_review_sim_stopped_prints_the_turns_done(runner, monkeypatch):
    """Ctrl-C during the third turn's simulation: the two turns done are printed, one
    Stopped: line, exit 130."""
    from solver_cli.games import review as library

    calls = []
    simulate_turn = library.simulate_turn

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return simulate_turn(*args, **kwargs)

    monkeypatch.setattr(library, "simulate_turn", interrupted)
    args = ["review", EXAMPLE, "--sim", "--player", "bob", "--sim-iterations", "4", "--seed", "1"]
    result = runner.invoke(cli, [*args, "--json"])
    assert result.exit_code == 130
    partial = json.loads(result.stdout)
    assert [t["turn"] for t in partial["turns"]] == [2, 4] and partial["stopped"] is True
    assert result.stderr.strip().splitlines()[-1] == "Stopped: after 2 of 13 turns; the review covers them"
    calls.clear()
    result = runner.invoke(cli, args, env={"COLUMNS": "160"})
    assert result.exit_code == 130 and "JUT(E)" in result.stdout and "OH(I)A" not in result.stdout
    # stopped in the first turn: no table, and the line says so
    calls[:] = [1, 1]
    result = runner.invoke(cli, args, env={"COLUMNS": "160"})
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.stderr.strip().splitlines()[-1] == "Stopped: no turn reviewed of 13 turns"


@python_engine_in_soak()  # how turns are shared among workers: the same for both engines
def test_review_sim_gives_the_same_figures_whatever_jobs(runner):
    """Each turn's simulation on two worker processes: the same figures as on one (the
    simulation's draws depend on the seed, not on who plays them)."""

    def figures(jobs: str) -> list[dict]:
        args = ["review", EXAMPLE, "--sim", "--player", "bob", "--sim-iterations", "8", "--seed", "3"]
        data = run_json(runner, *args, "--jobs", jobs)
        turns = [t["sim"] for t in data["turns"] if "sim" in t]
        for sim in turns:
            sim.pop("seconds", None)
        return turns

    one = figures("1")
    assert len(one) >= 5 and one == figures("2")


def test_review_sim_option_errors(runner):
    assert "--jobs (-j) applies only with --sim" in fails(runner, "review", EXAMPLE, "--jobs", "2")
    assert "--sim-iterations applies only with --sim" in fails(runner, "review", EXAMPLE, "--sim-iterations", "5")
    assert "--seed applies only with --sim" in fails(runner, "review", EXAMPLE, "--seed", "5")
    line = fails(runner, "review", EXAMPLE, "--sim", "--rank", "score")
    assert "--sim cannot be used with --rank score" in line

"""Greedy self-play: whole games replayed and checked move by move, reproducibility, the
GCG records (read back by a small reader written here), and the ``selfplay`` command.

Most games use the small lexicon (fast games, and many of them end in exchanges, passes and
six scoreless turns, so every rule is exercised); a few use the full default lexicon.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from click.testing import CliRunner
from positions import reference_args
from reference import apply_placement, board_words, reference_score

from solver_cli._data import data_folder
from solver_cli.cli import cli
from solver_cli.engine.alphabet import BLANK_BIT, LETTERS, letter_of
from solver_cli.engine.board import Board
from solver_cli.engine.movegen import generate_moves
from solver_cli.engine.ranking import solve
from solver_cli.engine.rules import load_rules
from solver_cli.formats.gcg import game_filename, game_text
from solver_cli.games.selfplay import GameOutcome, check_game, game_seed, play_game, run_selfplay, summarize

RULES = {"scrabble": load_rules("scrabble"), "wwf": load_rules("wwf")}
GAMES_PER_RULE_SET = 16


# --- helpers -------------------------------------------------------------------------------


def counts(text: str) -> list[int]:
    out = [0] * 27
    for ch in text:
        out[0 if ch == "?" else ord(ch) - 64] += 1
    return out


def take(bag: list[int], tiles: list[int]) -> None:
    for code, n in enumerate(tiles):
        bag[code] -= n
        assert bag[code] >= 0, f"drew more {'?' if code == 0 else LETTERS[code - 1]} than the bag holds"


def value(rack: list[int], rules) -> int:
    return sum(n * rules.values[code] for code, n in enumerate(rack))


def replay(game, rules, gaddag, words: set[str], greedy_every: int = 3) -> dict:
    """Replay ``game`` from an empty board and a full bag, checking every turn against the
    rules independently of the self-play code; returns what happened, for coverage checks."""
    ref = reference_args(rules)
    rows = Board.empty(rules).to_rows()
    board = Board.empty(rules)
    bag = list(rules.counts)
    racks: list[list[int] | None] = [None, None]
    totals = [0, 0]
    scoreless = 0
    seen = {"play": 0, "exchange": 0, "pass": 0, "greedy_checked": 0}
    last = len(game.turns) - 1
    for n, turn in enumerate(game.turns):
        p = turn.player
        assert p == n % 2, "players must alternate, player 1 first"
        rack = counts(turn.rack)
        if racks[p] is None:  # the player's first rack comes out of the bag
            assert sum(rack) == rules.rack_size
            take(bag, rack)
        else:
            assert rack == racks[p], f"turn {n}: rack {turn.rack} is not what the player held"
        in_bag = sum(bag)
        seen[turn.kind] += 1
        if turn.kind == "play":
            placed = frozenset((r, c, letter_of(code).upper(), bool(code & BLANK_BIT)) for r, c, code in turn.placed)
            assert placed, "a play places at least one tile"
            # the main word's squares: board tiles where the board has them, the new tiles elsewhere
            new = {(r, c): code for r, c, code in turn.placed}
            for k, code in enumerate(turn.codes):
                r, c = (turn.start + k, turn.line) if turn.down else (turn.line, turn.start + k)
                assert (board.at(r, c) or new[(r, c)]) == code
                assert (board.at(r, c) == 0) == ((r, c) in new)
            assert (
                reference_score(rows, placed, ref["premiums"], ref["values"], ref["bingo"], ref["rack_size"])
                == turn.score
            )
            rows = apply_placement(rows, placed)
            for word, *_ in board_words(rows):
                assert word.upper() in words, f"turn {n}: {word} is not a word"
            if n % greedy_every == 0:  # greedy: nothing scores more, and ties go the solver's way
                best = solve(board, rack, gaddag, rules, limit=1).moves[0]
                assert best.score == turn.score
                assert (best.row, best.col, best.down) == (turn.row, turn.col, turn.down)
                assert best.word == "".join(letter_of(c) for c in turn.codes)
                seen["greedy_checked"] += 1
            for r, c, code in turn.placed:
                board.squares[r * rules.cols + c] = code
                rack[0 if code & BLANK_BIT else code] -= 1
                assert min(rack) >= 0, f"turn {n}: played a tile the rack did not hold"
            assert turn.bingo == (len(turn.placed) == rules.rack_size)
            drawn = counts(turn.drawn)
            assert sum(drawn) == min(len(turn.placed), in_bag)
            take(bag, drawn)
            rack = [a + b for a, b in zip(rack, drawn, strict=False)]
        else:
            assert generate_moves(board, rack, gaddag, rules) == [], f"turn {n}: {turn.kind} although a move exists"
            assert turn.score == 0
            if turn.kind == "exchange":
                assert in_bag >= rules.rack_size
                assert counts(turn.exchanged) == rack, "an exchange puts back the whole rack"
                drawn = counts(turn.drawn)
                assert sum(drawn) == sum(rack)
                take(bag, drawn)  # draw first, then the old tiles go back
                bag = [a + b for a, b in zip(bag, rack, strict=False)]
                rack = drawn
            else:
                assert turn.kind == "pass" and in_bag < rules.rack_size and turn.drawn == ""
        totals[p] += turn.score
        assert turn.total == totals[p]
        racks[p] = rack
        scoreless = scoreless + 1 if turn.score == 0 else 0
        if turn.kind == "play" and not any(rack):
            assert n == last and game.end == "out", "the game ends when a player goes out"
        if scoreless == rules.scoreless_turns:  # six in Scrabble, three in Words with Friends
            assert n == last and game.end == "scoreless", "the game ends after the rules' scoreless turns"
        if n == last:
            assert (game.end == "out") == (turn.kind == "play" and not any(rack) and sum(bag) == 0)
            assert (game.end == "scoreless") == (scoreless == rules.scoreless_turns)

    # the final position: board, racks, bag
    assert list(game.squares) == board.squares
    assert [counts(r) for r in game.racks] == racks
    assert counts(game.bag) == bag
    on_board = [0] * 27
    for code in board.squares:
        if code:
            on_board[0 if code & BLANK_BIT else code] += 1
    assert [a + b + c + d for a, b, c, d in zip(on_board, racks[0], racks[1], bag, strict=False)] == list(rules.counts)
    for word, *_ in board.words():
        assert word.upper() in words

    # end-of-game rack points
    adj = {a.player: a for a in game.adjustments}
    assert len(game.adjustments) == 2 and set(adj) == {0, 1}
    if game.end == "out":
        out = game.turns[-1].player
        left = value(racks[1 - out], rules)
        assert adj[out].points == rules.out_gain * left and adj[1 - out].points == -rules.out_loss * left
    else:
        for p in (0, 1):
            assert adj[p].points == -rules.stuck_loss * value(racks[p], rules)
    for p in (0, 1):
        assert adj[p].total == totals[p] + adj[p].points == game.scores[p]
    assert sum(t.bingo for t in game.turns if t.player == 0) == game.bingos[0]
    assert sum(t.bingo for t in game.turns if t.player == 1) == game.bingos[1]
    return seen


def without_time(game):
    return replace(game, seconds=0.0)


# --- a GCG reader, just enough for our records ----------------------------------------------

EVENT = re.compile(r">(\w+): (.*)$")


def read_gcg(text: str, rules) -> dict:
    """Parse a GCG record; replay its plays on a grid and check the cumulative totals."""
    pragmas: dict[str, str] = {}
    grid = [["."] * rules.cols for _ in range(rules.rows)]
    totals: dict[str, int] = {}
    events = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, rest = line[1:].partition(" ")
            pragmas[key] = rest
            continue
        m = EVENT.fullmatch(line)
        assert m, f"not a GCG event line: {line!r}"
        nick, tokens = m.group(1), m.group(2).split()
        points, total = int(tokens[-2]), int(tokens[-1])
        assert tokens[-2][0] in "+-"
        if tokens[0].startswith("("):  # points for the opponent's rack, after going out
            kind = "out"
            assert len(tokens) == 3 and tokens[0].endswith(")")
        elif len(tokens) == 4 and tokens[1].startswith("("):  # own rack's value deducted
            kind = "penalty"
            assert tokens[1] == f"({tokens[0]})" and points <= 0
        elif tokens[1] == "-":
            kind = "pass"
        elif tokens[1].startswith("-"):
            kind = "exchange"
            assert len(tokens) == 4
        else:
            kind = "play"
            pos, word = tokens[1], tokens[2]
            across = re.fullmatch(r"(\d+)([A-Z])", pos)
            down = re.fullmatch(r"([A-Z])(\d+)", pos)
            assert across or down, pos
            r, c = (int(across[1]) - 1, ord(across[2]) - 65) if across else (int(down[2]) - 1, ord(down[1]) - 65)
            for k, ch in enumerate(word):
                rr, cc = (r + k, c) if down else (r, c + k)
                if ch == ".":
                    assert grid[rr][cc] != ".", f"{pos} {word}: no tile at a '.'"
                else:
                    assert grid[rr][cc] == ".", f"{pos} {word}: square taken"
                    assert ch.upper() in tokens[0] or "?" in tokens[0]
                    grid[rr][cc] = ch
        totals[nick] = totals.get(nick, 0) + points
        assert totals[nick] == total, f"cumulative total wrong in {line!r}"
        events.append((nick, kind, tokens))
    return {"pragmas": pragmas, "events": events, "totals": totals, "rows": ["".join(r) for r in grid]}


# --- games with the small lexicon, both rule sets --------------------------------------------


@pytest.fixture(scope="module")
def small_games(small_gaddag):
    return {
        name: [play_game(small_gaddag, rules, seed=2024, index=i) for i in range(GAMES_PER_RULE_SET)]
        for name, rules in RULES.items()
    }


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_game_replays_by_the_rules(small_games, small_gaddag, small_words, name):
    rules = RULES[name]
    words = set(small_words)
    seen = {"play": 0, "exchange": 0, "pass": 0, "greedy_checked": 0}
    ends = {"out": 0, "scoreless": 0}
    for game in small_games[name]:
        for key, n in replay(game, rules, small_gaddag, words).items():
            seen[key] += n
        ends[game.end] += 1
        assert check_game(game, small_gaddag, rules) == []
    # the checks above really ran on every kind of turn and ending
    assert seen["play"] > 200 and seen["greedy_checked"] > 60
    assert seen["exchange"] > 0 and seen["pass"] > 0
    assert ends["out"] > 0 and ends["scoreless"] > 0


def test_end_of_game_factors_change_the_final_adjustments(small_gaddag, small_words):
    """The rule set's out_gain, out_loss and stuck_loss, not a fixed 1, make the end of a
    game: the same games (same moves) end with the adjustments multiplied."""
    ends = set()
    for rules in RULES.values():
        heavy = replace(rules, out_gain=2, out_loss=3, stuck_loss=4)
        for index in range(6):
            plain = play_game(small_gaddag, rules, seed=2024, index=index)
            game = play_game(small_gaddag, heavy, seed=2024, index=index)
            assert game.turns == plain.turns and game.end == plain.end
            factors = (2, 3) if game.end == "out" else (4, 4)
            first = game.turns[-1].player if game.end == "out" else 0
            points = {a.player: a.points for a in game.adjustments}
            plain_points = {a.player: a.points for a in plain.adjustments}
            assert points[first] == factors[0] * plain_points[first]
            assert points[1 - first] == factors[1] * plain_points[1 - first]
            assert any(plain_points.values())  # a real change: some rack was left
            replay(game, heavy, small_gaddag, set(small_words))  # every total adds up
            ends.add(game.end)
    assert ends == {"out", "scoreless"}


def test_full_lexicon_games_replay(full_lexicon, full_words):
    words = set(full_words)
    for _name, rules in RULES.items():
        for index in range(2):
            game = play_game(full_lexicon.gaddag, rules, seed=7, index=index)
            seen = replay(game, rules, full_lexicon.gaddag, words, greedy_every=2)
            assert seen["play"] >= 10
            assert max(game.scores) > 150  # real games with a real word list


def test_check_game_catches_bad_boards_and_lost_tiles(small_games, small_gaddag):
    rules = RULES["scrabble"]
    game = next(g for g in small_games["scrabble"] if len(g.turns) > 8)
    assert check_game(game, small_gaddag, rules) == []
    squares = list(game.squares)
    i = next(k for k, code in enumerate(squares) if code and code & 31 != 17)
    squares[i] = 17  # a Q where another letter was: a non-word, and one Q too many
    problems = check_game(replace(game, squares=tuple(squares)), small_gaddag, rules)
    assert any("not in the lexicon" in p for p in problems)
    assert any("tiles do not match" in p for p in problems)
    lost = check_game(
        replace(game, bag=game.bag[1:] if game.bag else "", racks=(game.racks[0][1:], game.racks[1])),
        small_gaddag,
        rules,
    )
    assert lost and "tiles do not match" in lost[-1]


def test_same_seed_same_game_other_seed_other_game(small_gaddag):
    rules = RULES["wwf"]
    a = play_game(small_gaddag, rules, seed=5, index=3)
    b = play_game(small_gaddag, rules, seed=5, index=3)
    assert without_time(a) == without_time(b)
    assert a.seed == game_seed(5, 3) != game_seed(5, 4) != game_seed(6, 3)
    c = play_game(small_gaddag, rules, seed=6, index=3)
    d = play_game(small_gaddag, rules, seed=5, index=4)
    assert a.turns != c.turns and a.turns != d.turns


def test_run_is_the_same_on_one_or_two_processes(small_gaddag):
    rules = RULES["scrabble"]
    seen_one, seen_two, ticks = [], [], []
    one = run_selfplay(small_gaddag, rules, 6, seed=11, jobs=1, on_game=seen_one.append)
    two = run_selfplay(
        small_gaddag,
        rules,
        6,
        seed=11,
        jobs=2,
        on_game=seen_two.append,
        progress=lambda done, total: ticks.append((done, total)),
    )
    assert two.jobs == 2 and ticks == [(k, 6) for k in range(1, 7)]
    strip = lambda outcomes: [replace(o, seconds=0.0) for o in outcomes]  # noqa: E731
    assert strip(one.outcomes) == strip(two.outcomes)
    assert [o.index for o in two.outcomes] == list(range(6))
    by_index = lambda games: sorted((without_time(g) for g in games), key=lambda g: g.index)  # noqa: E731
    assert by_index(seen_one) == by_index(seen_two)
    assert by_index(seen_one)[2] == without_time(play_game(small_gaddag, rules, seed=11, index=2))


def test_summary_numbers():
    def outcome(i, a, b, bingos, end="out"):
        return GameOutcome(i, 0, (a, b), bingos, 20, 18, end, 0.5)

    s = summarize(
        [outcome(0, 300, 200, (1, 0)), outcome(1, 250, 250, (0, 0), "scoreless"), outcome(2, 100, 400, (2, 1))], 2.0
    )
    assert (s.games, s.first_player_wins, s.second_player_wins, s.draws) == (3, 1, 1, 1)
    assert s.score_mean == 250.0
    assert s.score_stdev == pytest.approx((sum((x - 250) ** 2 for x in (300, 200, 250, 250, 100, 400)) / 6) ** 0.5)
    assert s.first_player_score_mean == pytest.approx(650 / 3) and s.second_player_score_mean == pytest.approx(850 / 3)
    assert s.bingos_per_game == 4 / 3 and (s.went_out, s.scoreless_endings) == (2, 1)
    assert (s.moves, s.plays) == (60, 54) and s.moves_per_second == 30.0 and s.games_per_second == 1.5


# --- GCG -------------------------------------------------------------------------------------


def test_gcg_records_read_back(small_games):
    for name, games in small_games.items():
        rules = RULES[name]
        for game in games:
            text = game_text(game, rules=name, lexicon="small", run_seed=2024)
            parsed = read_gcg(text, rules)
            assert (
                parsed["pragmas"]["player1"] == "p1 Player 1 (greedy)"
                and parsed["pragmas"]["player2"] == "p2 Player 2 (greedy)"
            )
            assert parsed["totals"] == {"p1": game.scores[0], "p2": game.scores[1]}
            assert parsed["rows"] == Board(rules.rows, rules.cols, list(game.squares)).to_rows()
            kinds = [k for _, k, _ in parsed["events"]]
            assert kinds[: len(game.turns)] == [t.kind for t in game.turns]
            assert kinds[len(game.turns) :] == (["out", "penalty"] if game.end == "out" else ["penalty", "penalty"])
            for (nick, _, tokens), turn in zip(parsed["events"], game.turns, strict=False):
                assert nick == ("p1", "p2")[turn.player] and tokens[0] == turn.rack


def test_gcg_line_shapes(small_games):
    games = small_games["scrabble"] + small_games["wwf"]
    game = next(g for g in games if g.end == "out")
    lines = game_text(game).splitlines()
    assert lines[1:3] == ["#player1 p1 Player 1 (greedy)", "#player2 p2 Player 2 (greedy)"]
    first = game.turns[0]
    word = "".join(letter_of(c) for c in first.codes)
    pos = f"{LETTERS[first.col]}{first.row + 1}" if first.down else f"{first.row + 1}{LETTERS[first.col]}"
    assert lines[5] == f">p1: {first.rack} {pos} {word} +{first.score} {first.score}"
    out = game.turns[-1].player
    left = game.racks[1 - out]
    assert re.fullmatch(rf">p{out + 1}: \({re.escape(left)}\) \+\d+ {game.scores[out]}", lines[-2])
    assert re.fullmatch(rf">p{2 - out}: {re.escape(left)} \({re.escape(left)}\) -\d+ {game.scores[1 - out]}", lines[-1])
    # a play through board tiles writes them as "."
    index = next(i for i, t in enumerate(game.turns) if t.kind == "play" and len(t.placed) < len(t.codes))
    assert "." in lines[5 + index].split()[3]

    exchanged = next(g for g in games if any(t.kind == "exchange" for t in g.turns))
    ex = next(t for t in exchanged.turns if t.kind == "exchange")
    assert f">{('p1', 'p2')[ex.player]}: {ex.rack} -{ex.rack} +0 {ex.total}" in game_text(exchanged).splitlines()
    passed = next(g for g in games if any(t.kind == "pass" for t in g.turns))
    pa = next(t for t in passed.turns if t.kind == "pass")
    assert f">{('p1', 'p2')[pa.player]}: {pa.rack} - +0 {pa.total}" in game_text(passed).splitlines()
    scoreless = next(g for g in games if g.end == "scoreless")
    tail = game_text(scoreless).splitlines()[-2:]
    for p, line in enumerate(tail):
        rack = scoreless.racks[p]
        assert re.fullmatch(rf">p{p + 1}: {re.escape(rack)} \({re.escape(rack)}\) -\d+ {scoreless.scores[p]}", line)
    assert game_filename(0, 10) == "game-0001.gcg" and game_filename(41, 100000) == "game-000042.gcg"


# --- the command -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def word_file(tmp_path_factory, small_words):
    path = tmp_path_factory.mktemp("selfplay") / "small.txt"
    path.write_text("\n".join(small_words) + "\n")
    return str(path)


def run_cli(*args):
    result = CliRunner().invoke(cli, ["selfplay", *args])
    return result


TIMING = {"seconds", "seconds_per_game", "moves_per_second", "games_per_second", "jobs"}


def test_cli_json_is_reproducible_across_jobs(word_file, tmp_path):
    one = run_cli("--games", "5", "--seed", "3", "--lexicon", word_file, "--json")
    assert one.exit_code == 0, one.output
    assert one.stderr == ""
    data = json.loads(one.stdout)
    assert data["games"] == 5 and len(data["results"]) == 5 and data["seed"] == 3
    assert data["first_player_wins"] + data["second_player_wins"] + data["draws"] == 5
    assert data["rules"] == "scrabble" and data["lexicon"] == word_file
    for key in (
        "score_mean",
        "score_stdev",
        "bingos_per_game",
        "moves_per_second",
        "games_per_second",
        "moves",
        "went_out",
    ):
        assert isinstance(data[key], (int, float))
    assert data["moves"] == sum(r["moves"] for r in data["results"])
    assert [r["game"] for r in data["results"]] == [1, 2, 3, 4, 5]
    for r in data["results"]:
        a, b = r["scores"]
        assert r["winner"] == ("p1" if a > b else "p2" if b > a else "draw")

    two = run_cli(
        "--games",
        "5",
        "--seed",
        "3",
        "--lexicon",
        word_file,
        "--json",
        "--jobs",
        "2",
        "--save-games",
        str(tmp_path / "a" / "b"),
    )
    assert two.exit_code == 0, two.output
    other = json.loads(two.stdout)
    assert other["jobs"] == 2
    assert {k: v for k, v in data.items() if k not in TIMING | {"saved_to"}} == {
        k: v for k, v in other.items() if k not in TIMING | {"saved_to"}
    }
    files = sorted((tmp_path / "a" / "b").iterdir())
    assert [f.name for f in files] == [f"game-000{i}.gcg" for i in range(1, 6)]
    for f, r in zip(files, data["results"], strict=False):
        parsed = read_gcg(f.read_text(), RULES["scrabble"])
        assert parsed["totals"] == {"p1": r["scores"][0], "p2": r["scores"][1]}
        assert f"game seed {r['seed']}" in parsed["pragmas"]["description"]

    different = json.loads(run_cli("--games", "5", "--seed", "4", "--lexicon", word_file, "--json").stdout)
    assert different["results"] != data["results"]


def test_cli_table(word_file):
    result = run_cli("--games", "3", "--seed", "1", "--rules", "wwf", "--lexicon", word_file)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    out = result.stdout
    assert "3 greedy games" in out and "wwf" in out and "seed 1" in out
    for row in (
        "First-player wins",
        "Second-player wins",
        "Draws",
        "Mean score (sd)",
        "Bingos per game",
        "Moves per second",
        "Games per second",
        "Ended: out / three scoreless",  # (the wwf rules' count: six in Scrabble)
    ):
        assert row in out
    data = json.loads(run_cli("--games", "3", "--seed", "1", "--rules", "wwf", "--lexicon", word_file, "--json").stdout)
    assert f"{data['score_mean']:.1f} ({data['score_stdev']:.1f})" in out
    assert f"{data['first_player_wins']} (" in out


def test_cli_seed_is_reported_when_not_given(word_file):
    result = run_cli("--games", "1", "--lexicon", word_file, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    again = json.loads(run_cli("--games", "1", "--lexicon", word_file, "--json", "--seed", str(data["seed"])).stdout)
    assert again["results"] == data["results"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--games", "0"], "--games"),
        (["--games", "2", "--jobs", "0"], "--jobs"),
        (["--jobs", "2"], "--games"),
        (["--games", "2", "--rules", "nosuch"], "unknown rule set"),
    ],
)
def test_cli_bad_options(word_file, args, message):
    result = run_cli(*args, "--lexicon", word_file)
    assert result.exit_code == 2
    assert result.stdout == "" and message in result.stderr


def test_cli_save_games_must_be_a_folder(word_file, tmp_path):
    target = tmp_path / "taken"
    target.write_text("not a folder")
    result = run_cli("--games", "1", "--lexicon", word_file, "--save-games", str(target))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"Error: --save-games {target}: is a file, not a folder"


def test_cli_save_games_empty_is_refused_not_the_current_folder(word_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for empty in ("", " "):
        result = run_cli("--games", "1", "--lexicon", word_file, "--save-games", empty)
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.strip() == "Error: --save-games: the folder name is empty"
    assert list(tmp_path.iterdir()) == []


# --- two players, each bag played twice with the seats swapped (--players) ----------------


@pytest.fixture(scope="module")
def leave_file(tmp_path_factory) -> str:
    """A leave table that rewards keeping blanks and an S and punishes a Q, so the equity
    player differs from the greedy one (values in hundredths of a point)."""
    from array import array

    from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable, leave_of_index
    from solver_cli.formats.leavefile import write_leaves

    values = array("h", bytes(2 * TABLE_SIZE))
    for index in range(1, 28 + 27 * 28 // 2):  # the leaves of one and two tiles
        kept = leave_of_index(index)
        values[index] = 2500 * kept[0] + 800 * kept[19] - 1200 * kept[17]
    path = tmp_path_factory.mktemp("leaves") / "toy.leaves"
    write_leaves(path, LeaveTable(values), {"rules": "scrabble", "lexicon": "small", "rack_size": 7})
    return str(path)


def test_cli_players_report_wins_rates_intervals_and_spreads(word_file, leave_file):
    player = f"equity:{leave_file}"
    result = run_cli("--players", f"{player},greedy", "--games", "8", "--seed", "2", "--lexicon", word_file, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["mirrored"] is True and data["games"] == 8
    equity, greedy = data["players"]
    assert (equity["name"], greedy["name"]) == (player, "greedy")
    assert set(equity) == {"name", "wins", "win_rate", "ci95", "spread_mean"}
    draws = sum(1 for r in data["results"] if r["winner"] == "draw")
    assert equity["wins"] + greedy["wins"] == 8 and draws == data["draws"]
    assert equity["spread_mean"] == pytest.approx(-greedy["spread_mean"])
    for p in (equity, greedy):
        low, high = p["ci95"]
        assert 0 <= low <= p["win_rate"] <= high <= 1
        assert p["win_rate"] == p["wins"] / 8
    # Each bag twice, the seats swapped: game 2k and 2k + 1 share a seed.
    results = data["results"]
    for first, second in zip(results[::2], results[1::2], strict=True):
        assert first["seed"] == second["seed"]
        assert first["seats"] == [player, "greedy"] and second["seats"] == ["greedy", player]
    # The equity player's own points, game by game, give its spread and wins.
    spreads = [r["scores"][r["seats"].index(player)] - r["scores"][1 - r["seats"].index(player)] for r in results]
    assert equity["spread_mean"] == pytest.approx(sum(spreads) / 8)
    assert equity["wins"] == sum(1.0 if s > 0 else 0.5 if s == 0 else 0.0 for s in spreads)
    table = run_cli("--players", f"{player},greedy", "--games", "8", "--seed", "2", "--lexicon", word_file)
    assert table.exit_code == 0, table.output
    text = " ".join(table.stdout.split())
    assert "8 games: " in text and "each bag played twice with the seats swapped" in text
    assert "Player" in text and "Win rate" in text and "95% interval" in text and "Spread" in text
    assert f"{100 * equity['win_rate']:.1f}%" in text and f"{greedy['spread_mean']:+.1f}" in text


def test_cli_players_of_one_kind_are_told_apart(word_file):
    result = run_cli("--players", "greedy,greedy", "--games", "2", "--seed", "1", "--lexicon", word_file, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [p["name"] for p in data["players"]] == ["greedy (1)", "greedy (2)"]
    # greedy against greedy on one bag, seats swapped: the same game twice, each player
    # winning it once from the same seat
    first, second = data["results"]
    assert first["scores"] == second["scores"] and first["scores"][0] != first["scores"][1]
    assert [(p["wins"], p["win_rate"], p["spread_mean"]) for p in data["players"]] == [(1.0, 0.5, 0.0)] * 2


def test_cli_without_players_is_greedy_once_per_bag(word_file):
    data = json.loads(run_cli("--games", "3", "--seed", "1", "--lexicon", word_file, "--json").stdout)
    assert "players" not in data and "mirrored" not in data
    assert len({r["seed"] for r in data["results"]}) == 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "equity,greedy", "--games", "3"], "--games 3: with --players each bag is played twice"),
        (["--players", "greedy", "--games", "2"], "give two players separated by a comma"),
        (
            ["--players", "greedy,smart", "--games", "2"],
            "unknown player 'smart' (use greedy, equity, endgame, peg, one of the last three with :FILE, "
            "or sim:iterations=N,plies=N,candidates=N,endgame=MS,rank=points|win)",
        ),
        (["--players", "equity:,greedy", "--games", "2"], "equity: needs a leave file"),
        (["--players", "equity:/no/such.leaves,greedy", "--games", "2"], "cannot read"),
        (["--players", "endgame:/no/such.leaves,greedy", "--games", "2"], "cannot read"),
        (["--players", "greedy,peg:/no/such.leaves", "--games", "2"], "cannot read"),
    ],
)
def test_cli_bad_players(word_file, args, message):
    result = run_cli(*args, "--lexicon", word_file)
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and message in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: ")


LEAVES_FOLDER = data_folder("leaves")


def test_endgame_and_peg_players_play_by_the_leave_file_given(tmp_path):
    """``endgame:FILE`` and ``peg:FILE`` rank by FILE's table until their look-ahead takes
    over, as ``equity:FILE`` does; without a file, by the shipped one."""
    from solver_cli.cli.selfplay import make_players
    from solver_cli.formats.leavefile import read_leaves

    scrabble = load_rules("scrabble")
    shipped = make_players(("endgame", "peg"), scrabble, None)
    path = tmp_path / "own.leaves"
    path.write_bytes((LEAVES_FOLDER / "scrabble-sowpods.leaves").read_bytes())
    own = read_leaves(str(path))
    assert own != shipped[0].leaves
    players = make_players((f"endgame:{path}", f"peg:{path}"), scrabble, None)
    assert [(p.leaves, p.lookahead) for p in players] == [(own, "endgame"), (own, "peg")]
    assert [p.lookahead for p in shipped] == ["endgame", "peg"]


def _outcomes(points: list[tuple[int, int]]) -> list:
    from solver_cli.engine.history import GameOutcome

    return [GameOutcome(i, 0, scores, (0, 0), 20, 18, "out", 0.0) for i, scores in enumerate(points)]


def test_standings_count_draws_half_and_swap_seats_in_mirrored_runs():
    from solver_cli.games.selfplay import standings

    # Scores by seat; B sits first in odd games. Pairs on one bag: A wins both; the first
    # seat wins both (one game each); two draws.
    games = _outcomes([(400, 300), (310, 390), (360, 350), (360, 350), (300, 300), (300, 300)])
    a, b = standings(games, ("A", "B"), mirrored=True)
    assert (a.games, a.wins, b.wins) == (6, 4.0, 2.0)
    assert a.spread_mean == (100 + 80 + 10 - 10 + 0 + 0) / 6 == -b.spread_mean
    assert a.ci95[0] < a.win_rate < a.ci95[1] and abs(a.win_rate + b.win_rate - 1) < 1e-12


def test_an_even_split_still_has_an_interval():
    """Ten pairs that all split 1-1: win rate 50%, and an interval of some width around it
    (the two pseudo-units), not a zero-width certainty."""
    from solver_cli.games.selfplay import standings

    games = _outcomes([(400, 300), (400, 300)] * 10)  # the first seat always wins
    a, _ = standings(games, ("A", "B"), mirrored=True)
    assert a.win_rate == 0.5 and a.ci95[0] < 0.45 and a.ci95[1] > 0.55
    many = _outcomes([(400, 300), (400, 300)] * 5000)
    wide = standings(many, ("A", "B"), mirrored=True)[0].ci95
    assert wide[1] - wide[0] < 0.02  # over 5,000 pairs the padding no longer shows

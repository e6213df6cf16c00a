"""Reviewing a game: every figure checked against the brute-force reference, by score and
by equity; the records `scrab selfplay --save-games` writes read back to the same scores
(both rule sets) and reviewed with zero loss (greedy play is best by score, equity play by
equity with its own table)."""

from __future__ import annotations

import json
import random
from array import array
from math import prod
from pathlib import Path

import pytest
from click.testing import CliRunner
from positions import reference_args
from reference import reference_moves
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.alphabet import BLANK, BLANK_BIT, LETTER_MASK, parse_rack
from solver_cli.engine.leaves import NOT_OUT_PENALTY, SCALE, TABLE_SIZE, LeaveTable
from solver_cli.engine.movegen import NATIVE_BUILT, generate_moves
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.formats.gcg_read import decode_gcg, read_gcg
from solver_cli.formats.leavefile import write_leaves
from solver_cli.games.review import adjustments_json, review_game, turn_valuation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "boards" / "example.gcg"
GCG = ROOT / "tests" / "formats" / "gcg"
SCRABBLE = load_rules("scrabble")
WWF = load_rules("wwf")


def example_record(rules=SCRABBLE, contains=None):
    return read_gcg(EXAMPLE.read_text(encoding="utf-8"), rules, str(EXAMPLE), contains)


@pytest.fixture(scope="module")
def small_list(tmp_path_factory, small_words) -> Path:
    path = tmp_path_factory.mktemp("lists") / "small.txt"
    path.write_text("\n".join(small_words) + "\n")
    return path


# ---------------------------------------------------------------------------------------------
# The review against the brute-force reference (small lexicon: the reference is slow)


def test_review_figures_match_the_reference(small_gaddag, small_words):
    record = example_record()
    review = review_game(record, small_gaddag, SCRABBLE, top=3)
    words = set(small_words)
    args = reference_args(SCRABBLE)
    checked = 0
    for r in review.turns:
        turn = r.turn
        assert r.reviewed and turn.full_rack  # every rack of the example is whole
        board = record.board_before(turn.number).to_rows()
        moves = reference_moves(board, turn.rack, words, **args)
        scores = sorted(moves.values(), reverse=True)
        # A pass, an exchange, or a phony taken back: the turn scored nothing.
        played = turn.computed if turn.kind == "play" and not turn.withdrawn else 0
        best = max([*scores, 0])  # the pass is always a candidate
        assert r.candidates == len(moves) + 1
        assert r.value == played
        assert r.best_value == best
        assert r.rank == 1 + sum(1 for s in scores if s > played)
        assert r.tied_best == sum(1 for s in scores if s == best) + (best == 0)
        assert r.given_up == max(0, best - played)
        assert r.matched == (played >= best and not turn.phonies)
        assert r.bingo_available == any(len(p) == SCRABBLE.rack_size for p in moves)
        assert [o.value for o in r.best] == ([*scores, 0])[: len(r.best)]
        assert len(r.best) == min(3, len(moves) + 1)
        for option in r.best:
            if option.move is not None:
                placement = frozenset((t.row, t.col, t.letter, t.blank) for t in option.move.placed)
                assert moves[placement] == option.value == option.score
        checked += 1
    assert checked == len([t for t in record.turns if t.kind in ("play", "exchange", "pass")])


def test_summary_adds_up_the_turns(full_lexicon):
    record = example_record(contains=full_lexicon.contains)
    review = review_game(record, full_lexicon.gaddag, SCRABBLE)
    assert [s.nick for s in review.players] == ["alice", "bob"]
    for summary in review.players:
        mine = [r for r in review.turns if r.turn.player == summary.player]
        assert summary.turns == len(mine) == 13
        assert summary.reviewed == sum(r.reviewed for r in mine)
        assert summary.matched == sum(r.matched for r in mine)
        assert summary.given_up == sum(r.given_up for r in mine)
        assert summary.bingos_missed == sum(r.bingo_missed for r in mine)
        assert summary.score == record.final_scores[summary.player]
    alice, bob = review.players
    # alice played the phony ENTICSE (withdrawn), then INSECT with ENTICES still on: two
    # missed bingos; bob found no bingo to play or miss.
    assert (alice.phonies, alice.bingos_missed, bob.phonies, bob.bingos_missed) == (1, 2, 0, 0)
    phony = next(r for r in review.turns if r.turn.phonies)
    assert phony.turn.withdrawn and phony.value == 0 and not phony.matched
    assert phony.given_up == phony.best_value == 75


def test_one_player_only(full_lexicon):
    record = example_record()
    review = review_game(record, full_lexicon.gaddag, SCRABBLE, players=(1,))
    assert {r.turn.player for r in review.turns} == {1}
    assert [s.nick for s in review.players] == ["bob"]


def test_turns_without_a_whole_rack_are_listed_not_valued(full_lexicon):
    path = ROOT / "tests" / "formats" / "gcg" / "partial.gcg"
    record = read_gcg(decode_gcg(path.read_bytes(), str(path)), SCRABBLE, str(path))
    review = review_game(record, full_lexicon.gaddag, SCRABBLE)
    reasons = {r.turn.line: r.reason for r in review.turns if not r.reviewed}
    assert reasons == {
        6: "the record gives only part of the rack",
        8: "no rack in the record",
        13: "no rack in the record",
        15: "the record gives only part of the rack",
        18: "the record gives only part of the rack",
        20: "the record gives only part of the rack",
    }
    bob = review.players[1]
    assert (bob.turns, bob.reviewed) == (7, 1)


def test_an_exchange_the_bag_cannot_allow_is_listed_not_ranked(full_lexicon, table):
    """An exchange with fewer tiles in the bag than the rules need (here none) is no legal
    move to rank among the others, by score or by equity, nor one an endgame can settle."""
    path = ROOT / "tests" / "formats" / "gcg" / "warn" / "exchange_empty_bag.gcg"
    record = read_gcg(decode_gcg(path.read_bytes(), str(path)), SCRABBLE, str(path))
    for leaves in (None, table):
        review = review_game(record, full_lexicon.gaddag, SCRABBLE, leaves)
        reasons = {r.turn.line: r.reason for r in review.turns if not r.reviewed}
        assert reasons == {35: "an exchange the rules do not allow (0 in the bag)"}


def test_the_lines_that_are_not_moves_are_kept_with_their_figures(small_gaddag):
    """The withdrawal, the challenge bonus and the end-of-game points: not reviewed, but
    listed with the figures the record gives and those scrab computes."""
    review = review_game(example_record(), small_gaddag, SCRABBLE)
    assert adjustments_json(review) == [
        {
            "turn": 8,
            "line": 15,
            "player": "alice",
            "kind": "withdrawn",
            "move": "phony withdrawn",
            "score": -75,
            "computed": -75,
            "total": 81,
            "takes_back": 7,
        },
        {
            "turn": 12,
            "line": 20,
            "player": "bob",
            "kind": "challenge",
            "move": "challenge bonus",
            "score": 5,
            "computed": None,
            "total": 112,
        },
        {
            "turn": 29,
            "line": 37,
            "player": "bob",
            "kind": "out",
            "move": "(QR)",
            "score": 22,
            "computed": 22,
            "total": 351,
            "counted": "QR",
        },
    ]
    # Every total in the record is reached: the moves' scores plus these lines'.
    for index, summary in enumerate(review.players):
        moves = sum(r.turn.score for r in review.turns if r.turn.player == index)
        others = sum(t.score for t in review.adjustments if t.player == index)
        assert moves + others == summary.score
    bob = review_game(example_record(), small_gaddag, SCRABBLE, players=(1,))
    assert [t.kind for t in bob.adjustments] == ["challenge", "out"]


def test_time_penalties_and_rack_penalties_are_kept(small_gaddag):
    woogles = read_gcg((GCG / "woogles.gcg").read_text(encoding="utf-8"), SCRABBLE, "woogles.gcg")
    last = adjustments_json(review_game(woogles, small_gaddag, SCRABBLE))[-1]
    assert (last["kind"], last["move"], last["score"], last["computed"], last["total"]) == (
        "time",
        "time penalty",
        -10,
        None,
        321,
    )
    end = read_gcg((GCG / "warn" / "end.gcg").read_text(encoding="utf-8"), SCRABBLE, "end.gcg")
    penalty = adjustments_json(review_game(end, small_gaddag, SCRABBLE))[-1]
    assert (penalty["kind"], penalty["score"], penalty["computed"], penalty["counted"]) == ("penalty", -10, -11, "QR")


@pytest.mark.parametrize(
    "record, players, message",
    [
        ("no_moves.gcg", (0, 1), "nothing to review: the record has no move (a play, an exchange or a pass)"),
        ("only_withdrawn.gcg", (0, 1), "nothing to review: the record has no move (a play, an exchange or a pass)"),
        ("only_withdrawn.gcg", (1,), "nothing to review: the record has no move (a play, an exchange or a pass)"),
    ],
)
def test_a_record_without_a_move_is_not_reviewed(small_gaddag, record, players, message):
    path = GCG / record
    game = read_gcg(path.read_text(encoding="utf-8"), SCRABBLE, str(path))
    with pytest.raises(InputError) as caught:
        review_game(game, small_gaddag, SCRABBLE, players=players)
    assert str(caught.value) == f"{path}: {message}"


def test_a_player_without_a_move_is_not_reviewed(small_gaddag):
    text = "#player1 a Ann\n#player2 b Bo\n>a: AEEEOW? 8D WEAvE +22 22\n"
    game = read_gcg(text, SCRABBLE, "one.gcg")
    with pytest.raises(InputError, match=r"^one.gcg: nothing to review: b made no move$"):
        review_game(game, small_gaddag, SCRABBLE, players=(1,))
    assert len(review_game(game, small_gaddag, SCRABBLE).turns) == 1


@pytest.mark.parametrize("record", ["no_moves.gcg", "only_withdrawn.gcg"])
def test_scrab_review_of_a_record_without_a_move_fails(small_list, record):
    path = GCG / record
    result = CliRunner().invoke(cli, ["review", str(path), "--lexicon", str(small_list)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.strip().split("\n")[-1] == (
        f"Error: {path}: nothing to review: the record has no move (a play, an exchange or a pass)"
    )


def test_scrab_review_of_a_board_file_says_it_is_not_a_record(small_list):
    board = ROOT / "boards" / "midgame.txt"
    result = CliRunner().invoke(cli, ["review", str(board), "--lexicon", str(small_list)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"Error: {board}: not a GCG game record (line 1 is '# A Scrabble")


def test_progress_is_reported_per_turn(full_lexicon):
    seen = []
    review_game(
        example_record(), full_lexicon.gaddag, SCRABBLE, progress=lambda done, total: seen.append((done, total))
    )
    assert seen == [(k, 26) for k in range(1, 27)]


# ---------------------------------------------------------------------------------------------
# By equity: score plus the value of the leave, exchanges among the candidates


def random_table(seed: int) -> LeaveTable:
    rng = random.Random(seed)
    # Coarse values (hundredths of a point), so that equal equities happen too.
    return LeaveTable(array("h", (rng.randrange(-30, 31) * 50 for _ in range(TABLE_SIZE))), f"random-{seed}")


@pytest.fixture(scope="module")
def table() -> LeaveTable:
    return random_table(7)


def kept_after(rack: str, placement) -> list[int]:
    counts = parse_rack(rack, 7)
    for *_, letter, blank in placement:
        counts[0 if blank else ord(letter) - 64] -= 1
    return counts


def test_equity_review_matches_the_reference_valued_by_the_table(small_gaddag, small_words, table):
    """Every candidate valued as score + the table's value of the tiles kept (thousandths of
    a point, exact), the exchanges among them while the bag holds 7 tiles: the best value,
    the rank and the count of candidates agree with the reference's moves valued so."""
    record = example_record()
    review = review_game(record, small_gaddag, SCRABBLE, table, top=3)
    assert review.ranking == "equity"
    words = set(small_words)
    args = reference_args(SCRABBLE)
    exchanges_seen = checked = 0
    for r in review.turns[:8]:
        turn = r.turn
        assert turn.bag > 0 and r.reviewed, turn.line
        rack = turn.rack
        moves = reference_moves(record.board_before(turn.number).to_rows(), rack, words, **args)
        values = [score * SCALE + table.value(kept_after(rack, p)) for p, score in moves.items()]
        whole = parse_rack(rack, 7)
        candidates = [*values, table.value(whole)]  # the plays and the pass
        exchanges = 0
        if turn.bag >= SCRABBLE.exchange_min_bag:
            exchanges = prod(rack.count(ch) + 1 for ch in set(rack)) - 1  # distinct tile sets
            exchanges_seen += 1
            candidates.append(max(table.value(sub) for sub in _sub_racks(whole) if sum(sub) < sum(whole)))
        best = max(candidates)
        assert r.best_value == best / SCALE, turn.line
        assert r.candidates == len(moves) + 1 + exchanges
        assert r.best[0].value == best / SCALE
        if turn.kind == "play" and not turn.withdrawn:
            # valued as placed, whether the small word list has the word or not
            kept = parse_rack(rack, 7)
            for *_, code in turn.placed:
                kept[BLANK if code & BLANK_BIT else code & LETTER_MASK] -= 1
            played = turn.computed * SCALE + table.value(kept)
            assert r.value == played / SCALE
            assert r.rank == 1 + sum(1 for v in candidates if v > played) + _better_exchanges(whole, table, played)
            assert r.given_up == max(0, best - played) / SCALE
            checked += 1
    assert exchanges_seen >= 7 and checked >= 6


def _sub_racks(whole: list[int]):
    """Every sub-multiset of a rack (27 counts), the whole one included."""
    subs = [[]]
    for n in whole:
        subs = [sub + [k] for sub in subs for k in range(n + 1)]
    return subs


def _better_exchanges(whole: list[int], table: LeaveTable, value: int) -> int:
    """The exchanges (a proper sub-rack kept) worth more than ``value`` (the best of them is
    already among the candidates counted, so it is left out here)."""
    kept = [table.value(sub) for sub in _sub_racks(whole) if sum(sub) < sum(whole)]
    best = max(kept)
    return sum(1 for v in kept if v > value) - (best > value)


def test_by_equity_with_an_empty_bag_the_opponent_holds_the_unseen_tiles(small_gaddag, table):
    """At the end a leave has no future: keeping tiles costs twice their value and 10
    points, going out gains twice the opponent's rack (the tiles unseen); no exchange."""
    record = example_record()
    last = record.turns[26]  # turn 27: alice's QRT, the bag empty, bob holding LU
    assert (last.number, last.rack, last.bag) == (27, "QRT", 0)
    rack = parse_rack("QRT", 7)
    board = record.board_before(last.number)
    valuation = turn_valuation(board, rack, last, SCRABBLE, table)
    assert (valuation.bag, valuation.exchange, valuation.opponent, valuation.passes) == (0, 0, 2, True)
    review = review_game(record, small_gaddag, SCRABBLE, table, top=1000, players=(0,))
    turn = next(r for r in review.turns if r.turn.number == 27)
    assert turn.value == 12 - 2 * (10 + 1) - NOT_OUT_PENALTY  # 10A (MAR)T keeps QR
    plays = generate_moves(board, rack, small_gaddag, SCRABBLE)
    assert turn.candidates == len(plays) + 1  # and the pass: no exchange
    assert {o.kind for o in turn.best} == {"play", "pass"}
    pass_option = next(o for o in turn.best if o.kind == "pass")
    assert pass_option.value == -(2 * 12 + NOT_OUT_PENALTY)  # Q, R, T kept
    values = []
    for score, down, line, start, codes in plays:
        kept = list(rack)
        for k, code in enumerate(codes):
            if not board.at(*((start + k, line) if down else (line, start + k))):
                kept[BLANK if code & BLANK_BIT else code & LETTER_MASK] -= 1
        left = sum(n * SCRABBLE.values[code] for code, n in enumerate(kept))
        values.append(score + 2 * 2 if left == 0 else score - 2 * left - NOT_OUT_PENALTY)
    assert turn.best_value == max(values) == turn.best[0].value


def test_score_is_the_default_ranking(small_gaddag):
    record = example_record()
    by_default = review_game(record, small_gaddag, SCRABBLE)
    assert by_default.ranking == "score"
    assert by_default == review_game(record, small_gaddag, SCRABBLE, None)


# ---------------------------------------------------------------------------------------------
# Round trip: what `scrab selfplay --save-games` writes, read back and reviewed


@pytest.mark.parametrize("rules", ["scrabble", "wwf"])
def test_selfplay_records_replay_and_review_with_zero_loss(tmp_path, small_list, small_gaddag, rules):
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["selfplay", "--games", "16", "--seed", "31", "--rules", rules, "--lexicon", str(small_list)]
        + ["--save-games", str(tmp_path), "--json"],
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    files = sorted(tmp_path.glob("*.gcg"))
    assert len(files) == len(results) == 16
    rule_set = load_rules(rules)
    kinds = set()
    for path, outcome in zip(files, results, strict=True):
        record = read_gcg(path.read_text(encoding="utf-8"), rule_set, str(path), small_gaddag.contains)
        assert record.problems == ()
        assert list(record.final_scores) == outcome["scores"], path.name
        review = review_game(record, small_gaddag, rule_set)
        for r in review.turns:
            kinds.add(r.turn.kind)
            assert r.reviewed, (path.name, r.turn.line)
            assert (r.given_up, r.rank, r.matched) == (0, 1, True), (path.name, r.turn.line)
        assert all(s.given_up == 0 and s.matched == s.turns for s in review.players)
    assert "play" in kinds


def test_equity_players_reviewed_by_equity_with_their_table_lose_nothing(tmp_path, small_list, small_gaddag, table):
    """Equity players choose by the same equity a review by equity ranks with: the same
    bag, the same exchanges, the opponent's rack at the end. So with their own table their
    games show zero loss, exchanges included; by score, the same games do not."""
    leaves = tmp_path / "random.leaves"
    write_leaves(leaves, table, {"rules": "scrabble", "lexicon": "small", "rack_size": 7})
    games = tmp_path / "games"
    player = f"equity:{leaves}"
    result = CliRunner().invoke(
        cli,
        ["selfplay", "--games", "4", "--seed", "5", "--players", f"{player},{player}", "--lexicon", str(small_list)]
        + ["--save-games", str(games), "--json"],
    )
    assert result.exit_code == 0, result.output
    kinds = set()
    lost_by_score = 0.0
    for path in sorted(games.glob("*.gcg")):
        record = read_gcg(path.read_text(encoding="utf-8"), SCRABBLE, str(path), small_gaddag.contains)
        review = review_game(record, small_gaddag, SCRABBLE, table)
        for r in review.turns:
            kinds.add(r.turn.kind)
            assert r.reviewed and (r.given_up, r.rank) == (0, 1), (path.name, r.turn.line)
        lost_by_score += sum(s.given_up for s in review_game(record, small_gaddag, SCRABBLE).players)
    assert "exchange" in kinds  # a random table throws tiles back now and then
    assert lost_by_score > 0


def test_a_review_of_a_greedy_game_under_the_wrong_rules_finds_losses(small_gaddag):
    """The zero-loss result above is not a given: the same moves ranked under other
    rules lose points."""
    from solver_cli.formats.gcg import game_text
    from solver_cli.games.selfplay import play_game

    game = play_game(small_gaddag, SCRABBLE, seed=3, index=0)
    record = read_gcg(game_text(game), WWF, "g")
    review = review_game(record, small_gaddag, WWF)
    assert sum(s.given_up for s in review.players) > 0


def test_equity_lost_adds_up_to_the_thousandth(small_gaddag):
    rng = random.Random(11)  # hundredths of a point, most of them no binary fraction
    fine = LeaveTable(array("h", (rng.randrange(-3000, 3001) for _ in range(TABLE_SIZE))))
    review = review_game(example_record(), small_gaddag, SCRABBLE, fine)
    assert any(sum(r.given_up for r in review.turns if r.turn.player == p) * SCALE % 1 for p in (0, 1))
    for summary in review.players:
        exact = sum(round(r.given_up * SCALE) for r in review.turns if r.turn.player == summary.player)
        assert summary.given_up == exact / SCALE  # not the float sum, with its dust


# ---------------------------------------------------------------------------------------------
# The cost of a turn: one engine call; only the moves shown become Python objects


def test_a_turn_is_one_engine_call_and_only_the_moves_shown_are_decoded(full_lexicon, engine, monkeypatch):
    """A review reads a few of every turn's candidates (the best, a bisection for the rank
    and the ties, a scan for a bingo): with the native engine, the candidates built as
    Python objects are the ``top`` shown, not every one of the thousands there are."""
    from solver_cli.engine import _movegen_py, movegen

    calls = []
    made = []
    if engine == "native":
        real_generate = movegen._movegen_c.generate
        monkeypatch.setattr(movegen._movegen_c, "generate", lambda *a, **k: calls.append(1) or real_generate(*a, **k))

        class CountedCandidate(movegen.Candidate):
            def __new__(cls, *fields):
                made.append(1)
                return super().__new__(cls, *fields)

        monkeypatch.setattr(movegen, "Candidate", CountedCandidate)
    else:
        real_moves = _movegen_py.generate_moves
        monkeypatch.setattr(_movegen_py, "generate_moves", lambda *a: calls.append(1) or real_moves(*a))
    review = review_game(example_record(), full_lexicon.gaddag, SCRABBLE, random_table(3), top=2)
    reviewed = [r for r in review.turns if r.reviewed]
    assert len(calls) == len(reviewed) == 26
    if engine == "native":
        assert len(made) == sum(len(r.best) for r in reviewed) == 2 * 26
        assert sum(r.candidates for r in reviewed) > 100 * len(made)  # not one per candidate


# ---------------------------------------------------------------------------------------------
# A record that holds more tiles than the tile set: no opponent's rack to value the end by


def overfull_files(folder: Path) -> tuple[Path, Path]:
    """Rules whose tiles are dear (1,000 points, 2 of each letter but A) and a record that
    plays 42 As, of which the set holds one: the reader warns, counts them out of the bag,
    and finds it empty with 43 tiles unseen (a value out of any rack's reach)."""
    standard = (ROOT / "solver_cli" / "data" / "rules" / "scrabble.toml").read_text(encoding="utf-8")
    head = standard[: standard.index("[tiles]")].replace('name = "scrabble"', 'name = "dear"')
    tiles = "A = [1, 1]\n" + "".join(f"{chr(c)} = [2, 1000]\n" for c in range(ord("B"), ord("Z") + 1))
    rules = folder / "dear.toml"
    rules.write_text(head + "[tiles]\n" + tiles, encoding="utf-8")
    lines = ["#player1 alice Alice", "#player2 bob Bob"]
    totals = [0, 0]
    for k in range(6):
        totals[k % 2] += 7
        lines.append(f">{('alice', 'bob')[k % 2]}: AAAAAAA {8 + k}H AAAAAAA +7 {totals[k % 2]}")
    lines += [f">alice: BCDEFGH - +0 {totals[0]}", f">bob: IJKLMNO - +0 {totals[1]}"]
    record = folder / "overfull.gcg"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rules, record


def test_an_empty_bag_with_more_tiles_unseen_than_a_rack_is_not_valued_by_equity(
    tmp_path, small_gaddag, engine, monkeypatch
):
    """The opponent holds at most a rack: with the bag empty and more tiles unseen, the
    end-of-game values cannot be known, so those turns are listed, not valued, the same
    way whichever engine runs (the native one used to refuse the unseen tiles' value with
    a ValueError, the twin to value them all as the opponent's rack)."""
    rules_path, record_path = overfull_files(tmp_path)
    rules = load_rules(str(rules_path))
    record = read_gcg(record_path.read_text(encoding="utf-8"), rules, str(record_path))
    assert any(p.kind == "tiles" for p in record.problems)  # the reader only warns
    assert [t.bag for t in record.turns] == [37, 30, 23, 16, 9, 2, 0, 0]
    reviews = {}
    for each in ("python", "native") if NATIVE_BUILT else ("python",):
        monkeypatch.setenv("SCRAB_ENGINE", each)
        reviews[each] = review_game(record, small_gaddag, rules, LeaveTable.zeros())
    review = reviews[engine]
    assert [r.reviewed for r in review.turns] == [True] * 6 + [False] * 2
    reason = "the bag is empty yet 43 tiles are unseen: the record's tiles do not fit the dear set"
    assert [r.reason for r in review.turns[6:]] == [reason, reason]
    assert all(other == review for other in reviews.values())  # the same answer from both engines
    # By score, the end of the game needs no opponent's rack: every turn is valued.
    assert all(r.reviewed for r in review_game(record, small_gaddag, rules).turns)


# ---------------------------------------------------------------------------------------------
# Simulating a turn: the move played as a candidate


@python_engine_in_soak()  # every move of 26 turns on the twin: long, and the engines agree above
def test_the_move_played_is_simulated_as_the_engine_would_play_it(full_lexicon, table):
    """The candidate a simulation plays for the move played is, for every play that stood,
    one the engine generates (the same tiles, score and leave value, whichever direction the
    record writes a one-tile play); a pass and an exchange keep what the rack keeps."""
    from solver_cli.engine.movegen import EXCHANGE, PASS, PLACE, ranked_moves
    from solver_cli.engine.unseen import valuation_for
    from solver_cli.games.review import _candidate_key, _played_candidate

    record = example_record(contains=full_lexicon.contains)
    checked = {"play": 0, "pass": 0, "exchange": 0}
    for turn in record.turns:
        if turn.kind not in checked or turn.phonies:
            continue
        board = record.board_before(turn.number)
        rack = parse_rack(turn.rack, 7)
        played = _played_candidate(board, rack, turn, SCRABBLE, table)
        assert played is not None
        valuation = valuation_for(board, rack, SCRABBLE, table)
        everything = ranked_moves(board, rack, full_lexicon.gaddag, SCRABBLE, valuation=valuation, keep=None)[1]
        same = [c for c in everything if _candidate_key(board, c) == _candidate_key(board, played)]
        assert same, turn.move_text
        assert (same[0].score, same[0].leave, same[0].kind) == (played.score, played.leave, played.kind)
        assert played.kind == {"play": PLACE, "pass": PASS, "exchange": EXCHANGE}[turn.kind]
        checked[turn.kind] += 1
    assert checked["play"] >= 20 and checked["exchange"] == 1

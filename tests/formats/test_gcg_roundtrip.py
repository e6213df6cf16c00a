"""Everything scrab writes, it reads back (issue #23, item 8): self-play records under random
rule sets (small boards, small tile sets, odd racks) replay to the same game with no
warning, and name their rule set and word list for the reader."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver_cli.engine.alphabet import LETTERS
from solver_cli.engine.rules import PREMIUM_CODES, Rules, parse_rules, shipped_rule_name
from solver_cli.formats.gcg import game_text
from solver_cli.formats.gcg_read import parse_gcg, record_lexicon_name, record_rules, replay_gcg
from solver_cli.games.selfplay import play_game

# Few examples by default (each plays a whole game on both engines); the strategy keeps
# games short: boards of 2x2 to 7x7 and at most a few dozen tiles.
ROUND_TRIP = {
    "max_examples": 30,
    "derandomize": True,
    "database": None,
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}


@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    rows = draw(st.integers(2, 7))
    cols = draw(st.integers(2, 7))
    codes = st.sampled_from(sorted(PREMIUM_CODES))
    layout = ["".join(draw(st.lists(codes, min_size=cols, max_size=cols))) for _ in range(rows)]
    rack_size = draw(st.integers(1, 7))
    counts = draw(st.dictionaries(st.sampled_from([*LETTERS, "?"]), st.integers(1, 4), max_size=12))
    tiles = "\n".join(
        f'"{letter}" = [{counts.get(letter, 0)}, {draw(st.integers(0, 10)) if letter != "?" else 0}]'
        for letter in [*LETTERS, "?"]
    )
    name = draw(st.sampled_from(["mini", "scrabble", "wwf", "super"]))  # shipped names are written as such
    text = f"""
name = "{name}"
rack_size = {rack_size}
bingo_bonus = {draw(st.integers(0, 50))}
exchange_min_bag = {draw(st.integers(1, 8))}
exchange_max = {draw(st.integers(0, rack_size))}
scoreless_turns = {draw(st.integers(1, 6))}
out_gain = {draw(st.integers(0, 3))}
out_loss = {draw(st.integers(0, 3))}
stuck_loss = {draw(st.integers(0, 3))}
centre = "{LETTERS[draw(st.integers(0, cols - 1))]}{draw(st.integers(1, rows))}"
layout = {layout!r}
[tiles]
{tiles}
"""
    return parse_rules(text.replace("'", '"'), "random.toml")


@settings(**ROUND_TRIP)
@given(rules=rule_sets(), seed=st.integers(0, 2**32))
def test_selfplay_records_read_back_under_any_rule_set(small_gaddag, rules, seed):
    game = play_game(small_gaddag, rules, seed=seed, index=0)
    text = game_text(game, rules=rules.name, lexicon="lists/small.txt", run_seed=seed)
    gcg = parse_gcg(text, "game.gcg")
    record = replay_gcg(gcg, rules, small_gaddag.contains, "small")

    assert record.problems == (), text
    assert record.final_scores == game.scores
    assert record.final_board == game.squares
    moves = [t for t in record.turns if t.kind in ("play", "exchange", "pass")]
    # An empty rack (a tiny tile set) is written as no rack at all.
    assert [(t.kind, t.score, t.rack or "") for t in moves] == [(t.kind, t.score, t.rack) for t in game.turns]
    named = record_rules(gcg)
    assert named is not None and named.rule_set == shipped_rule_name(rules.name)
    assert record_lexicon_name(gcg) == "small"


def test_a_one_tile_set_writes_no_empty_rack_and_no_empty_count(small_gaddag):
    """The second player never holds a tile: its passes have no rack (not an empty field), and
    its end line, nothing to count, is left out (``()`` is no rack any reader takes)."""
    tiles = "\n".join(f"{letter} = [{1 if letter == 'A' else 0}, 1]" for letter in LETTERS)
    rules = parse_rules(f'name = "one"\nrack_size = 1\nlayout = ["...", "...", "..."]\n[tiles]\n{tiles}\n', "one")
    game = play_game(small_gaddag, rules, seed=1)
    text = game_text(game, rules=rules.name)
    assert ">p2: - +0 0\n" in text and ">p1: A (A) -1 -1\n" in text
    assert "()" not in text and ":  " not in text
    record = replay_gcg(parse_gcg(text, "one.gcg"), rules)
    assert record.problems == () and record.final_scores == (-1, 0)

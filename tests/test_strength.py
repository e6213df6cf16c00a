"""Strength, asserted only through the confidence interval of a small mirrored match: the
equity player with a shipped leave table beats the greedy one (the docs' 10,000-game figures
are in docs/equity.md; here 600 games, a few seconds on the native engine)."""

from __future__ import annotations

import pytest

from solver_cli.engine.rules import load_rules
from solver_cli.formats.leavefile import shipped_leaves
from solver_cli.games.selfplay import GREEDY, Player, run_selfplay, standings

GAMES = 600  # 300 bags, each played twice with the seats swapped


@pytest.mark.parametrize("rules_name", ["scrabble", "wwf"])
def test_equity_beats_greedy_beyond_the_confidence_interval(rules_name, full_lexicon):
    table = shipped_leaves(rules_name, "kjxqz")
    assert table is not None
    equity = Player("equity", table)
    run = run_selfplay(
        full_lexicon.gaddag, load_rules(rules_name), GAMES, seed=77, players=(equity, GREEDY), mirrored=True
    )
    mine, theirs = standings(run.outcomes, ("equity", "greedy"), mirrored=True)
    assert mine.games == GAMES and mine.wins + theirs.wins == GAMES
    low, high = mine.ci95
    # The interval is about +-4 points wide here; the shipped tables win 63-66% over 10,000.
    assert low > 0.5, mine
    assert high - low < 0.1 and mine.spread_mean > 0

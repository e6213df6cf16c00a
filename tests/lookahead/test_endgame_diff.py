"""The endgame solver against the plain full-width minimax (tests/lookahead/reference.py), on
both engines: on 5,120 seeded random endgames (tests/lookahead/positions.py: blanks, stuck
tiles, scoreless counts near the limit, racks of one to four, both rule sets and changed
end-of-game rules), on bigger ones (reference trees of up to 20,000 positions) and on
Hypothesis-drawn ones, every proven value equals the reference's,
the K best first moves carry their exact values, and the principal variation replays
legally to the end with the totals it claims."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from soak import examples, scaled, soak

from solver_cli.engine.movegen import NATIVE_BUILT
from solver_cli.lookahead.endgame import DEFAULT_TT_MB, decide_endgame, solve_endgame

from .checks import check_proven
from .positions import GAMES, KINDS, RULES, Endgame, Reference, TooBig, consistent, game_boards, random_endgame, unseen

CHUNKS = 160
PER_CHUNK = 32  # 160 x 32 = 5,120 endgames, each on both engines
PLAIN_CHUNKS = {"native": 5, "python": 1}  # in a plain `pytest`: 160 endgames, and 32 on the
# slower twin; every kind on both rule sets in each chunk
TOPS = (1, 1, 2, 3, 1000)  # 1000: every first move, each with its exact value


def solve_and_check(endgame: Endgame, lexicons, engine: str, top: int, tt_mb: int = DEFAULT_TT_MB) -> None:
    gaddag = lexicons[endgame.lexicon]
    result = solve_endgame(
        endgame.board,
        list(endgame.mover),
        list(endgame.opponent),
        gaddag,
        endgame.rules,
        scoreless=endgame.scoreless,
        top=top,
        tt_mb=tt_mb,
        engine=engine,
    )
    check_proven(endgame, result, Reference(gaddag), engine, top)


def engine_chunks() -> list:
    params = []
    for engine, plain in PLAIN_CHUNKS.items():
        built = pytest.mark.skipif(engine == "native" and not NATIVE_BUILT, reason="not built")
        for chunk in range(CHUNKS):
            marks = [built] if chunk < plain else [built, soak]
            params.append(pytest.param(engine, chunk, marks=marks, id=f"{engine}-{chunk}"))
    return params


@pytest.mark.parametrize(("engine", "chunk"), engine_chunks(), indirect=["engine"])
def test_solver_equals_reference(chunk, engine, endgame_lexicons):
    for i in range(PER_CHUNK):
        seed = chunk * PER_CHUNK + i
        endgame = random_endgame(seed, endgame_lexicons)
        # The smallest table too (1 MB): its size never changes a value.
        tt_mb = 1 if seed % 3 == 0 else DEFAULT_TT_MB
        solve_and_check(endgame, endgame_lexicons, engine, TOPS[seed % len(TOPS)], tt_mb)


BIG_SEEDS = 100_000  # where the bigger endgames' seeds start
BIG_CHUNKS = 4  # chunks of 16, all in the soak step (the reference takes seconds on each,
# the twin about as long)


def big_chunks() -> list:
    params = []
    for engine in PLAIN_CHUNKS:
        built = pytest.mark.skipif(engine == "native" and not NATIVE_BUILT, reason="not built")
        for chunk in range(BIG_CHUNKS):
            params.append(pytest.param(engine, chunk, marks=[built, soak], id=f"{engine}-{chunk}"))
    return params


@pytest.mark.parametrize(("engine", "chunk"), big_chunks(), indirect=["engine"])
def test_bigger_endgames(chunk, engine, endgame_lexicons):
    """Endgames whose reference tree has 2,000 to 20,000 positions: deeper iterations, more
    use of the table (half of them with the smallest one), longer variations."""
    for i in range(16):
        seed = BIG_SEEDS + chunk * 16 + i
        endgame = random_endgame(seed, endgame_lexicons, cap=20_000, floor=2_000)
        solve_and_check(endgame, endgame_lexicons, engine, TOPS[seed % len(TOPS)], 1 if seed % 2 else DEFAULT_TT_MB)


def test_positions_are_consistent_and_varied(endgame_lexicons):
    """The generator's endgames are legal (no tile more often than in the bag), reproducible,
    and of every kind the brief asks for: blanks, stuck tiles, scoreless counts near the
    limit, racks of one and four, both rule sets, and some where passing is the best move."""
    endgames = [random_endgame(seed, endgame_lexicons) for seed in range(3 * PER_CHUNK)]
    assert all(consistent(e) for e in endgames)
    assert random_endgame(17, endgame_lexicons) == endgames[17]
    assert {e.kind for e in endgames} == set(KINDS)
    assert {e.rules.name for e in endgames} >= set(RULES)
    assert {e.lexicon for e in endgames} == {"small", "tiny"}
    assert any(e.mover[0] for e in endgames) and any(e.opponent[0] for e in endgames)
    assert {sum(e.mover) for e in endgames} >= {1, 2, 3, 4}
    assert any(e.scoreless == e.rules.scoreless_turns - 1 > 0 for e in endgames)
    assert any(e.rules.out_gain != 1 for e in endgames)
    passing_best = 0
    for e in endgames:
        ref = Reference(endgame_lexicons[e.lexicon])
        firsts = ref.first_moves(e.rules, e.squares, e.mover, e.opponent, e.scoreless)
        assert max(value for _, _, value, _ in firsts) == e.value
        placements = [row for row in firsts if row[0]]
        pass_value = firsts[-1][2]
        # Passing matters: some side has a placement, yet the pass is strictly the best.
        passing_best += bool(placements) and pass_value > max(value for _, _, value, _ in placements)
    assert passing_best >= 2


@st.composite
def endgames(draw, lexicons) -> Endgame:
    """An endgame drawn piece by piece: rule set, word list, board (a late board of a
    self-play game), each rack's tiles out of the unseen ones, the scoreless count."""
    name = draw(st.sampled_from(sorted(RULES)))
    lexicon = draw(st.sampled_from(["small", "tiny"]))
    rules = RULES[name]
    boards = game_boards(lexicons["small"], name, draw(st.integers(0, GAMES - 1)))
    squares = boards[-1 - draw(st.integers(0, min(15, len(boards) - 1)))]
    pool = unseen(rules, squares)
    tiles = [code for code, n in enumerate(pool) for _ in range(n)]
    assume(len(tiles) >= 2)
    picked = draw(st.lists(st.integers(0, len(tiles) - 1), min_size=2, max_size=min(7, len(tiles)), unique=True))
    split = draw(st.integers(1, len(picked) - 1))
    mover, opponent = [0] * 27, [0] * 27
    for k, index in enumerate(picked):
        (mover if k < split else opponent)[tiles[index]] += 1
    assume(max(sum(mover), sum(opponent)) <= 4)
    scoreless = draw(st.integers(0, rules.scoreless_turns - 1))
    ref = Reference(lexicons[lexicon], cap=600)
    try:
        value = ref.minimax(rules, squares, mover, opponent, scoreless)
    except TooBig:
        assume(False)
    seed = -1  # not from random_endgame: describe() shows the racks and board instead
    return Endgame(
        seed, "hypothesis", rules, tuple(squares), tuple(mover), tuple(opponent), scoreless, value, ref.nodes, lexicon
    )


@scaled
def test_solver_equals_reference_hypothesis(engine, endgame_lexicons):
    @settings(
        max_examples=examples(60),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(endgame=endgames(endgame_lexicons), top=st.integers(1, 4))
    def check(endgame: Endgame, top: int) -> None:
        solve_and_check(endgame, endgame_lexicons, engine, top)

    check()


# --- "first win": where the value lies against a threshold (decide_endgame, for peg) --------


def decide_and_check(endgame: Endgame, lexicons, engine: str, threshold: int, tt_mb: int = DEFAULT_TT_MB) -> None:
    verdict = decide_endgame(
        endgame.board,
        list(endgame.mover),
        list(endgame.opponent),
        lexicons[endgame.lexicon],
        endgame.rules,
        threshold,
        scoreless=endgame.scoreless,
        tt_mb=tt_mb,
        engine=engine,
    )
    context = f"threshold {threshold}, value {endgame.value}, verdict {verdict}\n{endgame.describe()}"
    assert verdict.engine == engine and verdict.proven and verdict.stopped is None, context
    value = endgame.value
    assert verdict.side == (value > threshold) - (value < threshold), context
    # the bound is a true one, on the verdict's side of the threshold
    if verdict.side < 0:
        assert value <= verdict.bound < threshold, context
    elif verdict.side > 0:
        assert threshold < verdict.bound <= value, context
    else:
        assert verdict.bound == threshold, context


def threshold_chunks() -> list:
    params = []
    for engine, plain in PLAIN_CHUNKS.items():
        built = pytest.mark.skipif(engine == "native" and not NATIVE_BUILT, reason="not built")
        for chunk in range(CHUNKS // 4):
            marks = [built] if chunk < plain else [built, soak]
            params.append(pytest.param(engine, chunk, marks=marks, id=f"{engine}-{chunk}"))
    return params


@pytest.mark.parametrize(("engine", "chunk"), threshold_chunks(), indirect=["engine"])
def test_decide_equals_reference(chunk, engine, endgame_lexicons):
    """The verdict against thresholds at, next to and away from the reference's value: who
    wins a pre-endgame's split is settled the same as by the value itself."""
    for i in range(PER_CHUNK):
        seed = chunk * PER_CHUNK + i
        endgame = random_endgame(seed, endgame_lexicons)
        offset = (-25, -1, 0, 1, 25)[seed % 5]
        for threshold in {endgame.value + offset, endgame.value - offset // 5}:
            decide_and_check(endgame, endgame_lexicons, engine, threshold, 1 if seed % 3 == 0 else DEFAULT_TT_MB)


@pytest.mark.parametrize(("engine", "chunk"), big_chunks(), indirect=["engine"])
def test_decide_on_bigger_endgames(chunk, engine, endgame_lexicons):
    """The same on endgames deep enough for several iterations and the table's bounds."""
    for i in range(16):
        seed = BIG_SEEDS + chunk * 16 + i
        endgame = random_endgame(seed, endgame_lexicons, cap=20_000, floor=2_000)
        for threshold in (endgame.value - 7, endgame.value, endgame.value + 3):
            decide_and_check(endgame, endgame_lexicons, engine, threshold, 1 if seed % 2 else DEFAULT_TT_MB)

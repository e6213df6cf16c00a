"""Every range the native engine's entry points enforce is checked by the library first, the
same way for both engines (issue #23, items 1 and 2): out-of-range input is one
``InputError`` (``RulesError`` for a rule set) whichever engine runs, never a bare
``ValueError`` from the C code while the twin answers; and a ``keep`` or ``top`` beyond what
the native engine can hold means every move, on both. Then blank folding (item 11): the rows
of a folded table are found from the engine's candidates, making ``Move``s only for the moves
shown. Every test runs on both engines (tests/engine/conftest.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from soak import python_engine_in_soak

from solver_cli.engine import movegen, ranking
from solver_cli.engine.alphabet import BLANK_BIT, parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import LeaveTable, Valuation
from solver_cli.engine.movegen import MAX_KEEP, NATIVE_BUILT, count_moves, generate_moves, ranked_moves
from solver_cli.engine.ranking import Filters, fold_key, solve, solve_by_score
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError, LexiconError, RulesError
from solver_cli.formats.boardfile import parse_board

SCRABBLE = load_rules("scrabble")
MIDGAME = Path(__file__).resolve().parents[2] / "boards" / "midgame.txt"


def midgame() -> Board:
    return parse_board(MIDGAME.read_text(), SCRABBLE, str(MIDGAME))


def rack(text: str) -> list[int]:
    return parse_rack(text, 20)


# --------------------------------------------------------------------------- the ranges


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native move generator is not built")
def test_the_fronts_limits_are_the_native_engines():
    from solver_cli.engine import _movegen_c
    from solver_cli.engine.rules import MAX_BINGO_BONUS, MAX_RACK_SIZE, MAX_SIDE, MAX_TILE_VALUE, MAX_TILES

    assert (_movegen_c.MAX_SIDE, _movegen_c.MAX_RACK, _movegen_c.MAX_VALUE, _movegen_c.MAX_BINGO) == (
        MAX_SIDE,
        MAX_RACK_SIZE,
        MAX_TILE_VALUE,
        MAX_BINGO_BONUS,
    )
    assert (_movegen_c.MAX_MULT, _movegen_c.MAX_BAG, _movegen_c.MAX_RECORDS, _movegen_c.MAX_TILE_COUNT) == (
        movegen.MAX_MULTIPLIER,
        movegen.MAX_BAG,
        MAX_KEEP,
        MAX_TILES,
    )


BAD_CALLS = {
    "a rack of 21 tiles": ({"rack": [21] + [0] * 26}, InputError, "rack has 21 tiles"),
    "a rack of 11 + 10 tiles": ({"rack": [11, 10] + [0] * 25}, InputError, "rack has 21 tiles"),
    "a negative count": ({"rack": [-1, 2] + [0] * 25}, InputError, "27 non-negative"),
    "26 counts": ({"rack": [1] * 26}, InputError, "27 non-negative"),
    "a square code 27": ({"square": 27}, InputError, "holds 27, not a tile code"),
    "a bare blank bit": ({"square": BLANK_BIT}, InputError, "holds 32, not a tile code"),
    "a blank of code 27": ({"square": BLANK_BIT | 27}, InputError, "not a tile code"),
    "a negative code": ({"square": -1}, InputError, "not a tile code"),
    "the bag below 0": ({"valuation": {"bag": -1}}, InputError, "bag must be an integer from 0 to 100,000"),
    "the bag above MAX_BAG": ({"valuation": {"bag": 100_001}}, InputError, "bag must be"),
    "the opponent below 0": ({"valuation": {"opponent": -1, "bag": 0}}, InputError, "opponent must be"),
    "the opponent above a full rack": ({"valuation": {"opponent": 20_001, "bag": 0}}, InputError, "opponent must"),
    "an exchange of 21": ({"valuation": {"exchange": 21}}, InputError, "exchange must be"),
    "a negative exchange": ({"valuation": {"exchange": -1}}, InputError, "exchange must be"),
    "leaves that are no table": ({"valuation": {"leaves": "x"}}, InputError, "leaves must be a LeaveTable"),
    "keep below 0": ({"keep": -1}, InputError, "keep must be a non-negative integer"),
    "rules with 27 columns": ({"rules": {"cols": 27}}, RulesError, "2..26 squares a side"),
    "rules with 15.0 rows": ({"rules": {"rows": 15.0}}, RulesError, "2..26 squares a side"),
    "rules with a rack of 21": ({"rules": {"rack_size": 21}}, RulesError, "rack size must be 1 to 20"),
    "rules with a rack of 0": ({"rules": {"rack_size": 0}}, RulesError, "rack size must be 1 to 20"),
    "rules with a bingo of 10,001": ({"rules": {"bingo_bonus": 10_001}}, RulesError, "bingo bonus"),
    "rules with a value of 1,001": ({"rules": {"values": (0,) * 26 + (1001,)}}, RulesError, "letter values"),
    "rules with 26 values": ({"rules": {"values": (0,) * 26}}, RulesError, "letter values"),
    "rules with a multiplier of 5": ({"rules": {"word_mult": (5,) + SCRABBLE.word_mult[1:]}}, RulesError, "premiums"),
    "rules with a multiplier of 0": ({"rules": {"letter_mult": (0,) + SCRABBLE.letter_mult[1:]}}, RulesError, "1 to 4"),
    "rules with the centre off the board": ({"rules": {"centre": (15, 7)}}, RulesError, "centre"),
    "rules with 1,001 tiles of a letter": ({"rules": {"counts": (2,) + (1001,) + (2,) * 25}}, RulesError, "counts"),
}


def _bad_call(change: dict) -> tuple:
    rules = dataclasses.replace(SCRABBLE, **change.get("rules", {}))
    rows, cols = int(rules.rows), int(rules.cols)  # (a board of whole squares for odd rules)
    board = Board(rows, cols, [0] * (rows * cols))
    if "square" in change:
        board.squares[112] = change["square"]
    valuation = change.get("valuation", {})
    valuation = Valuation(**valuation) if valuation else Valuation()
    return board, change.get("rack", rack("AEIRST?")), rules, change.get("keep", 5), valuation


@pytest.mark.parametrize(("change", "error", "message"), list(BAD_CALLS.values()), ids=list(BAD_CALLS))
def test_both_engines_refuse_what_the_native_engine_refuses_with_the_librarys_error(
    small_gaddag, engine, change, error, message
):
    """Before, the native engine raised a bare ValueError (or read a rack count past 255
    wrongly) and the Python twin answered, or failed deep inside."""
    board, counts, rules, keep, valuation = _bad_call(change)
    with pytest.raises(error, match=message):
        ranked_moves(board, counts, small_gaddag, rules, keep=keep, valuation=valuation, engine=engine)
    if "valuation" not in change and "keep" not in change:
        for call in (generate_moves, count_moves):
            with pytest.raises(error, match=message):
                call(board, counts, small_gaddag, rules, engine)


def test_a_board_of_another_size_is_an_input_error(small_gaddag, engine):
    with pytest.raises(InputError, match="the board is 15x15 .* the super board is 21x21"):
        generate_moves(Board.empty(SCRABBLE), rack("AB"), small_gaddag, load_rules("super"), engine)


def test_the_largest_values_in_range_are_taken(small_gaddag, engine):
    """The checks refuse only what is out of range: the edges themselves are moves."""
    rules = dataclasses.replace(SCRABBLE, rack_size=20, bingo_bonus=10_000, values=(0,) + (1000,) * 26)
    board = midgame()
    valuation = Valuation(LeaveTable.zeros(), bag=100_000, opponent=0, exchange=20, passes=True)
    total, best = ranked_moves(board, rack("?" * 20), small_gaddag, rules, keep=3, valuation=valuation)
    assert total > 0 and len(best) == 3
    end = Valuation(LeaveTable.zeros(), bag=0, opponent=20_000, exchange=0, passes=True)
    assert ranked_moves(board, rack("AEIRST?"), small_gaddag, rules, keep=1, valuation=end)[0] > 0


@pytest.mark.parametrize("keep", [MAX_KEEP, MAX_KEEP + 1, 2**63, 10**30])
def test_keeping_more_than_the_native_engine_holds_is_keeping_every_move(small_gaddag, engine, keep):
    """`--top 16777217` crashed the native engine (keep out of range) and the twin answered;
    now both rank every move, and a huge --top costs no memory up front."""
    board = midgame()
    valuation = Valuation(LeaveTable.zeros(), bag=60, exchange=7, passes=True)
    everything = ranked_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, valuation=valuation, engine=engine)
    kept = ranked_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, keep=keep, valuation=valuation, engine=engine)
    assert kept == everything and len(everything[1]) == everything[0] > 100


def test_solve_takes_any_limit_and_refuses_a_negative_one_as_input(small_gaddag):
    board = midgame()
    assert solve(board, rack("AEIRST?"), small_gaddag, SCRABBLE, limit=2**24 + 1) == solve(
        board, rack("AEIRST?"), small_gaddag, SCRABBLE
    )
    for bad in (-1, 1.5, "3"):
        with pytest.raises(InputError, match="limit must be a non-negative integer"):
            solve(board, rack("AEIRST?"), small_gaddag, SCRABBLE, limit=bad)  # type: ignore[arg-type]


def test_the_apis_top_beyond_the_native_limit_lists_every_move(full_lexicon):
    """docs/api.md promises InputError for a bad argument; a huge `top` is a good one."""
    import solver_cli as scrab

    position = scrab.read_position(MIDGAME)
    everything = scrab.solve(position, "AEIRST?", full_lexicon, rank="score")
    huge = scrab.solve(position, "AEIRST?", full_lexicon, rank="score", top=2**24 + 1)
    assert [m.text for m in huge.moves] == [m.text for m in everything.moves] and len(huge.moves) == huge.total


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["AB", "AA"], "word 2: AA is not after AB"),
        (["AB", "AB"], "word 2: AB is not after AB"),
        ([""], "word 1: '' is not 1 to 64 letters A-Z"),
        (["Ab"], "word 1: 'Ab' is not 1 to 64 letters A-Z"),
        (["A\nB"], "word 1: 'A\\nB' is not"),
        (["AT", "CAT\n"], "word 2: 'CAT\\n' is not"),
        (["A\u00c9"], "is not 1 to 64 letters A-Z"),
        (["A" * 65], "a word of 65 letters: the limit is 64"),
    ],
)
@pytest.mark.parametrize("builder", ["python", "native"])
def test_both_builders_refuse_the_words_the_native_one_refuses(words, message, builder):
    """The native builder refused these with a ValueError (or split "A\nB" into two words,
    or built an empty list from [""]); the Python one built a wrong array or failed inside."""
    from solver_cli.lexicon.build import NATIVE_BUILT as BUILDER_BUILT
    from solver_cli.lexicon.build import build_gaddag

    if builder == "native" and not BUILDER_BUILT:
        pytest.skip("the native builder is not built")
    with pytest.raises(LexiconError, match=re.escape(message)):
        build_gaddag(words, builder=builder)


# --------------------------------------------------------------------------- blank folding


def reference_rows(board: Board, moves) -> list[list]:
    """The table's folding (cli.render.fold_key) over every move, in order."""
    from solver_cli.cli.render import move_rows

    return [[row.move, *row.others] for row in move_rows(moves, fold=True)]


POSITIONS = [
    ("empty", "??", "score"),
    ("empty", "AE?", "equity"),
    ("midgame", "AEIRST?", "equity"),
    ("midgame", "ERS??", "score"),
    ("midgame", "QI?", "equity"),
]


def position(name: str) -> Board:
    return Board.empty(SCRABBLE) if name == "empty" else midgame()


def valuation_of(rank: str) -> Valuation:
    if rank == "equity":
        return Valuation(LeaveTable.zeros(), bag=60, exchange=7, passes=True)
    return Valuation(passes=True)


@pytest.mark.parametrize(("name", "rack_text", "rank"), POSITIONS)
def test_the_candidates_fold_key_is_the_tables(small_gaddag, name, rack_text, rank):
    """Candidates share ranking.fold_key exactly when their Moves share the table's key."""
    from solver_cli.cli.render import fold_key as move_key

    board = position(name)
    counts = rack(rack_text)
    valuation = valuation_of(rank)
    _, ranked = ranked_moves(board, counts, small_gaddag, SCRABBLE, valuation=valuation)
    moves = solve(board, counts, small_gaddag, SCRABBLE, valuation=valuation).moves
    assert len(moves) == len(ranked) > 50
    by_candidate: dict = {}
    by_move: dict = {}
    for i, (c, m) in enumerate(zip(ranked, moves, strict=True)):
        a, b = fold_key(board, c), move_key(m)
        assert (a is None) == (b is None)
        if a is not None:
            by_candidate.setdefault(a, []).append(i)
            by_move.setdefault(b, []).append(i)
    assert sorted(by_candidate.values()) == sorted(by_move.values())
    assert any(len(group) > 1 for group in by_move.values())


@python_engine_in_soak()  # how moves fold into rows: the same whichever engine found them
@pytest.mark.parametrize(("name", "rack_text", "rank"), POSITIONS)
@pytest.mark.parametrize("sort", ["score", "length", "tiles", "by score"])
@pytest.mark.parametrize("rows", [1, 2, 3, 7, 40])
def test_folded_rows_hold_every_move_of_the_first_rows(small_gaddag, name, rack_text, rank, sort, rows):
    board = position(name)
    counts = rack(rack_text)
    valuation = valuation_of(rank)
    filters = Filters(sort="score" if sort == "by score" else sort)
    run = solve_by_score if sort == "by score" else solve
    everything = run(board, counts, small_gaddag, SCRABBLE, filters=filters, valuation=valuation)
    shown = {id(m) for row in reference_rows(board, everything.moves)[:rows] for m in row}
    folded = run(board, counts, small_gaddag, SCRABBLE, filters=filters, valuation=valuation, limit=rows, fold=True)
    assert folded.moves == [m for m in everything.moves if id(m) in shown]
    assert (folded.total, folded.matching) == (everything.total, everything.matching)


def test_folded_rows_with_a_filter(small_gaddag):
    board = midgame()
    filters = Filters(min_length=3, sort="score")
    everything = solve(board, rack("ERS??"), small_gaddag, SCRABBLE, filters=filters)
    rows = reference_rows(board, everything.moves)[:5]
    assert any(len(row) > 1 for row in rows)
    shown = {id(m) for row in rows for m in row}
    folded = solve(board, rack("ERS??"), small_gaddag, SCRABBLE, filters=filters, limit=5, fold=True)
    assert folded.moves == [m for m in everything.moves if id(m) in shown]


def test_folding_makes_moves_only_for_the_rows_shown(small_gaddag, monkeypatch):
    """The cost of folding (issue #23, item 11): the moves shown are the only Moves made, and
    the engine is asked for at most 4 times the candidates they span. Before, the loop asked
    for 4 times more Moves until the list passed the whole tier of the last row's equity: on
    an empty board with blanks every placement of two blanks scores 0, so it made a Move for
    every move there is (20 blanks on a 26x26 board: 3.3 million, 219 s and 1.2 GB)."""
    made = []
    asked = []
    real_build, real_ranked = ranking.build_move, ranking.ranked_moves

    def build_move(*args, **kwargs):
        made.append(args)
        return real_build(*args, **kwargs)

    def ranked(*args, **kwargs):
        total, found = real_ranked(*args, **kwargs)
        asked.append((kwargs.get("keep"), len(found)))
        return total, found

    monkeypatch.setattr(ranking, "build_move", build_move)
    monkeypatch.setattr(ranking, "ranked_moves", ranked)
    board = Board.empty(SCRABBLE)
    solution = solve(board, rack("??"), small_gaddag, SCRABBLE, limit=2, fold=True, valuation=Valuation(passes=True))
    rows = reference_rows(board, solution.moves)
    assert [len(row) for row in rows[:1]] == [1] and len(rows) == 2 and len(rows[1]) > 50  # the pass, a 2-letter row
    shown = len(solution.moves)
    assert len(made) == shown - 1 and shown < solution.total // 3
    assert all(keep is not None and keep <= 4 * shown for keep, _ in asked)


@pytest.mark.parametrize("smoothing", [-1, -0.5, float("nan"), float("inf")])
def test_training_refuses_a_smoothing_the_native_table_refuses_before_a_game(small_gaddag, smoothing, monkeypatch):
    """The native leave_table refused a negative or NaN smoothing with a ValueError, after
    every game was played; the Python twin made a table of it. Now neither plays a game."""
    from solver_cli.games import leavegen

    monkeypatch.setattr(leavegen, "_runner", lambda *args: pytest.fail("a game started"))
    with pytest.raises(InputError, match="smoothing must be a number of at least 0"):
        leavegen.train(small_gaddag, SCRABBLE, "small", 2, rounds=1, smoothing=smoothing)


def test_more_moves_than_the_native_list_holds_is_one_error_on_the_twin_too(small_gaddag, monkeypatch):
    """The native engine lists at most MAX_RECORDS (2^24) moves, then raises; the twin now
    refuses the same way (here with the bound lowered: 2^24 moves take the twin hours)."""
    board = midgame()
    total, _ = ranked_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, keep=1, engine="python")
    monkeypatch.setattr(movegen, "MAX_KEEP", total - 1)
    for call in (
        lambda: generate_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, "python"),
        lambda: count_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, "python"),
        lambda: ranked_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, engine="python"),
    ):
        with pytest.raises(InputError, match=f"more than {total - 1:,} moves: too many to list"):
            call()
    assert ranked_moves(board, rack("AEIRST?"), small_gaddag, SCRABBLE, keep=5, engine="python")[0] == total

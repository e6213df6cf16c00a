"""The simulation's play-outs: the native loop (engine/native/rollout.c) against its Python
twin (lookahead/rollout.py) on many seeded random positions, the generator both draw from,
and the checks at the native entry point."""

from __future__ import annotations

import dataclasses
import random
from array import array

import pytest
from soak import soak

from solver_cli.engine import movegen
from solver_cli.engine.alphabet import parse_rack
from solver_cli.engine.board import Board
from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable, leave_index
from solver_cli.engine.movegen import EXCHANGE, PASS, Candidate
from solver_cli.engine.rules import load_rules
from solver_cli.engine.unseen import unseen_tiles
from solver_cli.errors import InputError
from solver_cli.formats.leavefile import table_for
from solver_cli.lookahead import rollout, sim
from solver_cli.lookahead.rollout import Outcome, SplitMix64, pack_candidates, play_out, play_outs

from .positions import RULES, game_boards

needs_native = pytest.mark.skipif(not rollout.native_built(), reason="the native engine is not built")


def table(seed: int, spread: int) -> LeaveTable:
    """Random leave values within +-spread hundredths of a point: a wide spread makes the
    replies exchange often (keeping a leave worth far more than any score)."""
    rng = random.Random(seed)
    return LeaveTable(array("h", (rng.randrange(-spread, spread + 1) for _ in range(TABLE_SIZE))), f"random-{spread}")


# --- the generator ------------------------------------------------------------------------------


def test_splitmix64_gives_the_reference_sequence():
    """The first outputs from state 0 of Vigna's splitmix64.c (the published test vector)."""
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(4)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
        0xF88BB8A8724C81EC,
    ]


def test_below_is_uniform_and_shuffle_a_permutation():
    rng = SplitMix64(7)
    n = 6
    counts = [0] * n
    for _ in range(60_000):
        counts[rng.below(n)] += 1
    assert all(abs(c - 10_000) < 500 for c in counts)  # about 5 standard deviations
    items = list(range(50))
    rng.shuffle(items)
    assert sorted(items) == list(range(50)) and items != list(range(50))
    assert SplitMix64(3).below(1) == 0


# --- the native loop and the twin, on random positions -----------------------------------------


def _positions(gaddag, count: int, seed: int):
    """(rules, board, mover's rack, opponent sampler or fixed rack or None, plies, scoreless) on
    boards of greedy self-play games (both rule sets, from the empty board to the last turn),
    racks drawn from the unseen tiles (blanks among them when the bag still has one)."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        name = ("scrabble", "wwf")[made % 2]
        rules = RULES[name]
        if made % 5 == 2:  # other end factors: going out is worth more, or nothing
            rules = dataclasses.replace(rules, out_gain=3, out_loss=2, stuck_loss=2)
        elif made % 5 == 4:
            rules = dataclasses.replace(rules, out_gain=0, out_loss=0, stuck_loss=0)
        boards = game_boards(gaddag, name, rng.randrange(3))
        squares = [0] * (rules.rows * rules.cols) if rng.random() < 0.05 else rng.choice(boards)
        board = Board(rules.rows, rules.cols, list(squares))
        pool = [code for code, n in enumerate(unseen_tiles(board, [0] * 27, rules).counts) for _ in range(n)]
        if len(pool) < 2:
            continue
        rng.shuffle(pool)
        if made % 3 == 0 and 0 in pool:  # the mover holds a blank
            pool.remove(0)
            pool.insert(0, 0)
        rack = [0] * 27
        for code in pool[: min(rules.rack_size, len(pool) - 1)]:
            rack[code] += 1
        rest = pool[min(rules.rack_size, len(pool) - 1) :]
        opponent: list[int] | None = None
        if made % 4 == 1:  # an inferred or given part of the opponent's rack
            opponent = [0] * 27
            for code in rest[: rng.randrange(1, min(4, len(rest)) + 1)]:
                opponent[code] += 1
        plies = rng.choice((1, 2, 2, 3, 6, 20))
        scoreless = rng.randrange(rules.scoreless_turns)
        yield rules, board, rack, opponent, plies, scoreless
        made += 1


def _candidates(board, rack, gaddag, rules, leaves) -> list[Candidate]:
    """The best few by equity, and the worst placement, an exchange and the pass when there are."""
    found = sim.sim_candidates(board, rack, gaddag, rules, leaves, 100_000)
    chosen = found[:4] + found[-1:]
    chosen += [c for c in found if c.kind == EXCHANGE][:1] + [c for c in found if c.kind == PASS]
    return list(dict.fromkeys(chosen))


def _iteration(rules, board, rack, gaddag, leaves, opponent, index: int):
    """One iteration's draw, as sim.run_iteration makes it (the opponent's rack completed at
    random from the unseen tiles, or drawn by a sampler as an inference does)."""
    unseen = unseen_tiles(board, rack, rules).counts
    sampler = None
    if opponent is not None and index % 2:
        kept = tuple(opponent)
        sampler = _Kept(kept)
        opponent = None
    setup = sim.Setup(
        squares=tuple(board.squares),
        rack=tuple(rack),
        gaddag=gaddag,
        rules=rules,
        leaves=leaves,
        candidates=(),
        plies=1,
        seed=index,
        unseen=unseen,
        opponent_rack=None if opponent is None else tuple(opponent),
        sampler=sampler,
    )
    rng = random.Random(sim.iteration_seed(index, index))
    them, bag = sim.draw_opponent(setup, rng)
    return them, bag, rng.getrandbits(64)


class _Kept:
    """An opponent sampler that keeps a given leave (as an inferred rack does)."""

    def __init__(self, kept: tuple[int, ...]):
        self.kept = kept

    def __call__(self, rng: random.Random, unseen: tuple[int, ...]) -> list[int]:
        return list(self.kept)


@needs_native
def test_the_native_loop_and_the_twin_give_the_same_outcomes(small_gaddag, monkeypatch):
    """On 240 seeded positions (both rule sets, blanks, given and inferred opponent racks,
    1 to 20 plies, so that games end inside them, and leave tables that make replies exchange),
    every live candidate's outcome is the same from the native loop and the twin (with the
    native move generator: both generators are held identical by the movegen tests)."""
    shuffles = []
    real_shuffle = SplitMix64.shuffle

    def counted(self, items):
        shuffles.append(len(items))
        real_shuffle(self, items)

    monkeypatch.setattr(SplitMix64, "shuffle", counted)
    tables = [table(1, 600), table(2, 30_000)]
    seen = {"ended": 0, "open": 0, "wwf": 0, "blank": 0, "sampled": 0, "factors": 0, "factors_ended": 0}
    for n, (rules, board, rack, opponent, plies, scoreless) in enumerate(_positions(small_gaddag, 240, seed=22)):
        leaves = tables[n % 2]
        candidates = _candidates(board, rack, small_gaddag, rules, leaves)
        packed = pack_candidates(candidates)
        them, bag, seed = _iteration(rules, board, rack, small_gaddag, leaves, opponent, n)
        live = list(range(len(candidates)))[n % 2 :]  # sometimes one is left out, as a pruned one
        native = play_outs(
            board,
            rack,
            small_gaddag,
            rules,
            leaves,
            candidates,
            packed,
            live,
            them,
            bag,
            seed,
            plies,
            scoreless,
            "native",
        )
        twin = [
            play_out(
                board, rack, small_gaddag, rules, leaves, candidates[i], them, bag, seed, plies, scoreless, "native"
            )
            for i in live
        ]
        assert native == twin, f"position {n}: {rules.name}, plies {plies}, rack {rack}\n{board.to_text()}"
        seen["ended"] += sum(o.ended for o in native)
        seen["open"] += sum(not o.ended for o in native)
        seen["wwf"] += rules.name == "wwf"
        seen["blank"] += rack[0] > 0 or them[0] > 0
        seen["sampled"] += opponent is not None
        factors = (rules.out_gain, rules.out_loss) != (1, 1)
        seen["factors"] += factors
        seen["factors_ended"] += factors and any(o.ended for o in native)
    assert min(seen.values()) >= 10, seen
    assert len(shuffles) >= 20  # the twin reshuffled after exchanges (the native loop then had to as well)


@needs_native
@pytest.mark.parametrize("count", [120, pytest.param(1200, marks=soak)])
def test_the_native_loop_and_the_twin_agree_on_the_full_word_list(full_lexicon, count):
    """The native loop's replies skip whole anchors by a bound on their moves' equity (walked
    best bound first): on the full word list, whose racks bingo and whose boards are open,
    with the shipped leave tables, every outcome is still the twin's, which takes its replies
    from the move generator's best move without any bound."""
    gaddag = full_lexicon.gaddag
    for n, (rules, board, rack, opponent, plies, scoreless) in enumerate(_positions(gaddag, count, seed=41)):
        plies = min(plies, 4)
        leaves, _note = table_for(rules.name, "kjxqz")
        candidates = _candidates(board, rack, gaddag, rules, leaves)
        them, bag, seed = _iteration(rules, board, rack, gaddag, leaves, opponent, n)
        live = range(len(candidates))
        args = (board, rack, gaddag, rules, leaves)
        native = play_outs(
            *args, candidates, pack_candidates(candidates), live, them, bag, seed, plies, scoreless, "native"
        )
        twin = [play_out(*args, candidates[i], them, bag, seed, plies, scoreless, "native") for i in live]
        assert native == twin, f"position {n}: {rules.name}, plies {plies}, rack {rack}\n{board.to_text()}"


@needs_native
def test_the_native_loop_and_the_twin_on_the_python_move_generator(small_gaddag):
    """A few positions with the twin wholly in Python (its own move generator too)."""
    leaves = table(3, 600)
    for n, (rules, board, rack, opponent, plies, scoreless) in enumerate(_positions(small_gaddag, 12, seed=5)):
        plies = min(plies, 3)
        candidates = _candidates(board, rack, small_gaddag, rules, leaves)[:3]
        them, bag, seed = _iteration(rules, board, rack, small_gaddag, leaves, opponent, n)
        live = range(len(candidates))
        args = (board, rack, small_gaddag, rules, leaves)
        native = play_outs(
            *args, candidates, pack_candidates(candidates), live, them, bag, seed, plies, scoreless, "native"
        )
        twin = play_outs(*args, candidates, b"", live, them, bag, seed, plies, scoreless, "python")
        assert native == twin, f"position {n}"


def test_an_exchange_reply_is_played_and_valued_alike(small_gaddag):
    """A reply that exchanges (the only leave worth anything is VVVWWW, 300 points: the
    opponent holding VVVWWWQ throws the Q back) is played, and valued, the same by both."""
    rules = load_rules("scrabble")
    board = Board.empty(rules)
    board.squares[7 * 15 + 7] = 1  # an A on the centre square
    values = array("h", [0] * TABLE_SIZE)
    keep = [0] * 27
    keep[22] = keep[23] = 3
    values[leave_index(keep)] = 30_000
    leaves = LeaveTable(values, "keep-vw")
    mover = parse_rack("XZ", 7)
    opponent = list(keep)
    opponent[17] = 1
    bag = [5, 9, 15, 21, 1, 20, 18, 14, 12, 3]
    candidate = Candidate(0, 0, PASS, False, 0, 0, ())
    outcome = play_out(board, mover, small_gaddag, rules, leaves, candidate, opponent, bag, 99, 1, 0, "python")
    assert outcome == Outcome(0, 0 - 300_000, False, 0, len(bag) + 7)
    if rollout.native_built():
        native = play_outs(
            board, mover, small_gaddag, rules, leaves, [candidate], pack_candidates([candidate]), [0], opponent, bag,
            99, 1, 0, "native",
        )  # fmt: skip
        assert native == [outcome]


# --- the native entry point checks what it is given ---------------------------------------------


@needs_native
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"squares": b"\x00" * 10}, "squares"),
        ({"squares": b"\x40" * 225}, "squares"),
        ({"rack": b"\x01" * 26}, "rack"),
        ({"rack": b"\x15" + b"\x00" * 26}, "rack"),
        ({"opponent": b"\x15" + b"\x00" * 26}, "opponent"),
        ({"bag": b"\x1b"}, "bag"),
        ({"live": [5]}, "live index"),
        ({"live": [-1]}, "live index"),
        ({"live": [0, 0, 0, 0]}, "more live"),
        ({"seed": -1}, "seed"),
        ({"seed": 1 << 64}, "seed"),
        ({"plies": 21}, "plies"),
        ({"scoreless": 6}, "scoreless"),
        ({"exchange_max": 8}, "exchange_max"),
        ({"candidates": b"\x00" * 47}, "candidates"),
        ({"candidate": Candidate(5, 0, 0, False, 7, 14, (1, 1))}, "does not fit"),
        ({"candidate": Candidate(5, 0, 0, True, 15, 0, (1,))}, "does not fit"),
        ({"candidate": Candidate(5, 0, 0, False, 7, 6, (26, 1))}, "not on the mover's rack"),
        ({"candidate": Candidate(5, 0, 0, False, 7, 6, (2, 2))}, "does not match"),
        ({"candidate": Candidate(5, 0, 0, False, 7, 8, (64,))}, "not A-Z"),
        ({"candidate": Candidate(0, 0, EXCHANGE, False, 0, 0, (26,))}, "not on the mover's rack"),
        ({"candidate": Candidate(0, 0, EXCHANGE, False, 0, 0, (1, 1, 1, 1))}, "more tiles"),
        ({"candidate": Candidate(0, 0, 7, False, 0, 0, ())}, "unknown kind"),
        ({"candidate": Candidate(-1, 0, PASS, False, 0, 0, ())}, "score"),
    ],
)
def test_the_native_entry_point_refuses_what_is_out_of_range(small_gaddag, change, message):
    rules = load_rules("scrabble")
    squares = bytearray(225)
    squares[7 * 15 + 7] = 1
    args = {
        "squares": bytes(squares),
        "rack": bytes(parse_rack("AAB", 7)),
        "candidates": pack_candidates([Candidate(2, 0, 0, False, 7, 6, (1, 1))]),
        "live": [0],
        "opponent": bytes(parse_rack("CD", 7)),
        "bag": bytes([5, 6, 7]),
        "seed": 1,
        "plies": 2,
        "scoreless": 0,
        "exchange_max": 7,
    }
    if "candidate" in change:
        args["candidates"] = pack_candidates([change.pop("candidate")])
    args.update(change)
    native = movegen._movegen_c
    assert native is not None
    with pytest.raises(ValueError, match=message):
        native.rollout(
            movegen.native_lexicon(small_gaddag),
            movegen._layout(rules),
            None,
            args["squares"],
            args["rack"],
            args["candidates"],
            args["live"],
            args["opponent"],
            args["bag"],
            args["seed"],
            args["plies"],
            args["scoreless"],
            rules.scoreless_turns,
            rules.exchange_min_bag,
            args["exchange_max"],
            1,
            1,
            1,
        )


def test_the_front_refuses_a_candidate_the_rack_cannot_play(small_gaddag):
    """Both engines: a candidate of tiles the mover does not hold is one InputError."""
    rules = load_rules("scrabble")
    board = Board.empty(rules)
    board.squares[7 * 15 + 7] = 1
    bad = Candidate(2, 0, 0, False, 7, 6, (26, 1))
    with pytest.raises(InputError, match="candidate 1 uses tiles that are not on the rack"):
        sim.simulate(board, parse_rack("AB", 7), small_gaddag, rules, LeaveTable.zeros(), candidates=[bad],
                     iterations=1)  # fmt: skip


def test_a_reply_never_exchanges_more_tiles_than_the_bag_holds(small_gaddag):
    """A rule set whose exchanges need only 1 tile in the bag, and a leave table that values
    keeping nothing above all: with 3 tiles in the bag the opponent throws back 3 of its 7,
    the most the bag can replace (the twin used to pop an empty bag here)."""
    import dataclasses

    rules = dataclasses.replace(load_rules("scrabble"), exchange_min_bag=1)
    board = Board.empty(rules)
    board.squares[7 * 15 + 7] = 1
    values = array("h", [0] * TABLE_SIZE)
    values[leave_index([0] * 27)] = 30_000
    four = [0] * 27
    four[22] = 4  # VVVV: the leave of 4 the opponent can keep
    values[leave_index(four)] = 20_000
    leaves = LeaveTable(values, "keep-little")
    opponent = [0] * 27
    opponent[22], opponent[23] = 4, 3  # VVVVWWW
    bag = [5, 9, 15]
    candidate = Candidate(0, 0, PASS, False, 0, 0, ())
    twin = play_out(
        board, parse_rack("XZ", 7), small_gaddag, rules, leaves, candidate, opponent, bag, 4, 1, 0, "python"
    )
    assert twin == Outcome(0, -200_000, False, 0, 3 + 7)  # kept VVVV: three tiles thrown, three drawn
    if rollout.native_built():
        native = play_outs(
            board, parse_rack("XZ", 7), small_gaddag, rules, leaves, [candidate], pack_candidates([candidate]), [0],
            opponent, bag, 4, 1, 0, "native",
        )  # fmt: skip
        assert native == [twin]


def test_the_candidates_never_exchange_more_tiles_than_the_bag_holds(small_gaddag):
    """Exchanges allowed from 1 tile in the bag, and a tile set that leaves 3 in it (AT on the
    board, AEINRST on the mover's rack, 10 tiles unseen): the candidates throw back at most
    3 tiles, and the run goes (a candidate exchanging 7 was refused)."""
    import dataclasses

    counts = [0] * 27
    for letter in "AT" + "AEINRST" + "EEEEEOOOOO":
        counts[ord(letter) - 64] += 1
    rules = dataclasses.replace(load_rules("scrabble"), exchange_min_bag=1, counts=tuple(counts))
    board = Board.empty(rules)
    board.squares[7 * 15 + 7], board.squares[7 * 15 + 8] = 1, 20
    rack = parse_rack("AEINRST", 7)
    every = sim.sim_candidates(board, rack, small_gaddag, rules, table(5, 600), 100_000)
    exchanges = [c for c in every if c.kind == EXCHANGE]
    assert exchanges and max(len(c.codes) for c in exchanges) == 3
    result = sim.simulate(board, rack, small_gaddag, rules, table(5, 600), candidates=1000, iterations=2, stop=None)
    assert result.iterations == 2 and len(result.standings) == len(every)

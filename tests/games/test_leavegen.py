"""Training leave values (issue #14): the rack statistics, the rack-mean estimate (C against
its Python twin, bit for bit), smoothing, and training that gives the same file whatever
the number of processes, the scheduler, or a stop and resume in between."""

from __future__ import annotations

import dataclasses
import json
import random
import zlib
from array import array

import pytest
from soak import first_then_soak, python_engine_in_soak

from solver_cli.engine.leaves import LEAVE_OFFSET, LeaveTable, leave_index
from solver_cli.engine.movegen import NATIVE_BUILT
from solver_cli.engine.rules import load_rules
from solver_cli.errors import InputError
from solver_cli.formats.leavefile import MAGIC_V2, decode_leaves, encode_leaves
from solver_cli.games import leavegen
from solver_cli.games.leavegen import RackStats, leave_sums_python, rack_of_rank, rack_rank, round_sizes, train

SCRABBLE = load_rules("scrabble")


def test_round_sizes_grow_and_add_up():
    assert round_sizes(100, 4) == (10, 20, 30, 40)
    assert sum(round_sizes(1003, 3)) == 1003
    with pytest.raises(InputError, match="rounds must be"):
        round_sizes(100, 0)
    with pytest.raises(InputError, match="games must be"):
        round_sizes(2, 3)


def test_rack_ranks_are_a_bijection():
    rng = random.Random(2)
    seen = {}
    for _ in range(3000):
        counts = [0] * 27
        for code in rng.choices(range(27), k=7):
            counts[code] += 1
        rank = rack_rank(counts)
        assert 0 <= rank < 4_272_048  # C(33, 7): multisets of 7 of the 27 codes
        assert rack_of_rank(rank, 7) == counts
        assert seen.setdefault(rank, tuple(counts)) == tuple(counts)
    short = [0] * 27
    short[5] = 2
    assert rack_rank(short) == leave_index(short) - LEAVE_OFFSET[2]


def random_stats(seed: int, racks: int, rack_size: int = 7) -> RackStats:
    rng = random.Random(seed)
    bag = [code for code, n in enumerate(SCRABBLE.counts) for _ in range(n)]
    stats = RackStats.empty()
    for _ in range(racks):
        counts = [0] * 27
        for code in rng.sample(bag, rack_size):
            counts[code] += 1
        for _ in range(rng.randint(1, 3)):
            stats.add(rack_rank(counts), rng.randint(-5_000, 60_000))
    return stats


def test_stats_pack_and_merge_exactly():
    stats = random_stats(3, 200)
    again = RackStats.empty()
    again.merge(stats.pack())
    again.merge(stats.pack())
    assert again.counts == {rank: 2 * n for rank, n in stats.counts.items()}
    assert again.sums == {rank: 2 * s for rank, s in stats.sums.items()}
    with pytest.raises(ValueError, match="damaged"):
        RackStats.empty().merge(stats.pack()[:-3])


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
def test_the_c_estimate_is_the_python_twin_bit_for_bit():
    from solver_cli.engine import _movegen_c

    stats = random_stats(4, 60)
    ranks = sorted(stats.sums)
    sums = [stats.sums[r] for r in ranks]
    counts = [stats.counts[r] for r in ranks]
    num, den, support, overall = leave_sums_python(ranks, sums, counts, SCRABBLE.counts, 7)
    c_num, c_den, c_support, c_overall = _movegen_c.leave_sums(
        array("i", ranks), array("q", sums), array("q", counts), SCRABBLE.counts, 7
    )
    assert array("d", num).tobytes() == c_num
    assert array("d", den).tobytes() == c_den
    assert array("d", support).tobytes() == c_support
    assert overall == c_overall
    with pytest.raises(ValueError, match="rank out of range"):
        _movegen_c.leave_sums(array("i", [10**9]), array("q", [1]), array("q", [1]), SCRABBLE.counts, 7)
    with pytest.raises(ValueError, match="as long as each other"):
        _movegen_c.leave_sums(array("i", [1]), array("q", [1, 2]), array("q", [1]), SCRABBLE.counts, 7)


@pytest.mark.skipif(not NATIVE_BUILT, reason="the native engine is not built")
@pytest.mark.parametrize("engine", ["native"], indirect=True)  # once: it runs no games
# Five-tile racks (leaves of up to four) in every run; seven, the whole million-leave table, in
# the soak run: the Python twin takes 20 s on it.
@pytest.mark.parametrize("rack_size", first_then_soak([5, 7], 1))
def test_the_c_smoothing_is_the_python_twin_bit_for_bit(engine, rack_size):
    from solver_cli.engine import _movegen_c

    stats = random_stats(6, 300, rack_size)
    num, den, support, overall = leavegen.leave_sums(stats, SCRABBLE.counts, rack_size)
    assert sum(1 for d in den if d > 0) > 1000  # the racks' leaves are summed
    for smoothing in (7.5,):
        c = _movegen_c.leave_table(num, den, support, overall, SCRABBLE.counts, rack_size, smoothing)
        python = leavegen.smooth_python(num, den, support, overall, SCRABBLE.counts, rack_size, smoothing)
        assert array("h", python).tobytes() == c
        assert sum(1 for v in python if v) > 1000


def test_the_estimate_of_a_hand_made_case():
    """Two racks seen: a leave contained only in the better one is worth more than one only
    in the worse one; the empty leave is worth exactly 0 (it is the overall mean)."""
    good = [0] * 27
    for ch in "AEIRST":
        good[ord(ch) - 64] += 1
    good[0] = 1  # AEIRST?
    bad = [0] * 27
    for ch in "UUVVWQI":
        bad[ord(ch) - 64] += 1
    stats = RackStats.empty()
    stats.add(rack_rank(good), 70_000)
    stats.add(rack_rank(bad), 5_000)
    table = leavegen.table_from_stats(stats, SCRABBLE, smoothing=0.0)
    blank = [0] * 27
    blank[0] = 1
    uu = [0] * 27
    uu[21] = 2
    assert table.values[0] == 0
    assert table.value(blank) > 0 > table.value(uu)


def test_smoothing_pulls_rare_leaves_towards_their_sub_leaves():
    stats = random_stats(5, 400)
    raw = leavegen.table_from_stats(stats, SCRABBLE, smoothing=0.0)
    smooth = leavegen.table_from_stats(stats, SCRABBLE, smoothing=1e9)
    # With an overwhelming prior, a leave's value is its sub-leaves' additive estimate.
    for index in range(LEAVE_OFFSET[2], LEAVE_OFFSET[2] + 200):
        from solver_cli.engine.leaves import leave_of_index

        counts = leave_of_index(index)
        if any(n > SCRABBLE.counts[c] for c, n in enumerate(counts)):
            assert smooth.values[index] == 0
            continue
        tiles = [c for c, n in enumerate(counts) for _ in range(n)]
        parts = []
        for code in sorted(set(tiles)):
            rest = list(counts)
            rest[code] -= 1
            one = [0] * 27
            one[code] = 1
            parts.append(smooth.value(rest) + smooth.value(one))
        assert abs(smooth.value(counts) - sum(parts) / len(parts)) <= 10 * len(parts)  # rounding
    assert raw.values != smooth.values


def run(small_gaddag, **kwargs) -> bytes:
    """The training's file, as `scrab leaves train -o FILE` writes it."""
    result = train(small_gaddag, SCRABBLE, "small", 24, rounds=2, batch=5, seed=9, **kwargs)
    assert [r.games for r in result.rounds] == [8, 16]
    assert all(r.samples > 0 for r in result.rounds)
    return encode_leaves(result.table, result.info)


@python_engine_in_soak()
def test_training_is_the_same_on_one_or_two_processes(small_gaddag):
    one = run(small_gaddag, jobs=1)
    assert one == run(small_gaddag, jobs=2)
    assert decode_leaves(one, "one").values != LeaveTable.zeros().values


@python_engine_in_soak()
def test_resuming_from_a_checkpoint_gives_the_same_table(small_gaddag, tmp_path):
    saved: list[tuple[LeaveTable, dict]] = []
    whole = run(small_gaddag, jobs=1, checkpoint=lambda table, info: saved.append((table, info)))
    assert [info["round"] for _, info in saved] == [1, 2]
    first, info = saved[0]
    # Through the file format, as `scrab leaves train --resume FILE` reads it.
    checkpoint = decode_leaves(encode_leaves(first, info), "checkpoint.leaves")
    assert run(small_gaddag, jobs=1, resume=checkpoint) == whole
    other = decode_leaves(encode_leaves(first, dict(info, plan={**info["plan"], "seed": 1})), "other.leaves")
    with pytest.raises(InputError, match="made by another training"):
        run(small_gaddag, resume=other)


@python_engine_in_soak()
def test_training_on_a_dask_cluster_gives_the_same_table(small_gaddag):
    import distributed  # the test extra installs it (the dask extra, for users)

    pool = run(small_gaddag, jobs=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        assert run(small_gaddag, scheduler=cluster.scheduler_address) == pool


# --- checked before the first game (issue #23, items 3 and 5) --------------------------------


@pytest.fixture
def games_played(monkeypatch) -> list[int]:
    """The sizes of the batches of games played (in this process: jobs=1)."""
    played: list[int] = []
    real = leavegen.play_training_batch

    def counted(*args):
        played.append(args[-1])
        return real(*args)

    monkeypatch.setattr(leavegen, "play_training_batch", counted)
    return played


@pytest.mark.parametrize("rack_size", [8, 20])
def test_racks_a_table_cannot_value_are_refused_before_any_game(small_gaddag, games_played, rack_size):
    """Such a training used to play every game, then fail (ValueError, OverflowError)."""
    rules = dataclasses.replace(SCRABBLE, name=f"long{rack_size}", rack_size=rack_size)
    with pytest.raises(InputError, match=f"racks of {rack_size} tiles; leave tables are trained for racks of 1 to 7"):
        train(small_gaddag, rules, "small", 2, rounds=1, batch=1)
    assert games_played == []
    # (the count works: rules it can train for play their games)
    short = dataclasses.replace(SCRABBLE, name="short", rack_size=6, exchange_max=6, exchange_min_bag=6)
    train(small_gaddag, short, "small", 2, rounds=1, batch=1)
    assert games_played == [1, 1]


PLAN = leavegen.training_plan(24, 2, 9, batch=5)


def checkpoint_info(**changes) -> dict:
    """The header a checkpoint after round 1 of ``run``'s training has, with ``changes``."""
    reports = [{"round": 1, "games": 8, "samples": 180, "racks": 170}]
    info = {"rules": "scrabble", "lexicon": "small", "rack_size": 7, "plan": PLAN, "round": 1, "round_reports": reports}
    return {**info, **changes}


def test_a_checkpoint_header_that_contradicts_itself_or_the_plan_is_refused_before_any_game(small_gaddag, games_played):
    report = checkpoint_info()["round_reports"][0]
    bad = [
        ({"round": 0}, "the checkpoint's round is 0; a checkpoint of this training is written after round 1 to 2"),
        ({"round": -1}, "the checkpoint's round is -1"),
        ({"round": 3}, "the checkpoint's round is 3"),
        ({"round": "1"}, 'the checkpoint\'s round is "1"'),
        ({"round": 1.0}, "the checkpoint's round is 1.0"),
        ({"round": True}, "the checkpoint's round is true"),
        ({"round": [1] * 100}, "the checkpoint's round is [1, 1, 1, 1, 1, 1"),
        ({"round": None}, "the checkpoint's round is null"),
        ({"round": 2}, "round_reports do not match its round (2) and plan"),  # "round":1 read as 2
        ({"round_reports": None}, "round_reports do not match"),
        ({"round_reports": "x"}, "round_reports do not match"),
        ({"round_reports": []}, "round_reports do not match"),
        ({"round_reports": [report, report]}, "round_reports do not match"),
        ({"round_reports": [[1, 8, 180, 170]]}, "round_reports do not match"),
        ({"round_reports": [{**report, "extra": 1}]}, "round_reports do not match"),
        ({"round_reports": [{"round": 1, "games": 8, "samples": 180}]}, "round_reports do not match"),
        ({"round_reports": [{**report, "samples": "180"}]}, "round_reports do not match"),
        ({"round_reports": [{**report, "racks": -1}]}, "round_reports do not match"),
        ({"round_reports": [{**report, "games": 9}]}, "round_reports do not match"),
        ({"round_reports": [{**report, "round": 2}]}, "round_reports do not match"),
        ({"rack_size": 6}, "made by another training"),
        ({"rules": "wwf"}, "made by another training"),
        ({"plan": {**PLAN, "seed": 1}}, "made by another training"),
        ({"plan": None}, "made by another training"),
    ]
    good = decode_leaves(encode_leaves(LeaveTable.zeros(), checkpoint_info()), "good.leaves")
    assert leavegen.resume_point(good.info, PLAN, SCRABBLE) == (1, [leavegen.RoundReport(**report, seconds=0.0)])
    for changes, words in bad:
        table = decode_leaves(encode_leaves(LeaveTable.zeros(), checkpoint_info(**changes)), "bad.leaves")
        with pytest.raises(InputError) as caught:
            run(small_gaddag, jobs=1, resume=table)
        assert words in str(caught.value), changes
    assert games_played == []


def test_a_version_2_checkpoint_whose_round_flipped_is_refused(small_gaddag, games_played):
    """A version 2 file's header is outside its checksum: "round":1 read as "round":0 used
    to start the training again from round 1, silently, into a different table."""
    values = bytes(2 * leavegen.TABLE_SIZE)
    header = json.dumps(checkpoint_info(crc32=zlib.crc32(values), entries=leavegen.TABLE_SIZE), separators=(",", ":"))
    flipped = header.replace('"round":1', '"round":0', 1)
    assert sum(a != b for a, b in zip(header, flipped, strict=True)) == 1
    assert ord("1") ^ ord("0") == 1  # one bit
    checkpoint = decode_leaves(MAGIC_V2 + flipped.encode() + b"\n" + values, "old.leaves")
    with pytest.raises(InputError, match="the checkpoint's round is 0"):
        run(small_gaddag, jobs=1, resume=checkpoint)
    assert games_played == []

"""The native code's fuzz targets (tests/fuzz/fuzz_native.py) for a bounded number of inputs:
with atheris (coverage-guided, in a subprocess with a timeout) when it is installed, else
with Hypothesis-generated inputs; and proof that the targets' checks catch what they are
there to catch (a native result that differs from the Python twin's, a bad move, a build
that differs by one entry)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from soak import soak

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_native  # noqa: E402
import fuzz_readers  # noqa: E402

from solver_cli.engine import movegen  # noqa: E402
from solver_cli.lexicon import build  # noqa: E402

pytestmark = pytest.mark.skipif(
    not (movegen.NATIVE_BUILT and build.NATIVE_BUILT), reason="the native extensions are not built"
)

HAVE_ATHERIS = importlib.util.find_spec("atheris") is not None
RUNS = 1500  # 300 in a plain `pytest`
NAMES = sorted(fuzz_native.NATIVE.targets)


@pytest.mark.parametrize("runs", [300, pytest.param(RUNS, marks=soak)])
@pytest.mark.parametrize("name", NAMES)
def test_native_fuzz_target_for_a_bounded_run(name, runs, tmp_path):
    if not HAVE_ATHERIS:
        fuzz_readers.run_hypothesis(name, runs, fuzz_native.NATIVE)
        return
    proc = subprocess.run(
        [sys.executable, fuzz_native.__file__, name, f"-runs={runs}", "-max_len=4096", "-seed=1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # crash files, if any, land here
        env={**os.environ, "SCRAB_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert f"Done {runs} runs" in proc.stderr, proc.stderr[-2000:]


def test_the_native_seeds_are_whole_cases():
    """The seeds go all the way: the C code accepts them and finds moves or builds a GADDAG."""
    from solver_cli.engine import _movegen_c

    found = []
    generate = _movegen_c.generate

    def counting(*args, **options):
        total, records = generate(*args, **options)
        found.append(total)
        return total, records

    _movegen_c.generate = counting
    try:
        for name in NAMES:
            for seed in fuzz_native.NATIVE.seeds[name]():
                fuzz_native.NATIVE.targets[name](seed)
    finally:
        _movegen_c.generate = generate
    assert found and max(found) > 0


def inputs_until(name: str, count: int = 400) -> list[bytes]:
    """The seeds, then deterministic pseudo-random inputs."""
    import random

    rng = random.Random(15)
    return fuzz_native.NATIVE.seeds[name]() + [rng.randbytes(rng.randrange(1, 200)) for _ in range(count)]


def fails_on_some_input(name: str) -> AssertionError:
    for data in inputs_until(name):
        try:
            fuzz_readers.run_one(name, data, fuzz_native.NATIVE)
        except AssertionError as exc:
            return exc
    raise AssertionError(f"no input made the {name} target fail")


def test_a_native_move_generator_that_differs_from_the_python_twin_is_caught(monkeypatch):
    from solver_cli.engine import _movegen_c

    generate = _movegen_c.generate

    def one_move_short(*args, **options):
        total, records = generate(*args, **options)
        return (total - 1, records[48:]) if total and not options.get("keep") else (total, records)

    monkeypatch.setattr(_movegen_c, "generate", one_move_short)
    fails_on_some_input("movegen")


def test_native_play_outs_that_differ_from_the_twin_are_caught(monkeypatch):
    """A native play-out one point off for the mover (as a reply missed by a bound would
    make it) fails the rollout target."""
    from solver_cli.engine import _movegen_c

    rollout = _movegen_c.rollout

    def one_point_off(*args):
        return [(points + 1, *rest) for points, *rest in rollout(*args)]

    monkeypatch.setattr(_movegen_c, "rollout", one_point_off)
    fails_on_some_input("rollout")


def _codes(word: str) -> tuple[int, ...]:
    return tuple(ord(ch) - 64 if ch.isupper() else (ord(ch) - 96) | 32 for ch in word)


CAT_BOARD = {(7, 6): "C", (7, 7): "A", (7, 8): "T"}
WORDS = {"CAT", "CATS", "AT", "TA", "SCAT"}


@pytest.mark.parametrize(
    ("move", "rack", "sound"),
    [
        ((7, False, 7, 6, _codes("CATS")), "S", True),
        ((7, False, 7, 6, _codes("CATs")), "?", True),
        ((6, False, 7, 5, _codes("SCAT")), "S", True),
        ((-1, False, 7, 6, _codes("CATS")), "S", False),  # a negative score
        ((7, False, 7, 6, _codes("CATS")), "A", False),  # a tile not on the rack
        ((7, False, 7, 6, _codes("CATs")), "S", False),  # a blank not on the rack
        ((7, False, 7, 6, _codes("CAPS")), "PS", False),  # a letter over a board tile
        ((3, False, 7, 7, _codes("ATS")), "S", False),  # not the whole word (C before it)
        ((5, False, 7, 6, _codes("CATSS")), "SS", False),  # a word not in the list
        ((2, False, 3, 3, _codes("AT")), "AT", False),  # touches nothing
        ((2, True, 6, 2, _codes("AT")), "AT", False),  # a down move that touches nothing
        ((7, False, 7, 14, _codes("CATS")), "CATS", False),  # runs off the board
    ],
)
def test_the_move_checks_catch_a_bad_move(move, rack, sound):
    """The checks every native move goes through (fuzz_native._check_move), on moves that
    break one rule each."""
    from solver_cli.engine.rules import load_rules

    rules = load_rules("scrabble")
    board = [0] * (rules.rows * rules.cols)
    for (row, col), letter in CAT_BOARD.items():
        board[row * rules.cols + col] = ord(letter) - 64
    counts = [0] * 27
    for ch in rack:
        counts[0 if ch == "?" else ord(ch) - 64] += 1
    if sound:
        fuzz_native._check_move(move, board, rules, counts, WORDS)
    else:
        with pytest.raises(AssertionError):
            fuzz_native._check_move(move, board, rules, counts, WORDS)


def test_a_native_check_that_accepted_a_broken_array_is_caught(monkeypatch):
    """Were the C check to accept an array the Python twin's check refuses, the target fails."""
    from solver_cli.engine import gaddag

    monkeypatch.setattr(gaddag, "structure_problem", lambda nodes, root, dawg_root: "broken")
    fails_on_some_input("movegen")


def test_a_native_build_one_entry_off_is_caught(monkeypatch):
    from solver_cli.lexicon import _build_c

    real = _build_c.build

    def off_by_one(words, max_entries, max_prefixes):
        blob, *rest = real(words, max_entries, max_prefixes)
        return (bytes([blob[0] ^ 1]) + blob[1:], *rest)

    monkeypatch.setattr(_build_c, "build", off_by_one)
    fails_on_some_input("build")

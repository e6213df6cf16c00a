"""Every fuzz target of tests/fuzz/fuzz_readers.py for a bounded number of inputs: with
atheris (coverage-guided, in a subprocess with a timeout) when it is installed, else with
Hypothesis-generated inputs (random bytes and mutated seeds) for the same targets. The
Hypothesis driver also runs on its own, so it is exercised where atheris is installed too."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from soak import soak

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_readers  # noqa: E402

HAVE_ATHERIS = importlib.util.find_spec("atheris") is not None
RUNS = 2000


@soak  # a plain `pytest` drives every target with 300 inputs (test_hypothesis_driver)
@pytest.mark.parametrize("name", sorted(fuzz_readers.TARGETS))
def test_fuzz_target_for_a_bounded_run(name, tmp_path):
    if not HAVE_ATHERIS:
        fuzz_readers.run_hypothesis(name, RUNS)
        return
    proc = subprocess.run(
        [sys.executable, fuzz_readers.__file__, name, f"-runs={RUNS}", "-max_len=4096", "-seed=1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,  # crash files, if any, land here
        env={**os.environ, "SCRAB_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert f"Done {RUNS} runs" in proc.stderr, proc.stderr[-2000:]


@pytest.mark.parametrize("name", sorted(fuzz_readers.TARGETS))
def test_hypothesis_driver(name):
    fuzz_readers.run_hypothesis(name, 300)


def test_seeds_are_accepted_by_their_targets():
    """The seeds are valid inputs: the targets' checks run on real data, not only on refusals."""
    for name, seeds in fuzz_readers.SEEDS.items():
        for seed in seeds():
            fuzz_readers.TARGETS[name](seed)


def test_a_target_that_raises_something_else_is_caught():
    def fuzz_broken(data: bytes) -> None:
        raise IndexError("a reader bug")

    fuzz_readers.TARGETS["broken"] = fuzz_broken
    try:
        with pytest.raises(IndexError):
            fuzz_readers.run_one("broken", b"")
    finally:
        del fuzz_readers.TARGETS["broken"]

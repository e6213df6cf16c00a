"""The ``soak`` marker: the long tail of a random or differential loop, and long soaks and
fuzz runs, run by ``.ci/run``'s second step (``SCRAB_SOAK=1 pytest -m "soak or scaled"``) and
left out of a plain ``pytest`` (``-m "not soak"`` in pyproject.toml's addopts), which keeps
every kind of case but fewer of each. A ``scaled`` test runs in both, with more generated
cases in the soak step (``examples``). See docs/testing.md."""

from __future__ import annotations

import os
from collections.abc import Iterable

import pytest

soak = pytest.mark.soak
scaled = pytest.mark.scaled
SOAKING = os.environ.get("SCRAB_SOAK") == "1"


def examples(full: int) -> int:
    """Hypothesis examples for a ``scaled`` test: ``full`` in the soak step, a sixth in a plain run."""
    return full if SOAKING else full // 6


def first_then_soak(values: Iterable[object], default: int) -> list[object]:
    """``values`` as parameters: the first ``default`` in every run, the rest marked soak."""
    return [value if i < default else pytest.param(value, marks=soak) for i, value in enumerate(values)]


def python_engine_in_soak() -> pytest.MarkDecorator:
    """The ``engine`` parameters of a test whose Python-twin run is long and adds little (a
    training's orchestration, the help's examples): the native engine in every run, the
    twin in the soak run (in every run where the native engine is not built)."""
    from solver_cli.engine.movegen import NATIVE_BUILT

    python = pytest.param("python", marks=soak) if NATIVE_BUILT else "python"
    native = pytest.param("native", marks=pytest.mark.skipif(not NATIVE_BUILT, reason="not built"))
    return pytest.mark.parametrize("engine", [native, python], indirect=True)

"""The ``soak`` marker: the long tail of a random or differential loop, and long soaks and
fuzz runs, run by ``.ci/run`` (``pytest -m soak``) and left out of a plain ``pytest``
(``-m "not soak"`` in pyproject.toml's addopts), which keeps every kind of case but fewer of
each; see docs/testing.md."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

soak = pytest.mark.soak


def first_then_soak(values: Iterable[object], default: int) -> list[object]:
    """``values`` as parameters: the first ``default`` in every run, the rest marked soak."""
    return [value if i < default else pytest.param(value, marks=soak) for i, value in enumerate(values)]

"""Every test here runs once per move generator (see ENGINES in tests/conftest.py)."""

import pytest


@pytest.fixture(autouse=True)
def _each_engine(engine: str) -> None:
    pass

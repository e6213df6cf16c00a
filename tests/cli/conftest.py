"""Every test here runs once per move generator (see ENGINES in tests/conftest.py).

Leave tables: the tests must not depend on the values shipped in solver_cli/data/leaves
(they are retrained now and then), so the commands run here find a stand-in instead, the
same whatever ships: ``STAND_IN`` for scrabble and wwf with kjxqz, and for any other rules
none (their zeros, with the note). Values of up to 6 points either way, spread over every
leave, so that equity often orders moves otherwise than score does."""

from array import array

import pytest

from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
from solver_cli.formats import leavefile

STAND_IN = ("scrabble-kjxqz", "wwf-kjxqz")


def stand_in_values() -> array:
    # A multiplicative hash of the index: deterministic, spread out, cheap to make.
    return array("h", ((i * 2654435761 >> 9) % 1201 - 600 for i in range(TABLE_SIZE)))


@pytest.fixture(scope="session")
def stand_in_tables() -> dict[str, LeaveTable]:
    values = stand_in_values()
    return {name: LeaveTable(values, name) for name in STAND_IN}


@pytest.fixture(autouse=True)
def _each_engine(engine: str) -> None:
    pass


@pytest.fixture(autouse=True)
def _stand_in_leaves(monkeypatch, stand_in_tables) -> None:
    monkeypatch.setattr(leavefile, "shipped_tables", lambda: sorted(stand_in_tables))
    monkeypatch.setattr(leavefile, "shipped_leaves", lambda rules, lexicon: stand_in_tables.get(f"{rules}-{lexicon}"))

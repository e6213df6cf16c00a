"""Shared fixtures. No test touches the real user cache: SCRAB_CACHE_DIR points at a
session-wide temporary folder (so the full word list is built once per run); nor the
user's data folder (SCRAB_DATA_DIR: one that does not exist)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

import solver_cli
import solver_cli.api  # noqa: F401  (imported first: a test that patches a name the API imports must not bind it)
from solver_cli._data import lexicons_folder
from solver_cli.engine.movegen import NATIVE_BUILT

# Every `python -m solver_cli` a test starts (and every worker process of a --jobs run) runs
# the copy under test: the installed one in CI, whose C modules are built. PYTHONSAFEPATH
# keeps the working folder off sys.path (from the checkout it would shadow the installed
# copy with uncompiled sources) and PYTHONPATH names where the tests import the package from.
os.environ["PYTHONSAFEPATH"] = "1"
os.environ["PYTHONPATH"] = str(Path(solver_cli.__file__).resolve().parents[1])
from solver_cli.engine.rules import load_rules
from solver_cli.lexicon.build import build_gaddag

# Every test that generates moves runs on both engines (the markupsafe way): the tests under
# engine/, games/, cli/ and formats/ take the `engine` fixture through their conftest.py.
ENGINES = ["python", pytest.param("native", marks=pytest.mark.skipif(not NATIVE_BUILT, reason="not built"))]


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch) -> str:
    """The move generator under test, chosen as a user would: SCRAB_ENGINE."""
    monkeypatch.setenv("SCRAB_ENGINE", request.param)
    return request.param


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("scrab-cache")


@pytest.fixture(autouse=True)
def _isolated_cache(monkeypatch, session_cache, tmp_path_factory):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(session_cache))
    # ... nor the user's own word lists and leave tables: an empty data folder of its own.
    monkeypatch.setenv("SCRAB_DATA_DIR", str(tmp_path_factory.getbasetemp() / "scrab-data-none"))
    monkeypatch.delenv("SCRAB_LEXICON_PATH", raising=False)


@pytest.fixture(scope="session")
def full_words() -> list[str]:
    data = (lexicons_folder() / "kjxqz.txt.gz").read_bytes()
    return sorted({w.strip().upper() for w in gzip.decompress(data).decode().split() if 2 <= len(w.strip()) <= 15})


@pytest.fixture(scope="session")
def small_words(full_words) -> list[str]:
    """A few thousand real words: every 2- and 3-letter word plus a sample of longer ones,
    so random positions have many moves yet the brute-force reference stays fast."""
    short = [w for w in full_words if len(w) <= 3]
    longer = [w for w in full_words if 4 <= len(w) <= 8]
    return sorted(set(short + longer[::60]))


@pytest.fixture(scope="session")
def small_gaddag(small_words):
    return build_gaddag(small_words)


@pytest.fixture(scope="session")
def full_lexicon(session_cache):
    import os

    os.environ["SCRAB_CACHE_DIR"] = str(session_cache)
    from solver_cli.lexicon import load_lexicon

    return load_lexicon(None)


@pytest.fixture(scope="session")
def scrabble():
    return load_rules("scrabble")


@pytest.fixture(scope="session")
def wwf():
    return load_rules("wwf")

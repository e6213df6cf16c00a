"""docs/api.md is run: its examples are doctests, executed from the repository's root."""

from __future__ import annotations

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_api_page_examples(monkeypatch, full_lexicon):
    # full_lexicon: the default list is built once, into the session's test cache.
    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(
        str(ROOT / "docs" / "api.md"), module_relative=False, optionflags=doctest.ELLIPSIS, report=True
    )
    assert tried > 20
    assert failures == 0

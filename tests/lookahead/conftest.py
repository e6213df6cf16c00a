from __future__ import annotations

import pytest

from .positions import Lexicons


@pytest.fixture(scope="session")
def endgame_lexicons(small_words, small_gaddag) -> Lexicons:
    return Lexicons(small_words, small_gaddag)

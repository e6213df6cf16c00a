"""Wording shared by every message, library and command line alike."""

from __future__ import annotations


def plural(count: int, noun: str, nouns: str = "") -> str:
    """``count`` with ``noun``, in the plural unless it is exactly 1: "1 tile", "0 tiles",
    "1,598 moves"; ``nouns`` when the plural is not ``noun`` + s ("1 entry", "2 entries")."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"

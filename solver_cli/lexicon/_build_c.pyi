"""The native GADDAG builder (C); its pure-Python twin is ``solver_cli.lexicon.build``."""

MAX_LETTERS: int

class LimitError(Exception):
    """A size limit of the build was reached: ``args`` is (what, limit), what being
    "entries" (of the node array) or "prefixes" (distinct non-empty prefixes)."""

def build(words: bytes, max_entries: int, max_prefixes: int, /) -> tuple[bytes, int, int, int, int]:
    """(nodes as native uint32 bytes, root, dawg_root, states, arcs) of the minimized GADDAG of
    ``words``: sorted, unique words of 1 to MAX_LETTERS letters A-Z joined by newlines."""

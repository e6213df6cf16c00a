"""A minimized GADDAG (Gordon 1994) in one flat array of ints.

Language. For every word w = x.y with x non-empty the GADDAG spells ``rev(x) + SEP + y``
(y non-empty) and ``rev(w)`` (the whole word read backwards, accepted without a separator).
Move generation starts on an anchor square, places rev(x) leftwards, crosses the
separator and places y rightwards. (The state just after a separator is the DAWG state of x,
so its FINAL bit repeats whether x alone is a word; y must be non-empty, so no walk reads it.)

Structure. After the separator the rest of the word is any y with x.y a word, which is
exactly the right language of x's state in the forward DAWG of the word list; so every
separator arc points *into* that DAWG, and the DAWG is shared by the whole GADDAG (the
wolges/KWG idea). The part before the separator is the trie of rev(x) over all prefixes
x. Both parts are built by incremental minimization over sorted input (Daciuk et al.
2000), sharing one register of states, so the result is the minimal automaton.

Layout. ``nodes`` is one flat ``array('I')`` of uint32. A state is the offset of its header::

    nodes[s]            mask: bit 0 = separator arc, bits 1..26 = letter arcs,
                        bit 27 (FINAL) = the letters read so far spell a word
    nodes[s + 1 + k]    the child state of the k-th arc, arcs in increasing bit order

so the child on letter L is ``nodes[s + 1 + (mask & ((1 << L) - 1)).bit_count()]``: a rank
in the mask, no scan of siblings. One ``&`` of the mask with a rack or cross-check bitmask
prunes every arc at once. The cache stores the same array as raw bytes, so loading is a
``frombytes``: measured, indexing the array in the search is as fast as a list of ints
(its 7 MB for SOWPODS stay in cache better than 1.8M boxed ints), and no conversion is paid.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from solver_cli.engine.alphabet import CODE

SEP = 1  # bit of the separator arc (letter code 0)
FINAL = 1 << 27  # the header's highest bit: ``header >= FINAL`` tests it without a mask
LETTER_BITS = ((1 << 27) - 1) & ~1
# BELOW[L] masks the arcs that come before letter L, for the rank lookup.
BELOW = tuple((1 << code) - 1 for code in range(28))


class Gaddag:
    """The flat GADDAG plus the root of its shared forward DAWG."""

    __slots__ = ("nodes", "root", "dawg_root", "state_count", "arc_count", "native")

    def __init__(self, nodes: array[int], root: int, dawg_root: int, state_count: int, arc_count: int):
        self.nodes = nodes
        self.root = root
        self.dawg_root = dawg_root
        self.state_count = state_count
        self.arc_count = arc_count
        # The native engine's checked view of ``nodes`` (engine.movegen.native_lexicon), made
        # on first use. It holds the array's buffer, so the array can no longer be resized.
        self.native: Any = None

    def __getstate__(self) -> tuple[array[int], int, int, int, int]:
        # Sent to self-play's worker processes without the native view, made again there.
        return (self.nodes, self.root, self.dawg_root, self.state_count, self.arc_count)

    def __setstate__(self, state: tuple[array[int], int, int, int, int]) -> None:
        self.__init__(*state)  # type: ignore[misc]

    def child(self, state: int, code: int) -> int:
        """The state after ``code`` (0 = separator) from ``state``, or -1 if there is none."""
        nodes = self.nodes
        mask = nodes[state]
        if not mask >> code & 1:
            return -1
        return nodes[state + 1 + (mask & BELOW[code]).bit_count()]

    def arcs(self, state: int, allowed: int = LETTER_BITS) -> Iterator[tuple[int, int]]:
        """(letter code, child state) for each arc of ``state`` whose bit is in ``allowed``,
        in letter order. (The move generator inlines this loop: it is its hot path.)"""
        nodes = self.nodes
        mask = nodes[state]
        todo = mask & allowed
        while todo:
            bit = todo & -todo
            todo ^= bit
            yield bit.bit_length() - 1, nodes[state + 1 + (mask & (bit - 1)).bit_count()]

    def walk(self, state: int, codes: Iterable[int]) -> int:
        """Follow ``codes`` from ``state``; -1 as soon as an arc is missing."""
        for code in codes:
            if state < 0:
                return -1
            state = self.child(state, code)
        return state

    def is_final(self, state: int) -> bool:
        return state >= 0 and bool(self.nodes[state] & FINAL)

    def contains(self, word: str) -> bool:
        """Whether ``word`` (letters A-Z, any case) is in the lexicon, read through the DAWG."""
        try:
            codes = [CODE[ch] for ch in word.upper()]
        except KeyError:
            return False
        return bool(codes) and self.is_final(self.walk(self.dawg_root, codes))


def structure_problem(nodes: array[int], root: int, dawg_root: int) -> str | None:
    """Why ``nodes`` is not a usable GADDAG array (None when it is): the pure-Python twin of
    the native engine's check (``native/lexicon.c``, ``check_nodes``). Every state's arcs lie in
    the array and point to an earlier state (the builder lays out children first), so no walk
    reads outside the array or loops."""
    n = len(nodes)
    if n == 0:
        return "the node array is empty"
    is_state = bytearray(n)
    off = 0
    while off < n:
        header = nodes[off]
        if header >> 28:
            return "a state header has bits above the final bit"
        arcs = (header & (FINAL - 1)).bit_count()
        if arcs > n - off - 1:
            return "a state's arcs run past the end of the array"
        if arcs:
            children = nodes[off + 1 : off + 1 + arcs]
            if max(children) >= off or not all(is_state[child] for child in children):
                return "an arc points to no earlier state"
        is_state[off] = 1
        off += 1 + arcs
    if not (0 <= root < n and is_state[root] and 0 <= dawg_root < n and is_state[dawg_root]):
        return "a root is not a state"
    return None

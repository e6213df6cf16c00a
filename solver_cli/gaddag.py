"""A minimized GADDAG (Gordon 1994) in one flat array of ints.

Language. For every word w = x.y with x non-empty the GADDAG spells ``rev(x) + SEP + y``
(y non-empty) and ``rev(w)`` (the whole word read backwards, accepted without a separator).
Move generation starts on an anchor square, places rev(x) leftwards, crosses the
separator and places y rightwards. (The state just after a separator is the DAWG state of x,
so its FINAL bit repeats whether x alone is a word; y must be non-empty, so no walk reads it.)

Structure. A state reached by reading ``rev(s)`` depends only on the factor s. After the
separator the rest of the word is any y with s.y a word, which is exactly the right
language of s's state in the forward DAWG of the word list; so every separator arc points
*into* that DAWG, and the DAWG is shared by the whole GADDAG (the wolges/KWG idea). Both
parts are minimized bottom-up (children before parents, equal states registered once), so
the result is the minimal automaton of the language.

Layout. ``nodes`` is one flat list of ints. A state is the offset of its header::

    nodes[s]            mask: bit 0 = separator arc, bits 1..26 = letter arcs,
                        bit 27 (FINAL) = the letters read so far spell a word
    nodes[s + 1 + k]    the child state of the k-th arc, arcs in increasing bit order

so the child on letter L is ``nodes[s + 1 + (mask & ((1 << L) - 1)).bit_count()]``: a rank
in the mask, no scan of siblings. One ``&`` of the mask with a rack or cross-check bitmask
prunes every arc at once. The cache stores the same numbers as a uint32 array.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable

from solver_cli.alphabet import CODE

SEP = 1  # bit of the separator arc (letter code 0)
FINAL = 1 << 27
LETTER_BITS = ((1 << 27) - 1) & ~1
# BELOW[L] masks the arcs that come before letter L, for the rank lookup.
BELOW = tuple((1 << code) - 1 for code in range(28))

Progress = Callable[[str, float], None]


class Gaddag:
    """The flat GADDAG plus the root of its shared forward DAWG."""

    __slots__ = ("nodes", "root", "dawg_root", "state_count", "arc_count")

    def __init__(self, nodes: list[int], root: int, dawg_root: int, state_count: int, arc_count: int):
        self.nodes = nodes
        self.root = root
        self.dawg_root = dawg_root
        self.state_count = state_count
        self.arc_count = arc_count

    def child(self, state: int, code: int) -> int:
        """The state after ``code`` (0 = separator) from ``state``, or -1 if there is none."""
        nodes = self.nodes
        mask = nodes[state]
        if not mask >> code & 1:
            return -1
        return nodes[state + 1 + (mask & BELOW[code]).bit_count()]

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

    def to_array(self) -> array:
        return array("I", self.nodes)


def build_gaddag(words: list[str], progress: Progress | None = None) -> Gaddag:
    """Build the minimized GADDAG of ``words`` (uppercase A-Z, each of length >= 2)."""
    report = progress or (lambda phase, fraction: None)
    word_set = set(words)

    # Register of states: the serialized node (mask, child ids...) -> state id. Children
    # are registered before their parents, so equal right languages meet as equal keys.
    register: dict[tuple[int, ...], int] = {}
    states: list[tuple[int, ...]] = []

    def intern(key: tuple[int, ...]) -> int:
        sid = register.get(key)
        if sid is None:
            sid = register[key] = len(states)
            states.append(key)
        return sid

    # 1. Forward DAWG over the prefixes of the words; the prefix p's parent is p[:-1].
    report("prefixes", 0.0)
    prefix_children: dict[str, list[str]] = {"": []}
    for word in words:
        for end in range(len(word), 0, -1):
            prefix = word[:end]
            if prefix in prefix_children:
                break
            prefix_children[prefix] = []
    for prefix in prefix_children:
        if prefix:
            prefix_children[prefix[:-1]].append(prefix)
    dawg: dict[str, int] = {}
    by_length = _group_by_length(prefix_children)
    total = len(prefix_children)
    done = 0
    for group in reversed(by_length):
        for prefix in group:
            mask = FINAL if prefix in word_set else 0
            kids = prefix_children[prefix]
            if len(kids) > 1:
                kids.sort()
            ids = []
            for kid in kids:
                mask |= 1 << CODE[kid[-1]]
                ids.append(dawg[kid])
            dawg[prefix] = intern((mask, *ids))
        done += len(group)
        report("dawg", done / total)

    # 2. The left part: one state per factor s (a suffix of a prefix), reached by rev(s).
    #    Its letter arcs lead to c+s, its separator arc to the DAWG state of s.
    factor_children: dict[str, list[str]] = {"": []}
    pending = [p for p in prefix_children if p]
    for p in pending:
        factor_children[p] = []
    while pending:
        grown = []
        for s in pending:
            parent = s[1:]
            if parent not in factor_children:
                factor_children[parent] = []
                grown.append(parent)
        pending = grown
    for s in factor_children:
        if s:
            factor_children[s[1:]].append(s)
    left: dict[str, int] = {}
    by_length = _group_by_length(factor_children)
    total = len(factor_children)
    done = 0
    for group in reversed(by_length):
        for s in group:
            mask = FINAL if s in word_set else 0
            ids = []
            if s and s in prefix_children and prefix_children[s]:
                mask |= SEP
                ids.append(dawg[s])
            kids = factor_children[s]
            if len(kids) > 1:
                kids.sort()
            for kid in kids:
                mask |= 1 << CODE[kid[0]]
                ids.append(left[kid])
            left[s] = intern((mask, *ids))
        done += len(group)
        report("gaddag", done / total)

    return _flatten(states, root_id=left[""], dawg_root_id=dawg[""])


def _group_by_length(keys: Iterable[str]) -> list[list[str]]:
    groups: list[list[str]] = []
    for key in keys:
        n = len(key)
        while len(groups) <= n:
            groups.append([])
        groups[n].append(key)
    return groups


def _flatten(states: list[tuple[int, ...]], root_id: int, dawg_root_id: int) -> Gaddag:
    offsets = []
    at = 0
    for key in states:
        offsets.append(at)
        at += len(key)
    nodes = [0] * at
    for key, off in zip(states, offsets):
        nodes[off] = key[0]
        for k in range(1, len(key)):
            nodes[off + k] = offsets[key[k]]
    return Gaddag(nodes, offsets[root_id], offsets[dawg_root_id], len(states), at - len(states))


def from_array(data: array, root: int, dawg_root: int, state_count: int, arc_count: int) -> Gaddag:
    return Gaddag(data.tolist(), root, dawg_root, state_count, arc_count)

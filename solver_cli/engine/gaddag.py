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
from collections.abc import Callable, Iterable, Iterator

from solver_cli.alphabet import CODE

SEP = 1  # bit of the separator arc (letter code 0)
FINAL = 1 << 27  # the header's highest bit: ``header >= FINAL`` tests it without a mask
LETTER_BITS = ((1 << 27) - 1) & ~1
# BELOW[L] masks the arcs that come before letter L, for the rank lookup.
BELOW = tuple((1 << code) - 1 for code in range(28))

Progress = Callable[[str, float], None]


class Gaddag:
    """The flat GADDAG plus the root of its shared forward DAWG."""

    __slots__ = ("nodes", "root", "dawg_root", "state_count", "arc_count")

    def __init__(self, nodes: array, root: int, dawg_root: int, state_count: int, arc_count: int):
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

    def to_array(self) -> array:
        return self.nodes


def build_gaddag(words: list[str], progress: Progress | None = None) -> Gaddag:
    """Build the minimized GADDAG of ``words`` (sorted, unique, uppercase A-Z, length >= 2)."""
    report = progress or (lambda phase, fraction: None)

    # Register of states: the serialized node (mask, child ids...) -> state id. A node is
    # registered only once all its children are, so equal right languages meet as equal keys.
    register: dict[tuple[int, ...], int] = {}
    states: list[tuple[int, ...]] = []

    def intern(key: tuple[int, ...]) -> int:
        sid = register.get(key)
        if sid is None:
            sid = register[key] = len(states)
            states.append(key)
        return sid

    # 1. The forward DAWG of the words, remembering the state of every prefix.
    report("dawg", 0.0)
    prefix_state: dict[str, int] = {}
    dawg_root = _minimize_sorted(
        words, [FINAL] * len(words), [-1] * len(words), intern, prefix_state, lambda f: report("dawg", f)
    )

    # 2. The left part: the trie of rev(x) for every non-empty prefix x, minimized the same
    #    way. The node ending rev(x) is FINAL when x is a word and has a separator arc to
    #    the DAWG state of x when some word continues x.
    word_set = set(words)
    keyed = []
    for prefix, sid in prefix_state.items():
        if prefix:
            keyed.append((prefix[::-1], prefix, sid))
    keyed.sort()
    strings = [k[0] for k in keyed]
    flags = []
    seps = []
    for _, prefix, sid in keyed:
        continues = states[sid][0] & LETTER_BITS
        flags.append((FINAL if prefix in word_set else 0) | (SEP if continues else 0))
        seps.append(sid if continues else -1)
    root = _minimize_sorted(strings, flags, seps, intern, None, lambda f: report("gaddag", f))
    return _flatten(states, root_id=root, dawg_root_id=dawg_root)


def _minimize_sorted(
    strings: list[str],
    flags: list[int],
    seps: list[int],
    intern: Callable[[tuple[int, ...]], int],
    record: dict[str, int] | None,
    report: Callable[[float], None],
) -> int:
    """Daciuk et al.'s incremental construction of the minimal automaton of sorted
    ``strings``: keep the current string's path open; when the next string leaves it,
    the nodes below the common prefix can no longer change, so register them (bottom-up).
    The node ending ``strings[i]`` gets ``flags[i]`` and, if ``seps[i] >= 0``, a first
    child (the separator arc) ``seps[i]``. ``record``, if given, maps each prefix to its
    state. Returns the root's state id."""
    masks = [0]
    kids: list[list[int]] = [[]]
    prev = ""
    total = len(strings)
    step = max(1, total // 50)

    def close_to(depth: int) -> None:
        for d in range(len(masks) - 1, depth, -1):
            sid = intern((masks[d], *kids[d]))
            if record is not None:
                record[prev[:d]] = sid
            masks[d - 1] |= 1 << (ord(prev[d - 1]) - 64)
            kids[d - 1].append(sid)
            del masks[d], kids[d]

    for i, text in enumerate(strings):
        limit = min(len(prev), len(text))
        common = 0
        while common < limit and prev[common] == text[common]:
            common += 1
        close_to(common)
        for _ in range(common, len(text)):
            masks.append(0)
            kids.append([])
        masks[-1] = flags[i]
        if seps[i] >= 0:
            kids[-1].append(seps[i])
        prev = text
        if i % step == 0:
            report(i / total)
    close_to(0)
    root = intern((masks[0], *kids[0]))
    if record is not None:
        record[""] = root
    report(1.0)
    return root


def _flatten(states: list[tuple[int, ...]], root_id: int, dawg_root_id: int) -> Gaddag:
    offsets = []
    at = 0
    for key in states:
        offsets.append(at)
        at += len(key)
    nodes = array("I", bytes(4 * at))
    for key, off in zip(states, offsets):
        nodes[off] = key[0]
        for k in range(1, len(key)):
            nodes[off + k] = offsets[key[k]]
    return Gaddag(nodes, offsets[root_id], offsets[dawg_root_id], len(states), at - len(states))


def from_array(data: array, root: int, dawg_root: int, state_count: int, arc_count: int) -> Gaddag:
    return Gaddag(data, root, dawg_root, state_count, arc_count)

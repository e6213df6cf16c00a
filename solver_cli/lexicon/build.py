"""Building the minimized GADDAG of a word list (the reading side is ``engine.gaddag``).

Both parts of the automaton, the forward DAWG and the reversed-prefix trie whose separator
arcs point into it, are built by incremental minimization over sorted input (Daciuk et al.
2000), sharing one register of states, so the result is the minimal automaton. States are
laid out in the order they are first registered, so a state's offset in the flat
``array('I')`` (the layout is described in ``engine.gaddag``) is known when it is
registered, and its children, always registered before it, are written as offsets.

Two builders give the same node array, entry for entry: the native one (the optional C
extension ``_build_c``, compiled at install time when a compiler is there) and the
pure-Python twin in this module. The native one is used when it is built, unless the
environment variable ``SCRAB_ENGINE=python`` asks for the twin.

Every size is bounded, the same way in both builders: a list whose GADDAG would need more
than ``MAX_NODE_ENTRIES`` entries, or whose words have more than ``MAX_PREFIXES`` distinct
prefixes, is refused with a ``LexiconError`` naming the limit.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable

from solver_cli.engine.gaddag import FINAL, LETTER_BITS, SEP, Gaddag
from solver_cli.engine.movegen import ENGINE_ENV, requested_engine
from solver_cli.errors import InputError, LexiconError

try:
    # Named in full: `from solver_cli.lexicon import` would read as an import of the package,
    # which imports this module.
    import solver_cli.lexicon._build_c as _build_c

    NATIVE_BUILT = True
except ImportError:  # installed without a C compiler: the pure-Python twin does the work
    NATIVE_BUILT = False

Progress = Callable[[str, float], None]  # (phase, fraction done)

BUILDERS = ("native", "python")

MAX_WORD_LETTERS = 64  # longer than any board side (at most 26)
MAX_NODE_ENTRIES = 1 << 24  # uint32 entries of the node array: 64 MB, 9x that of SOWPODS
MAX_PREFIXES = 4_000_000  # distinct non-empty prefixes of the words: 7x SOWPODS's


def chosen_builder() -> str:
    """The builder ``build_gaddag`` uses: the engine ``SCRAB_ENGINE`` names, else native when
    it is built."""
    wanted = requested_engine()
    if wanted is None:
        return "native" if NATIVE_BUILT else "python"
    if wanted == "native" and not NATIVE_BUILT:
        raise InputError(
            f"{ENGINE_ENV}=native, but the native GADDAG builder is not built (it needs a C compiler at "
            f"install time); unset {ENGINE_ENV} or set it to python"
        )
    return wanted


def build_gaddag(words: list[str], progress: Progress | None = None, builder: str | None = None) -> Gaddag:
    """The minimized GADDAG of ``words`` (sorted, unique, uppercase A-Z, 1 to
    ``MAX_WORD_LETTERS`` letters), with ``builder`` ("native" or "python"; by default
    ``chosen_builder()``). Raises ``LexiconError`` when a size limit is reached."""
    report = progress or (lambda phase, fraction: None)
    which = builder or chosen_builder()
    longest = max(map(len, words), default=0)
    if longest > MAX_WORD_LETTERS:
        raise LexiconError(f"a word of {longest} letters: the limit is {MAX_WORD_LETTERS}")
    _check_words(words)
    try:
        if which == "native":
            return _build_native(words, report)
        if which == "python":
            return _build_python(words, report, MAX_NODE_ENTRIES, MAX_PREFIXES)
        raise ValueError(f"unknown GADDAG builder {which!r}")
    except _LimitReached as limit:
        problem = limit.message()
    except (MemoryError, SystemError):
        # SystemError: when memory runs out while a MemoryError climbs the frames, CPython may
        # fail to allocate its traceback and report "error return without exception set"
        # instead (seen with the Python builder under a capped address space).
        problem = ""  # worded below, once the failed build's frames (and all they hold) are freed
    # Raised outside the handlers: the error's context would keep the failed build alive.
    raise LexiconError(problem or _out_of_memory(which))


_WORD = re.compile(f"[A-Z]{{1,{MAX_WORD_LETTERS}}}")
_LETTERS_AND_NEWLINE = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ\n"


def _check_words(words: list[str]) -> None:
    """``LexiconError`` unless the words are what both builders take (the native one checks
    the same, ``split_words`` in _build_c.c; the Python one would build a wrong array from
    unsorted words and fail inside on others): 1 to MAX_WORD_LETTERS letters A-Z each, each
    after the one before. Checked here so that both refuse a list alike."""
    # The common case at C speed (about 30 ms for SOWPODS): only letters and the newlines
    # between words, no empty word (sorted, only the first could be), each after the last.
    try:
        joined = "\n".join(words).encode("ascii")
    except (TypeError, UnicodeEncodeError):
        joined = b"-"
    if (
        not joined.translate(None, _LETTERS_AND_NEWLINE)
        and joined.count(b"\n") == len(words) - 1
        and (not words or words[0])
        and all(map(str.__lt__, words, words[1:]))
    ):
        return
    for number, (before, word) in enumerate(zip(["", *words], words, strict=False), 1):
        if type(word) is not str or not _WORD.fullmatch(word):
            raise LexiconError(f"word {number}: {word!r} is not 1 to {MAX_WORD_LETTERS} letters A-Z")
        if word <= before:
            raise LexiconError(f"word {number}: {word} is not after {before} (the list must be sorted and unique)")


def _out_of_memory(builder: str) -> str:
    return (
        "not enough memory to build the GADDAG of this word list (a list at the size limit, "
        f"{MAX_NODE_ENTRIES:,} node entries, needs about {_MEMORY_AT_LIMIT_MB[builder]:,} MB "
        f"with the {builder} builder)"
    )


# Peak memory of a first use near both GADDAG limits, measured (265 and 1,613 MB; see
# docs/formats.md): the native builder's table of offsets against the Python one's dict of tuples.
_MEMORY_AT_LIMIT_MB = {"native": 300, "python": 1700}


class _LimitReached(Exception):
    def __init__(self, what: str, limit: int):
        super().__init__(what, limit)
        self.what = what
        self.limit = limit

    def message(self) -> str:
        if self.what == "entries":
            size = f"{self.limit:,} node entries ({self.limit * 4 // 2**20:,} MB)"
            return f"word list too big: its GADDAG would need more than {size}, the limit"
        return f"word list too big: its words have more than {self.limit:,} distinct prefixes, the limit"


def _build_native(words: list[str], report: Progress) -> Gaddag:
    report("dawg", 0.0)
    text = "\n".join(words).encode("ascii")
    try:
        blob, root, dawg_root, states, arcs = _build_c.build(text, MAX_NODE_ENTRIES, MAX_PREFIXES)
    except _build_c.LimitError as exc:
        raise _LimitReached(*exc.args) from None
    del text
    nodes = array("I")
    nodes.frombytes(blob)
    del blob
    report("gaddag", 1.0)
    return Gaddag(nodes, root, dawg_root, states, arcs)


def _build_python(words: list[str], report: Progress, max_entries: int, max_prefixes: int) -> Gaddag:
    nodes = array("I")
    # Register of states: the node (mask, child offsets...) -> its offset. A node is
    # registered only once all its children are, so equal right languages meet as equal keys.
    register: dict[tuple[int, ...], int] = {}

    def intern(key: tuple[int, ...]) -> int:
        off = register.get(key)
        if off is None:
            off = len(nodes)
            if off + len(key) > max_entries:
                raise _LimitReached("entries", max_entries)
            register[key] = off
            nodes.extend(key)
        return off

    # 1. The forward DAWG of the words, remembering the state of every non-empty prefix x,
    #    keyed by rev(x) for the second part.
    report("dawg", 0.0)
    left: list[tuple[str, int]] = []
    dawg_root = _minimize_sorted(
        words, [FINAL] * len(words), [-1] * len(words), intern, left, max_prefixes, lambda f: report("dawg", f)
    )

    # 2. The left part: the trie of rev(x) for every non-empty prefix x, minimized the same
    #    way. The node ending rev(x) is FINAL when x is a word (its DAWG state is FINAL) and
    #    has a separator arc to the DAWG state of x when some word continues x.
    left.sort()
    strings = []
    flags = []
    seps = []
    for reversed_prefix, off in left:
        mask = nodes[off]
        continues = mask & LETTER_BITS
        strings.append(reversed_prefix)
        flags.append((mask & FINAL) | (SEP if continues else 0))
        seps.append(off if continues else -1)
    del left
    root = _minimize_sorted(strings, flags, seps, intern, None, 0, lambda f: report("gaddag", f))
    return Gaddag(nodes, root, dawg_root, len(register), len(nodes) - len(register))


def _minimize_sorted(
    strings: list[str],
    flags: list[int],
    seps: list[int],
    intern: Callable[[tuple[int, ...]], int],
    record: list[tuple[str, int]] | None,
    max_record: int,
    report: Callable[[float], None],
) -> int:
    """Daciuk et al.'s incremental construction of the minimal automaton of sorted
    ``strings``: keep the current string's path open; when the next string leaves it,
    the nodes below the common prefix can no longer change, so register them (bottom-up).
    The node ending ``strings[i]`` gets ``flags[i]`` and, if ``seps[i] >= 0``, a first
    child (the separator arc) ``seps[i]``. ``record``, if given, gets (rev(x), state) for
    each non-empty prefix x, at most ``max_record`` of them. Returns the root's offset."""
    masks = [0]
    kids: list[list[int]] = [[]]
    prev = ""
    total = len(strings)
    step = max(1, total // 50)

    def close_to(depth: int) -> None:
        for d in range(len(masks) - 1, depth, -1):
            off = intern((masks[d], *kids[d]))
            if record is not None:
                if len(record) >= max_record:
                    raise _LimitReached("prefixes", max_record)
                record.append((prev[d - 1 :: -1], off))
            masks[d - 1] |= 1 << (ord(prev[d - 1]) - 64)
            kids[d - 1].append(off)
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
    report(1.0)
    return root

"""Word look-ups answered by walking the GADDAG and its forward DAWG (never the word list).

- ``board_words``: the words through one or more adjacent board letters, using rack tiles on
  either side: read the board letters reversed from the GADDAG root, extend leftwards with
  rack letters, cross the separator, extend rightwards (Gordon's walk without a board);
- ``word_hooks``: the letters that make a word before / after a word (one GADDAG state);
- ``anagrams``: the words a rack spells, with all its tiles or (``partial``) some of them;
- ``pattern_words``: the words matching ``?`` / ``*`` / literal letters, optionally only
  those whose non-literal letters a rack can supply;
- ``check_words``: membership, through the DAWG.

Blanks. A rack is 27 counts (index 0 = blanks). A result is shown with the letters played
from blanks in lowercase. Natural tiles come first: a blank stands for a letter only when the
rack has no natural tile of that letter left for it, so a word never appears with a blank
where a natural tile of the same letter sits unused in the rack (``ES`` from rack ``S?``, not
``Es``). When the rack has too few natural tiles of a letter, every choice of which of that
letter's squares the blanks take is a different result (``ESs`` and ``EsS`` from ``S?`` and a
board ``E``), because it is a different placement; results are unique by their display.

Scores are face values: the sum of the tile values under the rules, blanks 0, board letters
included. Results sort by score (high first), then length (long first), then alphabet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

from solver_cli.engine.alphabet import CODE, LETTERS, shown_char
from solver_cli.engine.gaddag import FINAL, LETTER_BITS, SEP, Gaddag
from solver_cli.errors import InputError

STAR = -1  # pattern token: any run of letters (possibly empty)
ANY = 0  # pattern token: exactly one letter


@dataclass(frozen=True)
class Found:
    """One result: the word, its display (blanks lowercase) and its face-value score."""

    word: str
    display: str
    score: int
    at: tuple[int, ...] = field(default=())  # board_words only: 0-based offsets of the board letters

    @property
    def blanks(self) -> str:
        """The letters played from blanks, in word order (uppercase)."""
        return "".join(ch.upper() for ch in self.display if ch.islower())


@dataclass(frozen=True)
class Hooks:
    word: str
    valid: bool
    front: str  # letters L such that L + word is a word, in order
    back: str  # letters L such that word + L is a word, in order

    @property
    def front_words(self) -> list[str]:
        return [ch + self.word for ch in self.front]

    @property
    def back_words(self) -> list[str]:
        return [self.word + ch for ch in self.back]


# ---------------------------------------------------------------------------- parsing input


def parse_word(text: str, what: str = "word") -> str:
    """An A-Z word (any case) as uppercase; InputError for anything else."""
    word = text.strip()
    if not word:
        raise InputError(f"{what} is empty: give letters A-Z")
    for position, ch in enumerate(word, 1):
        if not (ch.isascii() and ch.isalpha()):
            raise InputError(
                f"{what} {word!r}: bad character {shown_char(ch)} at position {position} (use letters A-Z)"
            )
    return word.upper()


def parse_board_letters(values: Iterable[str]) -> str:
    """``--letter`` values (each one or more letters) joined in order: ``["R", "E"]`` -> ``"RE"``.
    Case is kept: a lowercase letter is a blank tile on the board standing for that letter
    (as in a board file), worth 0 points."""
    parts = []
    for value in values:
        parse_word(value, "board letter")  # A-Z only
        parts.append(value.strip())
    if not parts:
        raise InputError("give at least one board letter, e.g. E")
    return "".join(parts)


def parse_pattern(text: str) -> tuple[int, ...]:
    """A pattern as tokens: a letter code, ``ANY`` for ``?``, ``STAR`` for ``*`` (runs of ``*`` merged)."""
    pattern = text.strip()
    if not pattern:
        raise InputError("pattern is empty: use letters, ? for one letter and * for any run, e.g. 'C?T*'")
    tokens: list[int] = []
    for position, ch in enumerate(pattern, 1):
        if ch == "*":
            if not tokens or tokens[-1] != STAR:
                tokens.append(STAR)
        elif ch == "?":
            tokens.append(ANY)
        elif ch.isascii() and ch.isalpha():
            tokens.append(CODE[ch.upper()])
        else:
            raise InputError(
                f"pattern {pattern!r}: bad character {shown_char(ch)} at position {position} "
                "(use letters A-Z, ? for one letter, * for any run)"
            )
    return tuple(tokens)


def check_lengths(min_length: object, max_length: object) -> None:
    """InputError unless ``min_length`` is a positive integer and ``max_length`` one or None
    (bool is an int to Python, but never a length). A minimum above the maximum is a query
    with no answer here; the public API refuses it."""
    if not isinstance(min_length, int) or isinstance(min_length, bool) or min_length < 1:
        raise InputError(f"min_length must be a positive integer, not {min_length!r}")
    if max_length is not None and (not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1):
        raise InputError(f"max_length must be a positive integer or None, not {max_length!r}")


# ---------------------------------------------------------------------------- blanks and scores


def displays(word: str, fixed: Iterable[int], rack: Sequence[int]) -> list[str]:
    """Every natural-first display of ``word`` when the squares not in ``fixed`` come from ``rack``.

    For each letter the rack lacks enough natural tiles of, exactly the missing number of
    that letter's rack squares are blanks; each choice of those squares is one display.
    Empty when the rack cannot supply the word's rack squares at all.
    """
    fixed_set = set(fixed)
    squares: dict[int, list[int]] = {}
    for i, ch in enumerate(word):
        if i not in fixed_set:
            squares.setdefault(CODE[ch], []).append(i)
    choices = []
    blanks = 0
    for code, where in squares.items():
        missing = len(where) - rack[code]
        if missing > 0:
            blanks += missing
            choices.append(list(combinations(where, missing)))
    if blanks > rack[0]:
        return []
    out = []
    for combo in product(*choices):
        chars = list(word)
        for group in combo:
            for i in group:
                chars[i] = chars[i].lower()
        out.append("".join(chars))
    return out


def face_score(display: str, values: Sequence[int]) -> int:
    """Sum of the values of the uppercase (natural) letters; lowercase letters are blanks, 0."""
    return sum(values[CODE[ch]] for ch in display if ch.isupper())


def sort_key(found: Found) -> tuple[int, int, str, str]:
    return (-found.score, -len(found.word), found.word, found.display)


def _finish(hits: dict[str, tuple[str, set[int]]], values: Sequence[int], with_at: bool = False) -> list[Found]:
    results = [
        Found(word, display, face_score(display, values), tuple(sorted(at)) if with_at else ())
        for display, (word, at) in hits.items()
    ]
    results.sort(key=sort_key)
    return results


def _rack_bits(rack: Sequence[int]) -> int:
    bits = 0
    for code in range(1, 27):
        if rack[code]:
            bits |= 1 << code
    return bits


def _word(codes: Iterable[int]) -> str:
    return "".join(LETTERS[c - 1] for c in codes)


# ---------------------------------------------------------------------------- the queries


def board_words(
    gaddag: Gaddag,
    board: str,
    rack: Sequence[int],
    values: Sequence[int],
    min_length: int = 2,
    max_length: int | None = None,
) -> list[Found]:
    """Words containing ``board`` (adjacent board letters; a lowercase one is a blank on the
    board, shown lowercase and worth 0) once as board tiles, the other letters from ``rack``
    (at least one rack tile), blanks standing for any letter."""
    check_lengths(min_length, max_length)
    run = [CODE[ch.upper()] for ch in board]
    natural = board.upper()
    board_blanks = [i for i, ch in enumerate(board) if ch.islower()]
    limit = 99 if max_length is None else max_length
    g = gaddag.nodes
    start = gaddag.walk(gaddag.root, reversed(run))
    hits: dict[str, tuple[str, set[int]]] = {}
    if start < 0 or len(run) > limit:
        return []
    counts = list(rack)
    tiles_left = sum(counts)
    left: list[int] = []  # rack letters placed leftwards, nearest the board letters first
    right: list[int] = []

    def record() -> None:
        length = len(left) + len(run) + len(right)
        if length < min_length:
            return
        word = _word(reversed(left)) + natural + _word(right)
        offset = len(left)
        fixed = range(offset, offset + len(run))
        for display in displays(word, fixed, rack):
            if board_blanks:
                chars = list(display)
                for i in board_blanks:
                    chars[offset + i] = chars[offset + i].lower()
                display = "".join(chars)
            entry = hits.get(display)
            if entry is None:
                hits[display] = (word, {offset})
            else:
                entry[1].add(offset)

    def arcs(bits: int) -> int:
        """Letters the rack can supply: any with a blank left, else those it holds."""
        return LETTER_BITS if counts[0] else bits

    def take(code: int, bits: int) -> tuple[int, int]:
        """Use a natural tile if there is one, else a blank: (index used, new rack bits)."""
        if counts[code]:
            counts[code] -= 1
            return code, bits if counts[code] else bits & ~(1 << code)
        counts[0] -= 1
        return 0, bits

    def go_right(state: int, bits: int, room: int) -> None:
        for code, child in gaddag.arcs(state, arcs(bits)):
            used, next_bits = take(code, bits)
            right.append(code)
            if g[child] & FINAL:
                record()
            if room > 1 and sum(counts) > 0:
                go_right(child, next_bits, room - 1)
            right.pop()
            counts[used] += 1

    def go_left(state: int, bits: int, room: int) -> None:
        mask = g[state]
        if left and mask & FINAL:
            record()  # the word ends with the board letters
        if room <= 0 or not sum(counts):
            return
        if mask & SEP:
            go_right(g[state + 1], bits, room)
        for code, child in gaddag.arcs(state, arcs(bits)):
            used, next_bits = take(code, bits)
            left.append(code)
            go_left(child, next_bits, room - 1)
            left.pop()
            counts[used] += 1

    if tiles_left:
        go_left(start, _rack_bits(rack), limit - len(run))
    return _finish(hits, values, with_at=True)


def word_hooks(gaddag: Gaddag, word: str) -> Hooks:
    """Front and back hooks of ``word`` (uppercase A-Z), whether or not it is a word itself."""
    g = gaddag.nodes
    codes = [CODE[ch] for ch in word]
    # After reading rev(word) from the GADDAG root, the child on L has read rev(L + word), so
    # it is FINAL iff L + word is a word; the separator leads to word's forward DAWG state,
    # whose child on L is FINAL iff word + L is a word.
    state = gaddag.walk(gaddag.root, reversed(codes))
    if state < 0:
        return Hooks(word, False, "", "")
    valid = bool(g[state] & FINAL)
    front = _final_arcs(gaddag, state)
    back = _final_arcs(gaddag, g[state + 1]) if g[state] & SEP else ""
    return Hooks(word, valid, front, back)


def _final_arcs(gaddag: Gaddag, state: int) -> str:
    """The letters whose arc from ``state`` ends a word."""
    g = gaddag.nodes
    return "".join(LETTERS[code - 1] for code, child in gaddag.arcs(state) if g[child] & FINAL)


def anagrams(
    gaddag: Gaddag,
    rack: Sequence[int],
    values: Sequence[int],
    partial: bool = False,
    min_length: int = 2,
    max_length: int | None = None,
) -> list[Found]:
    """Words spelt by all the rack's tiles, or (``partial``) by some of them."""
    if not isinstance(partial, bool):
        raise InputError(f"partial must be True or False, not {partial!r}")
    check_lengths(min_length, max_length)
    g = gaddag.nodes
    total = sum(rack)
    limit = total if max_length is None else min(total, max_length)
    low = min_length if partial else max(min_length, total)
    if low > limit:
        return []
    counts = list(rack)
    path: list[int] = []
    hits: dict[str, tuple[str, set[int]]] = {}

    def walk(state: int, bits: int) -> None:
        for code, child in gaddag.arcs(state, LETTER_BITS if counts[0] else bits):
            if counts[code]:
                counts[code] -= 1
                used, next_bits = code, bits if counts[code] else bits & ~(1 << code)
            else:
                counts[0] -= 1
                used, next_bits = 0, bits
            path.append(code)
            if len(path) >= low and g[child] & FINAL:
                word = _word(path)
                for display in displays(word, (), rack):
                    hits[display] = (word, set())
            if len(path) < limit:
                walk(child, next_bits)
            path.pop()
            counts[used] += 1

    if total:
        walk(gaddag.dawg_root, _rack_bits(rack))
    return _finish(hits, values)


def pattern_words(
    gaddag: Gaddag,
    tokens: Sequence[int],
    values: Sequence[int],
    rack: Sequence[int] | None = None,
) -> list[Found]:
    """Words matching the pattern ``tokens`` (see ``parse_pattern``). With ``rack``, only the
    words whose letters matched by ``?`` and ``*`` the rack can supply (blanks for any letter);
    literal letters are taken as given (board tiles) and always shown uppercase.

    The pattern is run as an NFA alongside the DAWG walk: each path carries the *set* of
    pattern positions (with the rack tiles left, when there is a rack) it can be at, so a word
    is read once however many ways its letters can be split among the stars. Steps between
    sets are memoised per letter, and a (DAWG state, set) pair found to lead to no word is
    never walked again, so the work is bounded by the automaton and the answers, not by the
    number of alignments (exponential in the stars before)."""
    g = gaddag.nodes
    n = len(tokens)
    start: Configs = _closure(tokens, {(0, tuple(rack) if rack is not None else None)})
    steps: dict[tuple[Configs, int], Configs] = {}
    allowed_of: dict[Configs, int] = {}
    dead: set[tuple[int, Configs]] = set()
    path: list[int] = []
    words: list[str] = []

    def allowed(configs: Configs) -> int:
        """The letters some configuration can read next."""
        bits = allowed_of.get(configs)
        if bits is None:
            bits = 0
            for j, left in configs:
                if j == n:
                    continue
                token = tokens[j]
                if token > 0:
                    bits |= 1 << token
                elif left is None or left[0]:
                    bits |= LETTER_BITS
                else:
                    bits |= _rack_bits(left)
            allowed_of[configs] = bits
        return bits

    def step(configs: Configs, code: int) -> Configs:
        key = (configs, code)
        after = steps.get(key)
        if after is None:
            out: set[Config] = set()
            for j, left in configs:
                if j == n:
                    continue
                token = tokens[j]
                if token > 0:
                    if token == code:
                        out.add((j + 1, left))
                    continue
                if left is not None:  # natural tile first, else a blank
                    used = code if left[code] else 0 if left[0] else -1
                    if used < 0:
                        continue
                    left = left[:used] + (left[used] - 1,) + left[used + 1 :]
                out.add((j if token == STAR else j + 1, left))
            after = steps[key] = _closure(tokens, out)
        return after

    def walk(state: int, configs: Configs) -> bool:
        """Record the words below ``state``; whether there was any."""
        if (state, configs) in dead:
            return False
        found = False
        if path and g[state] & FINAL and any(j == n for j, _ in configs):
            words.append(_word(path))
            found = True
        for code, child in gaddag.arcs(state, allowed(configs)):
            after = step(configs, code)
            if after:
                path.append(code)
                found = walk(child, after) or found
                path.pop()
        if not found:
            dead.add((state, configs))
        return found

    walk(gaddag.dawg_root, start)
    hits: dict[str, tuple[str, set[int]]] = {}
    for word in words:
        if rack is None:
            hits[word] = (word, set())
            continue
        for literal in _literal_sets(word, tokens):
            for display in displays(word, literal, rack):
                hits[display] = (word, set())
    return _finish(hits, values)


Config = tuple[int, tuple[int, ...] | None]  # (pattern position, rack tiles left or None)
Configs = frozenset[Config]


def _closure(tokens: Sequence[int], configs: Iterable[Config]) -> Configs:
    """Add the positions after each ``*`` reached (a star may match no letter)."""
    out = set(configs)
    todo = list(out)
    while todo:
        j, left = todo.pop()
        if j < len(tokens) and tokens[j] == STAR and (j + 1, left) not in out:
            out.add((j + 1, left))
            todo.append((j + 1, left))
    return frozenset(out)


def _literal_sets(word: str, tokens: Sequence[int]) -> set[frozenset[int]]:
    """The distinct sets of word positions matched by literal letters, over every way the
    word matches (each set is a different choice of board tiles, so of blanks)."""
    codes = [CODE[ch] for ch in word]
    memo: dict[tuple[int, int], frozenset[frozenset[int]]] = {}

    def match(i: int, j: int) -> frozenset[frozenset[int]]:
        key = (i, j)
        if key in memo:
            return memo[key]
        out: set[frozenset[int]] = set()
        if j == len(tokens):
            if i == len(codes):
                out.add(frozenset())
        elif tokens[j] == STAR:
            out |= match(i, j + 1)
            if i < len(codes):
                out |= match(i + 1, j)
        elif i < len(codes):
            if tokens[j] == ANY:
                out |= match(i + 1, j + 1)
            elif tokens[j] == codes[i]:
                out |= {rest | {i} for rest in match(i + 1, j + 1)}
        memo[key] = frozenset(out)
        return memo[key]

    return set(match(0, 0))


def check_words(gaddag: Gaddag, words: Iterable[str]) -> list[tuple[str, bool]]:
    """(word, is it in the lexicon) for each uppercase word, read through the DAWG."""
    return [(word, gaddag.contains(word)) for word in words]

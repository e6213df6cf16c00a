"""Word look-ups (``solver_cli.lexicon.lookup``) and their commands (``hooks``, ``anagram``, ``pattern``,
``check``).

The library walks the GADDAG; every query is checked against a brute-force scan of the word
list written here independently: the blank rule ("natural tiles first; each choice of squares
for the blanks is its own result") is restated as a filter over every subset of rack squares
that could be blanks, and pattern alignments are enumerated by a plain recursive matcher.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from itertools import combinations

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver_cli.cli import cli
from solver_cli.engine.alphabet import parse_rack
from solver_cli.errors import InputError
from solver_cli.lexicon import lookup

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
BAG = "AAAAAAAAABBCCDDDDEEEEEEEEEEEEFFGGGHHIIIIIIIIIJKLLLLMMNNNNNNOOOOOOOOPPQRRRRRRSSSSTTTTTTUUUUVVWWXYYZ"
HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------ brute-force references


def counts_of(rack: str) -> list[int]:
    counts = [0] * 27
    for ch in rack:
        counts[0 if ch == "?" else ord(ch) - 64] += 1
    return counts


def ref_displays(word: str, fixed: set[int], rack: str) -> set[str]:
    """Every display of ``word`` whose squares outside ``fixed`` come from ``rack``: try every
    set B of rack squares as the blanks; keep it if the other rack squares fit the natural
    tiles and no blank in B stands for a letter the rack still has a natural tile of."""
    have = Counter(rack)
    squares = [i for i in range(len(word)) if i not in fixed]
    need = Counter(word[i] for i in squares)
    if sum(max(0, n - have[ch]) for ch, n in need.items()) > have["?"]:
        return set()  # quick exit: not enough tiles even with every blank
    out = set()
    for k in range(min(have["?"], len(squares)) + 1):
        for blanks in combinations(squares, k):
            natural = Counter(word[i] for i in squares if i not in blanks)
            if any(natural[ch] > have[ch] for ch in natural):
                continue
            if any(natural[word[i]] < have[word[i]] for i in blanks):
                continue  # a natural tile of this letter was left unused
            out.add("".join(ch.lower() if i in blanks else ch for i, ch in enumerate(word)))
    return out


def face(display: str, values) -> int:
    return sum(values[ord(ch) - 64] for ch in display if ch.isupper())


def ordered(entries, values):
    """(word, display, score[, at]) rows in the documented order."""
    rows = [(word, d, face(d, values), *rest) for d, (word, *rest) in entries.items()]
    return sorted(rows, key=lambda r: (-r[2], -len(r[0]), r[0], r[1]))


def ref_board(words, board, rack, values, min_length=2, max_length=99):
    tiles = len(rack)
    hits: dict[str, tuple[str, set]] = {}
    for word in words:
        if board not in word or not (min_length <= len(word) <= max_length):
            continue
        if not len(board) < len(word) <= len(board) + tiles:
            continue
        for at in range(len(word) - len(board) + 1):
            if word[at : at + len(board)] != board:
                continue
            for d in ref_displays(word, set(range(at, at + len(board))), rack):
                hits.setdefault(d, (word, set()))[1].add(at)
    return [(w, d, s, tuple(sorted(at))) for w, d, s, at in ordered(hits, values)]


def ref_anagrams(words, rack, values, partial=False, min_length=2, max_length=99):
    hits = {}
    for word in words:
        if len(word) > len(rack) or not (min_length <= len(word) <= max_length):
            continue
        if not partial and len(word) != len(rack):
            continue
        for d in ref_displays(word, set(), rack):
            hits[d] = (word,)
    return ordered(hits, values)


def alignments(word: str, pattern: str, i: int = 0, j: int = 0) -> list[set[int]]:
    """The sets of word positions matched by literal pattern letters, one per way of matching."""
    if j == len(pattern):
        return [set()] if i == len(word) else []
    p = pattern[j]
    if p == "*":
        out = alignments(word, pattern, i, j + 1)
        if i < len(word):
            out += alignments(word, pattern, i + 1, j)
        return out
    if i == len(word) or (p != "?" and p != word[i]):
        return []
    rest = alignments(word, pattern, i + 1, j + 1)
    return [s | {i} for s in rest] if p != "?" else rest


def ref_pattern(words, pattern, values, rack=None):
    regex = re.compile("".join(".*" if c == "*" else "." if c == "?" else c for c in pattern))
    hits = {}
    for word in words:
        if not regex.fullmatch(word):
            continue
        if rack is None:
            hits[word] = (word,)
            continue
        if len(word) - sum(c.isalpha() for c in pattern) > len(rack):
            continue  # more non-literal letters than tiles
        # "**" matches what "*" matches; one star keeps the enumeration small
        for fixed in {frozenset(a) for a in alignments(word, re.sub(r"[*]+", "*", pattern))}:
            for d in ref_displays(word, fixed, rack):
                hits[d] = (word,)
    return ordered(hits, values)


def got(results, with_at=False):
    return [(f.word, f.display, f.score, *((f.at,) if with_at else ())) for f in results]


def random_rack(rng: random.Random, blanks: int, size: int) -> str:
    blanks = min(blanks, size)
    return "".join(rng.sample(BAG, size - blanks)) + "?" * blanks


racks = (
    st.tuples(st.lists(st.sampled_from(BAG), min_size=0, max_size=7), st.integers(0, 2))
    .map(lambda t: "".join(t[0][: 7 - t[1]]) + "?" * t[1])
    .filter(bool)
)


# ------------------------------------------------------------------ the blank rule itself


def test_displays_prefer_natural_tiles_and_list_each_choice_of_squares():
    assert sorted(lookup.displays("ESS", {0}, counts_of("S?"))) == ["ESs", "EsS"]
    assert lookup.displays("ES", {0}, counts_of("S?")) == ["ES"]  # never "Es"
    assert lookup.displays("ES", {0}, counts_of("?")) == ["Es"]
    assert lookup.displays("ESSS", {0}, counts_of("S?")) == []  # one S short
    assert sorted(lookup.displays("AA", set(), counts_of("A?"))) == ["Aa", "aA"]
    assert lookup.displays("AA", set(), counts_of("AA?")) == ["AA"]


def test_reference_displays_agree_on_examples():
    assert ref_displays("ESS", {0}, "S?") == {"ESs", "EsS"}
    assert ref_displays("ES", {0}, "S?") == {"ES"}
    assert ref_displays("ESSS", {0}, "S?") == set()


# ------------------------------------------------------------------ differential: small lexicon


@HYPO
@given(rack=racks, seed=st.integers(0, 10**6), run=st.integers(1, 3))
def test_board_words_match_brute_force(small_gaddag, small_words, scrabble, rack, seed, run):
    rng = random.Random(seed)
    word = rng.choice(small_words)
    start = rng.randrange(len(word))
    board = word[start : start + run] if rng.random() < 0.8 else rng.choice(LETTERS)
    result = lookup.board_words(small_gaddag, board, counts_of(rack), scrabble.values)
    assert got(result, with_at=True) == ref_board(small_words, board, rack, scrabble.values)


def test_board_words_seeded_with_lengths(small_gaddag, small_words, scrabble):
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        rack = random_rack(rng, rng.choice((0, 1, 1, 2)), rng.randint(1, 7))
        board = rng.choice(LETTERS) if rng.random() < 0.6 else rng.choice(small_words)[:2]
        lo, hi = rng.randint(2, 5), rng.randint(3, 9)
        expected = ref_board(small_words, board, rack, scrabble.values, lo, hi)
        result = lookup.board_words(small_gaddag, board, counts_of(rack), scrabble.values, lo, hi)
        assert got(result, with_at=True) == expected, (board, rack, lo, hi)
        checked += bool(expected)
    assert checked > 50  # the queries were not all empty


@HYPO
@given(rack=racks, partial=st.booleans())
def test_anagrams_match_brute_force(small_gaddag, small_words, scrabble, rack, partial):
    result = lookup.anagrams(small_gaddag, counts_of(rack), scrabble.values, partial)
    assert got(result) == ref_anagrams(small_words, rack, scrabble.values, partial)


def test_anagrams_seeded_with_lengths(small_gaddag, small_words, scrabble):
    rng = random.Random(11)
    nonempty = 0
    for _ in range(150):
        rack = random_rack(rng, rng.choice((0, 1, 2)), rng.randint(2, 7))
        partial = rng.random() < 0.7
        lo, hi = rng.randint(2, 4), rng.randint(2, 7)
        expected = ref_anagrams(small_words, rack, scrabble.values, partial, lo, hi)
        result = lookup.anagrams(small_gaddag, counts_of(rack), scrabble.values, partial, lo, hi)
        assert got(result) == expected, (rack, partial, lo, hi)
        nonempty += bool(expected)
    assert nonempty > 50


def random_pattern(rng: random.Random, words: list[str]) -> str:
    """Usually a word with some letters replaced by ? and some runs by *, so it matches."""
    if rng.random() < 0.2:
        return "".join(rng.choice("??*ABCDEIOSTRN") for _ in range(rng.randint(1, 5)))
    word = rng.choice(words)
    out, i = [], 0
    while i < len(word):
        r = rng.random()
        if r < 0.2:
            out.append("*")
            i += rng.randint(0, 2)
        elif r < 0.5:
            out.append("?")
            i += 1
        else:
            out.append(word[i])
            i += 1
    if rng.random() < 0.3:
        out.append("*")
    return "".join(out)


@HYPO
@given(seed=st.integers(0, 10**6), rack=st.none() | racks)
def test_patterns_match_brute_force(small_gaddag, small_words, scrabble, seed, rack):
    pattern = random_pattern(random.Random(seed), small_words)
    tokens = lookup.parse_pattern(pattern)
    counts = None if rack is None else counts_of(rack)
    result = lookup.pattern_words(small_gaddag, tokens, scrabble.values, counts)
    assert got(result) == ref_pattern(small_words, pattern, scrabble.values, rack), (pattern, rack)


def test_patterns_seeded(small_gaddag, small_words, scrabble):
    rng = random.Random(3)
    nonempty = 0
    for _ in range(150):
        pattern = random_pattern(rng, small_words)
        rack = random_rack(rng, rng.choice((0, 1, 2)), rng.randint(1, 7)) if rng.random() < 0.6 else None
        expected = ref_pattern(small_words, pattern, scrabble.values, rack)
        result = lookup.pattern_words(
            small_gaddag, lookup.parse_pattern(pattern), scrabble.values, None if rack is None else counts_of(rack)
        )
        assert got(result) == expected, (pattern, rack)
        nonempty += bool(expected)
    assert nonempty > 50


def test_pattern_star_alone_lists_every_word(small_gaddag, small_words, scrabble):
    result = lookup.pattern_words(small_gaddag, lookup.parse_pattern("**"), scrabble.values)
    assert sorted(f.word for f in result) == small_words


@HYPO
@given(seed=st.integers(0, 10**6))
def test_hooks_and_check_match_brute_force(small_gaddag, small_words, seed):
    rng = random.Random(seed)
    words = set(small_words)
    word = rng.choice(small_words)
    # the word itself, a prefix, a suffix, or random letters
    candidates = [word, word[:-1], word[1:], "".join(rng.choice(LETTERS) for _ in range(rng.randint(1, 4)))]
    for w in candidates:
        if not w:
            continue
        h = lookup.word_hooks(small_gaddag, w)
        assert h.valid == (w in words)
        assert h.front == "".join(c for c in LETTERS if c + w in words)
        assert h.back == "".join(c for c in LETTERS if w + c in words)
    assert lookup.check_words(small_gaddag, candidates[:3]) == [(w, w in words) for w in candidates[:3]]


# ------------------------------------------------------------------ the full word list


def test_full_list_differential(full_lexicon, full_words, scrabble):
    g, values = full_lexicon.gaddag, scrabble.values
    for board, rack in (("E", "AEIRST?"), ("RE", "ST?"), ("Q", "UI??"), ("ZA", "EKNRS")):
        expected = ref_board(full_words, board, rack, values)
        assert expected
        assert got(lookup.board_words(g, board, counts_of(rack), values), with_at=True) == expected
    for rack, partial in (("AEINRST", False), ("QUIZ?", True), ("AE?", True), ("ERT??", False)):
        expected = ref_anagrams(full_words, rack, values, partial)
        assert expected
        assert got(lookup.anagrams(g, counts_of(rack), values, partial)) == expected
    for pattern, rack in (("C?T*", "AS?"), ("*QU?Z*", None), ("?X?", None), ("*ING", "RST?")):
        expected = ref_pattern(full_words, pattern, values, rack)
        assert expected
        counts = None if rack is None else counts_of(rack)
        assert got(lookup.pattern_words(g, lookup.parse_pattern(pattern), values, counts)) == expected


def test_hand_checked_examples(full_lexicon, scrabble):
    g = full_lexicon.gaddag
    care = lookup.word_hooks(g, "CARE")
    assert care.valid and "S" in care.front and set("DRS") <= set(care.back)
    assert {"SCARE"} <= set(care.front_words) and {"CARED", "CARER", "CARES"} <= set(care.back_words)
    assert lookup.check_words(g, ["QI", "QX", "ZA"]) == [("QI", True), ("QX", False), ("ZA", True)]
    # not a word, but it still has hooks: QUIZZED QUIZZER QUIZZES
    assert lookup.word_hooks(g, "QUIZZE") == lookup.Hooks("QUIZZE", False, "", "DRS")
    assert lookup.word_hooks(g, "XYZZYQ") == lookup.Hooks("XYZZYQ", False, "", "")
    # Q through a board letter I with rack Q: only QI, 10 + 1 points
    assert got(lookup.board_words(g, "I", counts_of("Q"), scrabble.values), True) == [("QI", "QI", 11, (1,))]
    # a blank never replaces a natural tile the rack still has
    es = [f.display for f in lookup.board_words(g, "E", counts_of("S?"), scrabble.values) if f.word in ("ES", "ESS")]
    assert sorted(es) == ["ES", "ESs", "EsS"]
    # the RETAINS anagrams
    words = {f.word for f in lookup.anagrams(g, counts_of("RETAINS"), scrabble.values)}
    assert {"RETAINS", "RETINAS", "STAINER", "STEARIN", "NASTIER", "RATINES", "ANESTRI"} <= words


def test_sorting_is_score_then_length_then_alphabet(full_lexicon, scrabble):
    results = lookup.anagrams(full_lexicon.gaddag, counts_of("QUIZ?S"), scrabble.values, partial=True)
    keys = [(-f.score, -len(f.word), f.word) for f in results]
    assert keys == sorted(keys) and len(results) > 20
    # QUIZ 22 first; then 13-point five-letter words before 13-point four-letter ones, A-Z
    assert [f.display for f in results[:4]] == ["QUIZ", "QUaIS", "QUaSI", "QUIdS"]
    # within one score, longer words come first
    for score in {f.score for f in results}:
        lengths = [len(f.word) for f in results if f.score == score]
        assert lengths == sorted(lengths, reverse=True)


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "text, message",
    [("", "pattern is empty"), ("   ", "pattern is empty"), ("C4T", "bad character '4' at position 2"), ("A.B", "'.'")],
)
def test_bad_patterns(text, message):
    with pytest.raises(InputError, match=re.escape(message)):
        lookup.parse_pattern(text)


def test_pattern_tokens():
    assert lookup.parse_pattern("c?t**") == (3, lookup.ANY, 20, lookup.STAR)


def test_bad_words_and_board_letters():
    with pytest.raises(InputError, match="bad character '1'"):
        lookup.parse_word("Q1")
    with pytest.raises(InputError, match="empty"):
        lookup.parse_word("")
    with pytest.raises(InputError, match="board letter"):
        lookup.parse_board_letters(["R", "?"])
    assert lookup.parse_board_letters(["R", "E"]) == "RE" == lookup.parse_board_letters(["RE"])
    # a lowercase board letter is a blank on the board, as in a board file: the case is kept
    assert lookup.parse_board_letters(["r", "E"]) == "rE" == lookup.parse_board_letters([" rE "])


@pytest.mark.parametrize("board, rack", [("e", "AEIRST?"), ("rE", "ST?"), ("Re", "ST?"), ("za", "EKNRS")])
def test_board_words_through_a_blank_on_the_board(full_lexicon, full_words, scrabble, board, rack):
    """A blank on the board spells the same words as the natural tile, shown lowercase there
    and worth 0: the brute-force reference for the natural letters, with those changes."""
    natural = ref_board(full_words, board.upper(), rack, scrabble.values)
    expected = []
    for word, display, score, at in natural:
        for offset in at:  # each place the board letters can sit is one way to show the word
            chars = list(display)
            lost = 0
            for i, ch in enumerate(board):
                if ch.islower():
                    chars[offset + i] = chars[offset + i].lower()
                    lost += scrabble.values[ord(ch.upper()) - 64]
            expected.append((word, "".join(chars), score - lost, offset))
    result = lookup.board_words(full_lexicon.gaddag, board, counts_of(rack), scrabble.values)
    assert expected and result
    shown = {(f.word, f.display, f.score, offset) for f in result for offset in f.at}
    assert shown == set(expected)
    assert all(f.score == lookup.face_score(f.display, scrabble.values) for f in result)
    keys = [(-f.score, -len(f.word), f.word, f.display) for f in result]
    assert keys == sorted(keys)
    with pytest.raises(InputError, match="has 8 tiles"):
        parse_rack("ABCDEFG?", 7)


# ------------------------------------------------------------------ the commands


@pytest.fixture(scope="module")
def runner(full_lexicon):  # the default list, built once into the test cache
    return CliRunner()


def run(runner, *args, code=0):
    result = runner.invoke(cli, list(args))
    assert result.exit_code == code, (result.stdout, result.stderr)
    return result


def run_json(runner, *args, code=0):
    result = run(runner, *args, "--json", code=code)
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_check_text_json_and_exit_status(runner):
    ok = run(runner, "check", "qi", "ZA")
    assert ok.stdout.splitlines() == ["QI  valid", "ZA  valid"]
    bad = run(runner, "check", "QI", "QX", code=1)
    assert bad.stdout.splitlines() == ["QI  valid", "QX  not in kjxqz"]
    data = run_json(runner, "check", "QI", "QX", code=1)
    assert data == {
        "lexicon": "kjxqz",
        "words": [{"word": "QI", "valid": True}, {"word": "QX", "valid": False}],
        "all_valid": False,
    }
    assert run_json(runner, "check", "QI")["all_valid"] is True


def test_hooks_of_words(runner):
    data = run_json(runner, "hooks", "care", "QUIZZ")
    assert isinstance(data, list) and [d["word"] for d in data] == ["CARE", "QUIZZ"]
    care = data[0]
    assert care["valid"] is True and "S" in care["front"] and {"D", "R", "S"} <= set(care["back"])
    assert "SCARE" in care["front_words"] and "CARES" in care["back_words"]
    assert data[1]["valid"] is False
    out = run(runner, "hooks", "CARE").stdout
    assert "CARE" in out and "DRS" in out and "yes" in out and "Front" in out


def test_hooks_through_board_letters(runner):
    data = run_json(runner, "hooks", "--letter", "R", "--letter", "E", "--rack", "st?", "--all")
    assert data["letters"] == "RE" and data["rack"] == "ST?" and data["lexicon"] == "kjxqz"
    assert data["rules"] == "scrabble" and data["total"] == len(data["words"]) > 10
    for w in data["words"]:
        assert set(w) == {"word", "display", "score", "length", "blanks", "board_at"}
        assert w["display"].upper() == w["word"] and "RE" in w["word"]
        assert all(w["word"][a : a + 2] == "RE" for a in w["board_at"])
        assert w["blanks"] == "".join(c.upper() for c in w["display"] if c.islower())
    keys = [(-w["score"], -w["length"], w["word"]) for w in data["words"]]
    assert keys == sorted(keys)
    same = run_json(runner, "hooks", "--letter", "RE", "--rack", "ST?", "--all")
    assert same == data
    top = run_json(runner, "hooks", "--letter", "E", "--rack", "AEIRST?", "--top", "3", "--max-length", "5")
    assert len(top["words"]) == 3 and top["total"] > 3 and all(w["length"] <= 5 for w in top["words"])
    text = run(runner, "hooks", "--letter", "E", "--rack", "AEIRST?", "--top", "3").stdout
    assert "3 of " in text and "through E for rack AEIRST?" in text
    assert top_display(runner) in text


def top_display(runner):
    return run_json(runner, "hooks", "--letter", "E", "--rack", "AEIRST?", "--top", "1")["words"][0]["display"]


def test_anagram_and_pattern_commands(runner, full_lexicon, scrabble):
    data = run_json(runner, "anagram", "retains")
    assert data["rack"] == "AEINRST" and data["partial"] is False and data["total"] == len(data["words"])
    assert all(w["length"] == 7 for w in data["words"]) and "RETINAS" in {w["word"] for w in data["words"]}
    part = run_json(runner, "anagram", "QI?", "--partial")
    # QIs and QI both score 11: the longer word first
    assert part["partial"] is True and [w["display"] for w in part["words"][:3]] == ["QIs", "QI", "aI"]
    expected = got(lookup.anagrams(full_lexicon.gaddag, counts_of("QI?"), scrabble.values, True))
    assert [(w["word"], w["display"], w["score"]) for w in part["words"]] == expected
    text = run(runner, "anagram", "QI?", "--partial", "--top", "2").stdout
    assert "2 of 19 words using some of IQ?" in text and "QIs" in text and "aI" not in text
    pat = run_json(runner, "pattern", "C?T*", "--rack", "AS?")
    assert pat["pattern"] == "C?T*" and pat["rack"] == "AS?"
    assert ("CATS", "CATS", 6) in [(w["word"], w["display"], w["score"]) for w in pat["words"]]
    assert all(re.fullmatch("C.T.*", w["word"]) for w in pat["words"])
    capped = run_json(runner, "pattern", "*ING")  # 100 results unless --top or --all
    everything = run_json(runner, "pattern", "*ING", "--all")
    assert capped["total"] == everything["total"] == len(everything["words"]) > 100
    assert capped["words"] == everything["words"][:100]
    assert len(run_json(runner, "pattern", "*ING", "--top", "7")["words"]) == 7
    assert run(runner, "pattern", "*ING").stdout.startswith(f"100 of {everything['total']:,} words matching *ING")
    q = run_json(runner, "pattern", "q?")
    assert q["rack"] is None and [w["word"] for w in q["words"]] == ["QI"]
    assert "No word matching QZ" in run(runner, "pattern", "QZ").stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["anagram", "AB1"], "rack 'AB1': bad character '1' at position 3"),
        (["anagram", "ABCDEFGH"], "has 8 tiles; a rack holds at most 7"),
        (["hooks", "--letter", "E", "--rack", "A1"], "bad character '1'"),
        (["hooks", "--letter", "E", "--rack", "ABCDEFG?"], "has 8 tiles"),
        (["pattern", ""], "pattern is empty"),
        (["pattern", "C-T"], "bad character '-'"),
        (["pattern", "C?T", "--rack", "AB3"], "bad character '3'"),
        (["check", "Q1"], "word 'Q1': bad character '1'"),
        (["hooks", "CA7"], "bad character '7'"),
        (["hooks"], "give one or more WORDs"),
        (["hooks", "--letter", "E"], "--letter needs --rack"),
        (["hooks", "CARE", "--letter", "E", "--rack", "A"], "not both"),
        (["hooks", "CARE", "--rack", "A"], "--rack applies only with --letter"),
        (["hooks", "CARE", "--all"], "--all applies only with --letter"),
        (["hooks", "--letter", "5", "--rack", "A"], "board letter '5'"),
        (["hooks", "--letter", "E", "--rack", "A", "--min-length", "6", "--max-length", "3"], "more than --max-length"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runner, args, message):
    result = runner.invoke(cli, args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], lines


def test_check_needs_a_word(runner):
    result = runner.invoke(cli, ["check"])
    assert result.exit_code == 2 and "Missing argument" in result.stderr


# ------------------------------------------------------------------ many stars (issue #15, item 10)

MANY_STARS = ["*?*?*?*?*", "*A*E*I*", "?*?*?*?*?*?*?", "*S*S*", "*?*A*?*E*?*"]


@pytest.mark.parametrize("pattern", MANY_STARS)
@pytest.mark.parametrize("rack", [None, "AEST?", "ST??"])
def test_patterns_with_many_stars_match_brute_force(small_gaddag, small_words, scrabble, pattern, rack):
    counts = None if rack is None else counts_of(rack)
    result = lookup.pattern_words(small_gaddag, lookup.parse_pattern(pattern), scrabble.values, counts)
    assert got(result) == ref_pattern(small_words, pattern, scrabble.values, rack), (pattern, rack)


def test_patterns_with_many_stars_do_not_blow_up_on_the_full_list(tmp_path):
    """Matching is linear in the automaton walked, not exponential in the stars: a pattern of
    fifteen stars answers like one star does. (Before, '*?*?*?*?*' took 109 s; this one would
    not have finished.) The timeout catches a hang; it is not a speed test."""
    import os
    import subprocess
    import sys

    for letters, extra in ((15, []), (7, ["--rack", "AEIRST?"])):
        proc = subprocess.run(
            [sys.executable, "-m", "solver_cli", "pattern", "*?" * letters + "*", "--json", "--top", "3", *extra],
            capture_output=True,
            text=True,
            timeout=240,
            env=dict(os.environ),
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        data = json.loads(proc.stdout)
        assert data["total"] > 0 and all(len(w["word"]) >= letters for w in data["words"])

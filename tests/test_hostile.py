"""Hostile input and faults: fuzzed boards, racks, word lists and look-ups through the CLI,
odd boards, damaged caches, killed and concurrent builds, exit codes and streams.

Every case ends either with a correct result (exit 0, the right answer on stdout, only
``Warning: `` lines on stderr) or with an error (a non-zero exit, nothing on stdout, one
``Error: `` line on stderr) and never with a traceback, a hang or a broken cache.

The fuzz tests run in-process through Click's CliRunner with a small word list (about 2,000
real words, built in a fraction of a second); the cache, kill, concurrency and huge-file
cases run the real ``scrab`` as subprocesses. Hypothesis is derandomized: every run tries
the same cases.
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import pickle
import pty
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st
from soak import examples

from solver_cli._data import lexicons_folder
from solver_cli.cli import cli
from solver_cli.engine.board import Board
from solver_cli.engine.ranking import solve
from solver_cli.engine.rules import load_rules
from solver_cli.engine.unseen import valuation_for
from solver_cli.lexicon.build import build_gaddag

pytestmark = pytest.mark.scaled  # its fuzz tests: a sixth of their cases, all in the soak step

# --------------------------------------------------------------------------- shared data

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SIZE = 15
RACK_SIZE = 7
MAX_WORD = 15
SCRABBLE = load_rules("scrabble")


def _shipped_words(name: str = "kjxqz") -> list[str]:
    data = (lexicons_folder() / f"{name}.txt.gz").read_bytes()
    return sorted(
        {w.strip().upper() for w in gzip.decompress(data).decode().split() if 2 <= len(w.strip()) <= MAX_WORD}
    )


ALL_WORDS = _shipped_words()
# Every 2- and 3-letter word and a sample of longer ones: many moves, a tiny GADDAG.
SMALL_WORDS = sorted(set([w for w in ALL_WORDS if len(w) <= 3] + [w for w in ALL_WORDS if 4 <= len(w) <= 8][::250]))
SMALL_SET = frozenset(SMALL_WORDS)
SMALL_GADDAG = build_gaddag(SMALL_WORDS)
# A list whose GADDAG takes a couple of seconds to build: for the kill and progress tests.
MEDIUM_WORDS = sorted(set(ALL_WORDS[::3]) | SMALL_SET)
_GADDAGS: dict[str, object] = {}


def medium_gaddag():
    if "medium" not in _GADDAGS:
        _GADDAGS["medium"] = build_gaddag(MEDIUM_WORDS)
    return _GADDAGS["medium"]


RUNNER = CliRunner()

FUZZ = {
    "derandomize": True,
    "database": None,
    "deadline": None,
    "print_blob": False,
    "suppress_health_check": list(HealthCheck),
}


@pytest.fixture(scope="module")
def small_list(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lists") / "small.txt"
    path.write_text("# a small test list\n" + "\n".join(SMALL_WORDS) + "\n")
    return path


@pytest.fixture(scope="module")
def medium_list(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lists") / "medium.txt"
    path.write_text("\n".join(MEDIUM_WORDS) + "\n")
    return path


def grid_board(grid: list[str]) -> Board:
    """A Board from rows of '.', 'A'-'Z' and 'a'-'z' (blanks), encoded here, not by the parser."""
    squares = []
    for row in grid:
        for ch in row:
            if ch == ".":
                squares.append(0)
            elif ch.isupper():
                squares.append(ord(ch) - 64)
            else:
                squares.append((ord(ch) - 96) | 32)
    return Board(len(grid), len(grid[0]), squares)


def place(grid: list[str], word: str, row: int, col: int, down: bool) -> list[str]:
    cells = [list(r) for r in grid]
    for k, ch in enumerate(word):
        r, c = (row + k, col) if down else (row, col + k)
        if r < len(cells) and c < len(cells[0]):
            cells[r][c] = ch
    return ["".join(r) for r in cells]


EMPTY_GRID = ["." * SIZE] * SIZE
# A sane position: two crossing words from the small list through the centre.
SANE_GRID = place(place(EMPTY_GRID, "CAT", 7, 6, False), "BAD", 6, 7, True)
assert {"CAT", "BAD"} <= SMALL_SET


def rack_counts(rack: str) -> list[int]:
    counts = [0] * 27
    for ch in rack:
        if ch == "?":
            counts[0] += 1
        else:
            counts[ord(ch.upper()) - 64] += 1
    return counts


def rack_display(rack: str) -> str:
    return "".join(sorted(ch.upper() for ch in rack if ch != "?")) + "?" * rack.count("?")


def expected_solution(grid: list[str], rack: str, top: int | None, gaddag=SMALL_GADDAG, rules=SCRABBLE):
    """(total, [(position, word, score)...]) from the library called directly, ranked by
    score as the commands here ask (--rank score: exchanges and the pass follow the plays)."""
    board, counts = grid_board(grid), rack_counts(rack)
    solution = solve(board, counts, gaddag, rules, limit=top, valuation=valuation_for(board, counts, rules, None))
    return solution.total, [(m.position, m.word, m.score) for m in solution.moves]


def json_moves(data: dict) -> tuple[int, list[tuple[str, str, int]]]:
    return data["total_moves"], [(m["position"], m["word"], m["score"]) for m in data["moves"]]


def board_text(grid: list[str]) -> str:
    return "\n".join(grid) + "\n"


# --------------------------------------------------------------------------- result checks


def describe(result) -> str:
    exc = result.exception
    trace = ""
    if exc is not None and not isinstance(exc, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(exc))[-3000:]
    return f"exit={result.exit_code} stdout={result.stdout[:1500]!r} stderr={result.stderr[:1500]!r} {trace}"


def no_crash(result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), describe(result)
    assert "Traceback" not in result.output, describe(result)


def stderr_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def assert_error(result, code: int = 2, *, warnings: bool = False, usage: bool = False, contains=()) -> str:
    """Exit ``code``, nothing on stdout, one ``Error: `` line on stderr (the last one). With
    ``warnings``, ``Warning: `` lines may come before it; with ``usage``, Click's usage lines."""
    no_crash(result)
    assert result.exit_code == code, describe(result)
    assert result.stdout == "", describe(result)
    lines = stderr_lines(result.stderr)
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], describe(result)
    for line in lines[:-1]:
        ok = (warnings and line.startswith("Warning: ")) or (usage and line.startswith(("Usage: ", "Try ")))
        assert ok, describe(result)
    for part in contains:
        assert part in errors[0], describe(result)
    return errors[0]


def assert_json(result, *, quiet: bool = False) -> dict:
    """Exit 0, one valid JSON document on stdout, only warnings (or, if ``quiet``, nothing) on stderr."""
    no_crash(result)
    assert result.exit_code == 0, describe(result)
    if quiet:
        assert result.stderr == "", describe(result)
    for line in stderr_lines(result.stderr):
        assert line.startswith("Warning: "), describe(result)
    return json.loads(result.stdout)


def invoke(args: list[str], input=None):
    result = RUNNER.invoke(cli, args, input=input)
    if currently_in_test_context():
        event(f"exit {result.exit_code}")  # shown by --hypothesis-show-statistics
    return result


# =========================================================================== 1. fuzzing

# --- racks -------------------------------------------------------------------------------

RACK_CHARS = st.one_of(
    st.sampled_from(LETTERS + LETTERS.lower()),
    st.sampled_from("??"),
    st.sampled_from("0123456789 \t-_*.#/'\"é߃ΩЖ字ǅＡ\u00a0\u200b\x00\x07\x1b\x7f\x85\u2028\ufeff\n"),
    st.characters(codec="utf-8"),
)


CLEAN_RACK_CHARS = st.sampled_from(LETTERS + LETTERS.lower() + "?")
RACKS = st.one_of(st.text(CLEAN_RACK_CHARS, max_size=9), st.text(RACK_CHARS, max_size=10))


@settings(max_examples=examples(3000), **FUZZ)
@given(rack=RACKS, as_json=st.booleans())
def test_fuzz_racks(small_list, rack, as_json):
    args = ["solve", "--rank", "score", "-", f"--rack={rack}", "--lexicon", str(small_list), "--top", "5"]
    result = invoke(args + (["--json"] if as_json else []), input=board_text(SANE_GRID))
    stripped = rack.strip()
    valid = (
        bool(stripped)
        and len(stripped) <= RACK_SIZE
        and all(ch == "?" or (ch.isascii() and ch.isalpha()) for ch in stripped)
    )
    if rack != stripped and result.exit_code != 0:
        assert_error(result)  # surrounding whitespace may be refused, with one clear line
        return
    if not valid:
        assert_error(result, contains=("rack",))
        return
    if not as_json:
        no_crash(result)
        assert result.exit_code == 0, describe(result)
        assert rack_display(stripped) in result.stdout
        return
    data = assert_json(result)
    assert data["rack"] == rack_display(stripped)
    assert json_moves(data) == expected_solution(SANE_GRID, stripped, 5)


# --- board files: valid boards in every benign format, and targeted damage ----------------

# Characters that cannot stand for a square, none of them a line break of any kind.
BAD_SQUARE_CHARS = st.one_of(
    st.sampled_from(
        "0123456789-_*+/\\|,;:!?@$%&()[]{}<>'\"`~=^ \tÉéßÑΩЖ字ǅＡａ\u00a0\u200b\x01\x07\x1b\x7f\u00ad\ufffd"
    ),
    st.characters(codec="utf-8", exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00.#").filter(
        lambda ch: not ("A" <= ch <= "Z" or "a" <= ch <= "z")
    ),
)
COMMENT_TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00"), max_size=30
)


@st.composite
def grids(draw) -> list[str]:
    grid = list(EMPTY_GRID)
    if draw(st.booleans()):  # real words, perhaps overlapping, perhaps off the centre
        for _ in range(draw(st.integers(0, 4))):
            word = draw(st.sampled_from(SMALL_WORDS))
            down = draw(st.booleans())
            row, col = draw(st.integers(0, SIZE - 1)), draw(st.integers(0, SIZE - 1))
            if draw(st.booleans()):
                word = "".join(ch.lower() if draw(st.integers(0, 9)) == 0 else ch for ch in word)
            grid = place(grid, word, row, col, down)
    else:  # scattered tiles, blanks among them
        tiles = draw(
            st.dictionaries(
                st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
                st.sampled_from(LETTERS + LETTERS[:6].lower()),
                max_size=14,
            )
        )
        for (row, col), ch in tiles.items():
            grid = place(grid, ch, row, col, False)
    return grid


@st.composite
def layouts(draw, grid: list[str]):
    """The grid as a board file in some benign format: (physical lines, line number of each row,
    newline, BOM). Comments, blank and whitespace-only lines, trailing blanks, CRLF."""
    lines: list[str] = []
    row_line: list[int] = []
    for row in grid:
        for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
            lines.append(
                draw(
                    st.one_of(
                        st.just(""),
                        st.sampled_from([" ", "\t", "  \t "]),
                        COMMENT_TEXT.map(lambda t: "#" + t),
                        COMMENT_TEXT.map(lambda t: "  # " + t),
                    )
                )
            )
        lines.append(row + draw(st.sampled_from(["", "", "", " ", "\t", " \t  "])))
        row_line.append(len(lines))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    final = draw(st.sampled_from([newline, newline, ""]))
    return lines, row_line, newline, bom, final


def render(lines: list[str], newline: str, bom: str, final: str) -> str:
    return bom + newline.join(lines) + final


VALID_RACKS = st.text(st.sampled_from(LETTERS + LETTERS.lower() + "?"), min_size=1, max_size=RACK_SIZE).filter(
    lambda r: r.count("?") <= 2
)


@settings(max_examples=examples(2000), **FUZZ)
@given(data=st.data())
def test_fuzz_board_files(tmp_path, small_list, data):
    grid = data.draw(grids())
    lines, row_line, newline, bom, final = data.draw(layouts(grid))
    damage = data.draw(st.sampled_from(["none", "none", "none", "badchar", "ragged", "rows", "encoding"]))
    expect_line = None
    if damage == "badchar":
        r = data.draw(st.integers(0, SIZE - 1))
        c = data.draw(st.integers(0, SIZE - 1))
        ch = data.draw(BAD_SQUARE_CHARS)
        i = row_line[r] - 1
        lines[i] = lines[i][:c] + ch + lines[i][c + 1 :]
        expect_line = row_line[r]
    elif damage == "ragged":
        r = data.draw(st.integers(0, SIZE - 1))
        i = row_line[r] - 1
        row = grid[r]
        if data.draw(st.booleans()):
            row = row[: data.draw(st.integers(1, SIZE - 1))]
        else:
            row += data.draw(st.text(st.sampled_from(".ABCxyz"), min_size=1, max_size=5))
        lines[i] = row
        expect_line = row_line[r]
    elif damage == "rows":
        i = row_line[data.draw(st.integers(0, SIZE - 1))] - 1
        if data.draw(st.booleans()):
            del lines[i]
        else:
            lines.insert(i, lines[i].rstrip())
    text = render(lines, newline, bom, final)
    raw = text.encode("utf-8")
    if damage == "encoding":
        raw = data.draw(
            st.sampled_from(
                [
                    text.encode("utf-16"),
                    text.encode("utf-16-le"),
                    ("# caf\u00e9\n" + text).encode("latin-1", errors="replace"),
                    raw[: len(raw) // 2] + b"\xff\xfe" + raw[len(raw) // 2 :],
                    raw[:40] + b"\x00" + raw[40:],
                ]
            )
        )
    rack = data.draw(VALID_RACKS)
    via_stdin = data.draw(st.booleans())
    if via_stdin:
        board_arg, stdin = "-", raw
    else:
        board_arg, stdin = str(tmp_path / "board.txt"), None
        Path(board_arg).write_bytes(raw)
    result = invoke(
        ["solve", "--rank", "score", board_arg, f"--rack={rack}", "--lexicon", str(small_list), "--top", "4", "--json"],
        input=stdin,
    )
    if damage == "none":
        data_out = assert_json(result)
        assert json_moves(data_out) == expected_solution(grid, rack, 4)
        assert data_out["board"] == ("<stdin>" if via_stdin else board_arg)
        return
    message = assert_error(result)
    if expect_line is not None:
        assert f"line {expect_line}" in message, (message, text)
    if not via_stdin:
        assert board_arg in message


# --- board files: anything at all ---------------------------------------------------------

BOARDISH = st.text(st.sampled_from(".ABCXYZabq#/ 0123456789\n\r\t?;-" + "\u00e9\ufeff\x00\x0c"), max_size=300)


@st.composite
def cgp_like(draw) -> str:
    """CGP-shaped lines, well-formed or not: row specs, racks, scores, zero-turns, opcodes."""
    rows = []
    for _ in range(draw(st.integers(0, 17))):
        tokens = draw(
            st.lists(
                st.one_of(
                    st.integers(0, 16).map(str), st.sampled_from("ABZabz"), st.sampled_from(["", ".", "-1", "9" * 30])
                ),
                max_size=8,
            )
        )
        rows.append("".join(tokens))
    fields = ["/".join(rows)]
    fields.append("/".join(draw(st.lists(st.text(st.sampled_from("AEIRST?zq1 "), max_size=9), max_size=3))))
    fields.append(
        "/".join(
            draw(
                st.lists(
                    st.one_of(st.integers(-500, 500).map(str), st.sampled_from(["x", "", "1.5", "9" * 40])), max_size=3
                )
            )
        )
    )
    fields.append(draw(st.sampled_from(["0", "3", "-1", "x", "9" * 40, ""])))
    fields.append(draw(st.sampled_from(["", "lex NWL20;", "lex;", "bb x;", "bb 3;", "a; a;", "lex X", ";"])))
    return " ".join(fields[: draw(st.integers(1, 5))])


@settings(max_examples=examples(3000), **FUZZ)
@given(
    content=st.one_of(st.binary(max_size=400), BOARDISH, st.text(max_size=200), cgp_like()),
    via_stdin=st.booleans(),
    rack_option=st.booleans(),
)
def test_fuzz_arbitrary_board_content(tmp_path, small_list, content, via_stdin, rack_option):
    raw = content if isinstance(content, bytes) else content.encode("utf-8")
    if via_stdin:
        board_arg, stdin = "-", raw
    else:
        board_arg, stdin = str(tmp_path / "board.txt"), None
        Path(board_arg).write_bytes(raw)
    args = ["solve", "--rank", "score", board_arg, "--lexicon", str(small_list), "--top", "3", "--json"]
    if rack_option:
        args.append("--rack=AEST?")
    result = invoke(args, input=stdin)
    if result.exit_code == 0:
        data = assert_json(result)
        assert isinstance(data["moves"], list) and data["total_moves"] >= len(data["moves"])
    else:
        assert_error(result, usage=True)


# --- word lists ---------------------------------------------------------------------------

WORD_LINES = st.one_of(
    st.sampled_from(SMALL_WORDS[::7]).map(str.lower),
    st.sampled_from(SMALL_WORDS[::5]),
    st.sampled_from(SMALL_WORDS[::11]).map(str.title),
    st.sampled_from(
        [
            "caf\u00e9",
            "na\u00efve",
            "\u00fcber",
            "stra\u00dfe",
            "don't",
            "rock'n'roll",
            "x-ray",
            "co-op",
            "q\u0131",
            "\uff21\uff22",
        ]
    ),
    st.sampled_from(["a", "Z", "ab", "zz", "ABCDEFGHIJKLMNO", "ABCDEFGHIJKLMNOP", "abc1", "1234", "a b", "\t", ""]),
    st.integers(16, 3000).map(lambda n: "ab" * (n // 2)),  # very long words: dropped
    st.integers(100, 3000).map(lambda n: "x?" * n),  # very long junk: skipped
    st.sampled_from(["ca\x00t", "\x00", "qi\x00", "\x00\x00\x00\x00"]),
    st.text(st.sampled_from("abcXYZ"), min_size=2, max_size=6).map(lambda w: "  " + w + "\t "),
    st.text(max_size=12).map(lambda t: "#" + t.replace("\n", " ").replace("\r", " ")),
    st.text(st.characters(codec="utf-8", exclude_characters="\n\ufeff"), max_size=8),
)


def oracle_words(raw: bytes) -> tuple[set[str], int]:
    """The words a list holds by the README (one word per line, any case, surrounding blanks
    trimmed, blank lines and # comments ignored, other lines skipped and counted, words of
    2..15 letters kept), and the skip count."""
    words = set()
    skipped = 0
    for line in raw.split(b"\n"):
        text = line.decode("utf-8", errors="replace").strip()
        if not text or text.startswith("#"):
            continue
        if not re.fullmatch(r"[A-Za-z]+", text):
            skipped += 1
        elif 2 <= len(text) <= MAX_WORD:
            words.add(text.upper())
    return words, skipped


@settings(max_examples=examples(1500), **FUZZ)
@given(
    lines=st.lists(WORD_LINES, max_size=40),
    newline=st.sampled_from(["\n", "\r\n"]),
    encoding=st.sampled_from(["utf-8", "utf-8", "utf-8", "latin-1", "gzip"]),
)
def test_fuzz_word_lists(tmp_path, monkeypatch, lines, newline, encoding):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    text = newline.join(lines) + newline
    raw = text.encode("latin-1", errors="replace") if encoding == "latin-1" else text.encode("utf-8")
    words, skipped = oracle_words(raw)
    plain = raw
    if encoding == "gzip":
        raw = gzip.compress(raw)
    path = tmp_path / "words.txt"  # one name for every list: the cache must tell them apart
    path.write_bytes(raw)
    result = invoke(["pattern", "--json", "--all", "--lexicon", str(path), "--", "*"])
    if result.exit_code != 0 and b"\x00" in plain:
        assert_error(result, warnings=True, contains=(str(path),))  # NUL bytes: may be refused as binary
        return
    if not words:
        assert_error(result, warnings=True, contains=("no usable words",))
        return
    data = assert_json(result)
    found = [w["word"] for w in data["words"]]
    assert sorted(found) == sorted(words) and data["total"] == len(words)
    warnings = stderr_lines(result.stderr)
    if skipped:
        assert len(warnings) == 1 and str(skipped) in warnings[0], (warnings, skipped)
    else:
        assert warnings == []


# --- the look-up commands -----------------------------------------------------------------

PATTERN_CHARS = st.one_of(
    st.sampled_from("??**" + LETTERS[:8] + "aeiqsz"),
    st.sampled_from(" \t.-_#0[]()+^$\\|{}é\x00\u00a0"),
)


def lenient(raw: str):
    """(stripped text, whether surrounding whitespace makes an error acceptable too)."""
    stripped = raw.strip()
    return stripped, stripped != raw


@settings(max_examples=examples(1500), **FUZZ)
@given(
    pattern=st.one_of(
        st.text(st.sampled_from("??**" + LETTERS[:8] + "aeiqsz"), max_size=8), st.text(PATTERN_CHARS, max_size=9)
    )
)
def test_fuzz_pattern(small_list, pattern):
    result = invoke(["pattern", "--json", "--all", "--lexicon", str(small_list), "--", pattern])
    stripped, either = lenient(pattern)
    if either and result.exit_code != 0:
        assert_error(result)
        return
    if not stripped or any(not (ch in "?*" or (ch.isascii() and ch.isalpha())) for ch in stripped):
        assert_error(result, contains=("pattern",))
        return
    regex = re.compile("".join("[A-Z]" if ch == "?" else "[A-Z]*" if ch == "*" else ch.upper() for ch in stripped))
    data = assert_json(result, quiet=True)
    want = sorted(w for w in SMALL_WORDS if regex.fullmatch(w))
    assert sorted(w["word"] for w in data["words"]) == want and data["total"] == len(want)


def fits(word: str, counts: list[int]) -> bool:
    short = 0
    for letter in set(word):
        short += max(0, word.count(letter) - counts[ord(letter) - 64])
    return short <= counts[0]


@settings(max_examples=examples(1500), **FUZZ)
@given(rack=RACKS, partial=st.booleans())
def test_fuzz_anagram(small_list, rack, partial):
    result = invoke(
        ["anagram", "--json", "--all", "--lexicon", str(small_list)] + (["--partial"] if partial else []) + ["--", rack]
    )
    stripped, either = lenient(rack)
    if either and result.exit_code != 0:
        assert_error(result)
        return
    if (
        not stripped
        or len(stripped) > RACK_SIZE
        or any(not (ch == "?" or (ch.isascii() and ch.isalpha())) for ch in stripped)
    ):
        assert_error(result, contains=("rack",))
        return
    counts = rack_counts(stripped)
    n = len(stripped)
    want = {w for w in SMALL_WORDS if (len(w) <= n if partial else len(w) == n) and fits(w, counts)}
    data = assert_json(result, quiet=True)
    assert {w["word"] for w in data["words"]} == want


@settings(max_examples=examples(1000), **FUZZ)
@given(
    words=st.lists(
        st.one_of(
            st.sampled_from(SMALL_WORDS[::3]), st.text(PATTERN_CHARS.filter(lambda c: c not in "?*"), max_size=5)
        ),
        min_size=1,
        max_size=3,
    )
)
def test_fuzz_hooks(small_list, words):
    result = invoke(["hooks", "--json", "--lexicon", str(small_list), "--", *words])
    cleaned = [lenient(w) for w in words]
    if any(either for _, either in cleaned) and result.exit_code != 0:
        assert_error(result)
        return
    if any(not w or not all(ch.isascii() and ch.isalpha() for ch in w) for w, _ in cleaned):
        assert_error(result, contains=("word",))
        return
    data = assert_json(result, quiet=True)
    assert len(data) == len(words)
    for entry, (w, _) in zip(data, cleaned, strict=False):
        w = w.upper()
        assert entry["word"] == w
        assert entry["valid"] == (w in SMALL_SET)
        assert "".join(entry["front"]) == "".join(ch for ch in LETTERS if ch + w in SMALL_SET)
        assert "".join(entry["back"]) == "".join(ch for ch in LETTERS if w + ch in SMALL_SET)


# --- targeted hostile inputs --------------------------------------------------------------


def solve_args(board: str, *extra: str, lexicon: Path) -> list[str]:
    return ["solve", "--rank", "score", board, "--lexicon", str(lexicon), *extra]


def test_control_character_in_a_row_is_reported_at_its_line_and_column(tmp_path, small_list):
    """Vertical tab, form feed, the ASCII separators, NEL and the Unicode line/paragraph
    separators are not line breaks in a board file: each is a bad square, reported where it is."""
    path = tmp_path / "board.txt"
    for ch in ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]:
        grid = list(SANE_GRID)
        grid[4] = grid[4][:6] + ch + grid[4][7:]
        path.write_text("# header\n" + board_text(grid), encoding="utf-8")
        result = invoke(solve_args(str(path), "--rack", "AB", lexicon=small_list))
        assert_error(result, contains=(str(path), "line 6", "column 7", f"U+{ord(ch):04X}"))


def test_control_characters_inside_a_comment_keep_it_a_comment(tmp_path, small_list):
    """A comment line is everything up to the newline: a form feed or an ASCII separator in it
    does not turn the rest of the comment into board rows."""
    expected = expected_solution(SANE_GRID, "AEST", 5)
    for ch in ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]:
        path = tmp_path / "board.txt"
        path.write_text(f"# exported{ch}abcdefghijklmno\n" + board_text(SANE_GRID), encoding="utf-8")
        result = invoke(solve_args(str(path), "--rack", "AEST", "--top", "5", "--json", lexicon=small_list))
        assert json_moves(assert_json(result)) == expected, repr(ch)


def test_very_long_line_is_refused_quickly(tmp_path, small_list):
    path = tmp_path / "long.txt"
    path.write_text("." * 999_000 + "\n" + board_text(EMPTY_GRID))
    started = time.monotonic()
    result = invoke(solve_args(str(path), "--rack", "AB", lexicon=small_list))
    assert_error(result, contains=("line 1",))
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("rack", ["???????", "??", "ZZZZZZZ", "qqqqqqq", "a?b?c?d"])
def test_many_blanks_and_impossible_racks_still_solve_correctly(small_list, rack):
    result = invoke(
        ["solve", "--rank", "score", "-", f"--rack={rack}", "--lexicon", str(small_list), "--top", "10", "--json"],
        input=board_text(SANE_GRID),
    )
    data = assert_json(result)
    assert data["rack"] == rack_display(rack)
    assert json_moves(data) == expected_solution(SANE_GRID, rack, 10)


def scrab(*args: str, env: dict | None = None, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "solver_cli", *args],
        capture_output=True,
        text=True,
        env=env if env is not None else dict(os.environ),
        timeout=timeout,
        **kwargs,
    )


def assert_proc_error(proc: subprocess.CompletedProcess, code: int = 2, contains=()) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == code, (proc.returncode, proc.stderr[-3000:])
    assert proc.stdout == ""
    lines = stderr_lines(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr[-3000:]
    for part in contains:
        assert part in lines[0], lines[0]
    return lines[0]


def assert_proc_json(proc: subprocess.CompletedProcess, *, quiet: bool = False) -> dict:
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    if quiet:
        assert proc.stderr == "", proc.stderr
    for line in stderr_lines(proc.stderr):
        assert line.startswith("Warning: "), proc.stderr
    return json.loads(proc.stdout)


def cap_memory(megabytes: int):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (megabytes * 2**20, megabytes * 2**20))

    return limit


def test_huge_board_file_is_refused_quickly_without_reading_it(tmp_path, small_list):
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(100 * 2**20)
    started = time.monotonic()
    # Under an 80 MB address-space limit, reading the 100 MB file whole would fail.
    proc = scrab(
        "solve", "--rank", "score", str(big), "--rack", "AB", "--lexicon", str(small_list), preexec_fn=cap_memory(80)
    )
    assert time.monotonic() - started < 5
    assert_proc_error(proc, contains=(str(big),))


def test_endless_or_huge_board_streams_are_refused_without_reading_them_whole(small_list):
    proc = scrab("solve", "--rank", "score", "/dev/zero", "--rack", "AB", "--lexicon", str(small_list), timeout=20)
    assert_proc_error(proc, contains=("/dev/zero",))
    # 100 MB on stdin: scrab stops reading early, so the writer meets a closed pipe.
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "solver_cli",
            "solve",
            "--rank",
            "score",
            "-",
            "--rack",
            "AB",
            "--lexicon",
            str(small_list),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    written = 0
    chunk = b"." * 2**20
    try:
        for _ in range(100):
            child.stdin.write(chunk)
            written += len(chunk)
        child.stdin.close()
    except BrokenPipeError:
        pass
    out, err = child.communicate(timeout=30)
    assert written < 100 * 2**20
    assert child.returncode == 2 and out == b"" and b"Traceback" not in err
    assert len(stderr_lines(err.decode())) == 1


@pytest.mark.parametrize(
    "content",
    [
        bytes(range(256)) * 4,
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
        b"\x00" * 4096,
        gzip.compress(board_text(SANE_GRID).encode()),
        b"\xff\xfe" + board_text(SANE_GRID).encode("utf-16-le"),
        b"\x7fELF\x02\x01\x01" + bytes(200),
    ],
    ids=["bytes", "png", "nul", "gzip", "utf16", "elf"],
)
def test_binary_board_files_are_refused_with_one_line(tmp_path, small_list, content):
    path = tmp_path / "board.bin"
    path.write_bytes(content)
    started = time.monotonic()
    proc = scrab("solve", "--rank", "score", str(path), "--rack", "AB", "--lexicon", str(small_list))
    assert time.monotonic() - started < 10
    assert_proc_error(proc, contains=(str(path),))


def test_board_arguments_that_are_not_files(tmp_path, small_list):
    for arg in [
        str(tmp_path),
        str(tmp_path / "missing.txt"),
        "",
        " ",
        "a/b",
        "15/15 AB",
        str(tmp_path / "x" / "y.txt"),
    ]:
        result = invoke(solve_args(arg, "--rack", "AB", lexicon=small_list))
        assert_error(result, usage=True)


def test_very_long_arguments_are_a_clear_error(small_list):
    """A name longer than the OS allows (ENAMETOOLONG) is still bad input, not a crash."""
    long_cgp = "/".join(["15"] * 15) + " AB/ 0/0 0 lex " + "L" * 300 + ";"
    cases = [
        ["solve", "--rank", "score", "board-" + "x" * 300 + ".txt", "--rack", "AB", "--lexicon", str(small_list)],
        ["solve", "--rank", "score", "1" * 300 + "/15 AB/ 0/0 0", "--lexicon", str(small_list)],
        ["solve", "--rank", "score", long_cgp, "--lexicon", str(small_list)],
        ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", "words-" + "y" * 300 + ".txt"],
        ["anagram", "AB", "--lexicon", "words-" + "y" * 300],
        [
            "solve",
            "--rank",
            "score",
            "-",
            "--rack",
            "AB",
            "--lexicon",
            str(small_list),
            "--rules",
            "rules-" + "z" * 300 + ".toml",
        ],
        [
            "solve",
            "--rank",
            "score",
            "-",
            "--rack",
            "AB",
            "--lexicon",
            str(small_list),
            "--rules",
            "rules-" + "z" * 300,
        ],
    ]
    crashed = []
    for args in cases:
        result = invoke(args, input=board_text(SANE_GRID))
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            crashed.append(f"{' '.join(a[:24] for a in args)}: {result.exception!r}")
            continue
        if result.exit_code == 0:  # the long CGP string is a fine position
            assert_json(invoke(args + ["--json"]))
        else:
            assert_error(result)
    assert crashed == []


@pytest.mark.parametrize("where", ["board-row", "score", "zero-turns"])
def test_cgp_with_enormous_numbers_is_a_clear_error(tmp_path, small_list, where):
    digits = "9" * 5000
    rows = ["15"] * 15
    scores, zero = "0/0", "0"
    if where == "board-row":
        rows[3] = digits
    elif where == "score":
        scores = f"{digits}/0"
    else:
        zero = digits
    path = tmp_path / "position.cgp"
    path.write_text(f"{'/'.join(rows)} AEST/ {scores} {zero}\n")
    result = invoke(solve_args(str(path), lexicon=small_list))
    if where == "board-row":
        assert_error(result, contains=(str(path),))
    else:  # a huge score or count is odd but harmless; refusing it is fine too
        if result.exit_code != 0:
            assert_error(result, contains=(str(path),))
        else:
            no_crash(result)


def test_rules_file_with_enormous_integer_is_a_clear_error(tmp_path, small_list):
    text = (resources.files("solver_cli.data") / "rules" / "scrabble.toml").read_text()
    path = tmp_path / "huge.toml"
    path.write_text(text.replace("bingo_bonus = 50", "bingo_bonus = " + "9" * 5000))
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", str(small_list), "--rules", str(path)],
        input=board_text(SANE_GRID),
    )
    if result.exit_code != 0:
        assert_error(result, contains=(str(path),))
    else:
        no_crash(result)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\x01\x02",
        b"layout = 3",
        b"\xff\xfe\x00",
        b"[tiles]\nA = [1, 1]\n",
        b'layout = [""]\n',
        b'layout = ["..", "."]\n',
    ],
)
def test_bad_rules_files_are_one_line_errors(tmp_path, small_list, content):
    path = tmp_path / "rules.toml"
    path.write_bytes(content)
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", str(small_list), "--rules", str(path)],
        input=board_text(SANE_GRID),
    )
    assert_error(result, contains=(str(path),))


@pytest.mark.parametrize("option", ["--rules", "--lexicon"])
def test_endless_rules_or_word_list_does_not_hang(small_list, option):
    """/dev/zero as a rules file or word list: refused within seconds, memory bounded."""
    args = ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", str(small_list), option, "/dev/zero"]
    started = time.monotonic()
    try:
        proc = scrab(*args, input=board_text(SANE_GRID), timeout=15, preexec_fn=cap_memory(1024))
    except subprocess.TimeoutExpired:
        pytest.fail(f"scrab solve {option} /dev/zero still running after 15 s")
    assert time.monotonic() - started < 15
    assert_proc_error(proc, contains=("/dev/zero",))


# =========================================================================== 2. odd boards


def warnings_of(result) -> list[str]:
    return [line for line in stderr_lines(result.stderr) if line.startswith("Warning: ")]


def odd_board_run(small_list, grid, rack="AEST"):
    """Table and JSON runs: both exit 0 and print moves; returns the table run's warnings."""
    text = board_text(grid)
    table = invoke(
        ["solve", "--rank", "score", "-", "--rack", rack, "--lexicon", str(small_list), "--top", "5"], input=text
    )
    no_crash(table)
    assert table.exit_code == 0, describe(table)
    assert "Warning" not in table.stdout  # warnings never on stdout
    assert stderr_lines(table.stderr) == warnings_of(table)
    data = assert_json(
        invoke(
            ["solve", "--rank", "score", "-", "--rack", rack, "--lexicon", str(small_list), "--top", "5", "--json"],
            input=text,
        )
    )
    assert data["moves"] and json_moves(data) == expected_solution(grid, rack, 5)
    best = data["moves"][0]
    assert best["position"] in table.stdout and best["notation"] in table.stdout
    return warnings_of(table)


def test_sane_board_gives_no_warning(small_list):
    assert odd_board_run(small_list, SANE_GRID) == []


def test_island_of_tiles_is_warned_about(small_list):
    grid = place(SANE_GRID, "AT", 0, 0, False)  # A1-B1, far from the rest
    found = [w for w in odd_board_run(small_list, grid) if "not connected" in w]
    assert len(found) == 1 and "A1" in found[0], found


def test_word_not_in_lexicon_is_warned_about_by_name_and_place(small_list):
    assert "QXZ" not in SMALL_SET
    grid = place(SANE_GRID, "QXZ", 11, 2, False)  # 12C across
    found = [w for w in odd_board_run(small_list, grid) if "QXZ" in w]
    assert len(found) == 1 and "not in" in found[0] and "12C" in found[0], found


def test_more_of_a_letter_than_the_set_holds_is_warned_about(small_list):
    grid = place(SANE_GRID, "ZZZ", 10, 2, False)  # the set has one Z
    found = [w for w in odd_board_run(small_list, grid) if "more" in w and "Z" in w]
    assert len(found) == 1, found
    grid = place(SANE_GRID, "QI", 3, 3, True)
    found = [w for w in odd_board_run(small_list, grid, rack="QQ") if "more" in w and "Q" in w]
    assert len(found) == 1


def test_tiles_off_the_centre_are_warned_about(small_list):
    grid = place(EMPTY_GRID, "CAT", 2, 2, False)  # a first move that misses H8
    found = [w for w in odd_board_run(small_list, grid) if "centre" in w]
    assert len(found) == 1, found


# =========================================================================== 3. cache faults


def cache_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.gaddag") if not p.name.startswith(".tmp-"))


def tmp_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(".tmp-*"))


def env_with(cache: Path) -> dict:
    env = dict(os.environ)
    env["SCRAB_CACHE_DIR"] = str(cache)
    env.pop("COLUMNS", None)
    return env


def solve_proc(board: Path, list_path: Path, cache: Path, *extra, **kwargs) -> subprocess.CompletedProcess:
    return scrab(
        "solve",
        "--rank",
        "score",
        str(board),
        "--rack",
        "AEST?",
        "--lexicon",
        str(list_path),
        "--top",
        "8",
        "--json",
        *extra,
        env=env_with(cache),
        **kwargs,
    )


@pytest.fixture
def sane_board(tmp_path) -> Path:
    path = tmp_path / "board.txt"
    path.write_text(board_text(SANE_GRID))
    return path


EXPECTED_SANE = None


def expected_sane():
    global EXPECTED_SANE
    if EXPECTED_SANE is None:
        EXPECTED_SANE = expected_solution(SANE_GRID, "AEST?", 8)
    return EXPECTED_SANE


def assert_sound_cache(cache: Path, list_path: Path, words, monkeypatch) -> None:
    """Exactly one cache file and no temporary file; loading it rebuilds nothing and gives
    the GADDAG of ``words`` (a word list, or its GADDAG already built)."""
    from solver_cli.lexicon import load_lexicon

    files = cache_files(cache)
    assert len(files) == 1, files
    assert tmp_files(cache) == []
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(cache))
    said = []
    lex = load_lexicon(str(list_path), warn=said.append)
    assert not lex.built and said == [] and lex.cache_path == files[0]
    gaddag = words if hasattr(words, "nodes") else build_gaddag(words)
    assert lex.gaddag.nodes == gaddag.nodes


def damage(path: Path, how: str, other_cache: Path | None = None) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "random":
        path.write_bytes(random.Random(7).randbytes(len(data)))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "bitflip":
        blob = bytearray(data)
        blob[len(blob) * 2 // 3] ^= 0x04
        path.write_bytes(bytes(blob))
    elif how == "old-format":
        payload = pickle.loads(data)
        payload["format"] = payload["format"] - 1
        path.write_bytes(pickle.dumps(payload))
    elif how == "other-list":
        path.write_bytes(other_cache.read_bytes())
    elif how == "code":
        marker = path.parent.parent / "pwned"

        class Exploit:
            def __reduce__(self):
                return (os.system, (f"touch {marker}",))

        path.write_bytes(pickle.dumps(Exploit()))
    elif how == "directory":
        path.unlink()
        path.mkdir()
        (path / "x").write_text("a folder where the cache file should be")


@pytest.mark.parametrize(
    "how", ["truncated", "random", "empty", "bitflip", "old-format", "other-list", "code", "directory"]
)
def test_damaged_cache_is_detected_and_replaced_through_the_cli(tmp_path, sane_board, small_list, monkeypatch, how):
    cache = tmp_path / "cache"
    first = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(first, quiet=True)) == expected_sane()
    [cached] = cache_files(cache)
    other_cache = None
    if how == "other-list":  # a cache for a different list, put under this list's name
        other_list = tmp_path / "other.txt"
        other_list.write_text("\n".join(SMALL_WORDS[::2]) + "\n")
        other_dir = tmp_path / "other-cache"
        assert_proc_json(solve_proc(sane_board, other_list, other_dir))
        [other_cache] = cache_files(other_dir)
    damage(cached, how, other_cache)
    second = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(second)) == expected_sane()
    assert not (tmp_path / "pwned").exists(), "the cache file ran code"
    notes = stderr_lines(second.stderr)
    assert notes and any("cache" in line for line in notes), notes  # detected and reported
    assert tmp_files(cache) == []
    if how == "directory":
        assert cached.is_dir()  # not ours to delete; the answer is still right
        return
    third = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(third, quiet=True)) == expected_sane()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


def test_cache_of_an_older_format_version_is_ignored(tmp_path, sane_board, small_list, monkeypatch):
    cache = tmp_path / "cache"
    assert_proc_json(solve_proc(sane_board, small_list, cache), quiet=True)
    [cached] = cache_files(cache)
    old = cached.with_name(re.sub(r"-v\d+\.gaddag$", "-v0.gaddag", cached.name))
    cached.rename(old)
    old.write_bytes(random.Random(8).randbytes(500))  # whatever an old scrab wrote
    proc = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(proc)) == expected_sane()
    assert cached.exists() and old.exists()
    old.unlink()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


def privileges_dropped() -> list[str]:
    """A command prefix under which chmod'ed folders really are read-only (root ignores them)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    # util-linux's setpriv is on every machine this project runs on; without it this test
    # could not prove anything, so it fails rather than skipping.
    assert setpriv is not None, "running as root without setpriv: cannot make a folder read-only"
    return [setpriv, "--bounding-set", "-dac_override"]


def scrab_unprivileged(board: Path, list_path: Path, cache: Path) -> subprocess.CompletedProcess:
    cmd = privileges_dropped() + [
        sys.executable,
        "-m",
        "solver_cli",
        "solve",
        "--rank",
        "score",
        str(board),
        "--rack",
        "AEST?",
        "--lexicon",
        str(list_path),
        "--top",
        "8",
        "--json",
    ]
    return subprocess.run(cmd, capture_output=True, text=True, env=env_with(cache), timeout=120)


def test_read_only_cache_folder(tmp_path, sane_board, small_list, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    try:
        empty = scrab_unprivileged(sane_board, small_list, cache)
        assert json_moves(assert_proc_json(empty)) == expected_sane()
        notes = stderr_lines(empty.stderr)
        assert len(notes) == 1 and "cache" in notes[0], notes
        assert list(cache.iterdir()) == []
        cache.chmod(0o755)
        assert_proc_json(solve_proc(sane_board, small_list, cache), quiet=True)  # builds the cache
        cache.chmod(0o555)
        warm = scrab_unprivileged(sane_board, small_list, cache)  # a sound cache in a read-only folder
        assert json_moves(assert_proc_json(warm, quiet=True)) == expected_sane()
        cache.chmod(0o755)
        [cached] = cache_files(cache)
        damage(cached, "truncated")
        cache.chmod(0o555)
        damaged = scrab_unprivileged(sane_board, small_list, cache)  # damaged and not replaceable
        assert json_moves(assert_proc_json(damaged)) == expected_sane()
        assert tmp_files(cache) == []
    finally:
        cache.chmod(0o755)
    assert_proc_json(solve_proc(sane_board, small_list, cache))  # writable again: rebuilt
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


def test_missing_or_impossible_cache_folder(tmp_path, sane_board, small_list, monkeypatch):
    nested = tmp_path / "does" / "not" / "exist"
    proc = solve_proc(sane_board, small_list, nested)
    assert json_moves(assert_proc_json(proc, quiet=True)) == expected_sane()
    assert_sound_cache(nested, small_list, SMALL_WORDS, monkeypatch)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for folder in (blocker, blocker / "sub"):
        proc = solve_proc(sane_board, small_list, folder)
        assert json_moves(assert_proc_json(proc)) == expected_sane()
        notes = stderr_lines(proc.stderr)
        assert len(notes) == 1 and "cache" in notes[0], notes
    assert blocker.read_text() == "not a folder"


def test_disk_full_during_the_cache_write(tmp_path, sane_board, small_list, monkeypatch):
    """RLIMIT_FSIZE makes every write past 4 kB fail (EFBIG) in the real CLI process."""
    cache = tmp_path / "cache"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    proc = solve_proc(sane_board, small_list, cache, preexec_fn=small_files)
    assert json_moves(assert_proc_json(proc)) == expected_sane()
    notes = stderr_lines(proc.stderr)
    assert len(notes) == 1 and "cache" in notes[0], notes
    assert not cache.exists() or list(cache.iterdir()) == []  # no partial file left behind
    again = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(again, quiet=True)) == expected_sane()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


def test_disk_full_half_way_through_the_write_in_process(tmp_path, small_list, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(cache))
    real_dump = pickle.dump

    def half_then_full(obj, fh, *args, **kwargs):
        buffer = io.BytesIO()
        real_dump(obj, buffer, *args, **kwargs)
        fh.write(buffer.getvalue()[: len(buffer.getvalue()) // 2])
        fh.flush()
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pickle, "dump", half_then_full)  # (the cache imports pickle to write)
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AEST?", "--lexicon", str(small_list), "--top", "8", "--json"],
        input=board_text(SANE_GRID),
    )
    assert json_moves(assert_json(result)) == expected_sane()
    assert any("No space left" in w for w in warnings_of(result))
    assert list(cache.iterdir()) == []
    monkeypatch.setattr(pickle, "dump", real_dump)
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AEST?", "--lexicon", str(small_list), "--top", "8", "--json"],
        input=board_text(SANE_GRID),
    )
    assert json_moves(assert_json(result, quiet=True)) == expected_sane()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


# A scrab whose GADDAG build says when it has begun, then takes its time: killed then, the
# process has read the list and is building, and has written nothing. (A real build is too
# quick to catch on a quiet machine: the native one takes a tenth of a second.)
SLOW_BUILDER = """
import sys, time
import solver_cli.lexicon as lexicon
real_build = lexicon.build_gaddag
def slow_build(*args, **kwargs):
    print("building", file=sys.stderr, flush=True)
    time.sleep(120)
    return real_build(*args, **kwargs)
lexicon.build_gaddag = slow_build
from solver_cli.cli import main
sys.argv = ["scrab", *sys.argv[1:]]
main()
"""


def test_killed_in_the_middle_of_a_build(tmp_path, sane_board, medium_list, monkeypatch):
    cache = tmp_path / "cache"
    gaddag = medium_gaddag()
    want = expected_solution(SANE_GRID, "AEST?", 8, gaddag=gaddag)
    args = ["solve", "--rank", "score", str(sane_board), "--rack", "AEST?", "--lexicon", str(medium_list), "--json"]
    child = subprocess.Popen(
        [sys.executable, "-c", SLOW_BUILDER, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env_with(cache),
    )
    assert child.stderr is not None
    assert child.stderr.readline() == "building\n"
    assert child.poll() is None
    assert not cache.exists() or cache_files(cache) == []
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    child.stderr.close()
    proc = solve_proc(sane_board, medium_list, cache)
    assert json_moves(assert_proc_json(proc, quiet=True)) == want
    assert_sound_cache(cache, medium_list, gaddag, monkeypatch)


SLOW_WRITER = """
import os, pickle, sys, time
real_dump = pickle.dump
def slow_dump(obj, fh, *args, **kwargs):
    data = pickle.dumps(obj, *args, **kwargs)
    fh.write(data[: len(data) // 2])
    fh.flush()
    time.sleep(120)  # a very slow disk: the test kills us here
    fh.write(data[len(data) // 2 :])
pickle.dump = slow_dump
sys.argv = ["scrab"] + sys.argv[1:]
from solver_cli.cli import main
main()
"""


def test_killed_in_the_middle_of_the_cache_write(tmp_path, sane_board, small_list, monkeypatch):
    cache = tmp_path / "cache"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SLOW_WRITER,
            "solve",
            "--rank",
            "score",
            str(sane_board),
            "--rack",
            "AEST?",
            "--lexicon",
            str(small_list),
            "--json",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env_with(cache),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(p.stat().st_size for p in tmp_files(cache) if p.exists()):
        assert child.poll() is None, "the writer ended before it could be killed"
        time.sleep(0.02)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    [leftover] = tmp_files(cache)  # a half-written temporary file, as a crash leaves it
    assert cache_files(cache) == []
    proc = solve_proc(sane_board, small_list, cache)  # the fresh leftover breaks nothing
    assert json_moves(assert_proc_json(proc, quiet=True)) == expected_sane()
    [cached] = cache_files(cache)
    again = solve_proc(sane_board, small_list, cache)
    assert json_moves(assert_proc_json(again, quiet=True)) == expected_sane()
    assert cache_files(cache) == [cached]
    # Once the leftover is old, the next cache write clears it away.
    an_hour_ago = time.time() - 2 * 3600
    if leftover.exists():
        os.utime(leftover, (an_hour_ago, an_hour_ago))
    other = tmp_path / "other.txt"
    other.write_text("\n".join(SMALL_WORDS[::3]) + "\n")
    assert_proc_json(solve_proc(sane_board, other, cache))
    assert tmp_files(cache) == []
    assert len(cache_files(cache)) == 2
    cached.unlink()
    assert_sound_cache(cache, other, SMALL_WORDS[::3], monkeypatch)


# =========================================================================== 4. concurrency


def run_together(commands: list[list[str]], env: dict) -> list[tuple[int, str, str]]:
    children = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for cmd in commands
    ]
    results = []
    for child in children:
        out, err = child.communicate(timeout=180)
        results.append((child.returncode, out, err))
    return results


def test_eight_solvers_at_once_on_a_cold_cache(tmp_path, sane_board, small_list, monkeypatch):
    cache = tmp_path / "cache"
    cmd = [
        sys.executable,
        "-m",
        "solver_cli",
        "solve",
        "--rank",
        "score",
        str(sane_board),
        "--rack",
        "AEST?",
        "--lexicon",
        str(small_list),
        "--top",
        "8",
        "--json",
    ]
    results = run_together([cmd] * 8, env_with(cache))
    for code, out, err in results:
        assert code == 0 and err == "", (code, err[-2000:])
        assert json_moves(json.loads(out)) == expected_sane()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


def test_eight_solvers_at_once_on_a_damaged_cache(tmp_path, sane_board, small_list, monkeypatch):
    cache = tmp_path / "cache"
    assert_proc_json(solve_proc(sane_board, small_list, cache), quiet=True)
    [cached] = cache_files(cache)
    damage(cached, "truncated")
    cmd = [
        sys.executable,
        "-m",
        "solver_cli",
        "solve",
        "--rank",
        "score",
        str(sane_board),
        "--rack",
        "AEST?",
        "--lexicon",
        str(small_list),
        "--top",
        "8",
        "--json",
    ]
    results = run_together([cmd] * 8, env_with(cache))
    for code, out, err in results:
        assert code == 0 and "Traceback" not in err, (code, err[-2000:])
        assert all(line.startswith("Warning: ") for line in stderr_lines(err)), err
        assert json_moves(json.loads(out)) == expected_sane()
    assert_sound_cache(cache, small_list, SMALL_WORDS, monkeypatch)


# =========================================================================== 5. word lists


def test_edited_word_list_is_rebuilt_by_content_not_mtime(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    before = [w for w in SMALL_WORDS if w != "CATS"] + ["CATX"]
    after = [w for w in SMALL_WORDS if w != "CATX"] + ["CATS"]
    path = tmp_path / "words.txt"
    path.write_text("\n".join(sorted(before)) + "\n")
    stat = path.stat()
    args = ["solve", "--rank", "score", "-", "--rack", "SX", "--lexicon", str(path), "--all", "--json"]
    first = assert_json(invoke(args, input=board_text(SANE_GRID)), quiet=True)
    path.write_text("\n".join(sorted(after)) + "\n")
    assert path.stat().st_size == stat.st_size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    second = assert_json(invoke(args, input=board_text(SANE_GRID)), quiet=True)
    assert json_moves(first) == expected_solution(SANE_GRID, "SX", None, gaddag=build_gaddag(sorted(before)))
    assert json_moves(second) == expected_solution(SANE_GRID, "SX", None, gaddag=build_gaddag(sorted(after)))
    assert "CATS" in {m["word"] for m in second["moves"]} and "CATS" not in {m["word"] for m in first["moves"]}


@pytest.mark.parametrize(
    "content, warned",
    [
        (b"", False),
        (b"\n\n   \n", False),
        (b"# only a comment\n", False),
        (b"a\nb\nZ\n", False),  # one-letter words are never playable
        (b"1234\n----\ncaf\xc3\xa9\ndon't\n", True),
        (gzip.compress(b"", mtime=0), False),
        (gzip.compress(b"# nothing\n", mtime=0), False),
    ],
)
def test_empty_or_unusable_word_list_is_a_clear_error(tmp_path, monkeypatch, content, warned):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words.txt"
    path.write_bytes(content)
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", str(path)], input=board_text(SANE_GRID)
    )
    assert_error(result, warnings=warned, contains=(str(path), "no usable words"))


@pytest.mark.parametrize(
    "content",
    [
        b"\x1f\x8b\x08\x00garbage that is not deflate",
        b"\x89PNG\r\n\x1a\n" + bytes(300),
        "cat\ndog\n".encode("utf-16"),
        bytes(1000),
    ],
    ids=["bad-gzip", "png", "utf16", "nul"],
)
def test_unreadable_word_list_is_a_clear_error(tmp_path, monkeypatch, content):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words.txt"
    path.write_bytes(content)
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", str(path)], input=board_text(SANE_GRID)
    )
    assert_error(result, warnings=True, contains=(str(path),))


def test_word_list_arguments_that_are_not_files(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    for name in [str(tmp_path), str(tmp_path / "missing.txt"), "kjxqz.txt.gz", str(tmp_path / "no" / "where.txt")]:
        assert_error(
            invoke(["solve", "--rank", "score", "-", "--rack", "AB", "--lexicon", name], input=board_text(SANE_GRID))
        )


def test_word_list_with_a_byte_order_mark_keeps_its_first_word(tmp_path, monkeypatch):
    """Notepad saves UTF-8 with a BOM: the first word must not be lost or counted as junk."""
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words.txt"
    path.write_bytes(b"\xef\xbb\xbfqi\r\nza\r\n")
    data = assert_json(invoke(["pattern", "--json", "--all", "--lexicon", str(path), "--", "*"]), quiet=True)
    assert sorted(w["word"] for w in data["words"]) == ["QI", "ZA"]


def test_gzipped_word_list_works(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "words.txt.gz"
    path.write_bytes(gzip.compress(("\n".join(SMALL_WORDS) + "\n").encode()))
    data = assert_json(
        invoke(
            ["solve", "--rank", "score", "-", "--rack", "AEST?", "--lexicon", str(path), "--top", "8", "--json"],
            input=board_text(SANE_GRID),
        ),
        quiet=True,
    )
    assert json_moves(data) == expected_sane()


# =========================================================================== 6. exit codes and streams


@pytest.mark.parametrize(
    "args",
    [
        ["solve"],
        ["solve", "--rank", "score", "{board}"],
        ["solve", "--rank", "score", "{board}", "--rack"],
        ["solve", "--rank", "score", "{board}", "--rack", "AB", "--top", "0"],
        ["solve", "--rank", "score", "{board}", "--rack", "AB", "--top", "many"],
        ["solve", "--rank", "score", "{board}", "--rack", "AB", "--top", "9" * 5000],
        ["solve", "--rank", "score", "{board}", "--rack", "AB", "--bogus"],
        ["solve", "--rank", "score", "{board}", "{board}", "--rack", "AB"],
        ["no-such-command"],
        ["anagram"],
        ["pattern", "--rack"],
        ["hooks", "--top", "x", "AB"],
    ],
)
def test_bad_usage_exits_2_with_nothing_on_stdout(sane_board, small_list, args):
    args = [a.format(board=sane_board) for a in args] + ["--lexicon", str(small_list)] * (args[0] != "no-such-command")
    result = invoke(args)
    no_crash(result)
    assert result.exit_code == 2, describe(result)
    assert result.stdout == ""
    assert any(line.startswith("Error: ") for line in stderr_lines(result.stderr)), describe(result)


def test_json_is_always_valid_json(tmp_path, small_list):
    cases = [
        (SANE_GRID, ["--rack", "AEST?"], "scrabble"),
        (SANE_GRID, ["--rack", "Q"], "scrabble"),  # no legal move
        (EMPTY_GRID, ["--rack", "Q"], "scrabble"),
        (EMPTY_GRID, ["--rack", "ae?", "--all"], "scrabble"),
        (place(SANE_GRID, "QXZ", 0, 0, False), ["--rack", "ZZ??"], "scrabble"),  # with warnings
        (place(EMPTY_GRID, "cat", 7, 6, False), ["--rack", "S", "--all"], "wwf"),
    ]
    for grid, extra, rules in cases:
        result = invoke(
            ["solve", "--rank", "score", "-", "--lexicon", str(small_list), "--rules", rules, "--json", *extra],
            input=board_text(grid),
        )
        data = assert_json(result)
        rule_set = load_rules(rules)
        top = None if "--all" in extra else 20
        rack = extra[1]
        assert json_moves(data) == expected_solution(grid, rack, top, rules=rule_set)
        assert data["rules"] == rules
        json.dumps(data)  # round-trips


def test_results_on_stdout_and_nothing_on_stderr(sane_board, small_list):
    invoke(
        ["solve", "--rank", "score", str(sane_board), "--rack", "AEST?", "--lexicon", str(small_list)]
    )  # warm the cache
    table = invoke(
        ["solve", "--rank", "score", str(sane_board), "--rack", "AEST?", "--lexicon", str(small_list), "--top", "8"]
    )
    no_crash(table)
    assert table.exit_code == 0 and table.stderr == ""
    total, moves = expected_sane()
    for position, _word, score in moves:
        assert position in table.stdout and str(score) in table.stdout
    none = invoke(["solve", "--rank", "score", str(sane_board), "--rack", "Q", "--lexicon", str(small_list)])
    no_crash(none)
    assert none.exit_code == 0 and none.stderr == "" and none.stdout.strip()


def test_progress_goes_to_a_terminal_stderr_only(tmp_path, sane_board, medium_list):
    """A cold build with stderr on a terminal: the progress bar there, the table alone on stdout."""
    cache = tmp_path / "cache"
    primary, secondary = pty.openpty()
    chunks: list[bytes] = []

    def drain():
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "solver_cli",
                "solve",
                "--rank",
                "score",
                str(sane_board),
                "--rack",
                "AEST?",
                "--lexicon",
                str(medium_list),
                "--top",
                "3",
            ],
            stdout=subprocess.PIPE,
            stderr=secondary,
            env=env_with(cache),
        )
        os.close(secondary)
        out, _ = child.communicate(timeout=120)
        reader.join(timeout=10)
    finally:
        os.close(primary)
    terminal = b"".join(chunks).decode("utf-8", "replace")
    out = out.decode()
    assert child.returncode == 0, terminal
    assert "Traceback" not in terminal and "Error" not in terminal
    assert "\x1b[" not in out and "GADDAG" not in out and "%" not in out
    want = expected_solution(SANE_GRID, "AEST?", 3, gaddag=medium_gaddag())
    for position, _word, score in want[1]:
        assert position in out and str(score) in out


def test_closed_stdout_pipe_is_not_a_traceback(tmp_path, sane_board, small_list):
    for extra in ([], ["--json"]):
        child = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "solver_cli",
                "solve",
                "--rank",
                "score",
                str(sane_board),
                "--rack",
                "AEST??",
                "--lexicon",
                str(small_list),
                "--all",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env_with(tmp_path / "cache"),
        )
        child.stdout.read(10)
        child.stdout.close()  # like `scrab ... | head -c 10`
        err = child.stderr.read().decode()
        child.wait(timeout=60)
        assert "Traceback" not in err and "Exception ignored" not in err, err[-2000:]


def test_full_disk_on_stdout_is_a_one_line_error(tmp_path, sane_board, small_list):
    """`scrab solve ... > /dev/full`: a failure that is not the input's fault: exit 1, one line."""
    assert os.path.exists("/dev/full"), "this test needs Linux's /dev/full to simulate a full disk"
    for extra in ([], ["--json"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "solver_cli",
                    "solve",
                    "--rank",
                    "score",
                    str(sane_board),
                    "--rack",
                    "AEST?",
                    "--lexicon",
                    str(small_list),
                    *extra,
                ],
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                env=env_with(tmp_path / "cache"),
                timeout=60,
            )
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert proc.returncode == 1
        lines = stderr_lines(proc.stderr)
        assert len(lines) == 1 and lines[0].startswith("Error: "), lines


def test_cgp_output_with_an_awkward_lexicon_name(tmp_path, monkeypatch):
    """--cgp with a word list whose path CGP cannot hold as-is: no traceback."""
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "my;words.txt"
    path.write_text("\n".join(SMALL_WORDS) + "\n")
    result = invoke(
        ["solve", "--rank", "score", "-", "--rack", "AEST?", "--lexicon", str(path), "--cgp"],
        input=board_text(SANE_GRID),
    )
    no_crash(result)
    assert result.exit_code in (0, 2), describe(result)
    if result.exit_code == 2:
        assert_error(result)


# =========================================================================== ranges and sizes
# Issue #23: a --top beyond the native engine's bound, blank folding's cost, scores and
# equities beyond a float's 2^53, each on both engines.

MIDGAME_BOARD = str(Path(__file__).resolve().parents[1] / "boards" / "midgame.txt")


def test_a_top_beyond_the_native_engines_bound_lists_every_move(engine, small_list):
    """`--top 16777217` crashed the native engine with a traceback (keep out of range)
    while the Python twin answered; now both list every move, as --all does."""
    base = ["solve", MIDGAME_BOARD, "--rack", "AEIRST?", "--lexicon", str(small_list)]
    everything = assert_json(invoke([*base, "--all", "--json"]))
    huge = assert_json(invoke([*base, "--top", "16777217", "--json"]))
    assert huge["moves"] == everything["moves"] and len(huge["moves"]) == huge["total_moves"] > 100
    table = invoke([*base, "--top", "16777217"])
    no_crash(table)
    assert table.exit_code == 0 and table.stdout.startswith(f"{huge['total_moves']:,} of {huge['total_moves']:,} moves")


def test_blank_folding_makes_a_move_only_for_each_move_shown(engine, monkeypatch):
    """Issue #23, item 11: to fold one row the table made a Move for every move of the last
    row's equity (a rack of 20 blanks on a 26x26 board: 3.3 million of them, 219 s). Here,
    the same shape at a modest size: on an empty board every placement of '??' scores 0,
    so before, the 107 moves of the third row cost 675 Moves (the whole tier, more than
    once); now exactly the moves shown."""
    import solver_cli.engine.ranking as ranking

    made = []
    real = ranking.build_move

    def counting(*args, **kwargs):
        made.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(ranking, "build_move", counting)
    board = str(Path(__file__).resolve().parents[1] / "boards" / "empty.txt")
    result = invoke(["solve", board, "--rack", "??", "--rank", "score", "--top", "3"])
    no_crash(result)
    assert result.exit_code == 0, describe(result)
    title = re.match(r"(\d+) of (\d+) moves \(in 3 rows, blanks folded\)", result.stdout)
    assert title is not None, result.stdout
    shown, total = int(title[1]), int(title[2])
    body = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert [line.split("│")[3].split()[0] for line in body[:2]] == ["pass", "exchange"]
    assert len(made) == shown - 2 and 100 < shown < total // 3  # the pass and exchange are no placements


@pytest.fixture(scope="module")
def giant_rules(tmp_path_factory) -> tuple[Path, Path]:
    """A 26x26 board of quadruple-word squares, letters worth 1,000 and a rack of 20: one
    20-letter word across scores 20,000 x 4^20 + 50, more than 2^54. No exchanges: the 2^20
    of a rack of 20 distinct tiles would keep the Python twin busy for minutes."""
    folder = tmp_path_factory.mktemp("giant")
    rules = folder / "giant.toml"
    rules.write_text(
        'name = "giant"\nrack_size = 20\nbingo_bonus = 50\nexchange_max = 0\n'
        + "layout = [\n"
        + "".join(f'  "{"Q" * 26}",\n' for _ in range(26))
        + "]\n[tiles]\n"
        + "".join(f"{ch} = [9, 1000]\n" for ch in LETTERS)
        + '"?" = [2, 0]\n'
    )
    words = folder / "words.txt"
    words.write_text("ABCDEFGHIJKLMNOPQRST\n")
    return rules, words


def test_json_scores_and_equities_above_2_53_are_exact(engine, giant_rules, tmp_path, monkeypatch):
    """Issue #23, item 12: the JSON's equity was a float, off by the float's spacing above
    2^53; now a whole equity is an integer at any size (and 77 still reads 77)."""
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(tmp_path))
    rules, words = giant_rules
    board = tmp_path / "empty.txt"
    board.write_text(("." * 26 + "\n") * 26)
    args = ["solve", str(board), "--rules", str(rules), "--lexicon", str(words), "--rack", "ABCDEFGHIJKLMNOPQRST"]
    result = invoke([*args, "--json"])
    data = assert_json(result)
    best = data["moves"][0]
    expected = 20 * 1000 * 4**20 + 50
    assert expected > 2**54 and float(expected) != expected
    assert (best["word"], best["score"], best["equity"], best["leave_value"]) == (
        "ABCDEFGHIJKLMNOPQRST",
        expected,
        expected,
        0,
    )
    assert f'"equity": {expected},' in result.stdout
    table = RUNNER.invoke(cli, args, env={"COLUMNS": "200"})  # wide enough for every column
    no_crash(table)
    assert f"│ {expected:,}.0 │" in table.stdout, table.stdout  # the Equity column, exact too


def test_json_numbers_are_exact_decimals_and_ordinary_ones_unchanged():
    """The rule for every equity and leave value written: an integer when whole, a float
    while it is exact (a shortest repr of at most 15 digits), else the exact decimal."""
    from decimal import Decimal

    from solver_cli.cli.render import exact_points, json_text

    assert exact_points(77_000) == 77 and type(exact_points(77_000)) is int
    assert exact_points(40_330) == 40.33 and exact_points(-1_370) == -1.37 and exact_points(0) == 0
    assert type(exact_points(2**60 * 1000)) is int
    huge = (2**60 * 1000 + 125, -(2**60 * 1000) - 5)
    payload = {"moves": [{"equity": exact_points(t), "leave_value": exact_points(-1_370)} for t in huge], "n": 1}
    text = json_text(payload)
    assert "1152921504606846976.125" in text and "-1152921504606846976.005" in text
    exact = json.loads(text, parse_float=Decimal)["moves"]
    assert [m["equity"] for m in exact] == [Decimal("1152921504606846976.125"), Decimal("-1152921504606846976.005")]
    assert [m["leave_value"] for m in exact] == [Decimal("-1.37")] * 2
    assert json.loads(json.dumps(payload))["moves"][0]["equity"] == float(2**60) + 0.125  # plain dumps: a float
    assert json_text({"moves": [{"equity": 77}]}) == '{"moves": [{"equity": 77}]}'

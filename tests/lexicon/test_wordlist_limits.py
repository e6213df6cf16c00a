"""Word lists are bounded however they are packed: a gzip bomb is refused while it is being
decompressed, never expanded whole (issue #15, item 7)."""

from __future__ import annotations

import gzip
import os
import random
import resource
import subprocess
import sys

import pytest

from solver_cli.errors import LexiconError
from solver_cli.lexicon import build, wordlist
from solver_cli.lexicon.build import NATIVE_BUILT
from solver_cli.lexicon.wordlist import MAX_WORD_LIST_BYTES, WordSource, open_source


def bomb(size: int) -> bytes:
    """A gzip member of ``size`` bytes of real-looking words ("AB\\n" over and over)."""
    line = b"AB\n"
    return gzip.compress(line * (size // len(line) + 1), compresslevel=9)


def test_a_gzip_list_that_expands_past_the_cap_is_refused():
    data = bomb(MAX_WORD_LIST_BYTES + 10)
    assert len(data) < MAX_WORD_LIST_BYTES // 100  # small on disk: the cap on the file alone misses it
    with pytest.raises(LexiconError, match="too large once decompressed"):
        WordSource("bomb.txt.gz", None, data).text()


def test_a_gzip_list_just_under_the_cap_is_read():
    data = gzip.compress(b"QI\nZA\n" * 1000)
    assert WordSource("ok.txt.gz", None, data).text().split() == ["QI", "ZA"] * 1000


def test_several_gzip_members_count_together_against_the_cap():
    half = bomb(MAX_WORD_LIST_BYTES // 2 + 10)
    with pytest.raises(LexiconError, match="too large once decompressed"):
        WordSource("two.txt.gz", None, half + half + half).text()


def test_a_gzip_bomb_through_the_cli_is_one_line_and_memory_stays_bounded(tmp_path):
    path = tmp_path / "bomb.txt.gz"
    # 1 GB of words in about a megabyte: without a cap while streaming this is gigabytes of memory.
    line = b"ABCDEFGHIJ\n" * 100_000
    compressor = gzip.GzipFile(path, "wb", compresslevel=9)
    with compressor:
        for _ in range(1000):
            compressor.write(line)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1024 * 2**20, 1024 * 2**20))

    proc = subprocess.run(
        [sys.executable, "-m", "solver_cli", "check", "QI", "--lexicon", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        env={**os.environ, "SCRAB_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout == ""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "too large" in lines[0], proc.stderr[-2000:]
    assert str(path) in lines[0]


def test_open_source_keeps_reading_plain_lists(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("qi\nza\n")
    assert open_source(str(path)).text() == "qi\nza\n"


def distinct_prefixes(words: list[str]) -> int:
    return len({word[:n] for word in words for n in range(1, len(word) + 1)})


@pytest.mark.parametrize(
    "builder", ["python", pytest.param("native", marks=pytest.mark.skipif(not NATIVE_BUILT, reason="not built"))]
)
def test_the_prefix_limit_is_checked_as_the_list_is_read_exactly_as_the_builder_counts(monkeypatch, builder):
    """A list over the GADDAG builder's prefix limit is refused by the reader (issue #23, item
    12: 1.99 million random words reached the builder and failed only after 35 s), at
    exactly the count where the builder refuses it, plain lists and others alike."""
    rng = random.Random(7)
    for _ in range(40):
        words = sorted({"".join(rng.choices("ABC", k=rng.randint(2, 6))) for _ in range(rng.randint(1, 30))})
        count = distinct_prefixes(words)
        for text in ("\n".join(words), "# a comment\n" + "\n".join(words).lower()):
            for limit, fits in ((count, True), (count - 1, False)):
                monkeypatch.setattr(wordlist, "MAX_PREFIXES", limit)
                monkeypatch.setattr(build, "MAX_PREFIXES", limit)
                if len(text) <= limit:
                    continue  # (the reader does not count a list with fewer letters than the limit)
                if fits:
                    assert wordlist.parse_word_list(text, 15).words == words
                    build.build_gaddag(words, builder=builder)
                else:
                    with pytest.raises(LexiconError, match=f"more than {limit:,} distinct prefixes, the limit") as read:
                        wordlist.parse_word_list(text, 15)
                    with pytest.raises(LexiconError) as built:
                        build.build_gaddag(words, builder=builder)
                    assert str(read.value) == str(built.value)


def test_a_list_over_the_prefix_limit_never_reaches_the_builder(monkeypatch, tmp_path):
    import solver_cli.lexicon as lexicon

    path = tmp_path / "many.txt"
    path.write_text("".join(f"{a}{b}{c}\n" for a in "ABCD" for b in "ABCD" for c in "ABCD"))  # 84 prefixes
    monkeypatch.setattr(wordlist, "MAX_PREFIXES", 83)
    monkeypatch.setattr(lexicon, "build_gaddag", lambda *args, **kwargs: pytest.fail("the builder was reached"))
    with pytest.raises(LexiconError, match=f"{path}: word list too big: its words have more than 83 distinct prefixes"):
        lexicon.load_lexicon(str(path))

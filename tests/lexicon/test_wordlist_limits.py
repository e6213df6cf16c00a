"""Word lists are bounded however they are packed: a gzip bomb is refused while it is being
decompressed, never expanded whole (issue #15, item 7)."""

from __future__ import annotations

import gzip
import os
import resource
import subprocess
import sys

import pytest

from solver_cli.errors import LexiconError
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

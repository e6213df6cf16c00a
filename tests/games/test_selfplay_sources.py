"""Self-play over worker processes works whatever the word list is read from (issue #15,
item 12): a list on standard input or a pipe is read once, by the parent, and never again."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def selfplay(*args: str, cache, stdin: str | None = None) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "solver_cli", "selfplay", "--games", "3", "--seed", "5", "--json", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SCRAB_CACHE_DIR": str(cache)},
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def results(data: dict) -> list:
    return [(r["game"], r["scores"], r["moves"], r["end"]) for r in data["results"]]


def test_a_word_list_on_standard_input_with_two_jobs(tmp_path, small_words):
    words = "\n".join(small_words) + "\n"
    path = tmp_path / "words.txt"
    path.write_text(words)
    want = results(selfplay("--lexicon", str(path), cache=tmp_path / "c1"))
    for cache in (tmp_path / "c2", tmp_path / "c2"):  # cold, then warm
        got = selfplay("--lexicon", "/dev/stdin", "--jobs", "2", cache=cache, stdin=words)
        assert got["jobs"] == 2 and results(got) == want


def test_two_jobs_without_a_usable_cache_folder(tmp_path, small_words):
    path = tmp_path / "words.txt"
    path.write_text("\n".join(small_words) + "\n")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    want = results(selfplay("--lexicon", str(path), cache=tmp_path / "c1"))
    got = selfplay("--lexicon", str(path), "--jobs", "2", cache=blocker)
    assert results(got) == want

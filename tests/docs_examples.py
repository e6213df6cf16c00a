"""The ``$ scrab ...`` examples of README.md and docs/*.md: finding, running and comparing them.

An example is a fenced code block whose info string is ``console``: each line starting with
``$ `` is a command (run by bash from the repository's root, so pipes and quotes work as
shown), and the lines after it, up to the next command or the end of the block, are its
output (stdout and stderr together, in the order written). A file an example names under
``/tmp`` is its own: each run gets a fresh folder in its place, so examples never share one
(see ``run_example``). Times, rates and memory figures
vary from run to run, so they are masked before comparing, and so is the padding that
their width changes in a table.

``python tests/docs_examples.py --update [FILE...]`` runs every example and writes the real
output back into the files (review the diff before committing); ``--update --timings``
rewrites the masked figures too, so all the times shown come from one run. Without
``--update`` it reports the examples whose output differs. The test suite runs the same comparison
(tests/test_docs.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(```+|~~~+)\s*(\S*)\s*$")
COLUMNS = 100  # the width every example is rendered at (README tables fit it)

# Figures that depend on the machine and the moment: a number with a unit of time, rate or
# memory, or any number on a line that reports a speed.
_FIGURE = r"\d[\d,]*(?:\.\d+)?(?:-\d[\d,]*(?:\.\d+)?)?\s?"
_TIME_FIGURE = re.compile(_FIGURE + r"(?:ms|µs|us|s|games/s|moves/s)\b")
_MEMORY_FIGURE = re.compile(_FIGURE + r"MB\b")
_SPEED_LINE = re.compile(r"per second|/s\b|seconds|Time \(")
# `scrab bench` prints its times without a unit, as "median (min-max)", and names the machine.
_TIMING = re.compile(r"\d[\d,]*(?:\.\d+)? \(\d[\d,]*(?:\.\d+)?-\d[\d,]*(?:\.\d+)?\)")
_MACHINE = re.compile(r"Python [^,]+, \d+ cores?, \w+")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_PADDING = re.compile(r"[ ─━═]+")


@dataclass
class Example:
    path: Path
    line: int  # 1-based line of the command in the file
    command: str
    expected: list[str]
    end: int  # index (0-based) just past the expected output's last line

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def find_examples(path: Path) -> list[Example]:
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[Example] = []
    fence: str | None = None
    current: Example | None = None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if fence is None:
            if match and match.group(2) == "console":
                fence = match.group(1)
            continue
        if match and line.strip().startswith(fence) and not match.group(2):
            if current is not None:
                current.end = i
            fence, current = None, None
            continue
        if line.startswith("$ "):
            if current is not None:
                current.end = i
            current = Example(path, i + 1, line[2:], [], i + 1)
            found.append(current)
        elif current is not None:
            current.expected.append(line)
    return found


def environment(cache: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "CLICOLOR"))}
    env.update(
        SCRAB_CACHE_DIR=cache,
        COLUMNS=str(COLUMNS),
        LINES="50",
        NO_COLOR="1",
        TERM="dumb",
        PYTHONUNBUFFERED="1",  # stdout and stderr interleave as on a terminal
        PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    )
    return env


def run_example(example: Example, cache: str) -> list[str]:
    """The example's output. The files it names under /tmp are its own: each run gets a
    fresh folder standing in for /tmp (in the command, and back again in the output), so
    examples that use the same name, in parallel workers or two test runs at once, never
    share a file, and none is left behind."""
    with tempfile.TemporaryDirectory(prefix="scrab-doc-", dir=_short_temp()) as scratch:
        # Standard error joins standard output for the whole command line: a "2>&1" appended
        # to the command would only redirect the last command of "scrab ... || echo ..." or a pipe.
        result = subprocess.run(
            ["bash", "-c", example.command.replace("/tmp/", f"{scratch}/")],
            cwd=ROOT,
            env=environment(cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=900,
        )
    out = result.stdout.replace(f"{scratch}/", "/tmp/").rstrip("\n")
    return out.split("\n") if out else []


def _short_temp() -> str | None:
    """/tmp itself where there is one: a short name, so that output wraps as in the docs."""
    return "/tmp" if os.path.isdir("/tmp") else None


# ... and its generation table gives medians alone, under "every" and "best" columns.
_BENCH_HEADER = re.compile(r"(native|python) every")
_BENCH_TIME = re.compile(r"\d[\d,]*\.\d\d\b")


def normalise(lines: list[str]) -> list[str]:
    shown = []
    in_bench_table = False
    for line in lines:
        in_bench_table = (in_bench_table or bool(_BENCH_HEADER.search(line))) and not line.startswith("└")
        if in_bench_table:
            line = _BENCH_TIME.sub("<figure>", line)
        line = _TIME_FIGURE.sub("<figure>", line)
        line = _MEMORY_FIGURE.sub("<figure>", line)
        line = _TIMING.sub("<figure>", line)
        line = _MACHINE.sub("<machine>", line)
        if _SPEED_LINE.search(line):
            line = _NUMBER.sub("<n>", line)
        shown.append(_PADDING.sub(" ", line).rstrip())
    return shown


def shows_timings(lines: list[str]) -> bool:
    """Whether the output shows a time or a rate (masked by ``normalise``): a page may show
    one only as an example, saying so (tests/test_docs.py checks that it does)."""
    in_bench_table = False
    for line in lines:
        in_bench_table = (in_bench_table or bool(_BENCH_HEADER.search(line))) and not line.startswith("└")
        if (in_bench_table and _BENCH_TIME.search(line)) or _SPEED_LINE.search(line):
            return True
        if _TIME_FIGURE.search(line) or _TIMING.search(line):
            return True
    return False


def update(paths: list[Path], cache: str, timings: bool = False) -> int:
    """Rewrite the examples whose output differs (with ``timings``, in their masked figures
    too, so that every time and rate on the pages comes from one run)."""
    changed = 0
    for path in paths:
        examples = find_examples(path)
        if not examples:
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        # From the last example up, so earlier line numbers stay valid.
        for example in reversed(examples):
            actual = run_example(example, cache)
            if (actual != example.expected) if timings else (normalise(actual) != normalise(example.expected)):
                changed += 1
                print(f"updated {example.where}: $ {example.command}", file=sys.stderr)
                lines[example.line : example.end] = [line.rstrip() for line in actual]
        path.write_text("\n".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    write = "--update" in argv
    timings = "--timings" in argv
    paths = [Path(a).resolve() for a in argv if a not in ("--update", "--timings")] or doc_files()
    with tempfile.TemporaryDirectory() as cache:
        cache = os.environ.get("SCRAB_CACHE_DIR", cache)
        if write:
            print(f"{update(paths, cache, timings)} example(s) updated", file=sys.stderr)
            return 0
        bad = 0
        for path in paths:
            for example in find_examples(path):
                if normalise(run_example(example, cache)) != normalise(example.expected):
                    bad += 1
                    print(f"differs: {example.where}: $ {example.command}", file=sys.stderr)
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

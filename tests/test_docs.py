"""Docs are run: every ``$ scrab ...`` example in README.md and docs/*.md is executed and its
output compared with what the page shows (times and rates masked; see docs_examples.py,
which also rewrites the pages with ``--update``)."""

from __future__ import annotations

import os
import re
import uuid

import click
import pytest
from docs_examples import COLUMNS, ROOT, Example, doc_files, find_examples, normalise, run_example, shows_timings

from solver_cli.cli import COMMANDS, load_command

EXAMPLES = [example for path in doc_files() for example in find_examples(path)]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_example_output_is_what_the_docs_show(example, session_cache, full_lexicon):
    # full_lexicon: the default list is built once, into the session's test cache.
    actual = run_example(example, str(session_cache))
    assert normalise(actual) == normalise(example.expected), "\n".join(actual)


def test_every_example_is_a_scrab_command():
    assert EXAMPLES, "no examples found"
    for example in EXAMPLES:
        assert re.match(r"(\S+=\S+ )*scrab\b", example.command), example.where


def test_links_between_pages_resolve():
    """Relative links from README.md and docs/ point at files that exist."""
    for path in doc_files():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)} links to missing {target}"


def test_examples_get_a_tmp_of_their_own(tmp_path):
    """An example's /tmp files are its own (a fresh folder stands in for /tmp), so the
    examples that use one name, in parallel workers or two test runs at once, never meet;
    its output still shows /tmp, as the page does."""
    name = f"/tmp/scrab-doc-check-{uuid.uuid4().hex}"
    command = f"test ! -e {name} && mkdir {name} && echo one > {name}/f && cat {name}/f && ls -d {name}"
    example = Example(ROOT / "README.md", 1, command, [], 0)
    for _ in range(2):  # the second run does not see the first one's folder
        assert run_example(example, str(tmp_path)) == ["one", name]
    assert not os.path.exists(name)


# A page shows a time or a rate only as an example, and says so in the paragraph after the
# block ("The times in this example are ...", "The times and rates in these examples ...").
_TIMINGS_NOTE = re.compile(r"\b(?:times|timings)\b[^.]*\b(?:this|these) examples?\b", re.IGNORECASE)


def _paragraph_after_block(example: Example) -> str:
    lines = example.path.read_text(encoding="utf-8").split("\n")
    close = next(i for i in range(example.end, len(lines)) if lines[i].startswith(("```", "~~~")))
    paragraph: list[str] = []
    for line in lines[close + 1 :]:
        if line.strip():
            paragraph.append(line)
        elif paragraph:
            break
    return " ".join(paragraph)


def test_timings_shown_are_marked_as_an_example():
    """Times and rates are masked when the examples are compared, so what a page shows is
    one run's, however old: the page must say so, right after the block."""
    showing = [e for e in EXAMPLES if shows_timings(e.expected)]
    assert showing, "no example shows a time (has the masking changed?)"
    for example in showing:
        assert _TIMINGS_NOTE.search(_paragraph_after_block(example)), (
            f"{example.where} shows times or rates: say after the block that they are an example"
        )


def test_only_times_and_rates_are_masked():
    """Counts next to a time are compared: "Bingos per game" is a result, not a speed."""
    assert normalise(["│ Bingos per game  │  2.35 │"]) == ["│ Bingos per game │ 2.35 │"]
    assert normalise(["│ Games per second │ 87.10 │"]) == ["│ Games per second │ <n> │"]
    assert normalise(["took 1.5 s and 30.0 MB for 24,894 moves"]) == ["took <figure> and <figure> for 24,894 moves"]


def test_the_readme_says_how_wide_its_examples_are():
    """The tour's tables are as printed at COLUMNS columns; a narrower terminal drops columns."""
    assert f"{COLUMNS} columns wide" in (ROOT / "README.md").read_text(encoding="utf-8")


def _synopses() -> dict[str, str]:
    """Each command's synopsis in docs/commands.md (the plain blocks of lines starting
    ``scrab COMMAND``, with their indented continuation lines; comments dropped)."""
    found: dict[str, str] = {}
    fence: str | None = None
    key: str | None = None
    for line in (ROOT / "docs" / "commands.md").read_text(encoding="utf-8").split("\n"):
        if line.startswith("```"):
            fence = line.strip() if fence is None else None
            key = None
            continue
        if fence != "```":
            continue
        start = re.match(r"scrab ([a-z]+)(?: (?:\[--json\] )?\[?(show|train|list|clear)\b)?", line)
        if start:
            key = " ".join(word for word in start.groups() if word)
            found.setdefault(key, "")
        elif not line.startswith(" "):
            key = None
        if key is not None:
            found[key] += " " + line.split("#")[0]
    return found


def _commands() -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name in COMMANDS:
        command = load_command(name)
        assert command is not None
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", subcommand) for sub, subcommand in command.commands.items()]
        else:
            found.append((name, command))
    return found


@pytest.mark.parametrize(("name", "command"), _commands(), ids=[name for name, _ in _commands()])
def test_the_synopsis_names_every_option(name, command):
    """docs/commands.md's synopsis of each command names each of its options (by any of
    its spellings), so a new option cannot go undocumented there."""
    synopsis = _synopses().get(name)
    assert synopsis, f"docs/commands.md has no synopsis for scrab {name}"
    for option in command.params:
        if isinstance(option, click.Option) and not option.hidden:
            spellings = option.opts + option.secondary_opts
            assert any(re.search(re.escape(flag) + r"(?![\w-])", synopsis) for flag in spellings), (
                f"the synopsis of scrab {name} leaves out {spellings[0]}"
            )


def test_ci_runs_the_readme_test_command_then_the_soak_step(pytestconfig):
    """The README's command is a plain `pytest`, which leaves the soak tests out; .ci/run runs
    it and then the soak step that docs/testing.md shows, so CI runs every test."""
    soak_step = 'SCRAB_SOAK=1 pytest -m "soak or scaled"'
    assert "pip install '.[test]' && pytest\n" in (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index("pip install '.[test]' && pytest") < ci.index(soak_step)
    assert soak_step in (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    addopts = pytestconfig.getini("addopts")
    assert addopts[addopts.index("-m") + 1] == "not soak"

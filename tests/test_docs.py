"""Docs are run: every ``$ scrab ...`` example in README.md and docs/*.md is executed and its
output compared with what the page shows (times and rates masked; see docs_examples.py,
which also rewrites the pages with ``--update``)."""

from __future__ import annotations

import os
import re
import uuid

import pytest
from docs_examples import ROOT, Example, doc_files, find_examples, normalise, run_example

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

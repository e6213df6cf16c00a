"""Help that can be trusted: every example in every command's --help runs as printed and
survives being pasted into a shell; the option help names what is shipped; shell
completion; and a JSON run that never imports Rich."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.cli import all_commands, cli
from solver_cli.engine.rules import shipped_rule_sets
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon.wordlist import shipped_lexicons

ROOT = Path(__file__).resolve().parents[2]


def help_text(name: str | None = None) -> str:
    args = [*name.split(), "--help"] if name else ["--help"]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.stderr
    return result.stdout


def examples(name: str) -> list[str]:
    """The command lines under "Examples:" in the command's --help."""
    lines = help_text(name).splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == "Examples:"]
    assert len(starts) == 1, f"scrab {name} --help has no single Examples: block"
    found = []
    for line in lines[starts[0] + 1 :]:
        if not line.strip():
            break
        found.append(line.strip())
    assert found and all(line == f"scrab {name}" or line.startswith(f"scrab {name} ") for line in found), found
    return found


def subcommands() -> list[str]:
    """'leaves show', 'cache clear', ...: the commands of each group, by their full names."""
    found = []
    for name, command in all_commands().items():
        if isinstance(command, click.Group):
            found += [f"{name} {sub}" for sub in command.list_commands(click.Context(command))]
    return sorted(found)


def with_examples() -> list[str]:
    """Every command and subcommand whose --help shows examples."""
    return sorted([*all_commands(), *(n for n in subcommands() if "Examples:" in help_text(n))])


def test_every_subcommand_has_help():
    assert {"leaves show", "leaves train", "cache clear"} <= set(subcommands())
    assert {"leaves show", "leaves train"} <= set(with_examples())


@pytest.fixture
def repository_copy(tmp_path, monkeypatch):
    """A folder that looks like the repository root (its boards/), so examples can write
    files (game.txt, games/) without touching the checkout."""
    (tmp_path / "boards").symlink_to(ROOT / "boards")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@python_engine_in_soak()  # the twin trains leaves for minutes
@pytest.mark.parametrize("name", with_examples())
def test_every_help_example_runs(name, repository_copy, full_lexicon, tmp_path, monkeypatch):
    if name == "cache":
        # `scrab cache clear` gets a cache of its own: clearing the session's would make every
        # later test in this worker build the full word list again.
        own = tmp_path / "own-cache"
        monkeypatch.setenv("SCRAB_CACHE_DIR", str(own))
        words = tmp_path / "words.txt"
        words.write_text("QI\nZA\n")
        load_lexicon(str(words))
        assert len(list(own.iterdir())) == 1
    runner = CliRunner()
    for line in examples(name):  # in order: a later example may use a file an earlier one wrote
        args = shlex.split(line)[1:]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (line, result.stdout[-2000:], result.stderr[-2000:])
        assert result.stdout.strip(), line
        if "--json" in args:
            json.loads(result.stdout)
    if name == "cache":
        assert list(own.iterdir()) == []  # cleared: its own cache, not the session's


@pytest.mark.parametrize("name", with_examples())
def test_help_examples_survive_the_shell(name, tmp_path):
    """Pasted into bash, each example gives scrab the words shlex reads: no glob (?, *), no
    parentheses or other shell syntax left unquoted. failglob makes an unquoted pattern an
    error even where no file matches it."""
    for line in examples(name):
        script = "shopt -s failglob; printf '%s\\n' " + line
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stdout.splitlines() == shlex.split(line), line


def test_option_help_names_every_shipped_rule_set_and_word_list():
    rule_sets, word_lists = shipped_rule_sets(), shipped_lexicons()
    assert {"scrabble", "wwf", "super"} <= set(rule_sets) and {"kjxqz", "sowpods"} <= set(word_lists)
    for name, command in all_commands().items():
        options = {p.name: p for p in command.params}
        text = " ".join(help_text(name).split())
        if "rules" in options:
            assert f"({', '.join(rule_sets)}; any case)" in text, name
        if "lexicon" in options:
            assert "kjxqz [default]" in text and all(w in text for w in word_lists), name


def test_every_command_has_an_examples_block():
    for name in all_commands():
        assert examples(name)


# --------------------------------------------------------------------------- completion


def completions(args: list[str], incomplete: str) -> list[tuple[str, str]]:
    complete = ShellComplete(cli, {}, "scrab", "_SCRAB_COMPLETE")
    return [(item.type, item.value) for item in complete.get_completions(args, incomplete)]


@pytest.mark.parametrize(
    "args, incomplete, names",
    [
        (["solve", "b.txt", "--rules"], "w", ["wwf"]),
        (["solve", "b.txt", "--rules"], "S", ["scrabble", "super"]),
        (["solve", "b.txt", "--rules"], "", ["scrabble", "super", "wwf"]),
        (["solve", "b.txt", "-r"], "sc", ["scrabble"]),
        (["anagram", "QI", "--lexicon"], "s", ["sowpods"]),
        (["boggle", "--lexicon"], "k", ["kjxqz"]),
        (["selfplay", "--rules"], "su", ["super"]),
        (["solve", "b.txt", "--rules"], "boards/", []),  # a path: only the shell's file names
    ],
)
def test_completion_offers_shipped_names_and_files(args, incomplete, names):
    got = completions(args, incomplete)
    assert got[0] == ("file", incomplete)  # first, for bash: see _common._complete_names
    assert [value for kind, value in got if kind == "plain"] == names


@pytest.mark.parametrize(
    "args", [["solve"], ["play"], ["explain"], ["boggle"], ["play", "b.txt", "8D", "FORMATS", "-o"]]
)
def test_completion_of_file_arguments_is_the_shells(args):
    assert completions(args, "boa") == [("file", "boa")]


def scrab_env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort"), ("zsh", "compdef"), ("fish", "complete")])
def test_completion_script_is_printed(shell, marker):
    done = subprocess.run(
        [sys.executable, "-m", "solver_cli"],
        env=scrab_env(_SCRAB_COMPLETE=f"{shell}_source"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout and "_SCRAB_COMPLETE" in done.stdout and "scrab" in done.stdout


def test_completion_through_the_environment_protocol():
    """What bash asks at `scrab solve b.txt --rules w<TAB>`: the words so far, the cursor's word."""
    done = subprocess.run(
        [sys.executable, "-m", "solver_cli"],
        env=scrab_env(_SCRAB_COMPLETE="bash_complete", COMP_WORDS="scrab solve b.txt --rules w", COMP_CWORD="4"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["file,w", "plain,wwf"]


# --------------------------------------------------------------------------- start-up


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "boards/midgame.txt", "--rack", "AEIRST?", "--top", "10", "--json"],
        ["anagram", "RETAINS", "--json"],
        ["check", "QI"],
        ["play", "boards/opening.txt", "8D", "FORMATS", "--json"],
        ["solve", "boards/midgame.txt", "--rack", "AB1"],  # an error is printed without Rich too
    ],
)
def test_rich_is_imported_only_to_draw_and_unused_modules_never(args, session_cache, full_lexicon):
    # ... and what a warm command never needs is not imported either: hashlib (OpenSSL),
    # pickle (the cache is read without it), gzip (the word list is not decompressed).
    code = (
        "import sys, click\n"
        "from solver_cli.cli import all_commands, cli\n"
        "try:\n"
        f"    cli({args!r}, standalone_mode=False)\n"
        "except click.ClickException as exc:\n"
        "    exc.show()\n"
        "unneeded = {'hashlib', '_hashlib', 'pickle', 'gzip'} & set(sys.modules)\n"
        "sys.stderr.write(f'UNNEEDED {sorted(unneeded)} ')\n"
        "sys.stderr.write('RICH ' + str(sorted(m for m in sys.modules if m.split('.')[0] == 'rich')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=scrab_env(SCRAB_CACHE_DIR=str(session_cache)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith("UNNEEDED [] RICH []"), done.stderr
    assert done.stdout.strip() or done.stderr.startswith("Error: ")


def test_the_group_lists_every_command():
    text = help_text()
    for name in all_commands():
        assert f"  {name}" in text
    assert isinstance(cli, click.Group)

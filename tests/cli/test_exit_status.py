"""Every command's exit status, class by class, as docs/commands.md documents them: 1 for an
illegal move or a failed check, 2 for bad input and for usage errors, 1 for a write that
fails (the input was fine: a full disk), 2 for a file an option names that cannot be
written (a folder, a missing folder: refused before any work). Each class, each command
it applies to; one Error: line on stderr, and nothing on stdout but a table printed before
its --svg copy failed. (An interrupt's 130 belongs with the commands that run long.)"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli import _io
from solver_cli.cli import cli
from solver_cli.formats import gcg, leavefile

ROOT = Path(__file__).resolve().parents[2]
MIDGAME = str(ROOT / "boards" / "midgame.txt")
OPENING = str(ROOT / "boards" / "opening.txt")
GAME = str(ROOT / "boards" / "example.gcg")
GRID = str(ROOT / "boards" / "grid.txt")


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def error_line(result, code: int, *, printed: bool = False) -> str:
    """The run ended with ``code`` and one Error: line last on stderr; nothing on stdout
    unless ``printed`` (a table shown before its --svg copy failed to be written)."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert printed or result.stdout == "", result.stdout
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("Error: "), lines
    return lines[-1]


# --------------------------------------------------------------------------- 1: an illegal move, a failed check

FAILED_CHECK = {
    "play": ["play", OPENING, "9D", "ZA"],
    "explain": ["explain", OPENING, "--rack", "ZA", "9D", "ZA"],
    "check": ["check", "QI", "QX"],
}


@pytest.mark.parametrize("name", sorted(FAILED_CHECK))
def test_a_failed_check_is_status_1(runner, name):
    result = runner.invoke(cli, FAILED_CHECK[name])
    if name == "check":  # the verdict is the output; the status says it failed
        assert result.exit_code == 1 and "QX  not in kjxqz" in result.stdout
    else:
        assert "illegal move" in error_line(result, 1)


# --------------------------------------------------------------------------- 2: bad input

BAD_INPUT = {
    "solve": ["solve", MIDGAME, "--rack", "AB1"],
    "play": ["play", OPENING, "8D", "FORMATS", "--rack", "AB1"],
    "explain": ["explain", MIDGAME, "--rack", "RETAINS", "0"],
    "review": ["review", "no-such-game.gcg"],
    "peg": ["peg", MIDGAME, "--rack", "RETAINS"],  # a bag of 61 tiles
    "hooks": ["hooks", "Q1"],
    "anagram": ["anagram", "ABCDEFGH"],
    "pattern": ["pattern", ""],
    "check": ["check", "Q1"],
    "selfplay": ["selfplay", "--games", "1", "--rules", "chess"],
    "boggle": ["boggle", "ABCD/E1GH/IJKL/MNOP"],
    "bench": ["bench", "--lexicon", "no-such-list"],
    "leaves": ["leaves", "show", "QX1"],
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_bad_input_is_status_2(runner, name):
    error_line(runner.invoke(cli, BAD_INPUT[name]), 2)


def test_cache_clear_refusing_a_folder_others_can_write_is_status_1(runner, tmp_path, monkeypatch):
    """cache takes no value to get wrong; what it refuses is documented as a failed check."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(shared))
    assert "not trusted" in error_line(runner.invoke(cli, ["cache", "clear"]), 1)


# --------------------------------------------------------------------------- 2: usage errors


@pytest.mark.parametrize(
    "args",
    [
        ["solve", MIDGAME],  # no rack
        ["play", OPENING, "8D"],
        ["explain", MIDGAME],
        ["review"],
        ["hooks"],
        ["anagram"],
        ["pattern"],
        ["check"],
        ["selfplay"],
        ["boggle"],
        ["bench", "--bogus"],
        ["cache", "nosuch"],
        ["leaves", "show"],
        ["leaves", "train"],
    ],
    ids=lambda args: " ".join(a for a in args if "/" not in a),
)
def test_a_usage_error_is_status_2(runner, args):
    assert error_line(runner.invoke(cli, args, prog_name="scrab"), 2).endswith(" --help')")


# --------------------------------------------------------------------------- files: 2 refused, 1 failed


def writers(tmp_path: Path, target: str) -> dict[str, list[str]]:
    """Every command that writes a file an option names, writing to ``target``."""
    return {
        "play -o": ["play", OPENING, "8D", "FORMATS", "-o", target],
        "solve --svg": ["solve", MIDGAME, "--rack", "RETAINS", "--top", "1", "--svg", target],
        "review --svg": ["review", GAME, "--svg", target],
        "selfplay --save-games": ["selfplay", "--games", "1", "--seed", "1", "--save-games", target],
        "leaves train -o": ["leaves", "train", "--games", "2", "--rounds", "1", "-o", target],
    }


WRITERS = sorted(writers(Path("."), "x"))


@pytest.mark.parametrize("name", WRITERS)
def test_a_file_that_cannot_be_written_is_refused_with_status_2(runner, tmp_path, name):
    """A file in a missing folder, or for --save-games (which makes its folder) a file where
    the folder should be: refused before any work, nothing printed."""
    if "save-games" in name:
        target = tmp_path / "a-file"
        target.write_text("")
        expected = "is a file, not a folder"
    else:
        target = tmp_path / "no-such-folder" / "out"
        expected = "does not exist"
    result = runner.invoke(cli, writers(tmp_path, str(target))[name])
    assert expected in error_line(result, 2) and result.stdout == ""


@pytest.mark.parametrize("name", WRITERS)
def test_a_write_that_fails_is_status_1(runner, tmp_path, monkeypatch, name):
    """The disk fills up as the file is written: the input was fine, so 1, not 2."""

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    for module in (_io, gcg, leavefile):
        monkeypatch.setattr(module, "write_atomically", full_disk)
    target = tmp_path / ("games" if "save-games" in name else "out")
    line = error_line(runner.invoke(cli, writers(tmp_path, str(target))[name]), 1, printed=True)
    assert "No space left on device" in line and str(tmp_path) in line, line


def test_output_that_cannot_be_written_is_status_1():
    """Standard output on a full disk: one line, status 1 (main() handles it, outside Click)."""
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "solver_cli", "check", "QI"], stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert result.returncode == 1
    assert result.stderr.strip() == "Error: cannot write output: No space left on device"


def test_a_stop_just_as_a_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM right after os.open made the temporary file, before a try began,
    left an empty .NAME.*.tmp beside the records (seen in 5 of 36 stopped self-play runs)."""
    real_open = os.open

    def open_then_stop(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if flags & os.O_CREAT:
            os.close(fd)
            raise KeyboardInterrupt  # (the signal's handler, just after the file was made)
        return fd

    monkeypatch.setattr(_io.os, "open", open_then_stop)
    with pytest.raises(KeyboardInterrupt):
        _io.write_atomically(tmp_path / "game-0001.gcg", "record\n", follow_links=False)
    assert list(tmp_path.iterdir()) == []

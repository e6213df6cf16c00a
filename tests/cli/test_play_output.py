"""`scrab play -o OUT` never damages what is at OUT (issue #15, item 5).

The rules, documented in docs/security.md and docs/commands.md: OUT is replaced atomically
with its mode (and, where the OS allows, its owner) kept; a symbolic link you own is written
through to its target (the link stays), one owned by someone else is refused, and so is a
link to nothing; a file with several hard links is rewritten in place so every link sees the
new board; anything that is not a regular file (a FIFO, a device, a folder) is refused,
without blocking on it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli

BOARDS = Path(__file__).resolve().parents[2] / "boards"
OPENING = (BOARDS / "opening.txt").read_text()
OTHER_UID = 54321  # no such user: files chowned to it belong to "someone else"


@pytest.fixture(scope="module")
def runner(full_lexicon):
    return CliRunner()


def play_to(runner, out: Path | str):
    return runner.invoke(cli, ["play", str(BOARDS / "opening.txt"), "8D", "FORMATS", "-o", str(out)])


def played(text: str) -> bool:
    rows = [line for line in text.splitlines() if not line.startswith("#")]  # the file's comment is kept
    return rows[7] == "...FORMATS....."


def one_error(result, *parts: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def test_the_mode_of_an_existing_file_is_kept(runner, tmp_path):
    out = tmp_path / "game.txt"
    out.write_text(OPENING)
    out.chmod(0o644)
    assert play_to(runner, out).exit_code == 0
    assert played(out.read_text()) and stat.S_IMODE(out.stat().st_mode) == 0o644
    out.chmod(0o640)
    assert play_to(runner, out).exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_new_file_gets_the_usual_mode(runner, tmp_path):
    out = tmp_path / "new.txt"
    old = os.umask(0o022)
    try:
        assert play_to(runner, out).exit_code == 0
    finally:
        os.umask(old)
    assert played(out.read_text()) and stat.S_IMODE(out.stat().st_mode) == 0o644


def test_the_owner_of_an_existing_file_is_kept_when_the_os_allows_it(runner, tmp_path):
    out = tmp_path / "theirs.txt"
    out.write_text(OPENING)
    out.chmod(0o666)
    os.chown(out, OTHER_UID, OTHER_UID)  # as root (the test suite's user here and in CI)
    assert play_to(runner, out).exit_code == 0
    st = out.stat()
    assert played(out.read_text()) and (st.st_uid, st.st_gid) == (OTHER_UID, OTHER_UID)
    assert stat.S_IMODE(st.st_mode) == 0o666


def test_a_symbolic_link_of_yours_is_written_through(runner, tmp_path):
    target = tmp_path / "real.txt"
    target.write_text(OPENING)
    target.chmod(0o644)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert play_to(runner, link).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert played(target.read_text()) and stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]


def test_a_symbolic_link_owned_by_someone_else_is_refused(runner, tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("precious\n")
    link = tmp_path / "planted.txt"
    link.symlink_to(target)
    os.lchown(link, OTHER_UID, OTHER_UID)
    one_error(play_to(runner, link), str(link), "symbolic link")
    assert target.read_text() == "precious\n" and link.is_symlink()


def test_a_link_to_nothing_or_a_loop_is_refused(runner, tmp_path):
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "missing.txt")
    one_error(play_to(runner, dangling), str(dangling))
    assert not (tmp_path / "missing.txt").exists()
    loop = tmp_path / "loop.txt"
    loop.symlink_to(loop)
    one_error(play_to(runner, loop), str(loop))


def test_hard_links_stay_one_file(runner, tmp_path):
    out = tmp_path / "game.txt"
    out.write_text(OPENING)
    other = tmp_path / "same-game.txt"
    os.link(out, other)
    assert play_to(runner, out).exit_code == 0
    assert played(out.read_text()) and played(other.read_text())
    assert out.stat().st_ino == other.stat().st_ino and out.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.txt", "same-game.txt"]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "solver_cli", "play", str(BOARDS / "opening.txt"), "8D", "FORMATS", "-o", str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "not a regular file" in proc.stderr and "Traceback" not in proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_device_is_refused(runner, tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a second /dev/null (root may mknod)
    one_error(play_to(runner, null), str(null), "not a regular file")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    link = tmp_path / "to-null"
    link.symlink_to(null)
    one_error(play_to(runner, link), "not a regular file")
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_a_failed_write_leaves_the_old_file_whole(tmp_path):
    """RLIMIT_FSIZE makes the write fail (EFBIG) as a full disk would."""
    import resource

    out = tmp_path / "game.txt"
    out.write_text(OPENING)

    def tiny_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (10, 10))

    proc = subprocess.run(
        [sys.executable, "-m", "solver_cli", "play", str(BOARDS / "opening.txt"), "8D", "FORMATS", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
        preexec_fn=tiny_files,
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert out.read_text() == OPENING
    assert [p.name for p in tmp_path.iterdir()] == ["game.txt"]

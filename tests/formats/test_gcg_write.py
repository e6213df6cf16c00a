"""Writing GCG records never damages what is in the folder (issue #15, item 6): a link
planted at a game's name is refused (its target untouched), a name with a newline cannot add
lines to a record, and a full disk leaves no empty or half-written record behind."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys

import pytest

from solver_cli.engine.history import GameResult
from solver_cli.errors import InputError
from solver_cli.formats.gcg import game_lines, write_game

OTHER_UID = 54321


def a_game(small_gaddag) -> GameResult:
    from solver_cli.engine.rules import load_rules
    from solver_cli.games.selfplay import play_game

    return play_game(small_gaddag, load_rules("scrabble"), seed=1, index=0)


def test_names_with_line_breaks_cannot_add_lines(small_gaddag):
    lines = game_lines(a_game(small_gaddag), rules="evil\n#player1 x Mallory", lexicon="w\r\n>p1: ZZZ 8H ZZZ +999 999")
    assert all(line.startswith(("#", ">")) for line in lines), lines
    assert sum(line.startswith("#player1") for line in lines) == 1
    assert not any(line.startswith(">p1: ZZZ") for line in lines)
    assert all(line.isprintable() for line in lines)


@pytest.mark.parametrize("owner", ["mine", "someone else's"])
def test_a_link_at_a_game_name_is_refused_and_its_target_untouched(tmp_path, small_gaddag, owner):
    precious = tmp_path / "precious.txt"
    precious.write_text("precious\n")
    folder = tmp_path / "games"
    folder.mkdir()
    link = folder / "game-0001.gcg"
    link.symlink_to(precious)
    if owner != "mine":
        os.lchown(link, OTHER_UID, OTHER_UID)
    with pytest.raises(InputError, match="symbolic link"):
        write_game(folder, a_game(small_gaddag), 1)
    assert precious.read_text() == "precious\n" and link.is_symlink()
    assert sorted(p.name for p in folder.iterdir()) == ["game-0001.gcg"]


def test_a_fifo_at_a_game_name_is_refused(tmp_path, small_gaddag):
    folder = tmp_path / "games"
    folder.mkdir()
    os.mkfifo(folder / "game-0001.gcg")
    with pytest.raises(InputError, match="not a regular file"):
        write_game(folder, a_game(small_gaddag), 1)
    assert stat.S_ISFIFO(os.lstat(folder / "game-0001.gcg").st_mode)


def test_an_existing_record_is_replaced_keeping_its_mode(tmp_path, small_gaddag):
    folder = tmp_path / "games"
    folder.mkdir()
    old = folder / "game-0001.gcg"
    old.write_text("old\n")
    old.chmod(0o640)
    path = write_game(folder, a_game(small_gaddag), 1)
    assert path == old and old.read_text().startswith("#character-encoding UTF-8\n")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640


@pytest.fixture(scope="module")
def word_list(tmp_path_factory, small_words):
    path = tmp_path_factory.mktemp("lists") / "small.txt"
    path.write_text("\n".join(small_words) + "\n")
    return path


def selfplay(folder, words, *extra, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "solver_cli", "selfplay", "--games", "3", "--seed", "2", "--save-games", str(folder)]
        + ["--lexicon", str(words), *extra],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
        **kwargs,
    )


def one_line_error(proc: subprocess.CompletedProcess, code: int) -> str:
    assert proc.returncode == code and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr[-3000:]
    return lines[0]


def test_a_full_disk_leaves_no_empty_records(tmp_path, word_list):
    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))  # a record is a few kB

    assert selfplay(tmp_path / "warm", word_list).returncode == 0  # the cache is written before the limit
    folder = tmp_path / "games"
    proc = selfplay(folder, word_list, preexec_fn=small_files)
    one_line_error(proc, 1)
    assert list(folder.iterdir()) == []


def test_a_planted_link_through_the_cli_is_one_line_and_harmless(tmp_path, word_list):
    precious = tmp_path / "precious.txt"
    precious.write_text("precious\n")
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "game-0002.gcg").symlink_to(precious)
    os.lchown(folder / "game-0002.gcg", OTHER_UID, OTHER_UID)
    error = one_line_error(selfplay(folder, word_list), 2)
    assert "game-0002.gcg" in error and "symbolic link" in error
    assert precious.read_text() == "precious\n"


def test_a_save_games_folder_that_is_a_link_of_someone_else_is_refused(tmp_path, word_list):
    real = tmp_path / "theirs"
    real.mkdir()
    link = tmp_path / "games"
    link.symlink_to(real)
    os.lchown(link, OTHER_UID, OTHER_UID)
    error = one_line_error(selfplay(link, word_list), 2)
    assert "symbolic link" in error
    assert list(real.iterdir()) == []
    mine = tmp_path / "mine"
    mine.symlink_to(real)  # a link of your own is followed
    proc = selfplay(mine, word_list, "--json")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in real.iterdir()) == ["game-0001.gcg", "game-0002.gcg", "game-0003.gcg"]


def test_a_save_games_path_that_is_a_fifo_is_refused_without_blocking(tmp_path, word_list):
    fifo = tmp_path / "games"
    os.mkfifo(fifo)
    error = one_line_error(selfplay(fifo, word_list), 2)
    assert "not a folder" in error
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)

"""Word lists of the user's own, by name: the data folder's lexicons/ and SCRAB_LEXICON_PATH,
searched after the shipped names, in any case; paths never taken for names; the folder
trusted only when it is the user's alone; the same size limit as any list."""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path

import pytest

from solver_cli import _data
from solver_cli.errors import InputError, LexiconError
from solver_cli.lexicon import list_lexicons, load_lexicon, wordlist
from solver_cli.lexicon.wordlist import (
    find_user_lexicon,
    lexicon_label,
    named_lexicon,
    open_source,
    user_lexicons,
)


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    """A data folder of the test's own, with an empty lexicons/ (both 0700, as a user's)."""
    folder = tmp_path / "data"
    folder.mkdir(mode=0o700)
    (folder / "lexicons").mkdir(mode=0o700)
    monkeypatch.setenv("SCRAB_DATA_DIR", str(folder))
    return folder


def put(folder: Path, name: str, words: str) -> Path:
    path = folder / name
    path.write_bytes(gzip.compress(words.encode()) if name.endswith(".gz") else words.encode())
    return path


def test_a_list_in_the_folder_is_found_by_name_in_any_case(data):
    put(data / "lexicons", "NWL2023.txt", "QI\nZA\nQAT\n")
    for name in ("NWL2023", "nwl2023", "Nwl2023"):
        source = open_source(name)
        assert source.name == "NWL2023" and source.path == data / "lexicons" / "NWL2023.txt"
        assert source.text() == "QI\nZA\nQAT\n"
    assert lexicon_label("nwl2023") == "NWL2023"
    lexicon = load_lexicon("nwl2023")
    assert lexicon.name == "NWL2023" and lexicon.word_count == 3 and lexicon.contains("QAT")


def test_a_gzipped_list_works_by_name(data):
    put(data / "lexicons", "CSW21.txt.gz", "QI\nZO\n")
    assert load_lexicon("csw21").contains("ZO")


def test_an_unknown_name_says_where_to_put_the_list(data):
    with pytest.raises(LexiconError) as caught:
        open_source("NWL2020")
    message = str(caught.value)
    assert message == (
        "no word list 'NWL2020': not a shipped lexicon (kjxqz, sowpods), one of yours nor an existing file; "
        f"to add yours, put NWL2020.txt in {data / 'lexicons'} (see scrab lexicons)"
    )


def test_search_order_and_shadowing(data, tmp_path, monkeypatch):
    own = data / "lexicons"
    extra, more = tmp_path / "extra", tmp_path / "more"
    extra.mkdir()
    more.mkdir()
    put(own, "kjxqz.txt", "QI\n")  # a shipped name: the shipped list wins
    put(own, "club.txt", "AA\n")
    put(own, "CLUB.txt.gz", "BB\n")  # same folder: .txt before .txt.gz
    put(extra, "Club.txt", "CC\n")  # a later folder
    put(extra, "Only.txt", "DD\n")
    put(more, "only.txt", "EE\n")
    monkeypatch.setenv("SCRAB_LEXICON_PATH", os.pathsep.join([str(extra), "", str(tmp_path / "missing"), str(more)]))

    assert open_source("KJXQZ").path is None
    assert open_source("Club").text() == "AA\n"
    assert open_source("ONLY").text() == "DD\n"
    folders, lists = user_lexicons()
    assert [(f.path, f.problem) for f in folders] == [
        (own, None),
        (extra, None),
        (tmp_path / "missing", "missing"),
        (more, None),
    ]
    shadows = {(found.path.parent.name, found.path.name): found.shadowed_by for found in lists}
    assert shadows == {
        ("lexicons", "kjxqz.txt"): "shipped",
        ("lexicons", "club.txt"): None,
        ("lexicons", "CLUB.txt.gz"): str(own / "club.txt"),
        ("extra", "Club.txt"): str(own / "club.txt"),
        ("extra", "Only.txt"): None,
        ("more", "only.txt"): str(extra / "Only.txt"),
    }


def test_only_list_files_with_plain_names_count(data):
    own = data / "lexicons"
    put(own, "notes.md", "QI\n")
    put(own, "two words.txt", "QI\n")
    put(own, "v1.2.txt", "QI\n")
    (own / "folder.txt").mkdir()
    os.mkfifo(own / "fifo.txt")  # never opened (it would block a plain read)
    assert user_lexicons()[1] == []
    assert find_user_lexicon("folder") is None and find_user_lexicon("fifo") is None


@pytest.mark.parametrize(
    "name", ["../NWL2023", "lexicons/NWL2023", "NWL2023.txt", "..", ".", "/NWL2023", "NWL 2023", "NWL2023\x00"]
)
def test_a_path_is_never_looked_up_as_a_name(data, monkeypatch, tmp_path, name):
    """A name with a separator, a dot or anything but letters, digits, _ + - is a path, used
    as given: it can never reach a file outside the folders, nor one in them by another name."""
    put(data / "lexicons", "NWL2023.txt", "QI\n")
    monkeypatch.chdir(tmp_path)
    assert find_user_lexicon(name) is None and named_lexicon(name) is None
    with pytest.raises(LexiconError):
        open_source(name)


def test_shipped_names_and_paths_never_look_at_the_folders(data, monkeypatch, tmp_path):
    """The warm path: `--lexicon kjxqz` or a file's path reads no folder and imports nothing."""
    put(data / "lexicons", "mine.txt", "QI\n")
    path = put(tmp_path, "words.txt", "QI\nZA\n")

    def no_scan(*args, **kwargs):
        raise AssertionError("a folder was searched")

    monkeypatch.setattr(wordlist, "lexicon_folders", no_scan)
    assert open_source("SOWPODS").name == "sowpods" and open_source(None).name == "kjxqz"
    assert open_source(str(path)).path == path
    assert lexicon_label(str(path)) == "words" and lexicon_label("kjxqz") == "kjxqz"
    assert not wordlist.is_own_lexicon(str(path)) and not wordlist.is_own_lexicon("sowpods")


def test_a_plain_name_that_is_no_list_is_still_a_file_here(data, monkeypatch, tmp_path):
    put(tmp_path, "mywords", "QI\n")
    monkeypatch.chdir(tmp_path)
    assert open_source("mywords").path == Path("mywords")
    put(data / "lexicons", "mywords.txt", "ZA\n")  # a list by that name comes first
    assert open_source("mywords").text() == "ZA\n"
    assert open_source("./mywords").text() == "QI\n"  # a path says so


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="owners and modes are POSIX")
@pytest.mark.parametrize("mode", [0o770, 0o702])
def test_the_user_folder_is_not_used_when_others_can_write_it(data, mode):
    own = data / "lexicons"
    put(own, "NWL2023.txt", "QI\n")
    own.chmod(mode)
    assert find_user_lexicon("NWL2023") is None
    folders, lists = user_lexicons()
    assert lists == [] and "writable by group or others" in (folders[0].problem or "")
    with pytest.raises(LexiconError, match="writable by group or others"):
        open_source("NWL2023")


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="owners and modes are POSIX")
def test_a_folder_named_in_the_search_path_is_the_users_choice(tmp_path, monkeypatch):
    shared = tmp_path / "club"
    shared.mkdir()
    put(shared, "Club.txt", "QI\n")
    shared.chmod(0o775)  # a club's shared folder: named by the user, like a file they name
    monkeypatch.setenv("SCRAB_LEXICON_PATH", str(shared))
    assert open_source("club").path == shared / "Club.txt"


def test_a_list_by_name_has_the_size_limit_of_any_list(data, monkeypatch):
    put(data / "lexicons", "BIG.txt", "QI\n" * 100)
    monkeypatch.setattr(wordlist, "MAX_WORD_LIST_BYTES", 200)
    with pytest.raises(InputError, match=r"BIG\.txt is too large \(over 200 bytes\)"):
        open_source("big")


def test_a_record_names_lists_only_by_name(data):
    put(data / "lexicons", "NWL2020.txt", "QI\n")
    assert named_lexicon(" nwl2020 ") == "NWL2020"
    assert named_lexicon("SOWPODS") == "sowpods"
    assert named_lexicon("CSW21") is None
    assert named_lexicon(str(data / "lexicons" / "NWL2020.txt")) is None  # never a path


def test_the_listing_counts_words_and_says_what_is_cached(data):
    own = data / "lexicons"
    put(own, "MINE.txt", "QI\nZA\nQAT\nA\nTOOLONGFORTHEBOARDX\n")
    put(own, "sowpods.txt", "QI\n")
    put(own, "empty.txt.gz", "")
    (own / "empty.txt.gz").write_bytes(b"\x1f\x8bnot gzip")
    listing = list_lexicons(15)
    by = {(e.name, e.origin): e for e in listing.lexicons}
    mine = by["MINE", "user folder"]
    assert (mine.words, mine.cached, mine.problem) == (3, False, None)
    load_lexicon("mine")
    again = {(e.name, e.origin): e for e in list_lexicons(15).lexicons}
    assert (again["MINE", "user folder"].words, again["MINE", "user folder"].cached) == (3, True)
    assert by["sowpods", "user folder"].shadowed_by == "shipped" and by["sowpods", "user folder"].words is None
    assert by["kjxqz", "shipped"].default and by["kjxqz", "shipped"].words == 188_378
    assert "not a readable gzip file" in (by["empty", "user folder"].problem or "")


@pytest.mark.skipif(sys.platform != "linux", reason="the platformdirs shortcut is taken on Linux only")
@pytest.mark.parametrize(
    ("xdg", "home"),
    [(None, "/home/ann"), ("/var/x data", "/home/ann"), ("relative", "/home/ann"), ("", "/home/ann"), (None, "")],
)
def test_the_default_data_folder_is_platformdirs_own(monkeypatch, xdg, home):
    import platformdirs

    monkeypatch.delenv("SCRAB_DATA_DIR", raising=False)
    for name, value in (("XDG_DATA_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = Path(platformdirs.user_data_dir("scrab", appauthor=False))
    shortcut = _data._xdg_data_dir()
    if shortcut is not None:
        assert shortcut == expected
    if expected.is_absolute():
        assert _data.user_data_dir() == expected


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="owners and modes are POSIX")
def test_a_table_kept_by_name_is_used_for_ones_own_list_only_from_ones_own_folder(data):
    from solver_cli.engine.leaves import LeaveTable
    from solver_cli.formats.leavefile import table_for, write_leaves

    leaves = data / "leaves"
    leaves.mkdir(mode=0o700)
    write_leaves(
        leaves / "scrabble-NWL2023.leaves",
        LeaveTable.zeros(),
        {"rules": "scrabble", "lexicon": "NWL2023", "rack_size": 7},
    )
    table, note = table_for("scrabble", "NWL2023", own_list=True)
    assert table.name == "scrabble-NWL2023" and note is None
    _, note = table_for("scrabble", "NWL2023")  # a file named NWL2023.txt given by its path
    assert note is not None and "train its own" not in note
    leaves.chmod(0o770)
    table, note = table_for("scrabble", "NWL2023", own_list=True)
    assert table.name != "scrabble-NWL2023"
    assert note is not None and "train its own: scrab leaves train --rules scrabble --lexicon NWL2023" in note

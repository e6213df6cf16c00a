"""``scrab cache``: listing and clearing the cache files, by the same trust rules as a load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon.cache import FORMAT_VERSION

OTHER_UID = 54321


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def lists(tmp_path) -> tuple[Path, Path]:
    one = tmp_path / "one.txt"
    one.write_text("CAT\nCATS\nDOG\n")
    two = tmp_path / "two.txt.gz"
    import gzip

    two.write_bytes(gzip.compress(b"QI\nZA\nZAS\nQAT\n"))
    return one, two


def run(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["cache", *args, "--json"])
    assert result.exit_code == 0 and result.stderr == "", result.output
    return json.loads(result.stdout)


def test_no_folder_yet(cache):
    data = run()
    assert data == {
        "folder": str(cache),
        "exists": False,
        "trusted": True,
        "problem": None,
        "files": [],
        "total_bytes": 0,
        "temporaries": [],
    }
    assert not cache.exists()  # listing does not create it
    text = CliRunner().invoke(cli, ["cache"])
    assert text.exit_code == 0 and "No cache folder yet" in text.stdout


def test_lists_each_file_with_its_word_list(cache, lists):
    one, two = lists
    a = load_lexicon(str(one))
    b = load_lexicon(str(two), max_length=21)
    data = run("list")
    assert data == run()  # "list" is the default
    files = {f["file"]: f for f in data["files"]}
    assert set(files) == {a.cache_path.name, b.cache_path.name}
    fa, fb = files[a.cache_path.name], files[b.cache_path.name]
    assert (fa["lexicon"], fa["words"], fa["max_length"], fa["format"]) == (str(one), 3, 15, FORMAT_VERSION)
    assert (fb["lexicon"], fb["words"], fb["max_length"]) == (str(two), 4, 21)
    assert fa["valid"] and fa["trusted"] and fa["status"] == "ok"
    assert fa["bytes"] == a.cache_path.stat().st_size
    assert data["total_bytes"] == fa["bytes"] + fb["bytes"]
    table = CliRunner().invoke(cli, ["cache"], env={"COLUMNS": "200"})
    assert table.exit_code == 0
    assert a.cache_path.name in table.stdout and "2 cache files" in table.stdout and str(cache) in table.stdout


def test_damaged_and_untrusted_files_are_shown_as_such(cache, lists):
    one, two = lists
    a = load_lexicon(str(one))
    b = load_lexicon(str(two))
    a.cache_path.write_bytes(a.cache_path.read_bytes()[:-10])
    os.chown(b.cache_path, OTHER_UID, OTHER_UID)
    files = {f["file"]: f for f in run()["files"]}
    fa, fb = files[a.cache_path.name], files[b.cache_path.name]
    assert not fa["valid"] and fa["trusted"] and "unreadable" in fa["status"]
    assert not fb["valid"] and not fb["trusted"] and "owned by another user" in fb["status"]


def test_clear_removes_only_scrabs_own_files(cache, lists, tmp_path):
    one, two = lists
    a = load_lexicon(str(one))
    load_lexicon(str(two))
    keep = {
        "notes.txt": "mine",
        "kjxqz.gaddag": "not scrab's naming",
        "kjxqz-0a22288b4b081319-L15-v2.gaddag.bak": "a backup",
    }
    for name, text in keep.items():
        (cache / name).write_text(text)
    target = tmp_path / "precious"
    target.write_text("precious")
    (cache / "x-0123456789abcdef-L15-v2.gaddag").symlink_to(target)  # a link with a cache's name
    (cache / "y-0123456789abcdef-L15-v2.gaddag").mkdir()  # a folder with a cache's name
    old_temp = cache / ".tmp-0123456789ab.gaddag"
    old_temp.write_bytes(b"half a file")
    # the listing shows the temporary too, which clear then removes and counts
    assert run()["temporaries"] == [{"file": ".tmp-0123456789ab.gaddag", "bytes": 11}]
    listed = CliRunner().invoke(cli, ["cache"], env={"COLUMNS": "200"}).stdout
    assert (
        "and 1 leftover temporary file (11 B) from a build that was stopped; scrab cache clear removes it"
        in " ".join(listed.split())
    )
    data = run("clear")
    removed = sorted(f["file"] for f in data["removed"])
    assert a.cache_path.name in removed and ".tmp-0123456789ab.gaddag" in removed and len(removed) == 3
    assert data["freed_bytes"] == sum(f["bytes"] for f in data["removed"])
    assert sorted(f["file"] for f in data["skipped"]) == [
        "x-0123456789abcdef-L15-v2.gaddag",
        "y-0123456789abcdef-L15-v2.gaddag",
    ]
    assert {p.name for p in cache.iterdir()} == set(keep) | {
        "x-0123456789abcdef-L15-v2.gaddag",
        "y-0123456789abcdef-L15-v2.gaddag",
    }
    assert target.read_text() == "precious"
    assert run()["files"][0]["status"] != "ok"  # the link is listed, but not trusted
    again = run("clear")
    assert again["removed"] == []


def test_clear_refuses_a_folder_that_is_not_trusted(cache, lists):
    one, _ = lists
    a = load_lexicon(str(one))
    cache.chmod(0o777)
    result = CliRunner().invoke(cli, ["cache", "clear"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: not clearing the cache:") and "writable by group" in result.stderr
    assert a.cache_path.exists()
    listing = run()
    assert listing["trusted"] is False and listing["files"] == [] and "writable" in listing["problem"]


def test_clear_text_output(cache, lists):
    one, _ = lists
    load_lexicon(str(one))
    result = CliRunner().invoke(cli, ["cache", "clear"])
    assert result.exit_code == 0
    assert result.stdout.startswith("Removed 1 cache file (") and str(cache) in result.stdout
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------- readable at 60-80 columns


@pytest.fixture
def two_versions(cache, tmp_path) -> tuple[Path, str, str]:
    """One word list built, edited, built again (the old cache stays), in a deep folder; a
    list of 1,728 words, so its count has a thousands separator."""
    folder = tmp_path / "a" / "rather" / "long" / "folder" / "of" / "club" / "word" / "lists"
    folder.mkdir(parents=True)
    words = folder / "club-words.txt"
    letters = "ABCDEFGHIJKL"
    words.write_text("\n".join(a + b + c for a in letters for b in letters for c in letters) + "\n")
    old = load_lexicon(str(words)).cache_path.name
    words.write_text(words.read_text() + "ZZZ\n")
    new = load_lexicon(str(words)).cache_path.name
    assert old != new
    return words, old, new


@pytest.mark.parametrize("width", [60, 80])
def test_listing_fits_and_tells_versions_apart(two_versions, width):
    words, old, new = two_versions
    result = CliRunner().invoke(cli, ["cache"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    for name in (old, new):  # each file name whole, on one line
        assert sum(name in line for line in lines) == 1, "\n".join(lines)
    rows = [line for line in lines if "club-words.txt" in line and "│" in line]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("│").split("│")]
        assert cells[0].endswith("/lists/club-words.txt")  # the path's end, where lists differ
        assert cells[2] in ("1,728", "1,729")  # numbers whole
        assert cells[3] == "15"
    by_file = {}
    for i, line in enumerate(lines):
        for name in (old, new):
            if name in line:
                by_file[name] = lines[i - 1]  # the row above its file name
    assert by_file[old].rstrip(" │").endswith("stale") and "1,728" in by_file[old]
    assert by_file[new].rstrip(" │").endswith("ok") and "1,729" in by_file[new]
    assert "1 stale (built from an earlier version of its word list, never used again)" in " ".join(lines)


def test_wide_listing_keeps_the_path_whole(two_versions):
    words, old, new = two_versions
    text = CliRunner().invoke(cli, ["cache"], env={"COLUMNS": "250"}).stdout
    assert str(words) in text and old in text and new in text


def test_json_says_which_file_is_stale(two_versions, tmp_path, monkeypatch):
    words, old, new = two_versions
    files = {f["file"]: f for f in run()["files"]}
    assert (files[old]["stale"], files[new]["stale"]) == (True, False)
    assert files[old]["status"] == "ok"  # still a sound file: stale is said apart
    # A list named by a relative path is not judged: it was relative to wherever scrab ran.
    monkeypatch.chdir(words.parent)
    relative = load_lexicon("club-words.txt").cache_path.name
    assert relative == new  # the same content, so the same file
    (words.parent / "other.txt").write_text("QI\nZA\n")
    other = load_lexicon("other.txt").cache_path.name
    assert {f["file"]: f["stale"] for f in run()["files"]}[other] is None
    # A list that is gone is not judged either.
    words.unlink()
    files = {f["file"]: f for f in run()["files"]}
    assert files[old]["stale"] is None and files[new]["stale"] is None


def test_a_shipped_list_from_another_version_is_stale(cache, tmp_path):
    """A cache of the shipped kjxqz built when kjxqz was another list (an older scrab): the
    shipped list's digest now is not the one in its name."""
    import gzip

    older = tmp_path / "older-scrab"
    older.mkdir()
    (older / "kjxqz.txt.gz").write_bytes(gzip.compress(b"QI\nZA\n"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("solver_cli.lexicon.wordlist.lexicon_folder", lambda: older)
        then = load_lexicon("kjxqz").cache_path.name
    files = {f["file"]: f for f in run()["files"]}
    assert files[then]["lexicon"] == "kjxqz" and files[then]["stale"] is True
    assert "stale" in CliRunner().invoke(cli, ["cache"], env={"COLUMNS": "100"}).stdout


# --------------------------------------------------------------------------- --json before or after


@pytest.mark.parametrize("args", [["--json"], ["--json", "list"], ["list", "--json"]])
def test_json_listing_wherever_the_flag_goes(cache, lists, args):
    one, _ = lists
    load_lexicon(str(one))
    result = CliRunner().invoke(cli, ["cache", *args])
    assert result.exit_code == 0, result.output
    assert [f["lexicon"] for f in json.loads(result.stdout)["files"]] == [str(one)]


@pytest.mark.parametrize("args", [["--json", "clear"], ["clear", "--json"]])
def test_json_clear_wherever_the_flag_goes(cache, lists, args):
    """`scrab cache --json clear` used to print the text line."""
    one, _ = lists
    a = load_lexicon(str(one))
    result = CliRunner().invoke(cli, ["cache", *args])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [f["file"] for f in data["removed"]] == [a.cache_path.name] and data["exists"] is True


def test_clear_without_a_folder_says_so(cache):
    result = CliRunner().invoke(cli, ["cache", "clear"])
    assert result.exit_code == 0
    assert result.stdout == f"No cache folder ({cache}): nothing to clear\n"
    assert not cache.exists()
    data = run("clear")
    assert data == {"folder": str(cache), "exists": False, "removed": [], "skipped": [], "freed_bytes": 0}

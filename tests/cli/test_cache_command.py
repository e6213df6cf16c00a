"""``scrab cache``: listing and clearing the cache files, by the same trust rules as a load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.lexicon import load_lexicon

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
    assert (fa["lexicon"], fa["words"], fa["max_length"], fa["format"]) == (str(one), 3, 15, 2)
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

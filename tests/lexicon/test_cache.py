import os
import pickle

import pytest

from solver_cli.errors import LexiconError
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon.cache import FORMAT_VERSION
from solver_cli.lexicon.wordlist import parse_word_list, shipped_lexicons


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def wordfile(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("# my list\ncat\nCARE\n\ncares\nscare\nno good\ndon't\nOx\nx\nABCDEFGHIJKLMNOP\n")
    return path


def test_parse_word_list_rules():
    wl = parse_word_list("# c\ncat\nCat\n\nq-tip\ncafé\nabcdefghijklmnop\nA\nzo\n", 15)
    assert wl.words == ["CAT", "ZO"]
    assert wl.skipped == 2 and wl.first_skipped == 5
    assert wl.too_long == 1


def test_shipped_lexicons_are_found():
    assert {"kjxqz", "sowpods"} <= set(shipped_lexicons())


def test_shipped_lexicon_names_in_any_case():
    from solver_cli.lexicon.wordlist import open_source

    upper = open_source("SOWPODS")
    assert upper.name == "sowpods" and upper.path is None and upper.data == open_source("sowpods").data


def test_build_then_load_from_cache(cache, wordfile):
    warnings = []
    first = load_lexicon(str(wordfile), warn=warnings.append)
    assert first.built and first.word_count == 5  # CAT CARE CARES SCARE OX
    assert warnings == [f"{wordfile}: skipped 2 line(s) with characters other than A-Z (first at line 7)"]
    files = list(cache.iterdir())
    assert [f.name for f in files] == [first.cache_path.name]
    again: list[str] = []
    second = load_lexicon(str(wordfile), warn=again.append)
    assert not second.built
    assert second.gaddag.nodes == first.gaddag.nodes
    assert second.contains("scare") and not second.contains("scar")
    assert again == warnings  # the cached lexicon lacks the same lines: said again


def test_edited_word_list_is_rebuilt_by_content(cache, wordfile):
    first = load_lexicon(str(wordfile))
    stat_before = os.stat(wordfile)
    wordfile.write_text(wordfile.read_text().replace("scare", "scarf"))
    os.utime(wordfile, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))  # same mtime
    second = load_lexicon(str(wordfile))
    assert second.built and second.contains("scarf") and not second.contains("scare")
    assert first.cache_path != second.cache_path


def _corrupt(path, how):
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "random":
        path.write_bytes(os.urandom(len(data)))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flipped":
        payload = pickle.loads(data)
        blob = bytearray(payload["nodes"])
        blob[len(blob) // 2] ^= 0x10
        payload["nodes"] = bytes(blob)
        path.write_bytes(pickle.dumps(payload))
    elif how == "old-format":
        payload = pickle.loads(data)
        payload["format"] = FORMAT_VERSION - 1
        path.write_bytes(pickle.dumps(payload))
    elif how == "other-list":
        payload = pickle.loads(data)
        payload["digest"] = "0" * 64
        path.write_bytes(pickle.dumps(payload))
    elif how == "foreign-pickle":
        path.write_bytes(pickle.dumps(os.path.join))  # a pickle that names a function


@pytest.mark.parametrize(
    "how, reason",
    [
        ("truncated", "unreadable"),
        ("random", ""),
        ("empty", "unreadable"),
        ("flipped", "corrupt (checksum mismatch)"),
        ("old-format", "in an old format"),
        ("other-list", "for a different word list"),
        ("foreign-pickle", "not a scrab cache"),
    ],
)
def test_damaged_cache_is_detected_and_rebuilt(cache, wordfile, how, reason):
    good = load_lexicon(str(wordfile))
    _corrupt(good.cache_path, how)
    warnings = []
    again = load_lexicon(str(wordfile), warn=warnings.append)
    assert again.built
    assert again.gaddag.nodes == good.gaddag.nodes
    assert any("rebuilding" in w and reason in w for w in warnings), warnings
    third = load_lexicon(str(wordfile))  # the rewritten cache is sound
    assert not third.built
    assert [p.name for p in cache.iterdir()] == [good.cache_path.name]


def test_unwritable_cache_location_falls_back_to_memory(tmp_path, monkeypatch, wordfile):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("SCRAB_CACHE_DIR", str(blocker / "sub"))
    warnings = []
    lex = load_lexicon(str(wordfile), warn=warnings.append)
    assert lex.cache_path is None and lex.contains("cares")
    cache_notes = [w for w in warnings if not w.startswith(str(wordfile))]
    assert len(warnings) == 2 and len(cache_notes) == 1 and "using an in-memory GADDAG" in cache_notes[0]


def test_failed_write_leaves_no_file_behind(cache, wordfile, monkeypatch):
    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("pickle.dump", disk_full)  # (the cache imports pickle when it writes)
    warnings = []
    lex = load_lexicon(str(wordfile), warn=warnings.append)
    assert lex.cache_path is None and lex.contains("cat")
    assert any("No space left on device" in w for w in warnings)
    assert list(cache.iterdir()) == []  # the temporary file was removed
    monkeypatch.undo()


def test_empty_or_unusable_word_list_is_an_error(cache, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(LexiconError, match="no usable words"):
        load_lexicon(str(empty))
    junk = tmp_path / "junk.txt"
    junk.write_text("1234\n----\n")
    with pytest.raises(LexiconError, match="no usable words"):
        load_lexicon(str(junk), warn=lambda m: None)


def test_missing_word_list_names_the_choices(cache):
    with pytest.raises(LexiconError, match="not a shipped lexicon .*kjxqz.*sowpods"):
        load_lexicon("no-such-list.txt")


def test_words_longer_than_the_board_are_dropped(cache, tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("ab\n" + "a" * 16 + "\n")
    lex = load_lexicon(str(path), max_length=15)
    assert lex.word_count == 1 and not lex.contains("a" * 16)


def test_empty_word_list_name_is_an_error_not_the_default(cache):
    with pytest.raises(LexiconError, match="empty word-list name"):
        load_lexicon("  ")


@pytest.mark.parametrize("words", [["QI", "ZA", "ZAS"], ["AB", "ABA", "BA", "CAB", "CABS", "SCAB", "TABS", "BAST"]])
def test_a_cached_gaddag_loads_as_the_one_built(cache, tmp_path, words):
    """The file is read straight into the array that becomes the node array (the nodes
    moved to its start, wherever the pickle put them, and the rest cut off)."""
    path = tmp_path / "list.txt"
    path.write_text("\n".join(words))
    built = load_lexicon(str(path))
    loaded = load_lexicon(str(path))
    assert built.built and not loaded.built
    assert loaded.gaddag.nodes.typecode == "I"
    assert loaded.gaddag.nodes == built.gaddag.nodes
    assert (loaded.gaddag.root, loaded.gaddag.dawg_root) == (built.gaddag.root, built.gaddag.dawg_root)
    assert all(loaded.contains(word) for word in words) and not loaded.contains("QIS")

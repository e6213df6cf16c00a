"""The win-probability file (``.winpct``): what it writes it reads back, with or without its
counts; a damaged, truncated, foreign or hostile file (huge sizes, a zlib bomb, counts or
values that cannot be) is refused with one line naming it, through the library and through
every command that reads one."""

from __future__ import annotations

import json
import random
import re
import zlib
from array import array

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.engine.rules import load_rules
from solver_cli.engine.winpct import MAX_CELLS, SCALE, WinTable
from solver_cli.errors import InputError
from solver_cli.formats.winpctfile import (
    MAX_FILE_BYTES,
    check_fits,
    decode_winpct,
    encode_winpct,
    read_winpct,
    shipped_winpct_tables,
    winpct_for,
)

INFO = {"rules": "scrabble", "lexicon": "kjxqz", "rack_size": 7, "tiles": 100, "games": 12, "extra": [1, {"a": 2}]}


def monotone_table(seed: int = 5) -> WinTable:
    """A table of random counts and random non-decreasing columns, as smoothing makes."""
    rng = random.Random(seed)
    table = WinTable.empty(300, 5, 93, "test")
    for i in range(table.cells):
        if rng.random() < 0.3:
            table.samples[i] = rng.randrange(1, 5000)
            table.wins[i] = rng.randrange(0, 2 * table.samples[i] + 1)
    for column in range(94):
        cut = sorted(rng.randrange(SCALE + 1) for _ in range(table.rows))
        table.values[column * table.rows : (column + 1) * table.rows] = array("H", cut)
    return table


@pytest.fixture(scope="module")
def table() -> WinTable:
    return monotone_table()


@pytest.fixture(scope="module")
def data(table) -> bytes:
    return encode_winpct(table, INFO)


def split(data: bytes) -> tuple[dict, bytes]:
    """The header and the (compressed) body."""
    first = data.index(b"\n") + 1
    end = data.index(b"\n", first)
    return json.loads(data[first:end]), data[end + 1 :]


def forged(header: dict | str, body: bytes) -> bytes:
    """A file of ``header`` and ``body`` with a right checksum: what a careful forger, not
    damage, makes."""
    text = header if isinstance(header, str) else json.dumps(header)
    rest = text.encode() + b"\n" + body
    return b"scrab-winpct 1 %08x\n" % zlib.crc32(rest) + rest


def test_a_table_reads_back_as_written(table, data):
    back = decode_winpct(data, "t.winpct")
    assert (back.samples, back.wins, back.values) == (table.samples, table.wins, table.values)
    assert (back.spread_max, back.spread_step, back.unseen_max) == (300, 5, 93)
    assert back.name == "scrabble-kjxqz"
    assert back.info["extra"] == [1, {"a": 2}] and back.info["samples"] == sum(table.samples)
    assert back.info["counts"] is True and back.info["cells"] == 121 * 94
    assert encode_winpct(back, back.info) == data  # (a second trip changes nothing)


def test_without_counts_only_the_values_and_the_totals_are_kept(table, data):
    light = encode_winpct(table, INFO, counts=False)
    assert len(light) < len(data)
    back = decode_winpct(light, "t.winpct")
    assert back.values == table.values
    assert not any(back.samples) and not any(back.wins)
    assert back.info["counts"] is False and back.info["samples"] == sum(table.samples)
    assert encode_winpct(back, back.info, counts=False) == light


def test_a_table_whose_values_fall_is_not_written(table):
    falling = WinTable(300, 5, 93, table.samples, table.wins, array("H", table.values), "x")
    falling.values[10] = falling.values[11] + 1
    with pytest.raises(ValueError, match="fall"):
        encode_winpct(falling, INFO)


@pytest.mark.parametrize("where", [30, 200, -1, -500])
def test_one_flipped_bit_anywhere_is_caught(data, where):
    damaged = bytearray(data)
    damaged[where] ^= 0x10
    with pytest.raises(InputError, match=r"^t\.winpct: the header and body do not match the file's checksum"):
        decode_winpct(bytes(damaged), "t.winpct")


def test_truncated_and_foreign_files_are_refused(data):
    cases = [
        (data[:-7], "do not match the file's checksum"),
        (b"", "not a scrab win-probability file"),
        (b"scrab-leaves 3 00000000\n{}\n", "not a scrab win-probability file"),
        (b"scrab-winpct 2 00000000\n", "format version 2; this scrab reads version 1"),
        (b"scrab-winpct 1\n{}\n", "the first line must be 'scrab-winpct 1' and the checksum"),
        (b"scrab-winpct 1 00000000\n" + b"{" * 70_000, "the header line is missing or longer than 64,000"),
    ]
    for content, words in cases:
        with pytest.raises(InputError) as caught:
            decode_winpct(content, "t.winpct")
        assert str(caught.value).startswith("t.winpct: ") and words in str(caught.value), str(caught.value)


def _with(header: dict, **changes) -> dict:
    return {**{k: v for k, v in header.items() if k not in changes or changes[k] is not None}, **changes}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"rules": 7}, "the header's 'rules' is missing or not a string"),
        ({"counts": 1}, "the header's 'counts' is missing or not a true or false"),
        ({"spread_max": True}, "the header's 'spread_max' is missing or not a whole number"),
        ({"rules": ""}, "the header's 'rules' must be a name of 1 to 64 characters"),
        ({"spread_max": 10**12}, "the header's 'spread_max' is 1,000,000,000,000; it must be 1 to 1,000"),
        ({"spread_step": 0}, "the header's 'spread_step' is 0; it must be 1 to 100"),
        ({"spread_step": 7}, "the header's 'spread_max' is not a whole number of 'spread_step's"),
        ({"tiles": 10**9, "unseen_max": 10**9 - 7}, "the header's 'tiles' is 1,000,000,000; it must be 2 to 1,000"),
        ({"tiles": 1000, "unseen_max": 993, "spread_max": 1000, "spread_step": 1}, "the header's grid must hold 1 to"),
        ({"unseen_max": 90}, "the header's 'unseen_max' must be 'tiles' less 'rack_size'"),
        ({"cells": 5}, "the header's 'cells' is 5; its grid holds 11,374"),
        ({"samples": 3}, "the cells hold"),
        ({"spread_max": 200, "cells": 81 * 94}, "the body does not hold the 7,614 cells the header names"),
        ({"games": -1}, "the header's 'games' is -1; it must be 0 to 100,000,000"),
    ],
)
def test_a_bad_header_is_refused_even_with_a_right_checksum(data, changes, words):
    header, body = split(data)
    with pytest.raises(InputError) as caught:
        decode_winpct(forged(_with(header, **changes), body), "t.winpct")
    assert str(caught.value).startswith("t.winpct: ") and words in str(caught.value), str(caught.value)


def test_headers_that_are_no_json_object_or_nest_too_deep_are_refused(data):
    _, body = split(data)
    for text, words in (
        ("[" * 1000, "nested more than 8 deep"),
        ("[1]", "not a JSON object"),
        ('{"rules": NaN}', "not one line of JSON"),
        ("{rules}", "not one line of JSON"),
    ):
        with pytest.raises(InputError, match=words):
            decode_winpct(forged(text, body), "t.winpct")


def body_of(samples: list[int], wins: list[int], rises: list[int]) -> bytes:
    """A body as the format describes it, built here from the description (byte planes,
    lowest first), not by the code under test."""
    planes = b""
    for items, width in ((samples, 4), (wins, 4), (rises, 2)):
        planes += b"".join(bytes((x >> (8 * j)) & 255 for x in items) for j in range(width))
    return zlib.compress(planes)


def test_the_body_is_byte_planes_of_counts_and_rises(data):
    """A file written from the format's description reads as that description says."""
    header, _ = split(data)
    cells = 121 * 94
    samples = [0] * cells
    wins = [0] * cells
    samples[121 * 7 + 65], wins[121 * 7 + 65] = 70_000, 100_001  # (needs three bytes)
    rises = [0] * cells
    rises[121 * 7 + 60], rises[121 * 7 + 61] = 400, 300  # column 7: 0, ..., 0, 400, 700, ..., 700
    back = decode_winpct(forged(_with(header, samples=70_000), body_of(samples, wins, rises)), "t.winpct")
    assert back.samples[121 * 7 + 65] == 70_000 and back.wins[121 * 7 + 65] == 100_001 and sum(back.samples) == 70_000
    assert back.values[121 * 7 + 59 : 121 * 7 + 63].tolist() == [0, 400, 700, 700]
    assert back.values[121 * 8 - 1] == 700 and back.values[121 * 8] == 0


def test_cells_that_cannot_be_are_refused(data):
    header, _ = split(data)
    cells = 121 * 94
    more_wins = body_of([1] + [0] * (cells - 1), [3] + [0] * (cells - 1), [0] * cells)
    over_one = body_of([0] * cells, [0] * cells, [0] * 121 * 5 + [600, 401] + [0] * (cells - 121 * 5 - 2))
    for body, words in (
        (more_wins, "a cell holds more wins than samples"),
        (over_one, "the values of column 5 rise over 1,000 (a probability over 1)"),
    ):
        with pytest.raises(InputError, match=re.escape(words)):
            decode_winpct(forged(_with(header, samples=1 if body is more_wins else 0), body), "t.winpct")


def test_a_zlib_bomb_is_refused_after_the_bytes_the_header_names(data):
    """A small body inflating to far more than its cells stops one byte past them."""
    header, _ = split(data)
    bomb = zlib.compress(bytes(10 * 121 * 94 + 50_000_000), 9)
    assert len(bomb) < 100_000
    with pytest.raises(InputError, match="the body does not hold the 11,374 cells the header names"):
        decode_winpct(forged(header, bomb), "t.winpct")
    for body, words in ((b"not zlib at all", "not one zlib stream"), (zlib.compress(bytes(10)), "does not hold")):
        with pytest.raises(InputError, match=words):
            decode_winpct(forged(header, body), "t.winpct")


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.winpct"
    with open(path, "wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(InputError, match=f"is too large \\(over {MAX_FILE_BYTES:,} bytes\\)"):
        read_winpct(path)
    assert MAX_FILE_BYTES < 11 * MAX_CELLS  # (the bound is the largest table's, with room)


def test_every_damaged_file_is_one_error_line_in_show(tmp_path, data):
    header, body = split(data)
    flipped = bytearray(data)
    flipped[-3] ^= 1
    for name, content in (
        ("flipped", bytes(flipped)),
        ("deep", forged("[" * 1000, body)),
        ("huge", forged(_with(header, spread_max=10**12), body)),
        ("truncated", data[: len(data) // 2]),
        ("empty", b""),
    ):
        path = tmp_path / f"{name}.winpct"
        path.write_bytes(content)
        for args in (["winpct", "show", str(path)], ["winpct", "show", str(path), "--spread", "0", "--unseen", "5"]):
            result = CliRunner().invoke(cli, args)
            assert result.exit_code == 2 and result.stdout == "", (name, result.output)
            [line] = result.stderr.splitlines()
            assert line.startswith(f"Error: {path}: "), (name, line)


def test_strings_in_a_header_are_made_printable(data):
    header, body = split(data)
    back = decode_winpct(forged(_with(header, rules="scr\x1b[2Jabble\nError: x"), body), "t.winpct")
    assert back.name == "scr?[2Jabble?Error: x-kjxqz"


def test_shipped_tables_read_and_fit_their_rules():
    names = shipped_winpct_tables()
    assert "scrabble-kjxqz" in names and "scrabble-sowpods" in names
    for name in names:
        rules_name, lexicon = name.split("-", 1)
        table, note = winpct_for(rules_name, lexicon)
        assert table is not None and note is None and table.name == name
        check_fits(table, load_rules(rules_name))
        assert table.info["games"] >= 10_000 and table.info["counts"] is False


def test_tables_are_found_as_leave_tables_are():
    borrowed, note = winpct_for("scrabble", "words")
    assert borrowed is not None and note == (
        "no win probabilities trained for scrabble with words; using those of scrabble-kjxqz"
    )
    none, note = winpct_for("super", "kjxqz")
    assert (
        none is None
        and note == "no win probabilities for super (train a table with: scrab winpct train --rules super ...)"
    )
    with pytest.raises(InputError, match="covers 0 to 93 tiles unseen; rules wwf need 0 to 97"):
        check_fits(borrowed, load_rules("wwf"))

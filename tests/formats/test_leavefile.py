"""The leave file (``.leaves``): what it writes it reads back; a damaged, truncated or
foreign file is refused with one line naming it, its header included (version 3 checks it
by the file's CRC-32; issue #23, item 5); a header nested too deep (item 4) or holding
control characters (item 9) is refused or made printable; versions 1 (SHA-256) and 2
(CRC-32 of the values) still read."""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from array import array

import pytest

import solver_cli as scrab
from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
from solver_cli.errors import InputError
from solver_cli.formats.leavefile import (
    MAGIC_V1,
    MAGIC_V2,
    decode_leaves,
    encode_leaves,
    read_leaves,
    shipped_tables,
)
from solver_cli.formats.tablefile import MAX_HEADER_DEPTH

INFO = {"rules": "scrabble", "lexicon": "kjxqz", "rack_size": 7, "games": 12, "round": 2}


@pytest.fixture(scope="module")
def table() -> LeaveTable:
    rng = random.Random(5)
    return LeaveTable(array("h", (rng.randrange(-32768, 32768) for _ in range(TABLE_SIZE))), "test")


@pytest.fixture(scope="module")
def data(table) -> bytes:
    return encode_leaves(table, INFO)


def split(data: bytes) -> tuple[bytes, dict, bytes]:
    """(the first line, the header, the values)."""
    first = data.index(b"\n") + 1
    end = data.index(b"\n", first)
    return data[:first], json.loads(data[first:end]), data[end + 1 :]


def version3(header: dict | str | bytes, body: bytes) -> bytes:
    """A version 3 file of ``header`` (an object, or the header line as it is) with a correct
    checksum: what a careful forger, not damage, makes."""
    text = header if isinstance(header, str | bytes) else json.dumps(header)
    rest = (text if isinstance(text, bytes) else text.encode()) + b"\n" + body
    return b"scrab-leaves 3 %08x\n" % zlib.crc32(rest) + rest


def version2(header: dict | str, body: bytes) -> bytes:
    text = header if isinstance(header, str) else json.dumps(dict(header, crc32=zlib.crc32(body)))
    return MAGIC_V2 + text.encode() + b"\n" + body


def refused(data: bytes) -> str:
    with pytest.raises(InputError) as caught:
        decode_leaves(data, "my.leaves")
    message = str(caught.value)
    assert message.startswith("my.leaves: ") and "\n" not in message
    return message


def test_a_table_reads_back_as_written(table, data):
    first, header, body = split(data)
    # The checksum covers everything after the first line: the header and the values.
    assert first == b"scrab-leaves 3 %08x\n" % zlib.crc32(data[len(first) :])
    assert header == dict(INFO, entries=TABLE_SIZE)
    back = decode_leaves(data, "my.leaves")
    assert back.values == table.values and back.name == "scrabble-kjxqz" and back.info == header
    assert encode_leaves(back, back.info) == data


def test_a_version_1_file_checked_by_sha256_still_reads(table, data):
    _, header, body = split(data)
    old = MAGIC_V1 + json.dumps(dict(header, sha256=hashlib.sha256(body).hexdigest())).encode() + b"\n" + body
    back = decode_leaves(old, "old.leaves")
    assert back.values == table.values
    # written again, it is a version 3 file, without the stale SHA-256
    first, again, _ = split(encode_leaves(back, back.info))
    assert first.startswith(b"scrab-leaves 3 ") and "sha256" not in again
    damaged = bytearray(old)
    damaged[-1] ^= 1
    assert "do not match the header's checksum" in refused(bytes(damaged))


def test_a_version_2_file_checked_by_the_crc_of_its_values_still_reads(table, data):
    _, header, body = split(data)
    old = version2(header, body)
    back = decode_leaves(old, "old.leaves")
    assert back.values == table.values and back.info["crc32"] == zlib.crc32(body)
    first, again, _ = split(encode_leaves(back, back.info))
    assert first.startswith(b"scrab-leaves 3 ") and "crc32" not in again
    damaged = bytearray(old)
    damaged[-1] ^= 1
    assert "do not match the header's checksum" in refused(bytes(damaged))


@pytest.mark.parametrize("where", [0, 1, TABLE_SIZE, 2 * TABLE_SIZE - 1])
def test_one_flipped_bit_in_the_values_is_caught(data, where):
    damaged = bytearray(data)
    damaged[len(data) - 2 * TABLE_SIZE + where] ^= 0x10
    assert "do not match the file's checksum (damaged)" in refused(bytes(damaged))


def test_one_flipped_bit_in_the_header_is_caught(data):
    # "round":2 read as "round":0 would resume a checkpoint as if no round were done.
    at = data.index(b'"round":2') + len(b'"round":')
    damaged = bytearray(data)
    damaged[at] ^= 0x02
    assert b'"round":0' in damaged
    assert "do not match the file's checksum (damaged)" in refused(bytes(damaged))
    # and in the first line's checksum itself
    damaged = bytearray(data)
    damaged[len(b"scrab-leaves 3 ")] ^= 0x01
    assert "do not match the file's checksum" in refused(bytes(damaged))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda h: h.pop("rules"), "'rules' is missing or not a string"),
        (lambda h: h.update(rules=7), "'rules' is missing or not a string"),
        (lambda h: h.update(rules=""), "'rules' must be a name of 1 to 64 characters"),
        (lambda h: h.update(rules="r" * 65), "'rules' must be a name of 1 to 64 characters"),
        (lambda h: h.update(lexicon="w" * 256), "'lexicon' must be a name of 1 to 255 characters"),
        (lambda h: h.update(rack_size="7"), "'rack_size' is missing or not a whole number"),
        (lambda h: h.update(rack_size=True), "'rack_size' is missing or not a whole number"),
        (lambda h: h.update(rack_size=7.0), "'rack_size' is missing or not a whole number"),
        (lambda h: h.update(rack_size=0), "'rack_size' is 0; a rule set's is 1 to 20"),
        (lambda h: h.update(rack_size=-1), "'rack_size' is -1"),
        (lambda h: h.update(entries=5), "5 entries; a table holds"),
        (lambda h: h.update(entries=None), "'entries' is missing or not a whole number"),
    ],
)
def test_a_bad_header_is_refused_even_with_a_right_checksum(data, change, words):
    _, header, body = split(data)
    change(header)
    assert words in refused(version3(header, body))
    assert words in refused(version2(header, body))  # the same checks for an old file


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda h: h.pop("crc32"), "'crc32' is missing"),
        (lambda h: h.update(crc32="123"), "'crc32' is missing or not a whole number"),
        (lambda h: h.update(crc32=True), "'crc32' is missing or not a whole number"),
        (lambda h: h.update(crc32=-1), "'crc32' is not a CRC-32"),
        (lambda h: h.update(crc32=1 << 32), "'crc32' is not a CRC-32"),
        (lambda h: h.update(sha256="0" * 64) or h.pop("crc32"), "'crc32' is missing"),  # v1's checksum in v2
    ],
)
def test_a_bad_version_2_checksum_is_refused(data, change, words):
    _, header, body = split(data)
    header["crc32"] = zlib.crc32(body)
    change(header)
    assert words in refused(MAGIC_V2 + json.dumps(header).encode() + b"\n" + body)


@pytest.mark.parametrize("make", [version2, version3])
def test_a_header_nested_deep_is_refused_before_it_is_parsed(data, make):
    """The magic line and 1,000 ``[``: json.loads recursed into RecursionError."""
    _, _, body = split(data)
    assert "nested more than 8 deep" in refused(make("[" * 1000, body))
    assert "nested more than 8 deep" in refused(make('{"a":' * 1000 + "1" + "}" * 1000, body))
    deep = dict(INFO, entries=TABLE_SIZE, extra=json.loads("[" * (MAX_HEADER_DEPTH - 1) + "]" * (MAX_HEADER_DEPTH - 1)))
    assert decode_leaves(make(deep, body), "deep.leaves").info["extra"] == deep["extra"]
    deeper = dict(deep, extra=[deep["extra"]])
    assert "nested more than 8 deep" in refused(make(deeper, body))


def test_brackets_inside_strings_do_not_count_as_nesting(data):
    _, header, body = split(data)
    header["method"] = '[[[[[[[[[[ \\" {{{{{{{{{{ \\\\'
    text = json.dumps(header)
    assert decode_leaves(version3(text, body), "my.leaves").info["method"] == header["method"]
    # an escaped quote does not end the string: the brackets after it are inside it
    text = text.replace('"method": "', '"method": "\\" [[[[[[[[[[', 1)
    assert decode_leaves(version3(text, body), "my.leaves").info["method"].startswith('" [[[[')


def test_numbers_json_does_not_allow_are_refused(data):
    _, header, body = split(data)
    text = json.dumps(dict(header, smoothing=float("nan")))
    assert "NaN" in text
    assert "not one line of JSON" in refused(version3(text, body))


def test_strings_from_the_header_are_made_printable(data):
    """An ANSI escape and a line break in the header must not reach a terminal."""
    _, header, body = split(data)
    header.update(rules="\x1b[31mred\nError: forged", lexicon="k\rj", method="\x07", **{"\x1bkey": ["\n"]})
    back = decode_leaves(version3(header, body), "my.leaves")
    assert back.name == "?[31mred?Error: forged-k?j"
    assert back.info["rules"] == "?[31mred?Error: forged" and back.info["method"] == "?"
    assert back.info["?key"] == ["?"]
    for text in (back.name, json.dumps(back.info, ensure_ascii=False)):
        assert text.isprintable()


def test_truncated_foreign_and_malformed_files_are_refused(data):
    first, _, _ = split(data)
    assert "truncated?" in refused(data[:-2])
    assert "truncated?" in refused(data + b"\0")
    assert "format version 4; this scrab reads versions 1 to 3" in refused(b"scrab-leaves 4 0\n" + data[len(first) :])
    assert "the first line must be 'scrab-leaves 3' and the checksum" in refused(b"scrab-leaves 3\n" + data)
    assert "not a scrab leave file" in refused(b"")
    assert "not a scrab leave file" in refused(b"scrab-leaves")
    assert "not one line of JSON" in refused(version3("{nope", split(data)[2]))
    assert "not one line of JSON (not UTF-8)" in refused(version3(b'{"rules":"\xff"}', split(data)[2]))
    assert "header line is missing" in refused(b"scrab-leaves 3 00000000\n{}")
    assert "not a JSON object" in refused(version3("[1]", split(data)[2]))


def test_every_reader_refuses_a_deep_header_with_one_error(tmp_path, data):
    """read_leaves and the API's load_leaves (the CLI readers: tests/cli/test_leaves.py)."""
    path = tmp_path / "deep.leaves"
    path.write_bytes(MAGIC_V2 + b"[" * 1000 + b"\n" + split(data)[2])
    for read in (read_leaves, scrab.load_leaves):
        with pytest.raises(InputError, match=r"deep\.leaves: the header is nested more than 8 deep"):
            read(path)


def test_every_shipped_table_is_a_version_2_file():
    """Version 2 (the header outside the checksum) is kept for the shipped tables: package
    data, installed with the code; their values are what the training wrote."""
    from solver_cli._data import data_folder

    names = shipped_tables()
    assert {"scrabble-kjxqz", "scrabble-sowpods", "wwf-kjxqz"} <= set(names)
    for name in names:
        raw = (data_folder("leaves") / f"{name}.leaves").read_bytes()
        assert raw.startswith(MAGIC_V2)
        table = decode_leaves(raw, name)
        assert table.name == name and table.info["round"] == len(table.info["round_reports"])

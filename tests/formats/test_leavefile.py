"""The leave file (``.leaves``): what it writes it reads back; a damaged, truncated or
foreign file is refused with one line naming it; version 1 files (SHA-256) still read."""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from array import array

import pytest

from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
from solver_cli.errors import InputError
from solver_cli.formats.leavefile import MAGIC, MAGIC_V1, decode_leaves, encode_leaves, shipped_tables

INFO = {"rules": "scrabble", "lexicon": "kjxqz", "rack_size": 7, "games": 12}


@pytest.fixture(scope="module")
def table() -> LeaveTable:
    rng = random.Random(5)
    return LeaveTable(array("h", (rng.randrange(-32768, 32768) for _ in range(TABLE_SIZE))), "test")


@pytest.fixture(scope="module")
def data(table) -> bytes:
    return encode_leaves(table, INFO)


def split(data: bytes) -> tuple[bytes, dict, bytes]:
    end = data.index(b"\n", len(MAGIC))
    return data[: len(MAGIC)], json.loads(data[len(MAGIC) : end]), data[end + 1 :]


def join(magic: bytes, header: dict, body: bytes) -> bytes:
    return magic + json.dumps(header).encode() + b"\n" + body


def refused(data: bytes) -> str:
    with pytest.raises(InputError) as caught:
        decode_leaves(data, "my.leaves")
    message = str(caught.value)
    assert message.startswith("my.leaves: ") and "\n" not in message
    return message


def test_a_table_reads_back_as_written(table, data):
    magic, header, body = split(data)
    assert magic == MAGIC == b"scrab-leaves 2\n"
    assert header == dict(INFO, entries=TABLE_SIZE, crc32=zlib.crc32(body))
    back = decode_leaves(data, "my.leaves")
    assert back.values == table.values and back.name == "scrabble-kjxqz" and back.info == header


def test_a_version_1_file_checked_by_sha256_still_reads(table, data):
    _, header, body = split(data)
    del header["crc32"]
    old = join(MAGIC_V1, dict(header, sha256=hashlib.sha256(body).hexdigest()), body)
    back = decode_leaves(old, "old.leaves")
    assert back.values == table.values
    # written again, it is a version 2 file, without the stale SHA-256
    magic, again, _ = split(encode_leaves(back, back.info))
    assert magic == MAGIC and "sha256" not in again and again["crc32"] == zlib.crc32(body)
    damaged = bytearray(old)
    damaged[-1] ^= 1
    assert "do not match the header's checksum" in refused(bytes(damaged))


@pytest.mark.parametrize("where", [0, 1, TABLE_SIZE, 2 * TABLE_SIZE - 1])
def test_one_flipped_bit_in_the_values_is_caught(data, where):
    magic, header, body = split(data)
    damaged = bytearray(body)
    damaged[where] ^= 0x10
    assert "do not match the header's checksum (damaged)" in refused(join(magic, header, bytes(damaged)))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda h: h.pop("crc32"), "'crc32' is missing"),
        (lambda h: h.update(crc32="123"), "'crc32' is missing or not a int"),
        (lambda h: h.update(crc32=True), "'crc32' is missing or not a int"),
        (lambda h: h.update(sha256="0" * 64) or h.pop("crc32"), "'crc32' is missing"),  # v1's checksum in v2
        (lambda h: h.pop("rules"), "'rules' is missing"),
        (lambda h: h.update(entries=5), "5 entries; a table holds"),
    ],
)
def test_a_bad_header_is_refused(data, change, words):
    magic, header, body = split(data)
    change(header)
    assert words in refused(join(magic, header, body))


def test_truncated_foreign_and_malformed_files_are_refused(data):
    assert "truncated?" in refused(data[:-2])
    assert "not a scrab leave file" in refused(b"scrab-leaves 3\n" + data[len(MAGIC) :])
    assert "not a scrab leave file" in refused(b"")
    assert "not one line of JSON" in refused(MAGIC + b"{nope\n" + data[data.index(b"\n", len(MAGIC)) + 1 :])
    assert "header line is missing" in refused(MAGIC + b"{}")


def test_every_shipped_table_is_a_version_2_file():
    from solver_cli._data import data_folder

    names = shipped_tables()
    assert {"scrabble-kjxqz", "scrabble-sowpods", "wwf-kjxqz"} <= set(names)
    for name in names:
        raw = (data_folder("leaves") / f"{name}.leaves").read_bytes()
        assert raw.startswith(MAGIC)
        assert decode_leaves(raw, name).name == name

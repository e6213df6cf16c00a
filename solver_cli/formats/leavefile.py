"""Leave-value files (``.leaves``): one trained ``LeaveTable`` per rule set and lexicon.

Layout::

    scrab-leaves 2\\n                  magic and format version
    {"rules": "scrabble", ...}\\n      one line of JSON: the header (below)
    <values>                          TABLE_SIZE int16, little-endian: hundredths of a point,
                                      at each leave's ``engine.leaves.leave_index``

The header holds ``rules``, ``lexicon`` (names), ``rack_size``, ``entries`` (must be
``TABLE_SIZE``), ``crc32`` (of the values' bytes), and what the training recorded:
``games``, ``rounds``, ``seconds``, ``machine``, ``created``, ``method``, ``seed`` (any
other keys are kept and shown, never interpreted). The values are stored raw (2.2 MB): a
load is one bounded read and a checksum, about a millisecond; packages compress them anyway.
Version 1 files (``scrab-leaves 1``, the checksum a ``sha256``) are still read.

The checksum catches damage (a truncated or flipped file), not forgery: a leave value is
only a number, and any int16 is a safe one. CRC-32 finds every burst error of up to 32 bits
and costs a third of a SHA-256, whose import alone (OpenSSL) was 2 ms of every ``scrab
solve``.

Reading trusts nothing: the size is bounded before anything is read, the header must be one
line of JSON with the right types, and the checksum must match. Shipped tables live in
``solver_cli/data/leaves/RULES-LEXICON.leaves``.
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array
from pathlib import Path

from solver_cli._data import data_folder
from solver_cli._io import read_limited, write_atomically
from solver_cli._text import plural
from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
from solver_cli.errors import InputError

MAGIC = b"scrab-leaves 2\n"
MAGIC_V1 = b"scrab-leaves 1\n"  # the same, checked by a SHA-256
MAX_HEADER_BYTES = 64_000
MAX_FILE_BYTES = len(MAGIC) + MAX_HEADER_BYTES + 2 * TABLE_SIZE
_REQUIRED = {"rules": str, "lexicon": str, "rack_size": int, "entries": int}


def read_leaves(path: str | Path) -> LeaveTable:
    """The leave table in the file ``path``; ``InputError`` naming the file and the problem."""
    data = read_limited(str(path), MAX_FILE_BYTES, "leave file")
    return decode_leaves(data, str(path))


def decode_leaves(data: bytes, name: str) -> LeaveTable:
    version1 = data.startswith(MAGIC_V1)
    if not data.startswith(MAGIC) and not version1:
        raise InputError(f"{name}: not a scrab leave file (it must start with {MAGIC[:-1].decode()!r})")
    end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER_BYTES + 1)
    if end < 0:
        raise InputError(f"{name}: the header line is missing or longer than {MAX_HEADER_BYTES:,} bytes")
    try:
        header = json.loads(data[len(MAGIC) : end].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InputError(f"{name}: the header is not one line of JSON") from None
    if not isinstance(header, dict):
        raise InputError(f"{name}: the header is not a JSON object")
    checksum_kind = {"sha256": str} if version1 else {"crc32": int}
    for key, kind in (_REQUIRED | checksum_kind).items():
        if type(header.get(key)) is not kind:
            raise InputError(f"{name}: the header's {key!r} is missing or not a {kind.__name__}")
    if header["entries"] != TABLE_SIZE:
        raise InputError(f"{name}: {plural(header['entries'], 'entry', 'entries')}; a table holds {TABLE_SIZE:,}")
    body = memoryview(data)[end + 1 :]  # (not a copy: 2.2 MB of fresh pages cost a millisecond)
    if len(body) != 2 * TABLE_SIZE:
        raise InputError(f"{name}: {len(body):,} bytes of values; {2 * TABLE_SIZE:,} expected (truncated?)")
    if not _checksum_matches(body, header, version1):
        raise InputError(f"{name}: the values do not match the header's checksum (damaged)")
    values = array("h")
    values.frombytes(body)
    if sys.byteorder != "little":
        values.byteswap()
    return LeaveTable(values, f"{header['rules']}-{header['lexicon']}", header)


def _checksum_matches(body: memoryview, header: dict[str, object], version1: bool) -> bool:
    if version1:
        import hashlib  # here: only an old file needs it (OpenSSL's import is 2 ms of start-up)

        return hashlib.sha256(body).hexdigest() == header["sha256"]
    return zlib.crc32(body) == header["crc32"]


def encode_leaves(table: LeaveTable, info: dict[str, object]) -> bytes:
    """The file's bytes for ``table``; ``info`` must hold ``rules``, ``lexicon`` and
    ``rack_size`` (and may hold the training figures)."""
    values = array("h", table.values)
    if sys.byteorder != "little":
        values.byteswap()
    body = values.tobytes()
    header = {key: value for key, value in info.items() if key != "sha256"}  # (read from a version 1 file)
    header.update(entries=TABLE_SIZE, crc32=zlib.crc32(body))
    line = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    if b"\n" in line or len(line) > MAX_HEADER_BYTES:
        raise ValueError("header too long")
    return MAGIC + line + b"\n" + body


def write_leaves(path: str | Path, table: LeaveTable, info: dict[str, object]) -> None:
    """Write atomically (a temporary file, then a rename): a reader never sees half a table."""
    data = encode_leaves(table, info)
    write_atomically(Path(path), data)


def shipped_leaves(rules: str, lexicon: str) -> LeaveTable | None:
    """The shipped table trained for ``rules`` and ``lexicon`` (names), or None."""
    resource = data_folder("leaves") / f"{rules}-{lexicon}.leaves"
    if not resource.is_file():
        return None
    return decode_leaves(resource.read_bytes(), f"{rules}-{lexicon}.leaves")


def shipped_tables() -> list[str]:
    """The ``rules-lexicon`` names of the shipped tables."""
    folder = data_folder("leaves")
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(".leaves")] for p in folder.iterdir() if p.name.endswith(".leaves"))


def table_for(rules: str, lexicon: str, path: str | None = None) -> tuple[LeaveTable, str | None]:
    """The leave table to rank by for ``rules`` and ``lexicon`` (names), and a note to show
    when it is not the one trained for them: the file ``path`` if given; else the shipped
    table for both; else one shipped for the same rules and another lexicon (leave values
    follow the tile distribution far more than the word list); else zeros (score plus the
    end-of-game adjustments), with a note saying how to train one."""
    if path is not None:
        return read_leaves(path), None
    table = shipped_leaves(rules, lexicon)
    if table is not None:
        return table, None
    for name in shipped_tables():
        if name.startswith(f"{rules}-"):
            other = shipped_leaves(rules, name[len(rules) + 1 :])
            assert other is not None
            return other, f"no leave values trained for {rules} with {lexicon}; using those of {name}"
    note = (
        f"no leave values for {rules}: ranking by score and the end-of-game adjustments "
        f"(train a table with: scrab leaves train --rules {rules} ...)"
    )
    return LeaveTable.zeros("zero"), note

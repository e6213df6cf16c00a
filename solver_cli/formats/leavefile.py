"""Leave-value files (``.leaves``): one trained ``LeaveTable`` per rule set and lexicon.

Layout (format version 3)::

    scrab-leaves 3 0a1b2c3d\\n         magic, format version, and the CRC-32 (8 hex digits) of
                                      every byte after this line: header and values alike
    {"rules": "scrabble", ...}\\n      one line of JSON: the header (below)
    <values>                          TABLE_SIZE int16, little-endian: hundredths of a point,
                                      at each leave's ``engine.leaves.leave_index``

The header holds ``rules``, ``lexicon`` (names), ``rack_size``, ``entries`` (must be
``TABLE_SIZE``) and what the training recorded: ``method``, ``plan``, ``round`` and
``round_reports`` (which ``games.leavegen`` checks when it resumes from the file); any other
keys are kept, never interpreted. The values are stored raw (2.2 MB): a load is one bounded
read and a checksum, about a millisecond; packages compress them anyway.

Versions 1 and 2 (``scrab-leaves 1`` / ``2``) are still read: their checksum, in the header
(``sha256`` of the values, or ``crc32``), covers the values only, so a damaged header
(``"round":2`` read as ``0``) goes unnoticed there unless its fields contradict each other.
The shipped tables are version 2 files: package data, installed with the code.

The checksum catches damage (a truncated or flipped file), not forgery: a leave value is
only a number, and any int16 is a safe one. CRC-32 finds every burst error of up to 32 bits
and costs a third of a SHA-256, whose import alone (OpenSSL) was 2 ms of every ``scrab
solve``.

Reading trusts nothing: the size is bounded before anything is read; the checksum must
match before the header is parsed; the header must be one line of JSON, an object nested at
most ``tablefile.MAX_HEADER_DEPTH`` deep (checked before the parser, which recurses once per level),
with the right types and ranges; and every string in it is made printable (``_io.one_line``)
before anything can show it. Shipped tables live in
``solver_cli/data/leaves/RULES-LEXICON.leaves``.
"""

from __future__ import annotations

import re
import sys
import zlib
from array import array
from pathlib import Path

from solver_cli._io import read_limited, write_atomically
from solver_cli._text import plural
from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable
from solver_cli.engine.rules import MAX_RACK_SIZE
from solver_cli.errors import InputError
from solver_cli.formats.tablefile import (
    check_names,
    check_types,
    find_table,
    header_bytes,
    header_end,
    parse_header,
    shipped_names,
    shipped_table,
    user_table,
    user_table_path,
)

VERSION = 3
SUFFIX = ".leaves"
MAGIC_V1 = b"scrab-leaves 1\n"  # the checksum a SHA-256 of the values, in the header
MAGIC_V2 = b"scrab-leaves 2\n"  # the checksum a CRC-32 of the values, in the header
_MAGIC_V3 = re.compile(rb"scrab-leaves 3 ([0-9a-f]{8})\n")
MAGIC_LINE_BYTES = len(b"scrab-leaves 3 0a1b2c3d\n")
MAX_HEADER_BYTES = 64_000
MAX_FILE_BYTES = MAGIC_LINE_BYTES + MAX_HEADER_BYTES + 1 + 2 * TABLE_SIZE


def read_leaves(path: str | Path) -> LeaveTable:
    """The leave table in the file ``path``; ``InputError`` naming the file and the problem."""
    data = read_limited(str(path), MAX_FILE_BYTES, "leave file")
    return decode_leaves(data, str(path))


def decode_leaves(data: bytes, name: str) -> LeaveTable:
    version, start, crc = _magic(data, name)
    end = header_end(data, start, name, MAX_HEADER_BYTES)
    body = memoryview(data)[end + 1 :]  # (not a copy: 2.2 MB of fresh pages cost a millisecond)
    if len(body) != 2 * TABLE_SIZE:
        raise InputError(f"{name}: {len(body):,} bytes of values; {2 * TABLE_SIZE:,} expected (truncated?)")
    if version == 3 and zlib.crc32(memoryview(data)[start:]) != crc:
        raise InputError(f"{name}: the header and values do not match the file's checksum (damaged)")
    header = _header(data[start:end], name, version)
    if not _checksum_matches(body, header, version):
        raise InputError(f"{name}: the values do not match the header's checksum (damaged)")
    values = array("h")
    values.frombytes(body)
    if sys.byteorder != "little":
        values.byteswap()
    return LeaveTable(values, f"{header['rules']}-{header['lexicon']}", header)


def _magic(data: bytes, name: str) -> tuple[int, int, int]:
    """The format version, where the header starts, and (version 3) the file's checksum."""
    if data.startswith(MAGIC_V1):
        return 1, len(MAGIC_V1), 0
    if data.startswith(MAGIC_V2):
        return 2, len(MAGIC_V2), 0
    match = _MAGIC_V3.match(data)
    if match:
        return 3, match.end(), int(match.group(1), 16)
    other = re.match(rb"scrab-leaves (\d{1,6})[ \n]", data)
    if other and int(other.group(1)) > VERSION:
        raise InputError(
            f"{name}: a leave file of format version {int(other.group(1))}; this scrab reads versions 1 to {VERSION}"
        )
    if data.startswith(b"scrab-leaves 3"):
        raise InputError(f"{name}: the first line must be 'scrab-leaves 3' and the checksum (8 hex digits)")
    raise InputError(f"{name}: not a scrab leave file (it must start with 'scrab-leaves {VERSION}')")


def _header(line: bytes, name: str, version: int) -> dict[str, object]:
    """The header, checked: one JSON object, nested at most ``MAX_HEADER_DEPTH`` deep, the
    fields scrab interprets of the right types and ranges, every string printable."""
    checked = parse_header(line, name)
    checksum_kind: dict[str, type] = {"sha256": str} if version == 1 else {"crc32": int} if version == 2 else {}
    check_types(checked, _REQUIRED | checksum_kind, name)
    if checked["entries"] != TABLE_SIZE:
        raise InputError(f"{name}: {plural(checked['entries'], 'entry', 'entries')}; a table holds {TABLE_SIZE:,}")
    check_names(checked, name)
    rack_size = checked["rack_size"]
    assert isinstance(rack_size, int)
    if not 1 <= rack_size <= MAX_RACK_SIZE:
        raise InputError(f"{name}: the header's 'rack_size' is {rack_size}; a rule set's is 1 to {MAX_RACK_SIZE}")
    crc32 = checked.get("crc32")
    if version == 2 and not (isinstance(crc32, int) and 0 <= crc32 < 1 << 32):
        raise InputError(f"{name}: the header's 'crc32' is not a CRC-32 (0 to {(1 << 32) - 1:,})")
    return checked


_REQUIRED: dict[str, type] = {"rules": str, "lexicon": str, "rack_size": int, "entries": int}


def _checksum_matches(body: memoryview, header: dict[str, object], version: int) -> bool:
    """Versions 1 and 2: the values against the header's checksum (version 3 checked the
    whole file already)."""
    if version == 1:
        import hashlib  # here: only an old file needs it (OpenSSL's import is 2 ms of start-up)

        return hashlib.sha256(body).hexdigest() == header["sha256"]
    if version == 2:
        return zlib.crc32(body) == header["crc32"]
    return True


def encode_leaves(table: LeaveTable, info: dict[str, object]) -> bytes:
    """The file's bytes for ``table`` (format version 3); ``info`` must hold ``rules``,
    ``lexicon`` and ``rack_size`` (and may hold the training figures)."""
    values = array("h", table.values)
    if sys.byteorder != "little":
        values.byteswap()
    # (an old file's checksum of its values alone is not carried over)
    header = {key: value for key, value in info.items() if key not in ("sha256", "crc32")}
    header["entries"] = TABLE_SIZE
    rest = header_bytes(header, MAX_HEADER_BYTES) + b"\n" + values.tobytes()
    return b"scrab-leaves %d %08x\n" % (VERSION, zlib.crc32(rest)) + rest


def write_leaves(path: str | Path, table: LeaveTable, info: dict[str, object]) -> None:
    """Write atomically (a temporary file, then a rename): a reader never sees half a table."""
    data = encode_leaves(table, info)
    write_atomically(Path(path), data)


def shipped_leaves(rules: str, lexicon: str) -> LeaveTable | None:
    """The shipped table trained for ``rules`` and ``lexicon`` (names), or None."""
    return shipped_table("leaves", SUFFIX, rules, lexicon, decode_leaves)


def shipped_tables() -> list[str]:
    """The ``rules-lexicon`` names of the shipped tables."""
    return shipped_names("leaves", SUFFIX)


def user_leaves_path(rules: str, lexicon: str) -> Path:
    """Where ``scrab leaves train --lexicon NAME`` keeps the table of one of the user's own
    word lists, and where it is found again: ``leaves/RULES-NAME.leaves`` in the user data
    folder. OSError when there is no such folder."""
    return user_table_path("leaves", SUFFIX, rules, lexicon)


def _user_leaves(rules: str, lexicon: str) -> LeaveTable | None:
    """The user's table for ``rules`` and their list ``lexicon``, when its folder is theirs alone."""
    return user_table(lambda: user_leaves_path(rules, lexicon), read_leaves)


def table_for(
    rules: str, lexicon: str, path: str | None = None, *, own_list: bool = False
) -> tuple[LeaveTable, str | None]:
    """The leave table to rank by for ``rules`` and ``lexicon`` (names), and a note to show
    when it is not the one trained for them: the file ``path`` if given; else the shipped
    table for both; for ``own_list`` (a list of the user's, by name) the table trained for
    it in the user data folder; else one shipped for the same rules and another lexicon
    (leave values follow the tile distribution far more than the word list); else zeros
    (score plus the end-of-game adjustments), with a note saying how to train one."""
    table, borrowed = find_table(
        rules,
        lexicon,
        path,
        own_list,
        read=read_leaves,
        shipped=shipped_leaves,  # (looked up at each call: tests stand in for the shipped tables)
        shipped_names=shipped_tables,
        users=_user_leaves,
    )
    if table is not None and borrowed is not None:
        train = (
            f" (train its own: scrab leaves train --rules {rules} --lexicon {lexicon} --games N)" if own_list else ""
        )
        return table, f"no leave values trained for {rules} with {lexicon}; using those of {borrowed}{train}"
    if table is not None:
        return table, None
    note = (
        f"no leave values for {rules}: ranking by score and the end-of-game adjustments "
        f"(train a table with: scrab leaves train --rules {rules} ...)"
    )
    return LeaveTable.zeros("zero"), note

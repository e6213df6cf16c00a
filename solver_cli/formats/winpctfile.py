"""Win-probability files (``.winpct``): one trained ``WinTable`` per rule set and lexicon.

Layout (format version 1)::

    scrab-winpct 1 0a1b2c3d\\n         magic, format version, and the CRC-32 (8 hex digits) of
                                      every byte after this line: header and body alike
    {"rules": "scrabble", ...}\\n      one line of JSON: the header (below)
    <body>                            one zlib stream holding, cell by cell in
                                      ``engine.winpct.WinTable``'s order: the samples
                                      (uint32) and the half-wins (uint32) when ``counts`` is
                                      true, then the smoothed values (uint16, 1,000 =
                                      certain) as the rise from the row before (from 0 in a
                                      column's first row); each array split in byte planes,
                                      its items' lowest bytes first

The header holds ``rules``, ``lexicon`` (names), ``rack_size``, ``tiles`` (the rule set's
tile total), the grid (``spread_max``, ``spread_step``, ``unseen_max``, which must be
``tiles - rack_size``, and ``cells``), and what training recorded: ``games`` and
``samples`` (the turns counted, which must be the sum of the cells' samples when they are
kept), ``counts`` (whether they are), ``plan`` (the seed, the smoothing and the leave table
the players used, which ``--resume`` checks), ``method`` and ``standard_error``; any other
keys are kept, never interpreted. The counts let a training go on (``--resume``) and its
cells be checked, but take most of the room: the shipped tables leave them out
(``--no-counts``). The values are stored as rises, never negative, so a column cannot fall
as the spread grows, whoever wrote the file; rises and byte planes (the high bytes are
mostly 0) are what zlib compresses well: a third less than the plain values.

Reading trusts nothing, as for leave files (``formats.leavefile``): the size is bounded
before anything is read; the checksum must match before the header is parsed; the header is
one line of JSON nested at most ``MAX_HEADER_DEPTH`` deep, with the right types and ranges
(the grid at most ``engine.winpct.MAX_CELLS`` cells, so the body's size is known before it
is inflated, and inflating stops one byte past it); every string is made printable; and the
cells must agree with each other (no more half-wins than twice the samples; no column
rising over 1,000, and none can fall as the spread grows). Shipped tables live in
``solver_cli/data/winpct/RULES-LEXICON.winpct``, the user's (for their own word lists) in the
user data folder's ``winpct/``.
"""

from __future__ import annotations

import re
import sys
import zlib
from array import array
from itertools import accumulate
from pathlib import Path
from typing import Any

from solver_cli._io import read_limited, write_atomically
from solver_cli.engine.rules import MAX_RACK_SIZE, MAX_TILES, Rules
from solver_cli.engine.winpct import MAX_CELLS, MAX_SPREAD, MAX_SPREAD_STEP, SCALE, WinTable, spread_rows
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

VERSION = 1
SUFFIX = ".winpct"
_MAGIC = re.compile(rb"scrab-winpct 1 ([0-9a-f]{8})\n")
MAGIC_LINE_BYTES = len(b"scrab-winpct 1 0a1b2c3d\n")
MAX_HEADER_BYTES = 64_000
MAX_GAMES = 100_000_000
MAX_BODY_BYTES = 10 * MAX_CELLS + 65_536  # zlib's worst case for 10 bytes a cell, with room
MAX_FILE_BYTES = MAGIC_LINE_BYTES + MAX_HEADER_BYTES + 1 + MAX_BODY_BYTES


def read_winpct(path: str | Path) -> WinTable:
    """The win table in the file ``path``; ``InputError`` naming the file and the problem."""
    data = read_limited(str(path), MAX_FILE_BYTES, "win-probability file")
    return decode_winpct(data, str(path))


def decode_winpct(data: bytes, name: str) -> WinTable:
    match = _MAGIC.match(data)
    if match is None:
        other = re.match(rb"scrab-winpct (\d{1,6})[ \n]", data)
        if other and int(other.group(1)) != VERSION:
            raise InputError(
                f"{name}: a win-probability file of format version {int(other.group(1))}; this scrab reads "
                f"version {VERSION}"
            )
        if data.startswith(b"scrab-winpct"):
            raise InputError(f"{name}: the first line must be 'scrab-winpct 1' and the checksum (8 hex digits)")
        raise InputError(f"{name}: not a scrab win-probability file (it must start with 'scrab-winpct {VERSION}')")
    start = match.end()
    end = header_end(data, start, name, MAX_HEADER_BYTES)
    if zlib.crc32(memoryview(data)[start:]) != int(match.group(1), 16):
        raise InputError(f"{name}: the header and body do not match the file's checksum (damaged)")
    header = _header(data[start:end], name)
    spread_max, step, unseen_max = header["spread_max"], header["spread_step"], header["unseen_max"]
    cells = spread_rows(spread_max, step) * (unseen_max + 1)
    counted = header["counts"] is True
    expected = (10 if counted else 2) * cells
    inflater = zlib.decompressobj()
    try:
        body = inflater.decompress(memoryview(data)[end + 1 :], expected + 1)
    except zlib.error:
        raise InputError(f"{name}: the body is not one zlib stream (damaged)") from None
    if len(body) != expected or not inflater.eof or inflater.unused_data:
        raise InputError(f"{name}: the body does not hold the {cells:,} cells the header names ({expected:,} bytes)")
    if counted:
        samples, wins = _from_planes(body[: 4 * cells], "I"), _from_planes(body[4 * cells : 8 * cells], "I")
    else:  # (no counts kept: empty cells)
        samples, wins = array("I", bytes(4 * cells)), array("I", bytes(4 * cells))
    rows = spread_rows(spread_max, step)
    rises = _from_planes(body[len(body) - 2 * cells :], "H")
    values = array("H")
    for column in range(unseen_max + 1):
        column_values = list(accumulate(rises[column * rows : (column + 1) * rows]))
        if column_values[-1] > SCALE:
            raise InputError(f"{name}: the values of column {column} rise over {SCALE:,} (a probability over 1)")
        values.extend(column_values)
    _check_cells(name, header, samples, wins)
    table_name = f"{header['rules']}-{header['lexicon']}"
    return WinTable(spread_max, step, unseen_max, samples, wins, values, table_name, header)


def _header(line: bytes, name: str) -> dict[str, Any]:
    """The header, checked: one JSON object, nested at most ``MAX_HEADER_DEPTH`` deep, the
    fields scrab interprets of the right types and ranges and agreeing with each other."""
    header = parse_header(line, name)
    check_types(header, _REQUIRED, name)
    check_names(header, name)
    for key, least, most in (
        ("rack_size", 1, MAX_RACK_SIZE),
        ("tiles", 2, MAX_TILES),
        ("spread_max", 1, MAX_SPREAD),
        ("spread_step", 1, MAX_SPREAD_STEP),
        ("games", 0, MAX_GAMES),
    ):
        if not least <= header[key] <= most:
            raise InputError(f"{name}: the header's {key!r} is {header[key]:,}; it must be {least:,} to {most:,}")
    if header["spread_max"] % header["spread_step"]:
        raise InputError(f"{name}: the header's 'spread_max' is not a whole number of 'spread_step's")
    if header["unseen_max"] != header["tiles"] - header["rack_size"]:
        raise InputError(f"{name}: the header's 'unseen_max' must be 'tiles' less 'rack_size'")
    rows = spread_rows(header["spread_max"], header["spread_step"])
    if header["unseen_max"] < 1 or rows * (header["unseen_max"] + 1) > MAX_CELLS:
        raise InputError(f"{name}: the header's grid must hold 1 to {MAX_CELLS:,} cells")
    if header["cells"] != rows * (header["unseen_max"] + 1):
        raise InputError(
            f"{name}: the header's 'cells' is {header['cells']:,}; its grid holds {rows * (header['unseen_max'] + 1):,}"
        )
    return header


_REQUIRED: dict[str, type] = {
    "rules": str,
    "lexicon": str,
    "rack_size": int,
    "tiles": int,
    "spread_max": int,
    "spread_step": int,
    "unseen_max": int,
    "cells": int,
    "games": int,
    "samples": int,
    "counts": bool,
}


def _check_cells(name: str, header: dict[str, object], samples: array[int], wins: array[int]) -> None:
    """The counts against each other and the header (a file made by hand or by another
    program passes the checksum: it must still be a table training can go on from)."""
    if header["counts"] and sum(samples) != header["samples"]:
        raise InputError(f"{name}: the cells hold {sum(samples):,} samples; the header says {header['samples']:,}")
    if any(won > 2 * count for count, won in zip(samples, wins, strict=True)):
        raise InputError(f"{name}: a cell holds more wins than samples")


def _planes(values: array[int]) -> bytes:
    """``values`` split in byte planes, the items' lowest bytes first."""
    data = values.tobytes()
    width = values.itemsize
    order = range(width) if sys.byteorder == "little" else range(width - 1, -1, -1)
    return b"".join(data[j::width] for j in order)


def _from_planes(data: bytes, typecode: str) -> array[int]:
    """The inverse of ``_planes``."""
    result = array(typecode)
    width = result.itemsize
    count = len(data) // width
    merged = bytearray(len(data))
    for plane in range(width):
        at = plane if sys.byteorder == "little" else width - 1 - plane
        merged[at::width] = data[plane * count : (plane + 1) * count]
    result.frombytes(bytes(merged))
    return result


def encode_winpct(table: WinTable, info: dict[str, object], *, counts: bool = True) -> bytes:
    """The file's bytes for ``table``; ``info`` must hold ``rules``, ``lexicon``, ``rack_size``,
    ``tiles`` and ``games`` (and may hold the training figures). ``counts``: keep the cells'
    counts (needed to go on training), not only the values."""
    parts = [_planes(table.samples), _planes(table.wins)] if counts else []
    rows = table.rows
    values = table.values
    rises = [values[i] - values[i - 1] if i % rows else values[i] for i in range(len(values))]
    if min(rises) < 0:
        raise ValueError("the values fall as the spread grows")
    parts.append(_planes(array("H", rises)))
    header = dict(info)
    header.update(
        spread_max=table.spread_max,
        spread_step=table.spread_step,
        unseen_max=table.unseen_max,
        cells=table.cells,
        # (a table read without its counts still knows how many there were)
        samples=sum(table.samples) if counts or "samples" not in info else info["samples"],
        counts=counts,
    )
    rest = header_bytes(header, MAX_HEADER_BYTES) + b"\n" + zlib.compress(b"".join(parts), 9)
    return b"scrab-winpct %d %08x\n" % (VERSION, zlib.crc32(rest)) + rest


def write_winpct(path: str | Path, table: WinTable, info: dict[str, object], *, counts: bool = True) -> None:
    """Write atomically (a temporary file, then a rename): a reader never sees half a table."""
    write_atomically(Path(path), encode_winpct(table, info, counts=counts))


def shipped_winpct(rules: str, lexicon: str) -> WinTable | None:
    """The shipped table trained for ``rules`` and ``lexicon`` (names), or None."""
    return shipped_table("winpct", SUFFIX, rules, lexicon, decode_winpct)


def shipped_winpct_tables() -> list[str]:
    """The ``rules-lexicon`` names of the shipped tables."""
    return shipped_names("winpct", SUFFIX)


def user_winpct_path(rules: str, lexicon: str) -> Path:
    """Where ``scrab winpct train --lexicon NAME`` keeps the table of one of the user's own
    word lists, and where it is found again: ``winpct/RULES-NAME.winpct`` in the user data
    folder. OSError when there is no such folder."""
    return user_table_path("winpct", SUFFIX, rules, lexicon)


def _user_winpct(rules: str, lexicon: str) -> WinTable | None:
    return user_table(lambda: user_winpct_path(rules, lexicon), read_winpct)


def winpct_for(
    rules: str, lexicon: str, path: str | None = None, *, own_list: bool = False
) -> tuple[WinTable | None, str | None]:
    """The win table for ``rules`` and ``lexicon`` (names), found as ``leavefile.table_for``
    finds leave tables, and a note when it is not the one trained for them: the file
    ``path`` if given; else the shipped table for both; for ``own_list`` the user's own in
    the user data folder; else one shipped for the same rules and another lexicon (the
    chances follow the rules far more than the word list); else None, with a note."""
    table, borrowed = find_table(
        rules,
        lexicon,
        path,
        own_list,
        read=read_winpct,
        shipped=shipped_winpct,
        shipped_names=shipped_winpct_tables,
        users=_user_winpct,
    )
    if table is not None and borrowed is not None:
        return table, f"no win probabilities trained for {rules} with {lexicon}; using those of {borrowed}"
    if table is not None:
        return table, None
    return None, f"no win probabilities for {rules} (train a table with: scrab winpct train --rules {rules} ...)"


def check_fits(table: WinTable, rules: Rules) -> None:
    """Refuse a table whose columns do not fit ``rules`` (another tile total or rack size)."""
    unseen_max = sum(rules.counts) - rules.rack_size
    if table.unseen_max != unseen_max:
        raise InputError(
            f"the win table {table.name} covers 0 to {table.unseen_max:,} tiles unseen; "
            f"rules {rules.name} need 0 to {unseen_max:,}"
        )

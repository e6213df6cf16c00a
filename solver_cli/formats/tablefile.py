"""What the table files share: leave files (``formats.leavefile``) and win-probability files
(``formats.winpctfile``) both start with a magic line and one line of JSON, the header, read
with the same distrust, and both are found the same way: shipped with the package as
``RULES-LEXICON.SUFFIX`` in one data folder, or kept in the user data folder for the user's
own word lists. Each file module keeps its own layout, checks and messages beyond these.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from solver_cli._data import data_folder, untrusted_folder, user_data_dir
from solver_cli._io import one_line
from solver_cli.engine.rules import MAX_NAME_LENGTH
from solver_cli.errors import InputError

MAX_HEADER_DEPTH = 8  # objects and arrays in one another; scrab writes 3 (round_reports: [{...}])
MAX_LEXICON_NAME = 255  # a word list's file name without its suffixes
_JSON_SPECIAL = re.compile(r'[\[\]{}"\\]')
_KIND_NAMES: dict[type, str] = {str: "string", int: "whole number", bool: "true or false"}

Table = TypeVar("Table")


# --- the header -----------------------------------------------------------------------------


def header_end(data: bytes, start: int, name: str, most: int) -> int:
    """Where the header line that starts at ``start`` ends (its newline), looking no further
    than ``most`` bytes; ``InputError`` when there is none that near."""
    end = data.find(b"\n", start, start + most + 1)
    if end < 0:
        raise InputError(f"{name}: the header line is missing or longer than {most:,} bytes")
    return end


def parse_header(line: bytes, name: str) -> dict[str, Any]:
    """The header line as a JSON object, nested at most ``MAX_HEADER_DEPTH`` deep, with every
    string in it made printable; ``InputError`` naming the file otherwise. The fields are
    the caller's to check (``check_types``, ``check_names``)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{name}: the header is not one line of JSON (not UTF-8)") from None
    if _nesting(text) > MAX_HEADER_DEPTH:
        raise InputError(f"{name}: the header is nested more than {MAX_HEADER_DEPTH} deep")
    try:
        parsed = json.loads(text, parse_constant=_no_constant)
    except ValueError:
        raise InputError(f"{name}: the header is not one line of JSON") from None
    if not isinstance(parsed, dict):
        raise InputError(f"{name}: the header is not a JSON object")
    header = _printable(parsed)
    assert isinstance(header, dict)
    return header


def check_types(header: dict[str, Any], required: dict[str, type], name: str) -> None:
    """Each field of ``required`` present, of exactly its type (``True`` is no whole number)."""
    for key, kind in required.items():
        if type(header.get(key)) is not kind:
            raise InputError(f"{name}: the header's {key!r} is missing or not a {_KIND_NAMES[kind]}")


def check_names(header: dict[str, Any], name: str) -> None:
    """The header's ``rules`` and ``lexicon`` (strings already) of a name's length."""
    for key, most in (("rules", MAX_NAME_LENGTH), ("lexicon", MAX_LEXICON_NAME)):
        if not 1 <= len(header[key]) <= most:
            raise InputError(f"{name}: the header's {key!r} must be a name of 1 to {most} characters")


def header_bytes(header: dict[str, object], most: int) -> bytes:
    """The header as written: one line of ASCII JSON, keys sorted; ValueError past ``most``."""
    line = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    if b"\n" in line or len(line) > most:
        raise ValueError("header too long")
    return line


def _nesting(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (strings skipped, escapes
    honoured), in one pass over its brackets, quotes and backslashes: linear, no recursion."""
    depth = deepest = 0
    in_string = False
    skip_to = 0  # the character after an escaped one
    for match in _JSON_SPECIAL.finditer(text):
        at = match.start()
        if at < skip_to:
            continue
        ch = match.group()
        if in_string:
            if ch == "\\":
                skip_to = at + 2
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _no_constant(word: str) -> object:
    raise ValueError(f"{word} is not a number JSON allows")


def _printable(value: object) -> object:
    """``value`` (parsed JSON, nested at most ``MAX_HEADER_DEPTH`` deep) with every string in
    it, keys included, made printable: a header is shown, and a control character in it
    could drive the terminal or start a forged line."""
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {one_line(key): _printable(item) for key, item in value.items()}
    return value


# --- finding a table --------------------------------------------------------------------------


def shipped_table(
    folder: str, suffix: str, rules: str, lexicon: str, decode: Callable[[bytes, str], Table]
) -> Table | None:
    """The table shipped in the data folder ``folder`` for ``rules`` and ``lexicon`` (names),
    decoded, or None."""
    file_name = f"{rules}-{lexicon}{suffix}"
    resource = data_folder(folder) / file_name
    if not resource.is_file():
        return None
    return decode(resource.read_bytes(), file_name)


def shipped_names(folder: str, suffix: str) -> list[str]:
    """The ``rules-lexicon`` names of the tables shipped in the data folder ``folder``."""
    where = data_folder(folder)
    if not where.is_dir():
        return []
    return sorted(p.name[: -len(suffix)] for p in where.iterdir() if p.name.endswith(suffix))


def user_table_path(folder: str, suffix: str, rules: str, lexicon: str) -> Path:
    """Where the table of one of the user's own word lists is kept: ``FOLDER/RULES-NAME.SUFFIX``
    in the user data folder. OSError when there is no such folder."""
    return user_data_dir() / folder / f"{rules}-{lexicon}{suffix}"


def user_table(path: Callable[[], Path], read: Callable[[Path], Table]) -> Table | None:
    """The user's table at ``path()``, when its folder is theirs alone and it is there."""
    try:
        where = path()
        if untrusted_folder(where.parent) is not None or not where.is_file():
            return None
    except OSError:
        return None
    return read(where)


def find_table(
    rules: str,
    lexicon: str,
    path: str | None,
    own_list: bool,
    *,
    read: Callable[[str], Table],
    shipped: Callable[[str, str], Table | None],
    shipped_names: Callable[[], list[str]],
    users: Callable[[str, str], Table | None],
) -> tuple[Table | None, str | None]:
    """The table for ``rules`` and ``lexicon`` (names), and the ``rules-lexicon`` name of
    the table it borrows when it is not theirs: the file ``path`` if given; else the one
    shipped for both; for ``own_list`` (a list of the user's, by name) the user's own; else
    the first shipped for the same rules and another word list (the values follow the rules
    far more than the words); else (None, None)."""
    if path is not None:
        return read(path), None
    table = shipped(rules, lexicon)
    if table is None and own_list:
        table = users(rules, lexicon)
    if table is not None:
        return table, None
    for name in shipped_names():
        if name.startswith(f"{rules}-"):
            other = shipped(rules, name[len(rules) + 1 :])
            if other is not None:
                return other, name
    return None, None

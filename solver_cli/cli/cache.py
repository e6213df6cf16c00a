"""``scrab cache``: list or clear the GADDAG cache files (one per word list and board size;
an edited list gets a new one, so old files pile up)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import click

from solver_cli._text import plural
from solver_cli.cli._common import console, json_option, print_wrapped, to_click_error
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from solver_cli.cli.table import Cell
    from solver_cli.lexicon.cache import CacheEntry, CacheListing


def _wants_json(ctx: click.Context, as_json: bool) -> bool:
    """``--json`` after the subcommand, or before it (``scrab cache --json clear``)."""
    parent = ctx.parent
    return as_json or bool(parent is not None and parent.params.get("as_json"))


@click.group("cache", invoke_without_command=True)
@json_option
@click.pass_context
def cache(ctx: click.Context, as_json: bool) -> None:
    """List (the default) or clear scrab's GADDAG cache.

    Every word list gets one cache file per board size, named after the list and its
    content; an edited list gets a new file and the old one stays until cleared (the
    listing marks it stale). Only scrab's own files are listed or removed (names like
    kjxqz-<digest>-L15-v2.gaddag). --json may come before or after list and clear.

    \b
    Examples:
      scrab cache
      scrab cache --json
      scrab cache clear --json
    """
    if ctx.invoked_subcommand is None:
        show(as_json)


@cache.command("list")
@json_option
@click.pass_context
def list_files(ctx: click.Context, as_json: bool) -> None:
    """List the cache files: size, word list, words, length limit, status, file name."""
    show(_wants_json(ctx, as_json))


@cache.command("clear")
@json_option
@click.pass_context
def clear(ctx: click.Context, as_json: bool) -> None:
    """Remove scrab's cache files from the cache folder (nothing else in it)."""
    from solver_cli.lexicon.cache import clear_cache

    try:
        result = clear_cache()
    except ScrabError as exc:
        raise to_click_error(exc) from None
    exists = os.path.lexists(result.folder)
    if _wants_json(ctx, as_json):
        payload = {
            "folder": str(result.folder),
            "exists": exists,
            "removed": [{"file": name, "bytes": size} for name, size in result.removed],
            "skipped": [{"file": name, "reason": why} for name, why in result.skipped],
            "freed_bytes": result.freed_bytes,
        }
        click.echo(json.dumps(payload))
        return
    if not exists:
        click.echo(f"No cache folder ({result.folder}): nothing to clear")
        return
    count = len(result.removed)
    click.echo(f"Removed {plural(count, 'cache file')} ({size_text(result.freed_bytes)}) from {result.folder}")
    for name, why in result.skipped:
        click.echo(f"Left {name}: {why}")


def show(as_json: bool) -> None:
    from solver_cli.lexicon.cache import list_cache

    listing = list_cache()
    stale = stale_files(listing.entries)
    if as_json:
        click.echo(json.dumps(listing_json(listing, stale)))
        return
    out = console()
    if listing.folder is None or not listing.exists:
        where = f" ({listing.folder})" if listing.folder is not None else ""
        print_wrapped(out, f"No cache folder yet{where}: {listing.problem or 'it is made on first use'}")
        return
    if listing.problem is not None:
        print_wrapped(out, f"Not using the cache: {listing.problem}")
        return
    if listing.entries:
        print_listing(listing.entries, stale)
    count = len(listing.entries)
    total = size_text(listing.total_bytes)
    print_wrapped(out, f"{plural(count, 'cache file')} ({total}) in {listing.folder}")
    if listing.temporaries:
        left = len(listing.temporaries)
        size = size_text(sum(size for _, size in listing.temporaries))
        print_wrapped(
            out,
            f"and {plural(left, 'leftover temporary file')} ({size}) from a build that was stopped; "
            f"scrab cache clear removes {'it' if left == 1 else 'them'} too.",
        )
    old = sum(1 for e in listing.entries if stale.get(e.file))
    if old:
        print_wrapped(
            out,
            f"{old} stale (built from an earlier version of {'its' if old == 1 else 'their'} word list, "
            f"never used again); scrab cache clear removes every cache file.",
        )


# --- which files are stale -----------------------------------------------------------------------


def stale_files(entries: list[CacheEntry]) -> dict[str, bool | None]:
    """For each sound file: True when its word list has changed since it was built (the
    digest in its name is not the list's now), False when it is the list's current cache,
    None when that cannot be told for sure (so it is not said): a list named by a relative
    path (relative to wherever scrab ran), one that is gone, or an unreadable file."""
    from solver_cli.lexicon.cache import CACHE_NAME

    now: dict[str, str | None] = {}
    out: dict[str, bool | None] = {}
    for e in entries:
        match = CACHE_NAME.fullmatch(e.file)
        if e.status != "ok" or e.lexicon is None or match is None:
            out[e.file] = None
            continue
        if e.lexicon not in now:
            now[e.lexicon] = _list_digest(e.lexicon)
        digest = now[e.lexicon]
        out[e.file] = None if digest is None else digest != match["digest"]
    return out


def _list_digest(name: str) -> str | None:
    """The start of the digest the cache file name of list ``name`` holds, for the list as it
    is now; None unless ``name`` surely names the list the file was built from: a shipped
    list, or an existing file by its absolute path (as the cache records it, unaltered)."""
    from solver_cli.lexicon.cache import MAX_NAME_CHARS
    from solver_cli.lexicon.wordlist import open_source, shipped_lexicon_name

    recorded_whole = len(name) < MAX_NAME_CHARS and "?" not in name  # names are cut there, odd characters replaced
    if shipped_lexicon_name(name) is None and not (recorded_whole and os.path.isabs(name)):
        return None
    try:
        source = open_source(name)
    except (ScrabError, OSError):
        return None
    return source.digest()[:16]


# --- the table -----------------------------------------------------------------------------------

LIST_MIN = 16  # the word-list column is shortened (from its start) to no less than this


def print_listing(entries: list[CacheEntry], stale: dict[str, bool | None]) -> None:
    """One row per file. When the table is too wide for the terminal, the file name moves to
    a line under its row (then the status), and a long word-list path loses its start: its
    end tells two lists apart. Numbers are never cut."""
    from solver_cli.cli.table import Column, choose_layout, print_table

    out = console()
    columns = [
        Column("File", fold=1, label=""),
        Column("Word list"),
        Column("Size", "right"),
        Column("Words", "right"),
        Column("Length", "right"),
        Column("Status", fold=2, label="status"),
    ]
    rows = [
        [
            e.file,
            e.lexicon or "?",
            size_text(e.size),
            f"{e.words:,}" if e.words is not None else "?",
            str(e.max_length) if e.max_length is not None else "?",
            "stale" if stale.get(e.file) else e.status,
        ]
        for e in entries
    ]
    widths = [max(len(c.header), *(len(row[i]) for row in rows)) for i, c in enumerate(columns)]
    if choose_layout(columns, widths, out.width, None).folded:
        # The file name goes under the row: the word list gets the room that is left.
        least = max(len(columns[1].header), min(widths[1], LIST_MIN))
        trial = [out.width + 1, least, *widths[2:]]  # a file too wide to stay in the row
        spare = out.width - choose_layout(columns, trial, out.width, None).width(trial)
        room = min(widths[1], least + max(spare, 0))
        for row in rows:
            row[1] = shorten_start(row[1], room)
    cells: list[list[Cell]] = [list(row) for row in rows]
    print_table(out, columns, cells, one_line_width=None, fold_indent=2)


def shorten_start(text: str, width: int) -> str:
    """``text`` in ``width`` characters, its start given up (``…/lists/mine.txt``), at a
    ``/`` when one is near."""
    if len(text) <= width:
        return text
    tail = text[len(text) - (width - 1) :]
    cut = tail.find("/")
    if 0 < cut < len(tail) - 1 and len(tail) - cut >= width // 2:
        tail = tail[cut:]
    return "…" + tail


def listing_json(listing: CacheListing, stale: dict[str, bool | None]) -> dict[str, object]:
    return {
        "folder": str(listing.folder) if listing.folder is not None else None,
        "exists": listing.exists,
        "trusted": listing.problem is None,
        "problem": listing.problem,
        "files": [
            {
                "file": e.file,
                "bytes": e.size,
                "lexicon": e.lexicon,
                "words": e.words,
                "max_length": e.max_length,
                "format": e.format,
                "trusted": e.trusted,
                "valid": e.valid,
                "status": e.status,
                "stale": stale.get(e.file),
            }
            for e in listing.entries
        ],
        "total_bytes": listing.total_bytes,
        "temporaries": [{"file": name, "bytes": size} for name, size in listing.temporaries],
    }


def size_text(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"

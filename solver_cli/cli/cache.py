"""``scrab cache``: list or clear the GADDAG cache files (one per word list and board size;
an edited list gets a new one, so old files pile up)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import console, json_option, to_click_error
from solver_cli.errors import ScrabError

if TYPE_CHECKING:
    from solver_cli.lexicon.cache import CacheListing


@click.group("cache", invoke_without_command=True)
@json_option
@click.pass_context
def cache(ctx: click.Context, as_json: bool) -> None:
    """List (the default) or clear scrab's GADDAG cache.

    Every word list gets one cache file per board size, named after the list and its
    content; an edited list gets a new file and the old one stays until cleared. Only
    scrab's own files are listed or removed (names like kjxqz-<digest>-L15-v2.gaddag).

    \b
    Examples:
      scrab cache
      scrab cache clear --json
    """
    if ctx.invoked_subcommand is None:
        show(as_json)


@cache.command("list")
@json_option
def list_files(as_json: bool) -> None:
    """List the cache files: size, word list, words, length limit, format, status."""
    show(as_json)


@cache.command("clear")
@json_option
def clear(as_json: bool) -> None:
    """Remove scrab's cache files from the cache folder (nothing else in it)."""
    from solver_cli.lexicon.cache import clear_cache

    try:
        result = clear_cache()
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if as_json:
        payload = {
            "folder": str(result.folder),
            "removed": [{"file": name, "bytes": size} for name, size in result.removed],
            "skipped": [{"file": name, "reason": why} for name, why in result.skipped],
            "freed_bytes": result.freed_bytes,
        }
        click.echo(json.dumps(payload))
        return
    count = len(result.removed)
    click.echo(
        f"Removed {count} cache file{'s' if count != 1 else ''} ({size_text(result.freed_bytes)}) from {result.folder}"
    )
    for name, why in result.skipped:
        click.echo(f"Left {name}: {why}")


def show(as_json: bool) -> None:
    from solver_cli.lexicon.cache import list_cache

    listing = list_cache()
    if as_json:
        click.echo(json.dumps(listing_json(listing)))
        return
    out = console()
    if listing.folder is None or not listing.exists:
        where = f" ({listing.folder})" if listing.folder is not None else ""
        out.print(f"No cache folder yet{where}: {listing.problem or 'it is made on first use'}")
        return
    if listing.problem is not None:
        out.print(f"Not using the cache: {listing.problem}")
        return
    if listing.entries:
        from rich.table import Table

        table = Table(header_style="bold")
        table.add_column("File", overflow="fold")
        table.add_column("Size", justify="right", no_wrap=True)
        table.add_column("Word list")
        table.add_column("Words", justify="right")
        table.add_column("Length", justify="right")
        table.add_column("Format", justify="right")
        table.add_column("Status")
        for e in listing.entries:
            table.add_row(
                e.file,
                size_text(e.size),
                e.lexicon or "?",
                f"{e.words:,}" if e.words is not None else "?",
                str(e.max_length) if e.max_length is not None else "?",
                str(e.format) if e.format is not None else "?",
                e.status,
            )
        out.print(table)
    count = len(listing.entries)
    out.print(f"{count} cache file{'s' if count != 1 else ''} ({size_text(listing.total_bytes)}) in {listing.folder}")


def listing_json(listing: CacheListing) -> dict[str, object]:
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
            }
            for e in listing.entries
        ],
        "total_bytes": listing.total_bytes,
    }


def size_text(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} kB"
    return f"{size / 1_000_000:.1f} MB"

"""``scrab lexicons``: the word lists a name picks (shipped, and the user's own), with their
words, where they are, whether their GADDAG is cached, and the leave table they rank by."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from solver_cli.cli._common import console, json_option, print_wrapped, rules_option, to_click_error
from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from solver_cli.cli.table import Cell
    from solver_cli.lexicon import LexiconListing, ListedLexicon


@click.command("lexicons")
@rules_option
@json_option
def lexicons(rules: str, as_json: bool) -> None:
    """List the word lists --lexicon NAME takes: the shipped ones and your own.

    Your own lists are files named NAME.txt or NAME.txt.gz in your word-list folder (shown
    below the table; SCRAB_DATA_DIR moves it) or in the folders of SCRAB_LEXICON_PATH
    (separated like PATH). A name is matched in any case; a shipped list comes first, then
    the folders in that order, and a list whose name is taken is listed as shadowed. Words
    and the cache are for the --rules board; the leave table is the one solve ranks by
    (trained for the list, or borrowed: train one with scrab leaves train --lexicon NAME).

    \b
    Examples:
      scrab lexicons
      scrab lexicons --rules super --json
    """
    from solver_cli.engine.rules import load_rules
    from solver_cli.lexicon import list_lexicons

    try:
        rule_set = load_rules(rules)
        listing = list_lexicons(rule_set.max_side)
        tables = {id(entry): leave_table(rule_set.name, entry) for entry in listing.lexicons}
    except ScrabError as exc:
        raise to_click_error(exc) from None
    if as_json:
        click.echo(json.dumps(listing_json(listing, tables, rule_set.name, rule_set.max_side)))
        return
    print_listing(listing, tables, rule_set.name)


def leave_table(rules: str, entry: ListedLexicon) -> tuple[str | None, bool]:
    """(the name of the leave table ``scrab solve`` ranks by for this list, or what is wrong
    with it; whether it was trained for the list); (None, False) for a shadowed list."""
    from solver_cli.formats.leavefile import table_for

    if entry.shadowed_by is not None:
        return None, False
    try:
        table, note = table_for(rules, entry.name, own_list=entry.origin != "shipped")
    except InputError as exc:
        return f"unusable ({exc})", False
    return table.name, note is None


def listing_json(
    listing: LexiconListing, tables: dict[int, tuple[str | None, bool]], rules: str, max_length: int
) -> dict[str, object]:
    return {
        "rules": rules,
        "max_length": max_length,
        "folders": [
            {"folder": str(f.path), "origin": f.origin, "problem": f.problem, "searched": f.problem is None}
            for f in listing.folders
        ],
        "lexicons": [
            {
                "name": e.name,
                "origin": e.origin,
                "path": None if e.path is None else str(e.path),
                "default": e.default,
                "shadowed_by": e.shadowed_by,
                "words": e.words,
                "cached": e.cached,
                "leaves": tables[id(e)][0],
                "leaves_trained": tables[id(e)][1],
                "problem": e.problem,
            }
            for e in listing.lexicons
        ],
    }


def print_listing(listing: LexiconListing, tables: dict[int, tuple[str | None, bool]], rules: str) -> None:
    from solver_cli.cli.table import Column, print_table

    out = console()
    usable = [e for e in listing.lexicons if e.shadowed_by is None]
    columns = [
        Column("Name"),
        Column("Words", "right"),
        Column("Cached"),
        Column("Leaves", fold=2, label="leaves"),
        Column("Where", fold=1, label=""),
    ]
    rows: list[list[Cell]] = []
    for e in usable:
        table, trained = tables[id(e)]
        where = str(e.path) if e.path is not None else "shipped (default)" if e.default else "shipped"
        rows.append(
            [
                e.name,
                "-" if e.words is None else f"{e.words:,}",
                "yes" if e.cached else "no",
                "-" if table is None else table + ("" if trained else " (borrowed)"),
                where,
            ]
        )
    out.print(f"Word lists for {rules}, by the name --lexicon takes")
    print_table(out, columns, rows, one_line_width=None, fold_indent=2)
    for e in usable:
        if e.problem is not None:
            print_wrapped(out, f"{e.name}: {e.problem}")
    for e in listing.lexicons:
        if e.shadowed_by is not None:
            taker = "a shipped list" if e.shadowed_by == "shipped" else e.shadowed_by
            print_wrapped(out, f"Shadowed: {e.path}, by {taker}")
    for folder in listing.folders:
        label = "Your word-list folder" if folder.origin == "user folder" else folder.origin
        state = "" if folder.problem is None else f" ({folder.problem})"
        print_wrapped(out, f"{label}: {folder.path}{state}")
    print_wrapped(out, "Put NAME.txt or NAME.txt.gz there to use it as --lexicon NAME (any case).")

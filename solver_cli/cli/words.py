"""Word look-up commands (``hooks``, ``anagram``, ``pattern``, ``check``), answered from the GADDAG.

Thin commands: parse and validate the input, load the lexicon like ``solve`` does, call
``solver_cli.lexicon.lookup``, render a Rich table or one JSON document on stdout.
"""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING

import click

from solver_cli._text import plural
from solver_cli.cli._common import BadInput, F, lexicon_options, load_lexicon_for, refuse_empty_rack, to_click_error
from solver_cli.errors import InputError, ScrabError

if TYPE_CHECKING:
    from solver_cli.engine.rules import Rules
    from solver_cli.lexicon import Lexicon
    from solver_cli.lexicon.lookup import Found

BLANKS_HELP = (
    "Blanks (?) stand for any letter and are shown lowercase. Natural tiles are used first: a "
    "blank stands for a letter only when the rack has no natural tile of that letter left, so "
    "rack S? gives ES, never Es. When blanks must fill some of a letter's squares, each choice "
    "of squares is its own result (ESs and EsS); a word is listed once per distinct display."
)


def _blanks_help(func: F) -> F:
    """Append the shared paragraph on blanks to a command's docstring (before Click reads it)."""
    func.__doc__ = inspect.cleandoc(func.__doc__ or "") + "\n\n" + BLANKS_HELP
    return func


def _length_options(func: F) -> F:
    func = click.option(
        "--max-length", type=click.IntRange(min=1), default=None, help="Only words of at most N letters."
    )(func)
    func = click.option(
        "--min-length", type=click.IntRange(min=1), default=None, help="Only words of at least N letters."
    )(func)
    return func


DEFAULT_TOP = 100


def _top_option(func: F) -> F:
    func = click.option("--all", "show_all", is_flag=True, help="Show every result.")(func)
    func = click.option(
        "--top",
        "-n",
        type=click.IntRange(min=1),
        default=None,
        help=f"Show the first N results [default: {DEFAULT_TOP}].",
    )(func)
    return func


def _limit(top: int | None, show_all: bool) -> int | None:
    """How many results to show: None for all."""
    if top is not None and show_all:
        raise click.UsageError("--top (-n) cannot be used with --all")
    return None if show_all else (top or DEFAULT_TOP)


def _json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")(func)


def _check_lengths(min_length: int | None, max_length: int | None) -> None:
    if min_length is not None and max_length is not None and min_length > max_length:
        raise InputError(f"--min-length {min_length} is more than --max-length {max_length}")


def _echo_found_json(
    results: list[Found],
    top: int | None,
    show_all: bool,
    rule_set: Rules,
    lex: Lexicon,
    with_at: bool = False,
    **fields: object,
) -> None:
    """One JSON object: rules, lexicon, the query's own fields, the total and the words shown."""
    shown = results[: _limit(top, show_all)]
    payload = {"rules": rule_set.name, "lexicon": lex.name, **fields, "total": len(results)}
    payload["words"] = [_found_json(f, with_at=with_at) for f in shown]
    click.echo(json.dumps(payload))


def _found_json(found: Found, with_at: bool = False) -> dict[str, object]:
    out = {
        "word": found.word,
        "display": found.display,
        "score": found.score,
        "length": len(found.word),
        "blanks": found.blanks,
    }
    if with_at:
        out["board_at"] = list(found.at)
    return out


def _print_found(results: list[Found], top: int | None, title: str, empty: str) -> None:
    from solver_cli.cli._common import console
    from solver_cli.cli.table import Cell, Column, print_table

    out = console()
    if not results:
        out.print(empty)
        return
    shown = results if top is None else results[:top]
    words = len({f.word for f in results})
    count = plural(len(results), "word")
    if words != len(results):
        count = f"{plural(len(results), 'result')} ({plural(words, 'word')})"
    if len(shown) < len(results):
        count = f"{len(shown):,} of {count}"
    out.print(f"{count} {title}")
    columns = [Column("#", "right"), Column("Word"), Column("Len", "right"), Column("Score", "right")]
    rows: list[list[Cell]] = []
    for rank, found in enumerate(shown, 1):
        word = tuple((ch, "bold" if ch.islower() else "") for ch in found.display)
        rows.append([str(rank), word, str(len(found.word)), str(found.score)])
    print_table(out, columns, rows)


@click.command()
@click.argument("words", metavar="[WORD]...", nargs=-1)
@click.option(
    "--letter",
    "letters",
    multiple=True,
    metavar="L",
    help="A board letter the word must go through; repeat for adjacent board letters in order "
    "(--letter R --letter E, or --letter RE: the word contains RE as board tiles). A lowercase "
    "letter is a blank on the board (it scores 0).",
)
@click.option("--rack", default=None, help="Rack letters for --letter, ? for a blank, e.g. 'AEIRST?'.")
@_length_options
@_top_option
@lexicon_options
@_json_option
@_blanks_help
def hooks(
    words: tuple[str, ...],
    letters: tuple[str, ...],
    rack: str | None,
    min_length: int | None,
    max_length: int | None,
    top: int | None,
    show_all: bool,
    rules: str,
    lexicon: str | None,
    as_json: bool,
) -> None:
    """Hooks of each WORD, or (with --letter and --rack) the words through board letters.

    scrab hooks WORD...: the letters that make a word when put before (front) or after (back)
    each WORD, and whether WORD is itself valid. A WORD that is not a word (a prefix, say)
    still gets its hooks, with valid: false. --json prints a list, one object per WORD.

    scrab hooks --letter E --rack RACK: every word that uses the board letter E once (as the
    tile already on the board) plus one or more rack tiles, with its face-value score (tile
    values under --rules, blanks 0, board letters included), sorted by score, then length
    (longest first), then alphabet. Repeat --letter for adjacent board letters in order;
    a lowercase letter is a blank already on the board (shown lowercase, worth 0).

    \b
    Examples:
      scrab hooks CARE QI
      scrab hooks --letter E --rack 'AEIRST?'
      scrab hooks --letter R --letter E --rack 'ST?' --max-length 5
      scrab hooks --letter e --rack 'ST?' --max-length 3
    """
    _limit(top, show_all)  # --top with --all: a usage error before any work
    # Which options go together is usage (Click's pointer to --help); their values are input.
    if letters:
        if words:
            raise click.UsageError("give WORDs to hook or --letter with --rack, not both")
        if rack is None:
            raise click.UsageError("--letter needs --rack: the rack tiles to play around the board letters")
    else:
        if not words:
            raise click.UsageError("give one or more WORDs, or --letter L with --rack RACK")
        given = (
            ("--rack", rack is not None),
            ("--min-length", min_length is not None),
            ("--max-length", max_length is not None),
            ("--top (-n)", top is not None),
            ("--all", show_all),
        )
        for name, used in given:
            if used:
                raise click.UsageError(f"{name} applies only with --letter")
    refuse_empty_rack(rack)
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.engine.rules import load_rules
    from solver_cli.lexicon.lookup import board_words, parse_board_letters, parse_word, word_hooks

    try:
        rule_set = load_rules(rules)
        if letters:
            assert rack is not None  # checked above: --letter needs --rack
            board = parse_board_letters(letters)
            counts = parse_rack(rack, rule_set.rack_size)
            _check_lengths(min_length, max_length)
        else:
            targets = [parse_word(w) for w in words]
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
        if letters:
            results = board_words(lex.gaddag, board, counts, rule_set.values, min_length or 2, max_length)
        else:
            answers = [word_hooks(lex.gaddag, w) for w in targets]
    except ScrabError as exc:
        raise to_click_error(exc) from None

    if letters:
        rack_shown = rack_text(counts)
        if as_json:
            _echo_found_json(results, top, show_all, rule_set, lex, with_at=True, letters=board, rack=rack_shown)
            return
        where = f"through {board} for rack {rack_shown}  ({rule_set.name}, {lex.name})"
        _print_found(results, _limit(top, show_all), where, f"No word {where}.")
        return

    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "word": h.word,
                        "valid": h.valid,
                        "front": list(h.front),
                        "back": list(h.back),
                        "front_words": h.front_words,
                        "back_words": h.back_words,
                    }
                    for h in answers
                ]
            )
        )
        return
    from rich.table import Table

    from solver_cli.cli._common import console

    out = console()
    out.print(f"Hooks of {plural(len(answers), 'word')}  ({lex.name})")
    table = Table(header_style="bold")
    table.add_column("Front", justify="right")
    table.add_column("Word")
    table.add_column("Back")
    table.add_column("Valid")
    for h in answers:
        table.add_row(h.front or "-", h.word, h.back or "-", "yes" if h.valid else "no")
    out.print(table)


@click.command()
@click.argument("rack", metavar="RACK")
@click.option("--partial", is_flag=True, help="Every word using some of the tiles, not only all of them.")
@_length_options
@_top_option
@lexicon_options
@_json_option
@_blanks_help
def anagram(
    rack: str,
    partial: bool,
    min_length: int | None,
    max_length: int | None,
    top: int | None,
    show_all: bool,
    rules: str,
    lexicon: str | None,
    as_json: bool,
) -> None:
    """The words RACK spells using all its tiles (with --partial: using some of them).

    RACK is up to the rule set's rack size of letters, ? for a blank. Each word shows its
    face-value score (tile values under --rules, blanks 0); results are sorted by score,
    then length (longest first), then alphabet.

    \b
    Examples:
      scrab anagram RETAINS
      scrab anagram 'QUIZ?' --partial --min-length 4
    """
    _limit(top, show_all)  # --top with --all: a usage error before any work
    if not rack.strip():
        # (the library's message names --rack, which this command does not have)
        raise BadInput("the rack argument is empty: give its letters, e.g. scrab anagram 'AEIRST?' (? is a blank)")
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.engine.rules import load_rules
    from solver_cli.lexicon.lookup import anagrams

    try:
        rule_set = load_rules(rules)
        counts = parse_rack(rack, rule_set.rack_size)
        _check_lengths(min_length, max_length)
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
        results = anagrams(lex.gaddag, counts, rule_set.values, partial, min_length or 2, max_length)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    rack_shown = rack_text(counts)
    if as_json:
        _echo_found_json(results, top, show_all, rule_set, lex, rack=rack_shown, partial=partial)
        return
    using = "some of" if partial else "all of"
    where = f"using {using} {rack_shown}  ({rule_set.name}, {lex.name})"
    _print_found(results, _limit(top, show_all), where, f"No word {where}.")


@click.command()
@click.argument("pattern", metavar="PATTERN")
@click.option("--rack", default=None, help="Only words whose ? and * letters these tiles can supply ('?' = blank).")
@_top_option
@lexicon_options
@_json_option
@_blanks_help
def pattern(
    pattern: str, rack: str | None, top: int | None, show_all: bool, rules: str, lexicon: str | None, as_json: bool
) -> None:
    """Words matching PATTERN: ? is one letter, * any run of letters (even none), A-Z literal.

    Quote the pattern so the shell leaves ? and * alone: scrab pattern 'C?T*'. With --rack,
    only the words whose letters matched by ? and * the rack can supply (literal letters are
    taken as already there, e.g. on the board). Sorted by face-value score (blanks 0), then
    length (longest first), then alphabet.

    \b
    Examples:
      scrab pattern 'Q?'
      scrab pattern 'C?T*' --rack 'AS?'
    """
    _limit(top, show_all)  # --top with --all: a usage error before any work
    refuse_empty_rack(rack)
    from solver_cli.engine.alphabet import parse_rack, rack_text
    from solver_cli.engine.rules import load_rules
    from solver_cli.lexicon.lookup import parse_pattern, pattern_words

    try:
        rule_set = load_rules(rules)
        tokens = parse_pattern(pattern)
        counts = parse_rack(rack, rule_set.rack_size) if rack is not None else None
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
        results = pattern_words(lex.gaddag, tokens, rule_set.values, counts)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    shown_pattern = pattern.strip().upper()
    rack_shown = rack_text(counts) if counts is not None else None
    if as_json:
        _echo_found_json(results, top, show_all, rule_set, lex, pattern=shown_pattern, rack=rack_shown)
        return
    with_rack = f" with rack {rack_shown}" if rack_shown else ""
    where = f"matching {shown_pattern}{with_rack}  ({rule_set.name}, {lex.name})"
    _print_found(results, _limit(top, show_all), where, f"No word {where}.")


@click.command()
@click.argument("words", metavar="WORD...", nargs=-1, required=True)
@lexicon_options
@_json_option
@click.pass_context
def check(ctx: click.Context, words: tuple[str, ...], rules: str, lexicon: str | None, as_json: bool) -> None:
    """Whether each WORD is in the lexicon; exit status 0 if all are, 1 if any is not, so a
    script can adjudicate a challenge: scrab check QI ZA && echo "play stands".

    \b
    Examples:
      scrab check QI ZA
      scrab check QI ZA --json
    """
    from solver_cli.engine.rules import load_rules
    from solver_cli.lexicon.lookup import check_words, parse_word

    try:
        rule_set = load_rules(rules)
        targets = [parse_word(w) for w in words]
        lex = load_lexicon_for(lexicon, rule_set.max_side, as_json)
        answers = check_words(lex.gaddag, targets)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    all_valid = all(ok for _, ok in answers)
    if as_json:
        payload = {
            "lexicon": lex.name,
            "words": [{"word": w, "valid": ok} for w, ok in answers],
            "all_valid": all_valid,
        }
        click.echo(json.dumps(payload))
    else:
        width = max(len(w) for w, _ in answers)
        for w, ok in answers:
            click.echo(f"{w:<{width}}  {'valid' if ok else f'not in {lex.name}'}")
    if not all_valid:
        ctx.exit(1)

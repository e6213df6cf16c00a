"""Word lists, the GADDAG built from them once and cached on disk, and look-ups.

``load_lexicon`` is the way in: it resolves a shipped name, one of the user's lists by name
or a path (``wordlist``), loads the GADDAG from the user's cache when it is sound and
trusted (``cache``), else builds it (``build``) and caches it. ``list_lexicons`` says what
names there are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from solver_cli._io import read_limited
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import gaddag_problem
from solver_cli.errors import InputError, LexiconError
from solver_cli.lexicon.build import Progress, build_gaddag, chosen_builder
from solver_cli.lexicon.cache import Warn, cache_name, open_cache_folder
from solver_cli.lexicon.wordlist import (
    DEFAULT_LEXICON,
    MAX_WORD_LIST_BYTES,
    ListFolder,
    WordSource,
    lexicon_folder,
    open_source,
    parse_word_list,
    shipped_lexicons,
    skipped_lines,
    user_lexicons,
)


@dataclass
class Lexicon:
    """A loaded lexicon: its name, the GADDAG, and where it came from."""

    name: str
    gaddag: Gaddag
    word_count: int
    digest: str  # the word list's (WordSource.digest)
    max_length: int
    cache_path: Path | None  # None when it was built in memory only
    built: bool  # True when this call built the GADDAG (cold start)
    builder: str | None = None  # "native" or "python" when built, None when loaded from the cache

    def contains(self, word: str) -> bool:
        return self.gaddag.contains(word)


def load_lexicon(
    name_or_path: str | None,
    max_length: int = 15,
    progress: Progress | None = None,
    warn: Warn | None = None,
) -> Lexicon:
    """The lexicon's GADDAG, from the cache when it is sound, else built and cached."""
    say = warn or (lambda message: None)
    source = open_source(name_or_path)
    digest = source.digest()
    name = cache_name(source, digest, max_length)

    with open_cache_folder(say) as folder:
        if folder is not None:
            header = folder.read(name, digest, max_length, say)
            if header is not None:
                gaddag = Gaddag(header["nodes"], header["root"], header["dawg_root"], header["states"], header["arcs"])
                # Every index range-checked once, before any walk (the native engine's memory
                # safety rests on it): a sound checksum says nothing of how the file was made.
                problem = gaddag_problem(gaddag)
                if problem is None:
                    if source.path is not None:  # (the shipped lists are clean)
                        _say_skipped(source.name, *skipped_lines(source.text(), max_length)[:2], say)
                    return Lexicon(source.name, gaddag, header["words"], digest, max_length, folder.path / name, False)
                say(f"cache file {folder.path / name} is damaged ({problem}); rebuilding it")

        text = source.text()
        try:
            word_list = parse_word_list(text, max_length)
        except LexiconError as exc:
            raise LexiconError(f"{source.name}: {exc}") from None
        del text
        _say_skipped(source.name, word_list.skipped, word_list.first_skipped, say)
        if not word_list.words:
            raise LexiconError(f"{source.name}: no usable words (need words of 2 to {max_length} letters A-Z)")
        builder = chosen_builder()
        try:
            gaddag = build_gaddag(word_list.words, progress, builder)
        except LexiconError as exc:
            raise LexiconError(f"{source.name}: {exc}") from None
        saved = None
        if folder is not None:
            saved = folder.write(name, gaddag, digest, max_length, len(word_list.words), source.name, say)
    return Lexicon(source.name, gaddag, len(word_list.words), digest, max_length, saved, True, builder)


def _say_skipped(name: str, count: int, first: int, say: Warn) -> None:
    if count:
        say(f"{name}: skipped {count} line(s) with characters other than A-Z (first at line {first})")


@dataclass
class ListedLexicon:
    """One word list as ``scrab lexicons`` shows it."""

    name: str
    origin: str  # "shipped", "user folder" or LEXICON_PATH_ENV
    path: Path | None  # None for a shipped list
    default: bool = False
    shadowed_by: str | None = None  # what a name picks instead ("shipped" or a path)
    words: int | None = None  # usable words for the board (None when not read)
    cached: bool = False  # a sound GADDAG for it is in the cache
    problem: str | None = None  # why it cannot be used


@dataclass
class LexiconListing:
    folders: list[ListFolder]
    lexicons: list[ListedLexicon] = field(default_factory=list)


def list_lexicons(max_length: int = 15) -> LexiconListing:
    """Every word list a name picks (shipped, then the user's, in search order) and those
    whose name another takes first, each with its words for a board of ``max_length`` (from
    the cache when it holds the list's GADDAG, else counted by reading the list) and whether
    it is cached. Nothing is built or written."""
    folders, own = user_lexicons()
    listing = LexiconListing(folders)
    for name in shipped_lexicons():
        listing.lexicons.append(ListedLexicon(name, "shipped", None, default=name == DEFAULT_LEXICON))
    for found in own:
        listing.lexicons.append(ListedLexicon(found.name, found.origin, found.path, shadowed_by=found.shadowed_by))
    with open_cache_folder(lambda message: None, create=False) as folder:
        for entry in listing.lexicons:
            if entry.shadowed_by is not None:
                continue
            try:
                if entry.path is None:
                    source = WordSource(entry.name, None, (lexicon_folder() / f"{entry.name}.txt.gz").read_bytes())
                else:
                    source = WordSource(
                        entry.name, entry.path, read_limited(entry.path, MAX_WORD_LIST_BYTES, "word list")
                    )
                digest = source.digest()
                header = None
                if folder is not None:
                    header = folder.read(
                        cache_name(source, digest, max_length), digest, max_length, lambda message: None
                    )
                if header is not None:
                    entry.cached, entry.words = True, header["words"]
                else:
                    entry.words = len(parse_word_list(source.text(), max_length).words)
            except (LexiconError, InputError, OSError) as exc:
                entry.problem = str(exc)
    return listing

"""Word lists, the GADDAG built from them once and cached on disk, and look-ups.

``load_lexicon`` is the way in: it resolves a shipped name or a path (``wordlist``), loads
the GADDAG from the user's cache when it is sound and trusted (``cache``), else builds it
(``build``) and caches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.movegen import gaddag_problem
from solver_cli.errors import LexiconError
from solver_cli.lexicon.build import Progress, build_gaddag, chosen_builder
from solver_cli.lexicon.cache import Warn, cache_name, open_cache_folder
from solver_cli.lexicon.wordlist import open_source, parse_word_list, skipped_lines


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

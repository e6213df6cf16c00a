"""scrab: a Scrabble / Words with Friends move solver built on a minimized GADDAG."""

__version__ = "0.1.0"

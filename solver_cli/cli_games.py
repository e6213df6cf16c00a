"""Commands for whole games and other puzzles: ``selfplay`` and ``boggle``."""

from __future__ import annotations

from solver_cli.cli import cli  # noqa: F401  (commands register on this group)

"""Word look-up commands (``hooks``, ``anagram``, ``pattern``, ``check``), answered from the GADDAG."""

from __future__ import annotations

from solver_cli.cli import cli  # noqa: F401  (commands register on this group)

"""The ``selfplay`` command: greedy-versus-greedy games."""

from __future__ import annotations

from solver_cli.cli import cli  # noqa: F401  (commands register on this group)

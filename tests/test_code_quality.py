"""The code's own checks, run with the tests: the architecture's import contracts
(import-linter, configured in pyproject.toml), ruff lint and format, and mypy --strict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    # PYTHONPATH: check this checkout's package, whatever copy is installed.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_import_contracts_hold():
    """Layers (cli > bench > games > formats|lexicon > engine > _io > errors), no click or
    rich outside cli/, no import cycle at any depth."""
    lint_imports = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    result = run(sys.executable, "-c", lint_imports, "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout


@pytest.mark.parametrize("command", [("check",), ("format", "--check")], ids=["lint", "format"])
def test_ruff(command):
    result = run(sys.executable, "-m", "ruff", *command, "solver_cli", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict():
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr

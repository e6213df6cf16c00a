"""Where the files shipped inside the package are.

They are plain files next to the modules: the package has C extensions, so it is never
imported from a zip archive, and reading them through ``importlib.resources`` would cost
every command the import of tempfile, shutil, zipfile, bz2 and lzma (a few milliseconds of
start-up) for nothing.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def data_folder(*parts: str) -> Path:
    """A folder of the data package ``solver_cli.data`` (rules, leaves, bench)."""
    return PACKAGE.joinpath("data", *parts)


def lexicons_folder() -> Path:
    """The shipped word lists: the data package ``solver_cli.lexicons``, installed from the
    repository's top-level ``lexicons/``, or that folder itself when the package runs from
    a source checkout (an editable install maps the package there without a folder)."""
    installed = PACKAGE / "lexicons"
    return installed if installed.is_dir() else PACKAGE.parent / "lexicons"

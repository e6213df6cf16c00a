"""Where the files shipped inside the package are, and the user's own data folder.

They are plain files next to the modules: the package has C extensions, so it is never
imported from a zip archive, and reading them through ``importlib.resources`` would cost
every command the import of tempfile, shutil, zipfile, bz2 and lzma (a few milliseconds of
start-up) for nothing.
"""

from __future__ import annotations

import os
import stat
import sys
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


# --- the user's own data: word lists and leave tables, kept by name -------------------------

DATA_ENV = "SCRAB_DATA_DIR"


def user_data_dir() -> Path:
    """scrab's folder in the user's data folder: ``$SCRAB_DATA_DIR``, else
    ``platformdirs.user_data_dir("scrab")`` (``~/.local/share/scrab`` on Linux). Its
    ``lexicons/`` holds word lists usable by name, its ``leaves/`` the leave tables trained
    for them. OSError when there is none (no home folder and no XDG variable)."""
    override = os.environ.get(DATA_ENV)
    if override:
        return Path(override)
    fast = _xdg_data_dir()
    if fast is not None:
        return fast
    import platformdirs  # 4 ms of imports: only where the plain answer is not known

    try:
        folder = Path(platformdirs.user_data_dir("scrab", appauthor=False))
    except (RuntimeError, KeyError, OSError) as exc:
        raise OSError(f"no home folder ({exc}); set HOME, XDG_DATA_HOME or {DATA_ENV}") from None
    if not folder.is_absolute():  # an unresolved "~"
        raise OSError(f"no home folder; set HOME, XDG_DATA_HOME or {DATA_ENV}")
    return folder


def _xdg_data_dir() -> Path | None:
    """On Linux, what ``platformdirs.user_data_dir("scrab", appauthor=False)`` answers in
    the plain cases (an absolute ``$XDG_DATA_HOME``, or none and an absolute ``$HOME``);
    None otherwise, for platformdirs to answer (as ``cache.cache_dir`` does)."""
    if sys.platform != "linux":
        return None
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg, "scrab")
    if xdg.strip():
        return None
    home = os.environ.get("HOME", "")
    return Path(home, ".local", "share", "scrab") if os.path.isabs(home) else None


def untrusted_folder(path: Path) -> str | None:
    """Why the user data folder ``path`` (or one in it) is not to be used, or None: like the
    cache folder, it must be the current user's and writable by nobody else, since what is
    in it decides which words are legal. FileNotFoundError when it does not exist."""
    link = os.lstat(path)
    geteuid = getattr(os, "geteuid", None)
    me = geteuid() if geteuid is not None else None  # None: no owners to compare (Windows)
    if stat.S_ISLNK(link.st_mode) and me is not None and link.st_uid != me:
        return f"a symbolic link owned by another user (uid {link.st_uid})"
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "not a folder"
    if me is None:
        return None
    if st.st_uid != me:
        return f"owned by another user (uid {st.st_uid}, not {me})"
    if st.st_mode & 0o022:
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o}; chmod go-w fixes it)"
    return None

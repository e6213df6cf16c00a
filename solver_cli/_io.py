"""Reading the user's files defensively: bounded reads, and names the OS cannot take."""

from __future__ import annotations

from pathlib import Path

from solver_cli.errors import InputError


def path_exists(name: str) -> bool:
    """Like ``Path.exists``, but False for names the OS refuses (too long, NUL bytes)."""
    try:
        return Path(name).exists()
    except (OSError, ValueError):
        return False


def read_limited(path: Path | str, limit: int, what: str) -> bytes:
    """The file's bytes, reading at most ``limit + 1`` of them: a huge or endless file
    (``/dev/zero``, a 100 MB board) is refused without being read whole."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"cannot read {what} {_short(str(path))}: {reason}") from None
    if len(data) > limit:
        raise InputError(f"{what} {_short(str(path))} is too large (over {limit:,} bytes)")
    return data


def _short(name: str) -> str:
    return name if len(name) <= 80 else name[:60] + "..." + name[-15:]

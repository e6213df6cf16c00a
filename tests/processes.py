"""Finding a scrab process's worker processes in /proc, and waiting for a condition, for the
tests that stop, kill or signal runs on workers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

HAS_PROC = Path("/proc/self/stat").exists()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def workers_of(pid: int) -> list[int]:
    """The multiprocessing workers ``pid`` started: its children, forked (same command line)
    or spawned (running spawn_main), but not multiprocessing's resource tracker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"resource_tracker" not in command:
            found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], T], seconds: float, what: str) -> T:
    """``condition()``'s first true value, polled until ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")

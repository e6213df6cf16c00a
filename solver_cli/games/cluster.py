"""Work on a Dask distributed cluster (``--scheduler ADDRESS``), shared by leave training and
self-play: the address checked before any work, the connection, the GADDAG sent to every
worker once (as bytes, rebuilt once per worker process), and a cluster that fails (its
scheduler or a worker gone, the work lost) turned into one ``ScrabError`` naming it.

``distributed`` is optional (``pip install 'scrab[dask]'``): it is imported only here, when a
cluster is asked for. The Dask client's own log lines about a failure (tracebacks among
them) are for the caller to silence (the CLI does).
"""

from __future__ import annotations

import contextlib
import importlib
import re
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from typing import Any

from solver_cli.engine.gaddag import Gaddag
from solver_cli.errors import InputError, ScrabError

GaddagData = tuple[bytes, int, int, int, int]


def check_scheduler(address: str) -> str:
    """``address`` as a Dask scheduler address scrab can use, ``tcp://HOST:PORT`` (``HOST:PORT``
    means the same), checked before any work: InputError for an empty one, another scheme
    (``tls://`` needs certificates scrab has no options for, ``inproc://`` exists only inside
    one process), or a missing or bad host or port."""
    text = address.strip()
    example = "tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if not text:
        raise InputError(f"--scheduler: the address is empty (give {example})")
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme.lower() != "tcp":
        raise InputError(f"--scheduler {address}: {scheme}:// addresses are not supported (give {example})")
    host, colon, port = rest.rpartition(":")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host  # [::1] for IPv6
    if not colon or not bare or "]" in port:
        raise InputError(f"--scheduler {address}: no port (give {example})")
    if not re.fullmatch(r"[A-Za-z0-9._-]+", bare) and not (bare != host and re.fullmatch(r"[0-9A-Fa-f:.]+", bare)):
        raise InputError(f"--scheduler {address}: bad host {host!r} (give {example})")
    if not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise InputError(f"--scheduler {address}: bad port {port!r} (a number from 1 to 65535)")
    return f"tcp://{host}:{int(port)}"


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError("--scheduler needs Dask's distributed package: pip install 'scrab[dask]'") from None


class DaskCluster:
    """A connection to the scheduler at ``address``, with ``gaddag`` (a future) on every worker.
    InputError if ``distributed`` is missing or the scheduler cannot be reached; after that,
    any failure of the cluster is ``failed(exc)``, a ScrabError."""

    stall_seconds = 120.0  # (a scheduler started before its workers may wait that long for one)
    poll_seconds = 0.05
    ask_seconds = 30.0  # (how long the workers may take to say what they run)

    def __init__(self, address: str, gaddag: Gaddag):
        address = check_scheduler(address)
        distributed = _distributed()
        self.address = address
        self.failures = (CancelledError, OSError, TimeoutError, distributed.KilledWorker)
        try:
            self.client = distributed.Client(address, timeout="20s")
        except (OSError, ValueError) as exc:
            raise InputError(f"--scheduler {address}: cannot reach the Dask scheduler ({exc})") from None
        data: GaddagData = (
            gaddag.nodes.tobytes(),
            gaddag.root,
            gaddag.dawg_root,
            gaddag.state_count,
            gaddag.arc_count,
        )
        try:
            self.gaddag = self.scatter(data)
        except ScrabError:
            self.close(abort=True)
            raise

    def failed(self, exc: BaseException) -> ScrabError:
        reason = getattr(exc, "reason", None)  # a FutureCancelledError's, e.g. scheduler-connection-lost
        detail = " ".join(str(reason or exc).split())[:120]
        why = type(exc).__name__ + (f": {detail}" if detail else "")
        return ScrabError(f"the Dask cluster at {self.address} failed: its scheduler or a worker went away ({why})")

    def scatter(self, value: object) -> Any:
        """``value`` sent to every worker once; a future that tasks take as an argument."""
        try:
            return self.client.scatter(value, broadcast=True)
        except self.failures as exc:
            raise self.failed(exc) from None

    def submit(self, function: Any, *args: Any) -> Any:
        """A task: ``function(*args)`` on some worker (never merged with an equal one)."""
        try:
            return self.client.submit(function, *args, pure=False)
        except self.failures as exc:
            raise self.failed(exc) from None

    def workers(self) -> int:
        """How many workers the scheduler has now (at least 1: tasks wait for one)."""
        try:
            return max(1, len(self.client.scheduler_info().get("workers", {})))
        except self.failures as exc:
            raise self.failed(exc) from None

    def as_completed(self, futures: Any) -> Any:
        """``futures`` in the order they finish (Dask's ``as_completed``: more may be added)."""
        return _distributed().as_completed(futures)

    def results(self, completed: Any) -> Iterator[tuple[Any, Any]]:
        """(future, result) for each future of ``completed`` (``as_completed``) as it comes;
        a failure of the cluster is ``failed``, and so is a stall: tasks waiting while no
        worker has run any task for ``stall_seconds`` (Dask can lose track of a task, its
        scheduler counting it as running where no worker runs it, and then waits forever:
        dask/dask#7543, dask/distributed#4001)."""
        watch = StallWatch(self.idle, self.stall_seconds, f"the Dask cluster at {self.address}")
        try:
            while not completed.is_empty():
                if completed.has_ready():
                    future = next(completed)
                    watch.progressed()
                    yield future, future.result()
                    continue
                watch.check(completed.count())
                time.sleep(self.poll_seconds)
        except self.failures as exc:
            raise self.failed(exc) from None

    def idle(self) -> int | None:
        """How many workers there are, if none of them is running a task now; else None.
        Workers that do not say what they run within ``ask_seconds`` count as idle: a wedged
        one would otherwise hang the watch on it (call_stack asks every worker, untimed)."""
        answer: dict[str, Any] = {}

        def ask() -> None:
            try:
                answer["running"] = self.client.call_stack()
            except BaseException as exc:  # (handed to the caller's thread)
                answer["error"] = exc

        # A daemon thread, so that one left waiting never holds up the exit.
        asking = threading.Thread(target=ask, name="scrab-dask-call-stack", daemon=True)
        asking.start()
        asking.join(self.ask_seconds)
        try:
            if "error" in answer:
                raise answer["error"]
            workers = len(self.client.scheduler_info().get("workers", {}))
        except self.failures as exc:
            raise self.failed(exc) from None
        running = answer.get("running")
        return None if running is not None and any(running.values()) else workers

    def close(self, abort: bool = False) -> None:
        """Disconnect; ``abort``: at once, the tasks still running abandoned."""
        with contextlib.suppress(*self.failures):  # (a cluster already gone: nothing to release)
            self.client.close(timeout=5 if abort else 20)


class StallWatch:
    """Whether tasks have waited ``seconds`` while no worker ran any: ``idle()`` is the number
    of workers when none is running a task, else None. Asked at most every tenth of
    ``seconds``; idle at two asks at least ``seconds`` apart, with no task finished between,
    is a stall (a worker between two tasks is idle for an instant, not for minutes)."""

    def __init__(
        self,
        idle: Callable[[], int | None],
        seconds: float,
        cluster: str,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.idle, self.seconds, self.cluster, self.clock = idle, seconds, cluster, clock
        self.asked = clock()
        self.idle_since: float | None = None

    def progressed(self) -> None:
        self.idle_since = None

    def check(self, waiting: int) -> None:
        """ScrabError if the stall has lasted ``seconds``, with ``waiting`` tasks unfinished."""
        now = self.clock()
        if now - self.asked < self.seconds / 10:
            return
        self.asked = now
        workers = self.idle()
        if workers is None:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = now
        elif now - self.idle_since >= self.seconds:
            idle = f"none of its {workers} worker(s) has run one" if workers else "it has had no worker"
            raise ScrabError(
                f"{self.cluster} stalled: {waiting} task(s) waiting, but {idle} for "
                f"{now - self.idle_since:.0f} s (restart its workers or its scheduler)"
            )


# On a Dask worker: the GADDAG's bytes as scattered (the worker hands every task the same
# object), and the GADDAG built from them. Compared by identity, not by a digest of the bytes:
# hashing megabytes for every task (a self-play task is one game) cost more than the game.
_worker_gaddag: tuple[GaddagData, Gaddag] | None = None


def gaddag_on_worker(data: GaddagData) -> Gaddag:
    """On a Dask worker: the GADDAG of ``data`` (as ``DaskCluster`` scattered it), rebuilt once
    per worker process and reused by every task that follows."""
    global _worker_gaddag
    if _worker_gaddag is None or _worker_gaddag[0] is not data:
        nodes = array("I")
        nodes.frombytes(data[0])
        _worker_gaddag = (data, Gaddag(nodes, *data[1:]))
    return _worker_gaddag[1]

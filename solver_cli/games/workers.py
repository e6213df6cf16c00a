"""Worker processes for self-play and training: how many to start, and that they die with
the process that started them.

Orphaned workers were the problem: killed with SIGKILL (or stopped before it could end
them), a parent left its workers playing on for minutes, owned by init and holding its
standard output and error open, so a caller reading them through a pipe waited for them.
Each worker now guards itself as it starts (``_start_worker``):

- on Linux, the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) kills
  it the moment its parent dies; the parent may have died before that call, so the parent's
  process id is checked after it;
- everywhere, a thread waits on multiprocessing's parent sentinel (a pipe from the parent,
  or its process handle on Windows, which the death of the parent makes ready) and ends the
  worker; it is the only guard where there is no ``prctl``.

A worker ignores SIGINT: Ctrl-C reaches the terminal's whole process group, and it is the
parent that decides to stop, and ends its workers (``stop_pool``). Each worker's parent is
the process that made the pool.

Start-up: on Linux, a process running no other thread forks its workers, which then share
its GADDAG and tables page by page and start at once; spawning instead (a new interpreter
that imports scrab and unpickles the GADDAG, 7 MB for SOWPODS) took 0.3-0.4 s, most of a
short simulation's budget. Elsewhere (macOS, Windows), or with another thread running (a
Rich display's, whose locks a fork could copy held), workers are spawned as before.

Number: asking for more workers than there is work for, or than the CPUs can run, only
costs memory (each worker holds its own GADDAG: ``--jobs 1000`` once took 26 GB), so
``capped_jobs`` caps them at both.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

WORKERS_PER_CPU = 2  # more than one, so a worker waiting on its parent leaves no CPU idle
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity where the platform tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_jobs() -> int:
    """The most worker processes scrab starts: ``WORKERS_PER_CPU`` per CPU."""
    return WORKERS_PER_CPU * cpu_count()


def capped_jobs(jobs: int, work: int) -> int:
    """The worker processes worth starting when ``jobs`` are asked for and ``work`` tasks
    can run at once: at most one per task and at most ``max_jobs()``, at least one."""
    return max(1, min(jobs, work, max_jobs()))


def start_pool(
    jobs: int,
    initializer: Callable[..., None],
    initargs: tuple[Any, ...],
    *,
    parent_death_signal: bool = True,
) -> ProcessPoolExecutor:
    """A pool of ``jobs`` worker processes, all started now, each of which runs
    ``initializer(*initargs)`` once and dies with this process. ``parent_death_signal=False``
    leaves the portable guard alone (for its tests)."""
    pool: ProcessPoolExecutor | None = None
    try:
        with _stop_signals_held():
            context = multiprocessing.get_context(start_method())
            if context.get_start_method() == "fork":  # (else a worker could write it out again)
                for stream in (sys.stdout, sys.stderr):
                    if stream is not None:
                        stream.flush()
            pool = ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=context,
                initializer=_start_worker,
                initargs=(os.getpid(), parent_death_signal, initializer, initargs),
            )
            for _ in range(jobs):  # (each submit starts a worker while none is idle)
                pool.submit(int)
    except BaseException:  # (a signal held while they started is raised as the hold ends)
        if pool is not None:
            stop_pool(pool)
        raise
    return pool


def start_method() -> str:
    """How workers are started: "fork" on Linux from a process running no other thread,
    else "spawn"."""
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    return "spawn"


@contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait while workers are started, and take effect after: interrupted
    while writing a new worker its start-up data (the GADDAG), the parent would leave it a
    truncated pickle, and the worker a traceback on stderr. SIGINT is blocked and ignored
    (as multiprocessing's resource tracker starts), so the workers inherit it ignored: a
    Ctrl-C at the terminal, which reaches the whole process group, never reaches one, even
    starting up. SIGTERM is only noted, not blocked: the workers must not inherit it blocked
    (``stop_pool`` ends them with it)."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    # The tracker of the pool's semaphores starts first: starting, it unblocks SIGINT.
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    terminated: list[int] = []
    me = os.getpid()

    def note(signum: int, frame: object) -> None:
        if os.getpid() != me:  # a forked worker not yet past _start_worker: it must die
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
        terminated.append(signum)

    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    on_interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
    on_terminate = signal.signal(signal.SIGTERM, note)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if on_terminate is None else on_terminate)
        if on_interrupt is not None:
            signal.signal(signal.SIGINT, on_interrupt)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # (a Ctrl-C held meanwhile arrives now)
        if terminated:
            signal.raise_signal(signal.SIGTERM)  # (to the handler there was before)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: tasks not started are cancelled, the workers ended (what they were
    doing is abandoned) and waited for, so none outlives the caller."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # (shutdown forgets it)
    calls = getattr(pool, "_call_queue", None)
    if calls is not None:
        # Tasks still in the call queue's pipe are abandoned with the workers: without this,
        # its feeder thread, blocked writing to a pipe no one reads any more, is joined at
        # exit and the process hangs (CPython 3.11.2, Debian 12's: SIGTERM left training
        # hung in terminate_broken's join_executor_internals).
        calls.cancel_join_thread()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)
        if process.is_alive():  # (it cannot ignore SIGTERM, but never wait for ever)
            process.kill()
            process.join(1)
    # The pool's manager thread ends once it sees its workers gone. Waited for here, since
    # at exit CPython's hook wakes it through a pipe the thread may be closing at that moment,
    # and the race prints a traceback ("Bad file descriptor") after the partial results.
    if manager is not None and manager is not threading.current_thread():
        manager.join(5)


def _start_worker(
    parent: int, parent_death_signal: bool, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (already, inherited: see _stop_signals_held)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (forked, it inherits the parent's handler)
    if parent_death_signal:
        _ask_kernel_to_kill_on_parent_death()
    if os.getppid() != parent:  # the parent died before the guard was set: nobody wants us
        os._exit(1)
    _watch_parent()
    initializer(*initargs)


def _ask_kernel_to_kill_on_parent_death() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # (no usable libc: the watching thread still guards)


def _watch_parent() -> None:
    """A daemon thread that ends this process when its parent dies."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        from multiprocessing.connection import wait

        wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="scrab-parent-watch", daemon=True).start()

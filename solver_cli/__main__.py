"""``scrab`` and ``python -m solver_cli``: the command line, started with the collector paused."""

from __future__ import annotations

import gc
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

STOPPED = 130  # (cli._common's: not imported here, as an interrupt may come before it is)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    # Ctrl-C or SIGTERM while the modules below are imported (a quarter of a second for the
    # look-ahead commands) stops as one after them does: one line and 130, no traceback.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        run = _load()
    except KeyboardInterrupt:
        sys.stderr.write("Stopped: interrupted\n")
        sys.exit(STOPPED)
    run()


def _load() -> Callable[[], None]:
    """The command line's entry, its modules and the command's imported."""
    # Importing Click and a command's modules makes some 100,000 objects that live as long as
    # the process, and the cyclic garbage collector walked them again and again while they
    # were made: about 10 ms of a 75 ms 'scrab solve'. So it is off while they are imported;
    # then they are frozen (left out of every later collection) and it runs again, so long
    # commands (selfplay, training) collect as usual. Only here: the library and the CLI
    # module, imported by tests or other programs, leave the collector alone.
    gc.disable()
    try:
        from solver_cli.cli import load_command
        from solver_cli.cli import main as run

        # The command is the first argument that is not an option (`scrab` itself takes none
        # with a value); a wrong guess only means its imports run with the collector on.
        name = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "")
        load_command(name)
    finally:
        gc.freeze()
        gc.enable()
    return run


if __name__ == "__main__":
    main()

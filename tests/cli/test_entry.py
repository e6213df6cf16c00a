"""The entry point (``scrab`` and ``python -m solver_cli``): it pauses the cyclic garbage
collector while Click and the command's modules are imported (start-up time), and only
there; every command then runs with the collector on, as a long one needs."""

from __future__ import annotations

import gc
import subprocess
import sys
from importlib.metadata import entry_points

import pytest
from soak import python_engine_in_soak

REPORT = (
    "import atexit, gc, sys\n"
    "atexit.register(lambda: print('gc', gc.isenabled(), gc.get_freeze_count(), file=sys.stderr))\n"
    "sys.argv = ['scrab', *sys.argv[1:]]\n"
    "from solver_cli.__main__ import main\n"
    "main()\n"
)


def run_entry(*args: str) -> tuple[subprocess.CompletedProcess[str], bool, int]:
    proc = subprocess.run([sys.executable, "-c", REPORT, *args], capture_output=True, text=True, timeout=120)
    _, enabled, frozen = proc.stderr.strip().splitlines()[-1].split()
    return proc, enabled == "True", int(frozen)


@python_engine_in_soak()  # (how the entry point starts does not depend on the engine)
@pytest.mark.parametrize(
    ("args", "stdout"),
    [
        (("check", "QI", "--json"), '"valid": true'),  # a command: its module imported while paused
        (("--version",), "scrab"),  # no command at all
        (("nosuch",), ""),  # an unknown one: Click says so
    ],
)
def test_the_collector_runs_again_once_started(args, stdout):
    proc, enabled, frozen = run_entry(*args)
    assert stdout in proc.stdout
    assert enabled
    assert frozen > 10_000  # Click's and scrab's objects, out of every later collection


def test_the_command_module_is_imported_before_the_collector_runs_again():
    code = (
        "import gc, sys\n"
        "sys.argv = ['scrab', 'check', 'QI']\n"
        "import solver_cli.cli as cli\n"
        "seen = []\n"
        "original = cli.load_command\n"
        "cli.load_command = lambda name: (seen.append((name, gc.isenabled())), original(name))[1]\n"
        "from solver_cli.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(seen[0], file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stderr.strip().splitlines()[-1] == "('check', False)", proc.stderr


def test_importing_the_cli_leaves_the_collector_alone():
    code = "import gc; import solver_cli.cli, solver_cli.cli.solve; print(gc.isenabled(), gc.get_freeze_count())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert proc.stdout.split() == ["True", "0"]
    assert gc.isenabled()


def test_the_installed_command_uses_this_entry_point():
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "scrab"]
    assert script.value == "solver_cli.__main__:main"


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupt_while_the_command_is_imported_stops_with_one_line(signal_name):
    """Ctrl-C or SIGTERM that comes while the command's modules are still imported (the
    first quarter second of the look-ahead commands) ends as one later does: one line on
    stderr and status 130, no traceback."""
    code = (
        "import os, signal, sys\n"
        "sys.argv = ['scrab', 'check', 'QI']\n"
        "import solver_cli.cli as cli\n"
        f"cli.load_command = lambda name: os.kill(os.getpid(), signal.{signal_name})\n"
        "from solver_cli.__main__ import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "Stopped: interrupted\n")

"""``scrab selfplay --scheduler ADDRESS``: a match's games on a Dask cluster (issue #22, "In play,
at scale"). The same seed gives the same games, game by game, as the local pool; a bad
address, or no ``distributed`` package, is one line before any game; Ctrl-C prints the games
finished; a worker that dies is one line. One LocalCluster (two worker processes) serves the
module."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import replace

import pytest
from click.testing import CliRunner
from soak import python_engine_in_soak

from solver_cli.cli import cli

distributed = pytest.importorskip("distributed")  # (the test extra installs it)

# The games are the engines' (tested on both elsewhere); this is their scheduling. (The
# cluster's workers start once, with the engine of the environment the module starts in.)
pytestmark = python_engine_in_soak()

# What may differ between two runs of the same games: the clock, and where they ran.
UNSCHEDULED = {"seconds", "seconds_per_game", "moves_per_second", "games_per_second", "jobs", "scheduler", "saved_to"}


@pytest.fixture(scope="module")
def word_file(tmp_path_factory, small_words) -> str:
    path = tmp_path_factory.mktemp("dask") / "small.txt"
    path.write_text("\n".join(small_words) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def scheduler() -> str:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def selfplay(*args: str):
    return CliRunner().invoke(cli, ["selfplay", *args])


def test_a_match_on_a_cluster_plays_the_same_games_as_the_local_pool(word_file, scheduler, tmp_path):
    match = ["--players", "equity,greedy", "--games", "6", "--seed", "3", "--lexicon", word_file, "--json"]
    local = selfplay(*match, "--jobs", "2", "--save-games", str(tmp_path / "local"))
    assert local.exit_code == 0, local.output
    # --jobs goes unused on a cluster: no note about it, as for leaves train.
    remote = selfplay(*match, "--jobs", "1000", "--scheduler", scheduler, "--save-games", str(tmp_path / "dask"))
    assert remote.exit_code == 0, remote.output
    assert remote.stderr == local.stderr
    mine, theirs = json.loads(local.stdout), json.loads(remote.stdout)
    assert (mine["scheduler"], theirs["scheduler"], theirs["jobs"]) == (None, scheduler, 2)
    assert len(theirs["results"]) == 6 and theirs["players"][0]["name"] == "equity"
    assert {k: v for k, v in theirs.items() if k not in UNSCHEDULED} == {
        k: v for k, v in mine.items() if k not in UNSCHEDULED
    }
    # ... move by move: the game records are the same files.
    records = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert records == [f"game-000{i}.gcg" for i in range(1, 7)]
    assert sorted(p.name for p in (tmp_path / "dask").iterdir()) == records
    for name in records:
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


def test_games_sent_in_batches_come_back_the_same(small_gaddag, scheduler):
    """Quick games go to the cluster several to a task (here 3): the same outcomes, in game
    order, as on one process."""
    from solver_cli.engine.rules import load_rules
    from solver_cli.games.selfplay import dask_batch, run_selfplay

    rules = load_rules("wwf")
    assert dask_batch(100, 2) == 3
    local = run_selfplay(small_gaddag, rules, 100, 9)
    remote = run_selfplay(small_gaddag, rules, 100, 9, jobs=5, scheduler=scheduler)
    assert (remote.jobs, remote.scheduler) == (2, scheduler)
    assert [replace(o, seconds=0) for o in remote.outcomes] == [replace(o, seconds=0) for o in local.outcomes]
    assert [o.index for o in remote.outcomes] == list(range(100))


def test_the_table_says_where_the_games_ran(word_file, scheduler):
    result = selfplay("--games", "2", "--seed", "1", "--lexicon", word_file, "--scheduler", scheduler)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    # Rich wraps the title to the terminal's width, anywhere in a long path: compare it
    # with every space and line break taken out.
    title = "".join(result.stdout.split())
    assert title.startswith("".join(f"2 greedy games (scrabble, {word_file}, seed 1, on {scheduler})".split()))


def test_ctrl_c_on_a_cluster_prints_the_games_finished(word_file, scheduler, tmp_path, monkeypatch):
    """A KeyboardInterrupt as the third game comes back: the two before it are summarised
    (the same games as locally), one line, status 130; the cluster's other games abandoned."""
    from solver_cli.formats import gcg

    real = gcg.write_game
    written = []

    def interrupted_third(*args, **kwargs):
        if len(written) == 2:
            raise KeyboardInterrupt
        written.append(args[1].outcome().index)
        return real(*args, **kwargs)

    monkeypatch.setattr(gcg, "write_game", interrupted_third)
    plan = ["--games", "8", "--seed", "4", "--lexicon", word_file, "--json", "--save-games", str(tmp_path)]
    result = selfplay(*plan, "--scheduler", scheduler)
    assert result.exit_code == 130, result.output
    assert result.stderr == "Stopped: 2 of 8 games finished; the summary covers them\n"
    stopped = json.loads(result.stdout)
    assert stopped["stopped"] is True and stopped["games"] == 2 and stopped["scheduler"] == scheduler
    monkeypatch.setattr(gcg, "write_game", real)
    whole = json.loads(selfplay(*plan).stdout)["results"]
    assert stopped["results"] == [whole[i] for i in sorted(written)]
    # The cluster is still usable (the abandoned games did not wedge it).
    again = selfplay("--games", "2", "--seed", "1", "--lexicon", word_file, "--scheduler", scheduler, "--json")
    assert again.exit_code == 0, again.output


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("", "--scheduler: the address is empty (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        ("localhost", "--scheduler localhost: no port (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        ("tcp://h:0", "--scheduler tcp://h:0: bad port '0' (a number from 1 to 65535)"),
        (
            "tls://h:8786",
            "--scheduler tls://h:8786: tls:// addresses are not supported (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)",
        ),
    ],
)
def test_bad_scheduler_addresses_are_refused_before_any_game(address, message, tmp_path, monkeypatch):
    from solver_cli.cli import selfplay as command

    def no_work(*args, **kwargs):
        raise AssertionError("the word list was loaded")

    monkeypatch.setattr(command, "load_lexicon_for", no_work)
    result = selfplay("--games", "2", "--scheduler", address, "--save-games", str(tmp_path / "g"))
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")
    assert not (tmp_path / "g").exists()


def test_without_distributed_the_extra_is_named(word_file, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # (import distributed: ImportError)
    result = selfplay("--games", "2", "--lexicon", word_file, "--scheduler", "tcp://127.0.0.1:8786")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "Error: --scheduler needs Dask's distributed package: pip install 'scrab[dask]'\n"


def test_a_dask_worker_dying_mid_match_is_one_line(word_file, tmp_path, monkeypatch):
    """The only worker of its cluster killed after the first game: the scattered GADDAG is
    lost with it and the other games with it. One line (no traceback), status 1."""
    from solver_cli.formats import gcg

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster.scheduler_address) as client:
            worker_pids = list(client.run(os.getpid).values())
        real = gcg.write_game

        def write_then_kill_the_worker(*args, **kwargs):
            for pid in worker_pids:  # (once: after the first game)
                os.kill(pid, signal.SIGKILL)
            worker_pids.clear()
            return real(*args, **kwargs)

        monkeypatch.setattr(gcg, "write_game", write_then_kill_the_worker)
        plan = ["--games", "40", "--seed", "5", "--lexicon", word_file, "--save-games", str(tmp_path)]
        failed = selfplay(*plan, "--scheduler", cluster.scheduler_address)
    assert failed.exit_code == 1, failed.output
    assert failed.stdout == ""
    line = failed.stderr.rstrip("\n")
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"Error: the Dask cluster at {cluster.scheduler_address} failed: its scheduler or a worker")


class LostTasks:
    """An ``as_completed`` whose three tasks never finish: what Dask's scheduler shows when it
    has lost track of them (counted as running where no worker runs them)."""

    def is_empty(self) -> bool:
        return False

    def has_ready(self) -> bool:
        return False

    def count(self) -> int:
        return 3


def test_tasks_waiting_on_idle_workers_are_a_stall_not_a_wait_forever(small_gaddag, scheduler):
    from solver_cli.errors import ScrabError
    from solver_cli.games.cluster import DaskCluster

    cluster = DaskCluster(scheduler, small_gaddag)
    cluster.stall_seconds = 1.0
    try:
        with pytest.raises(ScrabError) as stalled:
            list(cluster.results(LostTasks()))
    finally:
        cluster.close()
    message = str(stalled.value)
    assert message.startswith(f"the Dask cluster at {scheduler} stalled: 3 task(s) waiting, but none of its 2 ")
    assert "\n" not in message


def test_a_task_running_longer_than_the_stall_time_is_no_stall(small_gaddag, scheduler):
    import time

    from solver_cli.games.cluster import DaskCluster

    cluster = DaskCluster(scheduler, small_gaddag)
    cluster.stall_seconds = 1.5
    try:
        futures = cluster.as_completed([cluster.submit(time.sleep, 4.0), cluster.submit(time.sleep, 0.1)])
        assert [result for _, result in cluster.results(futures)] == [None, None]
    finally:
        cluster.close()


def test_the_stall_watch_needs_idle_workers_for_its_whole_time():
    """Unit: idle at two asks ``seconds`` apart with nothing finished between is a stall; a
    busy ask, or a task finished, starts the time again; asks are spaced a tenth apart."""
    from solver_cli.errors import ScrabError
    from solver_cli.games.cluster import StallWatch

    now = [0.0]
    answers: list[int | None] = []
    asked: list[float] = []

    def idle() -> int | None:
        asked.append(now[0])
        return answers.pop(0)

    watch = StallWatch(idle, 100.0, "the Dask cluster at tcp://h:1", clock=lambda: now[0])

    def at(time: float, answer: int | None = None) -> None:
        now[0] = time
        answers[:] = [answer]
        watch.check(5)

    at(5)  # too soon to ask
    at(10, 2)  # idle from 10 ...
    at(60, None)  # ... but busy at 60: the time starts again
    at(70, 2)
    at(165, 2)  # 95 s idle: not yet
    watch.progressed()  # a task finished: again
    at(200, 2)
    at(299, 2)
    stalled = r"^the Dask cluster at tcp://h:1 stalled: 5 task\(s\) waiting, but none of its 2 worker\(s\) has run one"
    with pytest.raises(ScrabError, match=stalled + " for 109 s "):
        at(309, 2)  # (not at 300: 1 s after the last ask)
    assert asked == [10, 60, 70, 165, 200, 299, 309]
    watch = StallWatch(idle, 100.0, "the Dask cluster at tcp://h:1", clock=lambda: now[0])
    at(320, 0)
    with pytest.raises(ScrabError, match=r"5 task\(s\) waiting, but it has had no worker for 100 s "):
        at(420, 0)


def test_workers_that_do_not_say_what_they_run_count_as_idle():
    """call_stack asks every worker with no time limit: a wedged one would hang the watch.
    Unanswered within ask_seconds, the workers count as idle (a stall, if it lasts); a
    failed ask is the cluster's failure."""
    import time

    from solver_cli.errors import ScrabError
    from solver_cli.games.cluster import DaskCluster

    class Wedged:
        def call_stack(self):
            time.sleep(30)

        def scheduler_info(self):
            return {"workers": {"a": {}, "b": {}}}

    class Gone(Wedged):
        def call_stack(self):
            raise OSError("connection closed")

    cluster = object.__new__(DaskCluster)
    cluster.address, cluster.failures, cluster.ask_seconds = "tcp://h:1", (OSError,), 0.2
    cluster.client = Wedged()
    started = time.monotonic()
    assert cluster.idle() == 2 and time.monotonic() - started < 5
    cluster.client = Gone()
    with pytest.raises(ScrabError, match=r"^the Dask cluster at tcp://h:1 failed: .*connection closed"):
        cluster.idle()

"""Worker processes and stopping early (issues #23 and #24): workers die with their parent,
SIGTERM stops a run as Ctrl-C does (its partial results, one ``Stopped:`` line, status 130),
and ``--jobs`` is capped at the work there is and at the CPUs.

The signal tests start real ``python -m solver_cli`` processes, wait (bounded) until their
workers are busy, signal the parent and check, within a few seconds, what a caller sees:
its output ends, the workers are gone."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from processes import alive, wait_until, workers_of
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.engine.rules import load_rules
from solver_cli.games import workers
from solver_cli.games.leavegen import train
from solver_cli.games.selfplay import game_seed, run_selfplay

LINUX_PROC = Path("/proc/self/stat").exists()
needs_proc = pytest.mark.skipif(not LINUX_PROC, reason="finds the worker processes in /proc")


@pytest.fixture(scope="module")
def word_file(tmp_path_factory, small_words) -> str:
    path = tmp_path_factory.mktemp("workers") / "small.txt"
    path.write_text("\n".join(small_words) + "\n")
    return str(path)


# --- processes ---------------------------------------------------------------------------------


def start(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "solver_cli", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[bytes], seconds: float = 15) -> tuple[str, str]:
    result: dict[str, bytes] = {}

    def drain(name: str, pipe) -> None:
        result[name] = pipe.read()

    threads = [
        threading.Thread(target=drain, args=(name, pipe), daemon=True)
        for name, pipe in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds)
        assert not t.is_alive(), f"the output did not end within {seconds} s: a process still holds it"
    proc.wait(5)
    return result["out"].decode(), result["err"].decode()


def busy_run(kind: str, word_file: str, folder: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A long run on two workers, started and waited for until its workers are at work."""
    if kind == "selfplay":
        args = ["selfplay", "--games", "2000", "--jobs", "2", "--seed", "3", "--save-games", str(folder)]
    else:
        args = ["leaves", "train", "--games", "4000", "--rounds", "1", "--jobs", "2", "-o", str(folder / "t.leaves")]
    proc = start(*args, "--lexicon", word_file, "--json")
    try:
        pids = wait_until(lambda: len(found := workers_of(proc.pid)) >= 2 and found, 60, "two workers")
        if kind == "selfplay":  # games are being finished (and so the handlers are in place)
            wait_until(lambda: len(list(folder.glob("*.gcg"))) >= 2, 60, "two games saved")
        else:
            time.sleep(0.5)
    except BaseException:
        proc.kill()
        raise
    return proc, pids


# --- workers die with their parent -------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize("kind", ["selfplay", "training"])
def test_killing_the_parent_kills_its_workers(kind, word_file, tmp_path):
    proc, pids = busy_run(kind, word_file, tmp_path)
    proc.send_signal(signal.SIGKILL)
    finish(proc, 10)  # a caller reading the pipes is not left waiting
    assert proc.returncode == -signal.SIGKILL
    wait_until(lambda: not any(alive(pid) for pid in pids), 5, f"workers {pids} gone")


@needs_proc
def test_workers_die_with_their_parent_without_the_kernel_signal(tmp_path):
    """The portable guard alone (the thread watching the parent's pipe), as where there is
    no prctl: the parent is killed, its workers end themselves."""
    script = textwrap.dedent(
        """
        import time
        from solver_cli.games.workers import start_pool

        if __name__ == "__main__":
            pool = start_pool(2, dict, (), parent_death_signal=False)
            futures = [pool.submit(time.sleep, 120) for _ in range(4)]
            while len(pool._processes) < 2:
                time.sleep(0.05)
            print(*pool._processes, flush=True)
            time.sleep(120)
        """
    )
    path = tmp_path / "pool.py"
    path.write_text(script)
    proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(alive(pid) for pid in pids)
        wait_until(lambda: sorted(workers_of(proc.pid)) == sorted(pids), 30, "both workers started")
    finally:
        proc.send_signal(signal.SIGKILL)
    finish(proc, 10)
    wait_until(lambda: not any(alive(pid) for pid in pids), 5, f"workers {pids} gone")


# --- SIGTERM (and Ctrl-C) stop a run: partial results, one line, status 130 --------------------


@needs_proc
def test_sigterm_stops_selfplay_with_the_games_finished(word_file, tmp_path):
    proc, pids = busy_run("selfplay", word_file, tmp_path)
    saved = len(list(tmp_path.glob("*.gcg")))
    proc.send_signal(signal.SIGTERM)
    out, err = finish(proc)
    assert proc.returncode == 130, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Stopped: "), err
    data = json.loads(out)
    n = data["games"]
    assert data["stopped"] is True and saved <= n < 2000
    assert lines[0] == f"Stopped: {n:,} of 2,000 games finished; the summary covers them"
    assert len(data["results"]) == n and len(list(tmp_path.glob("*.gcg"))) >= n
    # the games finished are those of the run, whatever was still being played
    assert all(r["seed"] == game_seed(3, r["game"] - 1) for r in data["results"])
    assert data["first_player_wins"] + data["second_player_wins"] + data["draws"] == n
    wait_until(lambda: not any(alive(pid) for pid in pids), 5, f"workers {pids} gone")


@needs_proc
def test_sigterm_stops_training_with_the_command_to_go_on(word_file, tmp_path):
    proc, pids = busy_run("training", word_file, tmp_path)
    proc.send_signal(signal.SIGTERM)
    out, err = finish(proc)
    assert proc.returncode == 130, err
    assert out == ""
    assert err == (
        "Stopped: training interrupted; no round finished, so nothing was saved: run the same command again\n"
    )
    assert not (tmp_path / "t.leaves").exists()
    wait_until(lambda: not any(alive(pid) for pid in pids), 5, f"workers {pids} gone")


@needs_proc
@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
@pytest.mark.parametrize("kind", ["selfplay", "training"])
def test_ctrl_c_while_workers_start(kind, word_file, tmp_path):
    """Ctrl-C at a terminal reaches the whole process group, here as the workers start up
    (the parent writing them the GADDAG): the parent stops in one line, no worker prints
    a traceback, none is left."""
    if kind == "selfplay":
        args = ["selfplay", "--games", "2000", "--jobs", "2", "--json"]
    else:
        args = ["leaves", "train", "--games", "4000", "--rounds", "1", "--jobs", "2", "-o", str(tmp_path / "t.leaves")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver_cli", *args, "--lexicon", word_file],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        pids = wait_until(lambda: workers_of(proc.pid), 60, "a worker")
    finally:
        os.killpg(proc.pid, signal.SIGINT)
    out, err = finish(proc)
    assert proc.returncode == 130, err
    assert len(err.splitlines()) == 1 and err.startswith("Stopped: "), err
    wait_until(lambda: not any(alive(pid) for pid in pids + workers_of(proc.pid)), 5, "workers gone")


def interrupt_game(monkeypatch, nth: int) -> None:
    """Ctrl-C as the library sees it: a KeyboardInterrupt as the ``nth`` game starts."""
    from solver_cli.games import selfplay

    real = selfplay.play_indexed
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == nth:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(selfplay, "play_indexed", interrupted)


def test_a_stopped_selfplay_prints_what_it_has(word_file, monkeypatch):
    """Ctrl-C on one process (as the library sees it: a KeyboardInterrupt between games),
    with the table: the summary of the games finished, one line, status 130."""
    interrupt_game(monkeypatch, 3)
    result = CliRunner().invoke(cli, ["selfplay", "--games", "10", "--seed", "4", "--lexicon", word_file])
    assert result.exit_code == 130, result.output
    assert result.stderr == "Stopped: 2 of 10 games finished; the summary covers them\n"
    assert result.stdout.startswith("2 greedy games")
    assert "Aborted" not in result.output


@pytest.mark.parametrize("saved_first", [True, False], ids=["after-the-save", "before-the-save"])
def test_a_stop_while_a_game_is_saved_counts_it_only_if_saved(saved_first, word_file, tmp_path, monkeypatch):
    """A stop (Ctrl-C or SIGTERM) as the third game is handed over: once its record is
    written it is counted too, so the summary covers every record on disk (CI once saw six
    records and a summary of five); before its record is written, it is neither."""
    from solver_cli.formats import gcg

    real = gcg.write_game
    tried: list[int] = []

    def stopped_at_the_third(*args, **kwargs):
        index = args[1].outcome().index
        tried.append(index)
        if saved_first:
            real(*args, **kwargs)
        if len(tried) == 3 or (not saved_first and index == 2):  # (the retry is refused too)
            raise KeyboardInterrupt
        if not saved_first:
            real(*args, **kwargs)

    monkeypatch.setattr(gcg, "write_game", stopped_at_the_third)
    result = CliRunner().invoke(
        cli,
        ["selfplay", "--games", "6", "--seed", "4", "--lexicon", word_file, "--save-games", str(tmp_path), "--json"],
    )
    assert result.exit_code == 130, result.output
    counted = 3 if saved_first else 2
    assert result.stderr == f"Stopped: {counted} of 6 games finished; the summary covers them\n"
    data = json.loads(result.stdout)
    assert data["games"] == counted == len(data["results"])
    assert len(list(tmp_path.glob("*.gcg"))) == counted
    monkeypatch.setattr(gcg, "write_game", real)
    whole = json.loads(
        CliRunner().invoke(cli, ["selfplay", "--games", "6", "--seed", "4", "--lexicon", word_file, "--json"]).stdout
    )
    assert data["results"] == whole["results"][:counted]


def test_a_mirrored_run_stopped_counts_whole_pairs(word_file, monkeypatch):
    from solver_cli.games import selfplay

    interrupt_game(monkeypatch, 4)
    rules = load_rules("scrabble")
    from solver_cli.lexicon import load_lexicon

    lex = load_lexicon(word_file)
    with pytest.raises(selfplay.SelfPlayStopped) as stop:
        run_selfplay(lex.gaddag, rules, 8, seed=4, mirrored=True)
    assert [o.index for o in stop.value.run.outcomes] == [0, 1]  # game 2 finished, its pair did not
    assert stop.value.games == 8 and stop.value.run.summary.games == 2


def test_a_mirrored_run_stopped_names_a_record_saved_outside_the_summary(word_file, tmp_path, monkeypatch):
    """Its third game was saved, its pair (the fourth) stopped: the folder holds a record the
    summary leaves out, and the Stopped: line names it."""
    interrupt_game(monkeypatch, 4)
    plan = ["--games", "8", "--seed", "4", "--players", "equity,greedy", "--lexicon", word_file]
    result = CliRunner().invoke(cli, ["selfplay", *plan, "--save-games", str(tmp_path), "--json"])
    assert result.exit_code == 130, result.output
    assert len(json.loads(result.stdout)["results"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-0001.gcg", "game-0002.gcg", "game-0003.gcg"]
    assert result.stderr.splitlines()[-1] == (
        "Stopped: 2 of 8 games finished (whole pairs); the summary covers them (game-0003.gcg was saved too, "
        "but its pair did not finish)"
    )


def test_stopped_before_any_game(word_file, monkeypatch):
    interrupt_game(monkeypatch, 1)
    result = CliRunner().invoke(cli, ["selfplay", "--games", "10", "--lexicon", word_file, "--json"])
    assert (result.exit_code, result.stdout, result.stderr) == (130, "", "Stopped: no game finished of 10\n")


@pytest.mark.parametrize("command", ["review", "bench"])
def test_other_long_commands_stop_in_one_line(command, word_file, monkeypatch):
    """Ctrl-C (or SIGTERM) in review or bench: one line, status 130, never Click's
    "Aborted!" with status 1."""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    if command == "review":
        from solver_cli.games import review

        monkeypatch.setattr(review, "review_game", interrupted)
        game = Path(__file__).parents[1] / "formats" / "gcg" / "quackle.gcg"
        args = ["review", str(game), "--rank", "score", "--lexicon", word_file, "--json"]
    else:
        from solver_cli import bench

        monkeypatch.setattr(bench, "run_bench", interrupted)
        args = ["bench", "--skip-build", "--skip-command", "--json"]
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.stdout, result.stderr) == (130, "", "Stopped: interrupted\n")


# --- --jobs is capped ----------------------------------------------------------------------------


class CountingPool:
    """Stands in for ProcessPoolExecutor in ``workers``: records how many workers were asked for."""

    sizes: list[int] = []

    def __new__(cls, *args, **kwargs):
        from concurrent.futures import ProcessPoolExecutor

        cls.sizes.append(kwargs["max_workers"])
        return ProcessPoolExecutor(*args, **kwargs)


@pytest.fixture
def one_cpu(monkeypatch):
    monkeypatch.setattr(workers, "cpu_count", lambda: 1)
    CountingPool.sizes = []
    monkeypatch.setattr(workers, "ProcessPoolExecutor", CountingPool)
    return CountingPool.sizes


def test_capped_jobs():
    assert workers.capped_jobs(1000, 6) == min(6, workers.max_jobs())
    assert workers.capped_jobs(3, 1) == 1
    assert workers.capped_jobs(1000, 10**6) == workers.max_jobs() == workers.WORKERS_PER_CPU * workers.cpu_count()


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_selfplay_jobs_capped_at_the_cpus(word_file, one_cpu):
    runner = CliRunner()
    alone = runner.invoke(cli, ["selfplay", "--games", "6", "--seed", "2", "--lexicon", word_file, "--json"])
    many = runner.invoke(
        cli, ["selfplay", "--games", "6", "--seed", "2", "--lexicon", word_file, "--json", "--jobs", "1000"]
    )
    assert many.exit_code == 0, many.output
    assert many.stderr == "Note: --jobs 1,000: using 2 worker processes (at most 2 per CPU, 1 CPU here)\n"
    assert one_cpu == [2]
    got, want = json.loads(many.stdout), json.loads(alone.stdout)
    assert got["jobs"] == 2
    assert got["results"] == want["results"]


def test_selfplay_jobs_capped_at_the_games(word_file, one_cpu):
    result = CliRunner().invoke(cli, ["selfplay", "--games", "1", "--lexicon", word_file, "--json", "--jobs", "4"])
    assert result.exit_code == 0, result.output
    assert result.stderr == "Note: --jobs 4: using 1 worker process (games that can run at once: 1)\n"
    assert one_cpu == [] and json.loads(result.stdout)["jobs"] == 1


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_training_jobs_capped(small_gaddag, one_cpu):
    rules = load_rules("scrabble")

    def run(jobs: int) -> bytes:
        return bytes(train(small_gaddag, rules, "small", 3, rounds=1, batch=1, seed=9, jobs=jobs).table.values)

    assert run(1000) == run(1)
    assert one_cpu == [2]  # 3 batches in the round, 2 workers for the 1 CPU


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_training_note_when_capped(word_file, tmp_path, one_cpu):
    out = tmp_path / "t.leaves"
    args = ["leaves", "train", "--games", "2", "--rounds", "1", "--jobs", "3", "--lexicon", word_file, "--json"]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == "Note: --jobs 3: using 1 worker process (batches of games that can run at once: 1)\n"
    assert one_cpu == [] and out.exists()


# --- training stopped or failed: the checkpoint kept, and the command to go on --------------------


def go_on_command(line: str) -> list[str]:
    """The arguments of the ``scrab ...`` command a stopped training's line ends with."""
    command = shlex.split(line.split("go on with: ", 1)[1])
    assert command[0] == "scrab"
    return command[1:]


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_training_interrupted_says_how_to_go_on(word_file, tmp_path, monkeypatch):
    from solver_cli.games import leavegen

    real = leavegen.table_from_stats
    calls = []

    def interrupted_in_round_two(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    out = tmp_path / "out dir" / "t.leaves"  # (a space: the command is quoted for the shell)
    out.parent.mkdir()
    plan = ["leaves", "train", "--games", "2", "--rounds", "2", "--seed", "5", "--lexicon", word_file]
    monkeypatch.setattr(leavegen, "table_from_stats", interrupted_in_round_two)
    stopped = CliRunner().invoke(cli, [*plan, "-o", str(out), "--json"])
    monkeypatch.setattr(leavegen, "table_from_stats", real)
    assert stopped.exit_code == 130, stopped.output
    assert stopped.stdout == ""
    line = stopped.stderr.rstrip("\n")
    assert "\n" not in line
    assert line.startswith(f"Stopped: training interrupted; {out} holds round 1 of 2; go on with: scrab leaves train")
    assert out.exists()  # round 1's checkpoint

    resumed = CliRunner().invoke(cli, go_on_command(line))
    assert resumed.exit_code == 0, resumed.output
    whole = tmp_path / "whole.leaves"
    assert CliRunner().invoke(cli, [*plan, "-o", str(whole)]).exit_code == 0
    assert out.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("", "--scheduler: the address is empty (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        ("  ", "--scheduler: the address is empty (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        ("localhost", "--scheduler localhost: no port (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        ("tcp://h:abc", "--scheduler tcp://h:abc: bad port 'abc' (a number from 1 to 65535)"),
        ("tcp://h:0", "--scheduler tcp://h:0: bad port '0' (a number from 1 to 65535)"),
        ("tcp://h:65536", "--scheduler tcp://h:65536: bad port '65536' (a number from 1 to 65535)"),
        (
            "tls://h:8786",
            "--scheduler tls://h:8786: tls:// addresses are not supported (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)",
        ),
        (
            "inproc://x",
            "--scheduler inproc://x: inproc:// addresses are not supported (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)",
        ),
        ("tcp://:8786", "--scheduler tcp://:8786: no port (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)"),
        (
            "tcp://a b:8786",
            "--scheduler tcp://a b:8786: bad host 'a b' (give tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)",
        ),
    ],
)
def test_bad_scheduler_addresses_are_refused_before_any_work(address, message, tmp_path, monkeypatch):
    from solver_cli.cli import leaves

    def no_work(*args, **kwargs):
        raise AssertionError("the word list was loaded")

    monkeypatch.setattr(leaves, "load_lexicon_for", no_work)
    out = tmp_path / "t.leaves"
    result = CliRunner().invoke(cli, ["leaves", "train", "--games", "4", "--scheduler", address, "-o", str(out)])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"Error: {message}\n")
    assert not out.exists()


def test_good_scheduler_addresses():
    from solver_cli.games.leavegen import check_scheduler

    assert check_scheduler("tcp://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    assert check_scheduler("sched.example.org:8786") == "tcp://sched.example.org:8786"
    assert check_scheduler(" TCP://[::1]:08786 ") == "tcp://[::1]:8786"


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_a_dask_worker_dying_mid_training_is_one_line(word_file, tmp_path, monkeypatch):
    """The only worker of a cluster killed after round 1: the scattered GADDAG is lost with
    it and round 2's tasks are cancelled. One line (no traceback), status 1,
    round 1's checkpoint kept, and the command to go on from it, which gives the table an
    uninterrupted training gives."""
    import distributed

    from solver_cli.formats import leavefile

    out = tmp_path / "t.leaves"
    plan = ["leaves", "train", "--games", "2", "--rounds", "2", "--seed", "5", "--lexicon", word_file]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster.scheduler_address) as client:
            worker_pids = list(client.run(os.getpid).values())
        real = leavefile.write_leaves

        def write_then_kill_the_worker(path, table, info):
            real(path, table, info)
            if info["round"] == 1:
                for pid in worker_pids:
                    os.kill(pid, signal.SIGKILL)

        monkeypatch.setattr(leavefile, "write_leaves", write_then_kill_the_worker)
        failed = CliRunner().invoke(cli, [*plan, "--scheduler", cluster.scheduler_address, "-o", str(out)])
        monkeypatch.setattr(leavefile, "write_leaves", real)
    assert failed.exit_code == 1, failed.output
    assert failed.stdout == ""
    line = failed.stderr.rstrip("\n")
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"Error: the Dask cluster at {cluster.scheduler_address} failed: its scheduler or a worker")
    assert f"; {out} holds round 1 of 2; go on with: scrab leaves train" in line
    assert leavefile.read_leaves(str(out)).info["round"] == 1
    command = go_on_command(line)
    at = command.index("--scheduler")
    assert command[at + 1] == cluster.scheduler_address
    assert command[command.index("--resume") + 1] == str(out)
    # (that cluster is gone: going on locally gives the same table, see the test above)
    resumed = CliRunner().invoke(cli, command[:at] + command[at + 2 :])
    assert resumed.exit_code == 0, resumed.output
    assert leavefile.read_leaves(str(out)).info["round"] == 2


@python_engine_in_soak()  # (the workers' lives do not depend on the engine)
def test_the_dask_scheduler_dying_mid_round_is_one_line(word_file, tmp_path):
    """As a user sees it, real processes: a scheduler and its one worker, and the scheduler
    killed while round 1 plays. One line on stderr (the Dask client's own log lines and
    tracebacks silenced), status 1, and nothing to go on from."""
    pytest.importorskip("distributed")  # (the test extra installs it)
    info, logs = tmp_path / "scheduler.json", tmp_path / "scheduler.log"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0"]
    with logs.open("wb") as log:
        scheduler = subprocess.Popen([*dask, "--no-dashboard", "--scheduler-file", str(info)], stdout=log, stderr=log)
    worker = None
    try:
        address = wait_until(
            lambda: info.exists() and json.loads(info.read_text() or "{}").get("address"), 60, "a scheduler"
        )
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                address,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: b"Register worker" in logs.read_bytes(), 60, "the worker registered")
        out = tmp_path / "t.leaves"
        args = ["leaves", "train", "--games", "1500", "--rounds", "2", "--lexicon", word_file, "-o", str(out)]
        proc = start(*args, "--scheduler", address)
        try:
            wait_until(lambda: b"Receive client connection" in logs.read_bytes(), 60, "the training connected")
            time.sleep(1)  # (its first batch sent: 500 games take longer than that)
        finally:
            scheduler.kill()
        stdout, stderr = finish(proc, 60)
    finally:
        for process in (scheduler, worker):
            if process is not None:
                process.kill()
                process.wait(10)
    assert (proc.returncode, stdout) == (1, ""), stderr
    assert stderr.startswith(f"Error: the Dask cluster at {address} failed: its scheduler or a worker went away ("), (
        stderr
    )
    assert stderr.endswith("); no round finished, so nothing was saved: run the same command again\n"), stderr
    assert len(stderr.splitlines()) == 1, stderr
    assert not out.exists()


def test_a_stopped_pool_leaves_no_manager_thread_for_the_exit_hook():
    """stop_pool waits for the pool's manager thread: left running, it races CPython's exit
    hook on the pipe it closes, which printed a traceback after a SIGTERM's partial results."""
    import time

    from solver_cli.games.workers import start_pool, stop_pool

    pool = start_pool(2, dict, ())
    for _ in range(4):
        pool.submit(time.sleep, 60)
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive()
    stop_pool(pool)
    assert not manager.is_alive()


def test_workers_are_forked_on_linux_while_no_other_thread_runs():
    """Forked, a worker shares the GADDAG and starts at once; with another thread running (a
    Rich display's) a fork could copy a lock held, so the workers are spawned."""
    code = textwrap.dedent(
        """
        import threading
        from solver_cli.games import workers
        alone = workers.start_method()
        stop = threading.Event()
        threading.Thread(target=stop.wait).start()
        print(alone, workers.start_method())
        stop.set()
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == (["fork", "spawn"] if sys.platform.startswith("linux") else ["spawn", "spawn"])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_child_forked_while_stop_signals_are_held_still_dies_of_sigterm():
    """While workers start, the parent only notes a SIGTERM; a forked worker inherits that
    handler until it sets its own, and must die of one meanwhile, not note it."""
    code = textwrap.dedent(
        """
        import os, signal, time
        from solver_cli.games.workers import _stop_signals_held
        with _stop_signals_held():
            child = os.fork()
            if child == 0:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(10)
                os._exit(0)
            _, status = os.waitpid(child, 0)
        print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["True"], result.stderr


# --- a second signal, and a stop whose reader went away ----------------------------------------

MIDGAME = str(Path(__file__).resolve().parents[2] / "boards" / "midgame.txt")


@needs_proc
def test_a_second_signal_does_not_lose_the_results(word_file, tmp_path):
    """`timeout -s INT` signals the process and then its group; a quick double Ctrl-C does
    the same. The second used to interrupt the first's stop (the sim's workers being ended)
    and lose the standings. One stop: the standings printed, status 130."""
    proc, pids = busy_run("selfplay", word_file, tmp_path)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGTERM)
    out, err = finish(proc)
    assert proc.returncode == 130, err
    assert json.loads(out)["stopped"] is True and "Traceback" not in err
    sim = start(
        "sim", MIDGAME, "--rack", "AEIRST?", "--jobs", "2", "--iterations", "100000", "--lexicon", word_file, "--json"
    )
    try:
        wait_until(lambda: len(workers_of(sim.pid)) >= 2, 60, "two workers")
        time.sleep(1)  # (iterating)
    except BaseException:
        sim.kill()
        raise
    for _ in range(3):
        sim.send_signal(signal.SIGINT)
    out, err = finish(sim)
    assert sim.returncode == 130, err
    data = json.loads(out)
    assert data["stopped"] == "interrupted" and len(data["standings"]) > 1 and "Traceback" not in err


@needs_proc
def test_a_stop_whose_reader_went_away_is_still_a_stop(word_file, tmp_path):
    """Ctrl-C on `scrab ... | cat` ends cat too: the partial results go nowhere, and the
    status is still 130 with its line (it was a quiet 0, as for `| head`)."""
    proc = start("sim", MIDGAME, "--rack", "AEIRST?", "--iterations", "100000", "--lexicon", word_file, "--json")
    try:
        time.sleep(2)
        assert proc.poll() is None
        assert proc.stdout is not None
        proc.stdout.close()  # the reader gone
    except BaseException:
        proc.kill()
        raise
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 130, err
    assert [line for line in err.decode().splitlines() if line.startswith("Stopped: ")] == [
        err.decode().strip().splitlines()[-1]
    ]  # (one line: not the command's and another for the broken pipe)


def waiting_bytes(proc: subprocess.Popen[bytes]) -> int:
    """How many bytes wait unread in ``proc``'s stdout pipe (64 KiB: it is full)."""
    import array
    import fcntl
    import termios

    assert proc.stdout is not None
    count = array.array("i", [0])
    fcntl.ioctl(proc.stdout.fileno(), termios.FIONREAD, count)
    return count[0]


@needs_proc
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals and pipes")
def test_a_stop_while_the_json_is_written_leaves_it_whole(full_lexicon):
    """SIGTERM while a 12 MB JSON document waits on a full pipe (its reader slow): the write
    used to stop there, 64 KiB out, half a document. The stop now waits for the write: the
    document whole, then the stop (status 130, its line)."""
    board = str(Path(__file__).resolve().parents[2] / "boards" / "empty.txt")
    proc = start("solve", board, "--rack", "AEIRST?", "--all", "--json")  # (the lexicon cached)
    assert proc.stdout is not None
    try:
        wait_until(lambda: waiting_bytes(proc) >= 65536, 60, "the pipe full")
        time.sleep(0.2)
    except BaseException:
        proc.kill()
        raise
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert len(json.loads(out)["moves"]) == 24_894
    assert proc.returncode == 130 and err.decode().strip().splitlines()[-1] == "Stopped: interrupted"


@needs_proc
@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_a_stop_held_by_a_reader_that_never_reads_is_forced_by_a_later_signal(full_lexicon):
    """The held stop waits for the write; a signal FORCE_AFTER_SECONDS after the first ends
    the process (the reader may never read): one line, status 130; one sooner does not."""
    from solver_cli.cli import FORCE_AFTER_SECONDS

    board = str(Path(__file__).resolve().parents[2] / "boards" / "empty.txt")
    proc = start("solve", board, "--rack", "AEIRST?", "--all", "--json")
    assert proc.stdout is not None and proc.stderr is not None
    try:
        wait_until(lambda: waiting_bytes(proc) >= 65536, 60, "the pipe full")  # (12 MB blocked on it, unread)
        time.sleep(0.2)
        first = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)  # (too soon: ignored)
        time.sleep(0.5)
        assert proc.poll() is None
        time.sleep(max(0.0, first + FORCE_AFTER_SECONDS + 0.3 - time.monotonic()))
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert proc.stderr.read().decode().strip().splitlines()[-1].startswith("Stopped: forced")

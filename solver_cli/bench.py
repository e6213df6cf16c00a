"""Measurements behind ``scrab bench``: build, load, memory, move generation, whole command.

Every timing is repeated and reported as median, min and max; move generation is timed
after a warm-up and covers generation with scoring only (no output formatting). The
positions are a fixed suite shipped in ``solver_cli/data/bench``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from solver_cli._data import data_folder
from solver_cli.engine import movegen
from solver_cli.engine.alphabet import BLANK_BIT, parse_rack
from solver_cli.engine.alphabet import rack_text as counts_text
from solver_cli.engine.board import Board
from solver_cli.engine.gaddag import Gaddag
from solver_cli.engine.history import Turn
from solver_cli.engine.leaves import LeaveTable
from solver_cli.engine.movegen import chosen_engine, count_moves, ranked_moves
from solver_cli.engine.rules import Rules, load_rules
from solver_cli.engine.unseen import unseen_tiles
from solver_cli.errors import InputError
from solver_cli.formats.boardfile import parse_board
from solver_cli.formats.cgp import Position, format_cgp
from solver_cli.games.selfplay import Player, play_game
from solver_cli.lexicon import load_lexicon
from solver_cli.lexicon.cache import CACHE_ENV

# (name, board file in data/bench, rules, rack)
POSITIONS: tuple[tuple[str, str, str, str], ...] = (
    ("empty", "empty.txt", "scrabble", "RETAINS"),
    ("empty", "empty.txt", "scrabble", "AEIRST?"),
    ("opening", "opening.txt", "scrabble", "QUIZ??E"),
    ("midgame", "midgame.txt", "scrabble", "RETAINS"),
    ("midgame", "midgame.txt", "scrabble", "AEIRST?"),
    ("midgame", "midgame.txt", "scrabble", "QUIZ??E"),
    ("peers-midgame", "peers-midgame.txt", "scrabble", "RETAINS"),
    ("peers-midgame", "peers-midgame.txt", "scrabble", "AEIRST?"),
    ("peers-midgame", "peers-midgame.txt", "scrabble", "QUIZ??E"),
    ("late", "late.txt", "scrabble", "EIRST??"),
    ("wwf-midgame", "wwf-midgame.txt", "wwf", "RETAINS"),
    ("wwf-midgame", "wwf-midgame.txt", "wwf", "AEIRSTL"),
)
# boards/midgame.txt: the position the native engine's targets (issue #13) were set on.
COMMAND_POSITION = ("midgame.txt", "RETAINS")

Report = Callable[[str], None]

# The position issue #22's speed target names: boards/midgame.txt, SOWPODS; 10 candidates.
SIM_POSITION = ("midgame.txt", "RETAINS", "sowpods", "scrabble")
SIM_CANDIDATES = 10
SIM_REPEATS = 3
SIM_SEED = 1


@dataclass
class Figure:
    median_ms: float
    min_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: list[float]) -> Figure:
        ms = [s * 1000 for s in seconds]
        return cls(round(statistics.median(ms), 2), round(min(ms), 2), round(max(ms), 2))


@dataclass
class BuildFigures:
    lexicon: str
    builder: str  # "native" (the C extension) or "python" (its pure-Python twin)
    words: int
    states: int
    arcs: int
    build: Figure
    cache_bytes: int


@dataclass
class PositionFigures:
    position: str
    rules: str
    rack: str
    blanks: int
    moves: int
    engines: dict[str, EngineFigures]  # by engine name ("native", "python")


@dataclass
class EngineFigures:
    every: Figure  # every legal move, generated and scored (in the engine's own form)
    best: Figure  # the best move only (best-move mode)


@dataclass
class EndgameFigures:
    """The exact endgame solver on the first ``positions`` of a shipped endgame set, one
    single-threaded search each, with a time limit: seconds to the proven value, or with
    ``plies`` to the end of that many plies (MAGPIE's and Macondo's fixed-depth measure)."""

    source: str  # the set's file in data/bench
    lexicon: str
    engine: str
    positions: int
    proven: int  # searches that proved their value
    plies: int | None  # the depth searched to, None: to the end of the game
    finished: int  # searches that ended (proven, or all their plies searched); the rest hit the time limit
    time_limit_s: float
    tt_mb: int
    median_s: float
    p95_s: float
    max_s: float
    median_nodes: int


@dataclass
class SimRate:
    """Two-ply iterations a second over ``repeats`` runs: median, min and max, of the whole
    ``simulate`` call (worker start-up included) and of the part after its first results came
    in (the pool's start-up and the first chunk left out)."""

    jobs: int
    median: float
    min: float
    max: float
    steady_median: float


@dataclass
class SimFigures:
    """``lookahead.sim.simulate`` on one position, whatever it runs (the Python loop around
    the move generator, or a rollout loop in C): ``candidates`` played out two plies, each
    ``iterations`` times a run (one iteration, as issue #22 counts it: one candidate played
    out two plies), nothing dropped, on one process and on two workers."""

    position: str
    rack: str
    lexicon: str
    engine: str
    leaves: str
    candidates: int
    iterations: int  # per candidate, in each run
    repeats: int
    one_job: SimRate
    two_jobs: SimRate | None  # None when the machine has one core
    ratio: float | None  # two jobs' median rate over one job's
    cpu_per_second: float  # one job's iterations per CPU second of this process (a loaded machine's fairer figure)


@dataclass
class BenchResult:
    lexicon: str
    python: str
    machine: str
    engines: list[str]  # the move generators measured, in the order they were timed
    build: BuildFigures | None
    load: Figure
    peak_memory_after_load_mb: float
    positions: list[PositionFigures]
    command: Figure | None
    command_peak_memory_mb: float | None
    command_args: list[str]
    endgames: EndgameFigures | None = None
    sim: SimFigures | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def bench_file(name: str) -> str:
    return (data_folder("bench") / name).read_text(encoding="utf-8")


def measure_build(lexicon: str | None, max_length: int, builds: int) -> BuildFigures:
    """Cold builds, each into a fresh temporary cache folder (the user's cache is untouched)."""
    times = []
    for _ in range(builds):
        with tempfile.TemporaryDirectory() as folder:
            old = os.environ.get(CACHE_ENV)
            os.environ[CACHE_ENV] = folder
            try:
                start = time.perf_counter()
                lex = load_lexicon(lexicon, max_length)
                times.append(time.perf_counter() - start)
                size = lex.cache_path.stat().st_size if lex.cache_path else 0
            finally:
                if old is None:
                    del os.environ[CACHE_ENV]
                else:
                    os.environ[CACHE_ENV] = old
    return BuildFigures(
        lex.name,
        lex.builder or "?",
        lex.word_count,
        lex.gaddag.state_count,
        lex.gaddag.arc_count,
        Figure.of(times),
        size,
    )


def measure_load(lexicon: str | None, max_length: int, repeat: int) -> tuple[Figure, float]:
    load_lexicon(lexicon, max_length)  # make sure the cache exists
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        load_lexicon(lexicon, max_length)
        times.append(time.perf_counter() - start)
    code = f"from solver_cli.lexicon import load_lexicon; load_lexicon({lexicon!r}, {max_length}); " + _PRINT_PEAK
    out = subprocess.run([*_PYTHON, "-c", code], capture_output=True, text=True, check=True, env=_child_env())
    return Figure.of(times), float(out.stdout.strip().splitlines()[-1])


# The child processes run this very package: -P keeps the working folder off sys.path (run
# from a source checkout, it would import that copy, which may lack the compiled engine),
# and PYTHONPATH names the folder this package was imported from.
_PYTHON = [sys.executable, "-P"]


def _child_env() -> dict[str, str]:
    here = str(Path(__file__).resolve().parents[1])
    inherited = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": here if not inherited else here + os.pathsep + inherited}


# Peak resident memory of the current process in MB. VmHWM belongs to the address space
# that exec created, unlike ru_maxrss, which Linux carries over from the parent.
_PRINT_PEAK = (
    "print(round(int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1]) / 1024, 1))"
)


def measure_positions(lexicon: str | None, repeat: int, engines: list[str], report: Report) -> list[PositionFigures]:
    """Each position's generation on each engine; with two engines the runs alternate, so
    the machine's drift falls on both alike and their ratio is fair."""
    found = []
    for name, file, rules_name, rack_text in POSITIONS:
        rules = load_rules(rules_name)
        board = parse_board(bench_file(file), rules, file)
        rack = parse_rack(rack_text, rules.rack_size)
        gaddag = load_lexicon(lexicon, max(rules.rows, rules.cols)).gaddag
        report(f"{name} {rack_text}")
        moves = count_moves(board, rack, gaddag, rules, engines[0])  # warm-up
        every: dict[str, list[float]] = {engine: [] for engine in engines}
        best: dict[str, list[float]] = {engine: [] for engine in engines}
        for _ in range(repeat):
            for engine in engines:
                start = time.perf_counter()
                count_moves(board, rack, gaddag, rules, engine)
                every[engine].append(time.perf_counter() - start)
                start = time.perf_counter()
                ranked_moves(board, rack, gaddag, rules, keep=1, engine=engine)
                best[engine].append(time.perf_counter() - start)
        figures = {engine: EngineFigures(Figure.of(every[engine]), Figure.of(best[engine])) for engine in engines}
        found.append(PositionFigures(name, rules_name, rack_text, rack[0], moves, figures))
    return found


def speedup(result: BenchResult) -> float | None:
    """The geometric mean over the suite of python time / native time (every move), when
    both were measured in the run."""
    if not {"native", "python"} <= set(result.engines):
        return None
    ratios = [p.engines["python"].every.median_ms / p.engines["native"].every.median_ms for p in result.positions]
    return round(statistics.geometric_mean(ratios), 1)


def measure_command(lexicon: str | None, runs: int) -> tuple[Figure, float, list[str]]:
    """``scrab solve --top 10 --json`` as a subprocess, warm cache; peak RSS of the runs."""
    file, rack = COMMAND_POSITION
    with tempfile.TemporaryDirectory() as folder:
        board = Path(folder) / file
        board.write_text(bench_file(file))
        args = [*_PYTHON, "-m", "solver_cli", "solve", str(board), "--rack", rack, "--top", "10", "--json"]
        if lexicon:
            args[6:6] = ["--lexicon", lexicon]
        env = _child_env()
        subprocess.run(args, capture_output=True, check=True, env=env)  # warm the cache
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
            times.append(time.perf_counter() - start)
        # One more run of the same code path, reporting its own peak memory at exit.
        wrapper = (
            "import runpy, sys; sys.argv = ['scrab', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('solver_cli', run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "import sys; print(round(int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))"
            ".split()[1]) / 1024, 1), file=sys.stderr)\n"
        )
        measured = subprocess.run(
            [*_PYTHON, "-c", wrapper, *args[4:]], capture_output=True, text=True, check=True, env=env
        )
        peak = float(measured.stderr.strip().splitlines()[-1])
    shown = ["scrab", *args[4:]]
    shown[2] = f"<bench>/{file}"
    return Figure.of(times), round(peak, 1), shown


def run_bench(
    lexicon: str | None = None,
    repeat: int = 5,
    runs: int = 5,
    builds: int = 1,
    skip_build: bool = False,
    skip_command: bool = False,
    report: Report | None = None,
    engines: list[str] | None = None,
    endgames: int = 0,
    endgame_time_limit: float = 30.0,
    endgame_plies: int | None = None,
    tt_mb: int | None = None,
    sim_iterations: int = 0,
    sim_repeats: int = SIM_REPEATS,
) -> BenchResult:
    """``engines``: the move generators to time (default: the one in use); ``endgames``:
    how many of the shipped endgames to solve (on the first engine), 0 for none, each to the
    end of the game or ``endgame_plies`` deep;
    ``sim_iterations``: the iterations of each candidate in each simulation run, 0 for no
    simulation figures, ``sim_repeats`` runs of it on each job count."""
    say = report or (lambda message: None)
    engines = engines or [chosen_engine()]
    if "native" in engines and not movegen.NATIVE_BUILT:
        raise InputError("the native move generator is not built (it needs a C compiler at install time)")
    build = None
    load: Figure | None = None
    memory = 0.0
    positions: list[PositionFigures] = []
    command = command_memory = None
    shown: list[str] = []
    endgame_figures = None
    sim_figures = None

    def result() -> BenchResult:
        assert load is not None
        name = build.lexicon if build else load_lexicon(lexicon, 15).name
        machine = f"{os.cpu_count()} cores, {sys.platform}"
        return BenchResult(
            name,
            sys.version.split()[0],
            machine,
            engines,
            build,
            load,
            memory,
            positions,
            command,
            command_memory,
            shown,
            endgame_figures,
            sim_figures,
        )

    try:
        if not skip_build:
            say("cold GADDAG build")
            build = measure_build(lexicon, 15, builds)
        say("cache load")
        load, memory = measure_load(lexicon, 15, repeat)
        positions = measure_positions(lexicon, repeat, engines, say)
        if not skip_command:
            say("whole command")
            command, command_memory, shown = measure_command(lexicon, runs)
        if endgames:
            from solver_cli.lookahead.endgame import DEFAULT_TT_MB

            endgame_figures = measure_endgames(
                endgames, endgame_time_limit, tt_mb or DEFAULT_TT_MB, engines[0], say, plies=endgame_plies
            )
        sim_figures = measure_sim(sim_iterations, say, sim_repeats) if sim_iterations else None
    except KeyboardInterrupt:
        # The sections measured so far (from the move generation on, which every run has).
        raise BenchStopped(result() if positions else None) from None
    return result()


class BenchStopped(Exception):
    """Ctrl-C (or SIGTERM) during ``run_bench``: ``result`` holds the sections measured
    before it (the later ones None or empty); None when the move generation was not done."""

    def __init__(self, result: BenchResult | None):
        super().__init__("bench stopped")
        self.result = result


ENDGAME_SET = ("endgames-sowpods.cgp", "sowpods", "scrabble")


def measure_endgames(
    count: int, time_limit: float, tt_mb: int, engine: str, report: Report, plies: int | None = None
) -> EndgameFigures:
    """Solve the first ``count`` endgames of the shipped set (made with sowpods), each with
    ``time_limit`` seconds: the figures issue #21's targets speak of (median, 95th
    percentile, how many proven); with ``plies``, each searched that many plies deep."""
    from solver_cli.formats.cgp import parse_cgp
    from solver_cli.lookahead.endgame import PLIES, solve_endgame

    file, lexicon, rules_name = ENDGAME_SET
    rules = load_rules(rules_name)
    gaddag = load_lexicon(lexicon, max(rules.rows, rules.cols)).gaddag
    lines = [line for line in bench_file(file).splitlines() if line.strip() and not line.startswith("#")]
    seconds: list[float] = []
    nodes: list[int] = []
    proven = finished = 0
    for number, line in enumerate(lines[:count], 1):
        position = parse_cgp(line, f"{file}, position {number}")
        board = parse_board("\n".join(position.rows) + "\n", rules, file)
        mover = parse_rack(position.racks[0], rules.rack_size)
        opponent = parse_rack(position.racks[1], rules.rack_size)
        report(f"endgame {number} of {min(count, len(lines))}")
        start = time.perf_counter()
        result = solve_endgame(
            board,
            mover,
            opponent,
            gaddag,
            rules,
            scoreless=position.zero_turns,
            plies=plies,
            time_limit=time_limit,
            tt_mb=tt_mb,
            engine=engine,
        )
        seconds.append(time.perf_counter() - start)
        nodes.append(result.nodes)
        proven += result.proven
        finished += result.proven or result.stopped == PLIES
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, max(0, -(-95 * len(ordered) // 100) - 1))] if ordered else 0.0
    return EndgameFigures(
        file,
        lexicon,
        engine,
        len(seconds),
        proven,
        plies,
        finished,
        time_limit,
        tt_mb,
        round(statistics.median(seconds), 3) if seconds else 0.0,
        round(p95, 3),
        round(max(seconds), 3) if seconds else 0.0,
        int(statistics.median(nodes)) if nodes else 0,
    )


def measure_sim(iterations: int, report: Report, repeats: int = SIM_REPEATS) -> SimFigures:
    """Simulate the midgame ``repeats`` times on one process, then on two workers (runs
    alternating, so that the machine's drift falls on both alike): two-ply iterations a
    second. The same seed each run, so each run does the same work."""
    from solver_cli.formats.leavefile import table_for
    from solver_cli.games import workers
    from solver_cli.lookahead.sim import SimResult, simulate

    file, rack_text, lexicon, rules_name = SIM_POSITION
    rules = load_rules(rules_name)
    board = parse_board(bench_file(file), rules, file)
    rack = parse_rack(rack_text, rules.rack_size)
    lex = load_lexicon(lexicon, max(rules.rows, rules.cols))
    leaves, _note = table_for(rules_name, lexicon)
    job_counts = [1, 2] if workers.max_jobs() >= 2 else [1]
    rates: dict[int, list[float]] = {jobs: [] for jobs in job_counts}
    steady: dict[int, list[float]] = {jobs: [] for jobs in job_counts}
    cpu: list[float] = []
    first: list[tuple[float, int]] = []  # when the run's first results came in, and how many

    def note_first(result: SimResult) -> None:
        if not first:
            first.append((time.perf_counter(), result.iterations))

    for run in range(repeats):
        for jobs in job_counts:
            report(f"simulation, {jobs} job{'s' if jobs > 1 else ''}, run {run + 1} of {repeats}")
            first.clear()
            started, cpu_started = time.perf_counter(), time.process_time()
            result = simulate(
                board,
                rack,
                lex.gaddag,
                rules,
                leaves,
                candidates=SIM_CANDIDATES,
                plies=2,
                iterations=iterations,
                stop=None,
                seed=SIM_SEED,
                jobs=jobs,
                workers=workers,
                progress=note_first,
            )
            ended = time.perf_counter()
            played = result.iterations * len(result.standings)
            rates[jobs].append(played / (ended - started))
            if jobs == 1:
                cpu.append(played / max(time.process_time() - cpu_started, 1e-9))
            at, done = first[0] if first else (started, 0)
            later = (result.iterations - done) * len(result.standings)
            steady[jobs].append(later / (ended - at) if later and ended > at else rates[jobs][-1])

    def rate(jobs: int) -> SimRate:
        runs = rates[jobs]
        return SimRate(
            jobs,
            round(statistics.median(runs), 1),
            round(min(runs), 1),
            round(max(runs), 1),
            round(statistics.median(steady[jobs]), 1),
        )

    one = rate(1)
    two = rate(2) if 2 in rates else None
    return SimFigures(
        position=file,
        rack=rack_text,
        lexicon=lex.name,
        engine=chosen_engine(),
        leaves=leaves.name,
        candidates=SIM_CANDIDATES,
        iterations=iterations,
        repeats=repeats,
        one_job=one,
        two_jobs=two,
        ratio=round(two.median / one.median, 2) if two is not None else None,
        cpu_per_second=round(statistics.median(cpu), 1),
    )


def dumps(result: BenchResult) -> str:
    return json.dumps(result.to_json())


# --- endgame positions ----------------------------------------------------------------------
# The shipped set (data/bench/endgames-*.cgp) was made with ``endgame_positions`` and is
# reproducible from its seed (docs/performance.md says how).
def endgame_positions(gaddag: Gaddag, rules: Rules, leaves: LeaveTable, count: int, seed: int) -> list[str]:
    """``count`` endgame positions as CGP lines, from equity-vs-equity self-play games seeded
    with ``seed`` (game i is the run's game i): in each game, the first turn taken with the
    bag empty, when the game is not yet over. Games that end before that are skipped."""
    player = Player("equity", leaves)
    found: list[str] = []
    index = 0
    while len(found) < count:
        result = play_game(gaddag, rules, seed, index, (player, player))
        index += 1
        board = Board.empty(rules)
        in_bag = rules.tile_total - 2 * rules.rack_size
        scores = [0, 0]
        for turn in result.turns:
            if in_bag == 0:
                mover = _counts(turn.rack)
                opponent = list(unseen_tiles(board, mover, rules).counts)
                racks = [turn.rack, counts_text(opponent)]
                if turn.player == 1:
                    scores = scores[::-1]
                rows = [
                    "".join(_square(board.squares[r * rules.cols + c]) for c in range(rules.cols))
                    for r in range(rules.rows)
                ]
                zero = _zero_turns(result.turns[: result.turns.index(turn)])
                found.append(format_cgp(Position(rows, racks, scores, zero, {"ld": rules.name})))
                break
            for row, col, code in turn.placed:
                board.squares[row * rules.cols + col] = code
            scores[turn.player] = turn.total
            in_bag -= len(turn.drawn) - len(turn.exchanged)
    return found


def _zero_turns(turns: list[Turn]) -> int:
    n = 0
    for turn in reversed(turns):
        if turn.score != 0:
            break
        n += 1
    return n


def _counts(text: str) -> list[int]:
    counts = [0] * 27
    for ch in text:
        counts[0 if ch == "?" else ord(ch) - 64] += 1
    return counts


def _square(code: int) -> str:
    if not code:
        return "."
    letter = chr(64 + (code & ~BLANK_BIT))
    return letter.lower() if code & BLANK_BIT else letter

"""``scrab sim``: rank the best candidates by simulating the game forward (the running and
the rendering are in ``_sim``, shared with ``scrab solve --sim``)."""

from __future__ import annotations

import click

from solver_cli.cli._common import (
    BadInput,
    jobs_option,
    json_option,
    leaves_option,
    refuse_empty_rack,
    to_click_error,
)
from solver_cli.cli._game import game_lexicon, position_options, read_game
from solver_cli.cli._sim import STOP_CHOICES, run_sim
from solver_cli.errors import ScrabError
from solver_cli.lookahead.sim import DEFAULT_CANDIDATES, DEFAULT_PLIES, MAX_CANDIDATES, MAX_ITERATIONS, MAX_PLIES


@click.command()
@position_options("Rack letters, ? for a blank, e.g. 'AEIRST?' (quoted for the shell).")
@leaves_option
@click.option(
    "--candidates",
    "-k",
    type=click.IntRange(1, MAX_CANDIDATES),
    default=DEFAULT_CANDIDATES,
    show_default=True,
    help="Simulate the K best moves by equity.",
)
@click.option(
    "--plies",
    type=click.IntRange(1, MAX_PLIES),
    default=DEFAULT_PLIES,
    show_default=True,
    help="Replies played after each candidate (the opponent's, then yours, ...).",
)
@click.option(
    "--iterations",
    type=click.IntRange(1, MAX_ITERATIONS),
    metavar="N",
    help="At most N iterations (default: 2,000 + 625 a ply, Macondo's cap, unless --time-limit is given).",
)
@click.option(
    "--time-limit",
    type=click.FloatRange(min=0, min_open=True, max=86_400),  # (a day, as endgame's and peg's: not inf)
    metavar="S",
    help="Stop after S seconds (the standings then depend on the machine's speed).",
)
@click.option(
    "--stop",
    type=click.Choice(STOP_CHOICES),
    default="99",
    show_default=True,
    help="Drop the candidates behind at this confidence (%) and stop when one is left; none: play the whole budget.",
)
@click.option(
    "--opponent-rack",
    metavar="RACK",
    help="The opponent's rack, if known (completed at random from the unseen tiles when short).",
)
@click.option(
    "--rank",
    "rank_by",
    type=click.Choice(["win", "spread"]),
    help="Rank and drop candidates by win % or by mean points (default: win when a win table is there).",
)
@click.option(
    "--infer/--no-infer",
    default=None,
    help="Draw the opponent's racks from what its last play says (default: when a game record's --turn gives it); "
    "tiles its phony just taken back showed are its rack either way.",
)
@jobs_option("one per iteration")
@click.option("--seed", type=int, default=None, help="Seed for the draws (default: a random seed, reported).")
@json_option
@click.pass_context
def sim(
    ctx: click.Context,
    board: str,
    rack: str | None,
    turn: int | None,
    rules: str,
    lexicon: str | None,
    leaves_path: str | None,
    candidates: int,
    plies: int,
    iterations: int | None,
    time_limit: float | None,
    stop: str,
    opponent_rack: str | None,
    rank_by: str | None,
    infer: bool | None,
    jobs: int,
    seed: int | None,
    as_json: bool,
) -> None:
    """Rank the best moves for the rack (--rack) on POSITION by playing the game forward.

    Each of the K best moves by equity is played, the opponent's rack drawn from the unseen
    tiles (or given, or inferred from its last play, or holding the tiles its phony just
    taken back showed), then --plies replies where each side plays its best move by equity;
    the outcome is the points gained minus the opponent's, plus the value of each side's
    last leave (or the exact result when the game ends). Many iterations, every candidate
    seeing the same racks and draws in each, give each candidate its mean and standard
    error; candidates statistically behind are dropped (--stop). The same --seed gives the
    same standings whatever --jobs. docs/sim.md explains the method.

    POSITION is read as scrab solve reads its BOARD (a board file, -, a CGP position, or a
    GCG game record with --turn N).

    \b
    Examples:
      scrab sim boards/midgame.txt --rack RETAINS --candidates 3 --iterations 20 --seed 1
      scrab sim boards/midgame.txt --rack 'AEIRST?' --time-limit 1 --jobs 2
      scrab sim boards/example.gcg --turn 10 --candidates 3 --iterations 10 --json
    """
    from solver_cli.cli._common import check_rank, choose_ranking

    refuse_empty_rack(rack)
    check_rank(ctx, "equity", leaves_path)
    if opponent_rack is not None and not opponent_rack.strip():
        raise BadInput("--opponent-rack is empty: give its letters, e.g. --opponent-rack 'EIRST?'")
    if opponent_rack is not None and infer:
        raise click.UsageError("--infer cannot be used with --opponent-rack: the rack is given", ctx)
    try:
        position, rule_set, counts = read_game(ctx, board, rules, turn, rack)
        chosen_lexicon, lex = game_lexicon(lexicon, position, rule_set, as_json)
        ranking = choose_ranking("equity", leaves_path, rule_set, chosen_lexicon)
    except ScrabError as exc:
        raise to_click_error(exc) from None
    run_sim(
        position,
        counts,
        rule_set,
        lex,
        ranking,
        candidates=candidates,
        plies=plies,
        iterations=iterations,
        time_limit=time_limit,
        stop=stop,
        opponent_rack=opponent_rack,
        jobs=jobs,
        seed=seed,
        as_json=as_json,
        lexicon_choice=chosen_lexicon,
        rank=rank_by,
        infer=infer,
    )

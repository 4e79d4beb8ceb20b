"""gops imperfect: imperfect-information Goofspiel (OpenSpiel's goofspiel(imp_info=True)),
exact.imperfect.  ``gops imperfect nashconv POLICY``: the NashConv of a policy file or of
a built-in policy, in OpenSpiel's units.  ``gops imperfect solve N``: an exact equilibrium
by the sequence-form LP, and its value; with ``--method lp`` or ``cfr`` an
epsilon-equilibrium whose epsilon is proven (:mod:`exact.imperfect.certified`)."""

from __future__ import annotations

import json
from fractions import Fraction

import click

from exact.atomic import atomic_file, output_kind
from exact.cli.common import INTEGER, imperfect_game_options, one_line_errors
from exact.cli.progress import PROGRESS_AFTER_SECONDS, CountProgress
from exact.errors import GopsInputError
from exact.imperfect.certified import Method, round_up, solve_certified
from exact.imperfect.cfr import solve_cfr
from exact.imperfect.checkpoint import MAX_ITERATIONS
from exact.imperfect.double_oracle import (
    TARGET,
    RestrictedSolver,
    best_of_run,
    default_start,
    solve_double_oracle,
)
from exact.imperfect.exact_lp import solve as solve_equilibrium
from exact.imperfect.game import ImperfectGame
from exact.imperfect.nashconv import UNITS, nash_conv
from exact.imperfect.policy import uniform_policy
from exact.imperfect.policy_file import load_policy_file
from exact.imperfect.shipped import load_shipped, shipped_entry

#: The built-in policies POLICY may name.
BUILT_IN = {"uniform": uniform_policy}

#: The largest games the best responses take on, by prize order: what the next size
#: would need (benchmarks/RESULTS.md, "Imperfect-information NashConv").
#: Within them the tables must also fit in half of the machine's memory
#: (exact.imperfect.tables.check_memory): 8 cards in a fixed order need 4.0 GiB.
NASHCONV_MAX_N = {"descending": 8, "ascending": 8, "random": 6}
NASHCONV_BEYOND = {
    "descending": "N = 9 would need 120 GiB of best-response tables",
    "ascending": "N = 9 would need 120 GiB of best-response tables",
    "random": "N = 7 would need 711 GiB of best-response tables",
}


class _Progress(CountProgress):
    """The best responses' first-round bids done, of their total
    (:class:`exact.cli.progress.CountProgress`)."""

    def __init__(self, enabled: bool, after: float = PROGRESS_AFTER_SECONDS):
        super().__init__("best responses", "first-round bids", enabled, after)


def _check_size(game: ImperfectGame) -> None:
    high = NASHCONV_MAX_N[game.order.name]
    if game.n > high:
        raise GopsInputError(
            f"N must be at most {high} for gops imperfect nashconv --order "
            f"{game.order.name} ({NASHCONV_BEYOND[game.order.name]}), got {game.n}"
        )


@click.group()
def imperfect() -> None:
    """Imperfect-information Goofspiel, as OpenSpiel's goofspiel(imp_info=True)."""


@imperfect.command()
@click.argument("policy_source", metavar="POLICY")
@click.option("--n", "n", type=INTEGER, required=True, help="Cards per player.")
@imperfect_game_options
@click.option(
    "--rational", is_flag=True, help="Exact rationals instead of floats with an error bound."
)
@click.option(
    "--fill-uniform", is_flag=True, help="Bid uniformly at the states the policy file omits."
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@click.option("--quiet", is_flag=True, help="No progress lines.")
@one_line_errors
def nashconv(
    policy_source: str,
    n: int,
    order: str,
    objective,
    rational: bool,
    fill_uniform: bool,
    as_json: bool,
    quiet: bool,
) -> None:
    """NashConv of POLICY: a policy file (JSON {information-state string: {action id:
    probability}}, OpenSpiel's turn-based strings, action id = card - 1) or `uniform`.

    NashConv is the sum of what each player gains by best-responding (Lanctot et al.
    2017), in OpenSpiel's units; 0 exactly at a Nash equilibrium.
    """
    game = ImperfectGame.parse(n, order, objective)
    _check_size(game)
    if policy_source in BUILT_IN:
        policy = BUILT_IN[policy_source](game)
    else:
        policy = load_policy_file(game, policy_source, fill_uniform)
    progress = _Progress(not quiet)
    try:
        result = nash_conv(game, policy, "rational" if rational else "float", progress=progress)
    finally:
        progress.close()
    if as_json:
        click.echo(json.dumps(result.to_json()))
        return
    value = str(result.value) if rational else f"{result.value!r}"
    bound = "exact" if rational else f"+- {result.error_bound:.1e}"
    click.echo(
        f"NashConv of {result.policy} in {n}-card imperfect-information goofspiel "
        f"({order} order, {game.objective.name}): {value} ({bound})"
    )
    p0, p1 = (str(v) if rational else repr(float(v)) for v in result.best_responses)
    click.echo(f"best responses: P0 {p0}, P1 {p1}")
    click.echo(f"units: {result.units}")


#: The largest games `gops imperfect solve` takes on, by prize order, and what the next
#: size would need (benchmarks/RESULTS.md, "Imperfect-information equilibria by the
#: sequence-form LP").
SOLVE_MAX_N = {"descending": 6, "ascending": 6, "random": 5}
SOLVE_BEYOND = {
    "descending": "N = 7 has 716,794 sequences per player; HiGHS did not solve its LP here "
    "in 90 minutes",
    "ascending": "N = 7 has 716,794 sequences per player; HiGHS did not solve its LP here "
    "in 90 minutes",
    "random": "N = 6 has 23,853,637 sequences per player and about 350 million payoff nonzeros",
}


#: The largest games `gops imperfect solve --method lp` takes on (a float LP, then a
#: certified NashConv), and what the next size would need.
FLOAT_LP_MAX_N = {"descending": 6, "ascending": 6, "random": 5}
_FLOAT_LP_SEVEN = (
    "N = 7 has 716,794 sequences and 23.7 million payoff nonzeros per player: its LP is "
    "built in 4 s, but HiGHS's interior point was still constructing its starting basis "
    "after 90 minutes here (descending): use --method cfr"
)
FLOAT_LP_BEYOND = {
    "descending": _FLOAT_LP_SEVEN,
    "ascending": _FLOAT_LP_SEVEN,
    "random": "N = 6 has 23,853,637 sequences per player and about 350 million payoff "
    "nonzeros (N = 5: 244,786 and 1.6 million, 12 minutes): use --method cfr",
}
#: The largest games `gops imperfect solve --method oracle` takes on (its best responses
#: need the whole game's tables: 4.0 GiB at 8 cards fixed, 4.2 at 6 random), and what the
#: next size would need.
ORACLE_MAX_N = {"descending": 8, "ascending": 8, "random": 6}
_ORACLE_NINE = "N = 9's best-response tables would need about 120 GiB"
ORACLE_BEYOND = {
    "descending": _ORACLE_NINE,
    "ascending": _ORACLE_NINE,
    "random": "N = 7's best-response tables would need about 711 GiB",
}
#: How each --method finds its equilibrium.
METHODS = ("exact", "lp", "cfr", "oracle")
#: CFR+ iterations when --iterations is not given.
CFR_ITERATIONS = 1000


def _refuse_size(game: ImperfectGame, method: str) -> None:
    order = game.order.name
    high, beyond = {
        "exact": (SOLVE_MAX_N[order], SOLVE_BEYOND[order]),
        "lp": (FLOAT_LP_MAX_N[order], FLOAT_LP_BEYOND[order]),
        "cfr": (NASHCONV_MAX_N[order], NASHCONV_BEYOND[order]),
        "oracle": (ORACLE_MAX_N[order], ORACLE_BEYOND[order]),
    }[method]
    if game.n > high:
        hint = "; --method oracle or cfr gives a certified epsilon-equilibrium" * (
            method == "exact"
        )
        raise GopsInputError(
            f"N must be at most {high} for gops imperfect solve --method {method} --order "
            f"{order} ({beyond}{hint}), got {game.n}"
        )


@imperfect.command()
@click.argument("n", type=INTEGER)
@imperfect_game_options
@click.option(
    "--method",
    type=click.Choice(METHODS),
    help="exact: the sequence-form LP made exact; lp: the float LP, its NashConv proven "
    "(an epsilon-equilibrium); oracle: a double oracle over restricted LPs, its NashConv "
    "proven (8 cards); cfr: CFR+, its average policy's NashConv proven "
    "[default: the shipped equilibrium where there is one, else exact].",
)
@click.option(
    "--recompute",
    is_flag=True,
    help="Solve again (--method, default exact) instead of reading the shipped equilibrium.",
)
@click.option(
    "--certify",
    "certification",
    type=click.Choice(("rational", "bound")),
    help="How --method lp/cfr prove their epsilon: the exact rational NashConv, or the "
    "float NashConv plus its proven error bound [default: rational up to 6 cards in a "
    "fixed order, 4 random].",
)
@click.option(
    "--iterations",
    type=INTEGER,
    help="--method cfr: CFR+ iterations [default: 1000]; --method oracle: the predictive "
    "CFR+ iterations that guess the support to start from [default: 300 up to 7 cards "
    "fixed and 5 random, else 0: none].",
)
@click.option(
    "--restricted-solver",
    type=click.Choice(("lp", "pcfr+")),
    help="--method oracle: solve each restricted game by its LP (HiGHS; a vertex) or, "
    "for loose targets on large games, approximately by predictive CFR+ to a quarter of "
    "--target [default: lp].",
)
@click.option(
    "--lift",
    is_flag=True,
    help="--method oracle: guess the support to start from by lifting the "
    "shipped equilibrium of one card fewer (instead of CFR+).",
)
@click.option(
    "--symmetric-sets",
    is_flag=True,
    help="--method oracle: start each round from the union of both players' allowed bids, "
    "each seen as the other's (the players are interchangeable): fewer rounds, larger "
    "restricted games.",
)
@click.option(
    "--target",
    type=float,
    help=f"--method oracle: stop once the proven NashConv is at most this [default: {TARGET:g}].",
)
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False),
    help="--method cfr or oracle: resume from this .npz file if it exists (checked whole "
    "first); save to it every 5 minutes of work (oracle: every round) and at the end.",
)
@click.option(
    "--policy-out",
    type=click.Path(dir_okay=False),
    help="Write the equilibrium as a policy file ({state: {action id: probability}}); "
    "--method oracle also writes it after each round whose proven bound is the best so far, "
    "at most every 10 minutes (beyond 7 cards, only the decisions each player reaches: read "
    "it with --fill-uniform); a run resumed from --checkpoint replaces it only with a better "
    "one, and answers with it, proven again, where it finds none.",
)
@click.option(
    "--policy-format",
    type=click.Choice(("exact", "float")),
    help="--policy-out's probabilities: exact \"p/q\" strings, or floats (the file OpenSpiel's "
    "TabularPolicy takes as it is; an exact equilibrium's fractions rounded to the nearest "
    "float) [default: exact for an exact equilibrium, float for an epsilon-equilibrium, "
    "whose floats are exact].",
)
@click.option("--json", "as_json", is_flag=True, help='Print JSON (exact numbers as "p/q").')
@click.option("--quiet", is_flag=True, help="No progress lines.")
@one_line_errors
def solve(
    n: int,
    order: str,
    objective,
    method: str | None,
    recompute: bool,
    certification: str | None,
    iterations: int | None,
    restricted_solver: str | None,
    lift: bool,
    symmetric_sets: bool,
    target: float | None,
    checkpoint: str | None,
    policy_out: str | None,
    policy_format: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """A Nash equilibrium of N-card imperfect-information goofspiel: exact, or an
    epsilon-equilibrium with a proven epsilon.

    --method exact: the sequence-form LP (Koller, Megiddo & von Stengel 1996) is solved
    by HiGHS, its vertex is then solved again exactly (python-flint up to 5 cards fixed
    and 4 random; beyond, the sparse basis by numeric lifting and rational
    reconstruction) and verified exactly: both plans feasible and both players'
    best-response values equal (zero duality gap).  --method lp: the same LP in float64
    (HiGHS's basis re-solved with iterative refinement); --method oracle: the LP of a
    restricted game grown by the whole game's best responses (a double oracle; 8 cards);
    --method cfr: CFR+ (Tammelin 2014); each float policy's NashConv is then bounded with
    proof (exact rationals, or float64 with its proven error bound).

    Without --method or --recompute, a game whose equilibrium ships with gops
    (exact/imperfect/equilibria/) is read from there: its file checked against its
    SHA-256 and its NashConv proven again in this run.
    """
    game = ImperfectGame.parse(n, order, objective)
    for path in (policy_out, checkpoint):
        if path is not None:
            output_kind(path)  # a folder or a FIFO refused before the solve, not after
    oracle = method == "oracle"
    if target is not None and (not oracle or not 0 < target < float("inf")):
        raise GopsInputError(f"--target is a positive number, for --method oracle (got {target})")
    if lift and (not oracle or iterations):
        raise GopsInputError("--lift is for --method oracle, without --iterations")
    if restricted_solver is not None and not oracle:
        raise GopsInputError("--restricted-solver is for --method oracle")
    if symmetric_sets and not oracle:
        raise GopsInputError("--symmetric-sets is for --method oracle")
    if method is None and not recompute and shipped_entry(game) is not None:
        _check_method_options("shipped", certification, iterations, checkpoint)
        _read_shipped(game, policy_out, policy_format, as_json)
        return
    method = method or "exact"
    _refuse_size(game, method)
    _check_method_options(method, certification, iterations, checkpoint)
    if method == "exact":
        _solve_exact(game, policy_out, policy_format, as_json)
        return
    tell = None if quiet else (lambda line: click.echo(f"gops: {line}", err=True))
    if method == "lp":
        found = solve_certified(game, certification, tell)
    elif method == "oracle":
        start = default_start(game) if iterations is None else iterations
        found = solve_double_oracle(
            game, 0 if lift else start, checkpoint, certification, tell,
            TARGET if target is None else target, lift, RestrictedSolver(restricted_solver or "lp"),
            _saver(policy_out, policy_format, tell), symmetric_sets,
        )  # fmt: skip
    else:
        found = solve_cfr(game, iterations or CFR_ITERATIONS, checkpoint, certification, tell)
    from_file = False
    if method == "oracle" and policy_out != "-":
        found, from_file = best_of_run(found, checkpoint, policy_out, certification, tell)
    if from_file and tell is not None:
        tell(f"no round of this process beat the run's best: {policy_out} kept, proven again")
    if policy_out is not None and not from_file:
        _write_policy(policy_out, found.policy_json(), policy_format or "float")
    err = _policy_on_stdout(policy_out)
    if as_json:
        click.echo(json.dumps({**found.to_json(), "policy_out": policy_out}), err=err)
        return
    proof = found.certificate
    how = (
        "exact rational NashConv"
        if proof.method is Method.RATIONAL
        else f"float NashConv {proof.nash_conv:.3e} + proven error bound {proof.error_bound:.1e}"
    )
    click.echo(
        f"{n}-card imperfect-information goofspiel ({order} order, {game.objective.name}): "
        f"an epsilon-equilibrium by {method}, NashConv <= {round_up(proof.epsilon):.3e} "
        f"(proven: {how})",
        err=err,
    )
    click.echo(f"units: {UNITS[game.objective]}; {sum(found.seconds.values()):.2f} s", err=err)
    if policy_out is not None:
        click.echo(f"policy written to {policy_out}", err=err)


def _check_method_options(method, certification, iterations, checkpoint) -> None:
    """A one-line error for an option the method does not take, or no iterations."""
    if method in ("exact", "shipped") and certification is not None:
        raise GopsInputError("--certify is for --method lp or cfr (exact needs no bound)")
    if method not in ("cfr", "oracle") and (iterations is not None or checkpoint is not None):
        raise GopsInputError("--iterations and --checkpoint are for --method cfr or oracle")
    low = 0 if method == "oracle" else 1
    if iterations is not None and not low <= iterations <= MAX_ITERATIONS:
        raise GopsInputError(
            f"--iterations must be between {low} and {MAX_ITERATIONS:,}, got {iterations}"
        )


def _solve_exact(
    game: ImperfectGame, policy_out: str | None, policy_format: str | None, as_json: bool
) -> None:
    """--method exact: the exact equilibrium, its value and sizes."""
    equilibrium = solve_equilibrium(game)
    if policy_out is not None:
        _write_policy(policy_out, equilibrium.policy_json(), policy_format or "exact")
    err = _policy_on_stdout(policy_out)
    if as_json:
        click.echo(json.dumps({**equilibrium.to_json(), "policy_out": policy_out}), err=err)
        return
    n, order = game.n, game.order.name
    sizes, seconds = equilibrium.sizes, equilibrium.seconds
    click.echo(
        f"value of {n}-card imperfect-information goofspiel ({order} order, "
        f"{game.objective.name}) to player 0: {equilibrium.value} (exact; verified: zero "
        "duality gap)",
        err=err,
    )
    click.echo(
        f"sequences {sizes['sequences'][0]} + {sizes['sequences'][1]}, payoff nonzeros "
        f"{sizes['payoff_nonzeros']}, equilibrium support {sizes['support'][0]} + "
        f"{sizes['support'][1]}; {sum(seconds.values()):.2f} s",
        err=err,
    )
    if policy_out is not None:
        click.echo(f"policy written to {policy_out}", err=err)


def _read_shipped(
    game: ImperfectGame, policy_out: str | None, policy_format: str | None, as_json: bool
) -> None:
    """The shipped equilibrium, checked and re-proved (exact.imperfect.shipped)."""
    shipped = load_shipped(game)
    if policy_out is not None:
        data = json.loads(shipped.text)
        _write_policy(policy_out, data, policy_format or ("exact" if shipped.exact else "float"))
    err = _policy_on_stdout(policy_out)
    if as_json:
        click.echo(json.dumps({**shipped.to_json(), "policy_out": policy_out}), err=err)
        return
    where = f"read from the shipped {shipped.path.name} (SHA-256 checked)"
    proof = shipped.proof
    what = f"{game.n}-card imperfect-information goofspiel ({game.order.name} order, "
    if shipped.exact:
        click.echo(
            f"value of {what}{game.objective.name}) to player 0: {proof.best_responses[0]} "
            f"(exact; {where}; re-proved in this run: NashConv = 0 exactly)",
            err=err,
        )
    else:
        how = (
            "exact rational NashConv"
            if proof.arithmetic.exact
            else f"float NashConv {proof.value:.3e} + proven error bound {proof.error_bound:.1e}"
        )
        click.echo(
            f"{what}{game.objective.name}): an epsilon-equilibrium {where}, NashConv <= "
            f"{round_up(shipped.epsilon):.3e} (re-proved in this run: {how})",
            err=err,
        )
    click.echo(
        f"computed by {shipped.entry['method']}; units: {proof.units}; {shipped.seconds:.2f} s",
        err=err,
    )
    if policy_out is not None:
        click.echo(f"policy written to {policy_out}", err=err)


def _saver(policy_out: str | None, policy_format: str | None, tell):
    """For a long run: write the policies the double oracle hands on (its best so far,
    at most every ``BEST_EVERY`` seconds) to ``policy_out`` (a file, not stdout), so that
    a run stopped keeps its best."""
    if policy_out is None or policy_out == "-":
        return None

    def save(found) -> None:
        _write_policy(policy_out, found.policy_json(), policy_format or "float")
        if tell is not None:
            tell(
                f"round {found.sizes['rounds']}'s policy, the best so far, written to {policy_out}"
            )

    return save


def _write_policy(path: str, data: dict, policy_format: str) -> None:
    """A policy file (atomically, or to stdout for -) with probabilities as
    ``policy_format`` says: exact "p/q" strings or floats (the nearest)."""

    def number(value):
        exact = Fraction(value)
        if policy_format == "float":
            return float(exact)
        return f"{exact.numerator}/{exact.denominator}"

    converted = {
        state: {action: number(p) for action, p in row.items()} for state, row in data.items()
    }
    with atomic_file(path, "w") as fh:
        json.dump(converted, fh, indent=1, sort_keys=True)
        fh.write("\n")


def _policy_on_stdout(policy_out: str | None) -> bool:
    """Whether the policy took standard output (--policy-out -): the report then goes to
    stderr, as gops imperfect certify --out - sends it, so that stdout is one document."""
    return policy_out is not None and output_kind(policy_out) == "stdout"

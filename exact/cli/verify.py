"""gops verify: a store re-derived level by level (exact.dp.verify)."""

from __future__ import annotations

import os
import sys

import click

from exact.cli.common import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    INTEGER,
    NumberArgumentsCommand,
    one_line_errors,
)
from exact.cli.progress import ProgressBar, walk_progress
from exact.dp.objective import warm_up_all
from exact.dp.rederive import escape_chance
from exact.dp.verify import LevelCheck, StoreVerdict, verify_store
from exact.errors import GopsInputError
from exact.game.encoding import MAX_CARDS
from exact.kernels.points import level_items as bar_units


def parse_levels(text: str | None) -> list[int] | None:
    """``--levels``: "K" or "A-B" (inclusive), or None for every level.

    >>> parse_levels("3"), parse_levels("12-14"), parse_levels(None)
    ([3], [12, 13, 14], None)
    """
    if text is None:
        return None
    low, _, high = text.partition("-")
    if not (low.isascii() and low.isdigit()) or (high and not (high.isascii() and high.isdigit())):
        raise GopsInputError(f"--levels takes K or A-B (levels, e.g. 12-14), got {text!r}")
    first, last = int(low), int(high or low)
    if last > MAX_CARDS:
        raise GopsInputError(f"--levels {text}: a store has levels 0 to {MAX_CARDS} at most")
    if first > last:
        raise GopsInputError(f"--levels {text}: the first level is above the last")
    return list(range(first, last + 1))


@click.command(cls=NumberArgumentsCommand)
@click.argument("store_dir", metavar="DIR|FILE", type=click.Path())
@click.option(
    "--sample",
    type=INTEGER,
    default=None,
    metavar="K",
    help="Re-derive K random items of every level (a spot check in seconds, not a proof).",
)
@click.option(
    "--seed", type=INTEGER, default=0, show_default=True, help="Random seed of the --sample draw."
)
@click.option(
    "--levels",
    "levels_text",
    default=None,
    metavar="A-B",
    help="Only these levels (K or A-B); the rest can be verified by other runs.",
)
@click.option(
    "--cluster",
    "cluster",
    default=None,
    metavar="SPEC",
    help="Re-derive on Dask: local:W (W worker processes here) or tcp://HOST:PORT "
    "(the store on a shared file system).",
)
@click.option("--quiet", is_flag=True, help="No progress and no line per level.")
@one_line_errors
def verify(
    store_dir: str,
    sample: int | None,
    seed: int,
    levels_text: str | None,
    cluster: str | None,
    quiet: bool,
) -> None:
    """Re-derive every level of a store from the level below and check each value and
    radius (exit 0 verified; 1 contradicted: a value, a radius or a checksum that the
    store's readable, well-formed files contradict; 2 unreadable: missing, truncated,
    of another type or shape, a manifest no solve writes, or bad options).

    A FILE is a saved three-player solution (gops solve N --players 3 --save FILE): its
    checks passed, its NashConv is proved again from its mixes (exit 0 below 1e-9; 1 not,
    naming the stage game of the largest one-shot gain; 2 a file that fails its SHA-256
    or format check).

    The store's checksums only detect accidents: this re-derives each level with the
    solver's kernels from the stored level below, and checks that every stored value
    lies within its certified bound of the re-derived one and that the manifest's radius
    is the one re-derived.  Each level is checked against the manifest's radius of the
    level below, so levels can be verified in separate runs (--levels); once all have
    passed, every radius in the store is proved.

    A store made on a GPU (--device cuda) is re-derived here on the CPU: each value must
    lie within its bound plus the recorded radius of the re-derived one, and the radius
    proved here (from the level below's proved radius) is printed beside the device's.  A
    store made with --keep-from K keeps no level below K: levels K+1..N are re-derived,
    level K is taken as stored (its checksum and the values the rules fix checked).
    """
    if os.path.isfile(store_dir):  # a saved three-player solution (exact.three.saved)
        if sample is not None or levels_text is not None or cluster is not None:
            raise GopsInputError("--sample, --levels and --cluster are for a store (DIR)")
        sys.exit(_verify_saved(store_dir, quiet))
    if sample is not None and sample < 1:
        raise GopsInputError(f"--sample must be at least 1, got {sample}")
    if seed < 0:
        raise GopsInputError(f"--seed must be 0 or more, got {seed}")
    if cluster is not None:
        from exact.dp.cluster import parse_cluster

        parse_cluster(cluster)
    warm_up_all()  # either objective's kernel: the store says which
    bar = ProgressBar(enabled=not quiet, leave=False)
    progress = BarProgress(bar)
    try:
        verdict = verify_store(
            store_dir,
            parse_levels(levels_text),
            sample,
            seed,
            progress,
            None if quiet else level_line(bar),
            cluster,
        )
    finally:
        bar.close()
    bad = verdict.bad
    if bad is not None:
        click.echo(f"not verified: {bad}")
        sys.exit(EXIT_CHECK_FAILED)
    click.echo(summary(verdict))
    sys.exit(EXIT_OK)


def _verify_saved(path: str, quiet: bool) -> int:
    """``gops verify FILE``: a saved three-player solution (exact.three.verify); its exit
    code (0 verified, 1 not; a file failing its checks raises: one line, exit 2)."""
    from exact.three.verify import verify_saved

    with walk_progress(path, quiet) as told:
        verdict = verify_saved(path, told)
    if not quiet:
        sol = verdict.saved.solution
        click.echo(f"{path}: {sol.game.describe()}, {len(sol.stages):,} stage games", err=True)
    click.echo(verdict.line)
    return EXIT_OK if verdict.verified else EXIT_CHECK_FAILED


class BarProgress:
    """verify_store's ``progress(level, items, total)`` in the progress bar's units."""

    def __init__(self, bar: ProgressBar):
        self.bar = bar

    def __call__(self, level, items, total):
        self.bar(level, items * bar_units(level) // max(total, 1))


def level_line(bar: ProgressBar):
    def report(check: LevelCheck) -> None:
        bar.close()
        if not check.passed:
            return
        made = "" if check.backend == "cpu" else f", made by {check.backend}"
        if check.premise:
            click.echo(
                f"gops: level {check.k}: taken as stored (the level below was dropped: "
                f"--keep-from); its checksum and the values the rules fix agree; recorded "
                f"radius {check.recorded:.1e}{made}",
                err=True,
            )
            return
        if made and check.total:
            same = (
                "identical to" if check.difference == 0.0 else f"within {check.difference:.1e} of"
            )
            click.echo(
                f"gops: level {check.k}: {check.items:,} of {check.total:,} items re-derived "
                f"on the CPU, {same} the stored values{made}; radius proved "
                f"{check.needed:.1e} (the device recorded {check.recorded:.1e}) "
                f"({check.seconds:.1f} s)",
                err=True,
            )
            return
        if check.total == 0:
            click.echo(
                f"gops: level {check.k}: no matrix game; every value as the rules set "
                f"it; radius {check.needed:.1e}{made}",
                err=True,
            )
            return
        same = (
            "identical to the stored values"
            if check.difference == 0.0
            else f"within {check.difference:.1e} of the stored values"
        )
        if check.items < check.total:
            what = f"sampled, {same}; their largest bound {check.needed:.1e}"
        else:
            what = f"re-derived, {same}; radius {check.needed:.1e}"
        click.echo(
            f"gops: level {check.k}: {check.items:,} of {check.total:,} items {what} "
            f"({check.seconds:.1f} s)",
            err=True,
        )

    return report


def summary(verdict: StoreVerdict) -> str:
    """The verdict's last line(s): what was proved, and what was not."""
    checked = [c.k for c in verdict.checked]
    largest = max(c.needed for c in verdict.checked)
    what = f"N={verdict.n} {verdict.objective}" + (
        "" if verdict.order == "random" else f" order={verdict.order}"
    )
    if verdict.sample is None and (verdict.keep_from or verdict.proved_mode):
        return proved_summary(verdict, what)
    if verdict.sample is not None:
        items = sum(c.items for c in verdict.checked)
        escape, k = max(
            ((escape_chance(c.total, c.items), c.k) for c in verdict.checked if not c.premise),
            default=(0.0, 0),
        )
        chance = (
            f"a single edited item escapes this sample with a chance of at most {escape:.1%} "
            f"(level {k})"
            if escape
            else "every item was re-derived (the levels are small)"
        )
        radii = (
            "within their bounds plus the device's radii (levels made by "
            f"{', '.join(verdict.devices)})"
            if verdict.proved_mode
            else "and no radius is understated"
        )
        return (
            f"spot-checked: {items:,} random items of levels {checked[0]}..{checked[-1]} "
            f"of {verdict.root} ({what}) and every value the rules fix agree with their "
            f"re-derivation {radii}; {chance}; not a proof: "
            "`gops verify` without --sample re-derives every item"
            + (
                f"; level {verdict.keep_from} taken as stored (the levels below it were "
                f"dropped, --keep-from {verdict.keep_from})"
                if verdict.keep_from
                else ""
            )
        )
    if verdict.complete:
        return (
            f"verified: every value of {verdict.root} ({what}) lies within its level's "
            f"radius of the value re-derived here, and every radius is the one "
            f"re-derived (largest {largest:.1e})"
        )
    return (
        f"verified levels {checked[0]}..{checked[-1]} of {verdict.root} ({what}), each "
        "given the manifest's radius of the level below; the store is proved once every "
        f"level 0..{verdict.n} has passed"
    )


def proved_summary(verdict: StoreVerdict, what: str) -> str:
    """The last line for a store made on a device or with --keep-from: the radii proved
    here (beside a device's recorded ones), and the premise a frontier store rests on."""
    checks = verdict.checked
    proved = max(c.proved for c in checks)
    recorded = max(c.recorded for c in checks)
    made = (
        f", levels made by {', '.join(verdict.devices)} re-derived on the CPU"
        if verdict.devices
        else ""
    )
    radii = (
        "within the radius proved here for its level of the exact value (largest "
        f"{proved:.1e}; the device recorded {recorded:.1e}, its own directed-rounding "
        "bounds, which this check does not re-run)"
        if verdict.proved_mode
        else "within its level's radius of the exact value, every radius the one "
        f"re-derived (largest {recorded:.1e})"
    )
    base = [c for c in checks if c.premise]
    levels = f"levels {checks[0].k}..{checks[-1].k}"
    if not base and checks[0].k == 0 and checks[-1].k == verdict.n:
        return f"verified: every value of {verdict.root} ({what}{made}) lies {radii}"
    if base:
        k = base[0].k
        return (
            f"verified {levels} of {verdict.root} ({what}{made}) given level {k} as stored: "
            f"if level {k}'s values lie within its recorded radius {base[0].recorded:.1e} of "
            f"the exact ones, every value of {levels_words(k + 1, checks[-1].k)} lies {radii}; "
            f"levels 0..{k - 1} were dropped (--keep-from {k}), so level {k} cannot be "
            "re-derived (its checksum and the values the rules fix were checked)"
        )
    return (
        f"verified {levels} of {verdict.root} ({what}{made}), each given the radius of the "
        f"level below ({'proved here, or ' if verdict.proved_mode else ''}the manifest's "
        f"for level {checks[0].k - 1}): every value lies {radii}"
    )


def levels_words(first: int, last: int) -> str:
    """Levels first..last in words.

    >>> levels_words(4, 6), levels_words(5, 5)
    ('levels 4..6', 'level 5')
    """
    return f"level {first}" if first == last else f"levels {first}..{last}"

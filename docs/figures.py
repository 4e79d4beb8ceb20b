"""The figures of the documentation site, made from real results.

    python docs/figures.py                 # every figure, into docs/figures/
    python docs/figures.py --only scaling  # one of them

- ``first-move-13.png``: the first move of the 13-card game (points), the midpoints of the
  certified enclosures in ``benchmarks/table2_certified.json`` (written by
  ``benchmarks/certified_paper.py`` from a store of N = 13; each enclosure is narrower than
  2.2e-11, so the picture is the exact equilibrium).  Nothing is solved for it.
- ``first-move-9.png``: the first move of N = 9 for the points and the win objective side
  by side, solved here (about 10 s each on 2 cores).  The win objective's first move at
  N = 13 would take a store of about 100 GiB (its pre-flight estimate), so 9 it is.
- ``value-of-choosing.png``: what choosing every prize is worth (``order=
  "controlled-by-me"``, the value at the start), N = 2..10 solved here, N = 11..13 as
  recorded in benchmarks/RESULTS.md (the script checks that the two agree where both
  exist: N <= 10 were recorded too).
- ``scaling.png``: time, memory and disk of the points solve into a store against N, as
  recorded in benchmarks/RESULTS.md (the rows quoted in :data:`SCALING`, with their dates
  and commits), beside the pre-flight model of today's store (one value per antisymmetric
  pair) for N = 13..16 on 2 cores.

Recorded numbers are kept as the exact rows of RESULTS.md they come from, parsed here, so
that tests/test_docs.py can check that each row is still there, word for word; docs/
performance.md shows the same rows (its table is generated from :data:`SCALING` by cog).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from exact.limits import TIMINGS

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "figures"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"


@dataclass(frozen=True)
class Recorded:
    """A measurement as RESULTS.md records it: ``quote`` is a verbatim excerpt of it."""

    n: int
    what: str
    seconds: float | None
    memory_gib: float | None
    disk_gb: float | None
    date: str
    commit: str | None
    section: str
    quote: str


#: The points solve into a store, as recorded.  bench_n13.py's scaling run (levels read
#: into memory, both sides of every antisymmetric pair stored), then N = 13 and 14 once the
#: levels were mapped (memory: the process's own plus the level pages resident).
SCALING = [
    *[
        Recorded(
            n,
            "levels in memory, full layout",
            s,
            mib / 1024,
            mb / 1000,
            "2026-11-22",
            "44e63aa",
            "The 13-card game in a store",
            quote,
        )
        for n, s, mib, mb, quote in [
            (8, 0.1, 166, 0.7, "| 8 | 84,664 | 202,728 | 0.1 | 166 | 2,580,066 | 0.7 |"),
            (9, 0.6, 171, 3.5, "| 9 | 436,478 | 1,184,031 | 0.6 | 171 | 2,090,061 | 3.5 |"),
            (10, 4.3, 190, 18.2, "| 10 | 2,273,688 | 6,888,580 | 4.3 | 190 | 1,596,699 | 18.2 |"),
            (
                11,
                20.6,
                296,
                95.6,
                "| 11 | 11,946,112 | 39,971,635 | 20.6 | 296 | 1,943,057 | 95.6 |",
            ),
            (
                12,
                155.5,
                750,
                505.7,
                "| 12 | 63,214,410 | 231,506,100 | 155.5 | 750 | 1,488,656 | 505.7 |",
            ),
            (
                13,
                1014.3,
                3186,
                2692.2,
                "| 13 | 336,525,646 | 1,338,879,360 | **1,014.3** | 3,186 | 1,320,049 | 2,692.2 |",
            ),
        ]
    ],
    Recorded(
        14,
        "levels in memory, full layout",
        2787,
        15.9,
        14.4,
        "2026-11-23",
        None,
        "N = 14 on this machine",
        "| 14 | 46 min 28 s (2787 s of solving) | 15.9 GiB | 14.4 GB |",
    ),
    Recorded(
        13,
        "levels mapped, full layout",
        478.9,
        0.31 + 1.82,
        None,
        "2026-11-23",
        None,
        "Memory: the levels mapped, not read into memory",
        "| none | 478.9 | 0.31 | 1.82 | | 0 | the baseline |",
    ),
    Recorded(
        14,
        "levels mapped, full layout, in a 7.9 GiB cgroup",
        2768.7,
        7.90,
        None,
        "2026-11-23",
        None,
        "Memory: the levels mapped, not read into memory",
        "| 7.9 | 2768.7 | 0.46 | 7.36 | 7.90 | 3844 | identical to the reference (SHA-256) |",
    ),
    Recorded(
        15,
        "halved store, levels mapped, over three sittings",
        TIMINGS["points", "store", 15].seconds,
        22.7,
        38.717592306,
        "2026-11-26",
        "b13c6dd",
        "Points N = 15: the second run, solved",
        "So points N = 15 is solved: about 7.3 hours of running in all on the 2 cores (levels\n"
        "0 to 7 about 0.25 h, level 8 0.8 h, level 9 2.7 h, level 10 2.7 h, level 11 0.8 h, the\n"
        "rest minutes; the pre-flight estimate said 10.5 h), 38,717,592,306 bytes on disk "
        "(`du -sb`; the\n"
        "estimate said 38.7 GB), 1.6 GiB of private memory (`RssAnon`) and a peak resident set "
        "of\n22.7 GiB (`VmHWM`)",
    ),
]

#: What choosing every prize is worth at the start (points per game), as recorded by
#: ``benchmarks/bench_orders.py`` (N <= 12) and the N = 13 store (2026-11-23).
CHOOSING = {
    10: (1.782725, "10 | +1.782725 | [1.782724844267, 1.782724844272] |  | 6 | 3.3"),
    11: (2.133006, "11 | +2.133006 | [2.133006152681, 2.133006152689] |  | 7 | 18.6"),
    12: (2.532750, "12 | +2.532750 | [2.532749667917, 2.532749667929] |  | 9 | 130.6"),
    13: (2.933894, "value at the start 2.933894"),
}


def quotes() -> list[str]:
    """Every excerpt of RESULTS.md this script relies on (tests/test_docs.py checks them)."""
    return [r.quote for r in SCALING] + [q for _, q in CHOOSING.values()]


def heatmap(ax, table, title):
    """One first-move table {upcard: [P(bid 1), ..., P(bid N)]} as a heat map: each cell
    its probability in percent, an empty cell a probability of exactly 0."""
    import matplotlib
    import numpy as np

    n = len(table)
    grid = np.array([[table[u][b] for u in range(1, n + 1)] for b in range(n)])
    cmap = matplotlib.colormaps["YlGnBu"].copy()
    cmap.set_bad("white")
    image = ax.imshow(np.ma.masked_equal(grid, 0.0), cmap=cmap, vmin=0, vmax=1, origin="upper")
    ax.set_xticks(range(n), [str(u) for u in range(1, n + 1)])
    ax.set_yticks(range(n), [str(b) for b in range(1, n + 1)])
    ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="#dddddd", linewidth=0.5)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("upcard")
    ax.set_ylabel("bid")
    ax.set_title(title)
    size = 7 if n <= 9 else 5.5
    for u in range(n):
        for b in range(n):
            p = grid[b, u]
            if p > 0:
                ax.text(
                    u,
                    b,
                    f"{100 * p:.0f}" if p >= 0.005 else "<1",
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if p > 0.5 else "black",
                )
    return image


def first_move_13(plt):
    data = json.loads((ROOT / "benchmarks" / "table2_certified.json").read_text())
    table = {int(u): [(lo + hi) / 2 for lo, hi in bids] for u, bids in data["enclosures"].items()}
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    image = heatmap(ax, table, "First move of 13-card GOPS (points): P(bid | upcard), %")
    fig.colorbar(image, ax=ax, shrink=0.8)
    ax.annotate(
        "an empty cell: probability proved exactly 0",
        (0, -0.13),
        xycoords="axes fraction",
        fontsize=8,
    )
    return fig


def first_move_9(plt):
    import exact

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6))
    for ax, objective in zip(axes, ("points", "win")):
        table = exact.solve(9, objective=objective).first_move_table()
        rows = {u: [float(table[u][b]) for b in range(1, 10)] for u in table}
        image = heatmap(ax, rows, f"N = 9, {objective} objective")
    fig.colorbar(image, ax=axes, shrink=0.8)
    fig.suptitle(
        "First move, P(bid | upcard) in %: playing for points against playing to win"
        " (an empty cell: 0)"
    )
    return fig


def value_of_choosing(plt):
    import exact

    cards = range(2, 11)
    solved = {}
    for n in cards:
        hand = set(range(1, n + 1))
        solved[n] = float(exact.solve(n, order="controlled-by-me").value(hand, hand, hand))
    for n, (value, _) in CHOOSING.items():
        if n in solved:
            assert abs(solved[n] - value) < 5e-7, (n, solved[n], value)
    recorded = {n: v for n, (v, _) in CHOOSING.items() if n not in solved}
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ax.plot(list(solved), list(solved.values()), "o-", label="solved by docs/figures.py")
    ax.plot(
        list(recorded), list(recorded.values()), "s--", label="recorded in benchmarks/RESULTS.md"
    )
    ax.set_xlabel("N (cards per suit)")
    ax.set_ylabel("points per game")
    ax.set_title("What choosing every prize is worth (value at the start)")
    ax.grid(alpha=0.3)
    ax.legend()
    return fig


def scaling(plt):
    from exact.dp.preflight import estimate
    from exact.game.spec import GameSpec

    model = {n: estimate(GameSpec.parse(n), cores=2) for n in range(13, 17)}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    full = [r for r in SCALING if r.what == "levels in memory, full layout"]
    mapped = [r for r in SCALING if r.what.startswith("levels mapped")]
    halved = [r for r in SCALING if r.what.startswith("halved store")]
    ns = [r.n for r in full]
    axes[0].semilogy(ns, [r.seconds for r in full], "o-", label="measured (2-core machine)")
    axes[0].semilogy(
        [r.n for r in mapped], [r.seconds for r in mapped], "D", label="measured, levels mapped"
    )
    axes[0].semilogy(
        [r.n for r in halved], [r.seconds for r in halved], "s", label="measured, halved store"
    )
    axes[0].semilogy(
        list(model), [e.seconds for e in model.values()], "x--", label="pre-flight model, 2 cores"
    )
    axes[0].set_ylabel("seconds")
    axes[0].set_title("time")
    axes[1].semilogy(
        ns, [r.memory_gib for r in full], "o-", label="measured peak, levels read into memory"
    )
    axes[1].semilogy(
        [r.n for r in mapped],
        [r.memory_gib for r in mapped],
        "D",
        label="measured, levels mapped (process + level pages)",
    )
    axes[1].semilogy(
        [r.n for r in halved],
        [r.memory_gib for r in halved],
        "s",
        label="measured, halved store (process + level pages)",
    )
    axes[1].semilogy(
        list(model),
        [e.memory_bytes / 2**30 for e in model.values()],
        "x--",
        label="model, halved store (at most)",
    )
    axes[1].semilogy(
        list(model),
        [e.minimum_bytes / 2**30 for e in model.values()],
        "+:",
        label="model, halved store (at least)",
    )
    axes[1].set_ylabel("GiB")
    axes[1].set_title("memory")
    axes[2].semilogy(ns, [r.disk_gb for r in full], "o-", label="measured, full store")
    axes[2].semilogy(
        [r.n for r in halved], [r.disk_gb for r in halved], "s", label="measured, halved store"
    )
    axes[2].semilogy(
        list(model),
        [e.disk_bytes / 1e9 for e in model.values()],
        "x--",
        label="halved store (exact size)",
    )
    axes[2].set_ylabel("GB")
    axes[2].set_title("disk")
    for ax in axes:
        ax.set_xlabel("N")
        ax.set_xticks(range(8, 17))
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7)
    fig.suptitle("Solving the points objective into a store (benchmarks/RESULTS.md)")
    fig.tight_layout()
    return fig


FIGURES = {
    "first-move-13": first_move_13,
    "first-move-9": first_move_9,
    "value-of-choosing": value_of_choosing,
    "scaling": scaling,
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(FIGURES), action="append")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # The same bytes for the same figure: no timestamp in the PNG's metadata.
    metadata = {"Software": None}
    OUT.mkdir(exist_ok=True)
    for name in args.only or FIGURES:
        fig = FIGURES[name](plt)
        fig.savefig(OUT / f"{name}.png", dpi=110, bbox_inches="tight", metadata=metadata)
        plt.close(fig)
        print(f"wrote {(OUT / f'{name}.png').relative_to(ROOT)}")


if __name__ == "__main__":
    main()

"""Progress on stderr, one module for every command: a bar on a terminal, lines in a log.

- :class:`ProgressBar`: a tqdm bar per level of a solve (its total, rate and time left),
  on a terminal only, once the level has taken 2 seconds;
- :class:`ProgressLines`: the same progress as a plain line every so often where stderr
  is a log (the level, the time of day, the items done, this run's rate, the time left in
  the level and, given the game, in the run);
- :class:`CountProgress`: a count toward a known total that reports ``(done, total)``
  (gops imperfect's best responses): the bar on a terminal, a line per report elsewhere;
- :func:`message_lines`: the steps of a computation without a count, a line each;
- :func:`count_progress`: a long count, the bar on a terminal, a timed line elsewhere;
  :func:`walk_progress`, the positions a walk has done, toward no known total.

Invariants: nothing is written on stdout (it holds the command's answer, often JSON); a
run shorter than the delay writes nothing; ``enabled`` False (``--quiet``) writes nothing.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable
from contextlib import contextmanager

import click
from tqdm import tqdm

from exact.dp.preflight import level_work
from exact.game.spec import GameSpec
from exact.kernels.points import level_items

#: A bar appears, and a count's lines start, once a run has taken this long (seconds).
PROGRESS_AFTER_SECONDS = 2.0


class ProgressBar:
    """A tqdm bar per level on stderr, shown only once a solve has taken 2 seconds.

    Only when stderr is a terminal: in logs and pipes the bar's redraws are noise, and
    output captured by scripts (JSON on stdout mixed with stderr) stays clean.
    """

    def __init__(self, enabled: bool = True, leave: bool = False):
        self.enabled = enabled and sys.stderr.isatty()
        self.leave = leave
        self.bar = None
        self.level = None

    def __call__(self, level, done):
        if not self.enabled:
            return

        if self.level is not level.k:
            self.close()
            self.level = level.k
            self.bar = tqdm(
                total=level_items(level),
                desc=f"level {level.k}/{level.n}",
                unit="item",
                unit_scale=True,
                delay=PROGRESS_AFTER_SECONDS,
                file=sys.stderr,
                leave=self.leave,
            )
        self.bar.update(done)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None


#: A long solve whose stderr is a log writes a progress line at most this often (seconds).
PROGRESS_LINE_SECONDS = 600.0


class ProgressLines:
    """Progress of a long store solve as plain lines on stderr, where stderr is a log and
    not a terminal (there ProgressBar draws): once ``every`` seconds have passed since the
    run began or since the last line, the level, the time of day (UTC), its items done,
    the rate this run has kept in the level, and the time left in the level at that rate;
    and, for a level that had such a line, a line when it is done, with its time of day
    (so that a log of a run of days says when each level ended).  A solve shorter than
    ``every`` prints nothing.  The rate counts from the level's first report, which on a
    resume is the items found done, so it is this run's own.

    Given the ``game``, a line also says the time left in the whole run: the levels above
    weighed by the pre-flight's cost model (:func:`exact.dp.preflight.level_work`), at the
    rate this level keeps in the model's units.  Levels of more cards have kept more units
    a second than those below them (points N = 15: 2.5e7 at level 7, 5.0e7 at level 9,
    benchmarks/RESULTS.md), so early in a run this over-estimates.
    """

    def __init__(
        self,
        enabled: bool = True,
        every: float = PROGRESS_LINE_SECONDS,
        clock=None,
        game: GameSpec | None = None,
        wall=None,
    ):

        self.game = game
        self.wall = wall or utc_now  # the time of day each line is stamped with
        self.enabled = enabled and not sys.stderr.isatty()
        self.every = every
        self.clock = clock or time.monotonic
        self.last = self.clock()  # when the last line was written (or the run began)
        self.k = None  # the level being reported, its items done and its first report
        self.done = 0
        self.first = (0.0, 0)
        self.spoken = False  # a line was written during this level

    def __call__(self, level, done):
        if not self.enabled:
            return

        now = self.clock()
        if level.k != self.k:
            self.k, self.done, self.spoken = level.k, 0, False
        self.done += done
        if self.done == done:  # the level's first report
            self.first = (now, self.done)
        total = level_items(level)
        head = f"gops: level {level.k}/{level.n}"
        stamp = f" at {self.wall():%Y-%m-%d %H:%M} UTC"
        if self.done >= total:
            if self.spoken:
                click.echo(f"{head} done{stamp}: {total:,} items", err=True)
                self.last = now
            return
        if now - self.last < self.every:
            return
        since, before = self.first
        rate = (self.done - before) / max(now - since, 1e-9)
        left = ""
        if rate > 0:
            seconds = (total - self.done) / rate
            left = f"; about {time_left(seconds)} left in it"
            if self.game is not None:  # the levels above, in items of this level's work
                above = sum(level_work(self.game, j) for j in range(level.k + 1, level.n + 1))
                seconds += above * total / level_work(self.game, level.k) / rate
                left += f", {time_left(seconds)} in the run"
        click.echo(
            f"{head}{stamp}: {self.done:,} of {total:,} items ({100 * self.done / total:.1f} %), "
            f"{60 * rate:,.0f} items a minute{left}",
            err=True,
        )
        self.last, self.spoken = now, True


def utc_now():
    """The time of day, UTC (progress lines are stamped with it)."""
    return datetime.datetime.now(datetime.timezone.utc)


def time_left(seconds: float) -> str:
    """A time left, as a log line says it.

    >>> time_left(95), time_left(5400), time_left(13 * 3600)
    ('2 min', '90 min', '13.0 h')
    """
    return f"{seconds / 3600:.1f} h" if seconds >= 7200 else f"{max(1, round(seconds / 60))} min"


#: An in-memory solve (minutes at most) whose stderr is a log writes a progress line at
#: most this often (seconds).
SOLVE_PROGRESS_LINE_SECONDS = 30.0


class CountProgress:
    """``progress(done, total)`` of a count toward a known total (``what``: "best
    responses", ``unit``: "first-round bids"): on a terminal a tqdm bar (the total, the
    rate, the time left) once the run has taken ``after`` seconds; elsewhere, from then
    on, a line per report but the last, "gops: WHAT: D of T UNIT done".  :meth:`close`
    ends the bar."""

    def __init__(
        self,
        what: str,
        unit: str,
        enabled: bool = True,
        after: float = PROGRESS_AFTER_SECONDS,
        clock=None,
    ):
        self.what, self.unit, self.after = what, unit, after
        self.enabled = enabled
        self.terminal = sys.stderr.isatty()
        self.clock = clock or time.monotonic
        self.start = self.clock()
        self.bar: tqdm | None = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.terminal:
            bar = self.bar
            if bar is None:
                bar = self.bar = tqdm(
                    total=total,
                    desc=self.what,
                    unit=f" {self.unit}",
                    delay=self.after,
                    file=sys.stderr,
                    leave=False,
                )
            bar.update(done - bar.n)
        elif done < total and self.clock() - self.start >= self.after:
            click.echo(f"gops: {self.what}: {done} of {total} {self.unit} done", err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def message_lines(enabled: bool) -> Callable[[str], None]:
    """``progress(message)``: "gops: MESSAGE" on stderr as each step of a computation
    without a count starts (nothing unless ``enabled``)."""

    def progress(message: str) -> None:
        if enabled:
            click.echo(f"gops: {message}", err=True)

    return progress


#: A NashConv walk whose stderr is a log writes a line at most this often (seconds).
WALK_LINE_SECONDS = 60.0


@contextmanager
def count_progress(
    desc: str,
    unit: str,
    quiet: bool,
    every: float,
    line: Callable[[int, float], str],
    total: int | None = None,
):
    """A ``told(done)`` for a long count (``done`` so far, never less than before),
    unless ``quiet``: on a terminal a tqdm bar (after 2 s; with the time left where the
    ``total`` is known), else ``line(done, seconds so far)`` on stderr at most every
    ``every`` seconds."""
    terminal = sys.stderr.isatty()
    bar = tqdm(
        total=total,
        unit=unit,
        desc=desc,
        delay=PROGRESS_AFTER_SECONDS,
        file=sys.stderr,
        leave=False,
        disable=quiet or not terminal,
    )
    start = last = time.monotonic()

    def told(done: int) -> None:
        nonlocal last
        bar.update(done - bar.n)
        if quiet or terminal or time.monotonic() - last < every:
            return
        last = time.monotonic()
        click.echo(line(done, last - start), err=True)

    try:
        yield told
    finally:
        bar.close()


def walk_progress(what: str, quiet: bool, every: float = WALK_LINE_SECONDS):
    """A ``progress(positions)`` for a NashConv walk of ``what`` (three players): a
    counter, or a line of the positions walked and the seconds so far (the walk's total
    is not known before it ends); see :func:`count_progress`."""

    def line(positions: int, seconds: float) -> str:
        return (
            f"gops: {what} at {utc_now():%Y-%m-%d %H:%M} UTC: the NashConv walk, "
            f"{positions:,} positions in {seconds:.0f} s"
        )

    return count_progress("NashConv walk", " positions", quiet, every, line)

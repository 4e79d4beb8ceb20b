"""A three-player solve that keeps its stage games in a side file, and resumes from it.

The side file of ``FILE`` is ``FILE.partial``: UTF-8 text, one JSON document a line, the
first the header ``{"format": "gops-three-checkpoint", "version": 1, "game": {...}}``,
each later one a stage game as :func:`exact.three.saved.encode_stage` writes it, in the
order the induction solved them (children before parents).  Each line is handed to the
operating system as soon as its stage is solved (a killed process loses nothing; the
system's cache is on disk within :data:`FSYNC_SECONDS`, when the file is fsynced), and
only whole lines are read back: a last line cut by a crash is dropped (and cut off before
more are appended).

Resuming is the induction of :mod:`exact.three.induction` again, with every stage game
found in the side file taken as it is instead of solved (its mixes and values read back
bit for bit), so a resumed solve ends with the same solution as one never stopped.
Once the whole solution is saved, the side file is removed.
"""

from __future__ import annotations

import json
import os
import resource
import time
from contextlib import contextmanager
from itertools import product
from pathlib import Path

from exact.errors import GopsInputError
from exact.three.canonical import canonical
from exact.three.induction import ThreeSolution
from exact.three.induction import _Solver as _Induction
from exact.three.rules import ThreeGame
from exact.three.saved import SavedSolutionError, decode_stage, encode_stage
from exact.three.stage import StageSolution

__all__ = ["CHECKPOINT", "FSYNC_SECONDS", "Checkpoint", "side_file", "solve_checkpointed"]

CHECKPOINT = "gops-three-checkpoint"
VERSION = 1
#: Seconds between two fsyncs of the side file (a power cut loses at most this much).
FSYNC_SECONDS = 30.0


def side_file(path) -> Path:
    """The side file of the saved solution ``path``."""
    return Path(os.fspath(path) + ".partial")


class Checkpoint:
    """The side file of one solve: read its stage games, append new ones."""

    def __init__(self, path, game: ThreeGame):
        self.path = side_file(path)
        self.game = game
        self.whole = 0  # bytes of whole lines read (a cut last line starts here)

    def read(self) -> dict:
        """The stage games already in the side file ({} if there is none), checked as a
        saved file's are; a side file of another game is one line (exit 2)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise GopsInputError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        lines = raw.split(b"\n")
        whole = lines[:-1]  # the part after the last newline is a line cut short, or b""
        if not whole:
            return {}
        try:
            header = json.loads(whole[0])
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != CHECKPOINT:
            raise GopsInputError(
                f"{self.path} is not a checkpoint of gops: remove it or save elsewhere"
            )
        if header.get("version") != VERSION or header.get("game") != self.game.to_json():
            raise GopsInputError(
                f"{self.path} is the checkpoint of another game or format "
                f"({header.get('game')}): remove it or save elsewhere"
            )
        done = {}
        for number, line in enumerate(whole[1:], 2):
            try:
                at, st = decode_stage(json.loads(line), self.game)
            except (ValueError, SavedSolutionError) as exc:
                raise GopsInputError(f"{self.path}, line {number}: {exc}") from None
            done[at] = st
        self.whole = sum(len(x) + 1 for x in whole)
        return done

    @contextmanager
    def appending(self):
        """A function that appends one stage game; the file is fsynced every
        FSYNC_SECONDS and when done."""
        fresh = self.whole == 0
        with open(self.path, "ab") as fh:
            fh.truncate(self.whole)  # a last line cut short goes
            fh.seek(self.whole)
            if fresh:
                head = {"format": CHECKPOINT, "version": VERSION, "game": self.game.to_json()}
                fh.write(json.dumps(head).encode() + b"\n")
                fh.flush()
            last = time.monotonic()

            def append(key, upcard: int, st: StageSolution) -> None:
                nonlocal last
                row = json.dumps(encode_stage(key, upcard, st), separators=(",", ":"))
                fh.write(row.encode() + b"\n")
                fh.flush()  # to the system: a killed process loses nothing
                if time.monotonic() - last >= FSYNC_SECONDS:
                    os.fsync(fh.fileno())
                    last = time.monotonic()

            try:
                yield append
            finally:
                fh.flush()
                os.fsync(fh.fileno())

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


class _Resuming(_Induction):
    """The induction, taking each stage game found in the checkpoint as it is and
    appending every one it solves.  A stage game taken still has its children visited
    first, as the induction visits them (every bid profile's position, in product order),
    so that the positions, the stage games and their order are an unstopped solve's."""

    def __init__(self, game, solution, progress, done: dict, append):
        super().__init__(game, solution, progress)
        self.done, self.append = done, append
        self.forms: dict = {}

    def stage(self, key, u):
        st = self.done.pop((key, u), None)
        if st is None:
            st = super().stage(key, u)
            self.append(key, u, st)
            return st
        self.children(key, u)
        self.sol.stages[(key, u)] = st
        self.sol.methods[st.method] = self.sol.methods.get(st.method, 0) + 1
        self.solved += 1
        if self.progress is not None:
            self.progress(self.solved)
        return st

    def children(self, key, u: int) -> None:
        """Each position after the round (the induction's loop over bid profiles, in
        its order).  Under ``points`` a child's canonical hands do not depend on the
        upcard (only its prizes do), so they are found once per position, not per stage
        game: the walk of a 6-card checkpoint's stage games takes seconds, not minutes."""
        hands, prizes, units = key
        rest = tuple(p for p in prizes if p != u)
        if self.game.top:
            k = len(prizes)
            for a in product(range(k), repeat=3):
                child = tuple(hands[i][: a[i]] + hands[i][a[i] + 1 :] for i in range(3))
                won = self.share(tuple(hands[i][a[i]] for i in range(3)))
                cunits = tuple(units[i] + int(2 * u * won[i]) for i in range(3))
                self.value(canonical(child, rest, cunits)[0])
            return
        for h, s in self.child_forms(hands):
            self.value((h, rest, s))

    def child_forms(self, hands) -> list:
        """The canonical (hands, points) of every child of ``hands`` (points objective),
        in bid-profile order; kept for the position's other upcards."""
        level = len(hands[0])
        kept = self.forms.get(level)  # a position's upcards come one after the other, each
        forms = kept[1] if kept is not None and kept[0] == hands else None  # below it
        if forms is None:
            k = len(hands[0])
            forms = []
            for a in product(range(k), repeat=3):
                child = tuple(hands[i][: a[i]] + hands[i][a[i] + 1 :] for i in range(3))
                h, _, s = canonical(child, (), (0, 0, 0))[0]
                forms.append((h, s))
            self.forms[level] = (hands, forms)  # one position a level: its upcards' walks
        return forms  # go deeper between them, never to another position of this level


def solve_checkpointed(game: ThreeGame, path, progress=None, resumed=None) -> ThreeSolution:
    """``game`` solved as :func:`exact.three.induction.solve_game` solves it, its stage
    games kept in ``path``'s side file; ``resumed(k)`` is told how many stage games the
    side file held (before the solve goes on), if any."""
    checkpoint = Checkpoint(path, game)
    done = checkpoint.read()
    if done and resumed is not None:
        resumed(len(done))
    sol = ThreeSolution(game)
    start, cpu = time.perf_counter(), time.process_time()
    with checkpoint.appending() as append:
        # The recursion is two frames a round (N <= THREE_MAX_N): Python's limit stays.
        _Resuming(game, sol, progress, done, append).value(sol.root)
    sol.seconds = time.perf_counter() - start
    sol.cpu_seconds = time.process_time() - cpu
    sol.peak_rss_bytes = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return sol

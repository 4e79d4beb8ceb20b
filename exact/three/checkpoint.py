"""A three-player solve that keeps its stage games in a side file, and resumes from it.

The side file of ``FILE`` is ``FILE.partial``: UTF-8 text, one JSON document a line, the
first the header ``{"format": "gops-three-checkpoint", "version": 1, "game": {...}}``,
each later one a stage game as :func:`exact.three.saved.encode_stage` writes it, in the
order the induction solved them (children before parents).  Each line is handed to the
operating system as soon as its stage is solved (a killed process loses nothing; the
system's cache is on disk within :data:`FSYNC_SECONDS`, when the file is fsynced), and
only whole lines are read back: a last line cut by a crash is dropped (and cut off before
more are appended).

Resuming is the induction of :mod:`exact.three.induction` again
(:func:`~exact.three.induction.solve_game` with the side file's stage games ``known``,
each new one appended by ``on_stage``): every stage game found in the side file is taken
as it is instead of solved (its mixes and values read back bit for bit), so a resumed
solve ends with the same solution as one never stopped.
Once the whole solution is saved, the side file is removed.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from pathlib import Path

from exact.errors import GopsInputError
from exact.three.induction import ThreeSolution, solve_game
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


def solve_checkpointed(game: ThreeGame, path, progress=None, resumed=None) -> ThreeSolution:
    """``game`` solved as :func:`exact.three.induction.solve_game` solves it, its stage
    games kept in ``path``'s side file; ``resumed(k)`` is told how many stage games the
    side file held (before the solve goes on), if any."""
    checkpoint = Checkpoint(path, game)
    done = checkpoint.read()
    if done and resumed is not None:
        resumed(len(done))
    with checkpoint.appending() as append:
        return solve_game(game, progress, known=done, on_stage=append)

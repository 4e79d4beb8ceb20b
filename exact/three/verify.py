"""A saved three-player solution checked again: its NashConv proved from its mixes.

:func:`verify_saved` loads the file (every check of :mod:`exact.three.saved`; a failed
one raises its one-line :class:`~exact.three.saved.SavedSolutionError`), then proves the
NashConv of the mixes again with the walk of :mod:`exact.three.nashconv`, never reading
the number the file claims except to compare.  Verified when the bound proven is below
:data:`CERTIFIED_BELOW` and at most the claim; otherwise the verdict names the stage game
where a player gains most by deviating there alone (the one-shot deviation principle: a
profile with NashConv above 0 has such a stage), as it is played and as it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from exact.three.canonical import canonical
from exact.three.nashconv import NashConvReport, nashconv
from exact.three.saved import SavedSolution, load

__all__ = ["CERTIFIED_BELOW", "Verdict", "verify_saved"]

#: The NashConv every reported or saved three-player equilibrium is proven below.
CERTIFIED_BELOW = 1e-9


@dataclass(frozen=True)
class Verdict:
    """What ``gops verify FILE`` says: verified or not, in one line."""

    verified: bool
    line: str
    saved: SavedSolution
    report: NashConvReport | None


def verify_saved(path, progress=None) -> Verdict:
    """The verdict on the saved solution at ``path`` (module docstring); ``progress``
    told the positions the walk has proved so far."""
    saved = load(path)
    sol = saved.solution
    try:
        report = nashconv(sol.game, sol.mixes, locate=True, progress=progress)
    except KeyError as exc:
        line = f"not verified: {path} lacks a stage game that play reaches ({exc.args[0]})"
        return Verdict(False, line, saved, None)
    claimed = saved.nashconv.get("bound")
    proven = f"NashConv <= {report.bound:.3g}, proven again from the mixes"
    if report.bound > CERTIFIED_BELOW:
        line = f"not verified: {proven}, is not below {CERTIFIED_BELOW:g}" + _worst(saved, report)
        return Verdict(False, line, saved, report)
    if type(claimed) is not float or report.bound > claimed:
        return Verdict(False, f"not verified: {proven}; the file claims {claimed!r}", saved, report)
    line = (
        f"verified: {sol.game.describe()}: {proven} (below {CERTIFIED_BELOW:g}; the file's "
        f"claim {claimed:.3g}); SHA-256 {saved.sha256}"
    )
    return Verdict(True, line, saved, report)


def _worst(saved: SavedSolution, report: NashConvReport) -> str:
    """ "; the largest one-shot gain, G, is at the stage game with hands ..." (the
    position in actual cards and as the file stores it)."""
    if report.worst is None:
        return ""
    sol = saved.solution
    gain, hands, prizes, points, upcard = report.worst
    key, _ = canonical(hands, tuple(sorted(prizes)), sol._units(points))
    return (
        f"; the largest one-shot gain, {gain:.3g}, is at the stage game with hands "
        f"{_cards(hands)}, prizes {{{','.join(map(str, prizes))}}}, upcard {upcard}"
        + (f", points {', '.join(map(str, points))}" if sol.game.top else "")
        + f" (stored as hands {_cards(key[0])}, prizes {list(key[1])}, upcard {upcard})"
    )


def _cards(hands) -> str:
    """Three hands as "1,2 | 1,3 | 2,3"."""
    return " | ".join(",".join(map(str, h)) for h in hands)

"""Write the LP-duality certificate of an exact imperfect-information equilibrium.

The certificate (certificates/FORMAT.md, "Imperfect-information certificates") holds what
the independent checker ``python -m certificates FILE`` needs to prove the value of
OpenSpiel's ``goofspiel(imp_info=True)`` without trusting this solver:

1. a header naming the game by OpenSpiel's parameters (``num_cards``, ``imp_info``,
   ``points_order``, ``returns_type``) and its value to player 0 (a Rational);
2. for each player, the exact realization plan of :func:`exact.imperfect.exact_lp.solve`
   (Koller, Megiddo & von Stengel 1996), as integer weights over one common denominator
   D: one record per information state, ``[string, actions, weights]``, keyed by
   OpenSpiel's turn-based information-state string and the action ids (card - 1);
3. a footer counting the records.

The checker rebuilds the sequence form from the rules, checks both plans are
realization plans and that both best-response values equal the stated value (zero
duality gap).  Nothing here depends on how the plans were found: any exact equilibrium
writes a valid certificate.

Invariant: a file at ``path`` is either absent or complete (written to ``path.tmp``,
fsynced, renamed: :func:`exact.atomic.atomic_file`).  Integers beyond 64 bits are
msgpack ``bin`` (two's complement, big-endian, minimal length): FORMAT.md's Integer, as
in every certificate of this project.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import msgpack

from exact.atomic import atomic_file, output_kind
from exact.errors import GopsInputError
from exact.imperfect.exact_lp import Equilibrium, solve
from exact.imperfect.game import ImperfectGame
from exact.imperfect.sequence_form import get_sequences

__all__ = [
    "CERTIFY_MAX_N",
    "FORMAT_VERSION",
    "MAGIC",
    "ImperfectCertificate",
    "certificate_objects",
    "certify",
    "write_certificate",
]

MAGIC = "GOPS-IMPERFECT-CERTIFICATE"
FORMAT_VERSION = 1

#: The largest N certified, by prize order: the exact sequence-form solve's reach
#: (:func:`exact.imperfect.exact_lp.solve`, its basis solved exactly by numeric lifting
#: beyond the dense solve; benchmarks/RESULTS.md, "Exact certificates at 6 cards fixed
#: and 5 random") and the checker's (certificates/imperfect/spec.py, MAX_N).
CERTIFY_MAX_N = {"descending": 6, "ascending": 6, "random": 5}
CERTIFY_BEYOND = {
    "descending": "N = 7 has 716,794 sequences per player, whose LP HiGHS does not solve "
    "here in 90 minutes",
    "ascending": "N = 7 has 716,794 sequences per player, whose LP HiGHS does not solve "
    "here in 90 minutes",
    "random": "N = 6 has 23,853,637 sequences per player and about 350 million payoff nonzeros",
}


@dataclass(frozen=True)
class ImperfectCertificate:
    """A written certificate: its game and value, its size, the plans' common
    denominators and the seconds of each step."""

    game: ImperfectGame
    path: Path
    value: Fraction
    decisions: tuple[int, int]
    denominators: tuple[int, int]
    bytes: int
    seconds: dict

    def to_json(self) -> dict:
        return {
            "certificate": str(self.path),
            "format": f"{MAGIC} version {FORMAT_VERSION} (certificates/FORMAT.md)",
            "n": self.game.n,
            "order": self.game.order.name,
            "objective": self.game.objective.name,
            "openspiel_game": self.game.openspiel_parameters(),
            "value": str(self.value),
            "units": "player 0's return in OpenSpiel's units",
            "information_states": list(self.decisions),
            "denominator_bits": [d.bit_length() for d in self.denominators],
            "bytes": self.bytes,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "check": f"python -m certificates {self.path}",
        }


def check_size(game: ImperfectGame) -> None:
    """A one-line GopsInputError for a game beyond the exact solve (:data:`CERTIFY_MAX_N`)."""
    order = game.order.name
    high = CERTIFY_MAX_N[order]
    if game.n > high:
        raise GopsInputError(
            f"N must be at most {high} for gops imperfect certify --order {order} "
            f"({CERTIFY_BEYOND[order]}), got {game.n}"
        )


_INT64 = 1 << 63


def pack_integer(a: int) -> int | bytes:
    """FORMAT.md's Integer: a msgpack int within int64, else minimal two's-complement bytes.

    >>> pack_integer(5), pack_integer(1 << 63)
    (5, b'\\x00\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x00')
    """
    if -_INT64 <= a < _INT64:
        return a
    return a.to_bytes((a if a >= 0 else ~a).bit_length() // 8 + 1, "big", signed=True)


def _rational(q: Fraction) -> list:
    return [pack_integer(q.numerator), pack_integer(q.denominator)]


def certificate_objects(equilibrium: Equilibrium) -> Iterator[dict | list]:
    """The certificate's msgpack objects in order (module docstring): header, then per
    player a section header and one record per information state, then the footer."""
    game = equilibrium.game
    params = game.openspiel_parameters()
    yield {
        "magic": MAGIC,
        "version": FORMAT_VERSION,
        "num_cards": params["num_cards"],
        "imp_info": True,
        "points_order": params["points_order"],
        "returns_type": params["returns_type"],
        "value": _rational(equilibrium.value),
    }
    total = 0
    for player in (0, 1):
        seqs = get_sequences(game, player)
        plan = equilibrium.plans[player]
        d = math.lcm(*(v.denominator for v in plan))
        yield {"player": player, "decisions": len(seqs.decisions), "denominator": pack_integer(d)}
        for k, decision in enumerate(seqs.decisions):
            first = seqs.first[k]
            weights = plan[first : first + len(decision.legal)]
            yield [
                decision.string,
                list(decision.legal),
                [pack_integer(w.numerator * (d // w.denominator)) for w in weights],
            ]
        total += len(seqs.decisions)
    yield {"end": True, "decisions": total}


def write_certificate(equilibrium: Equilibrium, path, seconds: dict | None = None):
    """Write ``equilibrium``'s certificate to ``path`` atomically; return its
    :class:`ImperfectCertificate`."""
    game = equilibrium.game
    start = time.perf_counter()
    packer = msgpack.Packer(use_bin_type=True)
    size = 0
    with atomic_file(path) as fh:
        for obj in certificate_objects(equilibrium):
            data = packer.pack(obj)
            fh.write(data)
            size += len(data)
    seconds = dict(seconds or {}, write=time.perf_counter() - start)
    counts = [len(get_sequences(game, p).decisions) for p in (0, 1)]
    dens = [math.lcm(*(v.denominator for v in plan)) for plan in equilibrium.plans]
    return ImperfectCertificate(
        game,
        Path(path),
        equilibrium.value,
        (counts[0], counts[1]),
        (dens[0], dens[1]),
        size,
        seconds,
    )


def certify(
    game: ImperfectGame, path, progress: Callable[[str], None] | None = None
) -> ImperfectCertificate:
    """Solve ``game`` exactly (:func:`exact.imperfect.exact_lp.solve`, which verifies
    the equilibrium itself) and write its certificate to ``path``.  ``progress`` is
    called with a line before each step.

    Refused before any work (one-line GopsInputError): a game beyond
    :data:`CERTIFY_MAX_N`, a game with another information model than OpenSpiel's
    imp_info, a path that is a folder or a FIFO."""
    check_size(game)
    if game != ImperfectGame.parse(game.n, game.order, game.objective):
        raise GopsInputError(
            "certificates are written for OpenSpiel's imp_info game only (nobody sees the "
            "opponent's bids)"
        )
    output_kind(path)
    say = progress or (lambda line: None)
    say(f"solving the sequence-form LP of {game.n}-card imperfect-information goofspiel")
    equilibrium = solve(game, say)
    say(
        f"solved and verified exactly in {sum(equilibrium.seconds.values()):.1f} s; "
        f"writing the certificate to {path}"
    )
    return write_certificate(equilibrium, path, dict(equilibrium.seconds))

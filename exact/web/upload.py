"""``POST /api/nashconv``: how good is my agent?  A policy file of imperfect-information
Goofspiel uploaded, read and judged as ``gops imperfect nashconv FILE --json`` judges it.

The body is the policy file itself (:mod:`exact.imperfect.policy_file`'s format:
{OpenSpiel information-state string: {action id: probability}}); the query names the game
(``n``, ``order``, ``objective``) and ``fill_uniform`` (bid uniformly where the file is
silent).  The answer is :meth:`exact.imperfect.nashconv.NashConv.to_json` (the float
NashConv with its proven error bound, each player's best-response value; Lanctot et al.
2017) plus ``exploitability`` (NashConv / 2) and the upload limit.

Bounds: a body beyond :data:`UPLOAD_MAX_BYTES` is refused (HTTP 413) before it is read
whole (its Content-Length, else as it streams in); the file is then read by the policy
file's own reader, with its limits (numbers, nesting, repeated keys), and N is at most
:data:`WEB_NASHCONV_MAX_N` of its order (the best-response tables of a larger game are
not for a shared server: ``gops imperfect nashconv`` takes them on).
"""

from __future__ import annotations

from exact.errors import GopsInputError

__all__ = ["UPLOAD_MAX_BYTES", "WEB_NASHCONV_MAX_N", "TooLarge", "policy_nash_conv", "read_body"]

#: The largest policy file the page uploads (64 MiB: a 5-card shuffled policy in floats
#: is about 43 MB).
UPLOAD_MAX_BYTES = 64 * 2**20
#: The largest N the server judges, by prize order.
WEB_NASHCONV_MAX_N = {"descending": 6, "ascending": 6, "random": 5}


class TooLarge(GopsInputError):
    """An upload beyond :data:`UPLOAD_MAX_BYTES` (HTTP 413)."""


def _too_large(size: str) -> TooLarge:
    return TooLarge(
        f"the policy file has {size} bytes, more than the {UPLOAD_MAX_BYTES:,} this server "
        "reads: judge it with gops imperfect nashconv FILE"
    )


async def read_body(request) -> bytes:
    """The request's body, at most :data:`UPLOAD_MAX_BYTES` (else TooLarge, at once
    where Content-Length says so)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > UPLOAD_MAX_BYTES:
        raise _too_large(f"{int(length):,}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > UPLOAD_MAX_BYTES:
            raise _too_large("more than " + f"{UPLOAD_MAX_BYTES:,}")
        chunks.append(chunk)
    if not size:
        raise GopsInputError("no policy file: POST its bytes as the request's body")
    return b"".join(chunks)


def policy_nash_conv(query, raw: bytes) -> dict:
    """The NashConv answer of the uploaded policy file ``raw`` in the query's game."""
    from exact.game.rules import parse_integer
    from exact.imperfect.game import ImperfectGame
    from exact.imperfect.nashconv import nash_conv
    from exact.imperfect.policy_file import parse_json, policy_from_json

    if query.get("n") is None:
        raise GopsInputError("missing query parameter 'n'")
    game = ImperfectGame.parse(
        parse_integer(query["n"], "n"),
        query.get("order", "random"),
        query.get("objective", "points"),
    )
    high = WEB_NASHCONV_MAX_N[game.order.name]
    if game.n > high:
        raise GopsInputError(
            f"N must be at most {high} here for the {game.order.name} order, got {game.n}: "
            "judge larger games with gops imperfect nashconv FILE"
        )
    fill = query.get("fill_uniform", "0").lower()
    if fill not in ("0", "1", "false", "true"):
        raise GopsInputError(f"fill_uniform must be 1 or 0 (true or false), got {fill!r}")
    data = parse_json(raw, "uploaded")
    policy = policy_from_json(game, data, fill in ("1", "true"), name="uploaded policy")
    result = nash_conv(game, policy, "float")
    return result.to_json() | {
        "exploitability": float(result.value) / 2,
        "exploitability_error_bound": result.error_bound / 2,
        "upload_max_bytes": UPLOAD_MAX_BYTES,
    }

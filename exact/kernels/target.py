"""One kernel body, compiled for each target: the CPU (``numba.njit``) and a CUDA GPU
(``numba.cuda.jit(device=True)``, in :mod:`exact.cuda`).

A *body* is a plain Python function written in the subset both targets compile: loops,
scalars and arrays it is given, ``math``/``np`` constants, ``np.float64`` of a bool, the
builtins ``min``, ``max`` and ``abs``.  What a target lacks (scratch on the stack, numpy
functions) stays in the caller, which passes the scratch in.  A body calls other bodies
by their module-level names; :func:`compile_bodies` compiles a list of them for one
target, callees first, each copy's globals rebound to the target's compiled callees and
to the target's helpers (what differs: where scratch lives, how a game is solved and
bounded), so that the same source runs on both and no second copy of it exists.

Invariant: a body is compiled once per target (``CPU_INLINE`` copies are not cached on
disk: they are inlined into their cached callers, whose cache files hold them), and the
CPU copy computes exactly what the body says, in the same order: the stored levels of
every store depend on those bits.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

import numba

__all__ = ["CPU_INLINE", "compile_bodies"]


def CPU_INLINE(body: Callable) -> Any:  # noqa: N802 - a decorator, named as a constant
    """The CPU compilation of a body: inlined into each caller (numba IR), no GIL."""
    return numba.njit(nogil=True, inline="always")(body)


def compile_bodies(
    jit: Callable[[Callable], Any], bodies: Iterable[Callable], helpers: dict | None = None
):
    """The bodies compiled by ``jit``, callees before their callers, as a namespace of
    their names; each copy reads the others' compiled versions under their names, and
    ``helpers`` (the target's own functions: its scratch, its solver) under theirs."""
    done: dict[str, Any] = dict(helpers or {})
    for body in bodies:
        scope = dict(body.__globals__)
        scope.update(done)
        copy = types.FunctionType(
            body.__code__, scope, body.__name__, body.__defaults__, body.__closure__
        )
        copy.__qualname__ = body.__qualname__
        copy.__doc__ = body.__doc__
        copy.__module__ = body.__module__
        done[body.__name__] = jit(copy)
    return types.SimpleNamespace(**{b: done[b] for b in done if b not in (helpers or {})})

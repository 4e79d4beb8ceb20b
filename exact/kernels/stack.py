"""Scratch arrays on the stack of a compiled function, and the compiler options of the
kernels that run once per matrix game.

``stack_vector(n)``, ``stack_indices(n)`` and ``stack_matrix(n, rows, cols)`` are numba
intrinsics: an ``alloca`` of ``n`` elements (a compile-time constant) in the entry block of
the calling function, wrapped as a C-contiguous array without a meminfo.  No heap, no
reference counting, valid until the caller returns, contents undefined.  Because such an
array aliases neither the arguments nor another stack array, LLVM vectorises loops over
it without run-time overlap checks.
"""

from __future__ import annotations

from typing import Any

import numba
from numba import types as _nbtypes
from numba.core import cgutils as _cgutils
from numba.core.errors import TypingError as _TypingError
from numba.extending import intrinsic as _intrinsic
from numba.np.arrayobj import make_array as _make_array
from numba.np.arrayobj import populate_array as _populate_array

__all__ = ["KMAX", "NO_REFCOUNT", "stack_indices", "stack_matrix", "stack_vector"]

#: Largest supported matrix-game size (the stack scratch of the solvers is sized for it).
KMAX = 16

# Extra compiler options of the matrix-game solver (all its helpers are inlined into it, so
# they apply to the whole solver), and of every compiled function called once per matrix game
# (exact.kernels.bounds, the level kernels' per-game helpers).  _nrt=False: no reference
# counting of the array arguments (nothing may be allocated; numba otherwise emits atomic
# incref/decref calls at every call: ~10% of the solver's time, and 2/3 of the cost of the
# bounds of the win objective before they were compiled so).  error_model="numpy": no
# zero-division checks (every divisor is provably non-zero, or a NaN is wanted).
NO_REFCOUNT: dict[str, Any] = {"error_model": "numpy"}
if hasattr(numba.core.options.DefaultOptions, "_nrt"):
    NO_REFCOUNT["_nrt"] = False


def _codegen(context, builder, size, shape, dtype=_nbtypes.float64):
    """``alloca`` of ``size`` elements of ``dtype`` (8 bytes: float64 or int64) in the
    entry block, wrapped as a C-contiguous array of ``shape`` (LLVM values) without a
    meminfo: no heap, no reference counting."""
    ptr = _cgutils.alloca_once(builder, context.get_value_type(dtype), size=size)
    ptr.align = 32
    intp = context.get_value_type(_nbtypes.intp)
    strides = [intp(8)]
    for extent in shape[:0:-1]:
        strides.insert(0, builder.mul(strides[0], extent))
    ary = _make_array(_nbtypes.Array(dtype, len(shape), "C"))(context, builder)
    _populate_array(
        ary, data=ptr, shape=list(shape), strides=strides, itemsize=intp(8), meminfo=None
    )
    return ary._getvalue()


@_intrinsic
def stack_vector(typingctx, n):
    """A float64 array of ``n`` elements (``n`` a compile-time constant) on the stack of
    the calling function: valid until that function returns, contents undefined."""
    if not isinstance(n, _nbtypes.IntegerLiteral):
        raise _TypingError("stack_vector: the size must be a compile-time constant")
    size = n.literal_value

    def codegen(context, builder, sig, args):
        return _codegen(context, builder, size, [context.get_value_type(_nbtypes.intp)(size)])

    return _nbtypes.Array(_nbtypes.float64, 1, "C")(n), codegen


@_intrinsic
def stack_indices(typingctx, n):
    """An int64 array of ``n`` elements (a compile-time constant) on the stack of the
    calling function, like :func:`stack_vector`."""
    if not isinstance(n, _nbtypes.IntegerLiteral):
        raise _TypingError("stack_indices: the size must be a compile-time constant")
    size = n.literal_value

    def codegen(context, builder, sig, args):
        return _codegen(
            context, builder, size, [context.get_value_type(_nbtypes.intp)(size)], _nbtypes.int64
        )

    return _nbtypes.Array(_nbtypes.int64, 1, "C")(n), codegen


@_intrinsic
def stack_matrix(typingctx, n, rows, cols):
    """A float64 C array of shape ``(rows, cols)`` on the stack of the calling function,
    in a buffer of ``n`` elements (a compile-time constant >= rows * cols, unchecked)."""
    if not isinstance(n, _nbtypes.IntegerLiteral):
        raise _TypingError("stack_matrix: the size must be a compile-time constant")
    size = n.literal_value

    def codegen(context, builder, sig, args):
        return _codegen(context, builder, size, [args[1], args[2]])

    return _nbtypes.Array(_nbtypes.float64, 2, "C")(n, rows, cols), codegen

"""Directed rounding on the device: the arithmetic of the certified bound of each game.

``add_rd(a, b) <= a + b <= add_ru(a, b)`` (exact sums), and alike ``mul_*`` and ``div_*``,
for every finite or infinite float64 (a NaN stays NaN).  On a GPU these are libdevice's
correctly rounded ``__nv_dadd_rd``/``_ru``, ``__nv_dmul_rd``/``_ru`` and
``__nv_ddiv_rd``/``_ru`` (NVIDIA, *libdevice User's Guide*), which numba-cuda exposes as
``numba.cuda.libdevice``.

Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, no GPU) libdevice's functions
are stubs that return nothing, so a simulator-only fallback is compiled instead: the
round-to-nearest result moved one unit in the last place outward with ``math.nextafter``.
The exact result lies within half a unit of the rounded one (IEEE 754, any finite
operands; an overflow to +-inf moves to the largest finite float on the inner side, which
still bounds the exact result), so the fallback is sound; it is at most one unit looser
than a true directed rounding, also where the result was exact.  Which one is compiled is
decided once, when this module is imported (``numba.config.ENABLE_CUDASIM``).
"""

from __future__ import annotations

import math
import warnings

from numba import config, cuda

#: Whether the kernels run under numba's CUDA simulator (set before numba.cuda is imported).
SIMULATED = bool(getattr(config, "ENABLE_CUDASIM", 0))

if SIMULATED:
    # The simulator runs the shared bodies as Python on numpy scalars, where the ratio
    # test's deliberate (>= 1) / +0 = inf (exact.kernels.tableau, compiled without a check
    # on either target) warns; only that module's division warning is silenced.
    warnings.filterwarnings(
        "ignore", "divide by zero", RuntimeWarning, module=r"exact\.kernels\.tableau"
    )

    @cuda.jit(device=True)
    def add_rd(a, b):
        """A lower bound of a + b (simulator: one unit outward)."""
        return math.nextafter(float(a) + float(b), -math.inf)

    @cuda.jit(device=True)
    def add_ru(a, b):
        """An upper bound of a + b (simulator: one unit outward)."""
        return math.nextafter(float(a) + float(b), math.inf)

    @cuda.jit(device=True)
    def mul_rd(a, b):
        """A lower bound of a * b (simulator: one unit outward)."""
        return math.nextafter(float(a) * float(b), -math.inf)

    @cuda.jit(device=True)
    def mul_ru(a, b):
        """An upper bound of a * b (simulator: one unit outward)."""
        return math.nextafter(float(a) * float(b), math.inf)

    @cuda.jit(device=True)
    def div_rd(a, b):
        """A lower bound of a / b, b != 0 (simulator: one unit outward)."""
        return math.nextafter(float(a) / float(b), -math.inf)

    @cuda.jit(device=True)
    def div_ru(a, b):
        """An upper bound of a / b, b != 0 (simulator: one unit outward)."""
        return math.nextafter(float(a) / float(b), math.inf)

else:  # pragma: no cover - needs a GPU: the simulator's libdevice functions are stubs
    # that return None.  On a GPU tests/test_cuda_sim.py checks these are correctly
    # rounded and within the fallback's one-unit-outward interval.
    from numba.cuda import libdevice

    @cuda.jit(device=True, inline=True)
    def add_rd(a, b):
        return libdevice.dadd_rd(a, b)

    @cuda.jit(device=True, inline=True)
    def add_ru(a, b):
        return libdevice.dadd_ru(a, b)

    @cuda.jit(device=True, inline=True)
    def mul_rd(a, b):
        return libdevice.dmul_rd(a, b)

    @cuda.jit(device=True, inline=True)
    def mul_ru(a, b):
        return libdevice.dmul_ru(a, b)

    @cuda.jit(device=True, inline=True)
    def div_rd(a, b):
        return libdevice.ddiv_rd(a, b)

    @cuda.jit(device=True, inline=True)
    def div_ru(a, b):
        return libdevice.ddiv_ru(a, b)

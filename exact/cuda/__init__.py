"""The level kernels of both objectives on a CUDA GPU, through numba's CUDA target.

- :mod:`exact.cuda.rounding`: directed rounding (libdevice on a GPU; a documented
  one-unit-outward fallback under numba's simulator).
- :mod:`exact.cuda.game`: one matrix game per thread, the simplex of
  :mod:`exact.kernels.matrix_game` ported, its certified bound in directed rounding.
- :mod:`exact.cuda.levels`: the points and win level kernels, one thread per item, every
  prize order.
- :mod:`exact.cuda.driver`: an objective whose chunks run on the device, for the level
  loop of :mod:`exact.dp.drivers` (``exact.solve(n, device="cuda")``).

Optional: numba's CUDA target (numba-cuda, the ``cuda`` extra) is imported only by these
modules, and only when a solve asks for the device.  Without a GPU the kernels run under
the simulator (``NUMBA_ENABLE_CUDASIM=1``, set before numba.cuda is first imported).
"""

"""numba kernels: the float matrix-game solver and the level kernels of each objective.

They know nothing of progress bars, files or the command line (ARCHITECTURE.md)."""

"""``python -m exact.cli``: the gops command line."""

from exact.cli import main

main()

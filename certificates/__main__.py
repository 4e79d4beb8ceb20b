"""``python -m certificates FILE [--quiet]`` (see :mod:`certificates.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

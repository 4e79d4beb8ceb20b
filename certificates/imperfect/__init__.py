"""The checker of imperfect-information certificates (FORMAT.md, "Imperfect-information
certificates"): exact equilibria of OpenSpiel's ``goofspiel(imp_info=True)``.

:mod:`.spec` (the format's constants), :mod:`.rules` (the game and its sequence form,
from the rules), :mod:`.verify` (reading the file; realization plans; LP duality).  Like
the rest of :mod:`certificates`, it imports nothing of the solver.
"""

from .spec import MAGIC
from .verify import ImperfectSummary, verify_imperfect_stream

__all__ = ["MAGIC", "ImperfectSummary", "verify_imperfect_stream"]

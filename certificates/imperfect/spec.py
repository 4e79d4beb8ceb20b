"""The constants of certificates/FORMAT.md, "Imperfect-information certificates".

Every number here is quoted from FORMAT.md; they bound what a hostile file can make the
checker do (the tree it walks, the integers it multiplies) and never reject an honest
certificate of a game the exact solver reaches.
"""

MAGIC = "GOPS-IMPERFECT-CERTIFICATE"
VERSION = 1

#: OpenSpiel's ``points_order`` and ``returns_type`` parameters of goofspiel.
ORDERS = ("random", "descending", "ascending")
RETURNS_TYPES = ("point_difference", "win_loss")

#: Header keys (OpenSpiel's parameter names for the game), section headers, footer.
HEADER_KEYS = frozenset(
    {"magic", "version", "num_cards", "imp_info", "points_order", "returns_type", "value"}
)
SECTION_KEYS = frozenset({"player", "decisions", "denominator"})
FOOTER_KEYS = frozenset({"end", "decisions"})

#: The largest N by prize order: the game tree the checker walks has (N!)^2 terminal
#: histories in a fixed order (518,400 at N = 6) and N! times as many in the random
#: order (1,728,000 at N = 5).
MAX_N = {"random": 5, "descending": 6, "ascending": 6}

#: Every Integer (a plan's numerators and denominator, the value's numerator and
#: denominator) has at most this many bits; honest certificates need at most 1,706 (N = 6
#: ascending, point_difference).
MAX_INTEGER_BITS = 1 << 16

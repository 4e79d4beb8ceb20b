"""Imperfect-information Goofspiel (OpenSpiel's ``goofspiel(imp_info=True)``): the game
as a walkable tree (:mod:`exact.imperfect.game`) and the exact NashConv of any policy
(:mod:`exact.imperfect.nashconv`).  A sibling of the perfect-information solver: it shares
the rules, orders and objectives of :mod:`exact.game`, not the canonical encoding."""

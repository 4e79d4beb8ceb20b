"""The dynamic programme over levels of canonical subgames (Rhoads & Bartholdi 2012, sec 3):
the objectives, the float and rational drivers, exact matrix games, the on-disk store."""

"""Questions about a solution: the audit, optimal-set ranges, exact evaluation of bots,
the win-maximising best response to the points equilibrium."""

"""Playing the game: bots, tournaments, OpenSpiel interoperability."""

"""``gops serve``: a local web page to explore the solution and play against it."""

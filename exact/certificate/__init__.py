"""LP-duality certificates of exact solutions: the writer, and a reader for the audit.

The independent checker is the separate package ``certificates``."""

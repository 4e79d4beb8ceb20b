"""The rules of GOPS and its variants, and the canonical encoding of its subgames."""

"""How messages show what a file holds: short, and cheap to compute.

A hostile file may hold a 64 MiB string of bytes where a number or a word belongs; a
message must not spend seconds or megabytes showing it.  :func:`brief` shows an object
read from the file by its type and size unless it is short.
"""

from __future__ import annotations

#: The longest text of a string or a bin shown in full in a message.
BRIEF_CHARS = 40


def brief(obj) -> str:
    """A short text of a msgpack object for messages: short values in full, long ones
    by their type and size, containers by their type and length.

    >>> brief("n"), brief(b"\\x01\\x02"), brief(2**63 - 1)
    ("'n'", "b'\\\\x01\\\\x02'", '9223372036854775807')
    >>> brief("x" * 1000), brief(b"\\x00" * 1000), brief([1, 2, 3])
    ('a string of 1000 characters', 'a bin of 1000 bytes', 'an array of 3 entries')
    """
    if type(obj) in (str, bytes) and len(obj) > BRIEF_CHARS:
        return (f"a string of {len(obj)} characters" if type(obj) is str
                else f"a bin of {len(obj)} bytes")
    if type(obj) is list:
        return f"an array of {len(obj)} entries"
    if type(obj) is dict:
        return f"a map of {len(obj)} entries"
    return repr(obj)  # short str or bytes, a msgpack int (at most 20 digits), bool, None, float

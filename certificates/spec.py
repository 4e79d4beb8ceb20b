"""The constants of certificates/FORMAT.md, version 1, in one place.

Every number here is quoted from FORMAT.md ("Limits") except the stream settings marked
*checker*, which only bound the checker's own memory and never reject an honest
certificate.
"""

MAGIC = "GOPS-CERTIFICATE"
VERSION = 1
RULES = "gops-2p-ties-discarded-random-prizes"
OBJECTIVE = "points"
#: The objectives a version-1 file may declare (FORMAT.md, header; "Win records").
OBJECTIVES = ("points", "win")

#: Header keys, FORMAT.md "Objects, in order", 1 and 3.
HEADER_KEYS = frozenset({"magic", "version", "rules", "objective", "n", "root"})
LEVEL_KEYS = frozenset({"level", "records"})
FOOTER_KEYS = frozenset({"end", "records", "root_value"})

#: N <= 16 (FORMAT.md, header and limits).
MAX_N = 16
#: An Integer of at most 64 MiB of bytes.
MAX_INTEGER_BYTES = 64 << 20
#: Arrays of at most 64 entries; maps of at most 16 entries.
MAX_ARRAY_LEN = 64
MAX_MAP_LEN = 16
#: Strings: the longest the format uses is RULES (36 characters).
MAX_STR_LEN = 256
#: The longest integer the checker computes, in bits (256 MiB: four Integers of the
#: largest size); a certificate whose checks need a longer one is refused (exit 2).
#: Honest certificates need far less: 2^23.4 bits at most for N = 7.
MAX_PRODUCT_BITS = 1 << 31

#: A msgpack int must be a signed 64-bit integer (FORMAT.md, "Integer").
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

#: *checker*: bytes read from the file at a time, and the largest unparsed tail the
#: msgpack reader may hold (one Integer plus its header plus one read).
READ_SIZE = 1 << 20
MAX_BUFFER_SIZE = MAX_INTEGER_BYTES + 2 * READ_SIZE
#: *checker*: arrays and maps in one top-level object.  An honest record of N cards has
#: 3 + 6N <= 99 arrays; the budget bounds what a deeply nested hostile object can build
#: before it is rejected.
MAX_CONTAINERS_PER_OBJECT = 1024

#: Exit codes (FORMAT.md, "Exit codes of the checker").
EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_UNREADABLE = 2

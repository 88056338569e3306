"""What SQLite itself allocates, which tracemalloc does not see (SQLite has its own malloc
calls): its page caches, sorters, temporary tables.

The counters (``sqlite3_memory_used``, ``sqlite3_memory_highwater``) are
looked up through Python's own ``_sqlite3`` module, so they are those of the
very library it uses (linked in or shared), and they cover every connection
of the process, the stores under test included.
"""

from __future__ import annotations

import _sqlite3
import ctypes
from collections.abc import Iterator
from contextlib import contextmanager

_SQLITE = ctypes.CDLL(_sqlite3.__file__)
_SQLITE.sqlite3_memory_used.restype = ctypes.c_int64
_SQLITE.sqlite3_memory_highwater.restype = ctypes.c_int64
_SQLITE.sqlite3_memory_highwater.argtypes = [ctypes.c_int]


class Peak:
    """The most SQLite held at once meanwhile, above what it held at the start (bytes)."""

    bytes = 0


@contextmanager
def sqlite_peak() -> Iterator[Peak]:
    """Measure SQLite's peak over the block."""
    peak = Peak()
    _SQLITE.sqlite3_memory_highwater(1)  # from here on
    before = _SQLITE.sqlite3_memory_used()
    try:
        yield peak
    finally:
        peak.bytes = _SQLITE.sqlite3_memory_highwater(0) - before

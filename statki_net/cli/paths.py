"""A file's path as statki writes it down for a file or a tool (``written``).

A path comes from the system as ``str``, but it is bytes: a name that is no
UTF-8 (``bad\\xff.statki``) arrives with each byte that does not decode as a
lone surrogate (Python's ``surrogateescape``), which no UTF-8 file or stream can
hold (``write_csv`` died of it half way through ``--save``) and which strict
JSON readers refuse.
"""

from __future__ import annotations

import sys


def written(path: str) -> str:
    """``path`` as text any UTF-8 file can hold: each byte of the name that does not decode
    written as a backslash escape (``\\xff``), every other character as it is (a control
    character too: JSON and CSV quote it, and a tool is given the name exactly)."""
    encoding = sys.getfilesystemencoding()
    try:
        raw = path.encode(encoding, "surrogateescape")
    except UnicodeEncodeError:  # a surrogate the system cannot have given: not bytes of a name
        return path.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode(encoding, "backslashreplace")

"""A file's path as statki writes it down: for a file or a tool (``written``), and for a
person's screen (``shown``), the one place each is decided.

A path comes from the system as ``str``, but it is bytes: a name that is no
UTF-8 (``bad\\xff.statki``) arrives with each byte that does not decode as a
lone surrogate (Python's ``surrogateescape``), which no UTF-8 file or stream can
hold (``write_csv`` died of it half way through ``--save``) and which strict
JSON readers refuse.  And a name may hold any character but ``/`` and NUL: an
escape sequence, a carriage return, a newline, which a terminal would act on (a
name that clears the screen, or one that begins a line "standing: valid").
"""

from __future__ import annotations

import sys

from statki_net.game.words import printable


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


def shown(path: str) -> str:
    """``path`` as a person reads it: ``written``, and each control character (an escape,
    a newline) replaced as ``printable`` replaces one in a peer's name, so that a file's
    name can neither redraw the terminal nor make a line of the report that is not one.

    Not for ``--json``: a tool is given the name as it is (``written``), where JSON's own
    escapes (``\\u001b``) keep it from a terminal, and a name cleaned here could name
    another file or none."""
    return printable(written(path))

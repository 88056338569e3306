"""What the system refused (a file, a folder, SQLite), said in a person's language.

An ``OSError`` or ``sqlite3.Error`` reaching a person would read ``[Errno 13]
Permission denied: '/x'`` or ``database is locked``, in English whatever the language.
Here, the one place for it, it becomes a phrase that names what statki was doing,
in the reader's words, with the system's own text kept as it is (``as_is``: no
catalog holds the C library's or SQLite's messages).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from statki_net.game.errors import StatkiError
from statki_net.game.words import N_, Phrase, Term, as_is, phrase


class SystemRefused(StatkiError):
    """The system refused what statki was doing; said as ``failed`` says it."""


def system_words(error: Exception) -> Phrase:
    """The system's own text for ``error`` (with the file it names), as it is; any other
    failure (a bug) by its type as well, which is all that tells it apart."""
    if isinstance(error, OSError):
        text = error.strerror or str(error) or type(error).__name__
        return as_is(text if error.filename is None else f"{text}: {error.filename}")
    if isinstance(error, sqlite3.Error):
        return as_is(str(error) or type(error).__name__)
    return as_is(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)


def failed(doing: str, error: Exception) -> Phrase:
    """``doing`` (a word of the catalog: ``N_("writing the game's log")``) that the system
    (or a bug) refused, and its own words why."""
    return phrase(N_("{doing} failed: {detail}"), doing=Term(doing), detail=system_words(error))


@contextmanager
def refused_as(doing: str) -> Iterator[None]:
    """Turn the system's failures inside into ``SystemRefused`` saying ``doing``."""
    try:
        yield
    except (OSError, sqlite3.Error) as error:
        raise SystemRefused(failed(doing, error)) from error

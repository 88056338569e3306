"""The words a person reads, in the language the shell chose: a translation passed in.

The pure layers put rules, verdicts and endings into words through a ``Words``
given by their caller (``statki_net.store.language`` loads the catalogs from
the package); ``ENGLISH``, the messages as written, is the default, so every
machine-readable output (``--json``, logs, the wire) stays English.
"""

from __future__ import annotations

from gettext import NullTranslations
from typing import Protocol


class Words(Protocol):
    """What the core needs of a ``gettext`` translation."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...


ENGLISH: Words = NullTranslations()
"""The messages as written in the code: English."""


def N_(message: str) -> str:  # the name gettext tools look for
    """Marks ``message`` for the catalog where it is defined (a table, a constant); it is
    translated where it is shown, by ``words.gettext(message)``."""
    return message

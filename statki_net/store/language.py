"""The language statki speaks to a person: chosen once at an entry point, read by the shells.

``statki`` and the full-screen client speak Polish or English: ``--lang pl|en``
when given, else the locale as gettext reads it (the first of ``LC_ALL``,
``LC_MESSAGES`` and ``LANG`` that is set), English when it is neither.  The
catalogs are the package's ``locale/<lang>/LC_MESSAGES/statki.mo`` (compiled
from the ``.po`` beside it; README, "Languages", says how to add a string).

The entry point calls ``speak``; the shells (client, command line, net
notices) translate with ``_`` and ``ngettext`` here, which read the language
spoken now; the pure layers are handed ``words()``.  Machine-readable outputs
never go through it.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from pathlib import Path

from statki_net.game.english import ENGLISH

# Not ``typing.TYPE_CHECKING``, nor the words' module (its dataclasses): ``statki --help``
# loads this one and needs neither (mypy takes any name ``TYPE_CHECKING`` as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from statki_net.game.words import Words

LANGUAGES = ("en", "pl")
"""The languages statki speaks; the first is the one spoken when the locale is neither."""

DOMAIN = "statki"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Read in this order, as gettext does: the first that is set decides."""


def from_locale(environ: Mapping[str, str]) -> str:
    """The language the locale in ``environ`` asks for (``pl_PL.UTF-8`` is ``pl``)."""
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable)
        if value:
            language = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return language if language in LANGUAGES else LANGUAGES[0]
    return LANGUAGES[0]


def catalog(language: str) -> Words:
    """The translation into ``language``; the messages as written for English."""
    if language == "en":
        return ENGLISH
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])


_spoken: list[Words] = [ENGLISH]
"""The language spoken now: one place, set by ``speak``."""


_spoken_name: list[str] = [LANGUAGES[0]]
"""Its name (``pl``): what an HTML page's ``lang`` says."""


def speak(language: str) -> None:
    """From now on, speak ``language`` (one of ``LANGUAGES``)."""
    _spoken[0] = catalog(language)
    _spoken_name[0] = language


def spoken() -> str:
    """The name of the language spoken now (``en``, ``pl``)."""
    return _spoken_name[0]


def words() -> Words:
    """The language spoken now, for the pure layers' functions that take one."""
    return _spoken[0]


def _(message: str) -> str:
    """``message`` in the language spoken now."""
    return _spoken[0].gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for ``n`` (Polish has three: 1 statek, 2 statki, 5 statków)."""
    return _spoken[0].ngettext(singular, plural, n)

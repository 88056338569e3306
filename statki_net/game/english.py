"""``ENGLISH``, the messages as written in the code (the words every layer speaks unless
handed others: ``statki_net.game.words`` says how), and ``N_``, which marks them.

A module of its own, with no dataclass and no ``typing``, so that a command line
that only prints its help (``statki --help``) need not load them to have a
language to speak (bench/startup.py measures it).
"""

from __future__ import annotations

from gettext import NullTranslations

ENGLISH = NullTranslations()
"""The messages as written in the code: English."""


def N_(message: str) -> str:  # the name gettext tools look for
    """Marks ``message`` for the catalog where it is defined (a table, a constant); it is
    translated where it is shown, by ``words.gettext(message)``."""
    return message

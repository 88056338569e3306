"""The player's name, asked for once and kept in the home beside the key.

It is what opponents see and what logs record, so it is never guessed from
the account (``root`` is nobody's name): a player who never gave one plays
without a name, and screens call them "the host" or "the guest".
"""

from __future__ import annotations

import os
from pathlib import Path

from statki_net.game.english import N_
from statki_net.store.failures import refused_as
from statki_net.store.home import refuse_link

NAME_FILE = "name.txt"
MAX_NAME = 40
"""The longest name kept: it has to fit in a title bar beside the opponent's."""
NAME_QUESTION_DEFAULT = ""
"""The name of a player who was not asked (a script, the computer): none."""


def kept_name(home: Path) -> str | None:
    """The name kept in ``home``; None when none was ever given."""
    path = home / NAME_FILE
    if not path.is_file():
        return None
    return clean_name(path.read_text(encoding="utf-8", errors="replace"))


def keep_name(home: Path, name: str) -> str:
    """Keep ``name`` (cleaned) in ``home`` for the next games; returns it as kept."""
    name = clean_name(name)
    path = refuse_link(home / NAME_FILE)
    with refused_as(N_("keeping the player's name")):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(name + "\n")
    return name


def clean_name(text: str) -> str:
    """One line of printable characters, spaces run together, at most ``MAX_NAME``."""
    printable = "".join(char if char.isprintable() else " " for char in text)
    return " ".join(printable.split())[:MAX_NAME]

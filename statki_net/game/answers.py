"""The words the line prompt takes, in both languages: answers and commands.

A player's answer is read the same whichever language the prompt speaks: a
Polish player at an English prompt still types "tak".  Anything else is no
answer at all, and the question is asked again: a typo is not a "no" that
resigns a game or declines its rules.  Commands are read the same way: the
English word, the Polish one (with or without its diagonal letters: not every
keyboard types "ż"), or the one letter the prompt shows.
"""

from __future__ import annotations

from enum import Enum

YES = frozenset({"y", "yes", "t", "tak"})
NO = frozenset({"n", "no", "nie"})


def yes_or_no(answer: str) -> bool | None:
    """True for a yes, False for a no, None for anything that is neither."""
    word = answer.strip().lower()
    if word in YES:
        return True
    if word in NO:
        return False
    return None


class Command(Enum):
    """A command typed at a line prompt (``statki play --plain``, ``host``/``join --plain``)."""

    START = "start"
    NEW = "new"
    DECLINE = "decline"
    QUIT = "quit"
    HELP = "help"
    HISTORY = "history"
    REMATCH = "rematch"
    ANALYSE = "analyse"
    HINTS = "hints"
    RESIGN = "resign"
    SAY = "say"
    MUTE = "mute"
    UNMUTE = "unmute"


TYPED: dict[Command, frozenset[str]] = {
    Command.START: frozenset({"", "ok", "start", "y", "yes", "t", "tak", "gotowe"}),
    Command.NEW: frozenset({"n", "new", "nowa", "nowy"}),
    Command.DECLINE: frozenset({"d", "decline", "odmów", "odmow", "odmowa"}),
    Command.QUIT: frozenset({"q", "quit", "exit", "wyjdź", "wyjdz", "koniec"}),
    Command.HELP: frozenset({"?", "help", "pomoc"}),
    Command.HISTORY: frozenset({"p", "history", "historia", "gry"}),
    Command.REMATCH: frozenset({"r", "rematch", "rewanż", "rewanz"}),
    Command.ANALYSE: frozenset({"a", "analyse", "analyze", "analiza", "analizuj"}),
    Command.HINTS: frozenset({"s", "hints", "podpowiedzi", "podpowiedź", "podpowiedz"}),
    # Quitting a battle resigns it, in either language, as "q" does on the full screen.
    Command.RESIGN: frozenset({"resign", "quit", "poddaj", "poddaję", "poddaje", "wyjdź", "wyjdz"}),
    Command.SAY: frozenset({"say", "powiedz"}),
    Command.MUTE: frozenset({"mute", "wycisz"}),
    Command.UNMUTE: frozenset({"unmute", "odcisz"}),
}
"""Every word each command is typed as; none of them is a square (``A1`` ... ``J10``)."""


def typed_as(word: str, command: Command) -> bool:
    """Whether ``word`` (as typed: any case, spaces around it) is ``command``."""
    return word.strip().lower() in TYPED[command]

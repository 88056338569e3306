"""How a game ended: one type for every part of statki that needs to say it.

The transcript decides the ending from the signed messages alone; the session,
the connection, local games, the daemon, the history, self-play, the referee
and the command line's exit codes all take it from there as an ``Ending``, and
turn it into words or numbers only at their edge.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from statki_net.protocol.wire import Role


class End(enum.StrEnum):
    """How a game ended (SPEC.md, "Endings")."""

    SUNK = "sunk"
    """The last ship of one side sank."""
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    """A side claimed the game on time."""
    CHEATED = "cheated"
    """A finding proves a side lied, revealed falsely or placed an illegal fleet."""
    REFUSED = "refused"
    """The guest declined the rules."""
    ERROR = "error"
    """A side stopped the game with an error message."""
    CLOSED = "closed"
    """The connection ended before the game did; the log is unfinished."""


class Result(enum.StrEnum):
    """An ending as one side sees it."""

    WON = "won"
    LOST = "lost"
    NONE = "none"


@dataclass(frozen=True)
class Ending:
    """How one game ended: the end, the winner, who is to blame, and why."""

    end: End
    winner: Role | None = None
    culprit: Role | None = None
    """The side the ending blames (a cheat, a silence, a stop), if any."""
    reason: str = ""
    """Why, in one line a person reads."""

    def result(self, me: Role) -> Result:
        if self.winner is None:
            return Result.NONE
        return Result.WON if self.winner is me else Result.LOST

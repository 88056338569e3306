"""Admission: whether a new connection is a guest, and which pending game it takes.

A connection comes in; ``Admission.admit`` says either ``Admitted`` (to a
named pending game, which is no longer pending) or ``TurnedAway`` (with the
reason, the connection closed).  ``statki host`` offers its one game here and
the daemon each game a front end hosts (and, with ``--bot``, makes one on
demand), so both turn away the same connections.

The host speaks first, so a guest says nothing until it has the host's hello
(SPEC.md, section 3).  A connection that closes at once (a port scan) or
speaks first (a web browser, a TLS probe) is therefore no guest, and must not
take the game: a connection counts only once it has stayed open and silent
for ``GUEST_QUIET_SECONDS``.  Checking who the guest is (a key, a token from
the invite) belongs here too, before a game is handed over.
"""

from __future__ import annotations

import asyncio
import enum
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

GUEST_QUIET_SECONDS = 0.3
"""How long a new connection must stay open and silent to be taken for a guest."""

GameT = TypeVar("GameT")


class Refusal(enum.StrEnum):
    """Why a connection was turned away."""

    CLOSED = "closed"
    """It closed before the host could speak: a port scan, most likely."""
    SPOKE_FIRST = "spoke-first"
    """It spoke before the host: a client of another protocol."""
    NO_GAME = "no-game"
    """No game is waiting for a guest."""


@dataclass(frozen=True)
class Admitted(Generic[GameT]):
    """A guest, and the pending game it takes."""

    name: str
    game: GameT
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


@dataclass(frozen=True)
class TurnedAway:
    """A connection that is not a guest of any game here; it is closed."""

    reason: Refusal


class Admission(Generic[GameT]):
    """Pending games by name, oldest first; see the module docstring."""

    def __init__(
        self,
        *,
        on_demand: Callable[[], tuple[str, GameT] | None] | None = None,
        quiet_seconds: float = GUEST_QUIET_SECONDS,
    ) -> None:
        self.on_demand = on_demand
        self.quiet_seconds = quiet_seconds
        self._pending: OrderedDict[str, GameT] = OrderedDict()

    def offer(self, name: str, game: GameT) -> None:
        """``game`` waits for a guest under ``name`` (after those offered before it)."""
        self._pending[name] = game

    def withdraw(self, name: str) -> GameT | None:
        """The game no longer waits; it, or None if it was not pending."""
        return self._pending.pop(name, None)

    @property
    def pending(self) -> list[str]:
        return list(self._pending)

    async def admit(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Admitted[GameT] | TurnedAway:
        """Admit a new connection to the oldest pending game, or turn it away (and close it)."""
        refusal = await self._screen(reader)
        if refusal is None:
            taken = self._take()
            if taken is not None:
                name, game = taken
                return Admitted(name, game, reader, writer)
            refusal = Refusal.NO_GAME
        writer.close()
        return TurnedAway(refusal)

    async def _screen(self, reader: asyncio.StreamReader) -> Refusal | None:
        """None when the connection behaves as a guest waiting for the host's hello."""
        data = b""
        try:
            async with asyncio.timeout(self.quiet_seconds):
                data = await reader.read(1)
        except TimeoutError:
            return None  # open and quiet, as a guest waiting for the hello is
        except (ConnectionError, OSError):
            pass
        return Refusal.SPOKE_FIRST if data else Refusal.CLOSED

    def _take(self) -> tuple[str, GameT] | None:
        if self._pending:
            return self._pending.popitem(last=False)
        if self.on_demand is not None:
            return self.on_demand()
        return None

"""The kinds of values the client's state is made of: plain data and the ``Link``.

Nothing here acts: the stages and overlays of the screen, one volley and the
end of a game as the screen tells them, and what the model asks of the link
that carries its session's messages.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from statki_net.game.battle import Answer
from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset
from statki_net.net.notices import Closed, Lost, Reconnected, Reconnecting
from statki_net.protocol.endings import Ending, Result
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Event
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits
from statki_net.store.history import GameRow, Tally
from statki_net.store.language import _, ngettext, words


@dataclass(frozen=True)
class GuestAtTheDoor:
    """Connections wait for the host's hello (its guest, most likely): the hello, which
    carries the rules, goes out once the host's fleet is committed."""

    connections: int


Told = Event | Lost | Reconnecting | Reconnected | Closed | GuestAtTheDoor
"""What the model is told: the session's own events; over a network, that the
connection is lost (the session plays on alone, SPEC.md section 12); and at the
very end how the referee judges this side's log (``Closed``); a host, that a
guest waits for its rules (``GuestAtTheDoor``)."""


class Link(Protocol):
    """What the model needs from whatever carries its session's messages.

    Every action returns at once; the events it causes (at once in memory,
    later over a network) arrive through the listener given to ``listen``.
    """

    @property
    def session(self) -> Session: ...

    @property
    def log_path(self) -> Path | None: ...

    @property
    def timed(self) -> bool:
        """Whether a move has a time limit: over a network; not against the computer here."""

    @property
    def person(self) -> bool:
        """Whether a person is at the other end to read talk: over a network; not the
        computer here (the key bar and the help offer t and m only then)."""

    def listen(self, listener: Callable[[Sequence[Told]], None]) -> None: ...

    def begin(self, fleet: Fleet) -> None:
        """Commit to ``fleet``: the host opens the game, the guest accepts the rules."""

    def decline(self, reason: str) -> None: ...

    def shoot(self, squares: tuple[int, ...]) -> None: ...

    def resign(self) -> None: ...

    def leave(self) -> None:
        """The player leaves before the battle: the game ends now, as SPEC.md says (no game
        before the guest's accept, this side's forfeit after it), not on the opponent's
        time claim; nothing to do where no opponent waits."""

    def say(self, text: str) -> None:
        """Say a line to the opponent, outside the game; raises ``UsageError`` when it
        cannot be said (a bound, or nobody to hear it)."""

    @property
    def can_rematch(self) -> bool:
        """Whether ``rematch`` may give a new game with this opponent once this one is over."""

    def rematch(self) -> Link | None:
        """A new game with the same opponent in which the other side starts, if possible."""

    def propose(self, rules: Ruleset) -> None:
        """The host proposes ``rules`` instead: only before ``begin``; ``session`` may change."""

    def propose_limits(self, limits: Limits) -> None:
        """The host proposes these time limits instead: only before ``begin``, as ``propose``."""


class Stage(enum.StrEnum):
    CONNECTING = "connecting"
    """Waiting for the opponent, or for the host's rules."""
    RULES = "rules"
    """The host picks the rules from the presets (before the battle, revisited with R)."""
    PLACING = "placing"
    WAITING = "waiting"
    """The fleet is committed; the opponent is placing theirs or the coin is being tossed."""
    BATTLE = "battle"
    FINISHING = "finishing"
    """The battle is decided; the fleets are being revealed and checked."""
    OVER = "over"


class Overlay(enum.StrEnum):
    HELP = "help"
    HISTORY = "history"
    QUIT = "quit"
    ANALYSIS = "analysis"
    PICK = "pick"
    """The unfinished games to pick one up from (``statki_client.pickup``)."""


@dataclass(frozen=True)
class Volley:
    """One volley as the screen tells it."""

    mine: bool
    squares: tuple[int, ...]
    answer: Answer

    def words(self, size: int) -> str:
        """``B4: hit`` for one shot; a salvo compactly, each square with its glyph."""
        names = [square_name(s, size) for s in self.squares]
        if len(names) == 1 or not self.answer.outcomes:
            return f"{' '.join(names)}: {self.answer.words(words())}"
        glyphs = {"miss": "o", "hit": "x", "sunk": "@"}
        shots = " ".join(
            name + glyphs[outcome.value]
            for name, outcome in zip(names, self.answer.outcomes, strict=True)
        )
        hits = ngettext("{n} hit", "{n} hits", self.answer.hits).format(n=self.answer.hits)
        return _("{hits}, {sunk} sunk: {shots}").format(
            hits=hits, sunk=self.answer.sunk, shots=shots
        )


@dataclass(frozen=True)
class EndScreen:
    """What the end screen shows: how the game ended, as this side sees it, in words."""

    ending: Ending
    """How the game ended; ``End.NO_GAME`` when it stopped before its transcript could end."""
    result: Result
    """The ending for this side: won, lost, or nobody won."""
    verdict: str
    """Who won and how, in one line."""
    findings: tuple[str, ...]
    """Cheating found, one line each (empty for an honest game)."""
    my_fleet: Fleet | None
    their_fleet: Fleet | None
    """The opponent's revealed fleet; None when it was never revealed."""
    my_shots: int
    their_shots: int
    log_path: Path | None
    why_unfinished: str = ""
    """Why the game stopped before its end, in words; empty when it was played out."""
    unfinished: bool = False
    """The battle began and stopped before its end (a lost connection, a daemon gone): the
    game is not over, and ``statki resume`` picks it up."""
    referee: str = ""
    """The referee's line on this side's log (the result and the standing), once judged."""


HistorySource = Callable[[], tuple[list[GameRow], list[Tally]]]

ABSENT = Code.ABSENT
"""The code of a failure where the opponent never came (back): its detail is the words."""

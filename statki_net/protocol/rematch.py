"""The terms of a rematch: whether a game can have one, and who starts it.

A rematch is a new game on a new connection with the same opponent (the
protocol has no rematch message): the host keeps its rules and its hello
proposes that the side that did not shoot first now does.  Every front end
and the daemon take those terms from here, so they agree whichever of them
plays either side.
"""

from __future__ import annotations

from dataclasses import dataclass

from statki_net.game.words import N_, Phrase, phrase
from statki_net.protocol.session import Session
from statki_net.protocol.wire import REMATCH_SECRET, Admit, Limits, Role, rematch_secret


@dataclass(frozen=True)
class Rematch:
    """What the next game with the same opponent takes from the game just played."""

    opponent: str
    """The opponent's name, as its hello gave it (for the words of one who never came)."""
    opponent_key: bytes
    """The opponent's key, as its hello gave it: a rematch is with that player only, not
    whoever else holds the invite (or, for a game open to anyone, comes first)."""
    first: Role | None
    """Who shoots first: the side that did not shoot first; None (the coin) when the battle
    never began."""
    limits: Limits
    """The game's agreed limits: a host waits for its guest at most a move of them."""
    drawn_from: bytes | None = None
    """The id of the game just played, where both its hellos list ``REMATCH_SECRET``: the
    rematch admits by a secret drawn from it and the invite's (``admitting``); None where
    one does not: the rematch admits by the invite's secret itself."""

    def admitting(self, invite: bytes | None) -> bytes | None:
        """The secret the rematch's guest proves and its hello's tag is of, given the
        invite's secret that the first game with this opponent admitted by (None: open to
        anyone).  Always the invite's, never a rematch's: a rematch of a rematch that lost
        the capability still admits by the invite's secret (SPEC.md, section 14)."""
        if self.drawn_from is None:
            return invite
        return rematch_secret(self.drawn_from, invite)


def rematch_of(session: Session) -> Rematch | None:
    """The terms of a rematch after ``session``'s game; None when there was no game to play
    again: the guest never accepted the rules.  It declined them, or one side left or was
    turned away before (a host the invite does not name included), so nothing was played.
    None too for a game not over (a battle stopped by a lost connection or a daemon gone):
    it is picked up again (``statki resume``), not played again."""
    transcript = session.transcript
    hello = transcript.sides[session.peer].hello
    if not transcript.accepted or not transcript.ended or hello is None:
        return None  # no game, or one not over: stopped mid-battle, it is resumed, not replayed
    first = transcript.first.other if transcript.first is not None else None
    return Rematch(hello.name, hello.key, first, transcript.limits, _secret(session))


def _secret(session: Session) -> bytes | None:
    """The game's id, where both sides know to draw the rematch's secret from it: a game
    open to anyone has no tag, and its rematch would have none to be told apart by from
    another open game on the same host."""
    sides = session.transcript.sides
    hellos = [sides[role].hello for role in Role]
    if all(hello is not None and REMATCH_SECRET in hello.caps for hello in hellos):
        return session.transcript.game
    return None


def next_session(session: Session) -> Session:
    """This side's session of the rematch: the host keeps its rules and proposes who starts
    (``rematch_of``); the guest waits for the host's hello, as before.  Where the rematch
    has a secret of its own, the host admits by it and the guest proves it."""
    terms = rematch_of(session)
    if session.role is not Role.HOST:
        fresh = session.anew(rules=None, first=None)
        if terms is not None:
            fresh.invite_secret = terms.admitting(session.invited_by)
        return fresh
    fresh = session.anew(rules=session.rules, first=terms.first if terms else None)
    if terms is not None and terms.drawn_from is not None:
        fresh.admit = Admit.INVITE
    return fresh


def who_starts(first: Role | None, me: Role, them: str) -> Phrase:
    """Who shoots first in a rematch, as this side (``me``) reads it: ``first`` as the
    terms (or the host's hello) say, ``them`` the opponent's name as it begins a sentence."""
    if first is None:
        return phrase(N_("a coin toss decides who starts"))
    if first is me:
        return phrase(N_("you start"))
    return phrase(N_("{Them} starts"), Them=them)

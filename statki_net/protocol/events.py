"""What a ``Session`` tells its caller: the events its calls return, one frozen value each.

Pure values, as h11's events are: the session decides, its caller (a
connection, a test, the conformance driver) acts on them.  ``Event`` is their
union; the talk events are ``statki_net.protocol.talk``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statki_net.game.battle import Answer
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, SILENCE, Phrase, Words, as_is, phrase
from statki_net.protocol.endings import Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.talk import TalkDropped, TalkHeard, TalkSaid
from statki_net.protocol.transcript import Finding
from statki_net.protocol.wire import Envelope, Error, Frame, Hello, Limits, Role

STOPPED = N_("statki was stopped before the game ended")
"""The detail of this side's ``error`` when its program stops mid-game (Ctrl-C, SIGTERM, a
front end gone): true as either side reads it ("this side stopped the game" told the other
side the opponent had stopped the game, "this side" being the other).  A peer's detail is
shown as it came, but this one, statki's own, in the reader's language."""


@dataclass(frozen=True)
class FrameAdded:
    """A frame joined the transcript: log it as a frame record."""

    frame: Frame
    outgoing: bool
    """This side's own: sent, or, once the connection is lost, written as if sent."""
    got: int | None = None
    """For the peer's frame, this side's clock when it joined the transcript."""


@dataclass(frozen=True)
class Evidence:
    """The peer's word that did not join the transcript: log it as an evidence record.

    A refused frame (``code`` is why; the session's ``error`` answering it
    follows), a frame that crossed this side's own (``bad-chain``), a second
    frame the peer signed for a place where its transcript already holds
    another of the peer's, with the same index and parent: its word given twice
    (``bad-chain``; a referee finds the equivocation, SPEC.md section 3, "Where
    a frame fits"), or a time claim too early by this side's clock
    (``out-of-turn``).  It comes before the frame that answers it, if any, so
    the log keeps that order.
    """

    frame: Envelope
    code: Code
    at: int
    """This side's clock when the frame came."""


@dataclass(frozen=True)
class PeerHello:
    """The other side introduced itself."""

    role: Role
    hello: Hello


@dataclass(frozen=True)
class RulesProposed:
    """The host proposes these rules: the guest must ``accept`` or ``refuse``."""

    rules: Ruleset
    limits: Limits
    first: Role | None = None
    """Who the host proposes shoots first; None leaves it to the coin toss."""


@dataclass(frozen=True)
class GameStarted:
    first: Role


@dataclass(frozen=True)
class YourTurn:
    shots: int
    """How many shots to fire in this volley."""


@dataclass(frozen=True)
class VolleyDone:
    shooter: Role
    move: int
    squares: tuple[int, ...]
    answer: Answer


@dataclass(frozen=True)
class BattleOver:
    """No more shots: the reveals and verdicts follow, which may still change the ending."""

    ending: Ending


@dataclass(frozen=True)
class ConnectionLost:
    """The connection is lost: close it.  The game goes on, this side alone (see the
    module docstring); ``GameClosed`` still comes at its end.

    ``code`` says why: ``lost`` when the transport closed or failed, otherwise the
    failure of a frame that was not the peer's word (``malformed``, ``too-large``,
    ``bad-chain``, ``bad-signature``, ``out-of-turn`` for one in this side's own
    name or a claim too early by this side's clock).  Such codes are never sent.
    """

    code: Code
    detail: str
    data: bytes = b""
    """The bytes that were nobody's word, when there were some (at most ``MAX_FRAME``):
    for a note in the log, never for a verdict."""


@dataclass(frozen=True)
class Resumed:
    """The game goes on over a new connection (``Session.resume``): the frames the peer
    lacked are on their way, and this side reads the peer's again."""

    have: int
    """How many messages the peer's transcript held."""
    sent: int
    """How many of this side's messages are sent again."""


@dataclass(frozen=True)
class Failed:
    """The game stopped on an error message; ``by_peer`` tells who sent it."""

    code: Code | None
    """Why; None when the peer sent a code this version does not know (see ``unknown_code``)."""
    detail: str
    by_peer: bool
    unknown_code: str = ""
    """The peer's code as it wrote it, when ``code`` is None: shown, never compared."""
    said: Phrase = field(default=SILENCE, compare=False)
    """``detail`` as a phrase, where this side said it (a refused host, an uninvited guest);
    silence for a peer's words, which are only its text."""

    def detail_in(self, words: Words) -> str:
        """The detail in ``words``' language where this side said it; a peer's as it came."""
        return self.said.in_words(words) if self.said else self.detail

    @classmethod
    def reported(cls, error: Error) -> Failed:
        """The peer's ``error`` message as this side's failure."""
        code = Code.received(error.code)
        return cls(code, error.detail, by_peer=True, unknown_code="" if code else error.code)

    @property
    def code_text(self) -> str:
        """The code as it is written in logs and notices."""
        return self.code.value if self.code is not None else self.unknown_code

    @property
    def turned_away(self) -> bool:
        """No game could begin with this host: it is not the one the invite names, it admits
        only the guest it invited and this side holds no invite, or it turned this guest
        away.  A player is told so in one line, nothing of a game."""
        if self.code is Code.NOT_INVITED:
            return self.by_peer
        return self.code in (Code.WRONG_KEY, Code.NO_INVITE)

    def plainly(self) -> Phrase:
        """This failure in the player's words, as every front end tells it: a code by what it
        means to the player where that is known, else the code and its detail."""
        detail = self.said if self.said else as_is(self.detail)
        by_peer = self.by_peer
        match self.code:
            case Code.LOST:
                return phrase(
                    N_("Connection lost: {detail}; the game goes on in your log"), detail=detail
                )
            case Code.CLOSED if by_peer:
                known = phrase(STOPPED) if self.detail == STOPPED else detail
                return phrase(N_("The opponent stopped the game: {detail}"), detail=known)
            case Code.CLOSED:
                return phrase(N_("You stopped the game: {detail}"), detail=detail)
            case Code.TIMEOUT:
                return phrase(N_("The opponent did not answer in time: the game ends here"))
            case Code.WRONG_KEY:
                return phrase(N_("Not the host your invite names: {detail}"), detail=detail)
            case Code.NO_INVITE:
                return detail
            case Code.NOT_INVITED if by_peer:
                return phrase(
                    N_("The host turned you away: check that you have the whole invite line")
                )
            case Code.INTERNAL if not by_peer:  # this side's own failure
                return phrase(N_("The game stopped on this side: {detail}"), detail=detail)
        who = N_("The opponent reported") if by_peer else N_("The opponent broke the protocol:")
        return phrase(
            N_("{who} {code_text}: {detail}"),
            who=phrase(who),
            code_text=self.code_text,
            detail=detail,
        )


@dataclass(frozen=True)
class GameClosed:
    """Nothing more will be said or written: the game is over for this side.

    Always the last event.  ``ending`` is how this side's log ends: the
    transcript's, or, when the game stopped before the transcript could end it
    (a host the invite did not name, a lost connection during the hellos, the
    peer's ``error`` that crossed this side's message), the ending that stop
    decides.
    """

    ending: Ending
    findings: tuple[Finding, ...]


Event = (
    FrameAdded
    | Evidence
    | PeerHello
    | RulesProposed
    | GameStarted
    | YourTurn
    | VolleyDone
    | BattleOver
    | ConnectionLost
    | Resumed
    | Failed
    | GameClosed
    | TalkHeard
    | TalkSaid
    | TalkDropped
)

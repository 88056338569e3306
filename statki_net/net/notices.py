"""What front ends are told of a game: one frozen dataclass per notice.

The connection driver turns the session's events into notices (``notice_of``)
and hands them to its listeners; the line prompt, the computer at the helm
and the daemon read them.  The daemon's control socket sends them as the maps
SPEC.md lists ("The control socket"), and ``statki_net.net.control`` converts
at that boundary only.  Boards drawn as text are no part of a notice: the front
ends that show text draw them (``statki_net.net.boards``).

A ``Failed`` notice is the session's own ``Failed`` event: one value for a
game that stopped early, wherever it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from statki_net.game.battle import Answer
from statki_net.game.board import square_name
from statki_net.game.rules import Ruleset, rules_label
from statki_net.game.rules_words import PresetMatch, match_presets
from statki_net.game.words import ENGLISH, N_, SILENCE, Phrase, Words, joined, listed, phrase
from statki_net.protocol.endings import End, Result, Standing, message_term
from statki_net.protocol.events import (
    BattleOver,
    Event,
    Failed,
    GameStarted,
    PeerHello,
    RulesProposed,
    VolleyDone,
    YourTurn,
)
from statki_net.protocol.phases import Claim
from statki_net.protocol.session import Session
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.verify import fingerprint


@dataclass(frozen=True)
class Hello:
    """The opponent introduced itself."""

    name: str
    key: str
    """The opponent's key as its fingerprint."""
    software: str
    address: str
    """Where it connects from (or where we connected to); empty when not known."""


@dataclass(frozen=True)
class Rules:
    """The host proposes these rules: the guest must accept or refuse."""

    rules: Ruleset
    limits: Limits
    first: Role | None
    """Who the host proposes shoots first; None leaves it to the coin toss."""
    due: Due | None = None
    """By when the guest must decide; None from a daemon that does not say."""

    @property
    def name(self) -> str:
        """The preset or combination of presets (``five-ships+salvo``), or ``custom rules``."""
        return rules_label(self.rules)

    @property
    def presets(self) -> PresetMatch:
        """How the rules depart from the nearest presets: what a guest is shown first."""
        return match_presets(self.rules)


@dataclass(frozen=True)
class Due:
    """When the move now to be made is due: what a front end counts down."""

    mine: bool
    """This side is to move (else its opponent)."""
    at: int
    """ms since 1970: the session's deadline (``Session.turn_clock``)."""


@dataclass(frozen=True)
class Started:
    """The coin is tossed: the battle begins."""

    first: Role
    you_first: bool
    game: str
    """The protocol's game id, in hex."""
    size: int
    due: Due | None = None
    """The first move's deadline; None untimed (or from a daemon that does not say)."""


@dataclass(frozen=True)
class Turn:
    """This side must fire ``shots`` squares."""

    shots: int
    due: Due | None = None
    """By when; None untimed (or from a daemon that does not say)."""


@dataclass(frozen=True)
class Volley:
    """A volley was fired and answered."""

    shooter: Role
    mine: bool
    move: int
    squares: tuple[str, ...]
    """The squares as people name them: ``C7``."""
    answer: Answer
    """The answer as given, put into words where it is shown (``words_in``)."""
    due: Due | None = None
    """The next move's deadline, whoever makes it (after the battle's last volley, the
    first reveal's); None from a daemon that does not say."""

    def words_in(self, words: Words) -> str:
        """The answer in ``words``' language: ``hit``, ``sunk: cruiser``, ``trafiony``."""
        return self.answer.words(words)


@dataclass(frozen=True)
class Over:
    """No more shots: the battle has a result (the reveals and verdicts follow)."""

    result: Result
    end: End


@dataclass(frozen=True)
class Lost:
    """The connection is lost: this side finishes the game alone, in its own log.

    Told when the connection is lost, and again each time this side, alone,
    has made its move and waits (SPEC.md, section 12, "A lost connection").
    """

    detail: str
    """What happens now, for a person: what was recorded, how long the wait, then what."""
    wait_ms: int | None = None
    """How long this side now waits for the opponent; None while it is this side's move."""
    then: Claim | None = None
    """What this side's time claim will do once the wait is over (None: no claim)."""
    recorded: tuple[str, ...] = ()
    """The types of this side's messages just signed into its log, as if sent."""
    said: Phrase = SILENCE
    """``detail`` as a phrase, for a screen to say in its player's language (it crosses the
    control socket as one); empty from a daemon that sends none."""

    def words_in(self, words: Words) -> str:
        """The detail in ``words``' language (as it came, from a daemon that sent no phrase)."""
        return self.said.in_words(words) if self.said else self.detail


@dataclass(frozen=True)
class Reconnecting:
    """The connection is lost and a new one has not carried the game on yet.

    Told after each attempt that failed (the guest redials; the host waits for
    the guest to come back), so the screen can say how long is left.
    """

    attempt: int
    """Attempts so far, from 1."""
    wait_ms: int | None
    """How long until this side claims the game on time; None while it is its own move."""
    why: str = ""
    """Why the last attempt failed, for a person."""
    waiting_for_guest: bool = False
    """The host waits for the guest to come back (the guest redials instead)."""

    @property
    def detail(self) -> str:
        """``connection lost, reconnecting, 14 s left``: English, as the control socket says it."""
        return self.words_in(ENGLISH)

    def words_in(self, words: Words) -> str:
        """The detail in ``words``' language, for a person's screen."""
        _ = words.gettext
        if self.waiting_for_guest:
            doing = _("waiting for the guest to reconnect")
        else:
            doing = _("reconnecting")
        if self.wait_ms is None:
            left = _("your move")
        else:
            left = _("{seconds} s left").format(seconds=-(-self.wait_ms // 1000))
        return _("connection lost, {doing} (attempt {attempt}), {left}").format(
            doing=doing, attempt=self.attempt, left=left
        )


@dataclass(frozen=True)
class Reconnected:
    """A new connection carries the game on (the resume handshake, SPEC.md "Resume")."""

    have: int
    """How many messages the opponent's transcript held."""
    sent: int
    """How many of this side's messages were sent again."""

    @property
    def detail(self) -> str:
        """English, as the control socket says it."""
        return self.words_in(ENGLISH)

    def words_in(self, words: Words) -> str:
        """The detail in ``words``' language, for a person's screen."""
        _ = words.gettext
        if not self.sent:
            return _("reconnected: the game goes on")
        return _("reconnected: the game goes on; {sent} of your messages sent again").format(
            sent=self.sent
        )


def lost_phrase(
    wait_ms: int | None,
    then: Claim | None,
    recorded: tuple[str, ...],
    *,
    resigning: bool = False,
    reconnecting: bool = False,
) -> Phrase:
    """The ``Lost`` notice's detail: ``waiting 60 s for the opponent, then the game is yours
    on time``, after what this side recorded alone (its messages' types), if anything."""
    parts = []
    if recorded:
        types = listed([message_term(kind) for kind in recorded])
        one = N_("your {types} is recorded in your log")
        many = N_("your {types} are recorded in your log")
        parts.append(phrase(one if len(recorded) == 1 else many, types=types))
    if reconnecting:
        parts.append(_reconnecting_phrase(wait_ms))
    elif wait_ms is None:
        parts.append(phrase(N_("your move: it goes into your log")))
    else:
        parts.append(
            phrase(
                N_("waiting {seconds} s for the opponent, then {then}"),
                seconds=-(-wait_ms // 1000),
                then=_after_the_wait(then, resigning),
            )
        )
    return joined(parts, "; ")


def _reconnecting_phrase(wait_ms: int | None) -> Phrase:
    if wait_ms is None:
        return phrase(N_("reconnecting; your move meanwhile goes into your log"))
    return phrase(N_("reconnecting, {seconds} s left"), seconds=-(-wait_ms // 1000))


def _after_the_wait(then: Claim | None, resigning: bool) -> Phrase:
    if resigning:
        return phrase(N_("the game ends with your resignation"))
    if then is Claim.WINS_THE_GAME:
        return phrase(N_("the game is yours on time"))
    if then is Claim.VOIDS_THE_GAME:
        return phrase(N_("the game is void: it never began"))
    return phrase(N_("the game ends as it stands"))


@dataclass(frozen=True)
class Closed:
    """The game is over and recorded; always the last notice of a game.

    Its result is the referee's, from judging this side's own log (SPEC.md,
    section 16), so a game won at the reveal reads as won, whatever the
    battle's end said.
    """

    result: Result
    end: End | None
    """How the game ended by this side's log; None when the log holds no ending."""
    verdict: str | None
    """The referee's one line on this side's log, in English; None without a log."""
    failure: str | None
    """Why the game stopped early, if it did (``code: detail``), for a person to read."""
    log: Path | None
    my_shots: int = 0
    their_shots: int = 0
    standing: Standing | None = None
    """How far this side's log can be relied on; None without a log."""
    said: Phrase = SILENCE
    """``verdict`` as a phrase, to say in a player's language; empty without one."""
    failure_said: Phrase = SILENCE
    """``failure`` as a phrase, where the daemon said it (an opponent who never came back
    for a rematch); empty otherwise."""

    def verdict_in(self, words: Words) -> str | None:
        """The referee's line in ``words``' language (``verdict`` as it is, without a phrase)."""
        return self.said.in_words(words) if self.said else self.verdict

    def failure_in(self, words: Words) -> str | None:
        """Why the game stopped early in ``words``' language (``failure`` as it is, without a
        phrase)."""
        return self.failure_said.in_words(words) if self.failure_said else self.failure

    @classmethod
    def without_game(cls, why: str, said: Phrase = SILENCE) -> Closed:
        """The end of a game that never began: a connection that failed, a daemon gone, an
        opponent who never came back for a rematch (``said``: ``why`` as a phrase)."""
        return cls(Result.NONE, End.NO_GAME, verdict=None, failure=why, log=None, failure_said=said)


@dataclass(frozen=True)
class Talk:
    """A line of the players' talk, heard from the opponent or said by this side.

    Told whatever the game is doing, and never part of it.  Whether to show
    it is the front end's choice: a player who muted the opponent still has
    every line in the log.
    """

    sender: Role
    mine: bool
    text: str


Notice = (
    Hello
    | Rules
    | Started
    | Turn
    | Volley
    | Over
    | Lost
    | Reconnecting
    | Reconnected
    | Failed
    | Closed
    | Talk
)


def _due(session: Session) -> Due | None:
    """The move's deadline as the session counts it, said with the notice of the move."""
    clock = session.turn_clock()
    return Due(clock[0] is session.role, clock[1]) if clock is not None else None


def notice_of(event: Event, session: Session, address: str) -> Notice | None:
    """What front ends are told of one session event (None: nothing, or not yet)."""
    me = session.role
    match event:
        case PeerHello(hello=hello):
            return Hello(hello.name, fingerprint(hello.key), hello.software, address)
        case RulesProposed(rules=rules, limits=limits, first=first):
            return Rules(rules, limits, first, _due(session))
        case GameStarted(first=first):
            size = session.rules.size if session.rules else 10
            return Started(first, first is me, session.transcript.game.hex(), size, _due(session))
        case YourTurn(shots=shots):
            return Turn(shots, _due(session))
        case VolleyDone(shooter=shooter, move=move, squares=squares, answer=answer):
            size = session.rules.size if session.rules else 10
            names = tuple(_square_text(s, size) for s in squares)
            return Volley(shooter, shooter is me, move, names, answer, _due(session))
        case BattleOver(ending=ending):
            return Over(ending.result(me), ending.end)
        case Failed():
            return event
        case TalkHeard(frame=frame) | TalkSaid(frame=frame):
            return Talk(frame.say.sender, frame.say.sender is me, frame.say.text)
    return None  # a frame (logged, not told), or the close (told with the verdict)


def _square_text(square: int, size: int) -> str:
    return square_name(square, size) if 0 <= square < size * size else str(square)

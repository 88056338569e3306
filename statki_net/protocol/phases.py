"""The phases of a game, as data: who speaks, what may be said, where it leads.

SPEC.md section 8 as a table, in the manner of h11's ``_state``: ``PHASES``
gives each ``Phase`` its ``Rule``, and the functions below read it.  The
``Transcript`` asks it what a message may do and where it leads; the
``Session`` asks it what to say by itself, whom to wait for and how long, and
when its player may resign.  Nothing else decides these things.

Who speaks is a ``Speaker``, a part in the game (the shooter, the first
revealer); the transcript turns it into a side from the score and the order
of the reveals.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from statki_net.game.words import Term, Words
from statki_net.protocol.endings import End
from statki_net.protocol.wire import (
    Accept,
    Coin,
    Commit,
    Error,
    Hello,
    Message,
    Refuse,
    Reply,
    Resign,
    Reveal,
    Shot,
    TimeClaim,
    Verdict,
)


class Phase(enum.StrEnum):
    HOST_HELLO = "host-hello"
    GUEST_HELLO = "guest-hello"
    DECISION = "decision"
    HOST_COMMIT = "host-commit"
    GUEST_COMMIT = "guest-commit"
    HOST_COIN = "host-coin"
    GUEST_COIN = "guest-coin"
    SHOOT = "shoot"
    ANSWER = "answer"
    FIRST_REVEAL = "first-reveal"
    SECOND_REVEAL = "second-reveal"
    FIRST_VERDICT = "first-verdict"
    SECOND_VERDICT = "second-verdict"
    DONE = "done"


class Speaker(enum.Enum):
    """Who speaks in a phase, as a part in the game rather than a side."""

    HOST = "host"
    GUEST = "guest"
    SHOOTER = "shooter"
    DEFENDER = "defender"
    """The side the shooter fires at."""
    FIRST = "first"
    """The winner as it stood when the battle ended: it reveals and judges first."""
    SECOND = "second"
    """The other side."""
    NOBODY = "nobody"


class Period(enum.Enum):
    """The stretch of the game a phase belongs to, for front ends that draw stages."""

    OPENING = "opening"
    """The hellos and the guest's decision on the rules."""
    SETUP = "setup"
    """The commitments and the coin toss."""
    BATTLE = "battle"
    CLOSING = "closing"
    """The reveals and the verdicts: no more shots."""
    DONE = "done"


class Deadline(enum.Enum):
    """Which limit the side waiting on the speaker counts against (SPEC.md section 12)."""

    HELLO = "hello"
    """Before the hellos the game's limits are not known: the waiting side's own move limit."""
    MOVE = "move"
    """The game's move limit."""
    REVEAL = "reveal"
    """The game's reveal limit, for the reveals and the verdicts."""


class Claim(enum.Enum):
    """What a valid time claim by the side kept waiting does in a phase (SPEC.md section 8,
    "Time claims").  Every claim ends the game: an early one is a finding instead."""

    VOIDS_THE_GAME = "voids the game"
    """No game had started (the guest's decision): end no-game, nobody wins or is to blame."""
    WINS_THE_GAME = "wins the game"
    """The silent side loses, a coin owed or a reveal included: end time, the claimant wins."""
    CHANGES_NOTHING = "changes nothing"
    """The game is decided; a missing verdict changes nothing, and the game is done."""

    @property
    def leads_to(self) -> Phase:
        return Phase.DONE


@dataclass(frozen=True)
class Rule:
    """What holds in one phase."""

    speaker: Speaker
    moves: Mapping[type[Message], Phase]
    """The messages the speaker may send, and the phase each leads to."""
    period: Period
    own_word: type[Message] | None
    """What the session says here by itself, without its player; None where the
    player decides (the rules, a shot) or nobody speaks."""
    deadline: Deadline | None
    """The limit on the speaker's silence; None where nobody speaks."""
    claim: Claim | None
    """What a time claim does here; None where one is out of turn."""


PHASES: Mapping[Phase, Rule] = MappingProxyType(
    {
        Phase.HOST_HELLO: Rule(
            speaker=Speaker.HOST,
            moves=MappingProxyType({Hello: Phase.GUEST_HELLO}),
            period=Period.OPENING,
            own_word=Hello,
            deadline=Deadline.HELLO,
            claim=None,
        ),
        Phase.GUEST_HELLO: Rule(
            speaker=Speaker.GUEST,
            moves=MappingProxyType({Hello: Phase.DECISION}),
            period=Period.OPENING,
            own_word=Hello,
            deadline=Deadline.HELLO,
            claim=None,
        ),
        Phase.DECISION: Rule(
            speaker=Speaker.GUEST,
            moves=MappingProxyType({Accept: Phase.HOST_COMMIT, Refuse: Phase.DONE}),
            period=Period.OPENING,
            own_word=None,
            deadline=Deadline.MOVE,
            claim=Claim.VOIDS_THE_GAME,
        ),
        Phase.HOST_COMMIT: Rule(
            speaker=Speaker.HOST,
            moves=MappingProxyType({Commit: Phase.GUEST_COMMIT}),
            period=Period.SETUP,
            own_word=Commit,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.GUEST_COMMIT: Rule(
            speaker=Speaker.GUEST,
            moves=MappingProxyType({Commit: Phase.HOST_COIN}),
            period=Period.SETUP,
            own_word=Commit,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.HOST_COIN: Rule(
            speaker=Speaker.HOST,
            moves=MappingProxyType({Coin: Phase.GUEST_COIN}),
            period=Period.SETUP,
            own_word=Coin,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.GUEST_COIN: Rule(
            speaker=Speaker.GUEST,
            moves=MappingProxyType({Coin: Phase.SHOOT}),
            period=Period.SETUP,
            own_word=Coin,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.SHOOT: Rule(
            speaker=Speaker.SHOOTER,
            moves=MappingProxyType({Shot: Phase.ANSWER, Resign: Phase.FIRST_REVEAL}),
            period=Period.BATTLE,
            own_word=None,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        # An answer that ends the battle leads elsewhere: see AFTER_THE_LAST_ANSWER.
        Phase.ANSWER: Rule(
            speaker=Speaker.DEFENDER,
            moves=MappingProxyType({Reply: Phase.SHOOT, Resign: Phase.FIRST_REVEAL}),
            period=Period.BATTLE,
            own_word=Reply,
            deadline=Deadline.MOVE,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.FIRST_REVEAL: Rule(
            speaker=Speaker.FIRST,
            moves=MappingProxyType({Reveal: Phase.SECOND_REVEAL}),
            period=Period.CLOSING,
            own_word=Reveal,
            deadline=Deadline.REVEAL,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.SECOND_REVEAL: Rule(
            speaker=Speaker.SECOND,
            moves=MappingProxyType({Reveal: Phase.FIRST_VERDICT}),
            period=Period.CLOSING,
            own_word=Reveal,
            deadline=Deadline.REVEAL,
            claim=Claim.WINS_THE_GAME,
        ),
        Phase.FIRST_VERDICT: Rule(
            speaker=Speaker.FIRST,
            moves=MappingProxyType({Verdict: Phase.SECOND_VERDICT}),
            period=Period.CLOSING,
            own_word=Verdict,
            deadline=Deadline.REVEAL,
            claim=Claim.CHANGES_NOTHING,
        ),
        Phase.SECOND_VERDICT: Rule(
            speaker=Speaker.SECOND,
            moves=MappingProxyType({Verdict: Phase.DONE}),
            period=Period.CLOSING,
            own_word=Verdict,
            deadline=Deadline.REVEAL,
            claim=Claim.CHANGES_NOTHING,
        ),
        Phase.DONE: Rule(
            speaker=Speaker.NOBODY,
            moves=MappingProxyType({}),
            period=Period.DONE,
            own_word=None,
            deadline=None,
            claim=None,
        ),
    }
)
"""Each phase's rule: SPEC.md section 8's table, and its time claims."""

AFTER_THE_LAST_ANSWER: Mapping[End, Phase] = MappingProxyType(
    {
        # Both fleets are revealed, the winner first.
        End.SUNK: Phase.FIRST_REVEAL,
        # A lie caught on the move ends play at once: the honest side states the
        # verdict; nothing is left to reveal that the proofs have not shown.
        End.CHEATED: Phase.FIRST_VERDICT,
    }
)
"""Where an answer that ends the battle leads, by how it ended."""


def speaker_kind(phase: Phase) -> Speaker:
    return PHASES[phase].speaker


def deadline_kind(phase: Phase) -> Deadline | None:
    return PHASES[phase].deadline


def may_say(phase: Phase, message: type[Message]) -> bool:
    """Whether the phase's speaker may send this kind of message (errors and claims apart)."""
    return message in PHASES[phase].moves


def may_resign(phase: Phase) -> bool:
    """Whether the speaker may resign in this phase (its player may ask in the other's turn)."""
    return may_say(phase, Resign)


def next_phase(phase: Phase, message: type[Message], end: End | None) -> Phase:
    """The phase after ``message`` was accepted in ``phase``, the game's end then being ``end``."""
    if message is Error:
        return Phase.DONE
    if message is TimeClaim:
        claim = PHASES[phase].claim
        assert claim is not None, "the transcript refuses a claim where none may be made"
        return claim.leads_to
    if message is Reply and end is not None:
        return AFTER_THE_LAST_ANSWER[end]
    return PHASES[phase].moves[message]


def phases_in(period: Period) -> tuple[Phase, ...]:
    """The phases of one period, in the order a game goes through them."""
    return tuple(phase for phase, held in PHASES.items() if held.period is period)


HELLO_PHASES = tuple(phase for phase, held in PHASES.items() if held.deadline is Deadline.HELLO)
"""The hellos: before them no game id exists, and no time claim may be made."""
BATTLE_PHASES = phases_in(Period.BATTLE)
"""Shooting and answering."""
OPENING_PHASES = phases_in(Period.OPENING)
"""Before the guest's accept: nothing is at stake yet, and a game that stops here is no game."""
COIN_PHASES = (Phase.HOST_COIN, Phase.GUEST_COIN)
"""A coin is owed: not opening it in time loses the game, not only the toss."""
VERDICT_PHASES = (Phase.FIRST_VERDICT, Phase.SECOND_VERDICT)
"""The game is decided: only a finding changes its result now."""


def phase_term(phase: Phase) -> Term:
    """A phase as a referee's phrase names it (``the logs stop at first-reveal``): SPEC's
    name, in the catalog under the context ``phase``."""
    return Term(phase.value, "phase")


def _phase_words(words: Words) -> tuple[str, ...]:
    """The phases a translation names, written out for the catalog's extraction: never
    called."""
    return (
        words.pgettext("phase", "host-hello"),
        words.pgettext("phase", "guest-hello"),
        words.pgettext("phase", "decision"),
        words.pgettext("phase", "host-commit"),
        words.pgettext("phase", "guest-commit"),
        words.pgettext("phase", "host-coin"),
        words.pgettext("phase", "guest-coin"),
        words.pgettext("phase", "shoot"),
        words.pgettext("phase", "answer"),
        words.pgettext("phase", "first-reveal"),
        words.pgettext("phase", "second-reveal"),
        words.pgettext("phase", "first-verdict"),
        words.pgettext("phase", "second-verdict"),
        words.pgettext("phase", "done"),
    )

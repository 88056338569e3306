"""What a referee finds wrong: each violation's kind, its class, and whom it names.

SPEC.md section 16, "Violations": every kind belongs to one class.  Tampering
and damage say the file cannot be trusted and name nobody, since no signature
says who made them; a breach is a refused frame, which decides a forfeit and
names its sender; cheating is a finding a side's own signed messages prove.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from statki_net.game.board import square_name
from statki_net.game.words import N_, Phrase
from statki_net.protocol.errors import Code
from statki_net.protocol.transcript import Finding
from statki_net.protocol.wire import Role


class ViolationClass(enum.StrEnum):
    TAMPERING = "tampering"
    """A record that cannot have come from an honest writer's file as it was written."""
    DAMAGE = "damage"
    """The file is cut off or garbled."""
    BREACH = "breach"
    """A refused frame: the peer's word that breaks the protocol.  It decides a
    forfeit but leaves the standing valid."""
    CHEATING = "cheating"
    """A finding: a lie, an illegal fleet, a bad reveal, an early claim, two games signed."""
    TALK = "talk"
    """A talk record that is not its side's line: shown, but the talk is no part of the game,
    so it changes neither the result nor the standing."""


class Kind(enum.StrEnum):
    """A violation's kind, as SPEC.md names it (compare members, not their text)."""

    MALFORMED = "malformed"
    BROKEN_CHAIN = "broken-chain"
    BAD_SIGNATURE = "bad-signature"
    AFTER_THE_END = "after-the-end"
    BAD_EVIDENCE = "bad-evidence"
    DAMAGED = "damaged"
    BAD_FIELD = "bad-field"
    UNKNOWN_TYPE = "unknown-type"
    OUT_OF_TURN = "out-of-turn"
    BAD_SHOT = "bad-shot"
    BAD_ANSWER = "bad-answer"
    FALSE_ANSWER = "false-answer"
    ILLEGAL_FLEET = "illegal-fleet"
    BAD_REVEAL = "bad-reveal"
    EARLY_CLAIM = "early-claim"
    EQUIVOCATION = "equivocation"
    WRONG_VERDICT = "wrong-verdict"
    BAD_TALK = "bad-talk"

    @property
    def violation_class(self) -> ViolationClass:
        return CLASS_OF[self]


CLASS_OF = {
    Kind.MALFORMED: ViolationClass.TAMPERING,
    Kind.BROKEN_CHAIN: ViolationClass.TAMPERING,
    Kind.BAD_SIGNATURE: ViolationClass.TAMPERING,
    Kind.AFTER_THE_END: ViolationClass.TAMPERING,
    Kind.BAD_EVIDENCE: ViolationClass.TAMPERING,
    Kind.DAMAGED: ViolationClass.DAMAGE,
    Kind.BAD_FIELD: ViolationClass.BREACH,
    Kind.UNKNOWN_TYPE: ViolationClass.BREACH,
    Kind.OUT_OF_TURN: ViolationClass.BREACH,
    Kind.BAD_SHOT: ViolationClass.BREACH,
    Kind.BAD_ANSWER: ViolationClass.BREACH,
    Kind.FALSE_ANSWER: ViolationClass.CHEATING,
    Kind.ILLEGAL_FLEET: ViolationClass.CHEATING,
    Kind.BAD_REVEAL: ViolationClass.CHEATING,
    Kind.EARLY_CLAIM: ViolationClass.CHEATING,
    Kind.EQUIVOCATION: ViolationClass.CHEATING,
    Kind.WRONG_VERDICT: ViolationClass.CHEATING,
    Kind.BAD_TALK: ViolationClass.TALK,
}

KIND_WORDS = (
    N_("malformed"),
    N_("broken-chain"),
    N_("bad-signature"),
    N_("after-the-end"),
    N_("bad-evidence"),
    N_("damaged"),
    N_("bad-field"),
    N_("unknown-type"),
    N_("out-of-turn"),
    N_("bad-shot"),
    N_("bad-answer"),
    N_("false-answer"),
    N_("illegal-fleet"),
    N_("bad-reveal"),
    N_("early-claim"),
    N_("equivocation"),
    N_("wrong-verdict"),
    N_("bad-talk"),
)
"""Each ``Kind`` as the catalog has it: a report's words give ``words.gettext(kind.value)``
(``--json`` keeps SPEC's name)."""

CLASS_WORDS = (N_("tampering"), N_("damage"), N_("breach"), N_("cheating"), N_("talk"))
"""Each ``ViolationClass`` as the catalog has it."""

BREACHES = {
    Code.BAD_FIELD: Kind.BAD_FIELD,
    Code.UNKNOWN_TYPE: Kind.UNKNOWN_TYPE,
    Code.OUT_OF_TURN: Kind.OUT_OF_TURN,
    Code.BAD_SHOT: Kind.BAD_SHOT,
    Code.BAD_ANSWER: Kind.BAD_ANSWER,
}
"""A refused frame's kind, by the code a peer answers it with (``version`` is none)."""

UNTRUSTED = {
    Code.MALFORMED: Kind.MALFORMED,
    Code.TOO_LARGE: Kind.MALFORMED,
    Code.BAD_CHAIN: Kind.BROKEN_CHAIN,
    Code.BAD_SIGNATURE: Kind.BAD_SIGNATURE,
}
"""A frame record that is not its sender's word, by the failure's code: tampering."""

FINDINGS = {kind.value: kind for kind in (Kind.FALSE_ANSWER, Kind.ILLEGAL_FLEET, Kind.BAD_REVEAL)}
"""The transcript's findings are named as SPEC.md names the violations."""

NOT_IN_THE_BATTLE = frozenset(
    {
        Kind.MALFORMED,
        Kind.DAMAGED,
        Kind.AFTER_THE_END,
        Kind.BAD_EVIDENCE,
        Kind.WRONG_VERDICT,
        Kind.BAD_TALK,
    }
)
"""Kinds that concern no point of the battle: their ``move`` is always nil."""


UNWEIGHED = frozenset({ViolationClass.BREACH, ViolationClass.TALK})
"""Classes listed with the violations but left out of the standing."""
FILE_FAULTS = frozenset({ViolationClass.TAMPERING, ViolationClass.DAMAGE})
"""Classes of what is wrong with one file rather than with a side's play: no signature says
who did it, and another log read whole may prove the game without that file."""


@dataclass(frozen=True)
class Violation:
    """One thing a log shows done against the rules, by whom and where."""

    kind: Kind
    detail: Phrase
    """What it is, put into words where it is shown (``str()`` for the report's English)."""
    culprit: Role | None = None
    """The side a signed message proves did it; None when no signature says who."""
    move: int | None = None
    """Shots accepted before the point it concerns (SPEC.md section 16); None for 0."""
    square: int | None = None
    cell: str | None = None
    """``square`` as players name it ("B7")."""
    log: str | None = None
    """The log it was found in, as the caller named it, for a fault of one file (tampering,
    damage, bad talk); None for what the game's signed frames show, whichever log holds them."""
    set_aside: bool = False
    """A fault of one file that another log, read whole, makes no matter: it holds a branch
    ending with the result's winner (SPEC.md section 16, "The standing").  Listed; weighs
    nothing."""

    @property
    def violation_class(self) -> ViolationClass:
        return self.kind.violation_class

    @property
    def weighs(self) -> bool:
        """Whether it bears on the standing or the headline: not a refused frame (it decided a
        forfeit, a valid result) nor bad talk (no part of the game)."""
        return self.violation_class not in UNWEIGHED and not self.set_aside

    def placed(self, size: int) -> Violation:
        """With ``cell`` named on a board of ``size``, and ``move`` as SPEC.md counts it."""
        move = None if self.kind in NOT_IN_THE_BATTLE or not self.move else self.move
        cell = self.cell
        if self.square is not None and self.square < size * size:
            cell = square_name(self.square, size)
        return replace(self, move=move, cell=cell)


def finding_violation(finding: Finding) -> Violation:
    """A transcript's finding as the violation it is."""
    kind = FINDINGS.get(finding.kind.value, Kind(finding.kind.value))
    return Violation(kind, finding.detail, finding.culprit, finding.move, finding.square)

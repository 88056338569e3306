"""How a game ended: one type for every part of statki that needs to say it.

The transcript decides the ending from the signed messages alone (SPEC.md
section 8, "Endings"); the session, the connection, local games, the daemon,
the history, self-play, the referee and the command line's exit codes all take
it from there as an ``Ending``, and turn it into words or numbers only at their
edge.  A referee also says how far the logs of a game can be relied on: that
is its ``Standing`` (SPEC.md section 16), apart from the ending.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from statki_net.game.words import N_, SILENCE, Phrase, Term, Words
from statki_net.protocol.wire import Role


class End(enum.StrEnum):
    """How a game ended (SPEC.md section 8, "Endings"): every game ends in exactly one."""

    SUNK = "sunk"
    """An answer sank the defender's last ship, and both reveals were honest."""
    RESIGNED = "resigned"
    """A side resigned, and both reveals were honest."""
    TIME = "time"
    """A time claim the log does not contradict: the claimant wins, the silent side is to blame."""
    FORFEIT = "forfeit"
    """From the guest's accept on, a side stopped the game (an ``error`` answering no
    refused frame) or sent a refused frame: the other side wins."""
    CHEATED = "cheated"
    """A finding: a false answer, an illegal fleet, a bad reveal, an early time claim."""
    REFUSED = "refused"
    """The guest declined the rules."""
    NO_GAME = "no-game"
    """The game stopped before the guest's accept: nobody wins."""

    @property
    def played(self) -> bool:
        """Whether there was a game: the guest accepted the rules.  A declined game and one
        stopped before had no shots to count and none to play again."""
        return self not in (End.REFUSED, End.NO_GAME)


class Result(enum.StrEnum):
    """An ending as one side sees it."""

    WON = "won"
    LOST = "lost"
    NONE = "none"


class Standing(enum.StrEnum):
    """How far a game's logs can be relied on (SPEC.md section 16, "The standing")."""

    VALID = "valid"
    """The result can be relied on: forfeits, resignations, wins on time, refused
    games and games that never began included."""
    INVALID = "invalid"
    """The logs show cheating, tampering or damage."""
    DISPUTED = "disputed"
    """The two sides' logs hold endings that cannot both be true."""
    UNFINISHED = "unfinished"
    """The logs stop before any ending."""


@dataclass(frozen=True)
class Ending:
    """How one game ended: the end, the winner, who is to blame, and why."""

    end: End
    winner: Role | None = None
    culprits: frozenset[Role] = frozenset()
    """The sides the ending blames: none, one, or both (both cheated).  Under
    ``NO_GAME`` a side is named for information only: nothing was at stake."""
    reason: Phrase = SILENCE
    """Why, in one line a person reads: ``str()`` is the English logs and ``--json``
    keep, ``reason.in_words(words)`` what a player reads."""

    def result(self, me: Role) -> Result:
        if self.winner is None:
            return Result.NONE
        return Result.WON if self.winner is me else Result.LOST

    def blames(self, role: Role) -> bool:
        return role in self.culprits


def end_term(end: End) -> Term:
    """An end as a person reads its name (``forfeit``: "walkower"); the value stays English
    where tools read it (``--json``, logs, the control socket)."""
    return Term(end.value)


END_NAMES = (
    N_("sunk"),
    N_("resigned"),
    N_("time"),
    N_("forfeit"),
    N_("cheated"),
    N_("refused"),
    N_("no-game"),
)
"""Every ``End``'s value, marked for the catalog (``end_term`` says them)."""


def role_term(role: Role) -> Term:
    """A side as a phrase names it: the role's word, in the case the translation asks for."""
    return Term(role.value)


def _cases(words: Words) -> tuple[str, ...]:
    """The cases a translation may ask of a side (``{loser:gen}``), written out for the
    catalog's extraction: never called."""
    return (
        words.pgettext("gen", "host"),
        words.pgettext("gen", "guest"),
        words.pgettext("acc", "host"),
        words.pgettext("acc", "guest"),
        words.pgettext("inst", "host"),
        words.pgettext("inst", "guest"),
    )


def message_term(type_: str) -> Term:
    """A message's type (``shot``) as a phrase names it: the wire's word, in the catalog
    under the context ``message`` (a type no catalog knows stays as it is)."""
    return Term(type_, "message")


def _message_types(words: Words) -> tuple[str, ...]:
    """The message types a translation names (SPEC.md section 4), written out for the
    catalog's extraction: never called."""
    return (
        words.pgettext("message", "hello"),
        words.pgettext("message", "accept"),
        words.pgettext("message", "refuse"),
        words.pgettext("message", "commit"),
        words.pgettext("message", "coin"),
        words.pgettext("message", "shot"),
        words.pgettext("message", "answer"),
        words.pgettext("message", "resign"),
        words.pgettext("message", "timeout"),
        words.pgettext("message", "reveal"),
        words.pgettext("message", "verdict"),
        words.pgettext("message", "error"),
    )

"""How a side plays its own part: honestly, or as a test needs it to cheat.

A ``Session`` composes what its side says without the player (commitments,
coins, answers, proofs, reveals, verdicts) and then asks its ``Behaviour``
what to send.  The base class answers "the honest thing" everywhere; it is
what every real game uses.

A misbehaving peer, for the tests and for the logs of ``protocol/``, is a
subclass overriding the hooks it needs, given to the session as
``Session(..., behaviour=...)``.  It signs what it sends with its own key,
so the other side and the referee see exactly what a real cheat would send.
Each hook receives the session, to read (not change) what the side knows::

    class SaysMissForTheFirstHit(Behaviour):
        def answer(self, session, squares, answer):
            ...
            return Answer((Outcome.MISS,), 0, 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from statki_net.game.battle import Answer
from statki_net.game.fleet import Fleet
from statki_net.protocol.commitment import Opening
from statki_net.protocol.wire import Message

if TYPE_CHECKING:
    from statki_net.protocol.session import Session


class Behaviour:
    """An honest side; subclass and override a hook to misbehave (see the module docstring)."""

    checks_own_fleet = True
    """False: commit to the fleet, even one the rules forbid (the reveal shows it)."""

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        """The fleet to commit to; ``fleet`` is the one the player placed."""
        return fleet

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        """The answer to give to ``squares``; ``answer`` is the true one."""
        return answer

    def proofs(
        self, session: Session, squares: tuple[int, ...], proofs: tuple[Opening, ...]
    ) -> tuple[Opening, ...]:
        """The openings sent with the answer; ``proofs`` are the ones the answer needs."""
        return proofs

    def say(self, session: Session, message: Message) -> Message | None:
        """What to send instead of ``message``, which the session composed by itself
        (hello, commit, coin, answer, resignation, reveal, verdict); None sends nothing."""
        return message

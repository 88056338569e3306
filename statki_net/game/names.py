"""How a player's name is said: as it came, but statki's own computer's in the reader's words.

The name in a hello, and so in the logs, ``--json`` and the wire, is English for the
computer (``computer (medium)``, ``computer_name``).  Every place a person reads a
name (a screen's title, a verdict line, ``statki verify``, ``statki record``, its PDF,
``statki history``) says it through ``said_name``: statki's own computer, known by that
name together with its fixed key's fingerprint, becomes ``komputer (średni)`` in Polish;
a name a peer chose is shown as it came, even one that reads like the computer's.
"""

from __future__ import annotations

from types import MappingProxyType

from statki_net.game.english import N_
from statki_net.game.words import Fact, Phrase, Term, as_is, phrase

COMPUTER_FINGERPRINTS = MappingProxyType(
    {
        "easy": "01b36-bfe32-49547-72ab7",
        "medium": "30f14-e7fcd-d2804-b0909",
        "hard": "80fe7-f780f-13231-b4ee6",
        "random": "0954c-d2050-f5237-8ae91",
        "per-ship": "64fa6-60599-a06db-ee30f",
        "hunt": "beb01-b8430-d042a-c169e",
        "density": "a3762-64d22-6be37-d0856",
    }
)
"""The fingerprint of the computer's key (``statki_client.computer.computer_key``) for each
strength and strategy it plays.

Written out, not derived: the pure core names the computer without making seven
Ed25519 keys (a test derives them and compares)."""

STRENGTH_WORDS = (N_("easy"), N_("medium"), N_("hard"))
"""The strengths, words of the catalog (``statki_net.ai.strength.Strength``; a test holds
them equal); a strategy's name (``density``) is typed as it is, in every language."""


def computer_name(strategy: str) -> str:
    """The computer's name in its hello and the log: English, as the wire keeps it."""
    return f"computer ({strategy})"


def said_name(name: str, key: str) -> Phrase:
    """A player's ``name`` as a person reads it, ``key`` their fingerprint: statki's own
    computer's in the reader's words, anyone else's as it is (its English, ``str()``,
    is ``name`` either way)."""
    strength = computer_strength(name, key)
    if strength is None:
        return as_is(name)
    return phrase(N_("computer ({strength})"), strength=strength)


def said_with_role(name: str, key: str, role: Fact) -> Phrase:
    """A player's name and role, ``Ala (host)``: statki's computer's brackets said as one
    where the language can (Polish ``komputer (trudny, gość)``, not ``(trudny) (gość)``)."""
    strength = computer_strength(name, key)
    if strength is None:
        # Names and roles only: no words of its own for a catalog to hold.
        return phrase("{name} ({role})", name=as_is(name), role=role)
    return phrase(N_("computer ({strength}) ({role})"), strength=strength, role=role)


def computer_strength(name: str, key: str) -> Fact | None:
    """The strength (a word of the catalog) or strategy (typed as it is) statki's own
    computer plays, known by its name and key; None for anyone else."""
    strategy = _COMPUTERS.get((name, key))
    if strategy is None:
        return None
    return Term(strategy) if strategy in STRENGTH_WORDS else strategy


_COMPUTERS = {(computer_name(s), key): s for s, key in COMPUTER_FINGERPRINTS.items()}
"""Each strength and strategy the computer plays, by its name and key fingerprint."""

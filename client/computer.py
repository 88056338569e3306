"""statki's own computer opponent: its key, and its name as the wire keeps it and as a screen
says it.

The name in the computer's hello and in the logs is English (``computer (medium)``); a
screen (and ``statki history``) says it in its player's language, but only for statki's own
computer: its fixed key and that name together.  A name a peer chose is shown as it came.
"""

from __future__ import annotations

import hashlib
from types import MappingProxyType
from typing import TYPE_CHECKING

from statki_net.ai.strength import Strength
from statki_net.store.language import _

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

FINGERPRINTS = MappingProxyType(
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
"""The fingerprint of ``computer_key`` for each strength and strategy the computer plays.

Written out, not derived: ``statki history`` names the computer in the reader's words
without making seven Ed25519 keys (a test derives them and compares)."""


def computer_key(strategy: str) -> Ed25519PrivateKey:
    """The computer's key: the same for every game with one strategy, so stats add up.

    The computer keeps no secret worth a private key; a fixed key only gives
    it a stable fingerprint in the history.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = hashlib.sha256(b"statki computer player " + strategy.encode()).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def computer_name(strategy: str) -> str:
    """The computer's name in its hello and the log: English, as the wire keeps it."""
    return f"computer ({strategy})"


def shown_name(name: str, key: str) -> str:
    """An opponent's ``name`` for a screen: statki's own computer's in the reader's words,
    anyone else's as it is.  ``key`` is the opponent's fingerprint."""
    strategy = _COMPUTERS.get((name, key))
    if strategy is None:
        return name
    strength = _(strategy) if strategy in {s.value for s in Strength} else strategy
    return _("computer ({strength})").format(strength=strength)


_COMPUTERS = {(computer_name(s), key): s for s, key in FINGERPRINTS.items()}
"""Each strength and strategy the computer plays, by its name and key fingerprint."""

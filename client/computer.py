"""statki's own computer opponent: its key, and its name as the wire keeps it and as a screen
says it.

The name in the computer's hello and in the logs is English (``computer (medium)``); a
screen says it in its player's language, but only for statki's own computer: its fixed key
and that name together.  A name a peer chose is shown as it came.
"""

from __future__ import annotations

import hashlib
from functools import cache

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.strategies import STRATEGIES
from statki_net.ai.strength import Strength
from statki_net.protocol.session import public_key_bytes
from statki_net.referee.report import fingerprint
from statki_net.store.language import _


def computer_key(strategy: str) -> Ed25519PrivateKey:
    """The computer's key: the same for every game with one strategy, so stats add up.

    The computer keeps no secret worth a private key; a fixed key only gives
    it a stable fingerprint in the history.
    """
    seed = hashlib.sha256(b"statki computer player " + strategy.encode()).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def computer_name(strategy: str) -> str:
    """The computer's name in its hello and the log: English, as the wire keeps it."""
    return f"computer ({strategy})"


def shown_name(name: str, key: str) -> str:
    """An opponent's ``name`` for a screen: statki's own computer's in the reader's words,
    anyone else's as it is.  ``key`` is the opponent's fingerprint."""
    strategy = _computers().get((name, key))
    if strategy is None:
        return name
    strength = _(strategy) if strategy in {s.value for s in Strength} else strategy
    return _("computer ({strength})").format(strength=strength)


@cache
def _computers() -> dict[tuple[str, str], str]:
    """Each strength and strategy the computer plays, by its name and key fingerprint."""
    named = [*(s.value for s in Strength), *STRATEGIES]
    return {(computer_name(s), fingerprint(public_key_bytes(computer_key(s)))): s for s in named}

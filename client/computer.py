"""statki's own computer opponent: its key, and its name as a screen says it.

The name itself (English in the hello and the logs) and how a person reads it are
``statki_net.game.names``'s; this makes the key the name is known by.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from statki_net.game.names import said_name
from statki_net.store import language

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def computer_key(strategy: str) -> Ed25519PrivateKey:
    """The computer's key: the same for every game with one strategy, so stats add up.

    The computer keeps no secret worth a private key; a fixed key only gives
    it a stable fingerprint in the history.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = hashlib.sha256(b"statki computer player " + strategy.encode()).digest()
    return Ed25519PrivateKey.from_private_bytes(seed)


def shown_name(name: str, key: str) -> str:
    """An opponent's ``name`` for a screen, in its player's language (``said_name``);
    ``key`` is the opponent's fingerprint."""
    return said_name(name, key).in_words(language.words())

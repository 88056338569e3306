"""The fixed inputs of every vector: test keys, deterministic entropy, the clock's start.

Nothing in protocol/ may depend on a clock or the OS's randomness, so the
keys, secrets, coins and nonces all come from here.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.protocol.wire import Role

START = 1_700_000_000_000
"""The clock of every generated game starts here (ms) and ticks once a delivery."""
SOFTWARE = "statki vectors"


def test_seed(role: Role) -> bytes:
    """The fixed Ed25519 private key seed of each test player."""
    return hashlib.sha256(b"statki test key: " + role.value.encode()).digest()


def test_key(role: Role) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(test_seed(role))


class Drbg:
    """Deterministic bytes: SHA-256(seed || u32be(counter)) blocks, counter from 0."""

    def __init__(self, seed: str) -> None:
        self.seed = seed.encode()
        self.counter = 0

    def __call__(self, size: int) -> bytes:
        out = b""
        while len(out) < size:
            out += hashlib.sha256(self.seed + self.counter.to_bytes(4, "big")).digest()
            self.counter += 1
        return out[:size]


INVITE_SECRET = Drbg("statki vectors invite secret")(16)
"""The one-time secret of every generated game's invite: the guest proves it in its hello."""

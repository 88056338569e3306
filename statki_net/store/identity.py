"""The player's long-term key, kept in statki's home (``statki_net.store.home``).

The identity key is created there on first use, readable only by its owner.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, phrase
from statki_net.protocol.session import public_key_bytes
from statki_net.referee.verify import fingerprint
from statki_net.store.failures import refused_as

KEY_FILE = "identity.pem"

__all__ = ["fingerprint", "load_identity", "my_fingerprint"]


def load_identity(home: Path) -> Ed25519PrivateKey:
    """The player's key, created on first use with owner-only permissions."""
    path = home / KEY_FILE
    if path.exists():
        return _read_key(path)
    key = Ed25519PrivateKey.generate()
    # Written whole under a private name, then linked into place: a second
    # process starting at the same moment, or a crash halfway, never leaves
    # a half-written key behind.  If another process won the race, use its key.
    draft = home / f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    with refused_as(N_("making the player's key")):
        return _written(key, path, draft)


def _written(key: Ed25519PrivateKey, path: Path, draft: Path) -> Ed25519PrivateKey:
    """``key`` written to ``path`` through ``draft``; the key already there if another
    process wrote its own first."""
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            return _read_key(path)
    finally:
        draft.unlink(missing_ok=True)
    return key


def _read_key(path: Path) -> Ed25519PrivateKey:
    with refused_as(N_("reading the player's key")):
        if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise UsageError(
                phrase(N_("{path} is readable by others; run: chmod 600 {path}"), path=str(path))
            )
        data = path.read_bytes()
    try:
        key = load_pem_private_key(data, password=None)
    except ValueError:
        raise UsageError(
            phrase(N_("{path} is not a statki identity key"), path=str(path))
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UsageError(
            phrase(N_("{path} holds a key of another kind than Ed25519"), path=str(path))
        )
    return key


def my_fingerprint(key: Ed25519PrivateKey) -> str:
    return fingerprint(public_key_bytes(key))

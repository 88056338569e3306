"""The fleet commitment: a Merkle tree over salted per-square leaves.

Every byte is defined in SPEC.md ("The fleet commitment"), which this module
follows to the letter.  In short, for a game id ``G`` (32 bytes), a fleet
secret ``S`` (32 bytes) and square ``i`` holding ``c`` (0 water, 1 ship)::

    salt_i = HMAC-SHA256(key=S, msg="statki/salt" || G || u16be(i))
    leaf_i = SHA-256(0x00 || "statki/leaf" || G || u16be(i) || u8(c) || salt_i)
    node   = SHA-256(0x01 || left || right)

The leaves stand in square order and are padded with 32 zero bytes up to the
next power of two; the root is the commitment.  Opening square ``i`` gives
``c``, ``salt_i`` and the sibling hashes from the leaf up: since each salt is
an HMAC of the secret, one opening tells nothing about any other square.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass

from statki_net.game.board import bit

HASH_SIZE = 32
SECRET_SIZE = 32
PAD = bytes(HASH_SIZE)
SALT_LABEL = b"statki/salt"
LEAF_LABEL = b"statki/leaf"
LEAF_TAG, NODE_TAG = b"\x00", b"\x01"


def salt(secret: bytes, game: bytes, square: int) -> bytes:
    # hmac.digest, not hmac.new(...).digest(): the same bytes in one call to OpenSSL, without
    # the Python HMAC object (a salt a square at every commitment and every proof).
    return hmac.digest(secret, SALT_LABEL + game + square.to_bytes(2, "big"), hashlib.sha256)


def leaf(game: bytes, square: int, ship: bool, square_salt: bytes) -> bytes:
    return hashlib.sha256(
        LEAF_TAG + LEAF_LABEL + game + square.to_bytes(2, "big") + bytes([ship]) + square_salt
    ).digest()


def node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(NODE_TAG + left + right).digest()


def tree_width(squares: int) -> int:
    """Leaves in the padded tree: the least power of two holding every square."""
    return 1 << max(0, (squares - 1).bit_length())


@dataclass(frozen=True)
class Opening:
    """What a square holds, with the proof that the committed tree says so."""

    square: int
    ship: bool
    salt: bytes
    path: tuple[bytes, ...]
    """Sibling hashes from the leaf's level up to just below the root."""

    def root(self, game: bytes) -> bytes:
        """The root this opening leads to; equal to the commitment if it is true."""
        digest = leaf(game, self.square, self.ship, self.salt)
        index = self.square
        for sibling in self.path:
            digest = node(sibling, digest) if index & 1 else node(digest, sibling)
            index >>= 1
        return digest


class FleetCommitment:
    """The committing side's tree: the root to send, and openings on demand."""

    def __init__(self, game: bytes, secret: bytes, ship_board: int, squares: int) -> None:
        self.game = game
        self.secret = secret
        self.ship_board = ship_board
        self.squares = squares
        # Kept: every opening gives its square's salt again.
        self._salts = [salt(secret, game, i) for i in range(squares)]
        leaves = [leaf(game, i, bool(ship_board & bit(i)), self._salts[i]) for i in range(squares)]
        leaves += [PAD] * (tree_width(squares) - squares)
        self._levels = [leaves]
        while len(self._levels[-1]) > 1:
            below = self._levels[-1]
            self._levels.append([node(below[j], below[j + 1]) for j in range(0, len(below), 2)])

    @property
    def root(self) -> bytes:
        return self._levels[-1][0]

    def open(self, square: int) -> Opening:
        path = []
        index = square
        for level in self._levels[:-1]:
            path.append(level[index ^ 1])
            index >>= 1
        return Opening(
            square,
            bool(self.ship_board & bit(square)),
            self._salts[square],
            tuple(path),
        )


def commitment_root(game: bytes, secret: bytes, ship_board: int, squares: int) -> bytes:
    """The root a revealed fleet and secret commit to, for checking a reveal."""
    return FleetCommitment(game, secret, ship_board, squares).root


SHIPS_LABEL = b"statki/ships"


def ships_digest(game: bytes, secret: bytes, ships: Sequence[Sequence[int]]) -> bytes:
    """Binds how the ship squares split into ships, which the tree alone does not.

    Where ships may touch, the same squares can be cut into ships in more than
    one way; this digest, sent beside the root, fixes the cut.  Each ship is
    its length as one byte then its squares in ascending order, two bytes
    each; the ships stand in the order they will be revealed.
    """
    data = bytearray(SHIPS_LABEL + game + secret)
    for ship in ships:
        data.append(len(ship))
        for square in sorted(ship):
            data += square.to_bytes(2, "big")
    return hashlib.sha256(bytes(data)).digest()


def path_length(squares: int) -> int:
    return tree_width(squares).bit_length() - 1


# ---------------------------------------------------------------- the coin toss

COIN_LABEL = b"statki/coin"
TOSS_LABEL = b"statki/toss"


def coin_commitment(game: bytes, role: str, coin: bytes) -> bytes:
    """Hash of a side's coin; the role is inside so no side can echo the other's."""
    return hashlib.sha256(COIN_LABEL + game + role.encode() + coin).digest()


def toss(game: bytes, host_coin: bytes, guest_coin: bytes) -> str:
    """Who starts, "host" or "guest": the low bit of a hash of both coins."""
    digest = hashlib.sha256(TOSS_LABEL + game + host_coin + guest_coin).digest()
    return "host" if digest[-1] & 1 == 0 else "guest"

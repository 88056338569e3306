"""The primitives' vectors: signing.json, commitment.json and coin.json."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import PRESETS
from statki_net.protocol.commitment import (
    COIN_LABEL,
    LEAF_LABEL,
    PAD,
    SALT_LABEL,
    SHIPS_LABEL,
    TOSS_LABEL,
    FleetCommitment,
    coin_commitment,
    leaf,
    node,
    salt,
    ships_digest,
    toss,
    tree_width,
)
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import (
    JOIN_LABEL,
    PROOF_LABEL,
    REMATCH_LABEL,
    REMATCH_SECRET,
    SIGN_LABEL,
    TAG_LABEL,
    Hello,
    Join,
    Role,
    game_id,
    game_tag,
    guest_proof,
    message_hash,
    rematch_secret,
    sign_join,
)
from statki_net.vectors.encoding import as_json, dump
from statki_net.vectors.games import Scenario
from statki_net.vectors.seeds import INVITE_SECRET, Drbg, test_key, test_seed


def signing_file(by_name: dict[str, Scenario]) -> bytes:
    # RFC 8032, section 7.1, TEST 1 and TEST 2: plain Ed25519, to check the primitive.
    rfc = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "72",
        ),
    ]
    keys = {
        role.value: {
            "seed": test_seed(role).hex(),
            "public": public_key_bytes(test_key(role)).hex(),
            "derivation": f'SHA-256("statki test key: {role.value}")',
        }
        for role in Role
    }
    vectors = []
    for seed_hex, message_hex in rfc:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex))
        message = bytes.fromhex(message_hex)
        vectors.append(
            {
                "name": "RFC 8032 7.1 TEST " + ("1" if not message else "2"),
                "seed": seed_hex,
                "public": public_key_bytes(key).hex(),
                "message": message_hex,
                "signature": key.sign(message).hex(),
            }
        )
    for frame in by_name["honest-classic"].frames[:3]:
        role = frame.header.sender
        signed = SIGN_LABEL + frame.body
        vectors.append(
            {
                "name": f"statki {frame.message.TYPE} from the {role}",
                "seed": test_seed(role).hex(),
                "public": public_key_bytes(test_key(role)).hex(),
                "body": frame.body.hex(),
                "message": signed.hex(),
                "signature": frame.signature.hex(),
            }
        )
    return dump(
        {
            "about": "Ed25519 (RFC 8032, pure).  A statki signature is over "
            "SIGN_LABEL || body; 'message' is exactly the bytes signed.",
            "SIGN_LABEL": SIGN_LABEL.hex(),
            "keys": keys,
            "vectors": vectors,
        }
    )


def commitment_example(
    name: str, size: int, ships: list[list[int]], seed: str, openings: list[int], *, levels: bool
) -> dict[str, Any]:
    entropy = Drbg(seed)
    game, secret = entropy(32), entropy(32)
    area = size * size
    fleet = Fleet(tuple(tuple(ship) for ship in ships))
    tree = FleetCommitment(game, secret, fleet.board, area)
    salts = [salt(secret, game, i) for i in range(area)]
    leaves = [leaf(game, i, bool(fleet.board >> i & 1), salts[i]) for i in range(area)]
    padded = leaves + [PAD] * (tree_width(area) - area)
    example: dict[str, Any] = {
        "name": name,
        "size": size,
        "squares": area,
        "ships": ships,
        "ship_squares": sorted(s for ship in ships for s in ship),
        "game": game.hex(),
        "secret": secret.hex(),
        "width": tree_width(area),
        "salts": [s.hex() for s in salts],
        "leaves": [h.hex() for h in padded],
    }
    if levels:
        tiers = [padded]
        while len(tiers[-1]) > 1:
            below = tiers[-1]
            tiers.append([node(below[j], below[j + 1]) for j in range(0, len(below), 2)])
        example["levels"] = [[h.hex() for h in tier] for tier in tiers[1:]]
    example["root"] = tree.root.hex()
    # commit.ships: the ships in the listed order, each its length then its squares ascending.
    example["ships_digest"] = ships_digest(game, secret, ships).hex()
    example["openings"] = []
    for square in openings:
        opening = tree.open(square)
        example["openings"].append(
            {
                "square": square,
                "name": square_name(square, size),
                "ship": opening.ship,
                "salt": opening.salt.hex(),
                "path": [p.hex() for p in opening.path],
                "wire": as_json([opening.square, opening.ship, opening.salt, list(opening.path)]),
            }
        )
    return example


def commitment_file() -> bytes:
    classic = random_fleet(PRESETS["classic"], random.Random(5))
    return dump(
        {
            "about": "salt_i = HMAC-SHA256(secret, SALT_LABEL || game || u16be(i)); "
            "leaf_i = SHA-256(00 || LEAF_LABEL || game || u16be(i) || u8(ship) || salt_i); "
            "node = SHA-256(01 || left || right); leaves in square order, padded with "
            "32 zero bytes to 'width'; 'levels' are the tree's rows above the leaves, "
            "the last being the root.  An opening is [square, ship, salt, path], path "
            "from the leaf's sibling upward.",
            "ships_digest": "SHA-256(SHIPS_LABEL || game || secret || for each ship in "
            "order: u8(length) || its squares ascending, u16be each)",
            "labels": {
                "SALT_LABEL": SALT_LABEL.hex(),
                "LEAF_LABEL": LEAF_LABEL.hex(),
                "SHIPS_LABEL": SHIPS_LABEL.hex(),
            },
            "examples": [
                commitment_example(
                    "3x3 board, ships A1-B1 and C3",
                    3,
                    [[0, 1], [8]],
                    "statki vectors commitment 3x3",
                    list(range(9)),
                    levels=True,
                ),
                commitment_example(
                    "classic 10x10 board",
                    10,
                    classic.to_lists(),
                    "statki vectors commitment 10x10",
                    [0, classic.ships[0][0], 55, 99],
                    levels=False,
                ),
            ],
        }
    )


def coin_file() -> bytes:
    examples: list[dict[str, str]] = []
    entropy = Drbg("statki vectors coin")
    while len(examples) < 4:
        game, host_coin, guest_coin = entropy(32), entropy(32), entropy(32)
        first = toss(game, host_coin, guest_coin)
        if sum(e["first"] == first for e in examples) >= 2:
            continue  # two examples of each outcome
        digest = hashlib.sha256(TOSS_LABEL + game + host_coin + guest_coin).digest()
        examples.append(
            {
                "game": game.hex(),
                "host_coin": host_coin.hex(),
                "guest_coin": guest_coin.hex(),
                "host_commitment": coin_commitment(game, "host", host_coin).hex(),
                "guest_commitment": coin_commitment(game, "guest", guest_coin).hex(),
                "toss_hash": digest.hex(),
                "first": first,
            }
        )
    return dump(
        {
            "about": "commitment = SHA-256(COIN_LABEL || game || role || coin), role the ASCII "
            "'host' or 'guest'; toss_hash = SHA-256(TOSS_LABEL || game || host_coin || "
            "guest_coin); the host starts when the last byte of toss_hash is even.",
            "labels": {"COIN_LABEL": COIN_LABEL.hex(), "TOSS_LABEL": TOSS_LABEL.hex()},
            "examples": examples,
        }
    )


def admission_file(by_name: dict[str, Scenario]) -> bytes:
    """The guest's proof of the invite's secret, from the hellos of ``honest-classic``."""
    host_hello, guest_hello = by_name["honest-classic"].frames[:2]
    guest = guest_hello.message
    assert isinstance(guest, Hello)
    signed = PROOF_LABEL + message_hash(host_hello.body) + guest.key
    proof = guest_proof(INVITE_SECRET, host_hello.body, guest.key)
    assert proof == guest.proof, "the sample game's guest proves the same secret"
    invite = "statki://192.0.2.7:47470,[2001:db8::7]:47470/"
    return dump(
        {
            "about": "proof = HMAC-SHA256(key = secret, msg = PROOF_LABEL || "
            "hash(host hello body) || guest key), hash(body) = SHA-256(HASH_LABEL || body); "
            "'message' is exactly the bytes the HMAC is over.  The hellos are messages 0 "
            "and 1 of logs/honest-classic.statki; the guest hello's 'proof' is this proof.",
            "PROOF_LABEL": PROOF_LABEL.hex(),
            "invite": invite
            + public_key_bytes(test_key(Role.HOST)).hex()
            + "/"
            + INVITE_SECRET.hex(),
            "secret": INVITE_SECRET.hex(),
            "host_hello_body": host_hello.body.hex(),
            "host_hello_hash": message_hash(host_hello.body).hex(),
            "guest_key": guest.key.hex(),
            "message": signed.hex(),
            "proof": proof.hex(),
            "join": _join_example(host_hello.body, guest.key),
            "rematch": _rematch_example(host_hello.body, guest_hello.body),
        }
    )


def _rematch_example(host_hello: bytes, guest_hello: bytes) -> dict[str, Any]:
    """The secret and tag a rematch of that game admits by: both its hellos list the
    capability ``rematch-secret`` (SPEC.md section 14 and "The control socket")."""
    game = game_id(host_hello, guest_hello)
    secret = rematch_secret(game, INVITE_SECRET)
    opened = rematch_secret(game, None)
    return {
        "about": "both hellos above list the capability 'rematch-secret', so the rematch of "
        "their game admits by secret = first 16 bytes of HMAC-SHA256(key = the invite's "
        "secret above, msg = REMATCH_LABEL || game id), game id = frames.json's game_id; "
        "the rematch's host hello carries admit 'invite' and tag = the tag of that secret "
        "(as 'join' computes it), and its guest proves that secret as 'proof' does.  Were "
        "the game open to anyone (no invite's secret), its rematch would admit by "
        "open_secret = first 16 bytes of HMAC-SHA256(key = game id, msg = REMATCH_LABEL), "
        "with tag open_tag.",
        "capability": REMATCH_SECRET,
        "REMATCH_LABEL": REMATCH_LABEL.hex(),
        "game_id": game.hex(),
        "secret": secret.hex(),
        "tag": game_tag(secret).hex(),
        "open_secret": opened.hex(),
        "open_tag": game_tag(opened).hex(),
    }


def _join_example(host_hello: bytes, guest_key: bytes) -> dict[str, Any]:
    """The ``join`` the same guest would answer that hello with, were it of another game of
    the host's (SPEC.md section 6, "join"): the tag of the invite's secret, bound to it."""
    tag = game_tag(INVITE_SECRET)
    join = Join(guest_key, message_hash(host_hello), tag, 1_700_000_000_000)
    frame = sign_join(test_key(Role.GUEST), join)
    assert frame.join.key == public_key_bytes(test_key(Role.GUEST))
    return {
        "about": "tag = first 16 bytes of HMAC-SHA256(key = secret, msg = TAG_LABEL), which "
        "the host hello above carries as 'tag'; a join is [body, signature], the body a map "
        "of type 'join' whose 'hello' is host_hello_hash and 'key' guest_key, signed by "
        "the guest's key over JOIN_LABEL || body.",
        "TAG_LABEL": TAG_LABEL.hex(),
        "JOIN_LABEL": JOIN_LABEL.hex(),
        "tag": tag.hex(),
        "body": frame.body.hex(),
        "signed": (JOIN_LABEL + frame.body).hex(),
        "signature": frame.signature.hex(),
        "frame": frame.encode().hex(),
    }

"""protocol/ cannot drift from the code, and says what SPEC.md says.

The first tests regenerate every vector in memory and compare with the files
byte for byte.  The rest read the files as a third party would, with plain
msgpack, hashlib, hmac and cryptography (not statki_net's decoder or
commitment code), and check them against the construction SPEC.md describes.
"""

import hashlib
import hmac
import json
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from statki_net.protocol.logformat import MAGIC, read_log
from statki_net.referee.verify import NamedLog, judge_log, judge_logs
from statki_net.vectors import HAND_WRITTEN, README, generate

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
SPEC = Path(__file__).resolve().parents[2] / "SPEC.md"
REGENERATE = "regenerate with: python -m statki_net.vectors protocol/"


def load(name: str) -> Any:
    return json.loads((PROTOCOL / name).read_text())


def from_json(value: Any) -> Any:
    """The msgpack value a vector's JSON stands for: ``{"bin": hex}`` is a bin."""
    if isinstance(value, dict):
        if set(value) == {"bin"}:
            return bytes.fromhex(value["bin"])
        return {key: from_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_json(item) for item in value]
    return value


# ---------------------------------------------------------------- no drift


def test_every_file_matches_the_code_and_the_generator_is_deterministic() -> None:
    """The files were written by another run of the generator, so their matching this one
    byte for byte is also what shows it deterministic.  Generated once in the whole run,
    not in each worker's collection: the tests below take the files' names from the disk,
    which this test holds to be the generated ones."""
    generated = generate()
    on_disk = {
        path.relative_to(PROTOCOL).as_posix() for path in PROTOCOL.rglob("*") if path.is_file()
    } - HAND_WRITTEN
    assert on_disk == set(generated), REGENERATE
    for name, data in generated.items():
        assert (PROTOCOL / name).read_bytes() == data, f"{name} is stale; {REGENERATE}"


def test_readme_exists() -> None:
    assert "judge_log" in (PROTOCOL / README).read_text()


LOGS = sorted(
    path.name[: -len(".json")]
    for path in (PROTOCOL / "logs").glob("*.json")
    if path.name != "index.json" and not path.name.endswith(".pair.json")
)
PAIRS = sorted(path.name[: -len(".pair.json")] for path in (PROTOCOL / "logs").glob("*.pair.json"))


@pytest.mark.parametrize("name", LOGS)
def test_each_log_gets_its_expected_verdict(name: str) -> None:
    entry = load(f"logs/{name}.json")
    data = (PROTOCOL / "logs" / entry["log"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    assert judge_log(data, entry["log"], every_signature=True).to_json() == entry["expected"]


@pytest.mark.parametrize("name", PAIRS)
def test_each_pair_of_logs_gets_its_expected_reports_together(name: str) -> None:
    entry = load(f"logs/{name}.pair.json")
    logs = [
        NamedLog(log, read_log((PROTOCOL / "logs" / log).read_bytes())) for log in entry["logs"]
    ]
    judged = judge_logs(logs, every_signature=True)
    assert [game.to_json() for game in judged] == entry["expected"]


def test_the_logs_cover_each_kind_of_cheating_once() -> None:
    seen = {e["name"]: (e["standing"], e["end"], e["first"]) for e in load("logs/index.json")}
    assert all(
        standing == "valid" and first is None
        for name, (standing, _, first) in seen.items()
        if name.startswith("honest")
    )
    assert {n for n in seen if n.startswith("honest-")} >= {
        f"honest-{p}"
        for p in ("classic", "corners", "alternate", "five-ships", "salvo", "salvo-count")
    }
    expected = {
        "false-answer-on-move": ("invalid", "cheated", "false-answer"),
        "false-answer-at-reveal": ("invalid", "cheated", "false-answer"),
        "illegal-fleet": ("invalid", "cheated", "illegal-fleet"),
        "bad-reveal": ("invalid", "cheated", "bad-reveal"),
        "bad-signature": ("invalid", None, "bad-signature"),
        "reordered": ("invalid", None, "broken-chain"),
        "spliced": ("invalid", None, "broken-chain"),
        "truncated": ("invalid", None, "damaged"),
        "unfinished": ("unfinished", None, None),
        "missing-reveal": ("unfinished", None, None),
        "timeout-at-reveal": ("valid", "time", None),
        "timeout-in-battle": ("valid", "time", None),
        "out-of-turn": ("valid", "forfeit", "out-of-turn"),
        "refused": ("valid", "refused", None),
    }
    assert {name: seen[name] for name in expected} == expected
    for name, (_, _, first) in expected.items():
        violations = load(f"logs/{name}.json")["expected"]["violations"]
        assert len(violations) == (first is not None), (name, violations)


def test_the_lie_on_the_move_is_caught_on_that_move_and_the_other_at_the_reveal() -> None:
    on_move = load("logs/false-answer-on-move.json")["expected"]
    at_reveal = load("logs/false-answer-at-reveal.json")["expected"]
    for report in (on_move, at_reveal):
        [violation] = report["violations"]
        assert violation["culprit"] == "guest" and report["result"]["winner"] == "host"
        assert report["result"]["culprits"] == ["guest"]
        assert violation["move"] is not None and violation["cell"] is not None
    assert "commitment holds a ship" in on_move["violations"][0]["detail"]
    assert "answered hit, the fleet shows sunk" in at_reveal["violations"][0]["detail"]


# ---------------------------------------------------------------- as a third party reads them


def frames() -> list[dict[str, Any]]:
    return list(load("frames.json")["frames"])


def test_frames_cover_every_message_type() -> None:
    types = {f["map"]["type"] for f in frames()}
    assert types == {
        "hello", "accept", "refuse", "commit", "coin", "shot", "answer",
        "resign", "timeout", "reveal", "verdict", "error",
    }  # fmt: skip


@pytest.mark.parametrize("entry", frames(), ids=lambda e: str(e["name"]))
def test_plain_msgpack_decodes_each_frame_to_the_documented_map(entry: dict[str, Any]) -> None:
    frame = msgpack.unpackb(bytes.fromhex(entry["frame"]), raw=False)
    assert isinstance(frame, list) and len(frame) == 2
    body, signature = frame
    assert body.hex() == entry["body"] and signature.hex() == entry["signature"]
    assert msgpack.unpackb(body, raw=False) == from_json(entry["map"])
    assert hashlib.sha256(b"statki/v1/msg\x00" + body).hexdigest() == entry["hash"]
    keys = load("signing.json")["keys"]
    public = bytes.fromhex(keys[entry["map"]["from"]]["public"])
    Ed25519PublicKey.from_public_bytes(public).verify(signature, b"statki/v1/sign\x00" + body)


def test_game_id_is_the_hash_of_both_hellos() -> None:
    example = load("frames.json")["game_id"]
    host, guest = (bytes.fromhex(example[k]) for k in ("host_hello_body", "guest_hello_body"))

    def h(body: bytes) -> bytes:
        return hashlib.sha256(b"statki/v1/msg\x00" + body).digest()

    game = hashlib.sha256(b"statki/v1/game\x00" + h(host) + h(guest)).hexdigest()
    assert game == example["game"]
    accept = next(f for f in frames() if f["name"] == "accept")
    assert accept["map"]["game"] == {"bin": game}
    assert accept["map"]["prev"] == {"bin": h(guest).hex()}


def test_signing_vectors() -> None:
    signing = load("signing.json")
    for role, key in signing["keys"].items():
        seed = hashlib.sha256(f"statki test key: {role}".encode()).digest()
        assert key["seed"] == seed.hex()
    for vector in signing["vectors"]:
        private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector["seed"]))
        message = bytes.fromhex(vector["message"])
        assert private.sign(message).hex() == vector["signature"]
        if "body" in vector:
            assert message == b"statki/v1/sign\x00" + bytes.fromhex(vector["body"])
    rfc = signing["vectors"][0]  # RFC 8032 7.1 TEST 1, copied from the RFC
    assert rfc["public"] == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    assert rfc["signature"] == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )


def merkle(
    game: bytes, secret: bytes, size: int, ships: set[int]
) -> tuple[list[bytes], list[list[bytes]]]:
    """The salts and every level of the tree, leaves first, as SPEC.md section 9 says."""
    squares = size * size
    salts = [
        hmac.new(secret, b"statki/salt" + game + i.to_bytes(2, "big"), hashlib.sha256).digest()
        for i in range(squares)
    ]
    leaves = [
        hashlib.sha256(
            b"\x00statki/leaf" + game + i.to_bytes(2, "big") + bytes([i in ships]) + salts[i]
        ).digest()
        for i in range(squares)
    ]
    width = 1
    while width < squares:
        width *= 2
    levels = [leaves + [bytes(32)] * (width - squares)]
    while len(levels[-1]) > 1:
        below = levels[-1]
        levels.append(
            [
                hashlib.sha256(b"\x01" + below[j] + below[j + 1]).digest()
                for j in range(0, len(below), 2)
            ]
        )
    return salts, levels


def open_root(game: bytes, square: int, ship: bool, salt: bytes, path: list[bytes]) -> bytes:
    digest = hashlib.sha256(
        b"\x00statki/leaf" + game + square.to_bytes(2, "big") + bytes([ship]) + salt
    ).digest()
    for sibling in path:
        pair = sibling + digest if square & 1 else digest + sibling
        digest = hashlib.sha256(b"\x01" + pair).digest()
        square >>= 1
    return digest


@pytest.mark.parametrize("index", [0, 1])
def test_commitment_vectors_follow_the_spec(index: int) -> None:
    example = load("commitment.json")["examples"][index]
    game, secret = bytes.fromhex(example["game"]), bytes.fromhex(example["secret"])
    ships = {s for ship in example["ships"] for s in ship}
    assert sorted(ships) == example["ship_squares"]
    salts, levels = merkle(game, secret, example["size"], ships)
    assert [s.hex() for s in salts] == example["salts"]
    assert [h.hex() for h in levels[0]] == example["leaves"]
    assert levels[-1][0].hex() == example["root"]
    if "levels" in example:
        assert [[h.hex() for h in level] for level in levels[1:]] == example["levels"]
    root = bytes.fromhex(example["root"])
    for opening in example["openings"]:
        square, ship, salt, path = from_json(opening["wire"])
        assert (square, ship) == (opening["square"], square in ships)
        assert path == [levels[depth][(square >> depth) ^ 1] for depth in range(len(levels) - 1)]
        assert open_root(game, square, ship, salt, path) == root
        assert open_root(game, square, not ship, salt, path) != root


def test_coin_vectors_follow_the_spec() -> None:
    examples = load("coin.json")["examples"]
    assert {e["first"] for e in examples} == {"host", "guest"}
    for e in examples:
        game, host, guest = (bytes.fromhex(e[k]) for k in ("game", "host_coin", "guest_coin"))
        for role, coin in (("host", host), ("guest", guest)):
            commitment = hashlib.sha256(b"statki/coin" + game + role.encode() + coin).hexdigest()
            assert commitment == e[f"{role}_commitment"]
        toss = hashlib.sha256(b"statki/toss" + game + host + guest).digest()
        assert e["first"] == ("host" if toss[-1] % 2 == 0 else "guest")


def test_proofs_in_each_answer_open_the_committed_root() -> None:
    """A third party can check every answer's proofs in a log with the spec alone."""
    data = (PROTOCOL / "logs" / "honest-classic.statki").read_bytes()
    assert data.startswith(MAGIC) and MAGIC.hex() == "89535441544b490d0a1a0a"
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data[len(MAGIC) :])
    records = list(unpacker)
    assert records[0]["log"] == 1
    bodies = [msgpack.unpackb(r["body"], raw=False) for r in records[1:] if "body" in r]
    roots = {b["from"]: b["fleet"] for b in bodies if b["type"] == "commit"}
    game = bodies[2]["game"]
    checked = 0
    for body in bodies:
        if body["type"] == "answer":
            for square, ship, salt, path in body["proofs"]:
                assert open_root(game, square, ship, salt, path) == roots[body["from"]]
                checked += 1
    assert checked > 50


def test_the_spec_worked_example_is_the_vector() -> None:
    """Every full hash SPEC.md's worked example quotes is in commitment.json."""
    spec = SPEC.read_text()
    section = spec[spec.index("### Worked example") : spec.index("## 10.")]
    quoted = set(re.findall(r"\b[0-9a-f]{64}\b", section))
    example = load("commitment.json")["examples"][0]
    known = {example["game"], example["secret"], example["root"], *example["salts"]}
    known |= set(example["leaves"]) | {h for level in example["levels"] for h in level}
    assert len(quoted) >= 10 and quoted <= known


def test_the_guests_proof_follows_the_spec_and_is_in_the_sample_hello() -> None:
    """Recomputed with nothing but hashlib and hmac, from SPEC.md section 3's formula."""
    vector = load("admission.json")
    label = b"statki/v1/proof\x00"
    assert bytes.fromhex(vector["PROOF_LABEL"]) == label
    body = bytes.fromhex(vector["host_hello_body"])
    hashed = hashlib.sha256(b"statki/v1/msg\x00" + body).digest()
    assert hashed.hex() == vector["host_hello_hash"]
    message = label + hashed + bytes.fromhex(vector["guest_key"])
    assert message.hex() == vector["message"]
    secret = bytes.fromhex(vector["secret"])
    assert len(secret) == 16 and vector["invite"].endswith("/" + vector["secret"])
    proof = hmac.new(secret, message, hashlib.sha256).hexdigest()
    assert proof == vector["proof"]
    data = read_log((PROTOCOL / "logs" / "honest-classic.statki").read_bytes())
    host_hello, guest_hello = (msgpack.unpackb(body) for body, _ in data.frames[:2])
    assert host_hello["admit"] == "invite" and guest_hello["proof"].hex() == proof
    assert data.frames[0][0] == body


def test_the_game_tag_and_the_join_follow_the_spec() -> None:
    """The tag recomputed with hmac alone, the join read with msgpack and checked with a
    bare Ed25519 verify, from SPEC.md section 3 ("Admission") and section 6 ("join")."""
    vector = load("admission.json")
    join = vector["join"]
    tag_label, join_label = b"statki/v5/tag\x00", b"statki/v5/join\x00"
    assert bytes.fromhex(join["TAG_LABEL"]) == tag_label
    assert bytes.fromhex(join["JOIN_LABEL"]) == join_label
    secret = bytes.fromhex(vector["secret"])
    tag = hmac.new(secret, tag_label, hashlib.sha256).digest()[:16]
    assert tag.hex() == join["tag"]
    assert msgpack.unpackb(bytes.fromhex(vector["host_hello_body"]))["tag"] == tag
    frame = msgpack.unpackb(bytes.fromhex(join["frame"]))
    body, signature = frame
    assert body.hex() == join["body"] and signature.hex() == join["signature"]
    assert (join_label + body).hex() == join["signed"]
    fields = msgpack.unpackb(body)
    assert fields["type"] == "join" and fields["from"] == "guest" and fields["tag"] == tag
    assert fields["hello"].hex() == vector["host_hello_hash"]
    assert fields["key"].hex() == vector["guest_key"]
    key = Ed25519PublicKey.from_public_bytes(fields["key"])
    key.verify(signature, join_label + body)  # raises if it does not hold
    with pytest.raises(InvalidSignature):
        key.verify(signature, b"statki/v1/sign\x00" + body)


def test_a_rematchs_secret_and_tag_follow_the_spec() -> None:
    """Recomputed with hashlib and hmac alone from SPEC.md section 14 ("Capabilities"): the
    invite's secret keys an HMAC of the label and the game id of the sample hellos, both
    listing ``rematch-secret``; for a game open to anyone, the game id keys the label."""
    vector = load("admission.json")
    rematch = vector["rematch"]
    label = b"statki/v5/rematch\x00"
    assert bytes.fromhex(rematch["REMATCH_LABEL"]) == label and label.hex() in SPEC.read_text()
    bodies = [bytes.fromhex(vector["host_hello_body"])]
    data = read_log((PROTOCOL / "logs" / "honest-classic.statki").read_bytes())
    bodies.append(data.frames[1][0])
    hellos = [msgpack.unpackb(body) for body in bodies]
    assert all(rematch["capability"] in hello["caps"] for hello in hellos)
    hashed = [hashlib.sha256(b"statki/v1/msg\x00" + body).digest() for body in bodies]
    game = hashlib.sha256(b"statki/v1/game\x00" + hashed[0] + hashed[1]).digest()
    assert game.hex() == rematch["game_id"] == load("frames.json")["game_id"]["game"]
    invite = bytes.fromhex(vector["secret"])
    secret = hmac.new(invite, label + game, hashlib.sha256).digest()[:16]
    assert secret.hex() == rematch["secret"]
    tag = hmac.new(secret, b"statki/v5/tag\x00", hashlib.sha256).digest()[:16]
    assert tag.hex() == rematch["tag"]
    # Open to anyone, there is no invite's secret: the game id alone keys it.
    opened = hmac.new(game, label, hashlib.sha256).digest()[:16]
    assert opened.hex() == rematch["open_secret"] != rematch["secret"]
    assert (
        hmac.new(opened, b"statki/v5/tag\x00", hashlib.sha256).digest()[:16].hex()
        == (rematch["open_tag"])
    )

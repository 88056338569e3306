"""The host's screening of one connection, sans I/O: what the first frame back decides."""

from __future__ import annotations

from collections.abc import Callable

import msgpack
import pytest
from peers import key_from, seeded_entropy

from statki_net.game.rules import ruleset_named
from statki_net.protocol.errors import Code
from statki_net.protocol.screening import (
    GuestProven,
    NotAdmitted,
    Refusal,
    ResumeAsked,
    Screening,
    Unwanted,
)
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    PROTOCOL_VERSION,
    Admit,
    Error,
    Frame,
    Header,
    Hello,
    Role,
    game_tag,
    guest_proof,
    sign,
)

SECRET = bytes(range(16))
GUEST = key_from(7)


def host_hello(seed: int) -> Frame:
    """A host's hello, as said on one connection (each has its own nonce)."""
    session = Session(
        Role.HOST,
        key_from(2),
        name="Ala",
        entropy=seeded_entropy(seed),
        rules=ruleset_named("classic"),
        admit=Admit.INVITE,
        tag=game_tag(SECRET),
    )
    session.start(0)
    return session.transcript.frames[0]


def guest_hello(
    host: Frame, *, proof: bytes | None, protocol: int = PROTOCOL_VERSION, signer: object = None
) -> bytes:
    key = GUEST
    hello = Hello(protocol, "t", public_key_bytes(key), "Ola", bytes(32), proof=proof)
    frame = sign(signer or key, Header(Role.GUEST, 1, host.digest), hello)  # type: ignore[arg-type]
    return frame.encode()


def proved(host: Frame, secret: bytes = SECRET) -> bytes:
    return guest_hello(host, proof=guest_proof(secret, host.body, public_key_bytes(GUEST)))


def replayed(host: Frame, elsewhere: Frame) -> bytes:
    """A hello fitting ``host`` with the proof an observer saw on another connection."""
    return guest_hello(host, proof=guest_proof(SECRET, elsewhere.body, public_key_bytes(GUEST)))


def test_the_guest_hello_that_proves_the_secret_is_admitted_even_a_byte_at_a_time() -> None:
    host = host_hello(1)
    data = proved(host) + b"and the accept after it"
    screening = Screening(host, SECRET)
    decisions = [screening.feed(data[i : i + 1]) for i in range(len(data))]
    first = next(i for i, d in enumerate(decisions) if d is not None)
    assert decisions[first] == GuestProven(data[: first + 1])
    assert first == len(proved(host)) - 1, "decided on the hello's last byte"


@pytest.mark.parametrize(
    ("make", "refusal"),
    [
        (lambda host: guest_hello(host, proof=None), Refusal.NOT_INVITED),
        (lambda host: proved(host, bytes(16)), Refusal.NOT_INVITED),
        (lambda host: replayed(host, host_hello(2)), Refusal.NOT_INVITED),
        (lambda host: guest_hello(host, proof=None, protocol=2), Refusal.VERSION),
    ],
)
def test_a_guest_hello_without_the_proof_is_answered_not_admitted(
    make: Callable[[Frame], bytes], refusal: Refusal
) -> None:
    host = host_hello(1)
    decision = Screening(host, SECRET).feed(make(host))
    assert isinstance(decision, NotAdmitted) and decision.refusal is refusal
    assert decision.code is (Code.VERSION if refusal is Refusal.VERSION else Code.NOT_INVITED)


def test_an_open_host_admits_a_hello_without_a_proof() -> None:
    host = host_hello(1)
    data = guest_hello(host, proof=None)
    assert Screening(host, None).feed(data) == GuestProven(data)


def test_what_is_no_guest_hello_is_unwanted() -> None:
    host = host_hello(1)
    other = host_hello(3)
    forged = guest_hello(host, proof=None, signer=key_from(9))
    error = sign(GUEST, Header(Role.GUEST, 1, host.digest), Error("closed", "bye")).encode()
    cases = {
        b"GET / HTTP/1.0\r\n\r\n": Refusal.GARBAGE,
        proved(other): Refusal.NOT_A_GUEST,  # fits another connection's hello
        forged: Refusal.NOT_A_GUEST,
        error: Refusal.NOT_A_GUEST,
        msgpack.packb([b"x", bytes(64)]): Refusal.GARBAGE,
    }
    for data, refusal in cases.items():
        assert Screening(host, SECRET).feed(data) == Unwanted(refusal), data[:20]


def test_a_resume_is_routed_by_its_game_with_whatever_follows() -> None:
    host = host_hello(1)
    body = msgpack.packb({"type": "resume", "game": bytes(32), "nonce": b"n"})
    frame = msgpack.packb([body, bytes(64)])
    screening = Screening(host, SECRET)
    assert screening.feed(frame[:5]) is None
    decision = screening.feed(frame[5:] + b"rest")
    assert decision == ResumeAsked(bytes(32), frame, b"rest")
    hello = host.message
    assert isinstance(hello, Hello) and screening.challenge == hello.nonce

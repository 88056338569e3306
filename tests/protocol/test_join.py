"""The guest's ``join`` (protocol 5), sans I/O: its encoding, the host's screening of it, and
the guest's choice to send it (SPEC.md, section 3, "Admission", and section 6, "join")."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import key_from, seeded_entropy

from statki_net.game.rules import ruleset_named
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.screening import (
    GuestProven,
    JoinAsked,
    NotAdmitted,
    Refusal,
    ResumeAsked,
    Screening,
    Unwanted,
    wants_join,
)
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    GENESIS,
    JOIN_LABEL,
    MAX_JOIN,
    PROTOCOL_VERSION,
    TAG_SIZE,
    Admit,
    Frame,
    FrameReader,
    Header,
    Hello,
    Join,
    Limits,
    Role,
    game_tag,
    guest_proof,
    join_signature_valid,
    message_hash,
    read_join,
    sign,
    sign_join,
)

SECRET = bytes(range(16))
TAG = game_tag(SECRET)
GUEST = key_from(7)
GUEST_KEY = public_key_bytes(GUEST)


def host_session(seed: int, *, secret: bytes | None = SECRET, joinable: bool = True) -> Session:
    session = Session(
        Role.HOST,
        key_from(2),
        name="Ala",
        entropy=seeded_entropy(seed),
        rules=ruleset_named("classic"),
        admit=Admit.INVITE if secret is not None else Admit.OPEN,
        tag=game_tag(secret) if secret is not None else None,
    )
    session.joinable = joinable
    session.start(0)
    return session


def host_hello(seed: int, **kwargs: object) -> Frame:
    return host_session(seed, **kwargs).transcript.frames[0]  # type: ignore[arg-type]


def join_for(host: Frame, tag: bytes | None = TAG, signer: object = None) -> bytes:
    join = Join(GUEST_KEY, message_hash(host.body), tag, 5)
    return sign_join(signer or GUEST, join).encode()  # type: ignore[arg-type]


def proved(host: Frame, key: object = GUEST) -> bytes:
    public = public_key_bytes(key)  # type: ignore[arg-type]
    proof = guest_proof(SECRET, host.body, public)
    hello = Hello(PROTOCOL_VERSION, "t", public, "Ola", bytes(32), proof=proof)
    return sign(key, Header(Role.GUEST, 1, host.digest), hello).encode()  # type: ignore[arg-type]


tags = st.none() | st.binary(min_size=TAG_SIZE, max_size=TAG_SIZE)


@settings(max_examples=60, deadline=None)
@given(tag=tags, at=st.integers(-(2**63), 2**63 - 1), hello=st.binary(min_size=32, max_size=32))
def test_a_join_reads_back_as_written_and_its_signature_holds_only_over_its_label(
    tag: bytes | None, at: int, hello: bytes
) -> None:
    frame = sign_join(GUEST, Join(GUEST_KEY, hello, tag, at))
    [value] = FrameReader().values(frame.encode())
    read = read_join(value)
    assert read == frame and read.join == Join(GUEST_KEY, hello, tag, at)
    assert len(read.body) <= MAX_JOIN and join_signature_valid(read)
    assert GUEST.public_key().verify(read.signature, JOIN_LABEL + read.body) is None
    tampered = msgpack.unpackb(read.body)
    tampered["at"] = at ^ 1 if -(2**62) < at < 2**62 else 0
    forged = read_join([msgpack.packb(tampered), read.signature])
    assert not join_signature_valid(forged)


@settings(max_examples=60, deadline=None)
@given(
    fields=st.dictionaries(
        st.sampled_from(["from", "key", "hello", "tag", "at", "x"]),
        st.none()
        | st.booleans()
        | st.integers(-(2**63), 2**64 - 1)
        | st.binary(max_size=40)
        | st.text(max_size=8),
    )
)
def test_a_join_with_any_wrong_field_is_refused_never_misread(fields: dict[str, object]) -> None:
    body = msgpack.packb({"type": "join", **fields})
    try:
        read = read_join([body, bytes(64)])
    except ProtocolError:
        return
    join = read.join
    assert fields["from"] == "guest" and isinstance(fields["at"], int)
    assert join.key == fields["key"] and len(join.key) == 32 and len(join.hello) == 32
    assert join.tag == fields.get("tag") and (join.tag is None or len(join.tag) == TAG_SIZE)


def test_the_tag_is_the_hmac_of_the_label_under_the_secret_and_differs_by_secret() -> None:
    assert len(TAG) == TAG_SIZE and game_tag(bytes(16)) != TAG
    assert SECRET.hex() not in TAG.hex()


def test_a_join_bound_to_this_hello_and_signed_names_its_game_with_what_follows() -> None:
    host = host_hello(1)
    data = join_for(host) + b"more"
    screening = Screening(host, SECRET)
    decisions = [screening.feed(data[i : i + 1]) for i in range(len(data))]
    first = next(i for i, d in enumerate(decisions) if d is not None)
    assert decisions[first] == JoinAsked(TAG, GUEST_KEY, b"")
    assert first == len(join_for(host)) - 1, "decided on the join's last byte"
    assert Screening(host, SECRET).feed(data) == JoinAsked(TAG, GUEST_KEY, b"more")
    assert Screening(host, SECRET).feed(join_for(host, None)) == JoinAsked(None, GUEST_KEY, b"")


def test_a_join_of_another_connection_a_forged_or_ill_formed_one_is_closed_unanswered() -> None:
    host, other = host_hello(1), host_hello(3)
    signed_by_another = join_for(host, signer=key_from(9))
    too_large = msgpack.packb([msgpack.packb({"type": "join", "pad": bytes(MAX_JOIN)}), bytes(64)])
    for data in (join_for(other), signed_by_another, too_large):
        assert Screening(host, SECRET).feed(data) == Unwanted(Refusal.BAD_JOIN)


def test_after_a_join_only_a_hello_with_the_joins_key_is_admitted() -> None:
    first, named = host_hello(1), host_hello(2)
    joined = Screening(named, SECRET, GUEST_KEY)
    assert joined.feed(proved(named)) == GuestProven(proved(named))
    assert Screening(named, SECRET, GUEST_KEY).feed(join_for(named)) == Unwanted(
        Refusal.BAD_JOIN
    ), "one join a connection"
    assert Screening(named, SECRET, GUEST_KEY).feed(proved(named, key_from(9))) == Unwanted(
        Refusal.NOT_A_GUEST
    ), "not the key that joined"
    resume = msgpack.packb([msgpack.packb({"type": "resume", "game": bytes(32)}), bytes(64)])
    assert isinstance(Screening(first, SECRET).feed(resume), ResumeAsked)
    assert Screening(named, SECRET, GUEST_KEY).feed(resume) == Unwanted(Refusal.NOT_A_GUEST)
    wrong = Screening(named, bytes(16), GUEST_KEY).feed(proved(named))
    assert isinstance(wrong, NotAdmitted) and wrong.refusal is Refusal.NOT_INVITED


@pytest.mark.parametrize(
    ("tag", "join", "mine", "wanted"),
    [
        (TAG, True, TAG, False),  # the hello is of the invite's game
        (TAG, True, game_tag(bytes(16)), True),  # another game's, and others wait
        (TAG, True, None, True),  # no secret: the open game, if one waits
        (None, True, None, False),  # the open game's hello, and no secret
        (None, True, TAG, True),  # the open game's, but an invite of another
        (TAG, False, game_tag(bytes(16)), False),  # one game only: as version 4 did
        (None, False, TAG, False),
    ],
)
def test_a_guest_joins_only_where_others_wait_and_the_hello_is_of_another_game(
    tag: bytes | None, join: bool, mine: bytes | None, wanted: bool
) -> None:
    hello = Hello(PROTOCOL_VERSION, "t", bytes(32), "Ala", bytes(32), tag=tag, join=join)
    assert wants_join(hello, mine) is wanted


def guest(secret: bytes | None) -> Session:
    session = Session(
        Role.GUEST, GUEST, name="Ola", entropy=seeded_entropy(4), invite_secret=secret
    )
    session.start(0)
    return session


def test_the_guest_joins_keeps_nothing_of_that_hello_and_plays_the_named_game() -> None:
    other = host_session(1, secret=bytes(16))
    me = guest(SECRET)
    events = me.receive_data(other.data_to_send(), 10)
    assert events == [] and me.transcript.frames == [], "the first hello is no game's"
    [value] = FrameReader().values(me.data_to_send())
    join = read_join(value)
    assert join.join == Join(GUEST_KEY, other.transcript.frames[0].digest, TAG, 10)
    named = host_session(2, joinable=False)
    me.receive_data(named.data_to_send(), 20)
    assert me.transcript.frames == named.transcript.frames[:1] + me.transcript.frames[1:]
    hello = me.transcript.frames[1].message
    assert isinstance(hello, Hello) and hello.proof == guest_proof(
        SECRET, named.transcript.frames[0].body, GUEST_KEY
    )


def test_the_guest_told_not_invited_after_its_join_ends_with_no_game() -> None:
    other = host_session(1, secret=bytes(16))
    me = guest(SECRET)
    me.receive_data(other.data_to_send(), 10)
    other.abort(Code.NOT_INVITED, "no game here waits for the guest of that invite", 20)
    me.receive_data(other.data_to_send(), 30)
    assert me.closed and me.failure is not None and me.failure.code is Code.NOT_INVITED
    assert me.failure.by_peer and me.ending is not None and me.ending.end is End.NO_GAME
    assert me.transcript.frames == []


@pytest.mark.parametrize(("admit", "tag"), [(Admit.INVITE, None), (Admit.OPEN, TAG)])
def test_a_host_hello_whose_tag_does_not_fit_its_admit_is_refused_bad_field(
    admit: Admit, tag: bytes | None
) -> None:
    """A hello that admits by invite carries its game's tag and one open to anyone none
    (SPEC.md section 6, ``tag``): another is the host's signed word breaking the protocol,
    refused with ``bad-field`` as message 0, no game.  A peer written from SPEC.md alone
    refused such a hello where statki took it."""
    host_key = key_from(2)
    hello = Hello(
        PROTOCOL_VERSION,
        "t",
        public_key_bytes(host_key),
        "Ala",
        bytes(32),
        rules=ruleset_named("classic").to_map(),
        limits=Limits().to_map(),
        admit=admit,
        tag=tag,
    )
    me = guest(SECRET)
    me.receive_data(sign(host_key, Header(Role.HOST, 0, GENESIS), hello).encode(), 10)
    [value] = FrameReader().values(me.data_to_send())
    error = msgpack.unpackb(value[0])
    assert (error["type"], error["code"], error["seq"]) == ("error", "bad-field", 0)
    assert me.closed and me.ending is not None and me.ending.end is End.NO_GAME


def test_a_guest_joins_once_and_a_second_hello_of_another_game_is_answered_as_v4_did() -> None:
    me = guest(SECRET)
    me.receive_data(host_session(1, secret=bytes(16)).data_to_send(), 10)
    me.data_to_send()
    me.receive_data(host_session(2, secret=bytes(16)).data_to_send(), 20)
    [value] = FrameReader().values(me.data_to_send())
    assert msgpack.unpackb(value[0])["type"] == "hello", "no second join"


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_no_change_to_a_joins_bytes_names_a_game(data: st.DataObject) -> None:
    """Whatever byte of a good join is altered, the screening never takes it for a join."""
    host = host_hello(1)
    frame = bytearray(join_for(host))
    at = data.draw(st.integers(0, len(frame) - 1))
    frame[at] ^= data.draw(st.integers(1, 255))
    decision = Screening(host, SECRET).feed(bytes(frame))
    assert not isinstance(decision, JoinAsked), (at, decision)

"""A side's own shot or answer is not read back from its bytes when its values say how it
reads (``wire.reads_back_as_built``): the promise, over arbitrary values, and that a real
game's battle takes that path.

Cost: about 2 s (200 hypothesis examples of encoding and decoding, and one game in memory).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from peers import make_pair, play

from statki_net.game.battle import Answer, Outcome
from statki_net.game.rules import ruleset_named
from statki_net.protocol.commitment import Opening
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.wire import (
    Header,
    Message,
    Reply,
    Role,
    Shot,
    decode_body,
    encode_body,
    reads_back_as_built,
)

# Values of the right types and of the wrong ones, in and out of the bounds the decoder checks.
ints = st.one_of(
    st.integers(-5, 70_000), st.integers(2**32 - 2, 2**32 + 2), st.booleans(), st.just(2**64)
)
hashes = st.one_of(st.binary(min_size=32, max_size=32), st.binary(max_size=40))
texts = st.text(max_size=205)
openings = st.builds(
    Opening,
    square=ints,
    ship=st.one_of(st.booleans(), st.integers(0, 2)),
    salt=hashes,
    path=st.one_of(st.tuples(), st.lists(hashes, max_size=18).map(tuple)),
)
outcomes = st.one_of(st.sampled_from(Outcome), st.sampled_from(["miss", "hit"]))
answers = st.builds(
    Answer,
    outcomes=st.lists(outcomes, max_size=4).map(tuple),
    hits=ints,
    sunk=ints,
    names=st.one_of(st.lists(texts, max_size=3).map(tuple), st.lists(texts, max_size=2)),
)
messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(Shot, st.one_of(st.lists(ints, max_size=5).map(tuple), st.lists(ints, max_size=2))),
    st.builds(Reply, answers, st.lists(openings, max_size=3).map(tuple)),
)
headers = st.builds(
    Header,
    sender=st.sampled_from(Role),
    seq=ints,
    prev=hashes,
    game=st.one_of(st.just(b""), hashes),
    at=st.one_of(ints, st.integers(-(2**63), 2**63)),
)


@settings(max_examples=200, deadline=None)
@given(headers, messages)
def test_values_known_to_read_back_do_read_back_as_themselves(
    header: Header, message: Message
) -> None:
    if not reads_back_as_built(header, message):
        return
    try:
        body = encode_body(header, message)
        read = decode_body(body)
    except (ProtocolError, TypeError, ValueError, OverflowError) as error:
        raise AssertionError(f"promised to read back, but: {error!r}") from None
    assert read == (header, message)
    assert type(read[1]) is type(message)


def test_plain_values_of_every_shape_are_known() -> None:
    """The promise is not vacuous: shots and answers as a game makes them are covered."""
    header = Header(Role.HOST, 7, bytes(32), bytes(range(32)), 1_764_000_000_000)
    opening = Opening(3, True, bytes(32), tuple(bytes([i]) * 32 for i in range(7)))
    assert reads_back_as_built(header, Shot((0, 99)))
    assert reads_back_as_built(
        header, Reply(Answer((Outcome.SUNK,), 1, 1, ("cruiser",)), (opening,))
    )
    assert not reads_back_as_built(header, Shot((True,)))
    assert not reads_back_as_built(Header(Role.HOST, 1, bytes(32), bytes(32)), Shot((1,)))


def test_a_real_games_battle_is_never_read_back() -> None:
    """Every shot and answer a real game's sessions sign takes the path without the read-back
    (else the speed-up would be silently lost), and the game ends as it always did."""
    pair = make_pair(ruleset_named("classic"), 5)
    play(pair, 5)
    host, guest = pair.host, pair.guest
    battle = [
        frame
        for session in (host, guest)
        for frame in session.transcript.frames
        if frame.header.sender is session.role and isinstance(frame.message, Shot | Reply)
    ]
    assert len(battle) > 50
    assert all(reads_back_as_built(f.header, f.message) for f in battle)
    assert all(decode_body(f.body) == (f.header, f.message) for f in battle)
    assert host.transcript.ending is not None
    assert host.transcript.ending == guest.transcript.ending

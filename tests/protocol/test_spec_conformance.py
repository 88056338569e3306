"""What SPEC.md promises about framing and the handshake, checked on the real code."""

import msgpack
import pytest
from peers import make_pair

from statki_net.game.rules import PRESETS
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import (
    MAX_FRAME,
    Error,
    FrameReader,
    Header,
    Hello,
    Role,
    sign,
    signature_valid,
)


def test_many_frames_in_one_read_are_all_read() -> None:
    pair = make_pair(PRESETS["classic"], seed=1)
    pair.host.start(pair.now)
    hello = pair.host.data_to_send()
    # Far more than MAX_FRAME arriving at once must not look like one large frame.
    frames = list(FrameReader().feed(hello * (2 * MAX_FRAME // len(hello) + 2)))
    assert len(frames) == 2 * MAX_FRAME // len(hello) + 2
    assert {f.body for f in frames} == {frames[0].body}


@pytest.mark.parametrize("piece", [None, 1000])
def test_a_body_over_max_frame_is_too_large(piece: int | None) -> None:
    big = bytes(msgpack.packb([b"\x80" * (MAX_FRAME + 1), bytes(64)], use_bin_type=True))
    reader = FrameReader()
    step = piece or len(big)
    with pytest.raises(ProtocolError) as caught:
        for start in range(0, len(big), step):
            list(reader.feed(big[start : start + step]))
    assert caught.value.code == Code.TOO_LARGE


def test_a_huge_declared_body_is_too_large_before_it_all_arrives() -> None:
    header = b"\x92\xc6" + (10 * MAX_FRAME).to_bytes(4, "big")
    reader = FrameReader()
    with pytest.raises(ProtocolError) as caught:
        list(reader.feed(header + bytes(2 * MAX_FRAME)))
    assert caught.value.code == Code.TOO_LARGE


def test_an_error_before_the_game_id_can_be_read() -> None:
    """The host refuses a hello of another version before any game id exists; the
    error it sends has no ``game`` key and the guest must still read it."""
    pair = make_pair(PRESETS["classic"], seed=2)
    pair.host.start(pair.now)
    host_hello = next(iter(FrameReader().feed(pair.host.data_to_send())))
    hello = Hello(1, "other", public_key_bytes(pair.guest.key), "Olek", bytes(32))
    header = Header(Role.GUEST, 1, host_hello.digest, b"", pair.now)
    pair.host.receive_data(sign(pair.guest.key, header, hello).encode(), pair.now + 1)
    assert pair.host.failure is not None and pair.host.failure.code is Code.VERSION
    [error] = [e.open() for e in FrameReader().feed(pair.host.data_to_send())]
    assert isinstance(error.message, Error) and error.message.code == Code.VERSION.value
    assert error.header.game == b"" and "game" not in msgpack.unpackb(error.body)
    assert host_hello.hello_key is not None and signature_valid(host_hello.hello_key, error)

"""What a damaged frame is, said in the reader's language: ``statki verify`` printed "body
is not one msgpack value" on a Polish screen.  The wire and the logs keep the English."""

from __future__ import annotations

import msgpack
import pytest

from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.wire import FrameReader, read_envelope
from statki_net.store.language import speak, words

DAMAGED = {
    "not one msgpack value": [b"\xc1", bytes(64)],
    "not a map": [msgpack.packb([1]), bytes(64)],
    "a short signature": [msgpack.packb({}), bytes(8)],
    "not [body, signature]": [b"x"],
}


@pytest.mark.parametrize("damage", list(DAMAGED))
def test_a_damaged_frame_is_said_in_polish_and_kept_in_english(damage: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        read_envelope(DAMAGED[damage])
    error = raised.value
    assert error.code is Code.MALFORMED
    speak("pl")
    try:
        polish = error.said.in_words(words())
    finally:
        speak("en")
    assert polish != error.detail, f"not translated: {polish}"
    assert error.said.in_words(words()) == error.detail, "English as before"


def test_bytes_that_are_no_frame_are_said_in_polish() -> None:
    with pytest.raises(ProtocolError) as raised:
        list(FrameReader().feed(b"\xc1"))
    speak("pl")
    try:
        assert "uszkodzone bajty" in raised.value.said.in_words(words())
    finally:
        speak("en")
    assert raised.value.detail == "not a msgpack frame"

"""NAT-PMP's messages against RFC 6886's layouts (sections 3.2, 3.3, 3.5), byte for byte."""

from __future__ import annotations

from statki_net.protocol.natpmp import (
    ExternalAddress,
    Failed,
    Granted,
    ResultCode,
    external_address_request,
    mapping_request,
    read_reply,
)


def test_the_requests_are_the_rfcs_layouts() -> None:
    # 3.2: version 0, opcode 0.
    assert external_address_request() == bytes.fromhex("0000")
    # 3.3: version 0, opcode 2 (TCP), reserved 0, internal port, suggested external port,
    # requested lifetime in seconds (7200, the RFC's recommendation).
    assert mapping_request(47470, 47470, 7200) == bytes.fromhex("00020000b96eb96e00001c20")
    # 3.4: removal is a lifetime of 0 with a suggested external port of 0.
    assert mapping_request(47470, 0, 0) == bytes.fromhex("00020000b96e000000000000")


def test_the_replies_read_as_typed_values() -> None:
    # 3.2: version, opcode 128, result 0, seconds since the epoch, external IPv4 address.
    assert read_reply(bytes.fromhex("00800000000004d20b000101")) == ExternalAddress(
        1234, "11.0.1.1"
    )
    # 3.3: version, opcode 130, result, epoch, internal port, mapped external port, lifetime.
    assert read_reply(bytes.fromhex("008200000000162eb96eb96f00000e10")) == Granted(
        5678, 47470, 47471, 3600
    )
    # 3.5: a result code other than 0 (2: not authorized / refused).
    refused = read_reply(bytes.fromhex("0082000200000001b96e000000000000"))
    assert refused == Failed(2, ResultCode.NOT_AUTHORIZED)
    assert isinstance(refused, Failed) and refused.reason() == "NAT-PMP: not authorized"
    assert Failed(2, 99).reason() == "NAT-PMP: result code 99"


def test_what_is_no_reply_of_ours_is_ignored() -> None:
    for data in (
        b"",
        bytes.fromhex("0080"),  # too short
        bytes.fromhex("01800000000004d20b000101"),  # another version
        bytes.fromhex("00020000b96eb96e00001c20"),  # a request, not a reply
        bytes.fromhex("00810000000004d20b000101"),  # a reply to UDP mapping: not asked for
        bytes.fromhex("0082000000000001b96e"),  # a mapping reply cut short
    ):
        assert read_reply(data) is None, data.hex()

"""NAT-PMP (RFC 6886) messages: what a host sends its router and what comes back.

Sans I/O: bytes in, typed values out.  The UDP exchange (port 5351 of the
default gateway, retransmitted at 250 ms, doubling) is
``statki_net.net.portmap``'s.  Only what statki asks is here: the external
address (opcode 0) and a TCP mapping (opcode 2), its renewal (the same
request again) and its removal (a lifetime of 0).  Written by hand because
PyPI's NAT-PMP clients block and find the gateway by running other programs
(README, "Dependencies").
"""

from __future__ import annotations

import enum
import ipaddress
import struct
from dataclasses import dataclass

PORT = 5351
"""Where the router listens (RFC 6886, section 3.1)."""
VERSION = 0
OP_EXTERNAL_ADDRESS = 0
OP_MAP_TCP = 2
REPLY = 128
"""Added to the request's opcode in its reply."""


class ResultCode(enum.IntEnum):
    """RFC 6886, section 3.5."""

    SUCCESS = 0
    UNSUPPORTED_VERSION = 1
    NOT_AUTHORIZED = 2
    """The router has NAT-PMP switched off, or refuses this client."""
    NETWORK_FAILURE = 3
    """The router has no external address yet (say, its uplink is down)."""
    OUT_OF_RESOURCES = 4
    UNSUPPORTED_OPCODE = 5


@dataclass(frozen=True)
class ExternalAddress:
    epoch: int
    """Seconds since the router's mapping table began (a reset shows as a smaller one)."""
    address: str


@dataclass(frozen=True)
class Granted:
    """A TCP mapping the router made (or removed, with a lifetime of 0)."""

    epoch: int
    internal_port: int
    external_port: int
    lifetime_s: int


@dataclass(frozen=True)
class Failed:
    """The router answered with a result code other than success."""

    opcode: int
    code: int

    def reason(self) -> str:
        try:
            return f"NAT-PMP: {ResultCode(self.code).name.lower().replace('_', ' ')}"
        except ValueError:
            return f"NAT-PMP: result code {self.code}"


Reply = ExternalAddress | Granted | Failed


def external_address_request() -> bytes:
    return struct.pack(">BB", VERSION, OP_EXTERNAL_ADDRESS)


def mapping_request(internal_port: int, external_port: int, lifetime_s: int) -> bytes:
    """Ask for ``internal_port`` at ``external_port`` (a suggestion) for ``lifetime_s`` seconds;
    a lifetime of 0 (with external port 0) removes the client's mapping of the port."""
    return struct.pack(">BBHHHI", VERSION, OP_MAP_TCP, 0, internal_port, external_port, lifetime_s)


def read_reply(data: bytes) -> Reply | None:
    """The reply in one datagram; None for one that is not a NAT-PMP reply (ignored, as the RFC
    says of replies that do not parse)."""
    if len(data) < 8:
        return None
    version, opcode, code, epoch = struct.unpack_from(">BBHI", data)
    if version != VERSION or opcode not in (REPLY + OP_EXTERNAL_ADDRESS, REPLY + OP_MAP_TCP):
        return None
    if code != ResultCode.SUCCESS:
        return Failed(opcode - REPLY, code)
    if opcode == REPLY + OP_EXTERNAL_ADDRESS and len(data) >= 12:
        return ExternalAddress(epoch, str(ipaddress.IPv4Address(data[8:12])))
    if opcode == REPLY + OP_MAP_TCP and len(data) >= 16:
        internal, external, lifetime = struct.unpack_from(">HHI", data, 8)
        return Granted(epoch, internal, external, lifetime)
    return None

"""Invites: how a host tells a guest where to connect and whose key to expect.

An invite is one token, ``statki://ADDRESS[,ADDRESS...]/KEY/SECRET``: each
address is ``HOST:PORT`` (an IPv6 host in brackets, ``[2001:db8::7]:47470``),
tried in order; ``KEY`` is the host's Ed25519 public key, 64 hex digits.  The
joiner refuses to play when the host's hello carries another key, so no one
between them can pose as the host.  ``SECRET``, 32 hex digits, is fresh for
every hosted game: the guest proves it holds it (never sending it), so only the
invited guest gets in.  An invite without ``/SECRET`` (protocol version 2's
form) and a bare ``HOST:PORT`` are also read: they get in only where the host
is open to anyone.  Pure: text in, values out.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from statki_net.game.english import N_
from statki_net.game.errors import UsageError
from statki_net.game.words import Term, phrase
from statki_net.protocol.wire import INVITE_SECRET_SIZE

SCHEME = "statki://"
DEFAULT_PORT = 47470
"""The port ``statki daemon`` and ``statki host`` listen on unless told otherwise."""
KEY_SIZE = 32
SECRET_SIZE = INVITE_SECRET_SIZE
MAX_INVITE = 2000

Address = tuple[str, int]

HOST_NAME = re.compile(
    r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?", re.ASCII
)
"""A DNS name: labels of letters, digits, hyphens (and the underscores some networks use)."""


@dataclass(frozen=True)
class Invite:
    addresses: tuple[Address, ...]
    key: bytes | None
    """The host's public key; None for a bare address, which cannot be authenticated."""
    secret: bytes | None = None
    """The one-time secret that admits the guest; None: only a host open to anyone admits it."""


def format_address(address: Address) -> str:
    host, port = address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def parse_address(
    text: str, default_port: int | None = None, *, listening: bool = False
) -> Address:
    """``HOST:PORT``, ``[V6]:PORT``, or a bare host when ``default_port`` is given.

    Port 0 (any free port) is allowed only for an address to listen on.
    """
    text = text.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not host:
            raise UsageError(
                phrase(
                    N_("{typed}: an IPv6 address goes in brackets: [2001:db8::7]:47470"),
                    typed=repr(text),
                )
            )
        port_text = rest[1:] if rest.startswith(":") else None
        if rest and port_text is None:
            raise UsageError(
                phrase(N_("{typed}: expected :PORT after the bracket"), typed=repr(text))
            )
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    elif text.count(":") > 1:
        raise UsageError(
            phrase(
                N_("{typed}: put an IPv6 address in brackets: [{text}]:{port}"),
                typed=repr(text),
                text=text,
                port=DEFAULT_PORT,
            )
        )
    else:
        host, port_text = text, None
    if not host:
        raise UsageError(phrase(N_("{typed}: the host is missing"), typed=repr(text)))
    if not _is_host(host, bracketed=text.startswith("[")):
        raise UsageError(
            phrase(
                N_("{typed}: the host is neither an IP address nor a host name"), typed=repr(text)
            )
        )
    if port_text is None:
        if default_port is None:
            raise UsageError(
                phrase(N_("{typed}: the port is missing (HOST:PORT)"), typed=repr(text))
            )
        return host, default_port
    lowest = 0 if listening else 1
    if not (port_text.isascii() and port_text.isdigit()) or not lowest <= int(port_text) < 65536:
        raise UsageError(
            phrase(
                N_("{typed}: the port must be a number from {lowest} to 65535"),
                typed=repr(text),
                lowest=lowest,
            )
        )
    return host, int(port_text)


def _is_host(host: str, *, bracketed: bool) -> bool:
    """An IPv6 address in brackets (a zone allowed); else an IPv4 address or a DNS name."""
    if bracketed:
        try:
            return ipaddress.ip_address(host).version == 6
        except ValueError:
            return False
    return len(host) <= 253 and HOST_NAME.fullmatch(host) is not None


def format_invite(
    addresses: list[Address] | tuple[Address, ...], key: bytes, secret: bytes | None = None
) -> str:
    if not addresses:
        raise UsageError(phrase(N_("an invite needs at least one address")))
    text = SCHEME + ",".join(format_address(a) for a in addresses) + "/" + key.hex()
    return text + "/" + secret.hex() if secret is not None else text


def parse_invite(text: str) -> Invite:
    """Read an invite, with or without its secret, or a bare ``HOST:PORT`` (no key).

    White space anywhere is dropped: an invite copied from a screen that broke
    it over lines reads back whole.
    """
    text = "".join(text.split())
    if len(text) > MAX_INVITE:
        raise UsageError(phrase(N_("the invite is too long")))
    if not text.startswith(SCHEME):
        if "://" in text:
            raise UsageError(
                phrase(N_("not a statki invite: it must begin {scheme}"), scheme=SCHEME)
            )
        return Invite((parse_address(text, DEFAULT_PORT),), None)
    where, slash, rest = text[len(SCHEME) :].partition("/")
    key_text, _, secret_text = rest.partition("/")
    if not slash or not key_text:
        raise UsageError(phrase(N_("the invite has no host key after the addresses")))
    key = _hex(key_text, KEY_SIZE, N_("host key"))
    secret = _hex(secret_text, SECRET_SIZE, N_("secret")) if secret_text else None
    addresses = tuple(parse_address(part) for part in where.split(",") if part.strip())
    if not addresses:
        raise UsageError(phrase(N_("the invite names no address")))
    return Invite(addresses, key, secret)


def _hex(text: str, size: int, what: str) -> bytes:
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise UsageError(phrase(N_("the invite's {what} is not hex"), what=Term(what))) from None
    if len(value) != size or len(text) != size * 2:
        raise UsageError(
            phrase(
                N_("the invite's {what} must be {digits} hex digits"),
                what=Term(what),
                digits=size * 2,
            )
        )
    return value

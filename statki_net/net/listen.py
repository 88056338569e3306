"""TCP plumbing shared by the daemon, ``host`` and ``join``: listening, addresses, keepalive.

Dialling out is ``statki_net.net.dialer``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import socket
from collections.abc import Awaitable, Callable

from statki_net.game.errors import UsageError
from statki_net.net.invite import DEFAULT_PORT, Address, format_address
from statki_net.protocol.wire import READ_SIZE

ConnectHandler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]

BACKLOG = 512
"""Connections the kernel queues before they are accepted: room for a burst as large as
the admission screens at once, so a guest arriving in one is not refused."""
ANY_ADDRESSES = ("::", "0.0.0.0")
"""Where to listen by default: every IPv6 and every IPv4 address, on one port."""


def quiet_on_cancel(on_connect: ConnectHandler) -> ConnectHandler:
    """``on_connect``, but a cancelled connection task ends quietly.

    At shutdown asyncio cancels the tasks still serving connections; in
    Python 3.11 the streams' done-callback then asks the cancelled task for its
    exception, which raises, and the loop prints a ``CancelledError`` traceback.
    The task is at its top here: nothing above it waits for the cancellation.
    """

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await on_connect(reader, writer)
        except asyncio.CancelledError:
            writer.close()

    return serve


PORT_TRIES = 16
"""Ports picked in turn when the one picked for the first address is taken on another."""


class _PortTaken(Exception):
    """The port picked on one address is in use on another: pick another."""


async def listen(addresses: list[Address], on_connect: ConnectHandler) -> list[asyncio.Server]:
    """Listen on each address; port 0 on the first picks a port the others then share.

    The kernel picks a port free on the first address only (an IPv6 socket's
    ports are apart from IPv4's), so the others may find it taken: then the
    port is given up and another picked, up to ``PORT_TRIES`` times, so that
    ``::`` and ``0.0.0.0`` never end up on different ports, or one of them
    silently on none.  Addresses that cannot be bound for any other reason (no
    IPv6 on this machine, say) are passed over as long as one can; when none
    can, the first error is raised as a one-line UsageError.
    """
    for _ in range(PORT_TRIES - 1):
        with contextlib.suppress(_PortTaken):
            return await _listen_once(addresses, on_connect, retry=True)
    return await _listen_once(addresses, on_connect, retry=False)


async def _listen_once(
    addresses: list[Address], on_connect: ConnectHandler, *, retry: bool
) -> list[asyncio.Server]:
    servers: list[asyncio.Server] = []
    errors: list[str] = []
    chosen_port = 0
    for host, port in addresses:
        shared = not port and chosen_port
        port = port or chosen_port
        try:
            server = await asyncio.start_server(
                quiet_on_cancel(on_connect), host, port, limit=READ_SIZE, backlog=BACKLOG
            )
        except OSError as error:
            if retry and shared and error.errno == errno.EADDRINUSE:
                for server in servers:
                    server.close()
                raise _PortTaken from error
            errors.append(f"cannot listen on {format_address((host, port))}: {error.strerror}")
            continue
        servers.append(server)
        if not chosen_port:
            chosen_port = bound_addresses([server])[0][1]
    if not servers:
        raise UsageError(errors[0] if errors else "nowhere to listen")
    return servers


def default_listen(port: int = DEFAULT_PORT) -> list[Address]:
    return [(host, port) for host in ANY_ADDRESSES]


def bound_addresses(servers: list[asyncio.Server]) -> list[Address]:
    found: list[Address] = []
    for server in servers:
        for sock in server.sockets:
            name = sock.getsockname()
            found.append((str(name[0]), int(name[1])))
    return found


def visible_addresses(port: int) -> list[Address]:
    """Addresses of this machine that others might reach: the outgoing IPv4 and IPv6 ones.

    Finding them sends nothing: connecting a UDP socket only picks a route.
    Loopback is the last resort, for a machine with no network at all.
    """
    found: list[Address] = []
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            address = str(sock.getsockname()[0])
            if not address.startswith(("127.", "::1", "fe80")):
                found.append((address, port))
    return found or [("127.0.0.1", port)]


def peer_text(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    if not peer:
        return ""
    return format_address((str(peer[0]), int(peer[1])))


def enable_keepalive(writer: asyncio.StreamWriter) -> None:
    """Let the kernel notice a peer that vanished without closing (a half-open connection)."""
    sock = writer.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        for option, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3)):
            if hasattr(socket, option):
                sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

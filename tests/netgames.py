"""Whole network games in this process: two ``GameConnection``s over real loopback TCP.

``play_over_loopback`` runs a host and a guest, each a computer player, on
one clock (``statki_net.net.clock``; a ``ScaledClock`` lets a test wait out
the protocol's minute-long limits in a fraction of a second).  Between them
may stand a ``CuttingProxy``: it forwards the bytes of whole frames both ways
and, after a given number of frames, cuts both connections, as a network that
fails would.  What each side then does alone is what is tested.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import Ruleset
from statki_net.net.bot import attach_computer
from statki_net.net.clock import Clock
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.notices import Notice
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import MAX_FRAME, Limits, Role

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]

SHORTEST = Limits(move_ms=60_000, reveal_ms=30_000)
"""The shortest limits the protocol allows: with a fast clock, the waits still pass quickly."""


class CuttingProxy:
    """Forwards whole frames between a guest and a host; after ``cut_after`` frames, cuts.

    Frames are counted in both directions together, in the order they reach
    the proxy: with ``cut_after`` = *k*, frames 0 to *k* - 1 arrive and frame
    *k* (whoever sent it) is lost with everything after it.  None: never cut.
    """

    def __init__(
        self,
        host_port: int,
        cut_after: int | None,
        *,
        heals: bool = False,
        silent_host: bool = False,
    ) -> None:
        self.host_port = host_port
        self.cut_after = cut_after
        self.silent_host = silent_host
        """At the cut, close only the guest's connection: the host's stays open and silent,
        as when a network fails without a word to one side, until the proxy closes."""
        self.heals = heals
        """After the cut, pass every later connection on whole: a network that comes back."""
        self.healed = 0
        """Connections passed on whole after the cut."""
        self.forwarded = 0
        """Frames passed on so far, both ways."""
        self.cut = asyncio.Event()
        self.senders: list[Role] = []
        """Who sent each frame passed on or cut at, in order."""
        self.server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []

    async def open(self) -> int:
        """Start listening for the guest; the port to give it."""
        self.server = await asyncio.start_server(self._on_guest, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        self.cut_now()
        for writer in self._writers:
            writer.close()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _on_guest(
        self, guest_reader: asyncio.StreamReader, guest_writer: asyncio.StreamWriter
    ) -> None:
        host_reader, host_writer = await asyncio.open_connection("127.0.0.1", self.host_port)
        if self.heals and self.cut.is_set():
            self.healed += 1
            await asyncio.gather(
                _forward(host_reader, guest_writer), _forward(guest_reader, host_writer)
            )
            return
        self._writers = [guest_writer, host_writer]
        if self.cut_after == 0:
            self.cut_now()
            return
        await asyncio.gather(
            self._pump(host_reader, guest_writer, Role.HOST),
            self._pump(guest_reader, host_writer, Role.GUEST),
        )

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sender: Role
    ) -> None:
        frames = msgpack.Unpacker(raw=True, max_buffer_size=4 * MAX_FRAME)
        passed = 0
        """Bytes of this direction's stream passed on."""
        buffered = b""
        with contextlib.suppress(ConnectionError, OSError):
            while not self.cut.is_set() and (data := await reader.read(65536)):
                frames.feed(data)
                buffered += data
                for _ in frames:
                    end = frames.tell()
                    if self.cut_after is not None and self.forwarded >= self.cut_after:
                        self.senders.append(sender)
                        self.cut_now()
                        return
                    writer.write(buffered[: end - passed])
                    buffered = buffered[end - passed :]
                    passed = end
                    self.forwarded += 1
                    self.senders.append(sender)
                await writer.drain()
        self.cut_now()

    def cut_now(self) -> None:
        """Cut now, whatever the frame count (a test that cuts at a moment of the game)."""
        self.cut.set()
        for writer in self._writers[:1] if self.silent_host else self._writers:
            writer.close()


async def _forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()


@dataclass
class Played:
    """What came of one game over loopback."""

    host: Outcome
    guest: Outcome
    proxy: CuttingProxy
    notices: dict[Role, list[Notice]] = field(default_factory=dict)
    """Every notice each side's front end was told, in order."""

    def outcome(self, role: Role) -> Outcome:
        return self.host if role is Role.HOST else self.guest


def sessions(
    rules: Ruleset, seed: int, limits: Limits = SHORTEST, *, first: Role | None = None
) -> tuple[Session, Session]:
    """A host with a random fleet and a guest, their keys and secrets drawn from ``seed``.

    The game id hashes the hellos, whose ``at`` is the clock's, so the coin toss
    differs from run to run; ``first`` agrees the first shooter instead, and a
    game between the same computer players then has the same moves every time.
    """
    rng = random.Random(seed)
    host = Session(
        Role.HOST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="Ala",
        entropy=random.Random(rng.getrandbits(64)).randbytes,
        rules=rules,
        limits=limits,
        fleet=ComputerPlayer("random", random.Random(seed)).fleet(rules),
        first=first,
    )
    guest = Session(
        Role.GUEST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="Olek",
        entropy=random.Random(rng.getrandbits(64)).randbytes,
        limits=limits,
    )
    return host, guest


@contextlib.asynccontextmanager
async def connected(
    host: Session,
    guest: Session,
    *,
    clock: Clock,
    log_dirs: tuple[Path | None, Path | None] = (None, None),
    cut_after: int | None = None,
) -> AsyncIterator[tuple[GameConnection, GameConnection, CuttingProxy]]:
    """The host's and the guest's connections, joined through a ``CuttingProxy``; not run yet."""
    accepted: asyncio.Queue[Streams] = asyncio.Queue()

    async def on_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put((reader, writer))

    server = await asyncio.start_server(on_host, "127.0.0.1", 0)
    proxy = CuttingProxy(server.sockets[0].getsockname()[1], cut_after)
    port = await proxy.open()
    try:
        guest_streams = await asyncio.open_connection("127.0.0.1", port)
        host_streams = await accepted.get()
        host_conn = GameConnection(host, *host_streams, log_dir=log_dirs[0], clock=clock)
        guest_conn = GameConnection(
            guest,
            *guest_streams,
            log_dir=log_dirs[1],
            clock=clock,
            expect_key=public_key_bytes(host.key),
        )
        yield host_conn, guest_conn, proxy
    finally:
        await proxy.close()
        server.close()
        await server.wait_closed()


async def play_over_loopback(
    host: Session,
    guest: Session,
    *,
    clock: Clock,
    log_dirs: tuple[Path | None, Path | None] = (None, None),
    cut_after: int | None = None,
    seed: int = 1,
    custom_rules: bool = False,
) -> Played:
    """One game between two computer players, through a ``CuttingProxy``; see the module.

    ``custom_rules``: the guest's computer takes rules that are no preset.
    """
    notices: dict[Role, list[Notice]] = {Role.HOST: [], Role.GUEST: []}
    async with connected(host, guest, clock=clock, log_dirs=log_dirs, cut_after=cut_after) as (
        host_conn,
        guest_conn,
        proxy,
    ):
        for role, conn in ((Role.HOST, host_conn), (Role.GUEST, guest_conn)):
            conn.listeners.append(notices[role].append)
            player = ComputerPlayer("random", random.Random(seed * 2 + (role is Role.GUEST)))
            attach_computer(conn, player, custom_rules=custom_rules)
        host_outcome, guest_outcome = await asyncio.gather(host_conn.run(), guest_conn.run())
    return Played(host_outcome, guest_outcome, proxy, notices)

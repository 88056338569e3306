"""Resuming a game over a new TCP connection: the guest redials, the host takes it back.

The asyncio half of the resume handshake (SPEC.md, "Resume"); what the frames
say and how they are checked is ``statki_net.protocol.resume`` and
``Session.resume``.  A ``GameConnection`` given a ``Rejoin`` calls it to get a
new connection for its game:

- the guest's is ``Redial``: once the connection is lost it dials the
  invite's addresses again, with backoff (``redial_wait_ms``), reads the host's
  hello on each new connection, answers with its ``resume`` and waits for the
  host's;
- the host's is ``TakeBack``: all game long it waits for a ``Resuming`` (a
  guest's resume on a new connection, routed to this game by its id), checks
  it, and answers with its own ``resume``.  A bad one is closed with nothing
  said, and the host waits on.

Routing a new connection at the host to the game it resumes is the door's
work: ``ResumeDoor`` here (it sends the challenge hello, reads the guest's
first frame and looks up the game), the seam the daemon's and ``statki
host``'s admission plug into.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import msgpack

from statki_net.game.errors import UsageError
from statki_net.net.clock import Clock
from statki_net.net.invite import Address
from statki_net.net.listen import connect_any, enable_keepalive, peer_text
from statki_net.protocol.resume import (
    MAX_RESUME,
    MAX_RESUMES,
    RESUME_WAIT_MS,
    ResumeError,
    ResumeFrame,
    read_resume,
    redial_wait_ms,
)
from statki_net.protocol.session import Session
from statki_net.protocol.wire import (
    GENESIS,
    MAX_FRAME,
    Frame,
    Header,
    Hello,
    Role,
    read_envelope,
    sign,
    signature_valid,
)

CONNECT_SECONDS = 2.0
"""How long one redial waits for a TCP connection."""
RESUME_BYTES = MAX_RESUME + 128
"""The most a door reads of a new connection before it knows the game: one resume."""
QUIET_SECONDS = 0.3
"""How long a new connection at the host must stay silent before the host says hello."""


@dataclass(frozen=True)
class Resuming:
    """A guest's resume on a new connection, routed to the game it names."""

    game_id: bytes
    frame: ResumeFrame
    challenge: bytes
    """The nonce of the hello the host sent on this connection."""
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


@dataclass(frozen=True)
class Rejoined:
    """A new connection that carries the game on, both resumes said."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    own: ResumeFrame
    peer: ResumeFrame
    address: str
    """Where the peer is, for the log and the screen."""
    leftover: bytes = b""
    """Bytes read after the peer's resume: the first frames it sends again."""


Tell = Callable[[int, str], None]
"""Told of each failed attempt: its number (from 1) and why, for the screen."""


class Rejoin:
    """How a side gets a new connection for its game; see the module docstring."""

    while_connected = False
    """Whether to wait for one even while the connection holds (the host: a guest may
    come back before the host sees the old connection fail)."""

    async def __call__(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        raise NotImplementedError


class Redial(Rejoin):
    """The guest dials the invite's addresses again until a host takes the game back."""

    def __init__(self, addresses: list[Address] | tuple[Address, ...]) -> None:
        self.addresses = tuple(addresses)

    async def __call__(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        attempt = 0
        while True:
            writer: asyncio.StreamWriter | None = None
            try:
                reader, writer, _ = await connect_any(self.addresses, CONNECT_SECONDS)
                enable_keepalive(writer)
                async with asyncio.timeout(RESUME_WAIT_MS / 1000):
                    return await _guest_handshake(session, clock, reader, writer)
            except (UsageError, ResumeError, OSError, TimeoutError) as error:
                if writer is not None:
                    writer.close()
                attempt += 1
                tell(attempt, str(error) or type(error).__name__)
            await asyncio.sleep(redial_wait_ms(attempt - 1) / 1000)


class TakeBack(Rejoin):
    """The host takes its game back from a guest that resumes it on a new connection."""

    while_connected = True

    def __init__(self, door: ResumeDoor) -> None:
        self.door = door
        self.arrivals: asyncio.Queue[Resuming] = asyncio.Queue()
        self.answered = 0

    def on_resume(self, resuming: Resuming) -> None:
        """The door's callback: a resume for this game came."""
        self.arrivals.put_nowait(resuming)

    async def __call__(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        self.door.expect_resume(session, self.on_resume)
        try:
            return await self._take_back(session, clock, tell)
        finally:
            self.door.forget_resume(session)

    async def _take_back(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        while True:
            resuming = await self.arrivals.get()
            try:
                if self.answered >= MAX_RESUMES:
                    raise UsageError(f"{MAX_RESUMES} resumes of this game answered already")
                session.check_resume(resuming.frame, resuming.challenge)
            except (UsageError, ResumeError) as error:
                resuming.writer.close()
                tell(self.answered + 1, str(error))
                continue
            self.answered += 1
            own = session.resume_frame(resuming.challenge, clock.now())
            resuming.writer.write(own.encode())
            return Rejoined(
                resuming.reader,
                resuming.writer,
                own,
                resuming.frame,
                peer_text(resuming.writer),
            )


async def _guest_handshake(
    session: Session, clock: Clock, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> Rejoined:
    """The host's hello, this side's resume, the host's: the guest's half of the handshake."""
    host_key = session.transcript.key(Role.HOST)
    assert host_key is not None
    values = _Values(reader)
    hello = read_envelope(await values.next())
    if (
        hello.type != Hello.TYPE
        or hello.hello_key != host_key
        or not signature_valid(host_key, hello)
    ):
        raise UsageError("not the host of this game")
    nonce = hello.fields.get("nonce")
    if not isinstance(nonce, bytes) or len(nonce) != 32:
        raise UsageError("the host's hello has no nonce")
    own = session.resume_frame(nonce, clock.now())
    writer.write(own.encode())
    await writer.drain()
    peer = read_resume(await values.next())
    session.check_resume(peer, nonce)
    return Rejoined(reader, writer, own, peer, peer_text(writer), values.leftover())


class _Values:
    """Whole msgpack values off a stream, one at a time, keeping the bytes after the last."""

    def __init__(self, reader: asyncio.StreamReader, limit: int = 4 * MAX_FRAME) -> None:
        self.reader = reader
        self.limit = limit
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=limit)
        self.data = bytearray()
        """Every byte read: the handshake is a few hundred bytes."""

    async def next(self) -> object:
        while True:
            try:
                return self.unpacker.unpack()
            except msgpack.OutOfData:
                pass
            except msgpack.BufferFull:
                raise UsageError("more bytes than the handshake holds") from None
            except Exception:  # garbage of any kind: no peer of ours
                raise UsageError("the bytes are not msgpack") from None
            chunk = await self.reader.read(min(self.limit, MAX_FRAME))
            if not chunk:
                raise UsageError("the connection closed during the resume")
            try:
                self.unpacker.feed(chunk)
            except msgpack.BufferFull:
                raise UsageError("more bytes than the handshake holds") from None
            self.data += chunk

    def leftover(self) -> bytes:
        return bytes(self.data[self.unpacker.tell() :])


# ---------------------------------------------------------------- the host's door


class ResumeDoor:
    """Routes a new connection at the host that resumes a game to that game.

    Games register while they may be resumed (``expect_resume``) and leave when
    over (``forget_resume``).  On a new connection that has stayed silent for
    ``QUIET_SECONDS`` the door sends a hello (the challenge: a fresh nonce),
    reads the first frame (at most ``MAX_RESUME`` bytes, within
    ``RESUME_WAIT_MS``) and hands a resume of a registered game to its
    callback; anything else is closed with nothing said.
    """

    def __init__(self, entropy: Callable[[int], bytes], clock: Clock) -> None:
        self.entropy = entropy
        self.clock = clock
        self._games: dict[int, tuple[Session, Callable[[Resuming], None]]] = {}
        """By the session's identity: a game registers before its id is known."""

    @property
    def expecting(self) -> bool:
        return bool(self._games)

    def expect_resume(self, session: Session, on_resume: Callable[[Resuming], None]) -> None:
        self._games[id(session)] = (session, on_resume)

    def forget_resume(self, session: Session) -> None:
        self._games.pop(id(session), None)

    def _game(self, game_id: bytes) -> Callable[[Resuming], None] | None:
        for session, on_resume in self._games.values():
            if session.transcript.game == game_id and session.resumable:
                return on_resume
        return None

    async def receive(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Take one new connection through the door; never raises."""
        try:
            games = [s for s, _ in self._games.values() if s.resumable]
            if not games or not await _quiet(reader):
                writer.close()
                return
            challenge = self.entropy(32)
            writer.write(self._hello(games[-1], challenge).encode())
            async with asyncio.timeout(RESUME_WAIT_MS / 1000):
                frame = read_resume(await _Values(reader, RESUME_BYTES).next())
            on_resume = self._game(frame.resume.game)
            if on_resume is None:
                writer.close()
                return
            on_resume(Resuming(frame.resume.game, frame, challenge, reader, writer))
        except (UsageError, ResumeError, OSError, TimeoutError):
            writer.close()

    def _hello(self, session: Session, nonce: bytes) -> Frame:
        """The game's own host hello, with this connection's nonce and time: it proves the
        host holds the game's key, and its nonce binds the guest's resume to this connection."""
        proposal = session.transcript.sides[Role.HOST].hello
        assert proposal is not None
        header = Header(Role.HOST, 0, GENESIS, b"", self.clock.now())
        return sign(session.key, header, dataclasses.replace(proposal, nonce=nonce))


async def _quiet(reader: asyncio.StreamReader) -> bool:
    """Whether the connection stays open and silent, as a guest waiting for a hello does."""
    try:
        async with asyncio.timeout(QUIET_SECONDS):
            await reader.read(1)
    except TimeoutError:
        return True
    except (ConnectionError, OSError):
        pass
    return False

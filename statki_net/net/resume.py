"""Resuming a game over a new TCP connection: the guest redials, the host takes it back.

The asyncio half of the resume handshake (SPEC.md, "Resume"); what the frames
say and how they are checked is ``statki_net.protocol.resume`` and
``Session.resume``.  A ``GameConnection`` given a ``Rejoin`` calls it to get a
new connection for its game:

- the guest's is ``Redial``: once the connection is lost it dials the
  invite's addresses again (``statki_net.net.dialer``, as the first time), with
  backoff (``redial_wait_ms``), reads the host's hello on each new connection,
  answers with its ``resume`` and waits for the host's;
- the host's is ``TakeBack``: while its game may be resumed it registers it
  with the host's ``Admission`` (which says the challenge hello on every new
  connection and routes a resume by its game id), checks each guest resume
  that comes, and answers a good one with its own.  A bad one is closed with
  nothing said, and the host waits on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, phrase
from statki_net.net.admission import Admission, Resuming
from statki_net.net.clock import Clock
from statki_net.net.dialer import dial
from statki_net.net.invite import Address
from statki_net.net.listen import enable_keepalive, peer_text
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.resume import (
    MAX_RESUMES,
    RESUME_WAIT_MS,
    ResumeError,
    ResumeFrame,
    decode_resume,
    read_resume,
    redial_wait_ms,
)
from statki_net.protocol.session import Session
from statki_net.protocol.wire import MAX_FRAME, Hello, Role, read_envelope, signature_valid

CONNECT_SECONDS = 2.0
"""How long one redial waits for a TCP connection."""


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
                reader, writer, _ = await dial(self.addresses, timeout=CONNECT_SECONDS)
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

    def __init__(self, admission: Admission[Any]) -> None:
        self.admission = admission
        self.arrivals: asyncio.Queue[Resuming] = asyncio.Queue()
        self.answered = 0

    def on_resume(self, resuming: Resuming) -> None:
        """The admission's callback: a resume for this game came."""
        self.arrivals.put_nowait(resuming)

    async def __call__(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        game = session.transcript.game
        # The hello said on a new connection when no game waits: this game's proposal,
        # under a fresh nonce (every session made so draws one of its own).
        self.admission.expect_resume(
            game,
            self.on_resume,
            lambda: session.anew(rules=session.proposed_rules, first=session.proposed_first),
        )
        try:
            return await self._take_back(session, clock, tell)
        finally:
            self.admission.forget_resume(game)

    async def _take_back(self, session: Session, clock: Clock, tell: Tell) -> Rejoined:
        while True:
            resuming = await self.arrivals.get()
            try:
                if self.answered >= MAX_RESUMES:
                    raise UsageError(
                        phrase(N_("{most} resumes of this game answered already"), most=MAX_RESUMES)
                    )
                frame = decode_resume(resuming.frame)
                session.check_resume(frame, resuming.challenge)
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
                frame,
                peer_text(resuming.writer),
                resuming.rest,
            )


async def _guest_handshake(
    session: Session, clock: Clock, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> Rejoined:
    """The host's hello, this side's resume, the host's: the guest's half of the handshake."""
    host_key = session.transcript.key(Role.HOST)
    assert host_key is not None
    values = _Values(reader)
    try:
        hello = read_envelope(await values.next())
    except ProtocolError as error:
        # Unsigned bytes, anyone's (a stranger at the address, a router): a failed attempt,
        # never this side's error in its game.
        raise UsageError(
            phrase(N_("not the host of this game: {detail}"), detail=error.said)
        ) from None
    if (
        hello.type != Hello.TYPE
        or hello.hello_key != host_key
        or not signature_valid(host_key, hello)
    ):
        raise UsageError(phrase(N_("not the host of this game")))
    nonce = hello.fields.get("nonce")
    if not isinstance(nonce, bytes) or len(nonce) != 32:
        raise UsageError(phrase(N_("the host's hello has no nonce")))
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
                raise UsageError(phrase(N_("more bytes than the handshake holds"))) from None
            except Exception:  # garbage of any kind: no peer of ours
                raise UsageError(phrase(N_("the bytes are not msgpack"))) from None
            chunk = await self.reader.read(min(self.limit, MAX_FRAME))
            if not chunk:
                raise UsageError(phrase(N_("the connection closed during the resume")))
            try:
                self.unpacker.feed(chunk)
            except msgpack.BufferFull:
                raise UsageError(phrase(N_("more bytes than the handshake holds"))) from None
            self.data += chunk

    def leftover(self) -> bytes:
        return bytes(self.data[self.unpacker.tell() :])

"""Admission: which connection is the invited guest, which resumes a game, and the rest turned away.

``statki host`` and the daemon (its hosted games and, with ``--bot``, the
games it makes on demand) admit through one ``Admission``, so both turn away
the same connections.  Each connection is screened in its own task (the
listener's), all at once, within bounds:

1. at most ``PER_ADDRESS`` connections from one address (an IPv6 /64 is one
   address: one home's network), and ``AT_MOST`` in all, are screened at a
   time; one more from a full address is closed at once (``too-many``), and
   one more when all are full closes the oldest of the address that holds the
   most (``too-many``), so that silent connections from many addresses can
   keep no newcomer out: the invited guest, come last, is the youngest;
2. the host speaks first, so a guest says nothing until it has the host's
   hello (SPEC.md, section 3): a connection that closes within
   ``GUEST_QUIET_SECONDS`` (a port scan) or speaks first (a web browser, a
   TLS probe) is closed without a hello ever being signed;
3. the connection gets a hello of its own: a candidate game, a fresh host
   ``Session`` with its own nonce (``Hosting.hello``) for the oldest game
   that waits (or, with none, the one made on demand);
4. what comes back first decides, within ``ADMISSION_WAIT_SECONDS``
   (``statki_net.protocol.screening``): the guest's hello with the proof of
   the invite's secret (any guest's hello, for a game open to anyone) makes
   the candidate the game: ``Admitted``, and the game is no longer waiting.
   A hello that proves nothing is answered with ``error`` ``not-invited``;
   silence, garbage or any other frame is closed without a word.  The game
   goes on waiting for its guest either way;
5. where more than one game waits (a daemon's hosted games, its games on
   demand), the hello says so (``join``) and carries its game's tag: a guest
   of another game answers with a ``join`` naming its own by tag (none: the
   game open to anyone), and gets a fresh hello of that game on the same
   connection (or ``not-invited``, when none waits with that tag), after which
   step 4 decides again, once: a connection joins at most once.

A candidate that never becomes a game leaves nothing behind: no log file and
no history row (those begin with the game, ``store.recorder``); ``turned_away``
counts it by its ``Refusal``.

The interface for resuming a game::

    admission.expect_resume(game_id, on_resume)   # game_id: 32 bytes
    admission.forget_resume(game_id)
    on_resume(Resuming(game_id, frame, challenge, reader, writer, rest))

A connection whose first frame after the host's hello is ``[body, sig]`` with
a body of ``type`` ``resume`` and a 32-byte ``game`` is handed, as
``Resuming``, to the callback registered for that game (called synchronously,
in the connection's task; it takes over the streams, and ``admit`` returns the
same value).  ``frame`` is that frame's exact bytes, unchecked: the resume
handshake checks its signature, its nonce against ``challenge`` (the nonce of
the hello sent on this connection) and the rest.  ``rest`` is whatever came
after the frame in the same reads.  A resume for a game nobody registered is
closed without a word (``no-resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.protocol.errors import Code
from statki_net.protocol.screening import (
    GuestProven,
    JoinAsked,
    NotAdmitted,
    Refusal,
    ResumeAsked,
    Screening,
    Unwanted,
)
from statki_net.protocol.session import Session
from statki_net.protocol.wire import READ_SIZE, game_tag

GUEST_QUIET_SECONDS = 0.3
"""How long a new connection must stay open and silent before the host says hello."""
ADMISSION_WAIT_SECONDS = 10.0
"""How long after the host's hello the first whole frame may take to come back."""
PER_ADDRESS = 8
"""Connections screened at once from one address (``_address_of``: an IPv6 /64 is one)."""
AT_MOST = 512
"""Connections screened at once in all."""

GameT = TypeVar("GameT")

__all__ = [
    "Admission",
    "Admitted",
    "Hosting",
    "OnDemand",
    "Refusal",
    "Resuming",
    "TurnedAway",
]


@dataclass(frozen=True)
class Hosting:
    """How a game waiting for its guest says hello, and whom it admits."""

    hello: Callable[[], Session]
    """A new host session, not started, for each connection screened: its own nonce."""
    secret: bytes | None
    """The invite's secret the guest must prove; None: open to anyone (``--open``)."""
    guest_key: bytes | None = None
    """A rematch's: the key of the one guest it admits, the last game's opponent."""

    @property
    def tag(self) -> bytes | None:
        """The game's public name, which its hellos carry and a ``join`` gives."""
        return game_tag(self.secret) if self.secret is not None else None


@dataclass(frozen=True)
class ResumeHello:
    """The hello said when no game waits for a guest but one may be resumed: the game's
    own, its tag included, under a fresh nonce.  Only a resume can come of it: a guest's
    hello proves no invite and finds no game to take."""

    hello: Callable[[], Session]


Greeting = Hosting | ResumeHello
"""What a connection screened is said hello for: a game that admits a guest, or resumes."""


@dataclass(frozen=True)
class OnDemand(Generic[GameT]):
    """The game a daemon with ``--bot`` makes for a guest nobody is hosting for."""

    hosting: Hosting
    make: Callable[[], tuple[str, GameT] | None]
    """The game, made once a guest is admitted; None when there is no room for one."""


@dataclass(frozen=True)
class Admitted(Generic[GameT]):
    """The invited guest, and the game it takes."""

    name: str
    game: GameT
    session: Session
    """The host's session, its hello said on this connection: the game goes on from it."""
    received: bytes
    """What the guest sent after that hello, its own hello first: the game reads it next."""
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


@dataclass(frozen=True)
class Resuming:
    """A connection that resumes a game: for the callback registered for ``game_id``."""

    game_id: bytes
    frame: bytes
    """The ``resume`` frame, exactly as received, unchecked."""
    challenge: bytes
    """The nonce of the hello the host sent on this connection."""
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    rest: bytes = b""
    """What came after the frame in the same reads."""


@dataclass(frozen=True)
class TurnedAway:
    """A connection that is no guest of any game here; it is closed."""

    reason: Refusal


OnResume = Callable[[Resuming], None]


@dataclass
class _Waiting(Generic[GameT]):
    game: GameT
    hosting: Hosting | None
    """None until the game can say hello (a host still choosing its rules on screen)."""


class Admission(Generic[GameT]):
    """Games waiting for their guest, oldest first, and the games to resume; see the module."""

    def __init__(
        self,
        *,
        on_demand: OnDemand[GameT] | None = None,
        quiet_seconds: float = GUEST_QUIET_SECONDS,
        wait_seconds: float = ADMISSION_WAIT_SECONDS,
        per_address: int = PER_ADDRESS,
        at_most: int = AT_MOST,
        clock: Clock = WALL_CLOCK,
    ) -> None:
        self.on_demand = on_demand
        self.quiet_seconds = quiet_seconds
        self.wait_seconds = wait_seconds
        self.per_address = per_address
        self.at_most = at_most
        self.clock = clock
        self.turned_away: Counter[Refusal] = Counter()
        """Connections turned away so far, by reason."""
        self._waiting: OrderedDict[str, _Waiting[GameT]] = OrderedDict()
        self._resumes: dict[bytes, OnResume] = {}
        self._resume_hellos: dict[bytes, Callable[[], Session]] = {}
        """How to say hello for a game to resume, when no game waits for a guest."""
        self._screening: Counter[str] = Counter()
        """Connections being screened, by address."""
        self._screened: dict[int, _Screened] = {}
        """The same connections, oldest first, by their number."""
        self._numbers = itertools.count()
        self._changed = asyncio.Event()
        self._at_the_door = 0
        self.door_watchers: list[Callable[[int], None]] = []
        """Told how many connections wait, silent, for a game that cannot say hello yet (a
        host still choosing its rules or placing its fleet): a guest has come, most likely."""

    # ------------------------------------------------------------ games

    def offer(self, name: str, game: GameT, hosting: Hosting | None = None) -> None:
        """``game`` waits for a guest under ``name``, after those offered before it.

        Without ``hosting`` it cannot say hello yet: connections wait, silent,
        until ``ready`` gives it one.
        """
        self._waiting[name] = _Waiting(game, hosting)
        self._wake()

    def ready(self, name: str, hosting: Hosting) -> None:
        """The game waiting under ``name`` can say hello now, as ``hosting`` says."""
        waiting = self._waiting.get(name)
        if waiting is not None:
            waiting.hosting = hosting
            self._wake()

    def withdraw(self, name: str) -> GameT | None:
        """The game no longer waits; it, or None if it was not waiting."""
        waiting = self._waiting.pop(name, None)
        self._wake()
        return waiting.game if waiting else None

    @property
    def pending(self) -> list[str]:
        return list(self._waiting)

    def expect_resume(
        self, game_id: bytes, on_resume: OnResume, hello: Callable[[], Session] | None = None
    ) -> None:
        """A connection resuming ``game_id`` goes to ``on_resume`` (see the module docstring).

        ``hello`` makes the hello said on a connection when no game waits for a
        guest (a host whose one game is under way), so that a guest can resume.
        """
        self._resumes[game_id] = on_resume
        if hello is not None:
            self._resume_hellos[game_id] = hello
        self._wake()

    def forget_resume(self, game_id: bytes) -> None:
        self._resumes.pop(game_id, None)
        self._resume_hellos.pop(game_id, None)

    @property
    def screening(self) -> int:
        """Connections being screened now."""
        return self._screening.total()

    @property
    def at_the_door(self) -> int:
        """Connections waiting for a game that cannot say hello yet (``door_watchers``)."""
        return self._at_the_door

    def _door(self, change: int) -> None:
        self._at_the_door += change
        for watcher in self.door_watchers:
            watcher(self._at_the_door)

    # ------------------------------------------------------------ connections

    async def admit(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Admitted[GameT] | Resuming | TurnedAway:
        """Screen a new connection (see the module docstring); a turned-away one is closed."""
        address = _address_of(_source(writer))
        if self._screening[address] >= self.per_address:
            decided: Admitted[GameT] | Resuming | TurnedAway = TurnedAway(Refusal.TOO_MANY)
        else:
            if self.screening >= self.at_most:
                self._make_room()
            number = next(self._numbers)
            screened = self._screened[number] = _Screened(address, writer)
            self._screening[address] += 1
            try:
                decided = await self._screen(reader, writer)
            finally:
                del self._screened[number]
                self._screening[address] -= 1
                if not self._screening[address]:
                    del self._screening[address]
            if screened.evicted:
                decided = TurnedAway(Refusal.TOO_MANY)
        if isinstance(decided, TurnedAway):
            self.turned_away[decided.reason] += 1
            writer.close()
        return decided

    def _make_room(self) -> None:
        """Close the oldest connection of the address screened most: a crowd from many
        addresses gives way to the newcomer, and the first of it to go is its oldest."""
        live = [screened for screened in self._screened.values() if not screened.evicted]
        counts = Counter(screened.address for screened in live)
        most = max(counts.values(), default=0)
        oldest = next((screened for screened in live if counts[screened.address] == most), None)
        if oldest is not None:
            oldest.evicted = True
            oldest.writer.close()  # its read ends with the close, and its screening with it

    async def _screen(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Admitted[GameT] | Resuming | TurnedAway:
        reading = asyncio.ensure_future(reader.read(READ_SIZE))
        try:
            await asyncio.wait({reading}, timeout=self.quiet_seconds)
            if reading.done():
                return TurnedAway(Refusal.SPOKE_FIRST if _data(reading) else Refusal.CLOSED)
            target = await self._target(reading)
            if isinstance(target, TurnedAway):
                return target
            name, hosting = target
            session = self._say_hello(hosting, writer, joinable=self._several())
            # A resume's hello asks for no invite's secret: a guest's hello then finds no game.
            secret = hosting.secret if isinstance(hosting, Hosting) else None
            only = hosting.guest_key if isinstance(hosting, Hosting) else None
            screening = Screening(session.transcript.frames[0], secret, only=only)
            decision = await self._first_frame(reader, reading, screening)
            if isinstance(decision, JoinAsked):
                named = self._named(decision.tag)
                if named is None:
                    detail = "no game here waits for the guest of that invite"
                    session.abort(Code.NOT_INVITED, detail, self.clock.now())
                    writer.write(session.data_to_send())
                    return TurnedAway(Refusal.NOT_INVITED)
                # The candidate of the first hello is dropped, unlogged: the named game's
                # hello, fresh, is the one this connection's game (if any) begins with.
                name, hosting = named
                session = self._say_hello(hosting, writer, joinable=False)
                screening = Screening(
                    session.transcript.frames[0],
                    hosting.secret,
                    decision.key,
                    only=hosting.guest_key,
                )
                decision = await self._first_frame(reader, None, screening, decision.rest)
            if isinstance(decision, GuestProven):
                return self._take(name, session, decision.received, reader, writer)
            if isinstance(decision, NotAdmitted):
                session.abort(decision.code, decision.detail, self.clock.now())
                writer.write(session.data_to_send())
                return TurnedAway(decision.refusal)
            if isinstance(decision, ResumeAsked):
                return self._resume(decision, screening.challenge, reader, writer)
            if isinstance(decision, JoinAsked):  # a second join; the screening refuses it
                return TurnedAway(Refusal.BAD_JOIN)
            return TurnedAway(decision.refusal)
        finally:
            reading.cancel()

    def _say_hello(
        self, greeting: Greeting, writer: asyncio.StreamWriter, *, joinable: bool
    ) -> Session:
        """A candidate's hello, said on the connection: its own nonce, its game's tag."""
        session = greeting.hello()
        # A hello that admits by invite carries its game's tag (SPEC.md section 6); else the
        # session keeps its own: none for a game open to anyone, the game's for a resume.
        if isinstance(greeting, Hosting) and greeting.secret is not None:
            session.tag = greeting.tag
        session.joinable = joinable
        session.start(self.clock.now())
        writer.write(session.data_to_send())
        return session

    def _several(self) -> bool:
        """Whether more than one game could take a guest now: then hellos say ``join``."""
        ready = sum(1 for waiting in self._waiting.values() if waiting.hosting is not None)
        return ready + (self.on_demand is not None) > 1

    def _named(self, tag: bytes | None) -> tuple[str | None, Hosting] | None:
        """The waiting game a join names by its tag (None: one open to anyone, the oldest,
        else a game on demand), if any can say hello."""
        for name, waiting in self._waiting.items():
            if waiting.hosting is not None and waiting.hosting.tag == tag:
                return name, waiting.hosting
        if tag is None and self.on_demand is not None:
            return None, self.on_demand.hosting
        return None

    async def _target(
        self, reading: asyncio.Future[bytes]
    ) -> tuple[str | None, Greeting] | TurnedAway:
        """The game to say hello for: the oldest waiting that can, else one on demand.

        While the only games waiting cannot say hello yet, the connection
        waits with them, as long as it stays open and silent: at the door, as
        ``door_watchers`` are told.
        """
        at_the_door = False
        try:
            while True:
                for name, waiting in self._waiting.items():
                    if waiting.hosting is not None:
                        return name, waiting.hosting
                if not self._waiting:
                    if self.on_demand is not None:
                        return None, self.on_demand.hosting
                    if self._resume_hellos:
                        # Only a resume can come of it: a guest's hello finds no game.  The
                        # hello is the game's own, its tag included, under a fresh nonce.
                        return None, ResumeHello(next(reversed(self._resume_hellos.values())))
                    return TurnedAway(Refusal.NO_GAME)
                if not at_the_door:
                    at_the_door = True
                    self._door(+1)
                changed = asyncio.ensure_future(self._changed.wait())
                either: set[asyncio.Future[Any]] = {reading, changed}
                try:
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                if reading.done():
                    return TurnedAway(Refusal.SPOKE_FIRST if _data(reading) else Refusal.CLOSED)
        finally:
            if at_the_door:
                self._door(-1)

    async def _first_frame(
        self,
        reader: asyncio.StreamReader,
        reading: asyncio.Future[bytes] | None,
        screening: Screening,
        read: bytes = b"",
    ) -> GuestProven | NotAdmitted | ResumeAsked | JoinAsked | Unwanted:
        """Feed what comes back after the hello until it decides, within the admission wait
        (``read``: what already came, after a join)."""
        if read:
            decision = screening.feed(read)
            if decision is not None:
                return decision
        try:
            async with asyncio.timeout(self.wait_seconds):
                while True:
                    if reading is None:
                        reading = asyncio.ensure_future(reader.read(READ_SIZE))
                    data = await _read(reading)
                    if not data:
                        return Unwanted(Refusal.CLOSED)
                    decision = screening.feed(data)
                    if decision is not None:
                        return decision
                    reading = None
        except TimeoutError:
            return Unwanted(Refusal.SILENT)
        finally:
            if reading is not None:
                reading.cancel()

    def _take(
        self,
        name: str | None,
        session: Session,
        received: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> Admitted[GameT] | TurnedAway:
        """The first proven guest takes the game; one that comes after it finds it taken."""
        if name is not None:
            waiting = self._waiting.pop(name, None)
            self._wake()
            made = (name, waiting.game) if waiting is not None else None
        else:
            made = self.on_demand.make() if self.on_demand is not None else None
        if made is None:
            session.abort(Code.CLOSED, "the game is taken: no game waits", self.clock.now())
            writer.write(session.data_to_send())
            return TurnedAway(Refusal.NO_GAME)
        return Admitted(made[0], made[1], session, received, reader, writer)

    def _resume(
        self,
        asked: ResumeAsked,
        challenge: bytes,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> Resuming | TurnedAway:
        on_resume = self._resumes.get(asked.game)
        if on_resume is None:
            return TurnedAway(Refusal.NO_RESUME)
        resuming = Resuming(asked.game, asked.frame, challenge, reader, writer, asked.rest)
        on_resume(resuming)
        return resuming

    def _wake(self) -> None:
        """Wake the connections waiting for a game that can say hello."""
        self._changed.set()
        self._changed = asyncio.Event()


@dataclass
class _Screened:
    """A connection being screened: whose share it counts in, and how to close it."""

    address: str
    writer: asyncio.StreamWriter
    evicted: bool = False
    """Closed to make room for a newcomer (``Admission._make_room``)."""


def _address_of(source: str) -> str:
    """The address whose share a connection from ``source`` counts in: an IPv4 address
    itself; an IPv6 one's /64, the network one home is given, whose addresses are its own
    to draw."""
    try:
        ip = ipaddress.ip_address(source)
    except ValueError:
        return source
    if ip.version == 6:
        return str(ipaddress.IPv6Network((int(ip), 64), strict=False))
    return source


def _source(writer: asyncio.StreamWriter) -> str:
    """The address a connection comes from (an IPv4 one as such, even on an IPv6 socket)."""
    peer = writer.get_extra_info("peername")
    if not peer:
        return ""
    host = str(peer[0])
    return host.removeprefix("::ffff:")


def _data(reading: asyncio.Future[bytes]) -> bytes:
    """What a finished read got; nothing, if it failed or was cancelled."""
    if reading.cancelled() or reading.exception() is not None:
        return b""
    return reading.result()


async def _read(reading: asyncio.Future[bytes]) -> bytes:
    with contextlib.suppress(ConnectionError, OSError):
        return await reading
    return b""

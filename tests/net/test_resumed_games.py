"""A lost connection resumes: the TCP connection cut at every message of a whole classic game.

Two ``GameConnection``s in this process play over real loopback TCP through a
``CuttingProxy`` that cuts both connections at one frame and then lets every
later connection through whole, as a network that fails and comes back.  The
guest redials (``Redial``), the host takes its game back through a
``ResumeDoor`` (``TakeBack``), and the game must finish with both logs valid
and holding one transcript.  The players are oracles that fire at the other
side's ships, so a whole classic game is a few dozen messages, and all the
cuts are played at once on one event loop.

Every index of a game is cut here, over TCP through the proxy (and again in
``tests/protocol/test_resume.py``, in this process without sockets): the cuts
a resume carries on, shared among parts that run on both cores, and apart
from them, on a faster clock, the cuts no resume can help.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import msgpack
import pytest
from netgames import CuttingProxy, sessions
from peers import key_from, unknown_squares

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.admission import Admission, Admitted, Hosting
from statki_net.net.bot import attach_computer
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.daemon import Daemon
from statki_net.net.notices import Notice
from statki_net.net.resume import Redial, TakeBack
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End
from statki_net.protocol.logformat import ResumeRecord, read_log
from statki_net.protocol.phases import Phase
from statki_net.protocol.resume import Resume, sign_resume
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.verify import judge_log

CLASSIC = ruleset_named("classic")
SPEED = 8
"""The games' clock runs this much faster than real time: the minute-long limits are
7.5 s of ours, far longer than a resume takes even on a loaded machine."""
WAITING_SPEED = 30
"""The clock of a game a resume cannot help, which one side finishes alone by waiting
out a limit: 2 s of ours for a minute, and no resume to race it."""
AT_ONCE = 24
"""Games played at the same time."""


def oracle(
    conn: GameConnection, opponent: Session, fleet: Fleet, gate: asyncio.Event | None = None
) -> None:
    """A player that accepts any rules with ``fleet`` (once ``gate`` is set) and fires at
    ``opponent``'s ships."""
    loop = asyncio.get_running_loop()

    async def accept() -> None:
        if gate is not None:
            await gate.wait()
        act(lambda: conn.accept(fleet))

    def fire() -> None:
        session = conn.session
        rules, view = session.rules, session.view
        if not session.my_turn or rules is None or view is None or opponent.fleet is None:
            return
        unknown = unknown_squares(view)
        ships = [s for ship in opponent.fleet.ships for s in ship if s in unknown]
        conn.shoot(tuple((ships + unknown)[: session.shots_due]))

    def act(action: object) -> None:
        with contextlib.suppress(UsageError):  # the game ended meanwhile
            action()  # type: ignore[operator]

    def on_notice(notice: Notice) -> None:
        if isinstance(notice, notices.Rules):
            tasks.add(loop.create_task(accept()))
        elif isinstance(notice, notices.Turn):
            loop.call_soon(act, fire)

    tasks: set[asyncio.Task[None]] = set()
    conn.listeners.append(on_notice)


@dataclass
class Resumed:
    host: Outcome | None
    """None when the host never had a game (the admission never saw the guest's hello)."""
    guest: Outcome
    proxy: CuttingProxy
    told: dict[Role, list[Notice]]


async def play_cut(
    cut_after: int | None,
    logs: Path,
    seed: int = 7,
    *,
    meanwhile: Callable[[int, Session, Session], Awaitable[None]] | None = None,
    silent_host: bool = False,
    speed: float = SPEED,
) -> Resumed:
    """One game, cut after ``cut_after`` frames (None: never), resumed, played out.

    ``meanwhile`` runs once the guest has the rules, before it accepts, with the
    host's own port (past the proxy) and both sessions."""
    clock = ScaledClock(speed)
    host, guest = sessions(CLASSIC, seed, first=Role.HOST)
    guest_fleet = ComputerPlayer("random", random.Random(seed + 1)).fleet(CLASSIC)
    admission: Admission[str] = Admission(clock=clock)
    admission.offer("game", "game", Hosting(lambda: host, None))
    first: asyncio.Queue[Admitted[str]] = asyncio.Queue()

    async def on_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        admitted = await admission.admit(reader, writer)
        if isinstance(admitted, Admitted):
            await first.put(admitted)

    server = await asyncio.start_server(on_host, "127.0.0.1", 0)
    proxy = CuttingProxy(
        server.sockets[0].getsockname()[1], cut_after, heals=True, silent_host=silent_host
    )
    port = await proxy.open()
    told: dict[Role, list[Notice]] = {Role.HOST: [], Role.GUEST: []}
    try:
        guest_streams = await asyncio.open_connection("127.0.0.1", port)
        (logs / "host").mkdir(parents=True)
        (logs / "guest").mkdir()
        guest_conn = GameConnection(
            guest,
            *guest_streams,
            log_dir=logs / "guest",
            clock=clock,
            expect_key=public_key_bytes(host.key),
            rejoin=Redial([("127.0.0.1", port)]),
        )
        gate = asyncio.Event()
        oracle(guest_conn, host, guest_fleet, gate)
        guest_conn.listeners.append(told[Role.GUEST].append)

        # The guest reads the host's hello, which the admission says once it has the
        # connection: the guest plays before the host's game exists.
        async def then() -> None:
            try:
                if meanwhile is not None:
                    while host.transcript.phase is not Phase.DECISION:
                        await asyncio.sleep(0.01)
                    await meanwhile(server.sockets[0].getsockname()[1], host, guest)
            finally:
                gate.set()

        probing = asyncio.ensure_future(then())
        guest_game = asyncio.ensure_future(guest_conn.run())
        admitting = asyncio.ensure_future(first.get())
        await asyncio.wait({admitting, guest_game}, return_when=asyncio.FIRST_COMPLETED)
        if not admitting.done():
            # Cut in the hellos: the admission never had a guest, the host no game.
            admitting.cancel()
            outcome = await guest_game
            await probing
            return Resumed(None, outcome, proxy, told)
        admitted = admitting.result()
        host_conn = GameConnection(
            admitted.session,
            admitted.reader,
            admitted.writer,
            received=admitted.received,
            log_dir=logs / "host",
            clock=clock,
            rejoin=TakeBack(admission),
        )
        oracle(host_conn, guest, guest_fleet)
        host_conn.listeners.append(told[Role.HOST].append)

        host_outcome, guest_outcome = await asyncio.gather(host_conn.run(), guest_game)
        await probing
    finally:
        await proxy.close()
        server.close()
    return Resumed(host_outcome, guest_outcome, proxy, told)


def frames_of(outcome: Outcome) -> list[bytes]:
    assert outcome.log_path is not None
    return [body for body, _ in read_log(outcome.log_path.read_bytes()).frames]


def check_resumed(played: Resumed, cut_after: int, total: int) -> None:
    """Both logs valid; one transcript, unless the cut lost the game's last message."""
    host, guest = played.host, played.guest
    sender = played.proxy.senders[-1] if played.proxy.senders else "host"
    where = f"cut at frame {cut_after} (sent by the {sender})"
    if cut_after < 2:
        # In the hellos there is no game yet, so none to resume: the host, whose
        # admission never had the guest's hello, keeps no log at all; the guest finishes
        # alone by the rules of a lost connection, never to its own blame.
        assert host is None, where
        assert guest.ending.end in (End.NO_GAME, End.TIME), where
        assert Role.GUEST not in guest.ending.culprits, where
        return
    assert host is not None, where
    for outcome in (host, guest):
        assert outcome.log_path is not None
        judgement = judge_log(outcome.log_path.read_bytes())
        assert judgement.valid, f"{where}: {judgement.headline()}"
    host_frames, guest_frames = frames_of(host), frames_of(guest)
    if cut_after == total - 1:
        # The last message of a game is never sent again: its sender is done and
        # gone.  Its receiver ends by its own claim, which changes nothing.
        assert host_frames[:-1] == guest_frames[:-1], where
        assert host.ending.end is guest.ending.end is End.SUNK, where
        assert host.ending.winner is guest.ending.winner, where
        return
    assert played.proxy.healed >= 1, f"{where}: no resume"
    assert host_frames == guest_frames, f"{where}: the transcripts differ"
    assert len(host_frames) == total, where
    assert host.ending.end is End.SUNK, f"{where}: {host.ending}"
    for outcome in (host, guest):
        assert outcome.log_path is not None
        records = read_log(outcome.log_path.read_bytes()).records
        assert sum(isinstance(r, ResumeRecord) for r in records) >= 2, where
    for role in (Role.HOST, Role.GUEST):
        assert any(isinstance(n, notices.Reconnected) for n in played.told[role]), where
    told = [n for n in played.told[Role.GUEST] if isinstance(n, notices.Lost | notices.Reconnected)]
    assert told, where
    # The screen's words, from typed notices: "connection lost: reconnecting, 14 s left".
    lost = [n.detail for n in told if isinstance(n, notices.Lost)]
    assert all("reconnecting" in detail for detail in lost), (where, lost)
    assert any(" s left" in detail or "your move" in detail for detail in lost), (where, lost)
    assert isinstance(told[-1], notices.Reconnected), where
    assert told[-1].detail.startswith("reconnected: the game goes on"), where


PARTS = 3
"""The cuts a resume carries on are shared among this many tests (every ``PARTS``-th
message each), so that xdist spreads them over the cores."""


def resumed_cuts(part: int) -> Callable[[int], list[int]]:
    """Every message a resume carries the game on after, from the accept to the one before
    the last, every ``PARTS``-th from ``part``: the parts together cut at every one."""
    return lambda total: list(range(2 + part, total - 1, PARTS))


def unresumed_cuts(total: int) -> list[int]:
    """Where no resume can help: in the hellos (no game yet) and at the last message (its
    sender is done and gone)."""
    return [0, 1, total - 1]


def cut_at_each(
    tmp_path: Path, silent_host: bool, cuts: Callable[[int], list[int]], speed: float
) -> None:
    """A whole game played once uncut, then cut at each of ``cuts(total)``, all at once."""

    async def main() -> None:
        whole = await play_cut(None, tmp_path / "whole")
        assert whole.host is not None
        total = len(frames_of(whole.host))
        assert frames_of(whole.guest) == frames_of(whole.host)
        assert 40 < total < 120, total
        gate = asyncio.Semaphore(AT_ONCE)

        async def one(cut_after: int) -> None:
            async with gate:
                played = await play_cut(
                    cut_after, tmp_path / str(cut_after), silent_host=silent_host, speed=speed
                )
            check_resumed(played, cut_after, total)

        await asyncio.gather(*(one(k) for k in cuts(total)))

    asyncio.run(main())


SILENT_HOST = pytest.mark.parametrize(
    "silent_host", [False, True], ids=["both-see-it", "host-sees-nothing"]
)
"""With ``silent_host`` only the guest's side of the connection closes: the host still
holds its old connection when the guest comes back on a new one, and takes the old one as
lost."""


@pytest.mark.parametrize("part", range(PARTS), ids=[f"part{p + 1}of{PARTS}" for p in range(PARTS)])
@SILENT_HOST
def test_a_connection_cut_at_every_message_of_a_classic_game_resumes(
    tmp_path: Path, silent_host: bool, part: int
) -> None:
    cut_at_each(tmp_path, silent_host, resumed_cuts(part), SPEED)


@SILENT_HOST
def test_a_cut_no_resume_can_help_is_finished_alone_by_the_rules(
    tmp_path: Path, silent_host: bool
) -> None:
    """Each side waits out its limit alone, on a faster clock: nothing races it."""
    cut_at_each(tmp_path, silent_host, unresumed_cuts, WAITING_SPEED)


async def hello_nonce(reader: asyncio.StreamReader) -> bytes:
    """The nonce of the hello a host sends on a new connection."""
    unpacker = msgpack.Unpacker(raw=False)
    while True:
        unpacker.feed(await asyncio.wait_for(reader.read(65536), 5))
        for value in unpacker:
            body = msgpack.unpackb(value[0], raw=False)
            assert body["type"] == "hello"
            return bytes(body["nonce"])


def test_a_bad_resume_is_closed_with_nothing_said_and_the_game_goes_on(tmp_path: Path) -> None:
    """A replayed resume, one of an unknown game, one signed by a stranger and bytes that
    are no resume: each connection gets the hello and is closed; the game is untouched."""
    turned_away: list[bytes] = []

    async def probes(port: int, host: Session, guest: Session) -> None:
        game, have = guest.transcript.game, len(guest.transcript.frames)
        last = guest.transcript.last_digest

        def resume(nonce: bytes, *, game: bytes = game) -> Resume:
            return Resume(Role.GUEST, game, nonce, have, last, 0)

        tries: list[Callable[[bytes], bytes]] = [
            lambda nonce: sign_resume(guest.key, resume(bytes(32))).encode(),
            lambda nonce: sign_resume(guest.key, resume(nonce, game=bytes(32))).encode(),
            lambda nonce: sign_resume(host.key, resume(nonce)).encode(),
            lambda nonce: b"GET / HTTP/1.0\r\n\r\n",
        ]
        for make in tries:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            nonce = await hello_nonce(reader)
            writer.write(make(nonce))
            turned_away.append(await asyncio.wait_for(reader.read(), 15))
            writer.close()

    async def main() -> Resumed:
        return await play_cut(None, tmp_path, meanwhile=probes)

    played = asyncio.run(main())
    assert turned_away == [b""] * 4, "closed with nothing said after the hello"
    assert played.host is not None and played.host.ending.end is End.SUNK
    assert frames_of(played.host) == frames_of(played.guest)
    assert not any(isinstance(n, notices.Reconnected) for n in played.told[Role.HOST])


@pytest.mark.parametrize("cut_after", [20, 21])
def test_a_game_the_daemon_hosts_resumes_after_a_cut(tmp_path: Path, cut_after: int) -> None:
    """The daemon (``--bot``) keeps its game registered for resume: a guest whose connection
    is cut comes back through the daemon's admission and the game is played out."""

    async def main() -> tuple[Outcome, Path]:
        clock = ScaledClock(SPEED)
        home = tmp_path / "daemon"
        home.mkdir(mode=0o700)
        daemon = Daemon(
            home,
            key_from(5),
            name="d",
            listen_on=[("127.0.0.1", 0)],
            rules=CLASSIC,
            limits=Limits(60_000, 30_000),
            bot="random",
            clock=clock,
        )
        await daemon.start()
        proxy = CuttingProxy(daemon.addresses[0][1], cut_after, heals=True)
        port = await proxy.open()
        try:
            _, guest = sessions(CLASSIC, 3)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            (tmp_path / "guest").mkdir()
            conn = GameConnection(
                guest,
                reader,
                writer,
                log_dir=tmp_path / "guest",
                clock=clock,
                expect_key=public_key_bytes(daemon.key),
                rejoin=Redial([("127.0.0.1", port)]),
            )
            attach_computer(conn, ComputerPlayer("random", random.Random(3)))
            outcome = await conn.run()
            for _ in range(500):  # the daemon's game winds up on its own
                if not daemon.active:
                    break
                await asyncio.sleep(0.01)
            assert proxy.healed >= 1, "no resume"
        finally:
            await proxy.close()
            await daemon.shutdown()
        (log,) = (home / "logs").iterdir()
        return outcome, log

    outcome, daemon_log = asyncio.run(main())
    assert outcome.ending.end is End.SUNK
    assert outcome.verdict is not None and outcome.verdict.valid
    assert frames_of(outcome) == [body for body, _ in read_log(daemon_log.read_bytes()).frames]
    assert judge_log(daemon_log.read_bytes()).valid


def test_whoever_answers_a_redial_with_what_is_no_hello_costs_the_guest_an_attempt_only() -> None:
    """Bytes at the host's address that are no hello of its host (a msgpack value that is
    no frame, a frame whose body is no map, a stranger's signed hello) are anyone's: each is
    a failed attempt, told, and the guest dials again; never the end of its game, which no
    unsigned byte may decide (SPEC.md section 12, "Resume")."""
    host, guest = sessions(CLASSIC, 11, first=Role.HOST)
    pair = BackToBack(host, guest, now=1_000_000)
    pair.record(Role.HOST, host.start(pair.now))
    pair.pump()
    pair.record(
        Role.GUEST,
        guest.accept(ComputerPlayer("random", random.Random(3)).fleet(CLASSIC), pair.now),
    )
    pair.pump()
    assert guest.transcript.phase is Phase.SHOOT
    pair.cut()
    stranger, _ = sessions(CLASSIC, 12)
    stranger.start(0)
    answers = [
        b"\x05",
        msgpack.packb([b"\x01", bytes(64)]),
        stranger.data_to_send(),
    ]
    told: list[tuple[int, str]] = []

    async def impostor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if answers:
            writer.write(answers.pop(0))
            await writer.drain()
        await asyncio.sleep(30)  # the guest closes first

    async def main() -> None:
        server = await asyncio.start_server(impostor, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        redial = asyncio.ensure_future(
            Redial([("127.0.0.1", port)])(
                guest, ScaledClock(1), lambda n, why: told.append((n, why))
            )
        )
        try:
            async with asyncio.timeout(20):
                while len(told) < 3 and not redial.done():
                    await asyncio.sleep(0.05)
            assert not redial.done(), f"the redial stopped: {redial.exception()!r}"
        finally:
            redial.cancel()
            server.close()

    asyncio.run(main())
    assert [n for n, _ in told] == [1, 2, 3]
    assert all(why and "\n" not in why for _, why in told), told
    assert not guest.closed and guest.failure is None

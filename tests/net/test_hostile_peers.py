"""Hostile guests over real loopback TCP against a daemon in this process, on a fast clock.

Each guest plays honestly (a ``Session`` on a raw socket, so it can write any
bytes) until its first shot is due, then misbehaves one way: it signs two
different shots for one message (equivocation), drips its shot a byte at a
time, resigns and never reveals, sends frames of the largest size back to back,
or floods talk past its bounds.  The daemon must end each game within a bounded
time, write its log, and ``judge_log`` must judge that log as SPEC.md says:
the culprit named, the evidence in it.  The clock runs 60 times faster (a
minute's move limit is 1 s), so each test takes about two seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import unknown_squares

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net.clock import ScaledClock
from statki_net.net.daemon import Daemon
from statki_net.protocol.bounds import MAX_SAYS, MAX_TALK_NOTES
from statki_net.protocol.endings import End
from statki_net.protocol.events import RulesProposed
from statki_net.protocol.logformat import read_log
from statki_net.protocol.session import Session
from statki_net.protocol.wire import (
    MAX_FRAME,
    SIGN_LABEL,
    Header,
    Limits,
    Role,
    Say,
    Shot,
    sign,
    sign_say,
)
from statki_net.referee.report import Judgement
from statki_net.referee.verify import judge_log
from statki_net.referee.violations import Kind

SPEED = 60
"""The daemon's clock runs this much faster: its one-minute move limit is 1 s, time enough
for the honest part of a guest's play on a loaded machine."""
BOUND = 20.0
"""Seconds any game here may take, hostile guest and all: far more than it needs."""


@contextlib.asynccontextmanager
async def daemon_with_bot(home: Path) -> AsyncIterator[Daemon]:
    home.mkdir(mode=0o700)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.from_private_bytes(bytes(32)),
        name="d",
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("alternate"),
        limits=Limits(60_000, 30_000),
        bot="random",
        clock=ScaledClock(SPEED),
    )
    await daemon.start()
    try:
        yield daemon
    finally:
        await daemon.shutdown()


@dataclass
class Guest:
    """A guest's session on a raw connection: honest until told otherwise."""

    session: Session
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    clock: ScaledClock
    rng: random.Random

    @classmethod
    async def connect(cls, daemon: Daemon, seed: int) -> Guest:
        reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
        rng = random.Random(seed)
        session = Session(
            Role.GUEST,
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
            name="mallory",
            entropy=rng.randbytes,
        )
        clock = daemon.clock
        assert isinstance(clock, ScaledClock)
        return cls(session, reader, writer, clock, rng)

    async def play_until(self, due: Callable[[Session], bool]) -> None:
        """Play honestly (accept, shoot at random) until ``due`` holds, before acting on it."""
        session = self.session
        while not due(session):
            data = await self.reader.read(65536)
            assert data, f"the daemon hung up at {session.transcript.phase}"
            events = session.receive_data(data, self.clock.now())
            if any(isinstance(e, RulesProposed) for e in events) and session.rules:
                session.accept(random_fleet(session.rules, self.rng), self.clock.now())
            if session.my_turn and not due(session):
                self.shoot()
            await self.send(session.data_to_send())

    def shoot(self) -> None:
        view = self.session.view
        assert view is not None
        unknown = unknown_squares(view)
        shots = tuple(self.rng.sample(unknown, self.session.shots_due))
        self.session.shoot(shots, self.clock.now())

    def signed_next(self, squares: tuple[int, ...]) -> bytes:
        """A shot signed as this side's next message, its session none the wiser."""
        t = self.session.transcript
        header = Header(Role.GUEST, len(t.frames), t.last_digest, t.game, self.clock.now())
        return sign(self.session.key, header, Shot(squares)).encode()

    async def send(self, data: bytes) -> None:
        if data:
            self.writer.write(data)
            await self.writer.drain()

    async def until_hung_up(self) -> None:
        with contextlib.suppress(ConnectionError):
            while await self.reader.read(65536):
                pass
        self.writer.close()


def shot_due(session: Session) -> bool:
    return session.my_turn


async def game_over(daemon: Daemon) -> Judgement:
    """Wait for the daemon's one game to end; its log, judged."""
    while not daemon.games or any(g.status != "over" for g in daemon.games.values()):
        await asyncio.sleep(0.02)
    [log] = sorted((daemon.home / "logs").glob("*.statki"))
    return judge_log(log.read_bytes(), str(log))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def run(scenario: Callable[[Daemon], object], home: Path) -> Judgement:
    async def main() -> Judgement:
        async with daemon_with_bot(home) as daemon:
            async with asyncio.timeout(BOUND):
                await scenario(daemon)  # type: ignore[misc]
                return await game_over(daemon)

    return asyncio.run(main())


def test_a_guest_that_signs_two_shots_for_one_message_is_named_a_cheat(tmp_path: Path) -> None:
    """The daemon takes the first shot and keeps the second as signed evidence; the log
    alone convicts the guest of equivocation."""

    async def scenario(daemon: Daemon) -> None:
        guest = await Guest.connect(daemon, seed=1)
        await guest.play_until(shot_due)
        twin = guest.signed_next((99,))
        guest.shoot()
        await guest.send(guest.session.data_to_send() + twin)
        await guest.until_hung_up()

    judged = run(scenario, tmp_path / "d")
    assert judged.ending is not None, judged.lines()
    assert (judged.ending.end, judged.ending.winner) == (End.CHEATED, Role.HOST), judged.lines()
    assert judged.ending.culprits == {Role.GUEST}
    assert [v.kind for v in judged.violations] == [Kind.EQUIVOCATION], judged.lines()
    assert judged.logs[0].evidence == 1


def test_a_guest_that_drips_its_shot_a_byte_at_a_time_loses_on_time(tmp_path: Path) -> None:
    """Bytes that never make a whole message are no move: the daemon's clock runs out on
    the guest, a byte every 10 s (of the daemon's time) or not."""

    async def scenario(daemon: Daemon) -> None:
        guest = await Guest.connect(daemon, seed=2)
        await guest.play_until(shot_due)
        guest.shoot()
        with contextlib.suppress(ConnectionError):
            for byte in guest.session.data_to_send():
                await guest.send(bytes([byte]))
                await asyncio.sleep(10 / SPEED)
                if daemon.games[1].status == "over":
                    break
        guest.writer.close()

    judged = run(scenario, tmp_path / "d")
    assert judged.valid, judged.lines()
    assert judged.ending is not None
    assert (judged.ending.end, judged.ending.winner) == (End.TIME, Role.HOST), judged.lines()


def test_a_guest_that_resigns_and_never_reveals_is_claimed_on_time(tmp_path: Path) -> None:
    async def scenario(daemon: Daemon) -> None:
        guest = await Guest.connect(daemon, seed=3)
        await guest.play_until(shot_due)
        guest.session.resign(guest.clock.now())
        await guest.send(guest.session.data_to_send())
        await guest.until_hung_up()  # its reveal is due: it says nothing more

    judged = run(scenario, tmp_path / "d")
    assert judged.valid, judged.lines()
    assert judged.ending is not None and judged.ending.winner is Role.HOST, judged.lines()
    assert not judged.ending.blames(Role.HOST)


def test_frames_of_the_largest_size_back_to_back_end_the_game_not_the_daemon(
    tmp_path: Path,
) -> None:
    """A shot padded with an unknown key to the largest body there is, then twenty more of
    that size in one write: the first is a shot (the key ignored), the rest repeat it and
    the connection is lost; the daemon finishes alone, file descriptors back where they were."""
    before: list[int] = []

    async def scenario(daemon: Daemon) -> None:
        before.append(open_fds())
        guest = await Guest.connect(daemon, seed=4)
        await guest.play_until(shot_due)
        t = guest.session.transcript
        fields = {
            "type": "shot",
            "from": "guest",
            "seq": len(t.frames),
            "prev": t.last_digest,
            "game": t.game,
            "at": guest.clock.now(),
            "squares": [0],
            "padding": b"",
        }
        room = MAX_FRAME - len(msgpack.packb(fields, use_bin_type=True)) - 1  # bin 8 to bin 16
        fields["padding"] = bytes(room)
        body = msgpack.packb(fields, use_bin_type=True)
        assert len(body) == MAX_FRAME
        frame = msgpack.packb([body, guest.session.key.sign(SIGN_LABEL + body)])
        await guest.send(frame * 21)
        await guest.until_hung_up()

    judged = run(scenario, tmp_path / "d")
    assert judged.valid, judged.lines()
    assert judged.ending is not None
    assert (judged.ending.end, judged.ending.winner) == (End.TIME, Role.HOST), judged.lines()
    assert judged.messages > 8, "the padded shot was taken"
    assert open_fds() <= before[0] + 2, "the connection is gone"


def test_talk_flooded_past_its_rate_is_dropped_and_the_game_goes_on(tmp_path: Path) -> None:
    """Four hundred signed lines at once: the daemon keeps at most a game's bound of them,
    notes a few drops, and the game ends as played (the guest resigns)."""

    async def scenario(daemon: Daemon) -> None:
        guest = await Guest.connect(daemon, seed=5)
        await guest.play_until(shot_due)
        t = guest.session.transcript
        flood = b"".join(
            sign_say(
                guest.session.key,
                Say(Role.GUEST, t.game, n, len(t.frames), guest.clock.now(), f"spam {n}"),
            ).encode()
            for n in range(400)
        )
        await guest.send(flood)
        guest.session.resign(guest.clock.now())
        await guest.send(guest.session.data_to_send())
        await guest.play_until(lambda s: s.closed)
        await guest.until_hung_up()

    judged = run(scenario, tmp_path / "d")
    assert judged.valid, judged.lines()
    assert judged.ending is not None
    assert (judged.ending.end, judged.ending.winner) == (End.RESIGNED, Role.HOST)
    [log] = (tmp_path / "d" / "logs").glob("*.statki")
    contents = read_log(log.read_bytes())
    # The daemon's clock runs fast, so windows of its rate pass as the flood is read:
    # what binds here is the game's total, and the notes of drops.
    assert 0 < len(contents.talk) <= MAX_SAYS, len(contents.talk)
    assert len(contents.notes) <= MAX_TALK_NOTES + 4, contents.notes

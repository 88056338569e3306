"""Hostile traffic against real ``statki host`` and ``statki daemon`` processes (issue 11).

300 silent connections, 100 slow ones (trickling bytes) and a port scan, from
many loopback addresses (Linux answers for all of 127/8), while the invited
guest joins from its own: it gets in within a second, the game finishes and
its log verifies, and nothing else leaves a log file.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netproc import finish, line_starting, start, stop

from statki_net.ai.computer import ComputerPlayer
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient
from statki_net.net.invite import Invite, parse_invite
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log

SILENT = 300
SLOW = 100
SCANS = 40
PER_ADDRESS = 5
"""Under the admission's share of one address (8), so every hostile connection is screened."""
WAVE = 50
"""Hostile connections opened at once: a burst within any listen backlog."""
GETS_IN = 1.0
"""Seconds from the invited guest's connect to its game begun (SPEC's 0.3 s quiet included)."""


def _attacker(n: int) -> tuple[str, int]:
    """The n-th hostile connection's own source address: 127.1.x.y."""
    block = n // PER_ADDRESS
    return f"127.1.{block // 250}.{block % 250 + 1}", 0


async def _open(port: int, n: int) -> asyncio.StreamWriter:
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=_attacker(n))
    return writer


async def _trickle(writer: asyncio.StreamWriter) -> None:
    """The start of a frame too long to finish, a byte every half second."""
    with contextlib.suppress(ConnectionError, OSError):
        await asyncio.sleep(0.5)
        for byte in b"\x92\xc5\xff\xf0" + bytes(100):
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.5)


async def _scan(port: int) -> None:
    for _ in range(SCANS):  # a connect scan: open, close at once, again
        _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.2.0.1", 0))
        writer.close()


@contextlib.asynccontextmanager
async def hostile_traffic(port: int) -> AsyncIterator[None]:
    """Silent and slow connections held open, and a scan, for as long as the block runs."""
    writers: list[asyncio.StreamWriter] = []
    for wave in range(0, SILENT + SLOW, WAVE):
        count = min(WAVE, SILENT + SLOW - wave)
        writers += await asyncio.gather(*(_open(port, wave + n) for n in range(count)))
    trickling = [asyncio.ensure_future(_trickle(w)) for w in writers[SILENT:]]
    scanning = asyncio.ensure_future(_scan(port))
    await asyncio.sleep(0.5)  # all of them past the quiet period, each told its hello
    try:
        yield
    finally:
        for task in [*trickling, scanning]:
            task.cancel()
        await asyncio.gather(*trickling, scanning, return_exceptions=True)
        for writer in writers:
            writer.close()


async def invited_guest(invite: Invite) -> tuple[float, Outcome]:
    """The guest the invite names, a computer player: how long it took to get in, and the game."""
    loop = asyncio.get_running_loop()
    connected = loop.time()
    host, port = invite.addresses[0]
    reader, writer = await asyncio.open_connection(host, port)
    rng = random.Random(11)
    session = Session(
        Role.GUEST,
        Ed25519PrivateKey.generate(),
        name="Ola",
        entropy=rng.randbytes,
        invite_secret=invite.secret,
    )
    conn = GameConnection(session, reader, writer, log_dir=None, expect_key=invite.key)
    attach_computer(conn, ComputerPlayer("random", rng))
    began: asyncio.Future[float] = loop.create_future()

    def on_notice(notice: notices.Notice) -> None:
        if isinstance(notice, notices.Started) and not began.done():
            began.set_result(loop.time())

    conn.listeners.append(on_notice)
    outcome = await conn.run()
    assert began.done(), outcome
    return began.result() - connected, outcome


def _port_of(invite: Invite) -> int:
    return invite.addresses[0][1]


def _logs(home: Path) -> list[Path]:
    folder = home / "logs"
    return sorted(folder.iterdir()) if folder.exists() else []


def _host_on_ipv4(home: Path) -> tuple[subprocess.Popen[str], Invite]:
    """``statki host`` on port 0, listening on IPv4 too.

    Port 0 picks a port free for IPv6, which an outgoing connection of an earlier
    test may still hold for IPv4; the host then listens on IPv6 alone (it passes
    over an address it cannot bind), and is started again.
    """
    args = ("host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random")
    for _ in range(5):
        host = start(home, *args, "--rules", "five-ships")
        seen: list[str] = []
        invite = parse_invite(line_starting(host, "statki://", seen))
        if any("0.0.0.0:" in line for line in seen):
            return host, invite
        stop(host)
    raise AssertionError("statki host found no port free for both IPv4 and IPv6")


def test_the_invited_guest_gets_past_hostile_traffic_to_statki_host(tmp_path: Path) -> None:
    home = tmp_path / "host"
    host, invite = _host_on_ipv4(home)
    try:

        async def scenario() -> tuple[float, Outcome]:
            async with hostile_traffic(_port_of(invite)):
                return await invited_guest(invite)

        took, outcome = asyncio.run(scenario())
        status, _, err = finish(host)
    finally:
        if host.poll() is None:
            stop(host)
    assert outcome.ending.end is End.SUNK and outcome.failure is None, outcome
    print(f"the invited guest got in in {took:.2f} s")
    assert took < GETS_IN, f"the invited guest took {took:.2f} s to get in"
    assert status == 0, err
    [log] = _logs(home)  # the game's; nothing for the hundreds turned away
    assert judge_log(log.read_bytes()).valid


def test_the_invited_guest_gets_past_hostile_traffic_to_the_daemon(tmp_path: Path) -> None:
    home = tmp_path / "d"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0", "--bot", "random")
    try:
        line_starting(daemon, "control socket", [])

        async def scenario() -> tuple[float, Outcome, Outcome, dict[str, object]]:
            client = await ControlClient.connect(home)
            assert client is not None
            try:
                hosted = await client.request("host", rules="five-ships", bot="random")
                invite = parse_invite(hosted["invite"])
                async with hostile_traffic(_port_of(invite)):
                    took, outcome = await invited_guest(invite)
                    # The hosted game taken, a guest without the secret gets the bot's open game.
                    bare = Invite(invite.addresses, invite.key)
                    _, on_demand = await invited_guest(bare)
                status = await client.request("status")
                for _ in range(100):  # the daemon's side ends a moment after ours
                    games = (await client.request("games"))["games"]
                    if {g["status"] for g in games} == {"over"}:
                        break
                    await asyncio.sleep(0.1)
                await client.request("stop")
                return took, outcome, on_demand, status
            finally:
                await client.close()

        took, outcome, on_demand, status = asyncio.run(scenario())
        exit_status, _, err = finish(daemon)
    finally:
        if daemon.poll() is None:
            stop(daemon)
    assert outcome.ending.end is End.SUNK and outcome.failure is None, outcome
    assert on_demand.ending.end is End.SUNK, on_demand
    print(f"the invited guest got in in {took:.2f} s")
    assert took < GETS_IN, f"the invited guest took {took:.2f} s to get in"
    assert exit_status == 0, err
    turned_away = status["turned_away"]
    assert isinstance(turned_away, dict), status
    scans = turned_away.get("closed", 0) + turned_away.get("too-many", 0)
    assert scans >= SCANS, turned_away  # a fast scan from one address meets its share too
    logs = _logs(home)
    assert len(logs) == 2, logs  # the two games'; nothing for the hundreds turned away
    assert all(judge_log(log.read_bytes()).valid for log in logs)

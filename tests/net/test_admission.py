"""Admission over real loopback TCP: only a connection that waits, silent, takes a game.

The same component admits guests for ``statki host`` and for the daemon; the
daemon's own test plays through a game it hosts after a port scan.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net.admission import Admission, Admitted, Refusal, TurnedAway
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient
from statki_net.net.daemon import Daemon
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role

Decision = Admitted[str] | TurnedAway
Client = Callable[[int], Awaitable[None]]


async def port_scan(port: int) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()  # a connect scan: open, then close at once


async def browser(port: int) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.0\r\n\r\n")  # a client of another protocol speaks first


async def waits(port: int) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        await asyncio.sleep(30)  # as a guest waiting for the host's hello (cut short)
    finally:
        writer.close()


async def decide(admission: Admission[str], client: Client) -> Decision:
    """How ``admission`` decides on one connection made by ``client``."""
    decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decision = await admission.admit(reader, writer)
        decided.set_result(decision)
        if isinstance(decision, Admitted):
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    connecting = asyncio.ensure_future(client(server.sockets[0].getsockname()[1]))
    try:
        async with asyncio.timeout(10):
            return await decided
    finally:
        connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        server.close()
        await server.wait_closed()


def test_a_scan_and_a_client_that_speaks_first_are_turned_away_a_guest_is_not() -> None:
    async def scenario() -> list[Decision]:
        admission: Admission[str] = Admission()
        admission.offer("the game", "GAME")
        return [await decide(admission, client) for client in (port_scan, browser, waits, waits)]

    scan, spoke, guest, late = asyncio.run(scenario())
    assert scan == TurnedAway(Refusal.CLOSED)
    assert spoke == TurnedAway(Refusal.SPOKE_FIRST)
    assert isinstance(guest, Admitted) and (guest.name, guest.game) == ("the game", "GAME")
    assert late == TurnedAway(Refusal.NO_GAME), "the game is taken: the next guest has none"


def test_games_go_oldest_first_and_one_is_made_on_demand_when_none_waits() -> None:
    made: list[str] = []

    def on_demand() -> tuple[str, str]:
        made.append("made")
        return "new", "NEW"

    async def scenario() -> list[Decision]:
        admission: Admission[str] = Admission(on_demand=on_demand)
        admission.offer("first", "A")
        admission.offer("second", "B")
        admission.offer("third", "C")
        assert admission.withdraw("second") == "B" and admission.pending == ["first", "third"]
        decisions = [await decide(admission, waits) for _ in range(3)]
        decisions.append(await decide(admission, port_scan))
        return decisions

    *guests, scan = asyncio.run(scenario())
    assert [(g.name, g.game) for g in guests if isinstance(g, Admitted)] == [
        ("first", "A"), ("third", "C"), ("new", "NEW"),
    ]  # fmt: skip
    assert scan == TurnedAway(Refusal.CLOSED) and made == ["made"], "no game made for a scan"


async def honest_guest(port: int) -> Outcome:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(3)
    session = Session(Role.GUEST, Ed25519PrivateKey.generate(), name="Ola", entropy=rng.randbytes)
    conn = GameConnection(session, reader, writer, log_dir=None)
    attach_computer(conn, ComputerPlayer("random", rng))
    return await conn.run()


def test_a_port_scan_does_not_take_a_game_hosted_through_the_daemon(tmp_path: Path) -> None:
    """The daemon admits as ``statki host`` does: the guest after a scan still plays."""

    async def scenario() -> tuple[bytes, Outcome, bytes, dict[str, object]]:
        home = tmp_path / "daemon"
        home.mkdir(mode=0o700)
        daemon = Daemon(
            home,
            Ed25519PrivateKey.generate(),
            name="d",
            listen_on=[("127.0.0.1", 0)],
            rules=ruleset_named("classic"),
            limits=Limits(60_000, 30_000),
        )
        await daemon.start()
        client = await ControlClient.connect(home)
        assert client is not None
        try:
            port = daemon.addresses[0][1]
            reply = await client.request("host", rules="five-ships", bot="random")
            await port_scan(port)
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET / HTTP/1.0\r\n\r\n")
            async with asyncio.timeout(10):
                told_browser = await reader.read()  # turned away without a word
            outcome = await honest_guest(port)
            reader, _ = await asyncio.open_connection("127.0.0.1", port)
            async with asyncio.timeout(10):
                told_late = await reader.read()  # no bot and no game waiting: nothing
            state = (await client.request("state", game=reply["game"]))["state"]
            return told_browser, outcome, told_late, state
        finally:
            await client.close()
            await daemon.shutdown()

    told_browser, outcome, told_late, state = asyncio.run(scenario())
    assert told_browser == b"" and told_late == b""
    assert outcome.ending.end is End.SUNK and outcome.failure is None
    assert state["rules"] == "five-ships" and state["opponent"]["name"] == "Ola"  # type: ignore[index]

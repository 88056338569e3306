"""The control request ``leave``: a player leaves a daemon's game before its battle.

The daemon runs in this process over real loopback TCP and its control socket;
the opponent is a ``GameConnection`` here.  Before ``leave`` the daemon played
on a game left before its battle, and its opponent waited a whole move limit
for a claim (SPEC.md, "The control socket", ``leave``).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_daemon_games import running_daemon

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient, ControlError, Message
from statki_net.net.invite import parse_invite
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role

WAIT = 20.0
"""Longest wait for a step (a bound, not a timing)."""


def a_guest(invite: str, seed: int) -> Session:
    return Session(
        Role.GUEST,
        Ed25519PrivateKey.generate(),
        name="Ola",
        entropy=random.Random(seed).randbytes,
        invite_secret=parse_invite(invite).secret,
    )


async def closed_event(client: ControlClient, game: int) -> Message:
    async with asyncio.timeout(WAIT):
        while (event := await client.events.get()) is not None:
            if event.get("game") == game and event["event"] == "closed":
                return event
    raise AssertionError("the daemon went away")


async def phase_of(client: ControlClient, game: int, phase: str) -> None:
    async with asyncio.timeout(WAIT):
        while (await client.request("state", game=game))["state"].get("phase") != phase:
            await asyncio.sleep(0.01)


def test_a_game_no_guest_took_is_withdrawn(tmp_path: Path) -> None:
    async def scenario() -> tuple[Message, Message, Message]:
        async with running_daemon(tmp_path / "d") as (_, client):
            reply = await client.request("host", rules="alternate", subscribe=True)
            left = await client.request("leave", game=reply["game"])
            closed = await closed_event(client, reply["game"])
            state = (await client.request("state", game=reply["game"]))["state"]
            return left, closed, state

    left, closed, state = asyncio.run(scenario())
    assert left["end"] == "no-game"
    assert closed["end"] == "no-game" and "withdrawn" in closed["failure"], closed
    assert state["status"] == "over"


def test_a_host_who_leaves_while_the_guest_decides_ends_it_with_no_game_at_once(
    tmp_path: Path,
) -> None:
    """The guest hears the host's error at once, and its game ends with nobody to blame;
    its reader is told the host left, not the host's English detail."""

    async def scenario() -> tuple[Message, Outcome, Session, str]:
        async with running_daemon(tmp_path / "d") as (daemon, client):
            reply = await client.request("host", rules="alternate", subscribe=True, move_ms=600_000)
            number = reply["game"]
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
            guest = a_guest(reply["invite"], 1)
            conn = GameConnection(guest, reader, writer, log_dir=None)
            game = asyncio.ensure_future(conn.run())  # it never decides
            await phase_of(client, number, "decision")
            left = await client.request("leave", game=number)
            async with asyncio.timeout(WAIT):  # not the ten minutes of its limit
                outcome = await game
            await closed_event(client, number)
            with pytest.raises(ControlError) as again:
                await client.request("leave", game=number)
            return left, outcome, guest, str(again.value)

    left, outcome, guest, again = asyncio.run(scenario())
    assert left["end"] == "no-game"
    assert outcome.ending.end is End.NO_GAME and outcome.ending.culprits == frozenset()
    assert outcome.failure is not None and outcome.failure.code is Code.CLOSED
    assert outcome.failure.by_peer and "the player left before the battle" in str(outcome.failure)
    told = str(guest.transcript.reason_to(Role.GUEST))
    assert told.startswith("the host left before the battle: no game began"), told
    assert again == "the game is over"


def test_a_guest_who_leaves_before_the_hosts_hello_ends_it(tmp_path: Path) -> None:
    """The daemon joined a host that says nothing yet: leaving stops the game there."""

    async def scenario() -> tuple[Message, Message]:
        connected: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()

        async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await connected.put(writer)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            async with running_daemon(tmp_path / "d") as (_, client):
                reply = await client.request("connect", invite=f"127.0.0.1:{port}", subscribe=True)
                async with asyncio.timeout(WAIT):
                    writer = await connected.get()
                    while (await client.request("state", game=reply["game"]))["state"][
                        "status"
                    ] != "playing":
                        await asyncio.sleep(0.01)
                left = await client.request("leave", game=reply["game"])
                closed = await closed_event(client, reply["game"])
                writer.close()
                return left, closed
        finally:
            server.close()

    left, closed = asyncio.run(scenario())
    assert left["end"] == "no-game" and closed["end"] == "no-game", closed


def test_leave_is_refused_once_the_battle_has_begun(tmp_path: Path) -> None:
    async def scenario() -> ControlError:
        async with running_daemon(tmp_path / "d") as (daemon, client):
            reply = await client.request("host", rules="alternate", subscribe=True)
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
            guest = a_guest(reply["invite"], 2)
            conn = GameConnection(guest, reader, writer, log_dir=None)
            loop = asyncio.get_running_loop()

            def accept(notice: notices.Notice) -> None:
                if isinstance(notice, notices.Rules):
                    loop.call_soon(
                        conn.accept, random_fleet(ruleset_named("alternate"), random.Random(3))
                    )

            conn.listeners.append(accept)
            game = asyncio.ensure_future(conn.run())
            async with asyncio.timeout(WAIT):
                while (event := await client.events.get()) is not None:
                    if event["event"] == "started":
                        break
            with pytest.raises(ControlError) as refused:
                await client.request("leave", game=reply["game"])
            game.cancel()
            await asyncio.gather(game, return_exceptions=True)
            return refused.value

    refused = asyncio.run(scenario())
    assert str(refused) == "the battle has begun: a player leaves it by resigning"

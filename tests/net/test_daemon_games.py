"""The daemon in this process, on a fast clock, over real loopback TCP and its control socket.

What depends on the protocol's limits (a minute at least, SPEC.md section 7)
is tested here, where a ``ScaledClock`` waits a minute out in a fraction of
a second; ``test_daemon.py`` runs the real command.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK, Clock, ScaledClock
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient, ControlError
from statki_net.net.daemon import Daemon
from statki_net.net.invite import parse_invite
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Error, FrameReader, Hello, Limits, Role, TimeClaim
from statki_net.referee.verify import judge_log, replay_log


@contextlib.asynccontextmanager
async def running_daemon(
    home: Path, *, clock: Clock = WALL_CLOCK, bot: str | None = None
) -> AsyncIterator[tuple[Daemon, ControlClient]]:
    """A daemon listening on loopback, and a control connection to it."""
    home.mkdir(mode=0o700, exist_ok=True)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.generate(),
        name="d",
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("alternate"),
        limits=Limits(60_000, 30_000),
        bot=bot,
        clock=clock,
    )
    await daemon.start()
    client = await ControlClient.connect(home)
    assert client is not None
    try:
        yield daemon, client
    finally:
        await client.close()
        await daemon.shutdown()


def test_a_move_limit_outside_specs_bounds_is_refused_in_one_line(tmp_path: Path) -> None:
    async def ask() -> list[str]:
        refusals = []
        async with running_daemon(tmp_path / "d") as (_, client):
            for move_ms in (5_000, 59_999, 86_400_001, True, 60_000.0):
                with pytest.raises(ControlError) as refused:
                    await client.request("host", rules="classic", move_ms=move_ms)
                refusals.append(str(refused.value))
            reply = await client.request("host", rules="classic", move_ms=60_000)
            assert reply["game"] == 1, "the edge itself is allowed"
        return refusals

    refusals = asyncio.run(ask())
    bounds = "move_ms must be 60000 to 86400000 (SPEC.md, section 7)"
    assert refusals == [bounds] * 3 + ["move_ms must be a whole number of milliseconds"] * 2


def test_stop_forfeits_the_games_in_play(tmp_path: Path) -> None:
    """The daemon told to stop sends ``error`` (``closed``) in each game: its forfeit."""

    async def scenario() -> tuple[Outcome, list[str]]:
        async with running_daemon(tmp_path / "d") as (daemon, client):
            reply = await client.request("host", rules="alternate", bot="random", subscribe=True)
            port = daemon.addresses[0][1]
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            rng = random.Random(4)
            guest = Session(
                Role.GUEST,
                Ed25519PrivateKey.generate(),
                name="Ola",
                entropy=rng.randbytes,
                invite_secret=parse_invite(reply["invite"]).secret,
            )
            conn = GameConnection(guest, reader, writer, log_dir=None)
            loop = asyncio.get_running_loop()

            def accept_and_sit(notice: Notice) -> None:  # accepts, then never shoots
                if isinstance(notice, notices.Rules):
                    fleet = random_fleet(notice.rules, rng)
                    loop.call_soon(conn.accept, fleet)

            conn.listeners.append(accept_and_sit)
            game = asyncio.ensure_future(conn.run())
            events = []
            while (event := await client.events.get()) is not None:
                events.append(event["event"])
                if event["event"] == "started":
                    await client.request("stop")
                    await daemon.shutdown()
                    break
            outcome = await asyncio.wait_for(game, 10)
            assert reply["game"] == 1
            return outcome, events

    outcome, events = asyncio.run(scenario())
    assert events[-1] == "started", "stopped mid-game"
    assert outcome.failure is not None and outcome.failure.by_peer
    assert outcome.failure.code is Code.CLOSED
    assert outcome.ending.end is End.FORFEIT and outcome.ending.winner is Role.GUEST
    [log] = list((tmp_path / "d" / "logs").iterdir())
    last = frames_of(read_log(log.read_bytes()))[-1].message
    assert isinstance(last, Error) and last.code == "closed"


def test_a_silent_connection_is_given_up_on_after_the_admission_wait(tmp_path: Path) -> None:
    """No hello back within the admission wait (cut short here): closed, and no game made."""

    async def scenario() -> tuple[bytes, dict[str, object], list[object]]:
        async with running_daemon(tmp_path / "d", clock=ScaledClock(200), bot="random") as (
            daemon,
            client,
        ):
            daemon.admission.wait_seconds = 0.5
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
            heard = b""
            async with asyncio.timeout(20):
                while data := await reader.read(65536):  # says nothing; is hung up on
                    heard += data
            writer.close()
            status = await client.request("status")
            games = (await client.request("games"))["games"]
            return heard, status, games

    heard, status, games = asyncio.run(scenario())
    messages = [e.open().message for e in FrameReader().feed(heard)]
    assert [type(m) for m in messages] == [Hello], "the hello, and then nothing"
    assert status["turned_away"] == {"silent": 1} and games == []
    assert not (tmp_path / "d" / "logs").exists(), "no game, no log"


def test_a_guest_gone_mid_game_loses_on_time_by_the_daemons_log(tmp_path: Path) -> None:
    """The daemon finishes alone: its own move if it was to speak, then its claim."""

    async def scenario() -> tuple[list[dict[str, object]], Path]:
        async with running_daemon(tmp_path / "d", clock=ScaledClock(200)) as (daemon, client):
            reply = await client.request("host", rules="alternate", bot="random", subscribe=True)
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
            rng = random.Random(6)
            guest = Session(
                Role.GUEST,
                Ed25519PrivateKey.generate(),
                name="Ola",
                entropy=rng.randbytes,
                invite_secret=parse_invite(reply["invite"]).secret,
            )
            conn = GameConnection(guest, reader, writer, log_dir=None, clock=daemon.clock)
            attach_computer(conn, ComputerPlayer("random", rng))
            game = asyncio.ensure_future(conn.run())
            events: list[dict[str, object]] = []
            async with asyncio.timeout(30):
                while (event := await client.events.get()) is not None:
                    events.append(event)
                    if event["event"] == "volley" and event["move"] == 3:
                        writer.transport.abort()  # the guest's machine is gone: a reset
                        game.cancel()
                    if event["event"] == "closed":
                        break
            await asyncio.gather(game, return_exceptions=True)
            state = (await client.request("state", game=reply["game"]))["state"]
            assert isinstance(state["log"], str)
            return events, Path(state["log"])

    events, log = asyncio.run(scenario())
    kinds = [event["event"] for event in events]
    assert "lost" in kinds and kinds[-1] == "closed"
    closed = events[-1]
    assert (closed["result"], closed["end"], closed["standing"]) == ("won", "time", "valid")
    transcript, _ = replay_log(read_log(log.read_bytes()))
    assert transcript.ending is not None and transcript.ending.culprits == {Role.GUEST}
    last = transcript.frames[-1]
    assert last.header.sender is Role.HOST and isinstance(last.message, TimeClaim)


def test_talk_goes_through_the_daemon_both_ways_and_its_computer_says_nothing(
    tmp_path: Path,
) -> None:
    """The daemon's game pushes the guest's line as a ``talk`` event, and ``say`` answers it;
    the computer playing the daemon's side never talks itself."""

    async def scenario() -> tuple[list[dict[str, object]], list[str], Path]:
        async with running_daemon(tmp_path / "d") as (daemon, client):
            reply = await client.request("host", rules="alternate", bot="random", subscribe=True)
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.addresses[0][1])
            guest = Session(
                Role.GUEST,
                Ed25519PrivateKey.generate(),
                name="Ola",
                entropy=random.Random(5).randbytes,
                invite_secret=parse_invite(reply["invite"]).secret,
            )
            conn = GameConnection(guest, reader, writer, log_dir=None)
            attach_computer(conn, ComputerPlayer("random", random.Random(6)))
            heard: list[str] = []
            loop = asyncio.get_running_loop()

            def talk(notice: Notice) -> None:
                if isinstance(notice, notices.Started):
                    loop.call_soon(conn.say, "dzień dobry")
                elif isinstance(notice, notices.Talk) and not notice.mine:
                    heard.append(notice.text)

            conn.listeners.append(talk)
            game = asyncio.ensure_future(conn.run())
            talked = []
            while (event := await client.events.get()) is not None:
                if event["event"] == "talk":
                    talked.append(event)
                    if not event["mine"]:
                        await client.request("say", game=reply["game"], text="witam")
                if event["event"] == "closed":
                    break
            await asyncio.wait_for(game, 30)
            [log] = list((tmp_path / "d" / "logs").iterdir())
            return talked, heard, log

    talked, heard, log = asyncio.run(scenario())
    assert [(e["from"], e["mine"], e["text"]) for e in talked] == [
        ("guest", False, "dzień dobry"),
        ("host", True, "witam"),
    ]
    assert heard == ["witam"], "the owner's line, and nothing from the computer"
    judged = judge_log(log.read_bytes())
    assert [line.text for line in judged.talk] == ["dzień dobry", "witam"] and judged.valid

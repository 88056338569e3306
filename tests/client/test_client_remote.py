"""The client's model over real loopback TCP, as a guest against a computer host."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netgames import connected, sessions
from statki_client.layout import plain, screen
from statki_client.model import Model, Stage
from statki_client.remote import ClientConnection, ConnectionLink

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK, ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.verify import judge_log
from statki_net.store.history import History

LIMITS = Limits(move_ms=60_000, reveal_ms=30_000)
CUSTOM = Ruleset(size=8, fleet=(3, 2, 2))


async def guest_game(tmp_path: Path) -> Model:
    rules = ruleset_named("classic")
    rng = random.Random(11)
    accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put((reader, writer))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    host = Session(
        Role.HOST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="computer",
        entropy=rng.randbytes,
        rules=rules,
        limits=LIMITS,
        fleet=random_fleet(rules, rng),
    )
    guest = Session(
        Role.GUEST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="Ola",
        entropy=rng.randbytes,
        limits=LIMITS,
    )
    link = ConnectionLink(guest)
    model = Model(link, rng)
    assert model.stage is Stage.CONNECTING, "the guest waits for the host's rules"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    host_reader, host_writer = await accepted.get()
    host_conn = GameConnection(host, host_reader, host_writer, log_dir=None)
    attach_computer(host_conn, ComputerPlayer("random", random.Random(5)))
    guest_conn = ClientConnection(
        guest, reader, writer, log_dir=tmp_path / "logs", history=History.in_home(tmp_path)
    )
    link.attach(guest_conn)

    async def player() -> None:
        square = 0
        while model.stage is not Stage.OVER:
            if model.stage is Stage.PLACING and model.must_decide:
                assert model.rules_name() == "classic"
                assert model.opponent_name == "computer" and model.opponent_key
                assert model.ready()
            elif model.my_turn:
                while model.refusal(square % 100) is not None:
                    square += 1
                model.choose(square % 100)
            await asyncio.sleep(0.001)

    try:
        await asyncio.wait_for(
            asyncio.gather(host_conn.run(), guest_conn.run(), player()), timeout=60
        )
    finally:
        server.close()
        await server.wait_closed()
    return model


def test_the_model_plays_a_whole_game_over_tcp_as_the_guest(tmp_path: Path) -> None:
    model = asyncio.run(guest_game(tmp_path))
    ending = model.end_screen
    assert ending is not None and ending.their_fleet is not None
    assert ending.verdict.startswith(("You won", "You lost"))
    assert ending.log_path is not None
    assert judge_log(ending.log_path.read_bytes()).valid
    (row,) = History.in_home(tmp_path).games()
    assert row.my_role == "guest" and row.opponent_name == "computer"


async def guest_facing(rules: Ruleset, *, custom_rules: bool) -> tuple[Model, str, End]:
    """The guest's model when the host proposes ``rules``: the screen, and how it ended."""
    host, guest = sessions(rules, 8)
    async with connected(host, guest, clock=WALL_CLOCK) as (host_conn, guest_conn, _):
        attach_computer(host_conn, ComputerPlayer("random", random.Random(5)))
        link = ConnectionLink(guest)
        model = Model(link, random.Random(3), custom_rules=custom_rules)
        link.attach(guest_conn)
        shown = ""

        async def player() -> None:
            nonlocal shown
            while model.stage is not Stage.OVER:
                if model.must_decide:
                    shown = plain(screen(model))
                    model.decline()
                await asyncio.sleep(0.001)

        _, outcome, _ = await asyncio.wait_for(
            asyncio.gather(host_conn.run(), guest_conn.run(), player()), timeout=30
        )
    return model, shown, outcome.ending.end


def test_the_guest_declines_custom_rules_and_says_which_they_are() -> None:
    model, shown, end = asyncio.run(guest_facing(CUSTOM, custom_rules=False))
    assert end is End.REFUSED and shown == "", "never asked"
    assert model.trouble and "custom rules, unlike classic: board: 8x8" in model.notice
    assert "--custom-rules" in model.notice


def test_with_custom_rules_admitted_the_guest_sees_each_departure_before_it_decides() -> None:
    _, shown, end = asyncio.run(guest_facing(CUSTOM, custom_rules=True))
    assert end is End.REFUSED
    assert "No preset: unlike classic," in shown
    assert "board: 8x8 (classic: 10x10)" in shown and "a coin toss decides who starts" in shown
    assert "proposes custom rules, no preset" in shown


def test_a_connection_lost_mid_game_is_said_and_the_game_is_won_on_time(tmp_path: Path) -> None:
    """Cut after 20 messages; on a clock 200 times fast the minute's wait is 0.3 s."""

    async def game() -> tuple[Model, list[str]]:
        host, guest = sessions(ruleset_named("classic"), 10)
        clock = ScaledClock(200)
        logs = (None, tmp_path / "logs")
        async with connected(host, guest, clock=clock, log_dirs=logs, cut_after=20) as (
            host_conn,
            guest_conn,
            _,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(5)))
            link = ConnectionLink(guest)
            model = Model(link, random.Random(3))
            link.attach(guest_conn)
            said: list[str] = []

            async def player() -> None:
                square = 0
                while model.stage is not Stage.OVER:
                    if model.notice and (not said or said[-1] != model.notice):
                        said.append(model.notice)
                    if model.must_decide:
                        model.ready()
                    elif model.my_turn:
                        while model.refusal(square % 100) is not None:
                            square += 1
                        model.choose(square % 100)
                    await asyncio.sleep(0.001)

            await asyncio.wait_for(
                asyncio.gather(host_conn.run(), guest_conn.run(), player()), timeout=30
            )
            await asyncio.sleep(0.01)  # the referee's words reach the model last
        return model, said

    model, said = asyncio.run(game())
    assert any(
        text.startswith("Connection lost: ") and " s for the opponent" in text for text in said
    )
    end = model.end_screen
    assert end is not None and end.verdict == "You won on time: the opponent ran out of time"
    assert end.referee, "the referee's line on this side's log"


def test_a_declined_game_counts_no_shots_on_its_end_screen() -> None:
    """No game was played: "Shots: you 0, opponent 0" would read as one that was."""
    model, _, end = asyncio.run(guest_facing(ruleset_named("classic"), custom_rules=True))
    assert end is End.REFUSED and model.stage is Stage.OVER
    shown = plain(screen(model))
    assert "Shots" not in shown and "shots host" not in shown, shown


def test_a_host_that_leaves_before_its_hello_left_before_the_game() -> None:
    """The host quit on its rules screen: its guest reads that it left, not of a lost
    connection."""

    async def scenario() -> str:
        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.close()  # the host's player quit before the hello went out

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        guest = Session(
            Role.GUEST, Ed25519PrivateKey.generate(), name="Ola", entropy=random.Random(1).randbytes
        )
        link = ConnectionLink(guest)
        model = Model(link, random.Random(3))
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        conn = ClientConnection(guest, reader, writer, log_dir=None)
        link.attach(conn)
        try:
            await asyncio.wait_for(conn.run(), timeout=30)
            async with asyncio.timeout(10):
                while model.end_screen is None:
                    await asyncio.sleep(0.01)
        finally:
            server.close()
            await server.wait_closed()
        return plain(screen(model))

    shown = asyncio.run(scenario())
    assert "The host left before the game began" in shown, shown
    assert "Connection lost" not in shown, shown

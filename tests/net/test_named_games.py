"""A daemon hosting several games on one port admits each game's own guest (protocol 5).

One real daemon process, on loopback, with two invite games hosted and
``--bot`` (a game on demand, open to anyone): the second game's guest names
its game with a ``join`` and gets it, a bare address gets the bot's game while
both invite games wait, and a wrong tag and replayed joins are turned away
without disturbing any of them; the first game's guest then gets its own.
Three five-ships games between computers, played at once: a few seconds.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netproc import finish, line_starting, start, stop

from statki_net.ai.computer import ComputerPlayer
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient
from statki_net.net.invite import Invite, parse_invite
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    INVITE_SECRET_SIZE,
    Envelope,
    FrameReader,
    Join,
    Role,
    game_tag,
    message_hash,
    sign_join,
)
from statki_net.referee.verify import judge_log


class Guest:
    """A computer guest of ``invite``, playing in a task: its game once begun, and its end."""

    def __init__(self, invite: Invite, name: str) -> None:
        self.invite = invite
        self.name = name
        self.began: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task = asyncio.ensure_future(self._play())

    async def _play(self) -> Outcome:
        host, port = self.invite.addresses[0]
        reader, writer = await asyncio.open_connection(host, port)
        rng = random.Random(self.name)
        session = Session(
            Role.GUEST,
            Ed25519PrivateKey.generate(),
            name=self.name,
            entropy=rng.randbytes,
            invite_secret=self.invite.secret,
        )
        conn = GameConnection(session, reader, writer, log_dir=None, expect_key=self.invite.key)
        attach_computer(conn, ComputerPlayer("random", rng))

        def on_notice(notice: notices.Notice) -> None:
            if isinstance(notice, notices.Started) and not self.began.done():
                self.began.set_result(None)

        conn.listeners.append(on_notice)
        try:
            return await conn.run()
        finally:
            if not self.began.done():
                self.began.set_result(None)


async def first_hello(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Envelope]:
    """A raw connection, and the hello the host says on it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    return reader, writer, await next_frame(reader, FrameReader())


async def next_frame(reader: asyncio.StreamReader, frames: FrameReader) -> Envelope:
    async with asyncio.timeout(5):
        while True:
            data = await reader.read(65536)
            assert data, "the host closed instead of saying a frame"
            for envelope in frames.feed(data):
                return envelope


async def closed_unanswered(reader: asyncio.StreamReader) -> bool:
    async with asyncio.timeout(15):  # within the host's admission wait and a margin
        return await reader.read(65536) == b""


async def replayed_joins(port: int, secret: bytes) -> tuple[bool, bool]:
    """A join said twice on one connection, and the same join on another connection."""
    key = Ed25519PrivateKey.generate()
    reader, writer, hello = await first_hello(port)
    join = sign_join(
        key, Join(public_key_bytes(key), message_hash(hello.body), game_tag(secret), 0)
    ).encode()
    writer.write(join)
    frames = FrameReader()
    named = await next_frame(reader, frames)  # the named game's hello, fresh
    assert (
        named.fields["tag"] == game_tag(secret) and named.fields["nonce"] != hello.fields["nonce"]
    )
    assert "join" not in named.fields, "a connection joins once: its second hello says so"
    writer.write(join)
    twice = await closed_unanswered(reader)
    writer.close()
    reader, writer, _ = await first_hello(port)
    writer.write(join)  # recorded on the first connection: bound to another hello
    elsewhere = await closed_unanswered(reader)
    writer.close()
    return twice, elsewhere


def test_each_guest_gets_its_own_game_on_a_daemon_of_several(tmp_path: Path) -> None:
    home = tmp_path / "d"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0", "--bot", "random")
    try:
        line_starting(daemon, "control socket", [])

        async def scenario() -> tuple[dict[str, Outcome], dict[str, Any], list[Any]]:
            client = await ControlClient.connect(home)
            assert client is not None
            try:
                first = await client.request("host", rules="five-ships", bot="random")
                second = await client.request("host", rules="five-ships", bot="random")
                invites = {
                    "first": parse_invite(first["invite"]),
                    "second": parse_invite(second["invite"]),
                }
                port = invites["first"].addresses[0][1]
                # The hello said first is the oldest game's: the second game's guest joins.
                guests = {"second": Guest(invites["second"], "Second")}
                await guests["second"].began
                bare = Invite(invites["first"].addresses, invites["first"].key)
                guests["bare"] = Guest(bare, "Bare")  # no secret: the bot's open game
                await guests["bare"].began
                stranger = Invite(
                    invites["first"].addresses,
                    invites["first"].key,
                    secrets.token_bytes(INVITE_SECRET_SIZE),
                )
                guests["stranger"] = Guest(stranger, "Stranger")
                twice, elsewhere = await replayed_joins(port, invites["first"].secret or b"")
                assert twice and elsewhere, (twice, elsewhere)
                guests["first"] = Guest(invites["first"], "First")
                outcomes = {name: await guest.task for name, guest in guests.items()}
                games: list[Any] = []
                for _ in range(100):  # the daemon's side ends a moment after ours
                    listed = (await client.request("games"))["games"]
                    assert isinstance(listed, list)
                    games = listed
                    if {g["status"] for g in games} == {"over"}:
                        break
                    await asyncio.sleep(0.1)
                status = await client.request("status")
                await client.request("stop")
                return outcomes, status, games
            finally:
                await client.close()

        outcomes, status, games = asyncio.run(scenario())
        exit_status, _, err = finish(daemon)
    finally:
        if daemon.poll() is None:
            stop(daemon)
    assert exit_status == 0, err
    for name in ("first", "second", "bare"):
        assert outcomes[name].ending.end is End.SUNK, (name, outcomes[name])
    stranger = outcomes["stranger"]
    assert stranger.failure is not None and stranger.failure.code is Code.NOT_INVITED, stranger
    assert stranger.ending.end is End.NO_GAME
    opponents = {g["id"]: g["opponent"]["name"] for g in games}
    assert opponents == {1: "First", 2: "Second", 3: "Bare"}, games
    turned_away = status["turned_away"]
    assert isinstance(turned_away, dict)
    assert turned_away.get("bad-join") == 2 and turned_away.get("not-invited") == 1, turned_away
    logs = sorted((home / "logs").iterdir())
    assert len(logs) == 3, logs  # the three games'; nothing for the connections turned away
    assert all(judge_log(log.read_bytes()).valid for log in logs)

"""Durability: what this side signs is in its log, on disk, before the peer can hold it."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import FrameBytes

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection
from statki_net.net.selfplay import MOVE_LIMIT
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Role
from statki_net.store import logwriter
from statki_net.store.history import History
from statki_net.store.logwriter import LogWriter


def _session(role: Role, rng: random.Random, player: ComputerPlayer) -> Session:
    rules = ruleset_named("classic")
    return Session(
        role,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name=role.value,
        entropy=rng.randbytes,
        rules=rules if role is Role.HOST else None,
        limits=MOVE_LIMIT,
        fleet=player.fleet(rules) if role is Role.HOST else None,
    )


def test_every_message_sent_is_in_the_synced_log_first(tmp_path: Path) -> None:
    """Each write to the socket finds the log synced, and the bytes sent already in it."""
    sent: list[tuple[bool, bool]] = []

    def watch(conn: GameConnection) -> None:
        writer = conn.writer
        assert writer is not None
        write = writer.write

        def checked(data: bytes | bytearray | memoryview) -> None:
            log = conn.recorder.log
            assert log is not None
            on_disk = log.path.read_bytes()
            sent.append(
                (log.unsynced, bytes(data)[-64:] in on_disk)
            )  # a frame ends in its signature
            write(data)

        writer.write = checked  # type: ignore[method-assign]

    async def game() -> None:
        rng = random.Random(11)
        accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
        server = await asyncio.start_server(
            lambda r, w: accepted.put_nowait((r, w)), "127.0.0.1", 0
        )
        port = server.sockets[0].getsockname()[1]
        players = {role: ComputerPlayer("random", random.Random(role.value)) for role in Role}
        with History(tmp_path / "history.sqlite3") as history:
            guest_streams = await asyncio.open_connection("127.0.0.1", port)
            host_streams = await accepted.get()
            host = _session(Role.HOST, rng, players[Role.HOST])
            conns = [
                GameConnection(host, *host_streams, log_dir=tmp_path / "logs", history=history),
                GameConnection(
                    _session(Role.GUEST, rng, players[Role.GUEST]),
                    *guest_streams,
                    log_dir=tmp_path / "logs",
                    history=history,
                    expect_key=public_key_bytes(host.key),
                ),
            ]
            for conn, role in zip(conns, Role, strict=True):
                watch(conn)
                attach_computer(conn, players[role], custom_rules=True)
            await asyncio.gather(*(conn.run() for conn in conns))
            rows = history.games()
        server.close()
        # Both sides share the game id and this history: one row, naming a log that exists.
        assert len(rows) == 1 and Path(rows[0].log_path).is_file()

    asyncio.run(game())
    assert len(sent) > 50, "a whole game's messages"
    assert all(not unsynced for unsynced, _ in sent), "a message left before its log was synced"
    assert all(in_log for _, in_log in sent), "a message left before it was in the log"


def test_a_new_log_is_synced_with_its_folder_and_each_sync_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync, real_datasync = os.fsync, logwriter._datasync

    def fsync(fd: int) -> None:
        synced.append("fsync")
        real_fsync(fd)

    def datasync(fd: int) -> None:
        synced.append("datasync")
        real_datasync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(logwriter, "_datasync", datasync)
    writer = LogWriter(tmp_path / "logs" / "a.statki", {"log": 1})
    # The new logs/ folder's entry in the home, the header's data, the file's entry in logs/.
    assert synced == ["fsync", "datasync", "fsync"]
    writer.sync()
    assert synced == ["fsync", "datasync", "fsync"], "nothing new: no sync"
    writer.frame(FrameBytes(b"x"))
    assert writer.unsynced
    writer.sync()
    assert synced[-1] == "datasync" and not writer.unsynced
    writer.close()

"""The daemon's control socket, client side, and what both sides share.

A Unix socket, ``<home>/control.sock``, mode 0600, carrying a stream of
msgpack maps (SPEC.md, "The control socket"): requests ``{"id", "op", ...}``,
replies ``{"reply": id, "ok": bool, ...}``, and event pushes
``{"event": ..., "game": n, ...}`` for the games a client subscribed to.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from pathlib import Path
from typing import Any

import msgpack

from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.net.connection import Notice

SOCKET_NAME = "control.sock"
MAX_MESSAGE = 1024 * 1024
"""Largest control message in bytes; a client sending more is disconnected."""
REPLY_TIMEOUT = 30.0


def socket_path(home: Path) -> Path:
    return home / SOCKET_NAME


def pack(message: dict[str, Any]) -> bytes:
    return bytes(msgpack.packb(message, use_bin_type=True))


def unpacker() -> msgpack.Unpacker:
    return msgpack.Unpacker(
        raw=False,
        max_buffer_size=MAX_MESSAGE,
        max_bin_len=MAX_MESSAGE,
        max_str_len=MAX_MESSAGE,
        max_array_len=10_000,
        max_map_len=1000,
        max_ext_len=0,
    )


class ControlError(UsageError):
    """The daemon refused a request, or could not be reached."""


class ControlClient:
    """A connection to a running daemon; ``request`` returns its reply, ``events`` its pushes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.events: asyncio.Queue[Notice | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._pump = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, home: Path) -> ControlClient | None:
        """The running daemon's control connection, or None when no daemon runs there."""
        path = socket_path(home)
        if not path.exists():
            return None
        try:
            reader, writer = await asyncio.open_unix_connection(str(path))
        except OSError:
            return None  # a stale socket left by a daemon that died
        return cls(reader, writer)

    async def request(self, op: str, **fields: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        self.writer.write(pack({"id": ident, "op": op, **fields}))
        try:
            await self.writer.drain()
            reply = await asyncio.wait_for(future, REPLY_TIMEOUT)
        except (OSError, TimeoutError):
            raise ControlError("the daemon does not answer") from None
        finally:
            self._waiting.pop(ident, None)
        if not reply.get("ok"):
            raise ControlError(str(reply.get("error", "the daemon refused")))
        return reply

    async def _read(self) -> None:
        messages = unpacker()
        try:
            while data := await self.reader.read(64 * 1024):
                messages.feed(data)
                for message in messages:
                    if not isinstance(message, dict):
                        continue
                    if "reply" in message:
                        future = self._waiting.get(message["reply"])
                        if future is not None and not future.done():
                            future.set_result(message)
                    elif "event" in message:
                        self.events.put_nowait(message)
        except (OSError, ValueError, msgpack.BufferFull, msgpack.FormatError):
            pass
        finally:
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ControlError("the daemon closed the connection"))
            self.events.put_nowait(None)

    async def close(self) -> None:
        self._pump.cancel()
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


class RemoteHandle:
    """A game the daemon plays, seen through its control socket (see ``lineplay.GameHandle``)."""

    def __init__(self, client: ControlClient, game: int) -> None:
        self.client = client
        self.game = game
        self.finished = False

    async def next_notice(self) -> Notice | None:
        while not self.finished:
            notice = await self.client.events.get()
            if notice is None:
                self.finished = True
                return {
                    "event": "closed",
                    "result": "none",
                    "end": "closed",
                    "failure": "the daemon went away",
                    "verdict": None,
                    "log": None,
                }
            if notice.get("game") != self.game:
                continue
            self.finished = notice["event"] == "closed"
            return notice
        return None

    async def accept(self, fleet: Fleet) -> None:
        await self.client.request("accept", game=self.game, fleet=fleet.to_lists())

    async def refuse(self, reason: str) -> None:
        await self.client.request("refuse", game=self.game, reason=reason)

    async def shoot(self, squares: tuple[int, ...]) -> None:
        await self.client.request("shoot", game=self.game, squares=list(squares))

    async def resign(self) -> None:
        await self.client.request("resign", game=self.game)

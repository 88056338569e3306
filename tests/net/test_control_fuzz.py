"""The control socket's requests, every field of every op given odd values: one reply each.

A front end is trusted to be its owner's, not to be right.  Each op of SPEC.md
("The control socket", "Requests") gets each of its fields, and the fields
every request may carry (``id``, ``game``, ``lang``), replaced by a value of
every msgpack type and at its bounds; then requests that are no request at all,
and a stream that is no msgpack.  Every request must get exactly one reply, a
map with ``ok`` and, when refused, one line of ``error``; the event loop must
see no exception; and the daemon must still answer and play afterwards.

The daemon runs in this process over its real Unix socket, with one game of
its own in play (it hosts game 1 for a front end; a second daemon plays its
guest with the computer, over loopback), so ops on a game in play reach their
checks.  ``connect`` is given only invites that cannot reach past loopback.
About 1,300 requests: about 2 s.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net.control import ControlClient, socket_path
from statki_net.net.daemon import Daemon
from statki_net.protocol.wire import Limits

OPS: dict[str, tuple[str, ...]] = {
    "status": (),
    "games": (),
    "state": ("game",),
    "host": (
        "rules",
        "move_ms",
        "fleet",
        "bot",
        "advertise",
        "subscribe",
        "open",
        "name",
        "follow",
        "deferred",
    ),
    "connect": ("invite", "move_ms", "bot", "subscribe", "follow", "name"),
    "propose": ("game", "rules", "move_ms", "fleet"),
    "cancel": ("game",),
    "rematch": ("game", "subscribe", "follow"),
    "subscribe": ("game", "follow"),
    "unsubscribe": ("game",),
    "accept": ("game", "fleet"),
    "refuse": ("game", "reason"),
    "shoot": ("game", "squares"),
    "resign": ("game",),
    "say": ("game", "text"),
}
"""Each op and its fields, as SPEC.md lists them (``stop`` is sent last, on its own)."""
EVERY_REQUEST = ("id", "game", "lang")

ODD: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    2**64 - 1,
    -(2**63),
    1.5,
    "",
    "x" * 5000,
    "classic",
    "ż" * 201,
    b"\x00" * 33,
    [],
    [[]],
    [[0, 1, 2, 3]],
    [-1, 1.0, "A1", None],
    list(range(2000)),
    {},
    {"a": {"b": [1]}},
    [[[[[[[[[[]]]]]]]]]],
)
SAFE_INVITES: tuple[Any, ...] = ([], {}, "", "statki://", "x" * 5000, "a://b", "127.0.0.1:1")
"""Values of ``connect``'s invite none of which names an address past loopback."""
DIALS_NOWHERE = "127.0.0.1:1"


FLEET = random_fleet(ruleset_named("classic"), random.Random(5)).to_lists()
"""A fleet for ops that take one: placing one at random with the daemon's system random
numbers takes a tenth of a second, a thousand times over."""


def requests() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for op, fields in OPS.items():
        # Resigning game 1 would end the game the other ops are checked in.
        base: dict[str, Any] = {"op": op, "game": 999 if op == "resign" else 1}
        if op == "connect":
            base["invite"] = DIALS_NOWHERE
        if "fleet" in fields:
            base["fleet"] = FLEET
        for name in (*fields, *EVERY_REQUEST):
            values = SAFE_INVITES if (op, name) == ("connect", "invite") else ODD
            for value in values:
                out.append({**base, name: value})
        out.append({"op": op})  # every field missing
    out += [{"op": value} for value in ODD if not (isinstance(value, str) and value in OPS)]
    out += [{"op": "stop_"}, {"op": "__init__"}, {"op": "_answer"}, {"op": "-status"}, {}]
    return out


NOT_REQUESTS: tuple[Any, ...] = (None, 5, "status", [{"op": "status"}], b"op")


async def _exchange(home: Path) -> tuple[list[Any], list[dict[str, Any]], list[str]]:
    """Send every request on one connection, each answered before the next; then what no
    request is, and a stream that is no msgpack on another.  (replies, asked, problems)"""
    loop = asyncio.get_running_loop()
    problems: list[str] = []
    loop.set_exception_handler(lambda _, context: problems.append(str(context)))
    daemon, opponent = _daemon(home, 1), _daemon(home.with_name("opponent"), 2)
    await daemon.start()
    await opponent.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(socket_path(home)))
        unpacker = msgpack.Unpacker(raw=False)

        async def ask(request: Any) -> Any:
            writer.write(msgpack.packb(request, use_bin_type=True))
            await writer.drain()
            while True:
                for reply in unpacker:
                    if isinstance(reply, dict) and "event" in reply:
                        continue  # what a subscription pushes
                    return reply
                data = await asyncio.wait_for(reader.read(1 << 20), 10)
                assert data, f"the daemon hung up on {request!r:.200}"
                unpacker.feed(data)

        hosted = await ask({"op": "host", "rules": "salvo", "open": True})
        port = daemon.addresses[0][1]
        client = await ControlClient.connect(opponent.home)
        assert client is not None
        joined = await client.request("connect", invite=f"127.0.0.1:{port}", bot="random")
        for _ in range(1000):
            if daemon.games[1].conn is not None and daemon.games[1].conn.session.rules:
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError(f"no game in play: {hosted}, {joined}, {daemon.games}")
        asked = requests() + list(NOT_REQUESTS)
        replies = [await ask(request) for request in asked]
        replies.append(await ask({"op": "state", "game": 1}))
        writer.close()
        garbage = await _garbage_stream(home)
        after = await _one_request(home, {"op": "status"})
        replies += [garbage, after]
        assert hosted["ok"], hosted
        await client.close()
    finally:
        await daemon.shutdown()
        await opponent.shutdown()
    return replies, asked, problems


def _daemon(home: Path, seed: int) -> Daemon:
    home.mkdir(mode=0o700)
    return Daemon(
        home,
        Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32),
        name=home.name,
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("salvo"),
        limits=Limits(600_000, 600_000),
    )


async def _garbage_stream(home: Path) -> Any:
    reader, writer = await asyncio.open_unix_connection(str(socket_path(home)))
    writer.write(b"\xc1" * 16)  # 0xc1 is never used in msgpack
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return msgpack.unpackb(data, raw=False)


async def _one_request(home: Path, request: dict[str, Any]) -> Any:
    reader, writer = await asyncio.open_unix_connection(str(socket_path(home)))
    writer.write(msgpack.packb(request))
    await writer.drain()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(await asyncio.wait_for(reader.read(1 << 20), 10))
    writer.close()
    return next(unpacker)


def test_every_field_of_every_request_gets_one_reply_and_no_exception(tmp_path: Path) -> None:
    replies, asked, problems = asyncio.run(_exchange(tmp_path / "d"))
    assert not problems, problems[:3]
    for request, reply in zip(asked, replies, strict=False):
        assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), (request, reply)
        if not reply["ok"]:
            error = reply.get("error")
            assert isinstance(error, str) and error and "\n" not in error, (request, reply)
            assert "Traceback" not in error and len(error) < 400, (request, reply)
    # Game 1 is in play, and true, equal to 1 as a key, names no game.
    named_by_true = replies[asked.index({"op": "state", "game": True})]
    assert (named_by_true["ok"], named_by_true["error"]) == (False, "no game True"), named_by_true
    state, garbage, after = replies[-3:]
    assert state["ok"] and state["state"]["status"] == "playing", "the game is still on"
    assert garbage["ok"] is False and "bad request stream" in garbage["error"], garbage
    assert after["ok"], "the daemon still answers"

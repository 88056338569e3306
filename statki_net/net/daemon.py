"""The long-running peer: listens for guests, connects out, plays many games at once.

Each game is a ``GameConnection`` in its own task, so a peer that misbehaves,
falls silent or vanishes ends only its own game (its log says why) while the
others go on.  A guest that connects is given the oldest game a front end is
hosting (the control request ``host``), or, with ``--bot``, a new game the
daemon hosts and plays itself; otherwise it is turned away.  The control
socket (``control.py``; SPEC.md, "The control socket") lets the owner's
front ends host, connect, play, watch and stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import random
import secrets
import socket
import struct
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer, check_placement, check_strategy
from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet, fleet_from_lists, random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.net import notices
from statki_net.net.boards import boards_text
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection
from statki_net.net.control import Message, notice_map, pack, socket_path, unpacker
from statki_net.net.invite import (
    Address,
    format_address,
    format_invite,
    parse_address,
    parse_invite,
)
from statki_net.net.listen import (
    bound_addresses,
    connect_any,
    enable_keepalive,
    listen,
    peer_text,
    visible_addresses,
)
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.verify import fingerprint
from statki_net.store.history import History
from statki_net.store.identity import my_fingerprint
from statki_net.store.recorder import rules_name

MAX_GAMES = 256
"""Games played at once; guests beyond this are turned away."""
KEEP_FINISHED = 200
"""Finished games still listed by ``games``."""
MAX_SUBSCRIBER_BACKLOG = 1024 * 1024
"""Bytes a control client may leave unread before it is dropped."""
WILDCARDS = ("::", "0.0.0.0", "")


@dataclass(eq=False)
class ControlPeer:
    """One connection to the control socket."""

    writer: asyncio.StreamWriter

    def send(self, message: dict[str, Any]) -> bool:
        """Queue a message; False when the client is gone or too far behind."""
        transport = self.writer.transport
        if self.writer.is_closing() or transport.get_write_buffer_size() > MAX_SUBSCRIBER_BACKLOG:
            return False
        self.writer.write(pack(message))
        return True


@dataclass(eq=False)
class DaemonGame:
    id: int
    role: Role
    rules: Ruleset | None
    limits: Limits
    fleet: Fleet | None
    bot: str | None
    invite: str = ""
    status: str = "waiting"
    """waiting (for a guest, or for the connection out), playing, over."""
    conn: GameConnection | None = None
    subscribers: set[ControlPeer] = field(default_factory=set)
    failure: str | None = None

    def publish(self, notice: notices.Notice) -> None:
        """Push ``notice`` to the subscribers, with the boards as they stand (if anyone looks)."""
        if not self.subscribers:
            return
        drawn = boards_text(self.conn.session) if self.conn is not None else ""
        boards = drawn if isinstance(notice, notices.Started | notices.Volley) else ""
        message = {**notice_map(notice, boards), "game": self.id}
        for peer in list(self.subscribers):
            if not peer.send(message):
                self.subscribers.discard(peer)

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "id": self.id,
            "role": self.role.value,
            "status": self.status,
            "bot": self.bot,
            "invite": self.invite or None,
            "failure": self.failure,
        }
        if self.conn is not None:
            info.update(connection_state(self.conn))
            info["id"] = self.id
            if self.conn.outcome is not None:
                outcome = self.conn.outcome
                info["result"] = outcome.result.value
                info["end"] = outcome.ending.end.value
                info["verdict"] = outcome.verdict.headline if outcome.verdict else None
        return info


class Daemon:
    def __init__(
        self,
        home: Path,
        key: Ed25519PrivateKey,
        *,
        name: str,
        listen_on: list[Address],
        bot: str | None = None,
        placement: str = "random",
        rules: Ruleset,
        limits: Limits,
        max_games: int = MAX_GAMES,
    ) -> None:
        self.home = home
        self.key = key
        self.name = name
        self.listen_on = listen_on
        self.bot = check_strategy(bot) if bot else None
        self.placement = check_placement(placement)
        self.rules = rules
        self.limits = limits
        self.max_games = max_games
        self.history = History.in_home(home)
        self.log_dir = home / "logs"
        self.games: dict[int, DaemonGame] = {}
        self.waiting: deque[DaemonGame] = deque()
        self.finished: deque[int] = deque()
        self.servers: list[asyncio.Server] = []
        self.control: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopped = asyncio.Event()
        self._ids = itertools.count(1)
        self.rng = random.SystemRandom()

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        self.servers = await listen(self.listen_on, self._on_peer)
        self.control = await self._open_control()

    async def serve(self) -> None:
        await self.stopped.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        for server in self.servers:
            server.close()
        if self.control is not None:
            self.control.close()
            with contextlib.suppress(FileNotFoundError):
                socket_path(self.home).unlink()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.history.close()

    @property
    def addresses(self) -> list[Address]:
        return bound_addresses(self.servers)

    def invite_addresses(self, advertise: list[Address]) -> list[Address]:
        found = list(advertise)
        for host, port in self.addresses:
            for address in visible_addresses(port) if host in WILDCARDS else [(host, port)]:
                if address not in found:
                    found.append(address)
        return found

    def _spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _new_game(
        self,
        role: Role,
        *,
        rules: Ruleset | None,
        limits: Limits,
        fleet: Fleet | None,
        bot: str | None,
    ) -> DaemonGame:
        game = DaemonGame(next(self._ids), role, rules, limits, fleet, bot)
        self.games[game.id] = game
        return game

    def _retire(self, game: DaemonGame) -> None:
        game.status = "over"
        self.finished.append(game.id)
        while len(self.finished) > KEEP_FINISHED:
            self.games.pop(self.finished.popleft(), None)

    @property
    def active(self) -> int:
        return sum(1 for g in self.games.values() if g.status != "over")

    # ------------------------------------------------------------ peers

    async def _on_peer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        game: DaemonGame | None = None
        if self.waiting:
            game = self.waiting.popleft()
        elif self.bot and self.active < self.max_games:
            game = self._new_game(
                Role.HOST, rules=self.rules, limits=self.limits, fleet=None, bot=self.bot
            )
        if game is None:
            writer.close()  # nobody here to play with
            return
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        await self._play(game, reader, writer, expect_key=None)

    async def _connect_out(
        self, game: DaemonGame, addresses: tuple[Address, ...], expect_key: bytes | None
    ) -> None:
        try:
            reader, writer, _ = await connect_any(addresses)
        except StatkiError as error:
            game.failure = str(error)
            game.publish(notices.Closed.without_game(str(error)))
            self._retire(game)
            return
        await self._play(game, reader, writer, expect_key=expect_key)

    async def _play(
        self,
        game: DaemonGame,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        expect_key: bytes | None,
    ) -> None:
        """One game to its end; whatever goes wrong stays in this game."""
        game.status = "playing"
        try:
            enable_keepalive(writer)
            player = (
                ComputerPlayer(game.bot, random.Random(self.rng.getrandbits(64)), self.placement)
                if (game.bot)
                else None
            )
            fleet = game.fleet
            if game.role is Role.HOST and fleet is None:
                assert game.rules is not None and player is not None
                # A hard placement tries hundreds of fleets: not on the event loop.
                fleet = await asyncio.to_thread(player.fleet, game.rules)
            session = Session(
                game.role,
                self.key,
                name=self.name,
                entropy=secrets.token_bytes,
                rules=game.rules,
                limits=game.limits,
                fleet=fleet if game.role is Role.HOST else None,
            )
            conn = GameConnection(
                session,
                reader,
                writer,
                log_dir=self.log_dir,
                history=self.history,
                expect_key=expect_key,
                peer_address=peer_text(writer),
            )
            game.conn = conn
            conn.listeners.append(game.publish)
            if player is not None:
                attach_computer(conn, player)
            await conn.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # contain it: the other games go on
            game.failure = f"{type(error).__name__}: {error}"
            print(f"statki daemon: game {game.id}: {game.failure}", file=sys.stderr, flush=True)
            game.publish(notices.Closed.without_game(game.failure))
            writer.close()
        finally:
            self._retire(game)

    # ------------------------------------------------------------ the control socket

    async def _open_control(self) -> asyncio.Server:
        path = socket_path(self.home)
        if path.exists():
            try:
                _, probe = await asyncio.open_unix_connection(str(path))
            except OSError:
                path.unlink()  # left by a daemon that died
            else:
                probe.close()
                raise UsageError(f"a daemon is already running here ({path})")
        old_umask = os.umask(0o177)
        try:
            server = await asyncio.start_unix_server(self._on_control, str(path))
        finally:
            os.umask(old_umask)
        path.chmod(0o600)
        return server

    async def _on_control(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not _same_user(writer):
            writer.close()
            return
        peer = ControlPeer(writer)
        messages = unpacker()
        try:
            while data := await reader.read(64 * 1024):
                messages.feed(data)
                for request in messages:
                    reply = await self._answer(peer, request)
                    peer.send(reply)
                    await writer.drain()
        except (OSError, ValueError, msgpack.BufferFull, msgpack.FormatError) as error:
            with contextlib.suppress(Exception):
                peer.send({"reply": 0, "ok": False, "error": f"bad request stream: {error}"})
        finally:
            for game in self.games.values():
                game.subscribers.discard(peer)
            writer.close()

    async def _answer(self, peer: ControlPeer, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            return {"reply": 0, "ok": False, "error": "a request is a map with an op"}
        ident = request.get("id", 0)
        handler = getattr(self, "op_" + request["op"].replace("-", "_"), None)
        if handler is None:
            return {"reply": ident, "ok": False, "error": f"unknown op {request['op'][:40]!r}"}
        try:
            result: dict[str, Any] = await handler(peer, request)
        except StatkiError as error:
            return {"reply": ident, "ok": False, "error": str(error)}
        except (KeyError, TypeError, ValueError) as error:
            return {"reply": ident, "ok": False, "error": f"bad request: {error}"}
        return {"reply": ident, "ok": True, **result}

    def _game(self, request: dict[str, Any]) -> DaemonGame:
        game = self.games.get(request.get("game", -1))
        if game is None:
            raise UsageError(f"no game {request.get('game')!r}")
        return game

    def _playing(self, request: dict[str, Any]) -> GameConnection:
        conn = self._game(request).conn
        if conn is None:
            raise UsageError("the game has not started yet")
        return conn

    # Each op_* answers one request; SPEC.md lists them with their fields.

    async def op_status(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        return {
            "fingerprint": my_fingerprint(self.key),
            "key": public_key_bytes(self.key).hex(),
            "name": self.name,
            "listening": [format_address(a) for a in self.addresses],
            "games": self.active,
            "bot": self.bot,
            "pid": os.getpid(),
            "home": str(self.home),
        }

    async def op_games(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        return {"games": [game.describe() for game in self.games.values()]}

    async def op_state(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        return {"state": self._game(request).describe()}

    async def op_host(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        rules = ruleset_named(request.get("rules") or "classic")
        bot = check_strategy(request["bot"]) if request.get("bot") else None
        fleet = _fleet(rules, request.get("fleet"))
        if fleet is None:
            fleet = random_fleet(rules, self.rng)
        game = self._new_game(
            Role.HOST, rules=rules, limits=_limits(request, self.limits), fleet=fleet, bot=bot
        )
        advertise = [parse_address(a, self.addresses[0][1]) for a in request.get("advertise", [])]
        game.invite = format_invite(self.invite_addresses(advertise), public_key_bytes(self.key))
        if request.get("subscribe"):
            game.subscribers.add(peer)
        self.waiting.append(game)
        return {"game": game.id, "invite": game.invite, "fleet": fleet.to_lists()}

    async def op_connect(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        invite = parse_invite(str(request["invite"]))
        bot = check_strategy(request["bot"]) if request.get("bot") else None
        game = self._new_game(
            Role.GUEST, rules=None, limits=_limits(request, self.limits), fleet=None, bot=bot
        )
        if request.get("subscribe"):
            game.subscribers.add(peer)
        self._spawn(self._connect_out(game, invite.addresses, invite.key))
        return {"game": game.id, "authenticated": invite.key is not None}

    async def op_subscribe(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        game = self._game(request)
        game.subscribers.add(peer)
        return {"state": game.describe()}

    async def op_unsubscribe(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        self._game(request).subscribers.discard(peer)
        return {}

    async def op_accept(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        conn = self._playing(request)
        rules = conn.session.rules
        if rules is None:
            raise UsageError("no rules have been proposed yet")
        fleet = _fleet(rules, request.get("fleet")) or random_fleet(rules, self.rng)
        conn.accept(fleet)
        return {"fleet": fleet.to_lists()}

    async def op_refuse(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        self._playing(request).refuse(str(request.get("reason", "declined")))
        return {}

    async def op_shoot(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        squares = request["squares"]
        if not isinstance(squares, list) or not all(isinstance(s, int) for s in squares):
            raise UsageError("squares must be a list of square numbers")
        self._playing(request).shoot(tuple(squares))
        return {}

    async def op_resign(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        self._playing(request).resign()
        return {}

    async def op_stop(self, peer: ControlPeer, request: dict[str, Any]) -> dict[str, Any]:
        self.stopped.set()
        return {}


def _fleet(rules: Ruleset, ships: Any) -> Fleet | None:
    if ships is None:
        return None
    if not isinstance(ships, list):
        raise UsageError("a fleet is a list of ships, each a list of squares")
    fleet = fleet_from_lists(rules, ships)
    return fleet


def _limits(request: dict[str, Any], default: Limits) -> Limits:
    move_ms = request.get("move_ms")
    if move_ms is None:
        return default
    if not isinstance(move_ms, int) or not 100 <= move_ms <= 86_400_000:
        raise UsageError("move_ms must be a whole number of milliseconds, 100 to 86400000")
    return Limits(move_ms=move_ms, reveal_ms=move_ms)


def connection_state(conn: GameConnection) -> Message:
    """The fields of a game state (SPEC.md) that come from its connection."""
    session = conn.session
    hello = session.transcript.sides[session.peer].hello
    opponent = {
        "name": hello.name if hello else "",
        "key": fingerprint(hello.key) if hello else "",
        "address": conn.peer_address,
    }
    return {
        "game": conn.game_id,
        "role": session.role.value,
        "phase": session.transcript.phase.value,
        "my_turn": session.my_turn,
        "shots_due": session.shots_due,
        "opponent": opponent,
        "rules": rules_name(session),
        "closed": session.closed,
        "log": str(conn.log_path) if conn.log_path else None,
        "boards": boards_text(session),
    }


def _same_user(writer: asyncio.StreamWriter) -> bool:
    """The socket file is 0600 already; this also checks the caller's uid where Linux says it."""
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return True
    try:
        credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return True
    _, uid, _ = struct.unpack("3i", credentials)
    return bool(uid == os.getuid())

"""The daemon's side of its control socket: one handler per request, and the event pushes.

``ControlServer`` opens ``<home>/control.sock`` (mode 0600, its owner only),
reads requests, answers each with its ``op_*`` handler and pushes the events
of the games a connection subscribed to (SPEC.md, "The control socket").
Games live in the ``Daemon``; here they become maps: a notice through
``control.notice_map`` with the boards drawn as text when someone watches, a
game's state through ``game_state``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgpack

from statki_net.ai.computer import check_strategy
from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet, fleet_from_lists, random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.game.words import ENGLISH, N_, Words, phrase, phrase_map
from statki_net.net import notices
from statki_net.net.boards import boards_text
from statki_net.net.connection import GameConnection
from statki_net.net.control import (
    READ_SIZE,
    Message,
    notice_map,
    pack,
    same_user,
    socket_path,
    unpacker,
)
from statki_net.net.event_maps import event_map
from statki_net.net.invite import format_address, parse_address, parse_invite
from statki_net.net.listen import quiet_on_cancel
from statki_net.protocol.bounds import MAX_LIMIT_MS, MIN_MOVE_MS
from statki_net.protocol.events import Event
from statki_net.protocol.session import NO_REASON, public_key_bytes
from statki_net.protocol.wire import MAX_TEXT, Limits
from statki_net.referee.verify import fingerprint
from statki_net.store.identity import my_fingerprint
from statki_net.store.language import LANGUAGES, catalog
from statki_net.store.recorder import rules_name

if TYPE_CHECKING:
    from statki_net.net.daemon import Daemon, DaemonGame

MAX_SUBSCRIBER_BACKLOG = 1024 * 1024
"""Bytes a control client may leave unread before it is dropped."""

Handler = Callable[["ControlPeer", Message], Awaitable[Message]]


@dataclass(eq=False)
class ControlPeer:
    """One connection to the control socket."""

    writer: asyncio.StreamWriter
    words: Words = ENGLISH
    """The language the boards pushed to it are titled in (``lang`` in a request)."""

    def send(self, message: Message) -> bool:
        """Queue a message; False when the client is gone or too far behind."""
        transport = self.writer.transport
        if self.writer.is_closing() or transport.get_write_buffer_size() > MAX_SUBSCRIBER_BACKLOG:
            return False
        self.writer.write(pack(message))
        return True


class ControlServer:
    """The control socket of one daemon; see the module docstring."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.server: asyncio.Server | None = None
        self.subscribers: dict[int, set[ControlPeer]] = {}
        """Who watches each game, by its number."""
        self.followers: dict[int, dict[ControlPeer, int]] = {}
        """Who follows each game's session (``follow``), and how many of its frames each
        has been sent."""
        daemon.watchers.append(self.publish)
        daemon.event_watchers.append(self.publish_events)

    # ------------------------------------------------------------ the socket

    async def open(self) -> None:
        path = socket_path(self.daemon.home)
        if path.exists():
            try:
                _, probe = await asyncio.open_unix_connection(str(path))
            except OSError:
                path.unlink()  # left by a daemon that died
            else:
                probe.close()
                raise UsageError(
                    phrase(N_("a daemon is already running here ({path})"), path=str(path))
                )
        old_umask = os.umask(0o177)
        try:
            self.server = await asyncio.start_unix_server(
                quiet_on_cancel(self._on_control), str(path)
            )
        finally:
            os.umask(old_umask)
        path.chmod(0o600)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(FileNotFoundError):
                socket_path(self.daemon.home).unlink()

    async def _on_control(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not same_user(writer):
            writer.close()
            return
        peer = ControlPeer(writer)
        messages = unpacker()
        try:
            while data := await reader.read(READ_SIZE):
                messages.feed(data)
                for request in messages:
                    reply = await self._answer(peer, request)
                    peer.send(reply)
                    await writer.drain()
        except (OSError, ValueError, msgpack.BufferFull, msgpack.FormatError) as error:
            with contextlib.suppress(OSError):  # the client may be gone already
                peer.send({"reply": 0, "ok": False, "error": f"bad request stream: {error}"})
        finally:
            for watching in self.subscribers.values():
                watching.discard(peer)
            for following in self.followers.values():
                following.pop(peer, None)
            writer.close()

    async def _answer(self, peer: ControlPeer, request: Any) -> Message:
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            return {"reply": 0, "ok": False, "error": "a request is a map with an op"}
        ident = request.get("id", 0)
        handler: Handler | None = getattr(self, "op_" + request["op"].replace("-", "_"), None)
        if handler is None:
            return {"reply": ident, "ok": False, "error": f"unknown op {request['op'][:40]!r}"}
        try:
            if "lang" in request:
                peer.words = _language(request["lang"])
            result = await handler(peer, request)
        except StatkiError as error:
            said = phrase_map(error.as_phrase())  # for the front end to say in its language
            return {"reply": ident, "ok": False, "error": _one_line(str(error)), "said": said}
        except (KeyError, TypeError, ValueError) as error:
            return {"reply": ident, "ok": False, "error": _one_line(f"bad request: {error}")}
        return {"reply": ident, "ok": True, **result}

    # ------------------------------------------------------------ events

    def publish(self, game: DaemonGame, notice: notices.Notice) -> None:
        """Push ``notice`` to the game's subscribers, with the boards as they stand."""
        watching = self.subscribers.get(game.id)
        if not watching:
            return  # nobody looks: nothing is drawn
        shows_boards = isinstance(notice, notices.Started | notices.Volley)
        drawn: dict[int, Message] = {}  # one message a language among the watchers
        for peer in list(watching):
            message = drawn.get(id(peer.words))
            if message is None:
                session = game.conn.session if shows_boards and game.conn else None
                boards = boards_text(session, peer.words) if session is not None else ""
                message = drawn[id(peer.words)] = {**notice_map(notice, boards), "game": game.id}
            if not peer.send(message):
                watching.discard(peer)

    def publish_door(self, game: DaemonGame, connections: int) -> None:
        """Tell the game's subscribers how many connections wait for its hello."""
        watching = self.subscribers.get(game.id, set())
        message: Message = {"event": "door", "game": game.id, "connections": connections}
        for peer in list(watching):
            if not peer.send(message):
                watching.discard(peer)

    def publish_events(self, game: DaemonGame, events: list[Event]) -> None:
        """Push the frames and events of a batch of ``game``'s session to its followers.

        Each follower gets every frame of the transcript it has not had yet (the
        host's hello, said while its guest was being admitted, comes with the
        first batch), then the batch's events: what it needs to keep a copy of
        the session (``Session.follow``) and to be told as in-process.
        """
        following = self.followers.get(game.id)
        if not following or game.conn is None:
            return
        frames = game.conn.session.transcript.frames
        told = [event_map(event) for event in events]
        log = str(game.conn.log_path) if game.conn.log_path else None
        for peer, sent in list(following.items()):
            if sent == len(frames) and not told:
                continue
            message = {
                "event": "session",
                "game": game.id,
                "frames": [frame.encode() for frame in frames[sent:]],
                "events": told,
                "log": log,
            }
            if peer.send(message):
                following[peer] = len(frames)
            else:
                del following[peer]

    def _subscribe(self, peer: ControlPeer, game: DaemonGame, *, follow: bool = False) -> None:
        for number in [n for n in self.subscribers if n not in self.daemon.games]:
            del self.subscribers[number]  # games the daemon no longer lists
        for number in [n for n in self.followers if n not in self.daemon.games]:
            del self.followers[number]
        self.subscribers.setdefault(game.id, set()).add(peer)
        if follow:
            self.followers.setdefault(game.id, {}).setdefault(peer, 0)

    # ------------------------------------------------------------ requests

    def _game(self, request: Message) -> DaemonGame:
        number = request.get("game")
        # A game is named by its int: true and 1.0 are equal to 1 as keys, and no number
        # (``type() is``, not ``isinstance``: a bool is an int).
        game = self.daemon.games.get(number) if type(number) is int else None
        if game is None:
            # The value's words, cut short: a request may hold anything of any length.
            raise UsageError(phrase(N_("no game {game}"), game=f"{request.get('game')!r:.40}"))
        return game

    def _playing(self, request: Message) -> GameConnection:
        conn = self._game(request).conn
        if conn is None:
            raise UsageError(phrase(N_("the game has not started yet")))
        return conn

    # Each op_* answers one request; SPEC.md lists them with their fields.

    async def op_status(self, peer: ControlPeer, request: Message) -> Message:
        daemon = self.daemon
        return {
            "fingerprint": my_fingerprint(daemon.key),
            "key": public_key_bytes(daemon.key).hex(),
            "name": daemon.name,
            "listening": [format_address(a) for a in daemon.addresses],
            "games": daemon.active,
            "bot": daemon.bot,
            "pid": os.getpid(),
            "home": str(daemon.home),
            "turned_away": {str(k): v for k, v in sorted(daemon.admission.turned_away.items())},
        }

    async def op_games(self, peer: ControlPeer, request: Message) -> Message:
        return {"games": [game_state(game, peer.words) for game in self.daemon.games.values()]}

    async def op_state(self, peer: ControlPeer, request: Message) -> Message:
        return {"state": game_state(self._game(request), peer.words)}

    async def op_host(self, peer: ControlPeer, request: Message) -> Message:
        daemon = self.daemon
        rules = ruleset_named(_text(request.get("rules"), "rules") or "classic")
        bot = _bot(request)
        deferred = bool(request.get("deferred"))
        fleet = _fleet(rules, request.get("fleet"))
        if fleet is None and not deferred:
            fleet = random_fleet(rules, daemon.rng)
        if deferred and (fleet is not None or bot is not None):
            raise UsageError(phrase(N_("a deferred game takes its fleet from propose, and no bot")))
        limits = _limits(request, daemon.limits)
        default_port = daemon.addresses[0][1]
        advertise = [parse_address(a, default_port) for a in _texts(request, "advertise")]
        game = daemon.host(
            rules=rules,
            limits=limits,
            fleet=fleet,
            bot=bot,
            advertise=advertise,
            open_to_anyone=bool(request.get("open")),
            player=_player_name(request),
        )
        if request.get("subscribe") or request.get("follow"):
            self._subscribe(peer, game, follow=bool(request.get("follow")))
        ships = fleet.to_lists() if fleet is not None else None
        return {"game": game.id, "invite": game.invite, "fleet": ships}

    async def op_propose(self, peer: ControlPeer, request: Message) -> Message:
        game = self._game(request)
        rules = ruleset_named(_text(request["rules"], "rules") or "")
        fleet = _fleet(rules, request.get("fleet"))
        if fleet is None:
            raise UsageError(phrase(N_("propose takes the fleet the host commits to")))
        self.daemon.propose(game, rules, _limits(request, game.limits), fleet)
        return {}

    async def op_cancel(self, peer: ControlPeer, request: Message) -> Message:
        self.daemon.cancel(self._game(request))
        return {}

    async def op_leave(self, peer: ControlPeer, request: Message) -> Message:
        return {"end": self.daemon.leave(self._game(request)).value}

    async def op_connect(self, peer: ControlPeer, request: Message) -> Message:
        # Only text: the words of any other value (1.5 reads as 1.0.0.5) are no invite.
        invite = parse_invite(_text(request["invite"], "invite") or "")
        bot = _bot(request)
        game = self.daemon.join(
            invite,
            limits=_limits(request, self.daemon.limits),
            bot=bot,
            player=_player_name(request),
        )
        if request.get("subscribe") or request.get("follow"):
            # before the connection out has said a word
            self._subscribe(peer, game, follow=bool(request.get("follow")))
        return {"game": game.id, "authenticated": invite.key is not None}

    async def op_rematch(self, peer: ControlPeer, request: Message) -> Message:
        game = self.daemon.rematch(self._game(request))
        if request.get("subscribe") or request.get("follow"):
            self._subscribe(peer, game, follow=bool(request.get("follow")))
        # Both sides say what the host's hello will propose: a guest's own ``first`` is None.
        terms = game.awaited
        first = terms.first.value if terms is not None and terms.first is not None else None
        return {"game": game.id, "invite": game.invite or None, "first": first}

    async def op_subscribe(self, peer: ControlPeer, request: Message) -> Message:
        game = self._game(request)
        self._subscribe(peer, game, follow=bool(request.get("follow")))
        if request.get("follow"):
            # The frames so far at once, not with the next move: a screen attached to a
            # game under way (``statki resume``) shows where it stands while nobody moves.
            self.publish_events(game, [])
        return {"state": game_state(game, peer.words)}

    async def op_unsubscribe(self, peer: ControlPeer, request: Message) -> Message:
        number = self._game(request).id
        self.subscribers.get(number, set()).discard(peer)
        self.followers.get(number, {}).pop(peer, None)
        return {}

    async def op_accept(self, peer: ControlPeer, request: Message) -> Message:
        conn = self._playing(request)
        rules = conn.session.rules
        if rules is None:
            raise UsageError(phrase(N_("no rules have been proposed yet")))
        fleet = _fleet(rules, request.get("fleet")) or random_fleet(rules, self.daemon.rng)
        conn.accept(fleet)
        return {"fleet": fleet.to_lists()}

    async def op_refuse(self, peer: ControlPeer, request: Message) -> Message:
        self._playing(request).refuse(_text(request.get("reason"), "reason") or NO_REASON)
        return {}

    async def op_shoot(self, peer: ControlPeer, request: Message) -> Message:
        squares = request["squares"]
        if not isinstance(squares, list) or not all(isinstance(s, int) for s in squares):
            raise UsageError(phrase(N_("squares must be a list of square numbers")))
        self._playing(request).shoot(tuple(squares))
        return {}

    async def op_resign(self, peer: ControlPeer, request: Message) -> Message:
        self._playing(request).resign()
        return {}

    async def op_say(self, peer: ControlPeer, request: Message) -> Message:
        text = request.get("text")
        if not isinstance(text, str):
            raise UsageError(phrase(N_("text must be a string")))
        self._playing(request).say(text)
        return {}

    async def op_stop(self, peer: ControlPeer, request: Message) -> Message:
        self.daemon.stopped.set()
        return {}


# ---------------------------------------------------------------- maps


def game_state(game: DaemonGame, words: Words = ENGLISH) -> Message:
    """A game state as SPEC.md lists it, in the order of its keys; a finished game's summary."""
    if game.summary is not None:
        return dict(game.summary)
    info: Message = {
        "id": game.id,
        "role": game.role.value,
        "status": game.status.value,
        "bot": game.bot,
        "invite": game.invite or None,
        "failure": str(game.failure) if game.failure is not None else None,
    }
    if game.conn is not None:
        info.update(connection_state(game.conn, words))
        info["id"] = game.id
        outcome = game.conn.outcome
        if outcome is not None:  # as the closed event says it: by this side's judged log
            closed = notice_map(outcome.closed())
            info["result"], info["end"] = closed["result"], closed["end"]
            info["verdict"] = closed["verdict"]
    return info


def connection_state(conn: GameConnection, words: Words = ENGLISH) -> Message:
    """The fields of a game state that come from its connection."""
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
        "boards": boards_text(session, words),
    }


def _language(value: Any) -> Words:
    if value not in LANGUAGES:
        raise ValueError(f"lang is one of {', '.join(LANGUAGES)}")
    return _catalog(str(value))


_catalog = functools.cache(catalog)
"""One catalog a language, so that ``publish`` draws the boards once for all its watchers."""


MAX_ERROR = 300
"""Characters of a refusal's line: one that quotes a request's value quotes it cut short."""


def _one_line(error: str) -> str:
    line = " ".join(error.split())
    return line if len(line) <= MAX_ERROR else line[: MAX_ERROR - 1] + "…"


def _text(value: Any, key: str) -> str | None:
    """A request's text field: None when absent (nil), else a str; never the words of some
    other value taken for text."""
    if value is not None and not isinstance(value, str):
        raise UsageError(phrase(N_("{key} must be text"), key=key))
    return value


def _texts(request: Message, key: str) -> list[str]:
    """A request's optional list of texts (``advertise``)."""
    values = request.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise UsageError(phrase(N_("{key} must be a list of texts"), key=key))
    return values


def _bot(request: Message) -> str | None:
    """The strategy a request names for the computer player, or None for none."""
    bot = _text(request.get("bot"), "bot")
    return check_strategy(bot) if bot else None


def _player_name(request: Message) -> str | None:
    """The front end's player's name for the game's hello, or None for the daemon's own."""
    name = request.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or len(name) > MAX_TEXT:
        raise UsageError(phrase(N_("a name is text of at most {most} characters"), most=MAX_TEXT))
    return name


def _fleet(rules: Ruleset, ships: Any) -> Fleet | None:
    if ships is None:
        return None
    if not isinstance(ships, list):
        raise UsageError(phrase(N_("a fleet is a list of ships, each a list of squares")))
    return fleet_from_lists(rules, ships)


def _limits(request: Message, default: Limits) -> Limits:
    move_ms = request.get("move_ms")
    if move_ms is None:
        return default
    if isinstance(move_ms, bool) or not isinstance(move_ms, int):
        raise UsageError(phrase(N_("move_ms must be a whole number of milliseconds")))
    if not MIN_MOVE_MS <= move_ms <= MAX_LIMIT_MS:
        raise UsageError(
            phrase(
                N_("move_ms must be {least} to {most} (SPEC.md, section 7)"),
                least=MIN_MOVE_MS,
                most=MAX_LIMIT_MS,
            )
        )
    return Limits(move_ms=move_ms, reveal_ms=move_ms)

"""The daemon's control socket, client side, and what both sides share.

A Unix socket, ``<home>/control.sock``, mode 0600, carrying a stream of
msgpack maps (SPEC.md, "The control socket"): requests ``{"id", "op", ...}``,
replies ``{"reply": id, "ok": bool, ...}``, and event pushes
``{"event": ..., "game": n, ...}`` for the games a client subscribed to.

Notices are typed values everywhere else (``statki_net.net.notices``);
``notice_map`` and ``notice_from_map`` turn them into the event maps SPEC.md
lists and back, here at the boundary and nowhere else.  The maps' keys come
in the order they always have, so the bytes on the socket are unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import os
import socket
import stat
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgpack

from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, SILENCE, Phrase, as_is, phrase, phrase_from_map, phrase_map
from statki_net.net import notices
from statki_net.net.boards import Shown
from statki_net.net.connection import GameOverError
from statki_net.net.event_maps import answer_from_map, answer_map
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End, Result, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.protocol.wire import Limits, Role, packed
from statki_net.store.failures import failed

SOCKET_NAME = "control.sock"
MAX_MESSAGE = 1024 * 1024
"""Largest control message in bytes; a client sending more is disconnected."""
REPLY_TIMEOUT = 30.0
READ_SIZE = 64 * 1024
"""Bytes the socket is read by at a time (a message may take several reads)."""


class GameStatus(enum.StrEnum):
    """Where a game of the daemon's stands: its state's ``status`` (SPEC.md, the control
    socket's game state)."""

    WAITING = "waiting"
    """For its guest, or for the connection out to its host."""
    PLAYING = "playing"
    OVER = "over"


def socket_path(home: Path) -> Path:
    return home / SOCKET_NAME


def pack(message: dict[str, Any]) -> bytes:
    return packed(message)


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


Message = dict[str, Any]
"""A control-socket map, as msgpack carries it."""


def notice_map(notice: Notice, boards: str = "") -> Message:
    """The event map SPEC.md lists for ``notice``; ``boards`` goes in started and volley."""
    match notice:
        case notices.Hello(name=name, key=key, software=software, address=address):
            return {
                "event": "hello",
                "name": name,
                "key": key,
                "software": software,
                "address": address,
            }
        case notices.Rules(rules=rules, limits=limits, first=first):
            return {
                "event": "rules",
                "rules": notice.name,
                "rules_map": rules.to_map(),
                "move_ms": limits.move_ms,
                "reveal_ms": limits.reveal_ms,
                "first": first.value if first else None,
                "due": due_map(notice.due),
            }
        case notices.Started(first=first, you_first=you_first, game=game, size=size):
            return {
                "event": "started",
                "first": first.value,
                "you_first": you_first,
                "game": game,
                "size": size,
                "boards": boards,
                "due": due_map(notice.due),
            }
        case notices.Turn(shots=shots, due=due):
            return {"event": "turn", "shots": shots, "due": due_map(due)}
        case notices.Volley(shooter=shooter, mine=mine, move=move, squares=squares, answer=answer):
            return {
                "event": "volley",
                "shooter": shooter.value,
                "mine": mine,
                "move": move,
                "squares": list(squares),
                "answer": answer.words(),  # in words, for a tool that shows it as it is
                "answered": answer_map(answer),  # the answer itself, to say in any language
                "boards": boards,
                "due": due_map(notice.due),
            }
        case notices.Over(result=result, end=end):
            return {"event": "over", "result": result.value, "end": end.value}
        case notices.Lost(detail=detail, said=said):
            return {"event": "lost", "detail": detail, "said": phrase_map(said)}
        case notices.Reconnecting(attempt=attempt, wait_ms=wait_ms):
            return {
                "event": "reconnecting",
                "attempt": attempt,
                "wait_ms": wait_ms,
                "detail": notice.detail,
            }
        case notices.Reconnected(have=have, sent=sent):
            return {"event": "reconnected", "have": have, "sent": sent, "detail": notice.detail}
        case Failed(detail=detail, by_peer=by_peer):
            return {
                "event": "failed",
                "code": notice.code_text,
                "detail": detail,
                "by_peer": by_peer,
            }
        case notices.Closed(end=end, standing=standing):
            return {
                "event": "closed",
                "result": notice.result.value,
                "end": end.value if end else _without_end(standing),
                "standing": standing.value if standing else None,
                "verdict": notice.verdict,
                "verdict_said": phrase_map(notice.said) if notice.said else None,
                "failure": notice.failure,
                "failure_said": phrase_map(notice.failure_said) if notice.failure_said else None,
                "log": str(notice.log) if notice.log else None,
                "my_shots": notice.my_shots,
                "their_shots": notice.their_shots,
            }
        case notices.Talk(sender=sender, mine=mine, text=text):
            return {"event": "talk", "from": sender.value, "mine": mine, "text": text}
    raise AssertionError(f"not a notice: {notice!r}")


def due_map(due: notices.Due | None) -> Message | None:
    """A move's deadline in an event: ``{"mine", "at"}``, nil when untimed."""
    return {"mine": due.mine, "at": due.at} if due is not None else None


def due_from_map(value: Any) -> notices.Due | None:
    """A move's deadline from an event; an older daemon's, which says none, is None."""
    if not isinstance(value, Mapping):
        return None
    return notices.Due(bool(value["mine"]), int(value["at"]))


def _without_end(standing: Standing | None) -> str | None:
    """``end`` in a closed event whose log holds no ending: ``unfinished`` or ``disputed``."""
    if standing in (Standing.UNFINISHED, Standing.DISPUTED):
        return standing.value
    return None


def _end_of(text: Any) -> End | None:
    """An ending read back; None for ``unfinished``, ``disputed`` or none at all."""
    try:
        return End(text)
    except ValueError:
        return None


def notice_from_map(message: Message) -> Shown | None:
    """Read an event map back into its notice and boards; None for an event not known here.

    Raises ValueError, KeyError or TypeError for a map that is not what SPEC.md says.  In
    a pushed ``started`` the daemon's game number has taken the place of the
    protocol's game id (both are ``game``), so ``Started.game`` reads that number.
    """
    event = message["event"]
    boards = str(message.get("boards", ""))
    if event == "hello":
        notice: Notice = notices.Hello(
            str(message["name"]),
            str(message["key"]),
            str(message["software"]),
            str(message["address"]),
        )
    elif event == "rules":
        first = message.get("first")
        notice = notices.Rules(
            Ruleset.from_map(message["rules_map"]),
            Limits(int(message["move_ms"]), int(message["reveal_ms"])),
            Role(first) if first else None,
            due_from_map(message.get("due")),
        )
    elif event == "started":
        notice = notices.Started(
            Role(message["first"]),
            bool(message["you_first"]),
            str(message["game"]),
            int(message["size"]),
            due_from_map(message.get("due")),
        )
    elif event == "turn":
        notice = notices.Turn(int(message["shots"]), due_from_map(message.get("due")))
    elif event == "volley":
        notice = notices.Volley(
            Role(message["shooter"]),
            bool(message["mine"]),
            int(message["move"]),
            tuple(str(s) for s in message["squares"]),
            answer_from_map(message["answered"]),
            due_from_map(message.get("due")),
        )
    elif event == "over":
        notice = notices.Over(Result(message["result"]), End(message["end"]))
    elif event == "lost":
        said = message.get("said")  # from a daemon before phrases: the detail as it is
        notice = notices.Lost(
            str(message["detail"]), said=phrase_from_map(said) if said else SILENCE
        )
    elif event == "reconnecting":
        wait_ms = message.get("wait_ms")
        notice = notices.Reconnecting(
            int(message["attempt"]), int(wait_ms) if wait_ms is not None else None
        )
    elif event == "reconnected":
        notice = notices.Reconnected(int(message["have"]), int(message["sent"]))
    elif event == "failed":
        text = str(message["code"])
        code = Code.of(text)
        notice = Failed(
            code,
            str(message["detail"]),
            bool(message["by_peer"]),
            unknown_code="" if code else text,
        )
    elif event == "closed":
        log = message.get("log")
        standing = message.get("standing")
        verdict_said = message.get("verdict_said")
        failure_said = message.get("failure_said")
        notice = notices.Closed(
            Result(message["result"]),
            _end_of(message["end"]),
            verdict=message.get("verdict"),
            failure=message.get("failure"),
            log=Path(log) if log else None,
            my_shots=int(message.get("my_shots", 0)),
            their_shots=int(message.get("their_shots", 0)),
            standing=Standing(standing) if standing else None,
            said=phrase_from_map(verdict_said) if verdict_said else SILENCE,
            failure_said=phrase_from_map(failure_said) if failure_said else SILENCE,
        )
    elif event == "talk":
        notice = notices.Talk(Role(message["from"]), bool(message["mine"]), str(message["text"]))
    else:
        return None
    return Shown(notice, boards)


class ControlError(UsageError):
    """The daemon refused a request, or could not be reached."""


def _refusal(reply: dict[str, Any]) -> Phrase:
    """What the daemon said in refusing: its phrase, said in the reader's language where it
    sent one that reads; else its English line as it is."""
    if "said" in reply:
        with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):
            return phrase_from_map(reply["said"])
    if "error" in reply:
        return as_is(" ".join(str(reply["error"]).split()))
    return phrase(N_("the daemon refused"))


class UntrustedSocket(ControlError):
    """A control socket that may not be this user's own daemon's: it is not used."""


def socket_problem(home: Path, info: os.stat_result) -> Phrase | None:
    """Why the control socket ``info`` (its ``lstat``) is not to be trusted; None if it is.

    It must be a socket (not a link), this user's, writable by no one else,
    in a home that is this user's alone: otherwise another local user could
    have put it there, and would answer as the daemon.
    """
    if not stat.S_ISSOCK(info.st_mode):
        return phrase(N_("not a socket (a link or a file where the daemon's socket should be)"))
    if info.st_uid != os.getuid():
        return phrase(N_("it belongs to another user"))
    if stat.S_IMODE(info.st_mode) & 0o022:
        return phrase(N_("others may write to it"))
    try:
        folder = home.stat()
    except OSError as error:
        return failed(N_("checking its folder"), error)
    if folder.st_uid != os.getuid() or stat.S_IMODE(folder.st_mode) & 0o077:
        return phrase(N_("its folder is not yours alone"))
    return None


def same_user(writer: asyncio.StreamWriter) -> bool:
    """Whether the process at the other end of a Unix socket runs as this user.

    Where Linux says (``SO_PEERCRED``); elsewhere the socket file's checks stand alone.
    """
    sock = writer.get_extra_info("socket")
    if sock is None or not hasattr(socket, "SO_PEERCRED"):
        return True
    try:
        credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return True
    _, uid, _ = struct.unpack("3i", credentials)
    return bool(uid == os.getuid())


class ControlClient:
    """A connection to a running daemon; ``request`` returns its reply, ``events`` its pushes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.events: asyncio.Queue[Message | None] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._pump = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, home: Path) -> ControlClient | None:
        """The running daemon's control connection, or None when no daemon runs there.

        Raises ``UntrustedSocket`` for a socket this user's daemon did not make
        (``socket_problem``), or whose daemon runs as another user: a front end
        would take its invites and moves from whoever planted it.
        """
        path = socket_path(home)
        try:
            info = path.lstat()
        except FileNotFoundError:
            return None
        problem = socket_problem(home, info)
        if problem is not None:
            raise UntrustedSocket(phrase(N_("{path}: {problem}"), path=str(path), problem=problem))
        try:
            reader, writer = await asyncio.open_unix_connection(str(path))
        except OSError:
            return None  # a stale socket left by a daemon that died
        if not same_user(writer):
            writer.close()
            raise UntrustedSocket(
                phrase(N_("{path}: the daemon behind it runs as another user"), path=str(path))
            )
        return cls(reader, writer)

    async def request(self, op: str, **fields: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        self.writer.write(pack({"id": ident, "op": op, **fields}))
        try:
            await self.writer.drain()
            async with asyncio.timeout(REPLY_TIMEOUT):  # wait_for can lose a cancel in 3.11
                reply = await future
        except (OSError, TimeoutError):
            raise ControlError(phrase(N_("the daemon does not answer"))) from None
        finally:
            self._waiting.pop(ident, None)
        if not reply.get("ok"):
            raise ControlError(_refusal(reply))
        return reply

    async def _read(self) -> None:
        messages = unpacker()
        try:
            while data := await self.reader.read(READ_SIZE):
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
                    closed = phrase(N_("the daemon closed the connection"))
                    future.set_exception(ControlError(closed))
            self.events.put_nowait(None)

    async def close(self) -> None:
        self._pump.cancel()
        self.writer.close()
        with contextlib.suppress(OSError):  # the daemon went first
            await self.writer.wait_closed()


class RemoteHandle:
    """A game the daemon plays, seen through its control socket (see ``lineplay.GameHandle``)."""

    def __init__(self, client: ControlClient, game: int) -> None:
        self.client = client
        self.game = game
        self.finished = False
        self.game_id: str | None = None
        """The protocol's id of the game (hex), asked of the daemon once it started: the
        pushed ``started`` carries the daemon's number in its place."""

    async def next_notice(self) -> Shown | None:
        """The game's next notice as the daemon pushed it; None after ``Closed``."""
        while not self.finished:
            message = await self.client.events.get()
            if message is None:
                self.finished = True
                return Shown(_without_game(phrase(N_("the daemon went away"))))
            if message.get("game") != self.game:
                continue
            try:
                pushed = notice_from_map(message)
            except (ValueError, KeyError, TypeError) as error:  # as the full screen's link does
                self.finished = True
                said = phrase(N_("the daemon's events do not read: {error}"), error=str(error))
                return Shown(_without_game(said))
            if pushed is None:
                continue  # an event a newer daemon sends: not for this front end
            self.finished = isinstance(pushed.notice, notices.Closed)
            if isinstance(pushed.notice, notices.Started):
                await self._learn_game_id()
            return pushed
        return None

    async def _learn_game_id(self) -> None:
        with contextlib.suppress(ControlError, KeyError, TypeError):
            state = (await self.client.request("state", game=self.game))["state"]
            self.game_id = str(state["game"]) if state.get("game") else None

    async def accept(self, fleet: Fleet) -> None:
        await self._act("accept", fleet=fleet.to_lists())

    async def refuse(self, reason: str) -> None:
        await self._act("refuse", reason=reason)

    async def shoot(self, squares: tuple[int, ...]) -> None:
        await self._act("shoot", squares=list(squares))

    async def resign(self) -> None:
        await self._act("resign")

    async def say(self, text: str) -> None:
        await self._act("say", text=text)

    async def _act(self, op: str, **fields: Any) -> None:
        """One request for the game; refused because the game has ended: ``GameOverError``."""
        try:
            await self.client.request(op, game=self.game, **fields)
        except ControlError as error:
            state = (await self.client.request("state", game=self.game))["state"]
            if state.get("closed") is True:
                raise GameOverError(error.as_phrase()) from None
            raise


async def daemon_number(client: ControlClient, game: str) -> int | None:
    """The daemon's number for the game whose id (hex) is ``game``, while it plays it."""
    return _playing((await client.request("games")).get("games", [])).get(game)


def _playing(states: list[dict[str, Any]]) -> dict[str, int | None]:
    """The games the daemon's ``games`` reply lists and it still plays: each whole id (hex),
    with the daemon's number for it (None if it gave none that reads)."""
    return {
        str(state["game"]): state["id"] if isinstance(state.get("id"), int) else None
        for state in states
        if state.get("game") and state.get("status") != GameStatus.OVER
    }


async def games_the_daemon_plays(home: Path) -> frozenset[str]:
    """The games (whole ids, hex) the daemon running in ``home`` still plays; none when no
    daemon answers there.  Their secrets are kept in the home as any game's are (for after
    the daemon stops): this is what tells them from a game left for ``statki resume``."""
    try:
        client = await ControlClient.connect(home)
    except UntrustedSocket:
        return frozenset()
    if client is None:
        return frozenset()
    try:
        states = (await client.request("games")).get("games", [])
    except ControlError:
        return frozenset()
    finally:
        await client.close()
    return frozenset(_playing(states))


def _without_game(said: Phrase) -> notices.Closed:
    """The end, told the line prompt, of a game it followed that the daemon never ended:
    its English kept for the exit status's machine-read line, ``said`` for the player."""
    return notices.Closed.without_game(str(said), said)

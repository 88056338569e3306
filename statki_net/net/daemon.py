"""The long-running peer: listens for guests, connects out, plays many games at once.

Three pieces, each in its own place:

- ``Daemon`` (here): the life of the daemon and of its games.  It listens,
  hosts and joins games, plays each in its own task (a ``GameConnection``),
  so a peer that misbehaves, falls silent or vanishes ends only its own game
  (its log says why) while the others go on, and stops them all at the end.
- The admission of peers (``admission.Admission``): a new connection must
  prove itself the invited guest before it takes a game, the oldest one a
  front end hosts (the control request ``host``) or, with ``--bot``, a new
  one the daemon hosts and plays itself (open to anyone); anything else is
  turned away, and counted in the status.
- The control socket (``control_server.ControlServer``; SPEC.md, "The
  control socket"): the owner's front ends host, connect, play, watch and stop.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
import sys
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer, check_placement, check_strategy
from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, Phrase, phrase, seconds_said
from statki_net.net import notices
from statki_net.net.admission import Admission, Admitted, Hosting, OnDemand
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.connection import GameConnection, side_session
from statki_net.net.control import GameStatus
from statki_net.net.control_server import ControlServer, game_state
from statki_net.net.dialer import dial
from statki_net.net.invite import Address, Invite, format_address, format_invite
from statki_net.net.listen import (
    bound_addresses,
    enable_keepalive,
    listen,
    peer_text,
    visible_addresses,
)
from statki_net.net.portmap import PortMapping
from statki_net.net.reach import MappingOutcome, invite_addresses
from statki_net.net.rematch import RematchMissed, not_back, redial
from statki_net.net.resume import Redial, TakeBack
from statki_net.net.thinking import Thinking
from statki_net.protocol.endings import End
from statki_net.protocol.events import Event
from statki_net.protocol.rematch import Rematch, rematch_of
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import INVITE_SECRET_SIZE, Admit, Limits, Role
from statki_net.store.failures import failed
from statki_net.store.history import History
from statki_net.store.language import _, words
from statki_net.store.unfinished import SecretKeeper

MAX_GAMES = 256
"""Games played at once; guests beyond this are turned away."""
KEEP_FINISHED = 200
"""Finished games still listed by ``games`` (each by its summary, not its transcript)."""
WILDCARDS = ("::", "0.0.0.0", "")
STOP_GRACE = 5.0
"""Seconds the games stopped at shutdown get to send their last word and finish their logs."""

Watcher = Callable[["DaemonGame", notices.Notice], None]
"""Told every notice of every game, in order, as it happens (the control socket)."""
EventWatcher = Callable[["DaemonGame", list[Event]], None]
"""Told every batch of every game's session events (no frames: the transcript has them),
in order, as it happens: for the front ends that follow a game (the control socket)."""


def print_to_stderr(line: str) -> None:
    """A line for the operator, on standard error, where no front end says how."""
    print(line, file=sys.stderr, flush=True)


@dataclass(eq=False)
class DaemonGame:
    """One game the daemon plays or will play, numbered from 1."""

    id: int
    role: Role
    rules: Ruleset | None
    limits: Limits
    fleet: Fleet | None
    bot: str | None
    invite: str = ""
    status: GameStatus = GameStatus.WAITING
    conn: GameConnection | None = None
    """The game being played; dropped once it is over, when ``summary`` stands for it."""
    failure: Phrase | None = None
    """Why it ended without a game, if it did: said in the reader's words where a person
    reads it, in English (``str``) where a machine does (the game state's ``failure``)."""
    summary: dict[str, Any] | None = None
    """Once over: its state as the control socket gave it last (ids, names, result, log)."""
    secret: bytes | None = None
    """The secret its guest must prove (the invite's, or a rematch's); None: open to anyone."""
    invited_by: bytes | None = None
    """A host's: its invite's own secret, kept apart from a rematch's ``secret``: every
    rematch's is drawn from it, and a rematch that cannot draw one admits by it."""
    player: str | None = None
    """The name its hello gives, from the front end that asked for it; None: the daemon's."""
    first: Role | None = None
    """Who its hello proposes shoots first (a rematch's); None: the coin decides."""
    host_invite: Invite | None = None
    """A guest's: the invite it joined by, dialled again for a rematch."""
    again: Rematch | None = None
    """Once over: the terms of a rematch with the same opponent; None: nobody to meet."""
    rematched: bool = False
    """Its rematch was asked for (a game has one)."""
    awaited: Rematch | None = None
    """A rematch's: the terms it was made on, whose opponent it waits for."""
    deadline: asyncio.TimerHandle | None = None
    """A hosted rematch's: when it stops waiting for its guest (``Daemon.rematch``)."""
    dialling: asyncio.Task[None] | None = None
    """A joined game's: the task that dials its host and plays it (``leave`` cancels it
    while no connection has come of it)."""

    @property
    def name(self) -> str:
        """The name it waits for a guest under."""
        return str(self.id)


@dataclass(frozen=True)
class GuestResume:
    """How a game the daemon joined goes on after a lost connection or a crash."""

    rejoin: Redial
    invite: str
    """The host's invite, kept with the secrets for ``statki resume``."""

    def keeper(self, daemon: Daemon) -> SecretKeeper:
        return SecretKeeper(daemon.home, invite=self.invite)


@dataclass(frozen=True)
class HostResume:
    """How a game the daemon hosts goes on after a lost connection or a crash."""

    rejoin: TakeBack

    def keeper(self, daemon: Daemon) -> SecretKeeper:
        port = daemon.addresses[0][1] if daemon.servers else 0
        return SecretKeeper(daemon.home, port=port)


def _rematch_terms(game: DaemonGame) -> Rematch | None:
    """A game's terms of a rematch once it is over: its last notice may have gone out (a
    front end asks on it) a moment before the game is retired."""
    if game.conn is not None:
        outcome = game.conn.outcome
        return rematch_of(game.conn.session) if outcome is not None else None
    return game.again if game.status is GameStatus.OVER else None


def _invite_text(invite: Invite) -> str:
    if invite.key is None:
        return format_address(invite.addresses[0])
    return format_invite(invite.addresses, invite.key, invite.secret)


class Daemon:
    """The daemon's life and its games; see the module docstring."""

    def __init__(
        self,
        home: Path,
        key: Ed25519PrivateKey,
        *,
        name: str,
        listen_on: list[Address],
        bot: str | None = None,
        placement: str | None = None,
        rules: Ruleset,
        limits: Limits,
        max_games: int = MAX_GAMES,
        keep_finished: int = KEEP_FINISHED,
        custom_rules: bool = False,
        clock: Clock = WALL_CLOCK,
        complain: Callable[[str], None] = print_to_stderr,
    ) -> None:
        self.home = home
        self.key = key
        self.name = name
        self.listen_on = listen_on
        self.bot = check_strategy(bot) if bot else None
        self.placement = check_placement(placement) if placement else None
        self.rules = rules
        self.limits = limits
        self.max_games = max_games
        self.keep_finished = keep_finished
        self.custom_rules = custom_rules
        """Whether its computer player, as a guest, takes rules that are no preset."""
        self.clock = clock
        """Every game's time (real time; tests hurry it)."""
        self.complain = complain
        """Where a line for the daemon's operator goes (a game it had to stop): the command
        line wraps it for a terminal and keeps it whole for a log file."""
        self.history = History.in_home(home)
        self.log_dir = home / "logs"
        self.games: dict[int, DaemonGame] = {}
        self.finished: deque[int] = deque()
        on_demand = (
            OnDemand(Hosting(self._bot_hello, secret=None), self._game_on_demand)
            if self.bot
            else None
        )
        self.admission: Admission[DaemonGame] = Admission(on_demand=on_demand, clock=clock)
        self.watchers: list[Watcher] = []
        self.event_watchers: list[EventWatcher] = []
        self.servers: list[asyncio.Server] = []
        self.portmap: PortMapping | None = None
        self.reach: MappingOutcome | None = None
        """What the router did when asked to forward the port (None: not asked)."""
        self.control = ControlServer(self)
        self.admission.door_watchers.append(self._at_the_door)
        self.tasks: set[asyncio.Task[None]] = set()
        self.stopped = asyncio.Event()
        self._ids = itertools.count(1)
        self.rng = random.SystemRandom()
        self.thinking = Thinking.in_processes()
        """Where its computer players think: worker processes, one a core, started as
        they are needed, so that their thinking never holds this loop's GIL."""

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        self.servers = await listen(self.listen_on, self._on_peer)
        await self.control.open()

    async def map_port(self) -> MappingOutcome | None:
        """Ask the router to forward the port the daemon listens on at every address (one
        bound to a single address is that address's own business)."""
        port = next((port for host, port in self.addresses if host in WILDCARDS), None)
        if port is None:
            return None
        self.portmap = PortMapping(self.home, port)
        self.reach = await self.portmap.open()
        return self.reach

    async def serve(self) -> None:
        await self.stopped.wait()
        await self.shutdown()

    async def shutdown(self) -> None:
        """Stop listening, stop every game in play (each forfeits by its ``error``), and exit.

        A stopped game winds up by itself: its error goes out, its log is
        judged and its history row written.  Whatever is still running after
        ``STOP_GRACE`` seconds (a peer still connecting, say) is cancelled.
        """
        for server in self.servers:
            server.close()
        self.control.close()
        for game in self.games.values():
            if game.deadline is not None:
                game.deadline.cancel()
            if game.conn is not None:
                game.conn.stop(phrase(N_("the daemon was told to stop")))
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=STOP_GRACE)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.to_thread(self.thinking.close)
        self.history.close()
        if self.portmap is not None:
            await self.portmap.close()

    @property
    def addresses(self) -> list[Address]:
        return bound_addresses(self.servers)

    def invite_addresses(self, advertise: list[Address]) -> list[Address]:
        local: list[Address] = []
        for host, port in self.addresses:
            local += visible_addresses(port) if host in WILDCARDS else [(host, port)]
        return invite_addresses(advertise, self.reach, local)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def _track_this_task(self) -> None:
        """Let shutdown cancel the task we run in (a listener's, for one peer)."""
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------ games

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
        """The game is over: a summary stands for it, so memory stays flat over many games."""
        game.status = GameStatus.OVER
        game.summary = game_state(game)
        if game.conn is not None:
            game.again = rematch_of(game.conn.session)
        game.conn = None
        self.finished.append(game.id)
        while len(self.finished) > self.keep_finished:
            self.games.pop(self.finished.popleft(), None)

    @property
    def active(self) -> int:
        return sum(1 for g in self.games.values() if g.status is not GameStatus.OVER)

    def host(
        self,
        *,
        rules: Ruleset,
        limits: Limits,
        fleet: Fleet | None,
        bot: str | None,
        advertise: list[Address],
        open_to_anyone: bool = False,
        player: str | None = None,
    ) -> DaemonGame:
        """A game hosted for a front end: it waits for the guest its invite admits.

        Without a ``fleet`` its hello waits for ``propose`` (a player choosing the rules
        and placing on screen): a guest that comes meanwhile waits, silent, for it.
        """
        game = self._new_game(Role.HOST, rules=rules, limits=limits, fleet=fleet, bot=bot)
        game.player = player
        game.secret = None if open_to_anyone else secrets.token_bytes(INVITE_SECRET_SIZE)
        game.invited_by = game.secret
        addresses = self.invite_addresses(advertise)
        game.invite = format_invite(addresses, public_key_bytes(self.key), game.secret)
        self.admission.offer(game.name, game, self._hosting(game) if fleet else None)
        return game

    def propose(self, game: DaemonGame, rules: Ruleset, limits: Limits, fleet: Fleet) -> None:
        """The proposal a front end's player chose for ``game``: its hello says it from now."""
        if (
            game.role is not Role.HOST
            or game.fleet is not None
            or game.status is not GameStatus.WAITING
        ):
            raise UsageError(phrase(N_("the game's proposal is settled")))
        game.rules, game.limits, game.fleet = rules, limits, fleet
        self.admission.ready(game.name, self._hosting(game))
        if game.awaited is not None:
            if game.deadline is not None:
                game.deadline.cancel()
            self._wait_for_return(game, game.awaited)

    def rematch(self, old: DaemonGame) -> DaemonGame:
        """The next game with ``old``'s opponent (``statki_net.net.rematch``): hosted again
        with the same invite, its secret and key (the daemon listens on its port still), or
        the same host dialled again; the side that did not shoot first now does."""
        if old.status is not GameStatus.OVER and (old.conn is None or old.conn.outcome is None):
            raise UsageError(phrase(N_("game {game} is not over yet"), game=old.id))
        again = _rematch_terms(old)
        if again is None or not (old.invite or old.host_invite):
            raise UsageError(phrase(N_("game {game} has no opponent to meet again"), game=old.id))
        if old.rematched:
            raise UsageError(phrase(N_("game {game} has had its rematch"), game=old.id))
        old.rematched = True
        if old.host_invite is not None:
            game = self._new_game(
                Role.GUEST, rules=None, limits=old.limits, fleet=None, bot=old.bot
            )
            game.player, game.host_invite, game.awaited = old.player, old.host_invite, again
            game.dialling = self._spawn(self._connect_out(game, old.host_invite, again))
            return game
        # A bot places at once, as ``host`` does; a player's fleet comes with ``propose``.
        fleet = random_fleet(old.rules, self.rng) if old.bot and old.rules else None
        game = self._new_game(
            Role.HOST, rules=old.rules, limits=old.limits, fleet=fleet, bot=old.bot
        )
        game.player, game.invite, game.invited_by = old.player, old.invite, old.invited_by
        game.secret = again.admitting(old.invited_by)
        game.first, game.awaited = again.first, again
        self.admission.offer(game.name, game, self._hosting(game) if fleet else None)
        if fleet is not None:
            self._wait_for_return(game, again)
        else:
            self._wait_for_proposal(game, again)
        return game

    def _wait_for_proposal(self, game: DaemonGame, again: Rematch) -> None:
        """A player's rematch is proposed within a move of the last game's limits (its
        guest waits no longer for the hello): a front end gone before ``propose`` leaves
        no game waiting in the admission until the daemon stops."""
        move_ms = again.limits.move_ms
        delay = self.clock.delay(self.clock.now() + move_ms)
        said = phrase(
            N_("the rematch was not proposed within {seconds} s"),
            seconds=seconds_said(move_ms / 1000),
        )
        loop = asyncio.get_running_loop()
        game.deadline = loop.call_later(delay, self._not_back, game, said)

    def _wait_for_return(self, game: DaemonGame, again: Rematch) -> None:
        """A rematch's guest has a move of the last game's limits to come back, from the
        moment the host's proposal is out; then the game is withdrawn, saying why."""
        move_ms = again.limits.move_ms
        delay = self.clock.delay(self.clock.now() + move_ms)
        said = not_back(again.opponent, move_ms)
        loop = asyncio.get_running_loop()
        game.deadline = loop.call_later(delay, self._not_back, game, said)

    def _not_back(self, game: DaemonGame, said: Phrase) -> None:
        """A hosted rematch's deadline passed: withdrawn, saying why."""
        if self.admission.withdraw(game.name) is None:
            return  # its guest came (or its front end gave it up)
        self._fail(game, said)
        self._retire(game)

    def _fail(self, game: DaemonGame, detail: Phrase, said: Phrase | None = None) -> None:
        """``game`` ends without a game: ``detail`` recorded (its state's ``failure``), and
        its front ends told why, in their player's words (``said``, or ``detail`` itself)."""
        game.failure = detail
        self.tell(game, notices.Closed.without_game(str(detail), said or detail))

    def _at_the_door(self, connections: int) -> None:
        """Connections wait for a hello no game can say yet: each game hosted ``deferred``
        and not yet proposed is told (its guest, most likely, which the hello will prove)."""
        for game in list(self.games.values()):
            if game.role is Role.HOST and game.status is GameStatus.WAITING and game.fleet is None:
                self.control.publish_door(game, connections)

    def cancel(self, game: DaemonGame) -> None:
        """A hosted game its front end gave up before a guest came: it waits no more."""
        if self.admission.withdraw(game.name) is None:
            raise UsageError(phrase(N_("the game is not waiting for a guest")))
        self._withdrawn(game)

    def leave(self, game: DaemonGame) -> End:
        """Its player leaves ``game`` before the battle (SPEC.md, "The control socket",
        ``leave``): the daemon plays on no game nobody will move for.  Withdrawn while no
        guest came or its host is still being dialled; with a connection, stopped by this
        side's ``error``, which decides as section 8 says (no game before the guest's
        accept, this side's forfeit after it); refused once the battle began."""
        if game.status is GameStatus.OVER:
            raise UsageError(phrase(N_("the game is over")))
        if game.conn is not None:
            return game.conn.leave()
        dialling = game.dialling
        if self.admission.withdraw(game.name) is None and (dialling is None or dialling.done()):
            raise UsageError(phrase(N_("the game is not waiting for a guest")))
        if dialling is not None:
            dialling.cancel()  # no connection came of it: nothing was said
        if game.deadline is not None:
            game.deadline.cancel()
        self._withdrawn(game)
        return End.NO_GAME

    def _withdrawn(self, game: DaemonGame) -> None:
        """The game ends before any connection became it: its front end gave it up."""
        self._fail(game, phrase(N_("withdrawn: the player left before the game began")))
        self._retire(game)

    def _hosting(self, game: DaemonGame) -> Hosting:
        admit = Admit.OPEN if game.secret is None else Admit.INVITE
        only = game.awaited.opponent_key if game.awaited is not None else None
        return Hosting(lambda: self._session(game, admit=admit), game.secret, only)

    def join(
        self, invite: Invite, *, limits: Limits, bot: str | None, player: str | None = None
    ) -> DaemonGame:
        """A game as the guest of the host ``invite`` names; connecting starts at once."""
        game = self._new_game(Role.GUEST, rules=None, limits=limits, fleet=None, bot=bot)
        game.player, game.host_invite = player, invite
        game.dialling = self._spawn(self._connect_out(game, invite))
        return game

    def _game_on_demand(self) -> tuple[str, DaemonGame] | None:
        """With ``--bot``, a guest nobody is hosting for gets a game the daemon plays."""
        if not self.bot or self.active >= self.max_games:
            return None
        game = self._new_game(
            Role.HOST, rules=self.rules, limits=self.limits, fleet=None, bot=self.bot
        )
        return game.name, game

    def _bot_hello(self) -> Session:
        """The hello of a game on demand, said to each connection before it is a game."""
        return self._side(Role.HOST, self.rules, self.limits, admit=Admit.OPEN)

    def _session(
        self, game: DaemonGame, *, admit: Admit = Admit.OPEN, invite_secret: bytes | None = None
    ) -> Session:
        """A new session of ``game``'s side (a host's without its fleet: set once admitted)."""
        return self._side(
            game.role, game.rules, game.limits, admit, invite_secret, game.player, game.first
        )

    def _side(
        self,
        role: Role,
        rules: Ruleset | None,
        limits: Limits | None,
        admit: Admit,
        invite_secret: bytes | None = None,
        name: str | None = None,
        first: Role | None = None,
    ) -> Session:
        """Every session this daemon plays is built here, with its key and name."""
        return side_session(
            role,
            self.key,
            self.name if name is None else name,
            rules=rules,
            limits=limits,
            admit=admit,
            invite_secret=invite_secret,
            first=first,
        )

    def tell(self, game: DaemonGame, notice: notices.Notice) -> None:
        for watcher in list(self.watchers):
            watcher(game, notice)

    def tell_events(self, game: DaemonGame, events: list[Event]) -> None:
        for watcher in list(self.event_watchers):
            watcher(game, events)

    # ------------------------------------------------------------ peers

    async def _on_peer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._track_this_task()
        admitted = await self.admission.admit(reader, writer)
        if isinstance(admitted, Admitted):
            # The daemon keeps the game registered for resume while it may be resumed.
            resume = HostResume(TakeBack(self.admission))
            await self._play(
                admitted.game,
                admitted.session,
                reader,
                writer,
                expect_key=None,
                received=admitted.received,
                resume=resume,
            )

    async def _connect_out(
        self, game: DaemonGame, invite: Invite, again: Rematch | None = None
    ) -> None:
        """Dial the host (again, for a rematch: ``again``) and play the game."""
        said = b""
        secret = again.admitting(invite.secret) if again is not None else invite.secret
        # A rematch is with the same host: its key, if the invite names none.
        expect_key = invite.key if invite.key is not None or again is None else again.opponent_key
        try:
            if again is None:
                reader, writer, _ = await dial(invite.addresses)
            else:
                within = again.limits.move_ms / 1000
                reader, writer, said = await redial(
                    invite.addresses,
                    again.opponent,
                    secret=secret,
                    key=self.key,
                    clock=self.clock,
                    hello_within=within,
                    host_key=expect_key,
                )
        except RematchMissed as error:  # the precise reason recorded, the player's said
            self._fail(game, error.detail, error.as_phrase())
            self._retire(game)
            return
        except StatkiError as error:
            self._fail(game, error.as_phrase())
            self._retire(game)
            return
        session = self._session(game, invite_secret=secret)
        # A lost connection is dialled again (SPEC.md, "Resume").
        resume = GuestResume(Redial(invite.addresses), _invite_text(invite))
        await self._play(
            game, session, reader, writer, expect_key=expect_key, received=said, resume=resume
        )

    async def _play(
        self,
        game: DaemonGame,
        session: Session,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        expect_key: bytes | None,
        received: bytes = b"",
        resume: GuestResume | HostResume | None = None,
    ) -> None:
        """One game to its end; whatever goes wrong stays in this game."""
        game.status = GameStatus.PLAYING
        try:
            enable_keepalive(writer)
            player = (
                ComputerPlayer(game.bot, random.Random(self.rng.getrandbits(64)), self.placement)
                if game.bot
                else None
            )
            fleet = game.fleet
            if game.role is Role.HOST and fleet is None:
                assert game.rules is not None and player is not None
                # A hard placement tries hundreds of fleets: not on the event loop.
                fleet = await self.thinking.fleet(player, game.rules)
            if game.role is Role.HOST and fleet is not None:
                session.set_fleet(fleet)
            conn = GameConnection(
                session,
                reader,
                writer,
                log_dir=self.log_dir,
                history=self.history,
                expect_key=expect_key,
                peer_address=peer_text(writer),
                clock=self.clock,
                received=received,
                rejoin=resume.rejoin if resume else None,
                keeper=resume.keeper(self) if resume else None,
            )
            game.conn = conn
            conn.listeners.append(lambda notice: self.tell(game, notice))
            conn.event_listeners.append(lambda events: self.tell_events(game, events))
            if player is not None:
                attach_computer(
                    conn, player, custom_rules=self.custom_rules, thinking=self.thinking
                )
            await conn.run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # contain it: the other games go on
            said = failed(N_("playing the game"), error)
            self.complain(failure_line(game.id, said))
            self._fail(game, said)
            writer.close()
        finally:
            self._retire(game)


def failure_line(game: int, said: Phrase) -> str:
    """The line the daemon's log (its standard error) gets for a game it had to stop: in
    the operator's language, as every line it prints."""
    return _("statki daemon: game {game}: {failure}").format(
        game=game, failure=said.in_words(words())
    )

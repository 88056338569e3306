"""``statki host`` and ``statki join``: the everyday way to play one game.

Both use the running daemon when there is one (through its control socket)
and otherwise play in this process.  In this process a person plays on the
full screen (``statki_client``) when there is a terminal, else at the line
prompt (``--plain``, also the front end for a daemon's game); ``--bot
STRATEGY`` lets the computer play instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import secrets
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import STRATEGIES, ComputerPlayer, check_strategy, placement_for
from statki_net.ai.strategies import place_fleet
from statki_net.cli.common import (
    EXIT_FOUND,
    EXIT_OK,
    Metavar,
    Subcommands,
    custom_rules_argument,
    home_argument,
    limits_of,
    map_argument,
    move_limit_argument,
    name_argument,
    placement_argument,
    player_name,
    rules_argument,
    stdin_is_terminal,
    wants_map,
)
from statki_net.cli.fleet import read_fleet_file
from statki_net.cli.lineplay import (
    GameHandle,
    LineInput,
    LocalHandle,
    PromptPlayer,
    placed_at_prompt,
)
from statki_net.cli.told import tell, tell_copyable, tell_error
from statki_net.game.errors import StatkiError, UsageError
from statki_net.game.fleet import Fleet, fleet_problems, read_fleet_text
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.game.words import N_, joined, phrase
from statki_net.net.admission import Admission, Admitted, Hosting
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.connection import GameConnection, side_session
from statki_net.net.connection import Outcome as GameOutcome
from statki_net.net.control import (
    ControlClient,
    RemoteHandle,
    UntrustedSocket,
    games_the_daemon_plays,
)
from statki_net.net.dialer import dial
from statki_net.net.invite import (
    DEFAULT_PORT,
    Address,
    Invite,
    format_address,
    format_invite,
    parse_address,
    parse_invite,
)
from statki_net.net.listen import (
    ConnectHandler,
    bound_addresses,
    default_listen,
    enable_keepalive,
    listen,
    peer_text,
    visible_addresses,
)
from statki_net.net.portmap import PortMapping
from statki_net.net.reach import MappingOutcome, advice, invite_addresses, outcome_line
from statki_net.net.rematch import not_back, redial
from statki_net.net.resume import Redial, Rejoin, TakeBack
from statki_net.net.thinking import unpredictable
from statki_net.protocol.endings import End, end_term
from statki_net.protocol.errors import Code
from statki_net.protocol.events import STOPPED, Event, Failed, GameClosed
from statki_net.protocol.rematch import Rematch, next_session, rematch_of, who_starts
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import INVITE_SECRET_SIZE, Admit, Limits, Role
from statki_net.store.history import History
from statki_net.store.home import home_dir
from statki_net.store.identity import load_identity
from statki_net.store.language import _, spoken, words
from statki_net.store.unfinished import SecretKeeper, keep_muted, kept_muted

if TYPE_CHECKING:
    from statki_client.daemon_link import DaemonLink
    from statki_client.remote import Reunion

    from statki_net.net.notices import Closed

FINISHED = frozenset({End.SUNK, End.RESIGNED, End.TIME, End.FORFEIT, End.CHEATED, End.REFUSED})
"""Ends of a game played out (or declined); anything else exits 1."""
Arrivals = asyncio.Queue["Admitted[str]"]
"""The guests admitted to the one hosted game (the first is the game's; any later one is
turned away)."""


def player_arguments(parser: argparse.ArgumentParser) -> None:
    home_argument(parser)
    name_argument(parser)
    parser.add_argument(
        "--bot",
        metavar=_(Metavar.STRATEGY),
        help=_("let the computer play this side ({join})").format(join=", ".join(STRATEGIES)),
    )
    placement_argument(parser)
    parser.add_argument(
        "--plain",
        action="store_true",
        help=_("a line prompt instead of the full screen (scripts, screen readers)"),
    )
    parser.add_argument(
        "--fleet", metavar=_(Metavar.FILE), help=_("your fleet, one ship a line (default: random)")
    )
    move_limit_argument(parser)
    parser.add_argument(
        "--no-bell",
        dest="bell",
        action="store_false",
        help=_("no terminal bell when your turn begins"),
    )


def add(commands: Subcommands) -> None:
    host = commands.add_parser("host")
    rules_argument(host)
    host.set_defaults(rules=None)  # not given: classic, chosen again on the rules screen
    host.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=_("port to listen on (default {DEFAULT_PORT}; 0: any)").format(
            DEFAULT_PORT=DEFAULT_PORT
        ),
    )
    host.add_argument(
        "--advertise",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help=_("an address others reach you at (a router's forwarded port, a public IPv6 address)"),
    )
    host.add_argument(
        "--open",
        action="store_true",
        help=_("admit anyone, without the invite's secret (a LAN: a bare HOST:PORT joins)"),
    )
    map_argument(host)
    player_arguments(host)
    host.set_defaults(run=_host, custom_rules=False)  # the host proposes: nothing to admit
    join = commands.add_parser("join")
    join.add_argument(
        "invite",
        nargs="+",
        metavar=_(Metavar.INVITE),
        help=_("the host's invite, or a bare HOST:PORT (copied over several lines, it is joined)"),
    )
    custom_rules_argument(join)
    player_arguments(join)
    join.set_defaults(run=_join)


@dataclass
class Player:
    """Who plays this side, and where its files are."""

    home: Path
    name: str
    bot: str | None
    fleet_file: str | None
    limits: Limits | None
    on_screen: bool = False
    """A person plays on the full screen (a terminal, no ``--plain``, no ``--bot``)."""
    placement: str | None = None
    """How the computer places this side's fleet, with ``--bot``."""
    choose_rules: bool = False
    """The host picks the rules on screen (no ``--rules`` given)."""
    custom_rules: bool = False
    """As a guest, consider rules that are no preset instead of declining them."""
    clock: Clock = WALL_CLOCK
    """Where the games' time comes from: real time, but for tests that hurry it."""
    bell: bool = True
    """Ring the terminal's bell when this side's turn begins (``--no-bell``: not)."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Player:
        limits = limits_of(args.move_timeout)
        home = home_dir(args.home)
        return cls(
            home=home,
            name=player_name(args.name, home, may_ask=not args.bot and stdin_is_terminal()),
            bot=check_strategy(args.bot) if args.bot else None,
            fleet_file=args.fleet,
            limits=limits,
            on_screen=not args.bot and not _wants_plain(args.plain),
            placement=args.placement,
            custom_rules=args.custom_rules,
            bell=args.bell,
        )

    def fleet_text(self) -> str:
        if self.fleet_file is None:
            return ""
        return read_fleet_file(self.fleet_file)

    def session(
        self,
        role: Role,
        key: Ed25519PrivateKey,
        *,
        rules: Ruleset | None = None,
        fleet: Fleet | None = None,
        admit: Admit = Admit.OPEN,
        invite_secret: bytes | None = None,
    ) -> Session:
        """This player's side of a new game: its name and limits, secrets from the OS."""
        return side_session(
            role,
            key,
            self.name,
            rules=rules,
            limits=self.limits,
            fleet=fleet,
            admit=admit,
            invite_secret=invite_secret,
        )

    def fleet(self, rules: Ruleset) -> Fleet | None:
        if self.fleet_file is None:
            return None
        fleet, problems = read_fleet_text(rules, read_fleet_file(self.fleet_file), words())
        problems += fleet_problems(rules, fleet, words())
        if problems:
            said = joined([problem.said for problem in problems], "; ")
            raise UsageError(phrase(N_("{path}: {problems}"), path=self.fleet_file, problems=said))
        return fleet


def _wants_plain(plain: bool) -> bool:
    # The client is imported only when asked about, so bots and scripts stay light.
    from statki_client.run import wants_plain

    return bool(wants_plain(plain))


def _host(args: argparse.Namespace) -> int:
    player = Player.from_args(args)
    player.choose_rules = args.rules is None
    rules = ruleset_named(args.rules or "classic")
    fleet = player.fleet(rules)
    if not 0 <= args.port < 65536:
        raise UsageError(phrase(N_("--port must be between 0 and 65535")))
    for address in args.advertise:  # refused before the invite is printed, not inside it
        parse_address(address, DEFAULT_PORT)
    return asyncio.run(
        _host_game(
            player, rules, fleet, args.port, args.advertise, args.open, map_port=wants_map(args)
        )
    )


def _join(args: argparse.Namespace) -> int:
    player = Player.from_args(args)
    invite = parse_invite("".join(args.invite))
    if invite.key is None:
        said = _(
            "statki: warning: a bare address cannot be authenticated;"
            " whoever answers there plays as the host"
        )
        tell_error(said)
    return asyncio.run(_join_game(player, invite))


# ---------------------------------------------------------------- hosting


async def _host_game(
    player: Player,
    rules: Ruleset,
    fleet: Fleet | None,
    port: int,
    advertise: list[str],
    open_to_anyone: bool = False,
    *,
    map_port: bool = False,
) -> int:
    """Host a game: through the home's daemon where one runs, else listening here."""
    client = await _daemon_of(player.home)
    if client is None:
        return await _host_here(player, rules, fleet, port, advertise, open_to_anyone, map_port)
    try:
        return await _host_by_daemon(player, client, rules, fleet, advertise, open_to_anyone)
    finally:
        await client.close()


async def _host_by_daemon(
    player: Player,
    client: ControlClient,
    rules: Ruleset,
    fleet: Fleet | None,
    advertise: list[str],
    open_to_anyone: bool,
) -> int:
    """The daemon hosts the game; this front end shows it (full screen or lines)."""
    if player.on_screen:
        door = Door.of(open_to_anyone)
        return await _host_through_daemon(player, client, rules, advertise, door.admit)
    fleet, lines = await _person_places(player, rules, fleet)
    if fleet is None and lines is not None and lines.interactive:
        return _left_before_the_game()
    request: dict[str, Any] = {"rules": _rules_spec(rules), "subscribe": True}
    request.update(_remote_options(player, fleet))
    request["advertise"] = advertise
    request["open"] = open_to_anyone
    reply = await client.request("host", **request)
    _print_invite(reply["invite"], _("the daemon hosts the game"))
    handle = RemoteHandle(client, reply["game"])
    muting = MuteKept.of_daemon_game(player.home, handle)
    again = DaemonRematches(player, handle, Role.HOST, rules)
    return await _play(player, handle, rules, muting=muting, rematches=again, lines=lines)


async def _host_here(
    player: Player,
    rules: Ruleset,
    fleet: Fleet | None,
    port: int,
    advertise: list[str],
    open_to_anyone: bool,
    map_port: bool,
) -> int:
    """This process listens for its guest and plays the game itself (no daemon runs)."""
    lines: LineInput | None = None
    key = load_identity(player.home)
    if not player.on_screen:
        fleet, lines = await _person_places(player, rules, fleet)
        if fleet is None and lines is not None and lines.interactive:
            return _left_before_the_game()
    door = Door.of(open_to_anyone)
    arrived: Arrivals = asyncio.Queue()
    admission: Admission[str] = Admission(clock=player.clock)
    admission.offer(HOSTED, HOSTED)
    servers = await listen(default_listen(port), _admitting(admission, arrived))
    bound = bound_addresses(servers)
    mapping = PortMapping(player.home, bound[0][1]) if map_port else None
    try:
        outcome = await mapping.open() if mapping is not None else None
        addresses = invite_addresses(
            [parse_address(a, bound[0][1]) for a in advertise],
            outcome,
            visible_addresses(bound[0][1]),
        )
        tell_reach(outcome, bound[0][1], addresses)
        invite = format_invite(addresses, public_key_bytes(key), door.secret)
        listening = ", ".join(format_address(a) for a in bound)
        _print_invite(invite, _("listening on {addresses}").format(addresses=listening))
        if player.on_screen:
            session = player.session(Role.HOST, key, rules=rules, admit=door.admit)
            return await _host_on_screen(
                player, session, door, invite, servers, admission, arrived, bound
            )
        admission.ready(
            HOSTED,
            door.hosting(lambda: player.session(Role.HOST, key, rules=rules, admit=door.admit)),
        )
        admitted = await arrived.get()
        if fleet is None:
            fleet = await _placed(player, rules)
        # The port stays open for the game: a guest that lost its connection comes back.
        resuming = CarryOn(TakeBack(admission), SecretKeeper(player.home, port=bound[0][1]))
        chosen = fleet

        def close_first() -> None:
            _close_servers(servers)

        def first_game(history: History) -> GameConnection:
            conn = _admitted_as(player, admitted, chosen, history, resuming)
            _closing_when_over(conn, close_first)  # as on the screen: no redial into it
            return conn

        def reunion(history: History) -> HostReunion:
            return HostReunion(player, bound, history, door=door, before=close_first, invite=invite)

        return await play_here(player, first_game, rules, reunion=reunion, lines=lines)
    finally:
        for server in servers:
            server.close()
        if mapping is not None:
            await mapping.close()


async def _person_places(
    player: Player, rules: Ruleset, fleet: Fleet | None
) -> tuple[Fleet | None, LineInput | None]:
    """A person hosting at the line prompt places the fleet before the game is offered (the
    invite printed), as ``play --plain``'s prompt places it: nobody waits for it yet.  The
    fleet (None: the person left, or nobody places it here) and the lines read, which the
    game's prompt goes on reading."""
    if player.bot or fleet is not None:
        return fleet, None
    lines = await LineInput.from_stdin()
    if not lines.interactive:
        return None, lines  # a script's fleet: --fleet, or drawn when the guest has come

    async def ask(prompt: str) -> str | None:
        return await lines.asked(prompt, sys.stdout)

    placed = await placed_at_prompt(rules, random.SystemRandom(), ask, tell)
    return (placed if isinstance(placed, Fleet) else None), lines


def _left_before_the_game() -> int:
    tell_error(_("statki: you left before the game began"))
    return EXIT_FOUND


async def _placed(player: Player, rules: Ruleset) -> Fleet:
    """The fleet a host that places none itself plays: random, or the computer's way."""
    placement = placement_for(player.bot, player.placement) if player.bot else "random"
    # Off the loop: a hard placement takes 1-3 s, the guest's handshake goes on.
    return await asyncio.to_thread(place_fleet, rules, placement, unpredictable())


async def _host_through_daemon(
    player: Player, client: ControlClient, rules: Ruleset, advertise: list[str], admit: Admit
) -> int:
    """The daemon hosts the game and plays it; the player chooses the rules, places the
    fleet and plays on the full screen, which follows the game (``DaemonLink``)."""
    from statki_client.daemon_link import DaemonLink

    request: dict[str, Any] = {"rules": _rules_spec(rules), "deferred": True, "follow": True}
    request.update(_remote_options(player, None))
    request["advertise"] = advertise
    request["open"] = admit is Admit.OPEN
    reply = await client.request("host", **request)
    _print_invite(reply["invite"], _("the daemon hosts the game"))
    session = player.session(Role.HOST, load_identity(player.home), rules=rules, admit=admit)
    link = DaemonLink(session, client, reply["game"], clock=player.clock)
    return await _followed_on_screen(player, link, invite=reply["invite"])


def tell_reach(outcome: MappingOutcome | None, port: int, addresses: list[Address]) -> None:
    """What the router did (when it was asked), and what to do when no guest on the
    internet can reach this host: one line each."""
    if outcome is None:
        return
    tell(outcome_line(outcome, words()))
    said = advice(outcome, port, addresses, words())
    if said is not None:
        tell(f"statki: {said}", to=sys.stderr)


@dataclass(frozen=True)
class Door:
    """Whom ``statki host`` admits: the guest holding its invite's secret, or anyone."""

    admit: Admit
    secret: bytes | None
    """Fresh for every hosted game (and kept for its rematches); None when open."""

    @classmethod
    def of(cls, open_to_anyone: bool) -> Door:
        if open_to_anyone:
            return cls(Admit.OPEN, None)
        return cls(Admit.INVITE, secrets.token_bytes(INVITE_SECRET_SIZE))

    def hosting(self, hello: Callable[[], Session], terms: Rematch | None = None) -> Hosting:
        if terms is None:
            return Hosting(hello, self.secret)
        return Hosting(hello, terms.admitting(self.secret), terms.opponent_key)

    def hosting_like(self, session: Session, terms: Rematch | None = None) -> Hosting:
        """Each connection screened gets a hello of its own, with ``session``'s proposal;
        a rematch's ``terms`` admit the last game's opponent only, by the rematch's secret."""
        return self.hosting(
            lambda: session.anew(rules=session.proposed_rules, first=session.proposed_first),
            terms,
        )


def _admitted_as(
    player: Player,
    admitted: Admitted[str],
    fleet: Fleet | None,
    history: History,
    resuming: CarryOn | None = None,
) -> GameConnection:
    """The admitted guest's game: the session made for its connection, with the player's
    ``fleet``."""
    session = admitted.session
    if fleet is not None:
        session.set_fleet(fleet)
    return _connection(
        player,
        session,
        admitted.reader,
        admitted.writer,
        history,
        expect_key=None,
        received=admitted.received,
        resuming=resuming,
    )


async def _host_on_screen(
    player: Player,
    session: Session,
    door: Door,
    invite: str,
    servers: list[asyncio.Server],
    admission: Admission[str],
    arrived: Arrivals,
    bound: list[Address],
) -> int:
    """The host chooses the rules and places its fleet on screen while it waits.

    Guests that come meanwhile wait, silent, for the hello, which carries
    the rules: it is said only once the fleet is committed, with the
    proposal as the screen left it.  A rematch listens again on the
    ``bound`` addresses, with the same invite, secret and key.
    """

    async def guest(history: History, chosen: Session) -> GameConnection:
        admission.ready(HOSTED, door.hosting_like(chosen))
        admitted = await arrived.get()
        # The port stays open for the game: a guest that lost its connection comes back.
        # The invite kept too: the game picked up (``u``) meets its guest again by it.
        keeper = SecretKeeper(player.home, port=bound[0][1], invite=invite)
        resuming = CarryOn(TakeBack(admission), keeper)
        conn = _admitted_as(player, admitted, chosen.fleet, history, resuming)
        _closing_when_over(conn, close_first)  # as a rematch's (HostReunion.connect says why)
        return conn

    def close_first() -> None:
        for server in servers:
            server.close()

    reunions: list[HostReunion] = []

    def reunion(history: History) -> HostReunion:
        made = HostReunion(player, bound, history, door=door, before=close_first, invite=invite)
        reunions.append(made)
        return made

    try:
        return await _on_screen(
            player,
            session,
            guest,
            invite=invite,
            reunion=reunion,
            door_watchers=admission.door_watchers,
        )
    finally:
        close_first()
        for made in reunions:
            made.close()


class HostReunion:
    """The host meets its guest again for a rematch: the same port, invite, secret and key.

    Listening starts again when the host asks for the rematch and stops once
    the guest is admitted; the wait for them is at most the move limit.
    """

    def __init__(
        self,
        player: Player,
        addresses: list[Address],
        history: History,
        *,
        door: Door,
        before: Callable[[], None] = lambda: None,
        invite: str = "",
    ) -> None:
        self.player = player
        self.door = door
        self.invite = invite
        """The invite the guest came by, kept with each game: one picked up meets by it."""
        self.before = before
        """Called before listening again: the first game's listeners give up the port."""
        self.addresses = addresses
        self.history = history
        self.servers: list[asyncio.Server] = []
        self.arrived: Arrivals = asyncio.Queue()
        self.admission: Admission[str] = Admission(clock=player.clock)

    def hear_the_door(self, watcher: Callable[[int], None]) -> None:
        self.admission.door_watchers.append(watcher)

    async def reopen(self) -> None:
        self.before()
        self.close()
        _turn_away(self.arrived)  # one who came too late for the last wait
        self.admission.offer(HOSTED, HOSTED)
        self.servers = await listen(self.addresses, _admitting(self.admission, self.arrived))

    async def connect(
        self, session: Session, who: str, terms: Rematch | None = None
    ) -> GameConnection:
        clock = self.player.clock
        self.admission.ready(HOSTED, self.door.hosting_like(session, terms))
        try:
            # wait_for can lose a cancellation in 3.11
            async with asyncio.timeout(clock.delay(clock.now() + session.proposed_limits.move_ms)):
                admitted = await self.arrived.get()
        except TimeoutError:
            self.close()
            raise UsageError(not_back(who, session.proposed_limits.move_ms)) from None
        except BaseException:
            self.close()
            raise
        # The port stays open while the game is played, as for the first: a guest whose
        # program stopped comes back to it (statki resume).  Closed when it ends, so that a
        # guest asking for the next rematch is refused, and dials again, until this side asks.
        keeper = SecretKeeper(self.player.home, port=self.addresses[0][1], invite=self.invite)
        resuming = CarryOn(TakeBack(self.admission), keeper)
        conn = _admitted_as(self.player, admitted, session.fleet, self.history, resuming)
        servers = self.servers
        _closing_when_over(conn, lambda: _close_servers(servers))
        return conn

    def close(self) -> None:
        self.admission.withdraw(HOSTED)
        for server in self.servers:
            server.close()
        self.servers = []


class GuestReunion:
    """The guest meets its host again for a rematch: the same address, the same key.

    The host may not be listening yet (it asks for the rematch later): the
    guest dials again, as ``statki_net.net.rematch.redial`` says.
    """

    def __init__(self, player: Player, invite: Invite, address: Address, history: History) -> None:
        self.player = player
        self.invite = invite
        self.address = address
        self.history = history

    async def reopen(self) -> None:
        return None

    def hear_the_door(self, watcher: Callable[[int], None]) -> None:
        return None  # the guest dials: nobody waits at its door

    async def connect(
        self, session: Session, who: str, terms: Rematch | None = None
    ) -> GameConnection:
        # The host places its fleet before it says hello: a move's time at most.  The
        # rematch's secret is drawn from the invite's, which this reunion holds even where
        # the session was picked up from its log (and so holds none): its hello proves it.
        if terms is not None:
            session.invite_secret = terms.admitting(self.invite.secret)
        within = session.proposed_limits.move_ms / 1000
        # A bare HOST:PORT names no key: the last game's host is the one met again.
        host_key = self.invite.key or (terms.opponent_key if terms else None)
        reader, writer, said = await redial(
            [self.address],
            who,
            secret=session.invite_secret,
            key=session.key,
            clock=self.player.clock,
            hello_within=within,
            host_key=host_key,
        )
        # Kept, as the first game is, so that it can be picked up if this program stops.
        resuming = CarryOn(
            Redial(self.invite.addresses),
            SecretKeeper(self.player.home, invite=_invite_text(self.invite)),
        )
        return _connection(
            self.player,
            session,
            reader,
            writer,
            self.history,
            expect_key=host_key,
            received=said,
            resuming=resuming,
        )


@dataclass(frozen=True)
class CarryOn:
    """How a game played here goes on after a lost connection or a stopped program."""

    rejoin: Rejoin
    keeper: SecretKeeper


HOSTED = "hosted"
"""The name of the one game ``statki host`` offers for admission."""


def _admitting(admission: Admission[str], arrived: Arrivals) -> ConnectHandler:
    """A listener's handler: the guest admitted to the hosted game joins its arrivals.

    The admission turns away whatever is not the invited guest (a port scan,
    a client that speaks first or stays silent, a wrong secret), so none of
    them can take the one hosted game.
    """

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        admitted = await admission.admit(reader, writer)
        if isinstance(admitted, Admitted):
            await arrived.put(admitted)

    return on_connect


def _closing_when_over(conn: GameConnection, close: Callable[[], None]) -> None:
    """Call ``close`` as ``conn``'s game closes, before any front end hears of it: so the
    opponent, told of the end as soon, cannot dial a port that is still open."""

    def on_events(events: list[Event]) -> None:
        if any(isinstance(event, GameClosed) for event in events):
            close()

    conn.event_listeners.insert(0, on_events)


def _close_servers(servers: list[asyncio.Server]) -> None:
    for server in servers:
        server.close()


def _turn_away(arrived: Arrivals) -> None:
    while not arrived.empty():
        arrived.get_nowait().writer.close()


async def _daemon_of(home: Path) -> ControlClient | None:
    """The daemon running in ``home``; None when there is none, or none to trust (one line)."""
    try:
        return await ControlClient.connect(home)
    except UntrustedSocket as error:
        said = _("statki: not using the daemon's socket: {error}; playing here")
        tell_error(said.format(error=error.in_words(words())))
        return None


def _print_invite(invite: str, where: str) -> None:
    tell(_("{where}; give your opponent this invite:").format(where=where))
    print(invite, flush=True)  # whole, on a line of its own: it is copied


def _rules_spec(rules: Ruleset) -> str:
    from statki_net.game.rules import preset_name

    name = preset_name(rules)
    if name is None:
        raise UsageError(phrase(N_("the daemon takes preset rules only")))
    return name


def _remote_options(player: Player, fleet: Fleet | None) -> dict[str, Any]:
    options: dict[str, Any] = {"lang": spoken()}  # the boards it pushes, titled in ours
    if player.bot:
        options["bot"] = player.bot
    if fleet is not None:
        options["fleet"] = fleet.to_lists()
    if player.limits is not None:
        options["move_ms"] = player.limits.move_ms
    if player.name:
        options["name"] = player.name  # the opponent sees the player's name, not the daemon's
    return options


# ---------------------------------------------------------------- joining


async def _join_game(player: Player, invite: Invite) -> int:
    client = await _daemon_of(player.home)
    if client is not None:
        try:
            if player.on_screen:
                return await _join_through_daemon(player, client, invite)
            request: dict[str, Any] = {"invite": _invite_text(invite), "subscribe": True}
            request.update(_remote_options(player, None))
            reply = await client.request("connect", **request)
            handle = RemoteHandle(client, reply["game"])
            muting = MuteKept.of_daemon_game(player.home, handle)
            again = DaemonRematches(player, handle, Role.GUEST, None)
            return await _play(player, handle, None, muting=muting, rematches=again)
        finally:
            await client.close()
    key = load_identity(player.home)
    reader, writer, dialled = await dial(invite.addresses)
    address = dialled.address
    tell(dialled.text(words()))
    if not player.on_screen and player.bot is None:  # a person's host may still be placing
        tell(_("waiting for the host's rules"))
    session = player.session(Role.GUEST, key, invite_secret=invite.secret)
    # A lost connection is dialled again, at every address of the invite.
    resuming = CarryOn(
        Redial(invite.addresses), SecretKeeper(player.home, invite=_invite_text(invite))
    )
    if player.on_screen:

        async def host(history: History, session: Session) -> GameConnection:
            return _connection(
                player,
                session,
                reader,
                writer,
                history,
                expect_key=invite.key,
                resuming=resuming,
            )

        def reunion(history: History) -> GuestReunion:
            return GuestReunion(player, invite, address, history)

        return await _on_screen(player, session, host, reunion=reunion)
    return await play_here(
        player,
        lambda history: _connection(
            player, session, reader, writer, history, expect_key=invite.key, resuming=resuming
        ),
        None,
        reunion=lambda history: GuestReunion(player, invite, address, history),
    )


async def _join_through_daemon(player: Player, client: ControlClient, invite: Invite) -> int:
    """The daemon connects to the host and plays the game; the player decides, places the
    fleet and plays on the full screen, which follows the game (``DaemonLink``)."""
    from statki_client.daemon_link import DaemonLink

    request: dict[str, Any] = {"invite": _invite_text(invite), "follow": True}
    request.update(_remote_options(player, None))
    reply = await client.request("connect", **request)
    key = load_identity(player.home)
    session = player.session(Role.GUEST, key, invite_secret=invite.secret)
    session.host_key = invite.key
    link = DaemonLink(session, client, reply["game"], clock=player.clock)
    return await _followed_on_screen(player, link)


def _invite_text(invite: Invite) -> str:
    if invite.key is None:
        return format_address(invite.addresses[0])
    return format_invite(invite.addresses, invite.key, invite.secret)


# ---------------------------------------------------------------- playing


async def play_here(
    player: Player,
    connect: Callable[[History], GameConnection],
    rules: Ruleset | None,
    *,
    reunion: Callable[[History], Reunion | None] | None = None,
    lines: LineInput | None = None,
) -> int:
    """Play a game in this process at the line prompt (or by the computer); with
    ``reunion``, each rematch the player asks for at its end, with the same opponent.
    ``lines``: standard input, when it was read already (the host's placement)."""
    history = History.in_home(player.home)
    games = GamesHere(player)
    met = reunion(history) if reunion is not None else None
    try:
        handle = games.start(connect(history))
        again = LocalRematches(player, games, met) if met is not None else None
        return await _play(
            player, handle, rules, muting=games.muting(), rematches=again, lines=lines
        )
    finally:
        await games.stop()
        if isinstance(met, HostReunion):
            met.close()
        history.close()


class GamesHere:
    """The games played in this process one after another (a game, then its rematches)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.running: list[tuple[GameConnection, asyncio.Future[Any]]] = []

    @property
    def last(self) -> GameConnection:
        return self.running[-1][0]

    def start(self, conn: GameConnection) -> LocalHandle:
        """Run ``conn``'s game; the handle the line prompt plays it by."""
        player = self.player
        if player.bot:
            computer = ComputerPlayer(player.bot, random.Random(), player.placement)
            attach_computer(conn, computer, custom_rules=player.custom_rules)
        handle = LocalHandle(conn, draw_boards=not player.bot)
        self.running.append((conn, asyncio.ensure_future(conn.run())))
        return handle

    def muting(self) -> MuteKept:
        return MuteKept.of_session(self.player.home, self.last.session)

    async def stop(self) -> None:
        # The front end is gone before the game ended (Ctrl-C, SIGTERM, a fault):
        # this side stops it, so it does not wait out the move limit for a player.
        for conn, running in self.running:
            conn.stop(phrase(STOPPED))
            await running


@dataclass(frozen=True)
class Rematched:
    """A rematch met, to play at the line prompt."""

    handle: GameHandle
    muting: MuteKept
    leave: Callable[[], Awaitable[None]] | None = None
    """Gives the rematch up while its opponent has not come (a daemon's: it still waits)."""


Placing = Callable[[Ruleset, int], Awaitable[Fleet | None]]
"""How a host places its rematch's fleet, by the rules, in the move (ms) its opponent waits
for it; None when the player left instead (``rematch_fleet``)."""


def rematch_fleet(player: Player, front: PromptPlayer) -> Placing:
    """The host's rematch fleet placed as its first game's was: the ``--fleet`` file's, the
    computer's with ``--bot``, placed at ``front``'s prompt by a person at a terminal (drawn
    at random there unless they place it), else drawn at random; a guest's rematch is
    placed the same way, once the rules come (``PromptPlayer``)."""

    async def place(rules: Ruleset, move_ms: int) -> Fleet | None:
        fleet = player.fleet(rules)
        if fleet is not None:
            return fleet
        if player.bot is None and front.lines is not None and front.lines.interactive:
            return await front.placed_again(rules, move_ms)
        return await _placed(player, rules)

    return place


class Rematches(Protocol):
    """How the line prompt meets the last game's opponent again for a rematch: in this
    process (``LocalRematches``, the screen's reunions) or through the daemon
    (``DaemonRematches``, the control request ``rematch``).  Its terms are
    ``statki_net.protocol.rematch``'s, as on the screen."""

    role: Role

    def offered(self, front: PromptPlayer) -> bool:
        """Whether there is an opponent to meet again after ``front``'s game."""
        ...

    async def meet(
        self, who: str, told: Callable[[Role | None], None], place: Placing
    ) -> Rematched | None:
        """The rematch's game with ``who``, once they agreed; ``told`` who starts (the terms)
        before the wait; a host's fleet ``place``d while its opponent comes (None: the player
        left meanwhile).  Raises ``StatkiError``, its text the player's one line, when they do
        not come or the rematch cannot be had."""
        ...


class LocalRematches:
    """A rematch of the game played here, met by the reunion the full screen uses: the host
    listens again with the same invite, the guest dials the same host again."""

    def __init__(self, player: Player, games: GamesHere, reunion: Reunion) -> None:
        self.player = player
        self.games = games
        self.reunion = reunion
        self.role = games.last.session.role

    def offered(self, front: PromptPlayer) -> bool:
        return rematch_of(self.games.last.session) is not None

    async def meet(
        self, who: str, told: Callable[[Role | None], None], place: Placing
    ) -> Rematched | None:
        last = self.games.last.session
        terms = rematch_of(last)
        if terms is None:
            raise UsageError(phrase(N_("there is no opponent to meet again")))
        session = next_session(last)
        told(terms.first)
        # Listening first, as the screen does: a guest that comes while the fleet is placed
        # waits, silent, for the hello (a move at most), instead of being refused.
        await self.reunion.reopen()
        if session.role is Role.HOST and session.rules is not None:
            fleet = await place(session.rules, session.proposed_limits.move_ms)
            if fleet is None:
                return None
            session.set_fleet(fleet)
        conn = await self.reunion.connect(session, who, terms)
        return Rematched(self.games.start(conn), self.games.muting())


class DaemonRematches:
    """A rematch of a game the daemon plays, asked of it (the control request ``rematch``):
    it hosts again with the same invite, or dials the same host again; a host's fleet
    follows with ``propose``, as the screen's does."""

    def __init__(
        self, player: Player, handle: RemoteHandle, role: Role, rules: Ruleset | None
    ) -> None:
        self.player = player
        self.handle = handle
        self.role = role
        self.rules = rules

    def offered(self, front: PromptPlayer) -> bool:
        return front.met  # the daemon judges the rest, and says why when it refuses

    async def meet(
        self, who: str, told: Callable[[Role | None], None], place: Placing
    ) -> Rematched | None:
        client = self.handle.client
        reply = await client.request("rematch", game=self.handle.game, subscribe=True)
        handle = RemoteHandle(client, int(reply["game"]))
        first = reply.get("first")
        told(Role(first) if first in (Role.HOST.value, Role.GUEST.value) else None)
        if self.role is Role.HOST and self.rules is not None:
            try:
                proposed = await self._propose(handle.game, self.rules, place)
            except asyncio.CancelledError:  # the player left meanwhile: the daemon waits no more
                with contextlib.suppress(StatkiError):
                    await _cancelled(client, handle.game)
                raise
            if not proposed:  # the player left instead of placing: the daemon waits no more
                with contextlib.suppress(StatkiError):
                    await _cancelled(client, handle.game)
                return None
        self.handle = handle
        muting = MuteKept.of_daemon_game(self.player.home, handle)
        if self.role is not Role.HOST:
            # Its daemon dials for up to a move: ``leave`` stops the dialling at once.
            return Rematched(handle, muting, lambda: _left(client, handle.game))
        return Rematched(handle, muting, lambda: _cancelled(client, handle.game))

    async def _propose(self, game: int, rules: Ruleset, place: Placing) -> bool:
        """The host's rematch proposal, its fleet placed anew, as the screen's ``begin``;
        False if the player left instead.  The daemon waits a move for it."""
        fleet = await place(rules, (self.player.limits or Limits()).move_ms)
        if fleet is None:
            return False
        ships = fleet.to_lists()
        await self.handle.client.request(
            "propose", game=game, rules=_rules_spec(rules), fleet=ships
        )
        return True


async def _cancelled(client: ControlClient, game: int) -> None:
    """The daemon's rematch given up before its guest came: it waits no more (``cancel``)."""
    await client.request("cancel", game=game)


async def _left(client: ControlClient, game: int) -> None:
    """The daemon's rematch given up while it still dials the host (``leave``)."""
    await client.request("leave", game=game)


def _connection(
    player: Player,
    session: Session,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    history: History,
    *,
    expect_key: bytes | None,
    received: bytes = b"",
    resuming: CarryOn | None = None,
) -> GameConnection:
    enable_keepalive(writer)
    return GameConnection(
        session,
        reader,
        writer,
        log_dir=player.home / "logs",
        history=history,
        expect_key=expect_key,
        peer_address=peer_text(writer),
        clock=player.clock,
        received=received,
        rejoin=resuming.rejoin if resuming else None,
        keeper=resuming.keeper if resuming else None,
    )


async def _on_screen(
    player: Player,
    session: Session,
    connect: Callable[[History, Session], Awaitable[GameConnection]],
    *,
    invite: str = "",
    reunion: Callable[[History], HostReunion | GuestReunion] | None = None,
    door_watchers: list[Callable[[int], None]] | None = None,
) -> int:
    """Play on the full screen; then say how each game ended on stdout, as the line prompt does.

    The exit status tells how the last game that began ended.
    """
    from statki_client.run import play_connection_on_screen

    history = History.in_home(player.home)
    try:
        outcomes = await play_connection_on_screen(
            session,
            lambda current: connect(history, current),
            history=history,
            invite=invite,
            fleet_text=player.fleet_text(),
            choose_rules=player.choose_rules and session.role is Role.HOST,
            custom_rules=player.custom_rules,
            reunion=reunion(history) if reunion is not None else None,
            bell=player.bell,
            home=player.home,
            door_watchers=door_watchers,
        )
    finally:
        history.close()
    return told_outcomes(outcomes)


def told_outcomes(outcomes: list[GameOutcome]) -> int:
    """How each game played on the full screen ended, on stdout, as the line prompt says it;
    the exit status tells how the last one that began ended."""
    if not outcomes:
        tell_error(_("statki: you left before the game began"))
        return EXIT_FOUND
    for outcome in outcomes:
        if outcome.verdict is not None:
            verdict = outcome.verdict.headline_in(words())
            tell(_("verdict: {verdict}").format(verdict=verdict))
        else:
            tell(_("end: {end}").format(end=end_term(outcome.ending.end).in_words(words())))
        if outcome.log_path is not None:
            tell_copyable(_("log: {path}"), str(outcome.log_path))
    last = outcomes[-1]
    judged = last.judged
    return _exit_status(judged.end if judged else None, last.failure, last.failure_text)


async def _followed_on_screen(player: Player, link: DaemonLink, *, invite: str = "") -> int:
    """Play a game the daemon plays on the full screen; then say how it ended on stdout, as
    ``_on_screen`` does for a game played here."""
    from statki_client.daemon_link import last_link
    from statki_client.run import play_followed_on_screen, unfinished_line

    history = History.in_home(player.home)
    try:
        closed = await play_followed_on_screen(
            link,
            history=history,
            invite=invite,
            fleet_text=player.fleet_text(),
            choose_rules=player.choose_rules and link.session.role is Role.HOST,
            custom_rules=player.custom_rules,
            bell=player.bell,
            mutes_in=player.home,
            unfinished=unfinished_line(player.home, await games_the_daemon_plays(player.home)),
        )
    finally:
        history.close()
    left = last_link(link)
    if left.session.transcript.frames and left.closed is None:  # left before its battle
        said = _(
            "statki: the daemon plays on the game you left; a side nobody moves for loses on time"
        )
        tell(said, to=sys.stderr)
    no_guest = link.session.role is Role.HOST and not link.session.transcript.frames
    if closed is None or no_guest:  # as in-process: no game began without a guest
        tell_error(_("statki: you left before the game began"))
        return EXIT_FOUND
    return told_followed_end(closed, link)


def told_followed_end(closed: Closed, link: DaemonLink) -> int:
    """How each game the daemon played on the screen ended (``link``'s, ``closed``, and its
    rematches' that began), said on stdout as ``told_outcomes`` says it; the exit status
    tells how the last one ended."""
    last, current = link, link.successor
    _tell_closed(closed, link.session)
    while current is not None and current.closed is not None:
        if current.session.transcript.frames:  # not a rematch nobody came to
            _tell_closed(current.closed, current.session)
            last = current
        current = current.successor
    assert last.closed is not None
    closed = last.closed
    return _exit_status(closed.end, last.session.failure, closed.failure_in(words()))


def _tell_closed(closed: Closed, session: Session | None = None) -> None:
    """The line on how a game ``closed``; ``session``, the screen's copy of its session,
    tells a battle stopped before its end (the daemon gone) from a game that never began."""
    t = session.transcript if session is not None else None
    if closed.verdict is not None:
        tell(_("verdict: {verdict}").format(verdict=closed.verdict_in(words())))
    elif closed.end is End.NO_GAME and t is not None and t.accepted and not t.ended:
        tell(_("The game stopped unfinished: statki resume picks it up"))
    else:
        end = end_term(closed.end or End.NO_GAME).in_words(words())
        tell(_("end: {end}").format(end=end))
    if closed.log is not None:
        tell_copyable(_("log: {path}"), str(closed.log))


@dataclass(frozen=True)
class MuteKept:
    """Mute at the line prompt kept with the game in ``home`` (``keep_muted``), as the full
    screen keeps it: a resumed game's muted opponent stays muted.  ``game_id`` is the
    game's id (hex) once it is known: the session's, or the daemon's game's."""

    home: Path
    game_id: Callable[[], str | None]

    @classmethod
    def of_session(cls, home: Path, session: Session) -> MuteKept:
        transcript = session.transcript
        return cls(home, lambda: transcript.game.hex() if transcript.game else None)

    @classmethod
    def of_daemon_game(cls, home: Path, handle: RemoteHandle) -> MuteKept:
        return cls(home, lambda: handle.game_id)

    def muted(self) -> bool:
        game = self.game_id()  # known already when the game is resumed
        return game is not None and kept_muted(self.home, game)

    def remember(self, muted: bool) -> None:
        game = self.game_id()
        if game is not None:
            keep_muted(self.home, game, muted)


async def _play(
    player: Player,
    handle: GameHandle,
    rules: Ruleset | None,
    *,
    muting: MuteKept | None = None,
    rematches: Rematches | None = None,
    lines: LineInput | None = None,
) -> int:
    """Play ``handle``'s game at the line prompt, then each rematch the player asks for;
    the exit status tells how the last game that began ended."""
    if lines is None and not player.bot:
        lines = await LineInput.from_stdin()
    front = _front(player, handle, rules, lines, muting)
    closed = await front.play()
    status = _exit_status(closed.end, front.failure, closed.failure_in(words()))
    while (
        lines is not None
        and rematches is not None
        and rematches.offered(front)
        and await front.asks_for_rematch()
    ):
        try:
            meeting = rematches.meet(
                front.opponent, _teller(front, rematches.role), rematch_fleet(player, front)
            )
            met = await front.unless_left(meeting)
        except StatkiError as error:
            front.say(f"! {error.in_words(words())}")
            break
        if met is None:
            break  # the player left while the opponent had not come
        front = _front(player, met.handle, rules, lines, met.muting, muted=front.muted)
        front.leave = met.leave
        closed = await front.play()
        if closed.end is End.REFUSED and rematches.role is Role.HOST:
            front.say(_("{who} declined the rematch").format(who=front.opponent))
        if front.met:  # a rematch nobody came to tells no result
            status = _exit_status(closed.end, front.failure, closed.failure_in(words()))
    return status


def _teller(front: PromptPlayer, role: Role) -> Callable[[Role | None], None]:
    """Says, at ``front``'s prompt, who starts the rematch asked for (``rematch_words``)."""
    return lambda first: front.say(rematch_words(role, first, front.opponent))


def rematch_words(role: Role, first: Role | None, who: str) -> str:
    """The line saying a rematch is asked for: who starts, and whom this side waits for."""
    starter = who_starts(first, role, who[:1].upper() + who[1:]).in_words(words())
    if role is Role.HOST:
        return _("rematch: {starter}; waiting for {who} to ask for it too").format(
            starter=starter, who=who
        )
    return _("rematch: {starter}; connecting to {who} again").format(starter=starter, who=who)


def _front(
    player: Player,
    handle: GameHandle,
    rules: Ruleset | None,
    lines: LineInput | None,
    muting: MuteKept | None,
    *,
    muted: bool = False,
) -> PromptPlayer:
    """The line prompt of one game; ``muted``: the opponent was muted in the last game."""
    return PromptPlayer(
        handle,
        lines,
        sys.stdout,
        fleet=player.fleet(rules) if rules is not None else None,
        # A guest learns the rules only from the host's hello: read its file then.
        fleet_for=player.fleet,
        quiet=player.bot is not None,
        custom_rules=player.custom_rules,
        muted=muted or (muting is not None and muting.muted()),
        remember_mute=muting.remember if muting is not None else None,
        move_ms=(player.limits or Limits()).move_ms,  # a guest's: the host's rules say it
        bell=player.bell,
        rules=rules,  # a guest's: from the host's hello
    )


def _exit_status(end: End | None, failure: Failed | None, why: str | None) -> int:
    """0 for a game played out (or declined); 1, with one line on stderr, for any other."""
    if failure is not None and failure.code in (Code.WRONG_KEY, Code.NO_INVITE):
        tell_error(f"statki: {failure.detail_in(words())}")
        return EXIT_FOUND
    if failure is not None and failure.code is Code.NOT_INVITED and failure.by_peer:
        said = _(
            "statki: the host turned this guest away:"
            " check that you have the whole invite line, secret included"
        )
        tell_error(said)
        return EXIT_FOUND
    if end not in FINISHED:
        # This side's own failure in the player's words; the daemon's (``why``) too, where
        # it said it as a phrase, else as it came.
        if failure is not None:
            said = failure.plainly().in_words(words())
            why = said[:1].lower() + said[1:]
        said = end_term(end).in_words(words()) if end else _("no ending")
        tell_error(_("statki: the game did not finish: {why}").format(why=why or said))
        return EXIT_FOUND
    return EXIT_OK

"""``statki resume [GAME]``: pick up a game after this side's program stopped.

Without ``GAME`` it lists the unfinished games kept in the home (from this
side's commit to the game's end, ``statki_net.store.unfinished``).  With one
(a prefix of its id) it restores this side's session from the game's log and
kept secrets, appends to the same log, and resumes over a new connection: the
guest dials the invite's addresses again, the host listens on its port again
for the guest to come back (SPEC.md, "Resume").  The game then goes on as
any other: on the full screen where it stood (both seas, whose move, the
clock, the talk so far: ``statki_net.protocol.replay``), or at the line prompt
(``--plain``), or by the computer (``--bot``).  The first screens of ``statki
play``, ``host`` and ``join`` pick a kept game up too (``u``): they leave
with ``ChosenToResume``, and ``resume_chosen`` goes on here.  A game that
cannot be picked up is said in one line (``CannotResume``).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from statki_net.cli.common import EXIT_OK, Metavar, Subcommands, map_argument, wants_map
from statki_net.cli.netplay import (
    Door,
    GuestReunion,
    HostReunion,
    Player,
    play_here,
    player_arguments,
    told_followed_end,
    told_outcomes,
)
from statki_net.cli.told import tell, tell_copyable, tell_error
from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, phrase
from statki_net.net.admission import Admission
from statki_net.net.connection import GameConnection
from statki_net.net.control import ControlClient, UntrustedSocket, daemon_number
from statki_net.net.invite import parse_invite
from statki_net.net.listen import default_listen, listen
from statki_net.net.portmap import PortMapping
from statki_net.net.reach import outcome_line
from statki_net.net.resume import Redial, Rejoin, TakeBack
from statki_net.protocol.rematch import Rematch
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Admit, Role
from statki_net.store.claim import RESUME_PATIENCE_S, Claim, Claimant, GameTaken, claim
from statki_net.store.history import History, local_minute
from statki_net.store.home import home_dir
from statki_net.store.language import _, words
from statki_net.store.recorder import GameRecorder
from statki_net.store.unfinished import (
    Restored,
    SecretKeeper,
    Unfinished,
    find_unfinished,
    glance,
    kept_files,
    restore,
)


def add(commands: Subcommands) -> None:
    resume = commands.add_parser("resume")
    resume.add_argument(
        "game", nargs="?", metavar=_(Metavar.GAME), help=_("the game's id, or its first characters")
    )
    player_arguments(resume)
    map_argument(resume)
    resume.set_defaults(run=_resume, custom_rules=False)


def _resume(args: argparse.Namespace) -> int:
    player = Player.from_args(args)
    if args.game is None:
        return _list(player)
    game = find_unfinished(player.home, args.game).game
    return resume_game(player, game, map_port=wants_map(args))


def resume_chosen(args: argparse.Namespace, game: str) -> int:
    """The game a player chose on the first screen of ``statki play``, ``host`` or ``join``
    (``ChosenToResume``), picked up on the full screen as ``statki resume GAME`` does."""
    home = home_dir(args.home)
    player = Player(home, "", None, None, None, on_screen=True, bell=getattr(args, "bell", True))
    return resume_game(player, game)


def resume_game(player: Player, game: str, *, map_port: bool = False) -> int:
    """Pick kept ``game`` (its whole id) up: on the full screen when a person plays on a
    terminal, else at the line prompt or by the computer."""
    # The lock first: a second program speaking for this side would sign a second story
    # of the game (the daemon holds its games' locks too).
    try:
        claimed = claim(player.home, game, patience_s=RESUME_PATIENCE_S, by=Claimant.RESUME)
    except GameTaken:
        if player.on_screen:  # the daemon's game, its screen closed: a new screen on it
            attached = asyncio.run(_attach(player, game))
            if attached is not None:
                return attached
        raise
    try:
        restored = restore(player.home, game)
        kept = restored.kept
        tell_copyable(
            _("resuming game {game} as the {role}; log: {log}"),
            str(kept.log),
            key="log",
            game=kept.game[:16],
            role=_(str(kept.role)),
        )
        return asyncio.run(_carry_on(player, restored, claimed, map_port=map_port))
    finally:
        claimed.release()  # after the game's end: already let go, with its lock file


async def _attach(player: Player, game: str) -> int | None:
    """Kept ``game`` on a new full screen, where it stands, when the daemon running in the
    home plays it (it holds the game's lock); None when it does not."""
    from statki_client.daemon_link import DaemonLink
    from statki_client.run import play_attached_on_screen

    try:
        client = await ControlClient.connect(player.home)
    except UntrustedSocket:
        return None
    if client is None:
        return None
    try:
        number = await daemon_number(client, game)
        if number is None:
            return None
        # This side's session from the log and the secrets the daemon keeps in the home;
        # the daemon's frames since then join it as the link attaches.
        restored = restore(player.home, game)
        link = await DaemonLink.attach(restored.session, client, number, clock=player.clock)
        tell_copyable(
            _("following game {game}, which the daemon plays; log: {log}"),
            str(restored.kept.log),
            key="log",
            game=game[:16],
        )
        history = History.in_home(player.home)
        try:
            closed = await play_attached_on_screen(
                link,
                told_so_far(link.session, restored.contents),
                history=history,
                bell=player.bell,
                home=player.home,
            )
        finally:
            history.close()
    finally:
        await client.close()
    if closed is None:
        return EXIT_OK  # left while the daemon plays on: it can be followed again
    return told_followed_end(closed, link)


def _list(player: Player) -> int:
    from statki_client.pickup import glance_words  # the start screen's words for a game

    games, damaged = kept_files(player.home)
    for file in damaged:
        why = file.error.in_words(words()) if isinstance(file.error, UsageError) else file.error
        tell_error(
            _(
                "statki: {path}: a kept game that cannot be read ({why}); it is left as it is"
            ).format(path=file.path, why=why)
        )
    if not games:
        tell(_("no unfinished games"))
        return EXIT_OK
    for game in games:
        when = local_minute(game.started)
        # The log on a line of its own: beside the rest it ran past 80 columns.
        tell(f"{game.game[:16]}  {_(game.role.value)}  {when}")
        seen = glance(game)
        if seen is not None:  # which game it is, for a player choosing among several
            tell(glance_words(seen), indent="  ")
        tell_copyable("  " + _("log: {path}"), str(game.log))
    # A new player saw the list and not what to type next; stdout stays the list alone.
    tell_error(_("statki resume GAME picks one up (its id, or its first characters)"))
    return EXIT_OK


async def _carry_on(
    player: Player, restored: Restored, claimed: Claim, *, map_port: bool = False
) -> int:
    kept, session = restored.kept, restored.session
    servers: list[asyncio.Server] = []
    mapping: PortMapping | None = None
    try:
        rejoin: Rejoin
        if kept.role is Role.GUEST:
            rejoin = Redial(parse_invite(kept.invite).addresses)
        else:
            # No game waits for a guest here: every connection can only resume this one.
            admission: Admission[str] = Admission(clock=player.clock)

            async def on_connect(
                reader: asyncio.StreamReader, writer: asyncio.StreamWriter
            ) -> None:
                await admission.admit(reader, writer)

            servers = await listen(default_listen(kept.port), on_connect)
            if map_port:  # the guest redials the router's address the invite named
                mapping = PortMapping(player.home, kept.port)
                print(outcome_line(await mapping.open(), words()), flush=True)
            rejoin = TakeBack(admission)

        def connect(history: History) -> GameConnection:
            return resumed_connection(player, restored, rejoin, history, claimed)

        def reunion(history: History) -> HostReunion | GuestReunion | NoReunion:
            return reunion_of(
                player, kept, history, before=lambda: _close_all(servers), session=session
            )

        if player.on_screen:  # where the game stood, then on to its end, as statki join's
            return await _on_screen(player, restored, connect, reunion)
        # The same as a game begun here: the computer or the line prompt, stopped on Ctrl-C.
        return await play_here(player, connect, session.rules, reunion=reunion)
    finally:
        for server in servers:
            server.close()
        if mapping is not None:
            await mapping.close()


def reunion_of(
    player: Player,
    kept: Unfinished,
    history: History,
    *,
    before: Callable[[], None],
    session: Session,
) -> HostReunion | GuestReunion | NoReunion:
    """How a game picked up meets its opponent again for a rematch, as the game begun here
    would: the host on its port by its invite (``before``: the listeners of the pick-up give
    the port up), the guest at the invite's address.  A host's game kept before hosts kept
    their invite (an older statki) meets its guest again all the same when it was open to
    anyone (``session``'s hello says whom it admitted: the guest's invite holds no secret);
    one whose guest came by an invite's secret cannot, that secret gone: ``NoReunion``."""
    if kept.role is Role.GUEST:
        invite = parse_invite(kept.invite)
        return GuestReunion(player, invite, invite.addresses[0], history)
    if kept.port and kept.invite:
        secret = parse_invite(kept.invite).secret
        door = Door(Admit.INVITE, secret) if secret is not None else Door(Admit.OPEN, None)
    elif kept.port and not _admitted_by_invite(session):
        door = Door(Admit.OPEN, None)
    else:
        return NoReunion(
            phrase(
                N_(
                    "An older statki kept this game without its invite, which your opponent"
                    " needs to come back for a rematch; host a new game and give them its"
                    " invite"
                )
            )
        )
    addresses = default_listen(kept.port)
    return HostReunion(player, addresses, history, door=door, before=before, invite=kept.invite)


def _admitted_by_invite(session: Session) -> bool:
    """Whether the host's hello of ``session``'s game admitted only the guest it invited."""
    hello = session.transcript.sides[Role.HOST].hello
    return hello is None or hello.admit is Admit.INVITE


@dataclass(frozen=True)
class NoReunion:
    """The rematch of a game picked up whose opponent cannot be met again: ``r`` on its end
    screen says why (``why``, in the player's words) as a rematch nobody came to does."""

    why: Phrase

    async def reopen(self) -> None:
        raise UsageError(self.why)

    async def connect(
        self, session: Session, who: str, terms: Rematch | None = None
    ) -> GameConnection:
        raise UsageError(self.why)

    def hear_the_door(self, watcher: Callable[[int], None]) -> None:
        return None  # nobody comes to it


def _close_all(servers: list[asyncio.Server]) -> None:
    for server in servers:
        server.close()


def resumed_connection(
    player: Player,
    restored: Restored,
    rejoin: Rejoin,
    history: History,
    claimed: Claim | None = None,
) -> GameConnection:
    """The restored game's connection: apart until ``rejoin`` brings the peer back, its
    messages appended to the same log, its secrets kept until it ends; ``claimed`` is this
    program's lock on the game (``statki_net.store.claim``), let go when it ends."""
    kept, session = restored.kept, restored.session
    return GameConnection(
        session,
        None,
        None,
        log_dir=kept.log.parent,
        history=history,
        clock=player.clock,
        rejoin=rejoin,
        keeper=SecretKeeper(
            player.home,
            invite=kept.invite,
            port=kept.port,
            now=kept.started,
            game=kept.game,
            claimed=claimed,
        ),
        recorder=GameRecorder.going_on(kept.log, history, session),
    )


async def _on_screen(
    player: Player,
    restored: Restored,
    connect: Callable[[History], GameConnection],
    reunion: Callable[[History], HostReunion | GuestReunion | NoReunion],
) -> int:
    from statki_client.run import play_picked_up_on_screen

    history = History.in_home(player.home)
    made = reunion(history)
    try:
        outcomes = await play_picked_up_on_screen(
            connect(history),
            told_so_far(restored.session, restored.contents),
            history=history,
            bell=player.bell,
            home=player.home,
            reunion=made,
        )
    finally:
        if isinstance(made, HostReunion):
            made.close()
        history.close()
    return told_outcomes(outcomes)

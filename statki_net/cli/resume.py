"""``statki resume [GAME]``: pick up a game after this side's program stopped.

Without ``GAME`` it lists the unfinished games kept in the home (from this
side's commit to the game's end, ``statki_net.store.unfinished``).  With one
(a prefix of its id) it restores this side's session from the game's log and
kept secrets, appends to the same log, and resumes over a new connection: the
guest dials the invite's addresses again, the host listens on its port again
for the guest to come back (SPEC.md, "Resume").  The game then goes on as
any other; the full screen is not offered here: the line prompt, or
``--bot``.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import time

from statki_net.cli.common import EXIT_OK, Subcommands, map_argument, wants_map
from statki_net.cli.netplay import Player, play_here, player_arguments
from statki_net.game.errors import UsageError
from statki_net.net.admission import Admission
from statki_net.net.connection import GameConnection
from statki_net.net.invite import parse_invite
from statki_net.net.listen import default_listen, listen
from statki_net.net.portmap import PortMapping
from statki_net.net.reach import outcome_line
from statki_net.net.resume import Redial, Rejoin, TakeBack
from statki_net.protocol.logformat import frames_of, next_say, read_log
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.store.history import History
from statki_net.store.identity import load_identity
from statki_net.store.language import _, words
from statki_net.store.recorder import GameRecorder
from statki_net.store.unfinished import (
    SecretKeeper,
    Unfinished,
    find_unfinished,
    glance,
    unfinished_games,
)


def add(commands: Subcommands) -> None:
    resume = commands.add_parser("resume")
    resume.add_argument(
        "game", nargs="?", metavar="GAME", help=_("the game's id, or its first characters")
    )
    player_arguments(resume)
    map_argument(resume)
    resume.set_defaults(run=_resume, custom_rules=False)


def _resume(args: argparse.Namespace) -> int:
    player = Player.from_args(args)
    player.on_screen = False  # the line prompt, or the computer
    if args.game is None:
        return _list(player)
    kept = find_unfinished(player.home, args.game)
    if not kept.log.is_file():
        raise UsageError(_("the game's log {log} is gone").format(log=kept.log))
    contents = read_log(kept.log.read_bytes())
    session = Session.restore(
        kept.role,
        load_identity(player.home),
        frames_of(contents),
        kept.secrets,
        name=kept.name,
        entropy=secrets.token_bytes,
        said=next_say(contents, kept.role),
    )
    print(
        _("resuming game {game} as the {role}; log: {log}").format(
            game=kept.game[:16], role=_(str(kept.role)), log=kept.log
        ),
        flush=True,
    )
    return asyncio.run(_carry_on(player, kept, session, map_port=wants_map(args)))


def _list(player: Player) -> int:
    from statki_client.run import glance_words  # the start screen's words for a game

    games = unfinished_games(player.home)
    if not games:
        print(_("no unfinished games"))
        return EXIT_OK
    for game in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(game.started / 1000))
        print(f"{game.game[:16]}  {game.role.value:<5}  {when}  {game.log}")
        seen = glance(game)
        if seen is not None:  # which game it is, for a player choosing among several
            print(f"  {glance_words(seen)}")
    return EXIT_OK


async def _carry_on(
    player: Player, kept: Unfinished, session: Session, *, map_port: bool = False
) -> int:
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
                ),
                recorder=GameRecorder.going_on(kept.log, history, session),
            )

        # The same as a game begun here: the computer or the line prompt, stopped on Ctrl-C.
        return await play_here(player, connect, session.rules)
    finally:
        for server in servers:
            server.close()
        if mapping is not None:
            await mapping.close()

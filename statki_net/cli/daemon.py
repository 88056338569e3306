"""``statki daemon``: the long-running peer, controlled over its Unix socket."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import signal

from statki_net.ai.computer import STRATEGIES, chosen_player
from statki_net.cli.common import (
    EXIT_OK,
    Metavar,
    Subcommands,
    custom_rules_argument,
    home_argument,
    limits_of,
    map_argument,
    move_limit_argument,
    placement_argument,
    player_name,
    rules_argument,
    strength_argument,
    wants_map,
)
from statki_net.cli.told import tell, tell_copyable, tell_error
from statki_net.game.rules import ruleset_named
from statki_net.net.control import socket_path
from statki_net.net.daemon import Daemon
from statki_net.net.invite import DEFAULT_PORT, format_address, parse_address
from statki_net.net.listen import default_listen
from statki_net.net.reach import outcome_line
from statki_net.protocol.wire import Limits
from statki_net.store.home import home_dir
from statki_net.store.identity import load_identity, my_fingerprint
from statki_net.store.language import _, words


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("daemon")
    parser.add_argument(
        "--listen",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help=_("where to listen for peers (default: every address, port {DEFAULT_PORT})").format(
            DEFAULT_PORT=DEFAULT_PORT
        ),
    )
    parser.add_argument(
        "--bot",
        metavar=_(Metavar.STRATEGY),
        help=_("accept every challenge and play it ({join}, or a strength)").format(
            join=", ".join(STRATEGIES)
        ),
    )
    strength_argument(parser)
    placement_argument(parser)
    rules_argument(parser)
    home_argument(parser)
    parser.add_argument(
        "--name",
        metavar=_(Metavar.NAME),
        help=_(
            "the name opponents see in its games"
            " (default: the one you gave the first time you played)"
        ),
    )
    move_limit_argument(parser)
    custom_rules_argument(parser)
    map_argument(parser)
    parser.set_defaults(run=_daemon)


M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter: the size from which ``malloc`` maps memory of its own."""
MMAP_FROM = 128 * 1024
"""glibc's default threshold, fixed: a block this big is mapped, and unmapped when freed."""


def _keep_the_heap_flat() -> None:
    """Stop glibc's heap creeping over thousands of connections (issue 11; README, "Benchmarks").

    asyncio reads a socket with ``recv(256 KiB)`` and then shrinks the bytes to
    what came.  glibc raises its mmap threshold past 256 KiB the first time such
    a buffer is freed, so from then on every read carves 256 KiB out of the heap
    and leaves a small block in it: the heap's free space grows game after game
    while what is in use stays flat.  Setting the threshold turns the raising off.
    Elsewhere than glibc there is no ``mallopt``, and nothing to do.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(M_MMAP_THRESHOLD, MMAP_FROM)


def _daemon(args: argparse.Namespace) -> int:
    _keep_the_heap_flat()
    home = home_dir(args.home)
    key = load_identity(home)
    addresses = [parse_address(a, DEFAULT_PORT, listening=True) for a in args.listen]
    limits = limits_of(args.move_timeout) or Limits()
    rules = ruleset_named(args.rules)

    async def run() -> None:
        daemon = Daemon(
            home,
            key,
            # A daemon asks nobody: the kept name, else none, as ``statki host --bot`` plays.
            name=player_name(args.name, home, may_ask=False),
            listen_on=addresses or default_listen(),
            bot=chosen_player(args.strength, args.bot) if args.bot or args.strength else None,
            placement=args.placement,
            rules=rules,
            limits=limits,
            custom_rules=args.custom_rules,
            complain=tell_error,
        )
        await daemon.start()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, daemon.stopped.set)
        tell(_("statki daemon {key}").format(key=my_fingerprint(key)))
        for address in daemon.addresses:
            tell(_("listening on {address}").format(address=format_address(address)))
        outcome = await daemon.map_port() if wants_map(args) else None
        if outcome is not None:
            tell(outcome_line(outcome, words()))
        tell_copyable(_("control socket {path}"), str(socket_path(home)))
        await daemon.serve()

    asyncio.run(run())
    return EXIT_OK

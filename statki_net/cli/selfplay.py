"""``statki selfplay``: two computer players over real loopback TCP, and a summary."""

from __future__ import annotations

import argparse
import asyncio
import random
from pathlib import Path

from statki_net.ai.computer import STRATEGIES, ComputerPlayer, chosen_player
from statki_net.cli.common import (
    EXIT_OK,
    Metavar,
    Subcommands,
    placement_argument,
    rules_argument,
    strength_argument,
)
from statki_net.cli.told import tell
from statki_net.game.errors import UsageError
from statki_net.game.rules import ruleset_named
from statki_net.game.words import N_, phrase
from statki_net.net.selfplay import selfplay
from statki_net.store.home import private_folder
from statki_net.store.language import _, words


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("selfplay")
    rules_argument(parser)
    parser.add_argument("--games", type=int, default=10, metavar="N", help=_("games to play"))
    parser.add_argument(
        "--seed", type=int, default=0, metavar=_(Metavar.SEED), help=_("seed for repeatable games")
    )
    parser.add_argument(
        "--bot",
        default=None,
        metavar=_(Metavar.STRATEGY),
        help=_("the strategy both sides play ({join}), instead of a strength").format(
            join=", ".join(STRATEGIES)
        ),
    )
    strength_argument(parser)
    placement_argument(parser)
    parser.add_argument(
        "--log-dir", metavar=_(Metavar.DIR), help=_("write each side's log of each game here")
    )
    parser.set_defaults(run=_selfplay)


def _selfplay(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError(phrase(N_("--games must be at least 1")))
    rules = ruleset_named(args.rules)
    strategy = chosen_player(args.strength, args.bot)
    # Made (or refused, in one line) now: a folder that cannot take logs fails every game.
    log_dir = private_folder(Path(args.log_dir)) if args.log_dir else None
    placement = args.placement

    def make_player(name: str, rng: random.Random) -> ComputerPlayer:
        return ComputerPlayer(name, rng, placement)

    report = asyncio.run(
        selfplay(
            rules,
            args.games,
            args.seed,
            strategy=strategy,
            log_dir=log_dir,
            make_player=make_player,
        )
    )
    tell(_("rules: {rules}").format(rules=args.rules))
    tell(report.summary())
    invalid = [
        o.verdict.headline_in(words())
        for pair in report.outcomes
        for o in pair
        if o.verdict is not None and not o.verdict.valid
    ]
    for headline in invalid[:5]:
        tell(_("log: {headline}").format(headline=headline))
    return EXIT_OK

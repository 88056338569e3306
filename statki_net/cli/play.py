"""``statki play``: a game against the computer, in this process."""

from __future__ import annotations

import argparse
import getpass

from statki_net.cli.common import (
    Subcommands,
    placement_argument,
    rules_argument,
    strength_argument,
)
from statki_net.game.rules import ruleset_named
from statki_net.store.home import home_dir


def add(commands: Subcommands) -> None:
    play = commands.add_parser("play")
    rules_argument(play)
    play.set_defaults(rules=None)  # not given: classic, chosen again on the rules screen
    play.add_argument(
        "--bot", default=None, metavar="STRATEGY", help="the computer's strategy, no mistakes"
    )
    strength_argument(play)
    placement_argument(play)
    play.add_argument(
        "--plain",
        action="store_true",
        help="a line prompt instead of the full screen (scripts, screen readers)",
    )
    play.add_argument("--name", default=None, help="your name as the opponent sees it")
    play.add_argument("--seed", type=int, default=None, help="seed for repeatable fleets and aim")
    play.add_argument("--home", default=None, help="statki's home directory (else STATKI_HOME)")
    play.set_defaults(run=_play)


def _play(args: argparse.Namespace) -> int:
    # The client is imported here so commands that never draw a board stay light.
    from statki_client.run import play_computer

    from statki_net.ai.computer import chosen_player

    rules = ruleset_named(args.rules or "classic")
    return int(
        play_computer(
            rules,
            home=home_dir(args.home),
            strategy=chosen_player(args.strength, args.bot),
            placement=args.placement,
            choose_strength=args.bot is None,
            name=args.name if args.name is not None else _user(),
            plain=args.plain,
            seed=args.seed,
            choose_rules=args.rules is None,
        )
    )


def _user() -> str:
    try:
        return getpass.getuser()[:40]
    except (OSError, KeyError):
        return "player"

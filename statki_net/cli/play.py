"""``statki play``: a game against the computer, in this process."""

from __future__ import annotations

import argparse
import sys

from statki_net.ai.computer import STRATEGIES
from statki_net.cli.common import (
    EXIT_OK,
    Metavar,
    Subcommands,
    home_argument,
    name_argument,
    placement_argument,
    player_name,
    rules_argument,
    stdin_is_terminal,
    strength_argument,
)
from statki_net.cli.told import tell_copyable
from statki_net.game.rules import ruleset_named
from statki_net.store.home import home_dir
from statki_net.store.language import _


def add(commands: Subcommands) -> None:
    play = commands.add_parser("play")
    rules_argument(play)
    play.set_defaults(rules=None)  # not given: classic, chosen again on the rules screen
    play.add_argument(
        "--bot",
        default=None,
        metavar=_(Metavar.STRATEGY),
        # Named, as join's and the daemon's --bot are: a new player could not guess them.
        help=_(
            "the computer's strategy, with no mistakes ({strategies}; default: none,"
            " the computer of --strength plays)"
        ).format(strategies=", ".join(STRATEGIES)),
    )
    strength_argument(play)
    placement_argument(play)
    play.add_argument(
        "--plain",
        action="store_true",
        help=_("a line prompt instead of the full screen (scripts, screen readers)"),
    )
    name_argument(play)
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar=_(Metavar.SEED),
        help=_("seed for repeatable fleets and aim"),
    )
    play.add_argument(
        "--fleet", metavar=_(Metavar.FILE), help=_("your fleet, one ship a line (default: random)")
    )
    home_argument(play)
    play.set_defaults(run=_play)


def _play(args: argparse.Namespace) -> int:
    # The client is imported here so commands that never draw a board stay light.
    from statki_client.run import play_computer

    from statki_net.ai.computer import chosen_player

    rules = ruleset_named(args.rules or "classic")
    home = home_dir(args.home)
    log = play_computer(
        rules,
        home=home,
        strategy=chosen_player(args.strength, args.bot),
        placement=args.placement,
        choose_strength=args.bot is None,
        name=player_name(args.name, home, may_ask=stdin_is_terminal()),
        plain=args.plain,
        seed=args.seed,
        choose_rules=args.rules is None,
        fleet_text=_fleet_text(args.fleet),
    )
    if log is not None:
        tell_copyable(_("statki: log saved at {path}"), str(log), to=sys.stderr)
    return EXIT_OK


def _fleet_text(path: str | None) -> str:
    """The fleet file's text; the model places it, or says why not and draws one at random."""
    if path is None:
        return ""
    with open(path, encoding="utf-8") as file:
        return file.read()

"""``statki fleet random`` and ``statki fleet check``."""

from __future__ import annotations

import argparse
import random
import sys

from statki_net.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    Metavar,
    Subcommands,
    rules_argument,
)
from statki_net.game.fleet import (
    FleetTextError,
    fleet_problems,
    fleet_text,
    random_fleet,
    read_fleet_text,
)
from statki_net.game.picture import fleet_picture
from statki_net.game.rules import ruleset_named
from statki_net.game.words import N_
from statki_net.store.language import _, ngettext, words
from statki_net.store.userfile import read_stdin_text, read_user_text

MAX_FLEET_TEXT = 16 * 1024 * 1024
"""Bytes of a fleet's text read at most: hundreds of thousands of ships, checked in seconds."""


def add(commands: Subcommands) -> None:
    fleet = commands.add_parser("fleet")
    actions = fleet.add_subparsers(dest="action", required=True, metavar=_(Metavar.COMMAND))
    draw = actions.add_parser("random", help=_("print a random legal fleet"))
    rules_argument(draw)
    draw.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar=_(Metavar.SEED),
        help=_("seed for a repeatable fleet"),
    )
    draw.set_defaults(run=_fleet_random)
    check = actions.add_parser("check", help=_("check a fleet written one ship a line"))
    check.add_argument(
        "file", metavar=_(Metavar.FILE), help=_("the fleet's text form; - for standard input")
    )
    rules_argument(check)
    check.set_defaults(run=_fleet_check)


def _fleet_random(args: argparse.Namespace) -> int:
    rules = ruleset_named(args.rules)
    rng = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    fleet = random_fleet(rules, rng)
    print(fleet_picture(rules.size, fleet))
    print()
    print(fleet_text(rules, fleet), end="")
    return EXIT_OK


def _fleet_check(args: argparse.Namespace) -> int:
    rules = ruleset_named(args.rules)
    if args.file == "-":
        text = read_stdin_text(limit=MAX_FLEET_TEXT, what=N_("fleet"))
    else:
        text = read_fleet_file(args.file)
    try:
        fleet, problems = read_fleet_text(rules, text, words())
    except FleetTextError as error:
        said = error.in_words(words())
        print(_("statki: cannot read the fleet: {error}").format(error=said), file=sys.stderr)
        return EXIT_BAD_INPUT
    problems += fleet_problems(rules, fleet, words())
    if not problems:
        print(_("legal fleet for {rules}").format(rules=args.rules))
        return EXIT_OK
    for problem in problems:
        print(problem.message)
    print(
        ngettext(
            "{n} problem(s): not a legal fleet for {rules}",
            "{n} problem(s): not a legal fleet for {rules}",
            len(problems),
        ).format(n=len(problems), rules=args.rules)
    )
    return EXIT_FOUND


def read_fleet_file(path: str) -> str:
    """A fleet's text form from a file the user named (``fleet check``, ``--fleet``)."""
    return read_user_text(path, limit=MAX_FLEET_TEXT, what=N_("fleet"))

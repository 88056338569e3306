"""The ``statki`` command line: one parser, each command a module of ``statki_net.cli``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from statki_net.cli.commands import BY_NAME, COMMANDS, adder
from statki_net.cli.common import EXIT_BAD_INPUT, home_argument
from statki_net.game.errors import StatkiError
from statki_net.version import SOFTWARE


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(argv).parse_args(argv)
        if getattr(args, "home", None) is None:
            # --home given before the command: the command's own --home defaults to None,
            # and argparse lets a subcommand's default overwrite what came before it.
            args.home = args.home_before
        return int(args.run(args))
    except KeyboardInterrupt:
        print("statki: interrupted", file=sys.stderr)
        return 130
    except StatkiError as error:
        print(f"statki: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError as error:
        print(f"statki: not a text file: {error.reason}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        print(f"statki: {error.strerror or error}{where}", file=sys.stderr)
        return EXIT_BAD_INPUT


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: the named command in full, every other one by name and help.

    Only the command being run loads its module (and what that imports).
    """
    parser = argparse.ArgumentParser(
        prog="statki", description="Battleship of Polish school notebooks, peer to peer."
    )
    parser.add_argument("--version", action="version", version=SOFTWARE)
    home_argument(parser, dest="home_before")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = _command_word(argv)
    if chosen in BY_NAME:
        adder(BY_NAME[chosen])(commands)
    for command in COMMANDS:
        if command.name not in commands.choices:
            commands.add_parser(command.name, help=command.help)
    return parser


def _command_word(argv: Sequence[str]) -> str | None:
    """The command's name: the first word that is no option nor the value of ``--home``."""
    words = iter(argv)
    for word in words:
        if word == "--home":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None

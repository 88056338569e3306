"""The ``statki`` command line: one parser, each command a module of ``statki_net.cli``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from statki_net.cli.commands import COMMANDS
from statki_net.cli.common import EXIT_BAD_INPUT
from statki_net.game.errors import StatkiError


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="statki", description="Battleship of Polish school notebooks, peer to peer."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(commands)
    return parser

"""What every command shares: exit codes, the --rules argument."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

from ..rules import PRESETS

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2

Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
AddCommand = Callable[[Subcommands], None]


def rules_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        default="classic",
        metavar="NAME",
        help=f"rules preset, or presets joined by + ({', '.join(PRESETS)})",
    )

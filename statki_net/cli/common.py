"""What every command shares: exit codes, the --rules and --home arguments."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias

from statki_net.game.rules import PRESETS
from statki_net.store.home import home_dir

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


def custom_rules_argument(parser: argparse.ArgumentParser) -> None:
    """``--custom-rules``: a guest may accept rules that are no preset (SPEC.md, section 7)."""
    parser.add_argument(
        "--custom-rules",
        action="store_true",
        help="consider rules that are no preset nor a combination of presets"
        " (by default they are declined)",
    )


def placement_argument(parser: argparse.ArgumentParser) -> None:
    """``--placement``: how the computer places its own fleet."""
    parser.add_argument(
        "--placement",
        default="random",
        choices=["random", "hard"],
        help="the computer's fleet: uniformly random (default), or hard for density to find",
    )


def home_argument(parser: argparse.ArgumentParser) -> None:
    """``--home DIR``: where statki keeps its key, logs and history (read with ``home_of``)."""
    parser.add_argument(
        "--home",
        metavar="DIR",
        default=None,
        help="statki's directory for the key, logs and history "
        "(default: $STATKI_HOME, else ~/.local/share/statki)",
    )


def home_of(args: argparse.Namespace) -> Path:
    """statki's home for this command: ``--home``, else ``STATKI_HOME``, else the default."""
    return home_dir(getattr(args, "home", None))

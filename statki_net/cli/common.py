"""What every command shares: exit codes, the --rules, --home and --move-timeout arguments."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from statki_net.game.english import N_
from statki_net.store.home import home_dir
from statki_net.store.language import _

# Not ``typing.TYPE_CHECKING``: ``statki --help`` loads this module, and needs nothing
# of ``typing`` (mypy takes any name ``TYPE_CHECKING`` as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    from statki_net.protocol.wire import Limits

    Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
else:
    Subcommands = "argparse._SubParsersAction[argparse.ArgumentParser]"

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2


class Metavar:
    """The placeholders a help shows for what an option takes (``--home DIR``): one for each
    concept across every command, marked here once, and shown through ``_`` in the reader's
    language (``--home KATALOG``).  Those that read the same in Polish are written as they
    are where they are used (N, HOST:PORT, HEX, I/N)."""

    DIR = N_("DIR")
    """A folder: ``--home``, ``--log-dir``, ``--save``."""
    FILE = N_("FILE")
    """A file read or written that is not a game's log: a fleet, a config, a PDF."""
    LOG = N_("LOG")
    """A game's signed log (or a folder of them)."""
    NAME = N_("NAME")
    """A name: the player's, a rules preset's."""
    SECONDS = N_("SECONDS")
    STRATEGY = N_("STRATEGY")
    """A computer player's strategy (``--bot``)."""
    SEED = N_("SEED")
    """The seed of the random numbers, for repeatable games."""
    INVITE = N_("INVITE")
    GAME = N_("GAME")
    """A kept game's id, or its first characters."""
    DATE = N_("DATE")
    COMMAND = N_("COMMAND")
    """A command of statki's (``statki COMMAND``, ``statki fleet COMMAND``), or one to run."""
    KINDS = N_("KIND,...")
    PREFIX = N_("PREFIX")
    TABLE = N_("TABLE")


AddCommand = Callable[[Subcommands], None]


def positive(text: str) -> int:
    """An argument's whole number, 1 or more (argparse names the option when it is not)."""
    return _at_least(text, 1, _("{text!r} is not a whole number of 1 or more").format(text=text))


def _at_least(text: str, lowest: int, refusal: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = lowest - 1
    if number < lowest:
        raise argparse.ArgumentTypeError(refusal)
    return number


def rules_argument(parser: argparse.ArgumentParser) -> None:
    # Here, not at the top: ``statki --help`` must not load the rules (and their dataclasses).
    from statki_net.game.rules import PRESETS

    parser.add_argument(
        "--rules",
        default="classic",
        metavar=_(Metavar.NAME),
        help=_("rules preset, or presets joined by + ({join})").format(join=", ".join(PRESETS)),
    )


def custom_rules_argument(parser: argparse.ArgumentParser) -> None:
    """``--custom-rules``: a guest may accept rules that are no preset (SPEC.md, section 7)."""
    parser.add_argument(
        "--custom-rules",
        action="store_true",
        help=_(
            "consider rules that are no preset nor a combination of presets"
            " (by default they are declined)"
        ),
    )


def move_limit_argument(parser: argparse.ArgumentParser) -> None:
    """``--move-time SECONDS`` (or ``--move-timeout``): the longest a move may take (read with
    ``limits_of``)."""
    parser.add_argument(
        "--move-time",
        "--move-timeout",
        dest="move_timeout",
        type=float,
        metavar=_(Metavar.SECONDS),
        help=_("the longest a move may take, and a reveal (60 to 86400 seconds; default 120)"),
    )


def limits_of(seconds: float | None) -> Limits | None:
    """The limits ``--move-time`` asks for, within SPEC's bounds; None when not given.

    The reveal gets the same limit: a move limit is at least a minute, longer
    than the least a reveal may have (SPEC.md, section 7, "Bounds").
    """
    # Here, not at the top: --help must not load the protocol (tests/cli/test_cli_startup.py).
    from statki_net.game.errors import UsageError
    from statki_net.protocol.bounds import MAX_LIMIT_MS, MIN_MOVE_MS
    from statki_net.protocol.wire import Limits

    if seconds is None:
        return None
    ms = round(seconds * 1000)
    if not MIN_MOVE_MS <= ms <= MAX_LIMIT_MS:
        raise UsageError(
            _("--move-time must be between {least} and {most} seconds").format(
                least=MIN_MOVE_MS // 1000, most=MAX_LIMIT_MS // 1000
            )
        )
    return Limits(move_ms=ms, reveal_ms=ms)


def placement_argument(parser: argparse.ArgumentParser) -> None:
    """``--placement``: how the computer places its own fleet."""
    parser.add_argument(
        "--placement",
        default=None,
        choices=["random", "hard"],
        help=_(
            "the computer's fleet: uniformly random, or hard for density to find"
            " (default: its strength's, random for a --bot strategy)"
        ),
    )


def strength_argument(parser: argparse.ArgumentParser) -> None:
    """``--strength``: how well the computer plays, unless ``--bot`` names a strategy."""
    # Here, not at the top: ``statki --help`` must not load the computer player.
    from statki_net.ai.strength import DEFAULT_STRENGTH, Strength

    parser.add_argument(
        "--strength",
        default=None,
        choices=[strength.value for strength in Strength],
        help=_(
            "how well the computer plays: easy and medium make a person's mistakes (default"
            " {DEFAULT_STRENGTH}; --bot STRATEGY plays a strategy instead)"
        ).format(DEFAULT_STRENGTH=DEFAULT_STRENGTH),
    )


NO_MAP_VARIABLE = "STATKI_NO_MAP"
"""Set (to anything but empty): never ask the router, as ``--no-map`` (tests, scripts)."""


def map_argument(parser: argparse.ArgumentParser) -> None:
    """``--no-map``: do not ask the home router to forward the port (read with ``wants_map``)."""
    parser.add_argument(
        "--no-map",
        dest="map",
        action="store_false",
        help=_(
            "do not ask the router to forward the port (UPnP IGD); also when ${variable} is set"
        ).format(variable=NO_MAP_VARIABLE),
    )


def wants_map(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "map", True)) and not os.environ.get(NO_MAP_VARIABLE)


def home_argument(parser: argparse.ArgumentParser, dest: str = "home") -> None:
    """``--home DIR``: where statki keeps its key, logs and history (read with ``home_of``).

    Every command that has a home takes it this one way; ``statki --home DIR COMMAND``
    too (``dest`` there keeps it apart from the command's own).
    """
    parser.add_argument(
        "--home",
        metavar=_(Metavar.DIR),
        dest=dest,
        default=None,
        help=_(
            "statki's directory for the key, logs and history "
            "(default: $STATKI_HOME, else ~/.local/share/statki)"
        ),
    )


NAME_QUESTION = N_("Your name, as opponents will see it (asked once, kept; Enter for none): ")
"""Said in the player's language: the first thing a new player reads."""


def name_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--name",
        metavar=_(Metavar.NAME),
        help=_(
            "the name your opponent sees, for this game"
            " (default: the one you gave the first time you played)"
        ),
    )


def stdin_is_terminal() -> bool:
    """Whether a person types at standard input (closed, ``sys.stdin`` is None)."""
    return sys.stdin is not None and sys.stdin.isatty()


def player_name(given: str | None, home: Path, *, may_ask: bool) -> str:
    """The name this side plays under: ``--name``, else the one kept in the home, else
    asked for once at the terminal (``may_ask``) and kept; else none."""
    from statki_net.store.player import NAME_QUESTION_DEFAULT, clean_name, keep_name, kept_name

    if given is not None:
        return clean_name(given)
    kept = kept_name(home)
    if kept is not None:
        return kept
    if not may_ask:
        return NAME_QUESTION_DEFAULT
    try:
        answer = input(_(NAME_QUESTION))
    except EOFError:
        return NAME_QUESTION_DEFAULT
    return keep_name(home, answer)


def home_of(args: argparse.Namespace) -> Path:
    """statki's home for this command: ``--home``, else ``STATKI_HOME``, else the default."""
    return home_dir(getattr(args, "home", None))

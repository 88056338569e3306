"""The subcommands of ``statki``: each one's name, the module that adds it, and its help.

Only the module of the command being run is imported, so ``statki --help``
and a quick command do not pay for the whole program (the daemon, the
client, the computer player): the one-line help of every command lives
here, and each module adds its own arguments when it is loaded.
"""

from __future__ import annotations

import importlib

from statki_net.cli.common import AddCommand
from statki_net.game.english import N_


class Command:
    """One subcommand of the registry.

    A plain class, not a dataclass: ``statki --help`` builds only these, and
    importing ``dataclasses`` (with ``inspect``) would be a sixth of its start-up.
    """

    __slots__ = ("help", "module", "name")

    def __init__(self, name: str, module: str, help: str) -> None:
        self.name = name
        self.module = module
        """The module under ``statki_net.cli`` whose ``add`` adds this command's parser."""
        self.help = help
        """English, marked for the catalog; shown as ``_(command.help)``."""

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.module!r}, {self.help!r})"


COMMANDS = (
    Command("fleet", "fleet", N_("draw or check a fleet")),
    Command("play", "play", N_("play against the computer")),
    Command("selfplay", "selfplay", N_("two computer players over loopback TCP; prints a summary")),
    Command("host", "netplay", N_("host a game: print an invite and wait for a guest")),
    Command("join", "netplay", N_("join a game from its invite (statki://...)")),
    Command(
        "resume", "resume", N_("list unfinished games, or pick one up after its program stopped")
    ),
    Command(
        "daemon",
        "daemon",
        N_("the long-running peer: many games at once, driven over a control socket"),
    ),
    Command(
        "doctor",
        "doctor",
        N_("what a host sees of the internet: its addresses, the router, a test port mapping"),
    ),
    Command("verify", "verify", N_("check game logs as a referee")),
    Command(
        "conformance",
        "conformance",
        N_("test another implementation's peer against SPEC.md, case by case"),
    ),
    Command(
        "tournament",
        "tournament",
        N_("a tournament's standings, crosstable, games and ratings, from its logs"),
    ),
    Command("id", "identity", N_("print your key fingerprint")),
    Command("history", "history", N_("list the games you played")),
    Command("stats", "history", N_("who wins most often, per opponent and per rules")),
    Command("bench", "bench", N_("measure the computer players")),
    Command("sheet", "paper", N_("write an A4 PDF with the boards for a game on paper")),
    Command(
        "record", "paper", N_("print a finished game as a record to keep, or write it as a PDF")
    ),
    Command(
        "analyze",
        "analyze",
        N_("after a game: the best shot at every move, and how hard each fleet was"),
    ),
)

BY_NAME = {command.name: command for command in COMMANDS}


def adder(command: Command) -> AddCommand:
    """The function that adds ``command`` (and any command sharing its module) to a parser."""
    module = importlib.import_module(f"statki_net.cli.{command.module}")
    add: AddCommand = module.add
    return add

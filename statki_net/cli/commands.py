"""The subcommands of ``statki``; each module adds its own to the parser."""

from __future__ import annotations

from statki_net.cli import (
    analyze,
    bench,
    daemon,
    fleet,
    history,
    identity,
    netplay,
    play,
    selfplay,
    verify,
)
from statki_net.cli.common import AddCommand

COMMANDS: list[AddCommand] = [
    fleet.add,
    play.add,
    selfplay.add,
    netplay.add,
    daemon.add,
    verify.add,
    identity.add,
    history.add,
    bench.add,
    analyze.add,
]

__all__ = ["COMMANDS"]

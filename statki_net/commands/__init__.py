"""The subcommands of ``statki``; each module adds its own to the parser."""

from __future__ import annotations

from . import fleet, history, identity, play, selfplay, verify
from .common import AddCommand

COMMANDS: list[AddCommand] = [
    fleet.add,
    play.add,
    selfplay.add,
    verify.add,
    identity.add,
    history.add,
]

__all__ = ["COMMANDS"]

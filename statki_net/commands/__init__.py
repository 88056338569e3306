"""The subcommands of ``statki``; each module adds its own to the parser."""

from __future__ import annotations

from . import fleet, play, selfplay
from .common import AddCommand

COMMANDS: list[AddCommand] = [fleet.add, play.add, selfplay.add]

__all__ = ["COMMANDS"]

"""The subcommands of ``statki``; each module adds its own to the parser."""

from __future__ import annotations

from . import fleet
from .common import AddCommand

COMMANDS: list[AddCommand] = [fleet.add]

__all__ = ["COMMANDS"]

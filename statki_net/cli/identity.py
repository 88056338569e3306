"""``statki id``: the player's key fingerprint, the key created on first use."""

from __future__ import annotations

import argparse

from statki_net.cli.common import EXIT_OK, Subcommands, home_argument, home_of
from statki_net.cli.told import tell, tell_error
from statki_net.store.identity import KEY_FILE, load_identity, my_fingerprint
from statki_net.store.language import _


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("id")
    home_argument(parser)
    parser.set_defaults(run=_id)


def _id(args: argparse.Namespace) -> int:
    home = home_of(args)
    new = not (home / KEY_FILE).exists()
    fingerprint = my_fingerprint(load_identity(home))
    if new:
        tell_error(_("statki: created a new identity key in {path}").format(path=home / KEY_FILE))
    tell(fingerprint)
    return EXIT_OK

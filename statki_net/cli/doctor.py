"""``statki doctor``: what a host can see of its way to the internet, before a game.

Its addresses (and which are global), the router that answered, a test
mapping of the port made and removed, the router's external address, and the
verdict: whether a guest on the internet can reach this machine, and if not
what to do (the same advice ``statki host`` gives).  Exit 0 when a guest can,
1 when none can.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from statki_net.cli.common import (
    EXIT_FOUND,
    EXIT_OK,
    NO_MAP_VARIABLE,
    Subcommands,
    home_argument,
    home_of,
    map_argument,
    wants_map,
)
from statki_net.cli.told import tell
from statki_net.game.errors import UsageError
from statki_net.game.words import seconds_said
from statki_net.net.invite import DEFAULT_PORT, Address, format_address
from statki_net.net.listen import visible_addresses
from statki_net.net.portmap import SEARCH_S, PortMapping
from statki_net.net.reach import (
    DoubleNat,
    Mapped,
    MappingOutcome,
    advice,
    family,
    invite_addresses,
    is_global,
    outcome_line,
)
from statki_net.store.home import private_folder
from statki_net.store.language import _, words
from statki_net.store.portmaps import kept

TEST_LEASE_S = 120
"""The test mapping's lease: removed at once, and gone by itself soon should that fail."""


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("doctor")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=_("the port to test a mapping of (default {port}, as statki host)").format(
            port=DEFAULT_PORT
        ),
    )
    map_argument(parser)
    home_argument(parser)
    parser.set_defaults(run=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UsageError(_("--port must be between 1 and 65535"))
    home = private_folder(home_of(args), follow_link=True)
    local = visible_addresses(args.port)
    for line in address_lines(local):
        tell(line)
    if not wants_map(args):
        outcome = None
        tell(
            _("router: not asked (--no-map, or ${variable} is set)").format(
                variable=NO_MAP_VARIABLE
            )
        )
    else:
        outcome = asyncio.run(_test_mapping(home, args.port))
    addresses = invite_addresses([], outcome, local)
    said = advice(outcome, args.port, addresses, words())
    if said is None:
        tell(_("verdict: guests on the internet can reach you; statki host needs nothing more"))
        return EXIT_OK
    tell(_("verdict: {advice}").format(advice=said))
    return EXIT_FOUND


async def _test_mapping(home: Path, port: int) -> MappingOutcome:
    busy = {m.external_port for m in kept(home) if not m.left_behind}
    if port in busy:
        # A statki of this home hosts on it now: a test mapping there would replace its own.
        free = next(p for p in range(port + 1, 65536) if p not in busy)
        tell(
            _("router: port {port} is forwarded for a statki hosting now; testing {free}").format(
                port=port, free=free
            )
        )
        port = free
    mapping = PortMapping(home, port, lease_s=TEST_LEASE_S)
    tell(
        _("router: searching ({seconds} s at most)...").format(
            seconds=seconds_said(SEARCH_S).in_words(words())
        )
    )
    try:
        outcome = await mapping.open()
        if mapping.gateway is not None:
            gateway = mapping.gateway
            tell(
                _("router: {name} at {location} ({via})").format(
                    name=gateway.name, location=gateway.location, via=gateway.via.value
                )
            )
        tell(outcome_line(outcome, words()))
        if isinstance(outcome, Mapped | DoubleNat):
            external = outcome.external[0] if isinstance(outcome, Mapped) else outcome.external
            kind = _("global") if is_global(external) else _("not global: a second translation")
            tell(_("external address: {address} ({kind})").format(address=external, kind=kind))
    finally:
        made = mapping.kept
        await mapping.close()
    if made is not None:
        removed = (
            _("made and removed")
            if mapping.kept is None
            else _("made and NOT removed (the router stopped answering)")
        )
        tell(
            _("test mapping: TCP port {port} -> {address} {removed}").format(
                port=made.external_port,
                address=format_address((made.internal_host, made.internal_port)),
                removed=removed,
            )
        )
    return outcome


def address_lines(local: list[Address]) -> list[str]:
    """This machine's outgoing addresses, each said global or not."""
    lines = []
    for host, _port in local:
        kind = _("global") if is_global(host) else _("private: reached only from this network")
        lines.append(
            _("address: {host} (IPv{version}, {kind})").format(
                host=host, version=family(host), kind=kind
            )
        )
    return lines

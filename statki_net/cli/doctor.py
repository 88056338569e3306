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
    home_of,
    map_argument,
    wants_map,
)
from statki_net.game.errors import UsageError
from statki_net.net.invite import DEFAULT_PORT, Address, format_address
from statki_net.net.listen import visible_addresses
from statki_net.net.portmap import SEARCH_S, PortMapping
from statki_net.net.reach import (
    DoubleNat,
    Mapped,
    Outcome,
    advice,
    family,
    invite_addresses,
    is_global,
    outcome_line,
)
from statki_net.store.home import private_folder
from statki_net.store.portmaps import kept

TEST_LEASE_S = 120
"""The test mapping's lease: removed at once, and gone by itself soon should that fail."""


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("doctor")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port to test a mapping of (default {DEFAULT_PORT}, as statki host)",
    )
    map_argument(parser)
    parser.add_argument("--home", default=None, metavar="DIR", help="statki's directory")
    parser.set_defaults(run=_doctor)


def _doctor(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise UsageError("--port must be between 1 and 65535")
    home = private_folder(home_of(args), follow_link=True)
    local = visible_addresses(args.port)
    for line in address_lines(local):
        print(line, flush=True)
    if not wants_map(args):
        outcome = None
        print(f"router: not asked (--no-map, or ${NO_MAP_VARIABLE} is set)", flush=True)
    else:
        outcome = asyncio.run(_test_mapping(home, args.port))
    addresses = invite_addresses([], outcome, local)
    said = advice(outcome, args.port, addresses)
    if said is None:
        print("verdict: guests on the internet can reach you; statki host needs nothing more")
        return EXIT_OK
    print(f"verdict: {said}")
    return EXIT_FOUND


async def _test_mapping(home: Path, port: int) -> Outcome:
    busy = {m.external_port for m in kept(home) if not m.left_behind}
    if port in busy:
        # A statki of this home hosts on it now: a test mapping there would replace its own.
        free = next(p for p in range(port + 1, 65536) if p not in busy)
        print(f"router: port {port} is forwarded for a statki hosting now; testing {free}")
        port = free
    mapping = PortMapping(home, port, lease_s=TEST_LEASE_S)
    print(f"router: searching ({SEARCH_S:g} s at most)...", flush=True)
    try:
        outcome = await mapping.open()
        if mapping.gateway is not None:
            gateway = mapping.gateway
            print(f"router: {gateway.name} at {gateway.location} ({gateway.via.value})", flush=True)
        print(outcome_line(outcome), flush=True)
        if isinstance(outcome, Mapped | DoubleNat):
            external = outcome.external[0] if isinstance(outcome, Mapped) else outcome.external
            kind = "global" if is_global(external) else "not global: a second translation"
            print(f"external address: {external} ({kind})", flush=True)
    finally:
        made = mapping.kept
        await mapping.close()
    if made is not None:
        removed = (
            "removed" if mapping.kept is None else "NOT removed (the router stopped answering)"
        )
        print(
            f"test mapping: TCP port {made.external_port} ->"
            f" {format_address((made.internal_host, made.internal_port))} made and {removed}",
            flush=True,
        )
    return outcome


def address_lines(local: list[Address]) -> list[str]:
    """This machine's outgoing addresses, each said global or not."""
    lines = []
    for host, _ in local:
        kind = "global" if is_global(host) else "private: reached only from this network"
        lines.append(f"address: {host} (IPv{family(host)}, {kind})")
    return lines

"""Whether guests on the internet can reach a host, and in which order they try its addresses.

Pure: values in, values out (no sockets, no clock).  The router is asked in
``statki_net.net.portmap`` and the addresses are dialled in
``statki_net.net.dialer``; what their answers mean is decided here, in one
place: the outcome of asking the router for a mapping (``Mapped``,
``NoRouter``, ``Refused``, ``DoubleNat``), the order of the invite's
addresses, the order a guest dials them in (RFC 8305, "happy eyeballs"), and
the one message that tells a host what to do when nothing reaches it.
"""

from __future__ import annotations

import enum
import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from statki_net.game.words import ENGLISH, N_, Words, seconds_said
from statki_net.net.invite import Address, format_address


class Via(enum.Enum):
    """The protocol a router was asked through."""

    UPNP = "UPnP IGD"
    NATPMP = "NAT-PMP"


@dataclass(frozen=True)
class Mapped:
    """The router forwards ``external`` (its public address and port) to this machine."""

    external: Address
    via: Via
    router: str
    """What the router calls itself, for the player."""
    lease_s: int
    """Seconds the mapping lasts unless renewed; 0: until removed."""


@dataclass(frozen=True)
class NoRouter:
    """No router answered the search within ``waited_s`` seconds."""

    waited_s: float


@dataclass(frozen=True)
class Refused:
    """A router answered but made no mapping."""

    router: str
    reason: str
    """The router's own words, shown to the player (never matched)."""


@dataclass(frozen=True)
class DoubleNat:
    """The router mapped the port, but its own external address is not a public one: a second
    translation (carrier-grade NAT, a modem in front of the router) stands between it and the
    internet, and nothing there forwards the port."""

    router: str
    external: str


MappingOutcome = Mapped | NoRouter | Refused | DoubleNat
"""What asking the router came to."""


def is_global(host: str) -> bool:
    """An IP address the internet routes to this machine (not private, not CGNAT's 100.64/10,
    not link-local or documentation).  A host name counts as global: its owner chose it."""
    try:
        return ipaddress.ip_address(host.partition("%")[0]).is_global
    except ValueError:
        return True


def family(host: str) -> int:
    """4 or 6 for an IP address, 0 for a host name (its family is known once it is looked up)."""
    try:
        return ipaddress.ip_address(host.partition("%")[0]).version
    except ValueError:
        return 0


def mapping_outcome(
    router: str, external_ip: str | None, external_port: int, lease_s: int, via: Via = Via.UPNP
) -> Mapped | Refused | DoubleNat:
    """What a mapping the router accepted is worth, by the external address it reports."""
    if not external_ip:
        return Refused(router, N_("the router does not say its external address"))
    try:
        ipaddress.ip_address(external_ip)
    except ValueError:
        return Refused(router, f"the router's external address {external_ip!r} is no address")
    if not is_global(external_ip):
        return DoubleNat(router, external_ip)
    return Mapped((external_ip, external_port), via, router, lease_s)


def invite_addresses(
    advertised: Sequence[Address], outcome: MappingOutcome | None, local: Iterable[Address]
) -> list[Address]:
    """The invite's addresses, best first.

    What ``--advertise`` names comes first, as the host's own choice; then the
    router's mapped external address; then this machine's global IPv6
    addresses (reached without any translation); then the rest (a guest on the
    same network reaches a private address).
    """
    order: list[Address] = list(advertised)
    if isinstance(outcome, Mapped):
        order.append(outcome.external)
    local = list(local)
    order += [a for a in local if family(a[0]) == 6 and is_global(a[0])]
    order += local
    return list(dict.fromkeys(order))


def dial_order(addresses: Sequence[Address]) -> list[Address]:
    """The order a guest starts its connection attempts in (RFC 8305, section 4).

    The invite's order is kept within each address family, and the families
    take turns, beginning with the invite's first address's: a broken IPv6
    path costs the next IPv4 address only its head start, and the reverse.
    """
    by_family: dict[int, list[Address]] = {}
    for address in dict.fromkeys(addresses):
        by_family.setdefault(family(address[0]), []).append(address)
    queues = list(by_family.values())
    order: list[Address] = []
    while any(queues):
        for queue in queues:
            if queue:
                order.append(queue.pop(0))
    return order


def reachable(outcome: MappingOutcome | None, addresses: Iterable[Address]) -> bool:
    """Whether a guest on the internet has a way in: a mapped port, or a global address."""
    return isinstance(outcome, Mapped) or any(is_global(host) for host, _ in addresses)


def outcome_line(outcome: MappingOutcome, words: Words = ENGLISH) -> str:
    """One line on what the router did."""
    match outcome:
        case Mapped(external=external, via=via, router=router, lease_s=lease):
            how_long = (
                words.gettext("for {lease} s, renewed while hosting").format(lease=lease)
                if lease
                else words.gettext("until hosting stops")
            )
            return words.gettext(
                "router: {router} forwards {where} here ({via}, {how_long})"
            ).format(
                router=router, where=format_address(external), via=via.value, how_long=how_long
            )
        case NoRouter(waited_s=waited):
            return words.gettext(
                "router: none answered a port-mapping request ({upnp} or {natpmp})"
                " within {waited} s"
            ).format(
                upnp=Via.UPNP.value,
                natpmp=Via.NATPMP.value,
                waited=seconds_said(waited).in_words(words),
            )
        case Refused(router=router, reason=reason):
            # The router's own words pass through unchanged; statki's own (N_) are translated.
            return words.gettext("router: {router} refused to forward the port: {reason}").format(
                router=router, reason=words.gettext(reason)
            )
        case DoubleNat(router=router, external=external):
            return words.gettext(
                "router: {router} forwards the port, but its external address {external}"
                " is not a public one: a second translation (carrier-grade NAT) is in the way"
            ).format(router=router, external=external)


def advice(
    outcome: MappingOutcome | None, port: int, addresses: Iterable[Address], words: Words = ENGLISH
) -> str | None:
    """What a host whose guests cannot reach it from the internet should do; None when they can.

    ``addresses`` are the invite's; a global one (IPv6, or an address the
    host advertised) is a way in, so there is nothing to advise.
    """
    addresses = list(addresses)
    if reachable(outcome, addresses):
        return None
    ways = [
        words.gettext(
            "forward TCP port {port} on your router to this machine by hand and pass"
            " --advertise YOUR_PUBLIC_ADDRESS:{port}"
        ).format(port=port),
        words.gettext("play over IPv6 where both of you have it"),
        words.gettext("or swap roles: your opponent hosts and you join their invite"),
    ]
    if isinstance(outcome, DoubleNat):
        ways[0] = words.gettext(
            "ask your provider for a public address or a forwarded port"
            " (a second translation is theirs)"
        )
    return words.gettext("guests on the internet cannot reach you; {ways}").format(
        ways="; ".join(ways)
    )

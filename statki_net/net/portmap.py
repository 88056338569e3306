"""Asking the home router to forward the host's port: UPnP IGD, else NAT-PMP.

UPnP IGD goes through async-upnp-client, which does the talking (SSDP
search, the device description, SOAP actions); NAT-PMP (RFC 6886) is a UDP
exchange with the default gateway whose messages are
``statki_net.protocol.natpmp``'s.  Both are searched for at once, within
``SEARCH_S``; a router that speaks UPnP is asked through it.  This module
bounds each wait, turns the answers into the typed outcomes of
``statki_net.net.reach``, renews the lease at half time while hosting and
removes the mapping when hosting stops.  Each mapping is written down in the
home (``statki_net.store.portmaps``) before it is asked for, so the next
start removes one that a crash left behind.

Only IPv4 needs this: a global IPv6 address is reached without translation.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from statki_net.game.words import N_
from statki_net.net.reach import DoubleNat, MappingOutcome, NoRouter, Refused, Via, mapping_outcome
from statki_net.protocol import natpmp
from statki_net.store.portmaps import KeptMapping, forget, keep, kept

if TYPE_CHECKING:
    # async-upnp-client brings aiohttp, about half a second of every start of host, join
    # or play: it is imported where a router is searched for, not here.
    from async_upnp_client.client import UpnpDevice, UpnpService
    from async_upnp_client.utils import CaseInsensitiveDict

SEARCH_S = 2.0
"""How long to wait for a router to answer the search: routers answer in milliseconds, and a
host without one should not wait long to learn it."""
NATPMP_TRIES_S = (0.25, 0.5, 1.0)
"""NAT-PMP's waits for a reply, the request sent again after each (RFC 6886 starts at 250 ms
and doubles; it goes on for a minute, too long for a player waiting for an invite)."""
ACTION_S = 3.0
"""How long one request to the router may take (its description, one action)."""
LEASE_S = 3600
"""How long each mapping is asked for; it is renewed at half that while the host hosts."""
DESCRIPTION = "statki"
"""How the mapping is named in the router's list (and how ours are told from others')."""
GATEWAYS = (
    "urn:schemas-upnp-org:device:InternetGatewayDevice:2",
    "urn:schemas-upnp-org:device:InternetGatewayDevice:1",
)
CONNECTIONS = (
    "urn:schemas-upnp-org:service:WANIPConnection:2",
    "urn:schemas-upnp-org:service:WANIPConnection:1",
    "urn:schemas-upnp-org:service:WANPPPConnection:1",
)
OTHER_PORTS = 3
"""Further external ports tried when the router has the host's own taken by another machine."""
CONFLICT, ONLY_PERMANENT = 718, 725
"""UPnP IGD's error codes for "that external port is mapped already" and "only leases of
0 (permanent) are granted"."""

# The library logs every packet at debug level and some failures as warnings: they are
# ours to report, once, as outcomes.
logging.getLogger("async_upnp_client").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Grant:
    """The mapping a router made: the external port, and for how long."""

    external_port: int
    lease_s: int


class Declined(Exception):
    """The router answered and made no mapping (``outcome`` says how)."""

    def __init__(self, outcome: Refused | DoubleNat) -> None:
        super().__init__(outcome)
        self.outcome = outcome


class PortTaken(Exception):
    """The router forwards that external port to another machine already."""


class RouterError(Exception):
    """The router's UPnP went wrong (the library's own errors, as this module's)."""


class ActionRefused(RouterError):
    """The router answered a UPnP action with an error of its own."""

    def __init__(self, code: int | None, description: str | None) -> None:
        super().__init__(code, description)
        self.code = code
        self.description = description


NoAnswer = (RouterError, OSError, TimeoutError)
"""What a router that stopped answering (or never spoke its protocol well) raises."""


class Gateway:
    """A router that maps ports, whichever protocol it speaks."""

    via: Via
    name: str
    location: str
    """Where it was found: its description's URL, or natpmp://ADDRESS."""
    local_host: str
    """This machine's address towards it: the internal client of a mapping."""

    async def map(self, external_port: int, internal_port: int, lease_s: int) -> Grant:
        raise NotImplementedError

    async def unmap(self, external_port: int, internal_port: int) -> None:
        raise NotImplementedError

    async def external_address(self) -> str | None:
        raise NotImplementedError

    async def remove_leftover(self, mapping: KeptMapping) -> None:
        """Remove a mapping a statki of this home made and could not remove (it crashed)."""
        raise NotImplementedError


async def find_gateway(wait_s: float = SEARCH_S) -> Gateway | None:
    """The home router, asked both ways at once: UPnP IGD's if it answers, else NAT-PMP's."""
    upnp, pmp = await asyncio.gather(find_router(wait_s), find_natpmp())
    return upnp or pmp


# ---------------------------------------------------------------- UPnP IGD


class Router(Gateway):
    """A UPnP Internet Gateway Device found on the local network, with its WAN connection."""

    via = Via.UPNP

    def __init__(self, location: str, name: str, connection: UpnpService, local_host: str):
        self.location = location
        self.name = name
        self.connection = connection
        self.local_host = local_host

    async def map(self, external_port: int, internal_port: int, lease_s: int) -> Grant:
        try:
            await add_mapping(self, external_port, internal_port, lease_s)
        except ActionRefused as error:
            if error.code == CONFLICT:
                raise PortTaken() from None
            if error.code == ONLY_PERMANENT and lease_s:
                return await self.map(external_port, internal_port, 0)
            raise Declined(await _refusal(self, error)) from None
        return Grant(external_port, lease_s)

    async def unmap(self, external_port: int, internal_port: int) -> None:
        await delete_mapping(self, external_port)

    async def external_address(self) -> str | None:
        reply = await _call(self.connection, "GetExternalIPAddress")
        address = reply.get("NewExternalIPAddress")
        return str(address) if address else None

    async def remove_leftover(self, mapping: KeptMapping) -> None:
        """Only one the router still forwards to this machine under statki's name: the port
        may have gone to another machine since."""
        entry = await _call(
            self.connection,
            "GetSpecificPortMappingEntry",
            NewRemoteHost="",
            NewExternalPort=mapping.external_port,
            NewProtocol="TCP",
        )
        ours = entry.get("NewInternalClient") == self.local_host
        if ours and entry.get("NewPortMappingDescription") == DESCRIPTION:
            await delete_mapping(self, mapping.external_port)


async def find_router(wait_s: float = SEARCH_S) -> Router | None:
    """The first Internet Gateway Device that answers an SSDP search; None within ``wait_s``."""
    location = await _search(wait_s)
    if location is None:
        return None
    from async_upnp_client.aiohttp import AiohttpRequester
    from async_upnp_client.client_factory import UpnpFactory
    from async_upnp_client.exceptions import UpnpError

    requester = AiohttpRequester(timeout=int(ACTION_S))
    try:
        async with asyncio.timeout(ACTION_S):
            device = await UpnpFactory(requester, non_strict=True).async_create_device(location)
    except (UpnpError, OSError, TimeoutError, ValueError):
        return None
    connection = _connection_service(device)
    if connection is None:
        return None
    name = " ".join(part for part in (device.model_name, device.model_number) if part)
    router_host = urlsplit(location).hostname or ""
    return Router(location, name or device.friendly_name, connection, _local_host(router_host))


async def _search(wait_s: float) -> str | None:
    from async_upnp_client.exceptions import UpnpError
    from async_upnp_client.search import SsdpSearchListener

    found: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_response(headers: CaseInsensitiveDict) -> None:
        location = headers.get("location")
        if headers.get("st") in GATEWAYS and location and not found.done():
            found.set_result(str(location))

    listeners = [
        SsdpSearchListener(callback=on_response, search_target=target, timeout=int(wait_s) or 1)
        for target in GATEWAYS
    ]
    try:
        for listener in listeners:
            await listener.async_start()
            listener.async_search()
        async with asyncio.timeout(wait_s):
            return await found
    except (OSError, UpnpError, TimeoutError):
        return None
    finally:
        for listener in listeners:
            listener.async_stop()


def _connection_service(device: UpnpDevice) -> UpnpService | None:
    for kind in CONNECTIONS:
        for service in device.all_services:
            if service.service_type == kind and service.has_action("AddPortMapping"):
                return service
    return None


def _local_host(router_host: str) -> str:
    """The address this machine sends from towards the router: choosing a route sends nothing."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect((router_host, 1900))
        return str(sock.getsockname()[0])


async def _call(service: UpnpService, action: str, **arguments: Any) -> Mapping[str, Any]:
    from async_upnp_client.exceptions import UpnpActionError, UpnpError

    try:
        async with asyncio.timeout(ACTION_S):
            return await service.action(action).async_call(**arguments)
    except UpnpActionError as error:
        raise ActionRefused(error.error_code, error.error_desc) from None
    except UpnpError as error:
        raise RouterError(str(error)) from None


async def add_mapping(router: Router, external_port: int, internal_port: int, lease_s: int) -> None:
    await _call(
        router.connection,
        "AddPortMapping",
        NewRemoteHost="",
        NewExternalPort=external_port,
        NewProtocol="TCP",
        NewInternalPort=internal_port,
        NewInternalClient=router.local_host,
        NewEnabled=True,
        NewPortMappingDescription=DESCRIPTION,
        NewLeaseDuration=lease_s,
    )


async def delete_mapping(router: Router, external_port: int) -> None:
    await _call(
        router.connection,
        "DeletePortMapping",
        NewRemoteHost="",
        NewExternalPort=external_port,
        NewProtocol="TCP",
    )


async def _refusal(router: Router, error: ActionRefused) -> Refused | DoubleNat:
    """What a router's refusal means: behind a second translation when the external address
    it reports is not a public one; else the router's own reason."""
    reason = error.description or f"UPnP error {error.code}"
    try:
        external_ip = await router.external_address()
    except NoAnswer:
        return Refused(router.name, reason)
    outcome = mapping_outcome(router.name, external_ip, 0, 0)
    if isinstance(outcome, DoubleNat):
        return outcome
    if not external_ip:  # miniupnpd, for one, says nothing when its own address is private
        reason += "; it reports no public address of its own"
    return Refused(router.name, reason)


# ---------------------------------------------------------------- NAT-PMP


class NatPmpGateway(Gateway):
    """The default gateway, answering NAT-PMP on UDP port 5351."""

    via = Via.NATPMP

    def __init__(self, address: str, local_host: str) -> None:
        self.address = address
        self.name = f"the gateway {address}"
        self.location = f"natpmp://{address}"
        self.local_host = local_host

    async def map(self, external_port: int, internal_port: int, lease_s: int) -> Grant:
        reply = await self._ask(natpmp.mapping_request(internal_port, external_port, lease_s))
        if isinstance(reply, natpmp.Granted) and reply.internal_port == internal_port:
            return Grant(reply.external_port, reply.lifetime_s)
        reason = reply.reason() if isinstance(reply, natpmp.Failed) else N_("no NAT-PMP answer")
        raise Declined(Refused(self.name, reason))

    async def unmap(self, external_port: int, internal_port: int) -> None:
        await self._ask(natpmp.mapping_request(internal_port, 0, 0))

    async def external_address(self) -> str | None:
        reply = await self._ask(natpmp.external_address_request())
        return reply.address if isinstance(reply, natpmp.ExternalAddress) else None

    async def remove_leftover(self, mapping: KeptMapping) -> None:
        # A NAT-PMP router removes only the asking client's own mappings: nothing to check.
        await self.unmap(mapping.external_port, mapping.internal_port)

    async def _ask(self, request: bytes) -> natpmp.Reply:
        reply = await natpmp_exchange(self.address, request)
        if reply is None:
            raise TimeoutError("the gateway stopped answering NAT-PMP")
        return reply


async def find_natpmp() -> NatPmpGateway | None:
    """The default gateway, when it answers NAT-PMP's external-address request."""
    address = default_gateway()
    if address is None:
        return None
    reply = await natpmp_exchange(address, natpmp.external_address_request())
    if reply is None:
        return None
    return NatPmpGateway(address, _local_host(address))


def default_gateway() -> str | None:
    """The IPv4 default route's gateway (Linux: /proc/net/route; elsewhere none is found)."""
    try:
        lines = Path("/proc/net/route").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        # Destination 0 (the default), flags with RTF_GATEWAY (2); the address little-endian.
        if len(fields) > 3 and fields[1] == "00000000" and int(fields[3], 16) & 2:
            return str(ipaddress.IPv4Address(bytes.fromhex(fields[2])[::-1]))
    return None


class _Replies(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.received: asyncio.Queue[bytes] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: tuple[str | Any, int]) -> None:
        self.received.put_nowait(data)


async def natpmp_exchange(address: str, request: bytes) -> natpmp.Reply | None:
    """Send ``request`` to the gateway, again after each wait; its reply, or None."""
    loop = asyncio.get_running_loop()
    try:
        transport, replies = await loop.create_datagram_endpoint(
            _Replies, remote_addr=(address, natpmp.PORT)
        )
    except OSError:
        return None
    try:
        for wait_s in NATPMP_TRIES_S:
            transport.sendto(request)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait_s):
                    while True:
                        reply = natpmp.read_reply(await replies.received.get())
                        if reply is not None:
                            return reply
        return None
    finally:
        transport.close()


# ---------------------------------------------------------------- the mapping


async def remove_leftovers(gateway: Gateway, home: Path) -> None:
    """Remove the mappings a statki of this home made on this kind of router and could not
    remove (it crashed)."""
    for mapping in kept(home):
        if not mapping.left_behind:
            continue  # another statki of this home hosts now: its mapping is in use
        if mapping.router.startswith("natpmp:") != (gateway.via is Via.NATPMP):
            continue  # asked of another router: not this one's to remove
        with contextlib.suppress(*NoAnswer):
            await gateway.remove_leftover(mapping)
        forget(home, mapping)


class PortMapping:
    """A TCP mapping of this host's port on its router, for as long as it hosts.

    ``await open()`` asks for it and says what came of it; while it holds, a
    task renews the lease at half its length; ``await close()`` (in the
    host's ``finally``: a normal end, Ctrl-C or SIGTERM) removes it.
    """

    def __init__(self, home: Path, port: int, *, lease_s: int = LEASE_S) -> None:
        self.home = home
        self.port = port
        self.lease_s = lease_s
        self.gateway: Gateway | None = None
        self.kept: KeptMapping | None = None
        self._renewing: asyncio.Task[None] | None = None

    async def open(self, search_s: float = SEARCH_S) -> MappingOutcome:
        gateway = await find_gateway(search_s)
        if gateway is None:
            return NoRouter(search_s)
        self.gateway = gateway
        await remove_leftovers(gateway, self.home)
        try:
            grant = await self._map(gateway)
            external_ip = await gateway.external_address()
        except Declined as declined:
            await self.close()
            return declined.outcome
        except NoAnswer as error:
            await self.close()
            return Refused(gateway.name, str(error) or N_("no answer"))
        outcome = mapping_outcome(
            gateway.name, external_ip, grant.external_port, grant.lease_s, gateway.via
        )
        if isinstance(outcome, Refused):
            await self.close()
        elif grant.lease_s:
            self._renewing = asyncio.create_task(self._renew(gateway, grant))
        return outcome

    async def _map(self, gateway: Gateway) -> Grant:
        """Map the first free external port of the host's own and the next few."""
        candidates = [self.port + n for n in range(OTHER_PORTS + 1) if self.port + n < 65536]
        for number, external_port in enumerate(candidates):
            self.kept = KeptMapping(
                gateway.location, external_port, gateway.local_host, self.port, os.getpid()
            )
            keep(self.home, self.kept)  # before asking: a crash in between leaves a record
            try:
                grant = await gateway.map(external_port, self.port, self.lease_s)
            except PortTaken:
                forget(self.home, self.kept)
                self.kept = None
                if number == len(candidates) - 1:
                    raise Declined(
                        Refused(gateway.name, N_("the port is forwarded to another machine"))
                    ) from None
                continue
            except Declined:
                forget(self.home, self.kept)
                self.kept = None
                raise  # (a router that did not answer may have mapped it: the record stays)
            if grant.external_port != external_port:  # NAT-PMP's router chooses the port
                forget(self.home, self.kept)
                self.kept = KeptMapping(
                    gateway.location,
                    grant.external_port,
                    gateway.local_host,
                    self.port,
                    os.getpid(),
                )
                keep(self.home, self.kept)
            return grant
        raise AssertionError("unreachable: the last candidate returns or raises")

    async def _renew(self, gateway: Gateway, grant: Grant) -> None:
        while True:
            await asyncio.sleep(grant.lease_s / 2)
            # A router that lost the mapping (it restarted) gets it again; one that does not
            # answer now may answer at the next renewal, before the lease runs out.
            with contextlib.suppress(Declined, PortTaken, *NoAnswer):
                await gateway.map(grant.external_port, self.port, grant.lease_s)

    async def close(self) -> None:
        """Stop renewing and remove the mapping (bounded: a router gone leaves the record,
        and ``kept`` set)."""
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing
            self._renewing = None
        if self.gateway is None or self.kept is None:
            return
        with contextlib.suppress(*NoAnswer):
            await self.gateway.unmap(self.kept.external_port, self.port)
            forget(self.home, self.kept)
            self.kept = None  # left set when the router did not answer: the record stays

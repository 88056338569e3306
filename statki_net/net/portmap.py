"""Asking the home router to forward the host's port (UPnP IGD), through async-upnp-client.

The library does the talking (SSDP search, the device description, SOAP
actions); this module bounds each wait, turns the answers into the typed
outcomes of ``statki_net.net.reach``, renews the lease while hosting and
removes the mapping when hosting stops.  Each mapping is written down in the
home (``statki_net.store.portmaps``) before it is asked for, so the next
start removes one that a crash left behind.

Only IPv4 needs this: a global IPv6 address is reached without translation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from async_upnp_client.aiohttp import AiohttpRequester
from async_upnp_client.client import UpnpDevice, UpnpService
from async_upnp_client.client_factory import UpnpFactory
from async_upnp_client.exceptions import UpnpActionError, UpnpError
from async_upnp_client.search import SsdpSearchListener
from async_upnp_client.utils import CaseInsensitiveDict

from statki_net.net.reach import DoubleNat, NoRouter, Outcome, Refused, mapping_outcome
from statki_net.store.portmaps import KeptMapping, forget, keep, kept

SEARCH_S = 2.0
"""How long to wait for a router to answer the search: routers answer in milliseconds, and a
host without one should not wait long to learn it."""
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
class Router:
    """A router found on the local network, with its WAN connection service."""

    location: str
    """Where its description is (an http URL on the LAN)."""
    name: str
    connection: UpnpService
    local_host: str
    """This machine's address towards it: the internal client of a mapping."""


async def find_router(wait_s: float = SEARCH_S) -> Router | None:
    """The first Internet Gateway Device that answers an SSDP search; None within ``wait_s``."""
    location = await _search(wait_s)
    if location is None:
        return None
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
    return Router(location, name or device.friendly_name, connection, _local_host(location))


async def _search(wait_s: float) -> str | None:
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


def _local_host(location: str) -> str:
    """The address this machine sends from towards the router: choosing a route sends nothing."""
    router_host = urlsplit(location).hostname or ""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.connect((router_host, 1900))
        return str(sock.getsockname()[0])


async def _call(service: UpnpService, action: str, **arguments: Any) -> Mapping[str, Any]:
    async with asyncio.timeout(ACTION_S):
        return await service.action(action).async_call(**arguments)


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


async def external_address(router: Router) -> str | None:
    reply = await _call(router.connection, "GetExternalIPAddress")
    address = reply.get("NewExternalIPAddress")
    return str(address) if address else None


async def remove_leftovers(router: Router, home: Path) -> None:
    """Remove the mappings a statki of this home made and could not remove (it crashed).

    Only one the router still forwards to this machine under statki's name is
    removed: the port may have gone to another machine since.
    """
    for mapping in kept(home):
        if not mapping.left_behind:
            continue  # another statki of this home hosts now: its mapping is in use
        with contextlib.suppress(UpnpError, OSError, TimeoutError):
            entry = await _call(
                router.connection,
                "GetSpecificPortMappingEntry",
                NewRemoteHost="",
                NewExternalPort=mapping.external_port,
                NewProtocol="TCP",
            )
            ours = entry.get("NewInternalClient") == router.local_host
            if ours and entry.get("NewPortMappingDescription") == DESCRIPTION:
                await delete_mapping(router, mapping.external_port)
        forget(home, mapping)


async def _refusal(router: Router, error: UpnpActionError) -> Refused | DoubleNat:
    """What a router's refusal means: behind a second translation when the external address
    it reports is not a public one; else the router's own reason."""
    reason = error.error_desc or f"UPnP error {error.error_code}"
    try:
        external_ip = await external_address(router)
    except (UpnpError, OSError, TimeoutError):
        return Refused(router.name, reason)
    outcome = mapping_outcome(router.name, external_ip, 0, 0)
    if isinstance(outcome, DoubleNat):
        return outcome
    if not external_ip:  # miniupnpd, for one, says nothing when its own address is private
        reason += "; it reports no public address of its own"
    return Refused(router.name, reason)


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
        self.router: Router | None = None
        self.kept: KeptMapping | None = None
        self._renewing: asyncio.Task[None] | None = None

    async def open(self, search_s: float = SEARCH_S) -> Outcome:
        router = await find_router(search_s)
        if router is None:
            return NoRouter(search_s)
        self.router = router
        await remove_leftovers(router, self.home)
        try:
            external_port = await self._add(router)
            external_ip = await external_address(router)
        except UpnpActionError as error:
            await self.close()
            return await _refusal(router, error)
        except (UpnpError, OSError, TimeoutError) as error:
            await self.close()
            return Refused(router.name, str(error) or "no answer")
        outcome = mapping_outcome(router.name, external_ip, external_port, self.lease_s)
        if isinstance(outcome, Refused):
            await self.close()
        elif self.lease_s:
            self._renewing = asyncio.create_task(self._renew(router, external_port))
        return outcome

    async def _add(self, router: Router) -> int:
        """Map the first free external port of the host's own and the next few; the one mapped."""
        candidates = [self.port + n for n in range(OTHER_PORTS + 1) if self.port + n < 65536]
        for number, external_port in enumerate(candidates):
            self.kept = KeptMapping(
                router.location, external_port, router.local_host, self.port, os.getpid()
            )
            keep(self.home, self.kept)  # before asking: a crash in between leaves a record
            try:
                await add_mapping(router, external_port, self.port, self.lease_s)
                return external_port
            except UpnpActionError as error:
                forget(self.home, self.kept)
                self.kept = None
                if error.error_code == ONLY_PERMANENT and self.lease_s:
                    self.lease_s = 0
                    return await self._add(router)
                if error.error_code != CONFLICT or number == len(candidates) - 1:
                    raise
        raise AssertionError("unreachable: the last candidate raises")

    async def _renew(self, router: Router, external_port: int) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 2)
            # A router that lost the mapping (it restarted) gets it again; one that does not
            # answer now may answer at the next renewal, before the lease runs out.
            with contextlib.suppress(UpnpError, OSError, TimeoutError):
                await add_mapping(router, external_port, self.port, self.lease_s)

    async def close(self) -> None:
        """Stop renewing and remove the mapping (bounded: a router gone leaves the record,
        and ``kept`` set)."""
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing
            self._renewing = None
        if self.router is None or self.kept is None:
            return
        with contextlib.suppress(UpnpError, OSError, TimeoutError):
            await delete_mapping(self.router, self.kept.external_port)
            forget(self.home, self.kept)
            self.kept = None  # left set when the router did not answer: the record stays

"""Dialling an invite's addresses as "happy eyeballs" does (RFC 8305): staggered, in parallel.

The addresses are tried in ``reach.dial_order`` (the families take turns);
the first gets ``HEAD_START_S`` alone, then the next starts, and so on (a
failed attempt starts the next at once).  The first connection made wins; the
attempts still running are cancelled and any other connection that completed
meanwhile is closed before a byte is sent on it (the host's admission takes
such a connection for a guest that left, which it is).
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from statki_net.game.errors import UsageError
from statki_net.game.words import ENGLISH, N_, Phrase, Words, as_is, joined, phrase
from statki_net.net.invite import Address, format_address
from statki_net.net.reach import dial_order
from statki_net.protocol.wire import READ_SIZE

HEAD_START_S = 0.25
"""RFC 8305's "Connection Attempt Delay": long enough for a working path to answer first,
short enough that a dead one costs a person nothing they notice."""
CONNECT_TIMEOUT = 10.0
"""Seconds each address has to answer."""


@dataclass(frozen=True)
class Failure:
    address: Address
    reason: Phrase
    """The system's words (English, as they are) or "no answer", for the player."""


@dataclass(frozen=True)
class Dialled:
    """Which address of the invite answered, and what the others that were tried did."""

    address: Address
    failed: tuple[Failure, ...] = ()

    def text(self, words: Words = ENGLISH) -> str:
        said = words.gettext("connected to {address}").format(address=format_address(self.address))
        if self.failed:
            said += " (" + _failures(self.failed).in_words(words) + ")"
        return said


class DialFailed(UsageError):
    """No address of the invite answered."""

    def __init__(self, failed: Sequence[Failure]) -> None:
        super().__init__(phrase(N_("cannot connect: {why}"), why=_failures(failed)))
        self.failed = tuple(failed)


def _failures(failed: Sequence[Failure]) -> Phrase:
    said = [
        phrase("{address}: {reason}", address=format_address(f.address), reason=f.reason)
        for f in failed
    ]
    return joined(said, "; ")


Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def dial(
    addresses: Sequence[Address],
    *,
    timeout: float = CONNECT_TIMEOUT,
    head_start: float = HEAD_START_S,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, Dialled]:
    """Connect to one of ``addresses``, the first that answers; raises ``DialFailed``."""
    order = dial_order(addresses)
    if not order:
        raise DialFailed([])
    failed: dict[Address, Failure] = {}
    running: dict[asyncio.Task[Streams], Address] = {}
    waiting = list(order)
    try:
        while waiting or running:
            if waiting:
                address = waiting.pop(0)
                running[asyncio.create_task(_attempt(address, timeout))] = address
            done, _ = await asyncio.wait(
                running,
                timeout=head_start if waiting else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            for task in done:
                address = running.pop(task)
                error = task.exception()
                if error is None:
                    reader, writer = task.result()
                    tried = tuple(failed[a] for a in order if a in failed)
                    return reader, writer, Dialled(address, tried)
                failed[address] = Failure(address, _reason(error))
    finally:
        await _abandon(running)
    raise DialFailed([failed[a] for a in order if a in failed])


async def _attempt(address: Address, timeout: float) -> Streams:
    # asyncio.timeout, not wait_for: in 3.11 wait_for can lose a cancellation.
    async with asyncio.timeout(timeout):
        return await asyncio.open_connection(*address, limit=READ_SIZE)


def _reason(error: BaseException) -> Phrase:
    if isinstance(error, TimeoutError):
        return phrase(N_("no answer"))
    if isinstance(error, socket.gaierror):
        # A name the resolver does not know: its number is getaddrinfo's own, not errno's
        # (os.strerror(-2) is "Unknown error -2"); its text says it.
        return as_is(error.strerror or str(error))
    if isinstance(error, OSError):
        # asyncio's own words name the address again ("Connect call failed (...)"): the
        # system's for its number say what happened.
        return as_is(os.strerror(error.errno) if error.errno else error.strerror or str(error))
    return as_is(str(error) or type(error).__name__)


async def _abandon(running: dict[asyncio.Task[Streams], Address]) -> None:
    """Cancel the attempts still running; close any that connected before it took effect."""
    for task in running:
        task.cancel()
    for result in await asyncio.gather(*running, return_exceptions=True):
        if isinstance(result, tuple):
            result[1].close()

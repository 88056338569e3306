"""A guest's redial for its rematch keeps one deadline (review of issue 14).

A hostile host silent almost a move, then another game's hello saying ``join``,
then silent again, stretched the redial to two moves while it said one; a cap of
attempts ended a long move early while it said the whole move; and a hello under
a key that is not the last game's host's was answered with a signed ``join``.
Real TCP on loopback, a host played here byte by byte.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import rematch
from statki_net.net.clock import ScaledClock
from statki_net.net.rematch import RematchMissed, redial
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Admit, Role

WAIT = 20.0


def another_games_hello(key: Ed25519PrivateKey) -> bytes:
    """The hello of another game on the host, under ``key``, saying others may ``join``."""
    rules = ruleset_named("classic")
    rng = random.Random(5)
    session = Session(
        Role.HOST,
        key,
        name="Ala",
        entropy=rng.randbytes,
        rules=rules,
        fleet=random_fleet(rules, rng),
        admit=Admit.INVITE,
        tag=bytes(range(16)),
    )
    session.joinable = True
    session.start(0)
    return session.data_to_send()


async def redial_of(
    handle: object,
    *,
    within: float,
    host_key: bytes | None,
) -> tuple[float, RematchMissed | bytes]:
    """How long the redial took against the host ``handle`` serves, and what it met."""
    server = await asyncio.start_server(handle, "127.0.0.1", 0)  # type: ignore[arg-type]
    port = server.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        async with asyncio.timeout(WAIT):
            _, writer, said = await redial(
                [("127.0.0.1", port)],
                "Ala",
                secret=bytes(16),
                key=Ed25519PrivateKey.generate(),
                clock=ScaledClock(1),
                hello_within=within,
                host_key=host_key,
                seconds=0.1,
            )
            writer.close()
            return loop.time() - started, said
    except RematchMissed as error:
        return loop.time() - started, error
    finally:
        server.close()


def test_a_host_silent_then_elsewhere_then_silent_keeps_the_redial_to_its_deadline() -> None:
    """Silent for most of the move, then another game's hello with ``join``, then silent:
    the second wait had a whole move of its own (about twice the move in all)."""
    key = Ed25519PrivateKey.generate()
    hello = another_games_hello(key)

    async def stalling(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(1.6)
        writer.write(hello)
        await reader.read()  # silent again until the guest gives up
        writer.close()

    took, met = asyncio.run(redial_of(stalling, within=2.0, host_key=public_key_bytes(key)))
    assert isinstance(met, RematchMissed), met
    assert str(met) == "Ala did not offer the rematch within 2 s"
    assert took < 3.0, f"the redial took {took:.1f} s of a 2 s deadline"


def test_a_long_move_is_not_cut_short_by_the_cap_of_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host that closes at once: the attempts are spaced over the whole move, not spent
    before it (10 attempts of 0.01 s ended a 1 s move after about 0.1 s, saying 1 s)."""
    monkeypatch.setattr(rematch, "REDIAL_ATTEMPTS", 10)
    monkeypatch.setattr(rematch, "REDIAL_PAUSE", 0.01)
    dials: list[int] = []

    async def closing(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        dials.append(1)
        writer.close()

    took, met = asyncio.run(redial_of(closing, within=1.0, host_key=None))
    assert isinstance(met, RematchMissed), met
    assert str(met) == "Ala did not offer the rematch within 1 s"
    assert took >= 1.0, f"gave up after {took:.2f} s of a 1 s move"
    assert len(dials) <= 10


def test_a_hello_under_another_key_gets_no_join_and_goes_to_the_session() -> None:
    """Another game's hello saying ``join``, but under a key that is not the last game's
    host's: no join is signed for it; the session is handed it (and ends with wrong-key)."""
    hello = another_games_hello(Ed25519PrivateKey.generate())
    heard: list[bytes] = []

    async def stranger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(hello)
        await writer.drain()
        heard.append(await reader.read())
        writer.close()

    expected = public_key_bytes(Ed25519PrivateKey.generate())

    async def scenario() -> RematchMissed | bytes:
        _, met = await redial_of(stranger, within=2.0, host_key=expected)
        async with asyncio.timeout(WAIT):  # the stranger reads until the guest closes
            while not heard:
                await asyncio.sleep(0.01)
        return met

    met = asyncio.run(scenario())
    assert met == hello, met
    assert heard == [b""], "a join was signed for a stranger's hello"

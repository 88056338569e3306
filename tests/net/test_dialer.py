"""Happy eyeballs over real loopback TCP: the first address that answers wins, the rest close.

Across real routers (a first address that never answers) it is tested in
``test_nat.py``; here every path is loopback.
"""

from __future__ import annotations

import asyncio
import secrets

import pytest
from test_admission import HOST_KEY, RULES, SECRET

from statki_net.net.admission import Admission, Hosting, Refusal, TurnedAway
from statki_net.net.dialer import DialFailed, dial
from statki_net.net.invite import Address
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Admit, FrameReader, Hello, Role, decode_frame


async def closed_port() -> Address:
    """A loopback port nothing listens on (bound a moment ago, then let go)."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = int(server.sockets[0].getsockname()[1])
    server.close()
    await server.wait_closed()
    return ("127.0.0.1", port)


def test_a_refused_first_address_hands_over_to_the_next_at_once() -> None:
    async def scenario() -> tuple[str, float]:
        dead = await closed_port()
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.2", 0)
        alive = ("127.0.0.2", int(server.sockets[0].getsockname()[1]))
        loop = asyncio.get_running_loop()
        began = loop.time()
        try:
            _, writer, dialled = await dial([dead, alive], head_start=5.0)
            writer.close()
        finally:
            server.close()
        assert dialled.address == alive
        assert [f.address for f in dialled.failed] == [dead]
        return dialled.text(), loop.time() - began

    text, took = asyncio.run(scenario())
    assert text.startswith("connected to 127.0.0.2:") and "refused" in text.lower(), text
    assert took < 2.0, "the refusal, not the head start, started the next attempt"


def test_when_nothing_answers_every_address_is_named() -> None:
    async def scenario() -> None:
        first, second = await closed_port(), await closed_port()
        with pytest.raises(DialFailed) as failed:
            await dial([first, second])
        assert [f.address for f in failed.value.failed] == [first, second]
        assert str(failed.value).startswith("cannot connect: 127.0.0.1:")

    asyncio.run(scenario())


def test_the_losers_close_before_a_byte_and_the_host_admits_the_winner() -> None:
    """With no head start every address is dialled at once: the connections that lose close
    without a word, and the host's admission still says hello to the one that won."""

    async def scenario() -> tuple[bytes, list[TurnedAway]]:
        admission: Admission[str] = Admission()
        admission.offer("game", "game")
        admission.ready(
            "game",
            Hosting(
                lambda: Session(
                    Role.HOST,
                    HOST_KEY,
                    name="Ala",
                    entropy=secrets.token_bytes,
                    rules=RULES,
                    admit=Admit.INVITE,
                ),
                SECRET,
            ),
        )
        turned: list[TurnedAway] = []

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            decision = await admission.admit(reader, writer)
            if isinstance(decision, TurnedAway):
                turned.append(decision)

        servers = [await asyncio.start_server(on_connect, f"127.0.0.{n}", 0) for n in (1, 2, 3)]
        addresses = [
            (f"127.0.0.{n}", int(s.sockets[0].getsockname()[1]))
            for n, s in zip((1, 2, 3), servers, strict=True)
        ]
        try:
            reader, writer, _ = await dial(addresses, head_start=0.0)
            async with asyncio.timeout(5):
                data = await reader.read(65536)
            writer.close()
            for _ in range(50):  # the losers are screened out a moment after they close
                if len(turned) == len(addresses) - 1:
                    break
                await asyncio.sleep(0.1)
        finally:
            for server in servers:
                server.close()
        return data, turned

    data, turned = asyncio.run(scenario())
    [value] = FrameReader().values(data)
    assert isinstance(decode_frame(value).message, Hello)
    # Two connections from one address that each closed at once, none refused as too many.
    assert [t.reason for t in turned] == [Refusal.CLOSED, Refusal.CLOSED]

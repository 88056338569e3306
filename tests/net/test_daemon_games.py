"""The daemon in this process, on a fast clock, over real loopback TCP and its control socket.

What depends on the protocol's limits (a minute at least, SPEC.md section 7)
is tested here, where a ``ScaledClock`` waits a minute out in a fraction of
a second; ``test_daemon.py`` runs the real command.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.rules import ruleset_named
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.control import ControlClient, ControlError
from statki_net.net.daemon import Daemon
from statki_net.protocol.wire import Limits


@contextlib.asynccontextmanager
async def running_daemon(
    home: Path, *, clock: Clock = WALL_CLOCK, bot: str | None = None
) -> AsyncIterator[tuple[Daemon, ControlClient]]:
    """A daemon listening on loopback, and a control connection to it."""
    home.mkdir(mode=0o700, exist_ok=True)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.generate(),
        name="d",
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("alternate"),
        limits=Limits(60_000, 30_000),
        bot=bot,
        clock=clock,
    )
    await daemon.start()
    client = await ControlClient.connect(home)
    assert client is not None
    try:
        yield daemon, client
    finally:
        await client.close()
        await daemon.shutdown()


def test_a_move_limit_outside_specs_bounds_is_refused_in_one_line(tmp_path: Path) -> None:
    async def ask() -> list[str]:
        refusals = []
        async with running_daemon(tmp_path / "d") as (_, client):
            for move_ms in (5_000, 59_999, 86_400_001, True, 60_000.0):
                with pytest.raises(ControlError) as refused:
                    await client.request("host", rules="classic", move_ms=move_ms)
                refusals.append(str(refused.value))
            reply = await client.request("host", rules="classic", move_ms=60_000)
            assert reply["game"] == 1, "the edge itself is allowed"
        return refusals

    refusals = asyncio.run(ask())
    bounds = "move_ms must be 60000 to 86400000 (SPEC.md, section 7)"
    assert refusals == [bounds] * 3 + ["move_ms must be a whole number of milliseconds"] * 2

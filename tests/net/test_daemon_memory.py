"""A daemon's memory over many games: once warm, more games leave (almost) nothing behind.

Issue 11: a finished game keeps its summary, not its transcript, so the
daemon's memory stays flat over 10,000 games (README, "Benchmarks", has the
RSS figure from ``bench/daemon_memory.py``).  Here the same daemon, in this
process, plays short bot games over real loopback TCP, with its real log
folder, history and thinking pool, and tracemalloc counts what Python holds
after a warm-up that fills the list of finished games: the games after it
may add only a little each.  A daemon that kept a finished game's
connection, session or transcript would keep tens of KiB a game.
"""

from __future__ import annotations

import asyncio
import gc
import random
import tracemalloc
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import Ruleset, Turns
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection
from statki_net.net.daemon import Daemon
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role

SHORT = Ruleset(size=5, fleet=(2,), turns=Turns.ALTERNATE)
"""A game of a dozen shots or so: many games in a few seconds."""
KEEP = 4
"""Finished games the daemon lists: the warm-up fills the list, so it stops growing."""
WARM_UP = 8
MEASURED = 8
AT_ONCE = 8
"""Games played at once (as many as the daemon screens from one address at once)."""
BOUND = 4 * 1024 * MEASURED
"""Bytes the measured games may add in all: 4 KiB a game (about 5 KiB in all stays, noise)."""


async def guest_game(port: int, seed: int) -> End:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(seed)
    session = Session(Role.GUEST, Ed25519PrivateKey.generate(), name="g", entropy=rng.randbytes)
    conn = GameConnection(session, reader, writer, log_dir=None)
    attach_computer(conn, ComputerPlayer("random", rng), custom_rules=True)
    outcome = await conn.run()
    return outcome.ending.end


async def held_after(daemon: Daemon, port: int, seeds: range) -> int:
    """Python's traced memory once the games of ``seeds`` are over, ``AT_ONCE`` at a time."""
    ends = []
    for start in range(0, len(seeds), AT_ONCE):
        batch = seeds[start : start + AT_ONCE]
        ends += await asyncio.gather(*(guest_game(port, seed) for seed in batch))
    assert ends == [End.SUNK] * len(ends), ends
    while daemon.tasks:  # the daemon's own winding up: its log judged, its history row
        await asyncio.sleep(0.01)
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_games_after_a_warm_up_leave_almost_nothing_in_the_daemon(tmp_path: Path) -> None:
    async def run() -> tuple[int, int, Daemon]:
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        daemon = Daemon(
            home,
            Ed25519PrivateKey.generate(),
            name="d",
            listen_on=[("127.0.0.1", 0)],
            bot="random",
            rules=SHORT,
            limits=Limits(),
            keep_finished=KEEP,
        )
        await daemon.start()
        port = daemon.addresses[0][1]
        try:
            await held_after(daemon, port, range(WARM_UP))
            before = tracemalloc.get_traced_memory()[0]
            after = await held_after(daemon, port, range(WARM_UP, WARM_UP + MEASURED))
        finally:
            await daemon.shutdown()
        return before, after, daemon

    tracemalloc.start()
    try:
        before, after, daemon = asyncio.run(run())
    finally:
        tracemalloc.stop()
    assert len(list((tmp_path / "home" / "logs").iterdir())) == WARM_UP + MEASURED
    assert after - before < BOUND, f"{(after - before) / MEASURED:.0f} bytes a game stayed"
    assert len(daemon.games) == KEEP, "only the last KEEP finished games are listed"

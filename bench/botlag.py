"""Benchmark: a daemon's event loop while its computer players think.

    nice -n 19 python bench/botlag.py [--levels 1,4,16] [--strategy density]
        [--where threads,processes]

One process plays the host of N games at once, each with a ``--strategy``
computer player, as a daemon does; a second process plays their guests
(players firing at random, so that their side costs little), over loopback
TCP.  For each N and for each place the thinking is done (threads, as before,
and the daemon's worker processes, ``statki_net.net.thinking``) it prints:

- the event loop's lag: a task that asks to wake every millisecond notes how
  late it wakes (p50 and p99, in ms): the wait every game on the loop shares;
- bot-games per second: N over the wall-clock time the N games took.

On a shared machine the lag is what the other jobs leave too: each level
first measures the probe alone, with no game on the loop (5 seconds), and
the rows of one run are to be read against it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection
from statki_net.net.selfplay import MOVE_LIMIT, seeded_entropy
from statki_net.net.thinking import Thinking
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role

TICK = 0.001
"""How often the lag probe asks to wake, in seconds."""


async def play_guests(port: int, games: int, seed: int) -> None:
    """The other side of ``games`` games, all at once (in the second process)."""
    rng = random.Random(seed)

    async def one() -> None:
        session = Session(
            Role.GUEST,
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
            name="guest",
            entropy=seeded_entropy(random.Random(rng.getrandbits(64))),
            limits=MOVE_LIMIT,
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        conn = GameConnection(session, reader, writer, log_dir=None)
        attach_computer(conn, ComputerPlayer("random", random.Random(rng.getrandbits(64))))
        await conn.run()

    await asyncio.gather(*(one() for _ in range(games)))


async def host_games(
    games: int, strategy: str, thinking: Thinking, seed: int
) -> tuple[list[float], float]:
    """Host ``games`` games at once against a second process; the lag seen, and the time."""
    rng = random.Random(seed)
    rules = ruleset_named("classic")
    running: list[asyncio.Task[object]] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        player = ComputerPlayer(strategy, random.Random(rng.getrandbits(64)))
        session = Session(
            Role.HOST,
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
            name="host",
            entropy=seeded_entropy(random.Random(rng.getrandbits(64))),
            rules=rules,
            limits=MOVE_LIMIT,
            fleet=await thinking.fleet(player, rules),
        )
        conn = GameConnection(session, reader, writer, log_dir=None)
        attach_computer(conn, player, thinking=thinking)
        await conn.run()

    def track(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        running.append(asyncio.ensure_future(on_connect(reader, writer)))

    server = await asyncio.start_server(track, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        loop = asyncio.get_running_loop()
        while not done.is_set():
            asked = loop.time()
            await asyncio.sleep(TICK)
            lags.append((loop.time() - asked - TICK) * 1000)

    probing = asyncio.ensure_future(probe())
    started = time.perf_counter()
    guests = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--guests", str(port), str(games), str(seed)
    )
    await guests.wait()
    await asyncio.gather(*running)
    seconds = time.perf_counter() - started
    done.set()
    await probing
    server.close()
    return lags, seconds


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


async def idle_lags(seconds: float) -> list[float]:
    """The lag of the probe alone, no game on the loop: what the machine's other jobs
    leave a ``nice`` process (the baseline the rows beside it are read against)."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    stop = loop.time() + seconds
    while loop.time() < stop:
        asked = loop.time()
        await asyncio.sleep(TICK)
        lags.append((loop.time() - asked - TICK) * 1000)
    return lags


def lag_line(lags: list[float]) -> str:
    return f"loop lag p50 {statistics.median(lags):6.2f} ms, p99 {percentile(lags, 0.99):6.2f} ms"


async def measure(levels: list[int], strategy: str, wheres: list[str]) -> None:
    for games in levels:
        print(f"{games:3} games, no games at all    : {lag_line(await idle_lags(5.0))}")
        for where in wheres:
            thinking = Thinking.in_processes() if where == "processes" else Thinking()
            try:
                await thinking.start()  # the steady state: the workers are up
                lags, seconds = await host_games(games, strategy, thinking, seed=games)
            finally:
                thinking.close()
            print(
                f"{games:3} games, thinking in {where:9}: {lag_line(lags)}; "
                f"{games / seconds:5.2f} bot-games/s"
            )


def main() -> None:
    if sys.argv[1:2] == ["--guests"]:
        port, games, seed = map(int, sys.argv[2:5])
        asyncio.run(play_guests(port, games, seed))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,4,16", help="games at once (default 1,4,16)")
    parser.add_argument("--strategy", default="density")
    parser.add_argument(
        "--where",
        default="threads,processes",
        help="where the thinking is done (default threads,processes)",
    )
    args = parser.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores (nproc), {platform.machine()}")
    print(f"host's strategy: {args.strategy}, classic; guests fire at random, in another process")
    levels = [int(n) for n in args.levels.split(",")]
    asyncio.run(measure(levels, args.strategy, args.where.split(",")))
    load = subprocess.run(["cat", "/proc/loadavg"], capture_output=True, text=True).stdout
    print(f"load average after: {load.split()[0]}")


if __name__ == "__main__":
    main()

"""A daemon's memory over many short bot games: its resident set size as the games go by.

    nice -n 19 .venv/bin/python bench/daemon_memory.py [--games N] [--every M] [--at-once K]
        [--seconds S] [--rules RULES] [--tmp DIR]

Starts a real ``statki daemon --bot random --rules RULES`` in a fresh home,
plays N whole games against it from this process (computer guests, K at a
time, over loopback TCP; the daemon writes, judges and records each game's
log as usual), and prints the daemon's RSS (``VmRSS`` of ``/proc/PID/status``)
every M games, with the slope over the second half of the run: a daemon that
kept its finished games' transcripts would grow by tens of kilobytes a game.
With ``--seconds`` it stops starting games once that much time has passed
(on a busy machine N games may take too long).

What made a game slow here was not the daemon's keeping of it: a
``five-ships`` game is about a hundred turns, each a signed frame the daemon
puts on disk (``fdatasync``, ~5 ms on this machine's disk, bench/durability.py)
and a move its worker process thinks.  So by default the home is on a tmpfs
(``/dev/shm`` where there is one: the same syncs, at no cost) and the rules
are ``five-ships+salvo`` (a preset combination users play: a volley a turn,
about a fifth of the turns).  The daemon, its bot and its bookkeeping of each
game are as users run them.  ``--rules five-ships --tmp /tmp`` is the slower
figure of the previous session.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection
from statki_net.protocol.endings import End
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role

DAEMON = ["--bot", "random"]
SHM = Path("/dev/shm")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of ``pid`` so far (``/proc/PID/stat``, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_daemon(home: Path, rules: str) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-m", "statki_net", "daemon", "--listen", "127.0.0.1:0"]
    process = subprocess.Popen(
        [*command, *DAEMON, "--rules", rules],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ, STATKI_HOME=str(home)),
    )
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("listening on 127.0.0.1:"):
            return process, int(line.rsplit(":", 1)[1])
    raise RuntimeError("the daemon did not start")


async def one_game(port: int, seed: int) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(seed)
    session = Session(Role.GUEST, Ed25519PrivateKey.generate(), name="g", entropy=rng.randbytes)
    conn = GameConnection(session, reader, writer, log_dir=None)
    attach_computer(conn, ComputerPlayer("random", rng))
    outcome = await conn.run()
    return f"{outcome.ending.end.value} {outcome.failure_text or ''}".strip()


async def play(
    port: int, pid: int, games: int, every: int, at_once: int, seconds: float
) -> list[tuple[int, int]]:
    samples = [(0, rss_kib(pid))]
    started = time.monotonic()
    stop_at = started + seconds
    done = 0
    seeds = iter(range(games))
    ends: Counter[str] = Counter()

    async def worker() -> None:
        nonlocal done
        for seed in seeds:
            if time.monotonic() > stop_at:
                return
            ends[await one_game(port, seed)] += 1
            done += 1
            if done % every == 0:
                samples.append((done, rss_kib(pid)))
                rss = samples[-1][1] / 1024
                took = time.monotonic() - started
                print(
                    f"{done:6d} games  RSS {rss:6.1f} MiB  {took:6.0f} s"
                    f"  daemon CPU {cpu_seconds(pid):6.0f} s",
                    flush=True,
                )

    await asyncio.gather(*(worker() for _ in range(at_once)))
    assert ends[End.SUNK.value] == done, f"not every game was played out: {ends}"
    return samples


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--at-once", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=float("inf"))
    parser.add_argument("--rules", default="five-ships+salvo")
    parser.add_argument("--tmp", type=Path, default=SHM if SHM.is_dir() else None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.tmp) as folder:
        home = Path(folder) / "home"
        process, port = start_daemon(home, args.rules)
        try:
            started = time.monotonic()
            samples = asyncio.run(
                play(port, process.pid, args.games, args.every, args.at_once, args.seconds)
            )
            took = time.monotonic() - started
        finally:
            process.terminate()
            process.wait(30)
    played = samples[-1][0]
    half = [s for s in samples if s[0] >= played // 2]
    (g0, r0), (g1, r1) = half[0], half[-1]
    slope = (r1 - r0) / max(1, g1 - g0)
    print(f"{played} games in {took:.0f} s; RSS {samples[0][1] / 1024:.1f} MiB at the start,")
    print(
        f"{samples[-1][1] / 1024:.1f} MiB at the end; over the second half {slope:.2f} KiB a game"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

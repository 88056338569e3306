"""What putting each log record on disk before a message leaves costs, per game.

    .venv/bin/python bench/durability.py [--games N] [--rounds R] [--dir DIR]

Plays classic games with ``statki_net.net.selfplay`` (two sessions in this
process, real loopback TCP, both logs written and judged), in rounds that
alternate two ways of writing the logs: as statki does (``fdatasync`` before
each batch of this side's frames leaves, the file and its folder synced when
the log is made) and, for the comparison only, with those syncs turned into
no-ops (flushed to the kernel, as before).  Alternating keeps a machine whose
load changes from favouring one side.  It prints, per game: wall time, CPU
time of this process, and the syncs made; the logs go to ``DIR`` (default: a
folder under the current one, so on this machine's disk, not a tmpfs).

The players fire at the first unknown square, as in bench/games.py: the
figure is the game machinery's, not a strategy's thinking.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from games import FirstUnknown

from statki_net.game.rules import ruleset_named
from statki_net.net.selfplay import selfplay
from statki_net.store import logwriter

Sync = Callable[[int], None]


def round_of(games: int, log_dir: Path, durable: bool) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and syncs for ``games`` games, durable or not."""
    real_datasync, real_fsync = logwriter._datasync, os.fsync
    syncs = 0

    def counted(sync: Sync) -> Sync:
        def call(fd: int) -> None:
            nonlocal syncs
            syncs += 1
            if durable:
                sync(fd)

        return call

    logwriter._datasync = counted(real_datasync)
    os.fsync = counted(real_fsync)  # the folder's entries, and the log's close
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        asyncio.run(
            selfplay(ruleset_named("classic"), games, 1, log_dir=log_dir, make_player=FirstUnknown)
        )
        return time.perf_counter() - wall, time.process_time() - cpu, syncs
    finally:
        logwriter._datasync, os.fsync = real_datasync, real_fsync


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games a round (default 10)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of each kind (default 6)")
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where the logs go")
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, float, int]]] = {True: [], False: []}
    for _ in range(args.rounds):
        for durable in (False, True):
            folder = Path(tempfile.mkdtemp(prefix="statki-durability-", dir=args.dir))
            try:
                results[durable].append(round_of(args.games, folder, durable))
            finally:
                shutil.rmtree(folder)
    print(f"machine: {platform.machine()} {platform.system()}, Python {platform.python_version()}")
    print(f"classic games, {args.rounds} rounds of {args.games} of each kind, logs in {args.dir}")
    per_game: dict[bool, tuple[float, float]] = {}
    for durable, label in ((False, "flushed only"), (True, "synced (statki)")):
        rounds = results[durable]
        wall = statistics.median(r[0] for r in rounds) / args.games * 1000
        cpu = statistics.median(r[1] for r in rounds) / args.games * 1000
        syncs = statistics.median(r[2] for r in rounds) / args.games
        per_game[durable] = wall, cpu
        print(f"{label:16} wall {wall:7.1f} ms/game  CPU {cpu:7.1f} ms/game  syncs {syncs:.0f}")
    extra_wall = per_game[True][0] - per_game[False][0]
    extra_cpu = per_game[True][1] - per_game[False][1]
    print(f"cost of durability: wall {extra_wall:+.1f} ms/game, CPU {extra_cpu:+.1f} ms/game")


if __name__ == "__main__":
    main()

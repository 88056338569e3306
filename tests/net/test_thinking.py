"""Computer players thinking in worker processes: the same moves, and no process left over.

The daemon's bots think in a pool of spawned workers (``statki_net.net.thinking``).
A seeded player must draw the same moves there as in a thread, and the workers
must go with the daemon, whether it stops cleanly or is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest
from netproc import finish, line_starting, run, start, stop
from peers import make_pair, play

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.battle import Sea
from statki_net.game.rules import PRESETS
from statki_net.net.thinking import Thinking


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux's /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid ...: the name may hold spaces, so split after it.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone_within(pids: set[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_a_seeded_player_draws_the_same_moves_in_a_process_as_in_a_thread() -> None:
    pair = make_pair(PRESETS["classic"], seed=5)
    play(pair, seed=6, resign_at=12)
    view = pair.host.view
    assert view is not None

    async def moves(thinking: Thinking) -> tuple[object, ...]:
        player = ComputerPlayer("density", random.Random(7))
        try:
            await thinking.start()  # else the first moves think in a thread meanwhile
            fleet = await thinking.fleet(player, PRESETS["classic"])
            shots = [await thinking.volley(player, view, 1) for _ in range(3)]
        finally:
            thinking.close()
        # The generator comes back from the worker as the thinking left it.
        return fleet, shots, player.rng.getstate()

    in_threads = asyncio.run(moves(Thinking()))
    in_processes = asyncio.run(moves(Thinking.in_processes(1)))
    assert in_processes == in_threads
    # On the loop the player thinks in place, its generator never copied: the same moves.
    assert asyncio.run(moves(Thinking.on_the_loop())) == in_threads
    assert in_threads[2] != random.Random(7).getstate()


def test_a_move_asked_for_after_the_pool_is_closed_is_thought_in_a_thread() -> None:
    """A game still winding up when the daemon's pool has shut down still gets its move."""

    async def late_move() -> tuple[int, ...]:
        thinking = Thinking.in_processes(1)
        await thinking.start()
        thinking.close()
        player = ComputerPlayer("random", random.Random(3))
        await thinking.fleet(player, PRESETS["classic"])
        return await thinking.volley(player, Sea(PRESETS["classic"]), 1)

    [square] = asyncio.run(late_move())
    assert 0 <= square < 100


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the name, from the state (field 3) on."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def test_a_worker_thinks_below_its_loop() -> None:
    """A worker runs at a lower priority than the process whose loop it thinks for: 10
    nicer, or, where the niceness has no room, only when the cores are otherwise idle."""

    async def worker_stat() -> list[str]:
        thinking = Thinking.in_processes(1)
        try:
            await thinking.start()
            [worker] = children(os.getpid()) & _pool_pids(thinking)
            return _stat(worker)
        finally:
            thinking.close()

    stat = asyncio.run(worker_stat())
    nice, policy = int(stat[16]), int(stat[38])
    mine = int(_stat(os.getpid())[16])
    assert nice == min(19, mine + 10)
    assert (policy == os.SCHED_IDLE) == (mine + 10 > 19)


def _pool_pids(thinking: Thinking) -> set[int]:
    executor = thinking.executor
    assert executor is not None
    return set(getattr(executor, "_processes", {}))


def _bot_game_through(daemon: subprocess.Popen[str], home: Path, guest_home: Path) -> None:
    """One bot game hosted by the daemon's computer player: its workers are then started."""
    host = start(home, "host", "--bot", "random", "--rules", "classic")
    invite = line_starting(host, "statki://", [])
    joined = run(guest_home, "join", invite, "--bot", "random")
    status, _, err = finish(host)
    assert joined.returncode == 0 and status == 0, (joined.stderr, err)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_the_workers_go_when_the_daemon_stops_and_when_it_is_killed(
    tmp_path: Path, how: signal.Signals
) -> None:
    """Each way a daemon ends is a test of its own: three processes each, on both cores."""
    home, guest = tmp_path / f"{how.name}-a", tmp_path / f"{how.name}-b"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0")
    workers: set[int] = set()
    try:
        line_starting(daemon, "control socket", [])
        _bot_game_through(daemon, home, guest)
        workers = children(daemon.pid)
        assert workers, "the bot thought in worker processes"
        os.kill(daemon.pid, how)
        assert gone_within(workers, 5.0), f"left over after {how.name}"
        # Its output closes only when every process holding it is gone.
        daemon.communicate(timeout=10)
        if how is signal.SIGTERM:
            assert daemon.returncode == 0
    finally:
        for pid in workers:  # whatever a failure left behind
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        stop(daemon)

"""Where computer players think: in worker processes, off the event loop and its GIL.

A strong strategy spends tens of milliseconds of CPU on a move.  In a thread
it still holds the interpreter's lock, so every game on the event loop waits
for it; in a worker process it does not, and the machine's cores share the
thinking.  ``Thinking.in_processes`` is a pool sized to the cores (the
daemon's); ``Thinking()`` thinks in the event loop's default thread pool, as a
single game in a terminal needs nothing more.

The player travels to the worker by value: its generator comes back with the
state the thinking left it in, so a seeded player draws the same moves in a
process as in a thread.  That lets the pool start its workers at the first
move without making anyone wait for them: until one is up (a fresh
interpreter, a fraction of a second) the thinking is done in a thread.

``Thinking.on_the_loop()`` thinks in the caller, for a process whose only
games are between its own computer players (``selfplay``): there the other
side waits for the move anyway, and a thread would only add its hand-over (a
queue, a wake-up of the loop) to every move.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor
from typing import Any, TypeVar

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.battle import Sea
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset


def unpredictable() -> random.Random:
    """A generator nobody can foretell, fast enough for the computer's placements.

    ``random.SystemRandom`` asks the kernel at every draw: a hard placement (400
    fleets of thousands of draws) froze the screen for 10-25 s after Enter.  A
    Mersenne Twister seeded from 256 bits of the kernel's entropy draws five
    to ten times faster and is as unforeseeable to an opponent at a board.
    """
    return random.Random(secrets.randbits(256))


T = TypeVar("T")
RandomState = tuple[Any, ...]


def _volley(player: ComputerPlayer, view: Sea, count: int) -> tuple[tuple[int, ...], RandomState]:
    return player.volley(view, count), player.rng.getstate()


def _fleet(player: ComputerPlayer, rules: Ruleset) -> tuple[Fleet, RandomState]:
    return player.fleet(rules), player.rng.getstate()


ORPHAN_CHECK = 0.25
"""Seconds between a worker's looks at whether the process that started it is gone."""


WORKER_NICENESS = 10
"""How far below the daemon its workers run: thinking is work to fill the cores with,
the loop's wait is every game's."""


def _start_worker(parent: int) -> None:
    """Import the strategies (a first move should not pay for it), yield to the loop,
    and watch the parent.

    A worker of a pool blocks on its queue, whose pipe it holds both ends of, so
    it would outlive a daemon that was killed.  When its parent (the daemon, by
    its pid: it may have gone before this worker got this far) is gone, so is
    the worker.
    """
    import statki_net.ai.strategies  # noqa: F401

    _yield_to_the_loop()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def _yield_to_the_loop() -> None:
    """Run this worker below the daemon, so that the daemon's loop, woken by a frame
    or a timer, gets a core at once instead of waiting for a thinking worker's turn.

    ``WORKER_NICENESS`` below it; where the daemon runs so low already that the
    niceness has no room (it stops at 19), the worker thinks only when the cores
    are otherwise idle (Linux's ``SCHED_IDLE``).  Where neither can be had, as it is.
    """
    with contextlib.suppress(OSError):
        before = os.nice(0)
        if os.nice(WORKER_NICENESS) - before < WORKER_NICENESS and hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _ready() -> None:
    """Nothing: a worker that has run it is up."""


class Thinking:
    """Runs computer players' thinking somewhere other than the event loop."""

    def __init__(
        self, executor: Executor | None = None, workers: int = 1, *, on_the_loop: bool = False
    ) -> None:
        self.executor = executor
        """None: the event loop's default thread pool."""
        self.workers = workers
        self.here = on_the_loop
        """Think in the caller, on the event loop: nothing else waits on it."""
        self._starting: list[Future[None]] = []
        """One no-op a worker, submitted at the first move: each makes the pool start one."""
        self._closed = False

    @classmethod
    def in_processes(cls, workers: int | None = None) -> Thinking:
        """A pool of ``workers`` processes (default: one a core), started as they are needed.

        Spawned, not forked: the daemon has threads of its own, which a fork would
        copy mid-step.  A spawned worker is the daemon's own child, so it sees the
        daemon go, however it goes (``_start_worker``).
        """
        context = multiprocessing.get_context("spawn")
        count = workers or os.cpu_count() or 1
        pool = ProcessPoolExecutor(
            max_workers=count,
            mp_context=context,
            initializer=_start_worker,
            initargs=(os.getpid(),),
        )
        return cls(pool, count)

    @classmethod
    def on_the_loop(cls) -> Thinking:
        """Thinking in the caller, for a loop whose every game is its own computer players'."""
        return cls(on_the_loop=True)

    async def volley(self, player: ComputerPlayer, view: Sea, count: int) -> tuple[int, ...]:
        if self.here:
            # The player thinks in place: its generator's state need not travel (a copy of
            # 625 numbers out and back at every move).
            return player.volley(view, count)
        shots, state = await self._run(_volley, player, view, count)
        player.rng.setstate(state)
        return shots

    async def fleet(self, player: ComputerPlayer, rules: Ruleset) -> Fleet:
        fleet, state = await self._run(_fleet, player, rules)
        player.rng.setstate(state)
        return fleet

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        if self.here:
            return work(*args)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._where(), work, *args)
        except BrokenExecutor:  # a worker died (killed, out of memory): think here instead
            return await loop.run_in_executor(None, work, *args)

    async def start(self) -> None:
        """Start the workers now, and wait until they are up (a bench's steady state)."""
        self._where()
        await asyncio.gather(*(asyncio.wrap_future(f) for f in self._starting))

    def _where(self) -> Executor | None:
        """The pool once a worker is up; a thread until then, starting the workers."""
        if self.executor is None or self._closed:
            return None  # closed: a move asked for after the daemon's shutdown, in a thread
        if not self._starting:
            self._starting = [self.executor.submit(_ready) for _ in range(self.workers)]
        return self.executor if any(f.done() for f in self._starting) else None

    def close(self) -> None:
        """Stop the workers: what is queued is dropped, what runs is waited for (a move)."""
        self._closed = True
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)

"""The shell's one clock: what time it is, and how long the event loop waits for a moment.

The protocol core never reads a clock: every call takes ``now`` (ms since
1970).  The connection driver reads it from a ``Clock`` and sets its one
timer from it, so the clock is all a game's time comes from: the ``at`` of
every message it signs, how long it waited, when it claims on time.

``WallClock`` is the real one.  ``ScaledClock`` runs a given number of times
faster than real time, from the real time it was made at: a game played on
it over real TCP is a real game in every way but its pace, so a test can
wait out the protocol's minute-long limits (SPEC.md, section 7) in a tenth
of a second without any limit being lowered.  Both peers of such a game must
share one clock, as two real peers share real time.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Time for one side of a game: read in ms, and turned into a wait of the loop."""

    def now(self) -> int:
        """The time now, in ms since 1970 (what messages' ``at`` say)."""
        ...

    def delay(self, due: int) -> float:
        """The seconds the event loop must wait until this clock reads ``due``; 0 if past."""
        ...


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class WallClock:
    """Real time."""

    def now(self) -> int:
        return _wall_ms()

    def delay(self, due: int) -> float:
        return max(0.0, (due - self.now()) / 1000)


class ScaledClock:
    """Time that runs ``speed`` times faster than real time, from the moment it was made."""

    def __init__(self, speed: float, *, start: int | None = None) -> None:
        if speed <= 0:
            raise ValueError("a clock runs forward")
        self.speed = speed
        self.start = _wall_ms() if start is None else start
        """What the clock read when it was made, in ms since 1970."""
        self._origin = time.monotonic()

    def now(self) -> int:
        elapsed = time.monotonic() - self._origin
        return self.start + int(elapsed * self.speed * 1000)

    def delay(self, due: int) -> float:
        return max(0.0, (due - self.now()) / 1000 / self.speed)


WALL_CLOCK = WallClock()

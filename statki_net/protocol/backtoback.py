"""Two sessions wired back to back in memory: a whole game with no transport.

What one side sends is what the other receives, at once and unchanged.  The
clock is passed in and ticks one millisecond a delivery, so a game played this
way is the same every time: the tests play games so, and so are the logs of
``protocol/`` made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statki_net.protocol.session import Event, Session
from statki_net.protocol.wire import Role


def _no_events() -> dict[Role, list[Event]]:
    return {Role.HOST: [], Role.GUEST: []}


@dataclass
class BackToBack:
    """A host's and a guest's session, each reading what the other writes."""

    host: Session
    guest: Session
    now: int
    """The time both sides are given, in ms; each delivery moves it on by one."""
    events: dict[Role, list[Event]] = field(default_factory=_no_events)
    """Everything each side reported, in order (``record`` adds a call's own events)."""

    def session(self, role: Role) -> Session:
        return self.host if role is Role.HOST else self.guest

    def record(self, role: Role, events: list[Event]) -> None:
        """Keep the events a call on ``role``'s session returned."""
        self.events[role] += events

    def pump(self) -> None:
        """Deliver bytes both ways, the host's first, until both sides are quiet."""
        moved = True
        while moved:
            moved = False
            for sender in (self.host, self.guest):
                data = sender.data_to_send()
                if data:
                    moved = True
                    receiver = self.session(sender.role.other)
                    self.now += 1
                    self.record(receiver.role, receiver.receive_data(data, self.now))

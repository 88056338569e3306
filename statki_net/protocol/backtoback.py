"""Two sessions wired back to back in memory: a whole game with no transport.

What one side sends is what the other receives, at once and unchanged.  The
clock is passed in and ticks one millisecond a delivery, so a game played this
way is the same every time: the tests play games so, and so are the logs of
``protocol/`` made.

A side whose game is over, or whose connection is lost, hangs up, as a real
peer closes its socket: once its last bytes are delivered, the other side is
told its connection is lost (``Session.connection_lost``) and goes on alone.
``cut`` drops the connection under both; ``rejoin`` carries the game on over a
new one (the resume handshake); ``wait_out`` moves the clock to the next
deadline, as a waiting side's timer would.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statki_net.protocol.events import Event
from statki_net.protocol.resume import ResumeFrame
from statki_net.protocol.session import Session
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
        """Deliver bytes both ways, the host's first, until both sides are quiet; then
        a side that hung up leaves the other alone."""
        while True:
            moved = False
            for sender in (self.host, self.guest):
                data = sender.data_to_send()
                if data:
                    moved = True
                    receiver = self.session(sender.role.other)
                    self.now += 1
                    self.record(receiver.role, receiver.receive_data(data, self.now))
            if moved:
                continue
            hung_up = [s for s in (self.host, self.guest) if not s.connected]
            left = [self.session(s.role.other) for s in hung_up]
            left = [s for s in left if s.connected]
            if not left:
                return
            for side in left:
                self.record(side.role, side.connection_lost(self.now, "the peer hung up"))

    def cut(self) -> None:
        """The connection drops under both sides at once."""
        for side in (self.host, self.guest):
            self.record(side.role, side.connection_lost(self.now, "the connection dropped"))

    def rejoin(self, nonce: bytes) -> tuple[ResumeFrame, ResumeFrame]:
        """A new connection, whose host hello had ``nonce``, carries the game on: the guest's
        resume, the host's, then each sends what the other lacks.  The two resumes, the
        guest's first."""
        asked = self.guest.resume_frame(nonce, self.now)
        self.host.check_resume(asked, nonce)
        answered = self.host.resume_frame(nonce, self.now)
        self.guest.check_resume(answered, nonce)
        self.record(Role.HOST, self.host.resume(asked.resume, self.now))
        self.record(Role.GUEST, self.guest.resume(answered.resume, self.now))
        self.pump()
        return asked, answered

    def wait_out(self) -> bool:
        """Move the clock to the earliest deadline of a side still playing, and let that side
        act on it (``check_time``); False when no side is waiting on anything."""
        waiting = [(s.deadline(), s) for s in (self.host, self.guest) if s.deadline() is not None]
        if not waiting:
            return False
        due, side = min(waiting, key=lambda pair: (pair[0] or 0, pair[1].role.value))
        assert due is not None
        self.now = max(self.now, due)
        self.record(side.role, side.check_time(self.now))
        self.pump()
        return True

"""Players' talk: lines said across the desk, outside the game (SPEC.md section 6, "say").

A ``say`` is no message of the game.  It has no place in the hash chain, so
however lines interleave with the game's messages, the transcript, its
ending and every verdict stay what they would have been in silence.  It is
signed under a label of its own and bound to the game id, so it cannot pass
for a message, nor be replayed into another game; its sender numbers its
lines (``n``), so none can be replayed within the game either.

Talk is bounded (``protocol.bounds``): a line's length and characters, a
rate and a total per game.  A line that breaks a bound, or that is not the
peer's at all, is dropped: never answered, never blamed on anyone, and the
connection and the game go on.  Only the first few drops are noted in the
log; the rest are counted, so a flood can neither stall the game (a line
over the rate costs no signature check) nor bloat the log.

This module is pure: ``Talk`` keeps one side's counts and windows, checks
the peer's lines (``hear``) and composes this side's (``compose``); the
session signs and sends.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from statki_net.game.errors import UsageError
from statki_net.protocol.bounds import (
    HEARD_RATE,
    MAX_SAY_BODY,
    MAX_SAYS,
    MAX_TALK_NOTES,
    SAY_RATE,
    SAY_WINDOW_MS,
    talk_problem,
)
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.wire import Role, Say, SayFrame, say_signature_valid

# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class TalkHeard:
    """The peer said a line, and it passed every check: log it as a talk record, show it
    (unless this side's player muted the peer: muting is the front end's, not the log's)."""

    frame: SayFrame

    @property
    def say(self) -> Say:
        return self.frame.say


@dataclass(frozen=True)
class TalkSaid:
    """This side said a line: it is on its way; log it as a talk record."""

    frame: SayFrame

    @property
    def say(self) -> Say:
        return self.frame.say


@dataclass(frozen=True)
class TalkDropped:
    """A line the receiver dropped, and why: nothing is answered, the game goes on."""

    code: Code
    """``too-large``, ``bad-field``, ``out-of-turn``, ``bad-chain``, ``too-fast`` or
    ``bad-signature``: which check of SPEC.md's failed."""
    detail: str
    at: int
    """This side's clock when it came."""
    data: bytes = b""
    """The line's bytes, when it had some (at most ``MAX_SAY_BODY`` and a signature)."""
    noted: bool = True
    """One of the first ``MAX_TALK_NOTES`` drops of the game: note it in the log."""


class TalkRefused(UsageError):
    """This side may not say that now: ``code`` says which bound (the peer would drop it)."""

    def __init__(self, code: Code, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


# ---------------------------------------------------------------- one side's talk


class _Window:
    """Times of the lines counted in the last ``SAY_WINDOW_MS``, and all of them."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.times: deque[int] = deque()
        self.total = 0

    def full(self, now: int) -> bool:
        while self.times and self.times[0] <= now - SAY_WINDOW_MS:
            self.times.popleft()
        return len(self.times) >= self.rate or self.total >= MAX_SAYS

    def count(self, now: int) -> None:
        self.times.append(now)
        self.total += 1


class Talk:
    """One side's talk in one game: the peer's lines checked, this side's composed."""

    def __init__(self, role: Role, *, said: int = 0) -> None:
        self.role = role
        self._heard = _Window(HEARD_RATE)
        self._said = _Window(SAY_RATE)
        self._last_heard: int | None = None
        """The ``n`` of the peer's last line taken: a later one must be above it."""
        self._next = said
        """The ``n`` of this side's next line: after a restart, the count its log holds."""
        self.dropped: Counter[Code] = Counter()
        """Lines dropped in this game, by why."""

    def drop(self, code: Code, detail: str, now: int, data: bytes = b"") -> TalkDropped:
        """Count a dropped line; only the first few are noted in the log."""
        self.dropped[code] += 1
        noted = sum(self.dropped.values()) <= MAX_TALK_NOTES
        return TalkDropped(code, detail, now, data[: MAX_SAY_BODY + 80], noted)

    def unreadable(self, error: ProtocolError, size: int, now: int) -> TalkDropped:
        """A say whose fields are wrong (checks 1 and 2): too large first, else ``bad-field``."""
        if size > MAX_SAY_BODY:
            return self.drop(Code.TOO_LARGE, f"a say over {MAX_SAY_BODY} bytes", now)
        return self.drop(error.code, f"a say with {error.detail}", now)

    def hear(
        self, frame: SayFrame, *, game: bytes | None, key: bytes | None, now: int
    ) -> TalkHeard | TalkDropped:
        """The peer's line through SPEC.md's checks, in order; ``game`` and ``key`` are
        this game's id and the peer's key, None while the game has no id."""
        say = frame.say
        data = frame.encode()
        if len(frame.body) > MAX_SAY_BODY:
            return self.drop(Code.TOO_LARGE, f"a say over {MAX_SAY_BODY} bytes", now, data)
        if say.sender is self.role:
            return self.drop(Code.OUT_OF_TURN, "a say in this side's own name", now, data)
        if game is None or key is None:
            return self.drop(Code.OUT_OF_TURN, "a say before the game has an id", now, data)
        if say.game != game:
            return self.drop(Code.BAD_CHAIN, "a say of another game", now, data)
        if self._heard.full(now):
            # Before the signature: a flood costs no more than the rate's checks.
            return self.drop(Code.TOO_FAST, "a say over the rate or the game's total", now, data)
        self._heard.count(now)
        if not say_signature_valid(key, frame):
            return self.drop(Code.BAD_SIGNATURE, "a say whose signature does not verify", now, data)
        if self._last_heard is not None and say.n <= self._last_heard:
            return self.drop(Code.BAD_CHAIN, f"say {say.n} again, or out of order", now, data)
        problem = talk_problem(say.text)
        if problem is not None:
            return self.drop(Code.BAD_FIELD, f"a say with {problem}", now, data)
        self._last_heard = say.n
        return TalkHeard(frame)

    def compose(self, text: str, *, game: bytes | None, seen: int, now: int) -> Say:
        """This side's next line, within the bounds the peer checks; raises ``TalkRefused``.
        It counts once composed: the session signs and sends it at once."""
        if game is None:
            raise TalkRefused(Code.OUT_OF_TURN, "there is nobody to talk to yet")
        problem = talk_problem(text)
        if problem is not None:
            raise TalkRefused(Code.BAD_FIELD, f"cannot say that: {problem}")
        if self._said.full(now):
            raise TalkRefused(
                Code.TOO_FAST,
                f"at most {SAY_RATE} lines in {SAY_WINDOW_MS // 1000} s, {MAX_SAYS} a game",
            )
        self._said.count(now)
        say = Say(self.role, game, self._next, seen, now, text)
        self._next += 1
        return say

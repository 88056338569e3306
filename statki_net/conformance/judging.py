"""What the implementation did, against what its case expects: pass, fail, or information.

The runner records an ``Observation`` (the frames the implementation sent
after the suite's act, whether it closed, the verdict it signed, the game's
ending as the suite's own transcript has it, its log as our referee judges
it); ``judge`` compares it with the case's ``Expectation``.  Each check that
fails says why in one line; a case whose SPEC text is a MAY is reported as
information whatever is seen.  Pure.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from statki_net.conformance.cases import Case, Kind, Side
from statki_net.protocol.endings import End, Ending, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.wire import Role


class Outcome(enum.StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INFO = "info"
    """A MAY: what was seen is reported, never counted as a failure."""


@dataclass(frozen=True)
class Seen:
    """One thing the implementation sent after the suite's act."""

    type: str | None
    """The message type, as it named it; None for bytes that were no frame."""
    seq: int | None = None
    code: str = ""
    """An ``error``'s code, as written."""
    winner: str | None = None
    """A ``verdict``'s winner."""
    end: str = ""
    """A ``verdict``'s end."""
    waited_ms: int | None = None
    """A ``timeout`` claim's wait."""

    def words(self) -> str:
        if self.type is None:
            return "bytes that are no frame"
        if self.type == "error":
            return f"error {self.code} (message {self.seq})"
        if self.type == "verdict":
            return f"verdict {self.end}, winner {self.winner or 'nobody'}"
        if self.type == "timeout":
            return f"timeout claim of {self.waited_ms} ms"
        return f"{self.type} (message {self.seq})"


@dataclass(frozen=True)
class LogSeen:
    """The implementation's log, as our referee judged it."""

    ending: Ending | None
    standing: Standing
    reason: str = ""


@dataclass(frozen=True)
class Observation:
    reached: bool = False
    """The suite came to the case's moment and acted."""
    place: int | None = None
    """The seq of the suite's injected frame: where an ``error`` answering it belongs."""
    sent: tuple[Seen, ...] = ()
    """What the implementation sent after the act (or, in a game played out, its errors)."""
    closed: bool = False
    """It closed the connection within the wait."""
    verdict: Seen | None = None
    """The verdict it signed, in a game that reached the verdicts."""
    ending: Ending | None = None
    """How the game ended by the suite's own transcript."""
    log: LogSeen | None = None
    """None when the driver gave no log."""
    seconds: float = 0.0
    problem: str = ""
    """Why the suite could not play the case as planned (no invite, no connection, ...)."""
    notes: tuple[str, ...] = ()
    """Further findings of the runner about the implementation (a guest's proof)."""


@dataclass(frozen=True)
class Result:
    case: Case
    outcome: Outcome
    expected: str
    observed: str
    reasons: tuple[str, ...] = ()
    """Why it failed (or, for information, what differs from the common choice)."""
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())


def _role(side: Side, case: Case, played: Ending | None) -> Role | None:
    match side:
        case Side.IMPLEMENTATION:
            return case.implementation
        case Side.SUITE:
            return case.suite
        case Side.NOBODY:
            return None
        case Side.AS_PLAYED:
            return played.winner if played else None


def _end(case: Case, played: Ending | None) -> End | None:
    return case.expect.end or (played.end if played else None)


def _who(role: Role | None, case: Case) -> str:
    if role is None:
        return "nobody"
    return f"{role.value} ({'the implementation' if role is case.implementation else 'the suite'})"


def expected_words(case: Case, played: Ending | None = None) -> str:
    expect = case.expect
    match expect.kind:
        case Kind.REFUSES:
            assert expect.code is not None
            words = f"error {expect.code.value} at the refused frame's place, then close"
        case Kind.IGNORES:
            words = "nothing sent (no error: not the peer's word); the connection closed"
        case Kind.ENDS:
            words = "nothing more sent; the connection closed"
        case Kind.FINISHES:
            end, winner = _end(case, played), _role(expect.winner, case, played)
            shown = end.value if end else "as played"
            words = f"the game played out; verdict {shown}, winner {_who(winner, case)}"
        case Kind.CLAIMS:
            words = "a timeout claim of at least the move limit"
    if expect.end is not None and expect.kind is not Kind.FINISHES:
        winner = _role(expect.winner, case, played)
        words += f"; its log: {expect.end.value}, winner {_who(winner, case)}"
    return words


def observed_words(seen: Observation) -> str:
    if not seen.reached:
        return f"the case did not run: {seen.problem or 'its moment never came'}"
    parts = [", ".join(s.words() for s in seen.sent) or "nothing sent"]
    if seen.verdict is not None:
        parts.append(seen.verdict.words())
    parts.append("closed" if seen.closed else "still open")
    if seen.log is not None:
        ending = seen.log.ending
        said = f"{ending.end.value}, winner {ending.winner or 'nobody'}" if ending else "no ending"
        parts.append(f"its log: {said} ({seen.log.standing.value})")
    if seen.problem:
        parts.append(seen.problem)
    return "; ".join(parts)


def _checks(case: Case, seen: Observation) -> list[str]:
    """Every way ``seen`` falls short of the case's expectation; empty when it does not."""
    expect = case.expect
    wrong = list(seen.notes)
    if not seen.reached:
        return [seen.problem or "the suite never came to the case's moment"]
    errors = [s for s in seen.sent if s.type == "error"]
    match expect.kind:
        case Kind.REFUSES:
            first = seen.sent[0] if seen.sent else None
            assert expect.code is not None
            if first is None or first.type != "error":
                wrong.append(f"no error {expect.code.value} came back")
            elif Code.of(first.code) is not expect.code:
                wrong.append(f"error {first.code} instead of {expect.code.value}")
            elif seen.place is not None and first.seq != seen.place:
                wrong.append(
                    f"the error is message {first.seq}, not {seen.place}, the refused one's"
                )
            if len(seen.sent) > 1:
                wrong.append("it sent more after its error")
        case Kind.IGNORES | Kind.ENDS:
            if errors:
                wrong.append(f"it answered with error {errors[0].code}")
            elif seen.sent:
                wrong.append(f"it sent {seen.sent[0].words()}")
        case Kind.FINISHES:
            if errors:
                wrong.append(f"it stopped the game with error {errors[0].code}")
            if seen.verdict is None:
                wrong.append("it signed no verdict")
            else:
                end = _end(case, seen.ending)
                winner = _role(expect.winner, case, seen.ending)
                if end is not None and seen.verdict.end != end.value:
                    wrong.append(f"its verdict says {seen.verdict.end}, not {end.value}")
                if seen.verdict.winner != (winner.value if winner else None):
                    wrong.append(
                        f"its verdict names {seen.verdict.winner or 'nobody'}"
                        f" the winner, not {_who(winner, case)}"
                    )
        case Kind.CLAIMS:
            claims = [s for s in seen.sent if s.type == "timeout"]
            if not claims:
                wrong.append("it made no time claim")
    if not seen.closed and expect.kind is not Kind.CLAIMS:
        wrong.append("it did not close the connection")
    wrong += _log_checks(case, seen)
    return wrong


def _log_checks(case: Case, seen: Observation) -> list[str]:
    if seen.log is None or (case.expect.end is None and case.expect.kind is not Kind.FINISHES):
        return []
    end = _end(case, seen.ending)
    winner = _role(case.expect.winner, case, seen.ending)
    ending = seen.log.ending
    if end is None:
        return []
    if ending is None:
        return [f"its log holds no ending ({seen.log.standing.value}: {seen.log.reason})"]
    wrong = []
    if ending.end is not end:
        wrong.append(f"its log ends {ending.end.value}, not {end.value}")
    if ending.winner is not winner:
        wrong.append(
            f"its log names {_who(ending.winner, case)} the winner, not {_who(winner, case)}"
        )
    if ending.blames(case.implementation) and winner is not case.suite and end is not End.NO_GAME:
        wrong.append("its log blames the implementation itself")
    return wrong


def judge(case: Case, seen: Observation) -> Result:
    reasons = tuple(_checks(case, seen))
    # A MAY leaves the behaviour open: it is reported, never counted against anyone.
    outcome = Outcome.INFO if case.may else Outcome.FAIL if reasons else Outcome.PASS
    return Result(
        case,
        outcome,
        expected_words(case, seen.ending),
        observed_words(seen),
        reasons,
        seen.seconds,
    )

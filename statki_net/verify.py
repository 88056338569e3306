"""The referee: judge a game log with nothing else at hand.

``judge_log(data)`` replays every frame through the same ``Transcript`` the
peers use, so a referee applies exactly the rules the players did: the
signature and place in the hash chain of each message, the turn order, every
proof carried by an answer, both reveals against their commitments, each
fleet's legality and every answer against the revealed fleet.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from .errors import ProtocolError
from .gamelog import LogContents, read_log
from .rules import preset_name
from .transcript import End, Finding, Phase, Transcript
from .wire import Code, Role, decode_frame

VALID, INVALID = "valid", "invalid"

CODE_KINDS = {
    Code.BAD_SIGNATURE.value: "bad-signature",
    Code.BAD_CHAIN.value: "broken-chain",
    Code.OUT_OF_TURN.value: "out-of-turn",
}


def fingerprint(public_key: bytes) -> str:
    """A key as a person compares it: 20 hex digits of its SHA-256, in fives."""
    digest = hashlib.sha256(public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 5] for i in range(0, 20, 5))


@dataclass(frozen=True)
class Violation:
    kind: str
    """bad-signature, broken-chain, out-of-turn, malformed, false-answer, bad-reveal,
    illegal-fleet, missing-reveal, timeout, unfinished, aborted, damaged."""
    detail: str
    culprit: Role | None = None
    move: int | None = None
    square: int | None = None


@dataclass
class Judgement:
    """A referee's verdict on one log."""

    status: str = INVALID
    winner: Role | None = None
    end: str | None = None
    rules: str | None = None
    players: dict[Role, dict[str, str]] = field(default_factory=dict)
    shots: dict[Role, int] = field(default_factory=dict)
    messages: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.status == VALID

    def player(self, role: Role | None) -> str:
        if role is None:
            return "nobody"
        info = self.players.get(role, {})
        name = info.get("name") or role.value
        return f"{name} ({role.value})"

    def headline(self) -> str:
        """One line a person reads at a glance."""
        if self.valid:
            host, guest = self.shots.get(Role.HOST, 0), self.shots.get(Role.GUEST, 0)
            how = "sank the whole fleet" if self.end == End.SUNK else "won, the other side resigned"
            return (
                f"valid: {self.player(self.winner)} {how}; {self.rules}; "
                f"shots host {host}, guest {guest}"
            )
        first = self.violations[0] if self.violations else Violation("unknown", "no verdict")
        more = f" (+{len(self.violations) - 1} more)" if len(self.violations) > 1 else ""
        who = f"{self.player(first.culprit)}: " if first.culprit else ""
        return f"INVALID {first.kind}: {who}{first.detail}{more}"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "winner": self.winner.value if self.winner else None,
            "end": self.end,
            "rules": self.rules,
            "players": {role.value: info for role, info in self.players.items()},
            "shots": {role.value: n for role, n in self.shots.items()},
            "messages": self.messages,
            "violations": [
                {
                    "kind": v.kind,
                    "detail": v.detail,
                    "culprit": v.culprit.value if v.culprit else None,
                    "move": v.move,
                    "square": v.square,
                }
                for v in self.violations
            ],
        }


def judge_log(data: bytes) -> Judgement:
    """Judge a log file's bytes; raises NotALog only when it is not a statki log."""
    return judge(read_log(data))


def judge(contents: LogContents) -> Judgement:
    transcript, judgement = Transcript(), Judgement()
    for index, (body, signature) in enumerate(contents.frames):
        try:
            transcript.add(decode_frame([body, signature]))
        except ProtocolError as error:
            kind = CODE_KINDS.get(error.code, "malformed")
            judgement.violations.append(
                Violation(kind, f"message {index}: {error.detail}", _claimed_sender(body))
            )
            break
    _describe(transcript, judgement)
    if contents.damage and not judgement.violations:
        judgement.violations.append(Violation("damaged", contents.damage))
    judgement.violations += _ending_violations(transcript)
    if not judgement.violations:
        judgement.status = VALID
    return judgement


def _claimed_sender(body: bytes) -> Role | None:
    try:
        return decode_frame([body, bytes(64)]).header.sender
    except ProtocolError:
        return None


def _describe(transcript: Transcript, judgement: Judgement) -> None:
    judgement.messages = len(transcript.frames)
    judgement.winner, judgement.end = transcript.winner, transcript.end
    if transcript.rules is not None:
        judgement.rules = preset_name(transcript.rules) or "custom rules"
    for role in Role:
        hello = transcript.sides[role].hello
        if hello is not None:
            judgement.players[role] = {
                "name": hello.name,
                "key": fingerprint(hello.key),
                "software": hello.software,
            }
        judgement.shots[role] = transcript.shots_by(role)


def _ending_violations(t: Transcript) -> list[Violation]:
    found = [_from_finding(f) for f in t.findings]
    if t.error is not None:
        found.append(Violation("aborted", f"{t.error.code}: {t.error.detail}", t.error_from))
    if t.end is End.TIMEOUT:
        assert t.frames
        claimant = t.frames[-1].header.sender
        found.append(Violation("timeout", f"{claimant} claimed the win on time", claimant.other))
    elif t.end is End.REFUSED:
        found.append(Violation("unfinished", "the guest refused the rules; no game was played"))
    elif not t.over and not found:
        speaker = t.speaker()
        kind = (
            "missing-reveal"
            if t.phase in (Phase.FIRST_REVEAL, Phase.SECOND_REVEAL)
            else "unfinished"
        )
        found.append(
            Violation(kind, f"the log stops at {t.phase}: {speaker} never answered", speaker)
        )
    return found


def _from_finding(finding: Finding) -> Violation:
    return Violation(finding.kind, finding.detail, finding.culprit, finding.move, finding.square)

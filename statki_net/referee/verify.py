"""The referee: judge a game log with nothing else at hand.

``judge_log(data)`` replays every frame through the same ``Transcript`` the
peers use, so a referee applies exactly the rules the players did: the
signature and place in the hash chain of each message, the turn order, every
proof carried by an answer, both reveals against their commitments, each
fleet's legality and every answer against the revealed fleet.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from statki_net.game.board import square_name
from statki_net.game.errors import UsageError
from statki_net.game.rules import preset_name
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.logformat import LogContents, read_log
from statki_net.protocol.phases import may_say
from statki_net.protocol.transcript import Finding, FindingKind, Transcript
from statki_net.protocol.wire import Coin, Frame, Hello, Reveal, Role, decode_frame

VALID, INVALID = "valid", "invalid"

CODE_KINDS = {
    Code.BAD_SIGNATURE: "bad-signature",
    Code.BAD_CHAIN: "broken-chain",
    Code.OUT_OF_TURN: "out-of-turn",
    Code.BAD_SHOT: "bad-shot",
    Code.BAD_ANSWER: "bad-answer",
    Code.VERSION: "unsupported-version",
}
"""Violation kinds for a frame the transcript refuses, by the protocol error's code."""

FINDING_KINDS = {FindingKind.BAD_REVEAL: "commitment-mismatch"}
"""Violation kinds for the transcript's findings, where the referee's word differs."""

UNSIGNED = frozenset({"bad-signature", "broken-chain"})
"""Refusals made before the signature is checked: anyone holding the file could cause them."""


def fingerprint(public_key: bytes) -> str:
    """A key as a person compares it: 20 hex digits of its SHA-256, in fives."""
    digest = hashlib.sha256(public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 5] for i in range(0, 20, 5))


@dataclass(frozen=True)
class Violation:
    kind: str
    """bad-signature, broken-chain, commitment-mismatch, illegal-fleet, false-answer,
    out-of-turn, bad-shot, bad-answer, bad-hello, malformed, unsupported-version, wrong-verdict,
    missing-reveal, timeout, unfinished, aborted, damaged."""
    detail: str
    culprit: Role | None = None
    """The player a signed message proves did it; None when no signature says who."""
    move: int | None = None
    square: int | None = None
    cell: str | None = None
    """``square`` as players name it ("B7")."""


@dataclass
class Judgement:
    """A referee's verdict on one log."""

    status: str = INVALID
    ending: Ending | None = None
    """How the transcript ended, as far as the log holds; None if it never did."""
    size: int = 10
    rules: str | None = None
    players: dict[Role, dict[str, str]] = field(default_factory=dict)
    shots: dict[Role, int] = field(default_factory=dict)
    messages: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.status == VALID

    @property
    def winner(self) -> Role | None:
        return self.ending.winner if self.ending else None

    @property
    def end(self) -> End | None:
        return self.ending.end if self.ending else None

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
        return f"INVALID {self.describe(first)}{more}"

    def describe(self, violation: Violation) -> str:
        """One violation on one line: the player, the move and the square, then what."""
        where = [self.player(violation.culprit)] if violation.culprit else []
        if violation.move is not None:
            where.append(f"move {violation.move}")
        if violation.cell is not None:
            where.append(violation.cell)
        prefix = f" ({', '.join(where)})" if where else ""
        return f"{violation.kind}{prefix}: {violation.detail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "headline": self.headline(),
            "winner": self.winner.value if self.winner else None,
            "end": self.end.value if self.end else None,
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
                    "cell": v.cell,
                }
                for v in self.violations
            ],
        }


def judge_log(data: bytes) -> Judgement:
    """Judge a log file's bytes; raises NotALog only when it is not a statki log."""
    return judge(read_log(data))


def judge(contents: LogContents) -> Judgement:
    judgement = Judgement()
    transcript, rejected = replay_log(contents)
    _describe(transcript, judgement)
    found = [rejected] if rejected else []
    if contents.damage and not rejected:
        found.append(Violation("damaged", contents.damage))
    found += _ending_violations(transcript, contents, stopped_early=bool(found))
    judgement.violations = [_placed(v, judgement.size) for v in found]
    if not judgement.violations:
        judgement.status = VALID
    return judgement


def replay_log(contents: LogContents) -> tuple[Transcript, Violation | None]:
    """The log's transcript, as far as it holds, and the violation that stopped it, if any."""
    transcript = Transcript()
    for index, (body, signature) in enumerate(contents.frames):
        rejected = _add(transcript, index, body, signature)
        if rejected is not None:
            # Nothing after a refused frame can be trusted to follow from it.
            return transcript, rejected
    return transcript, None


def _add(transcript: Transcript, index: int, body: bytes, signature: bytes) -> Violation | None:
    """Add one frame; the violation it commits if the transcript refuses it."""
    try:
        frame = decode_frame([body, signature])
    except ProtocolError as error:
        return Violation("malformed", f"message {index} cannot be read: {error.detail}")
    after_the_end = transcript.complete
    try:
        transcript.add(frame)
    except ProtocolError as error:
        kind = _refusal_kind(error.code, frame)
        # A frame refused before its signature was checked proves nothing of its sender.
        culprit = None if kind in UNSIGNED or after_the_end else frame.header.sender
        return Violation(kind, f"message {index}: {error.detail}", culprit, transcript.move or None)
    except UsageError as error:  # a rules-engine complaint the transcript did not translate
        return Violation("malformed", f"message {index}: {error}", frame.header.sender)
    return None


def _refusal_kind(code: Code, frame: Frame) -> str:
    if code is Code.BAD_FIELD:
        # The transcript refuses these only once the frame decoded and its signature held.
        if isinstance(frame.message, Coin):
            return "commitment-mismatch"
        if isinstance(frame.message, Reveal):
            return "illegal-fleet"
        if isinstance(frame.message, Hello):
            return "bad-hello"
    return CODE_KINDS.get(code, "malformed")


def _placed(violation: Violation, size: int) -> Violation:
    if violation.square is None or violation.square >= size * size:
        return violation
    return replace(violation, cell=square_name(violation.square, size))


def _describe(transcript: Transcript, judgement: Judgement) -> None:
    judgement.messages = len(transcript.frames)
    judgement.ending = transcript.ending
    if transcript.rules is not None:
        judgement.rules = preset_name(transcript.rules) or "custom rules"
        judgement.size = transcript.rules.size
    for role in Role:
        hello = transcript.sides[role].hello
        if hello is not None:
            judgement.players[role] = {
                "name": hello.name,
                "key": fingerprint(hello.key),
                "software": hello.software,
            }
        judgement.shots[role] = transcript.shots_by(role)


def _ending_violations(
    t: Transcript, contents: LogContents, *, stopped_early: bool
) -> list[Violation]:
    found = [_from_finding(f) for f in t.findings]
    if t.error is not None:
        assert t.error_from is not None
        found.append(
            Violation(
                "aborted",
                f"{t.error_from} stopped the game with error {t.error.code}: {t.error.detail}",
                # The frame an error answers was refused, so it is not in the
                # chain: the log cannot show whether the error was deserved.
                None,
            )
        )
    if t.end is End.TIME:
        claimant = t.frames[-1].header.sender
        found.append(
            Violation(
                "timeout", f"{claimant} claimed the win on time", claimant.other, t.move or None
            )
        )
    elif t.end is End.REFUSED:
        found.append(Violation("unfinished", "the guest refused the rules; no game was played"))
    elif not t.complete and not found and not stopped_early:
        found.append(_unfinished(t, contents))
    found += _verdict_violations(t)
    return found


def _unfinished(t: Transcript, contents: LogContents) -> Violation:
    speaker = t.speaker()
    kind = "missing-reveal" if may_say(t.phase, Reveal) else "unfinished"
    detail = f"the log stops at {t.phase}: {speaker} never sent the next message"
    if contents.notes:
        # Unsigned, but it is what the log's writer saw, and often says why.
        detail += f" (the log's writer noted: {contents.notes[-1].text})"
    return Violation(kind, detail, speaker, t.move or None)


def _verdict_violations(t: Transcript) -> list[Violation]:
    """A side whose signed verdict disagrees with what the transcript proves."""
    found = []
    for role in Role:
        verdict = t.sides[role].verdict
        if verdict is None or t.end is None:
            continue
        if verdict.winner != t.winner or verdict.end != t.end.value:
            said = f"{verdict.winner or 'nobody'} won ({verdict.end})"
            truth = f"{t.winner or 'nobody'} won ({t.end.value})"
            found.append(
                Violation("wrong-verdict", f"{role} stated {said}; the log shows {truth}", role)
            )
    return found


def _from_finding(finding: Finding) -> Violation:
    kind = FINDING_KINDS.get(finding.kind, finding.kind.value)
    return Violation(kind, finding.detail, finding.culprit, finding.move, finding.square)

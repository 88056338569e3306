"""Reading one log as a referee: what its writer's file can be trusted to hold.

SPEC.md section 16, "Reading the logs", step 3.  A log's frame records are
replayed in order through a ``Transcript``: each is appended, or is the
log's refused frame (the peer's word that breaks the protocol, usually the
writer's own last frame), or is tampering, after which nothing in the log
can be trusted to follow from it.  Its evidence records are checked as the
peer's word: readable, signed by the side they name, and placed under a
frame of the log's transcript so far.  What this gives, the frames of the
game tree, is the same whatever the log's writer claims in its header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statki_net.game.errors import UsageError
from statki_net.protocol.errors import NOT_THE_PEERS_WORD, ProtocolError
from statki_net.protocol.logformat import EvidenceRecord, FrameRecord, LogContents, Note
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import (
    GENESIS,
    Error,
    Frame,
    Hello,
    Role,
    decode_frame,
    game_id,
    signature_valid,
)
from statki_net.referee.violations import UNTRUSTED, Kind, Violation


@dataclass(frozen=True)
class Held:
    """A frame of the log, with its digest (computed once)."""

    frame: Frame
    digest: bytes


@dataclass
class ReadLog:
    """One log, read: the frames it can be trusted to hold, and what is wrong with it."""

    name: str
    role: str | None
    """The writer's role, from the header: unsigned, for people."""
    transcript: Transcript = field(default_factory=Transcript)
    frames: list[Held] = field(default_factory=list)
    """The frames appended to its transcript, in order."""
    refused: Held | None = None
    """The frame record the rules refused (steps 5 to 7): it stops the transcript."""
    evidence: list[Held] = field(default_factory=list)
    """Its valid evidence records."""
    violations: list[Violation] = field(default_factory=list)
    """Tampering and damage: no signature says who did them."""
    notes: list[Note] = field(default_factory=list)
    stopped: bool = False
    """The transcript stopped: at the refused frame, or at a record that cannot be trusted."""


def game_id_of(contents: LogContents) -> bytes | None:
    """The log's game id, from the bodies of its first two frame records (SPEC.md
    section 16); None for a log with fewer than two."""
    if len(contents.frames) < 2:
        return None
    (host, _), (guest, _) = contents.frames[:2]
    return game_id(host, guest)


def read_records(name: str, contents: LogContents) -> ReadLog:
    """Replay one log's records; see the module docstring."""
    role = contents.header.get("role")
    log = ReadLog(name, role if isinstance(role, str) else None)
    for record in contents.records:
        if isinstance(record, FrameRecord):
            if not log.stopped:
                _frame_record(log, record.body, record.signature)
        elif isinstance(record, EvidenceRecord):
            # Placed under the frames before it: the transcript so far.
            _evidence_record(log, record.body, record.signature)
        else:
            log.notes.append(record)
    if contents.damage:
        log.violations.append(Violation(Kind.DAMAGED, contents.damage))
    return log


def _frame_record(log: ReadLog, body: bytes, signature: bytes) -> None:
    t = log.transcript
    index = len(t.frames)
    try:
        frame = decode_frame([body, signature])
    except ProtocolError as error:
        _tampered(log, Kind.MALFORMED, f"message {index} cannot be read: {error.detail}")
        return
    if t.complete:
        _tampered(log, Kind.AFTER_THE_END, f"message {index} comes after the end of the game")
        return
    move = t.move
    try:
        t.add(frame)
    except ProtocolError as error:
        if error.check.refuses and error.code not in NOT_THE_PEERS_WORD:
            log.refused, log.stopped = Held(frame, frame.digest), True
            return
        # Before the signature held (steps 1 to 4), it is nobody's word.
        kind = UNTRUSTED.get(error.code, Kind.MALFORMED)
        _tampered(log, kind, f"message {index}: {error.detail}", move)
        return
    except UsageError as error:  # a rules-engine complaint the transcript did not translate
        _tampered(log, Kind.MALFORMED, f"message {index}: {error}", move)
        return
    log.frames.append(Held(frame, frame.digest))


def _tampered(log: ReadLog, kind: Kind, detail: str, move: int | None = None) -> None:
    log.violations.append(Violation(kind, detail, None, move))
    log.stopped = True


def _evidence_record(log: ReadLog, body: bytes, signature: bytes) -> None:
    """Keep an evidence record that is the peer's word; one that is not is tampering."""
    try:
        frame = decode_frame([body, signature])
    except ProtocolError as error:
        log.violations.append(Violation(Kind.BAD_EVIDENCE, f"cannot be read: {error.detail}"))
        return
    problem = _misplaced(log, frame)
    if problem is not None:
        log.violations.append(Violation(Kind.BAD_EVIDENCE, problem))
        return
    log.evidence.append(Held(frame, frame.digest))


def _misplaced(log: ReadLog, frame: Frame) -> str | None:
    """Why ``frame`` is not the peer's word under a frame of the log's transcript, if it is not."""
    header, t = frame.header, log.transcript
    seq = header.seq
    parent = t.frames[seq - 1].digest if 0 < seq <= len(t.frames) else GENESIS
    if seq > len(t.frames) or header.prev != parent:
        return f"message {seq} from {header.sender} follows no message of the log"
    if seq >= 2 and header.game != t.game:
        return f"message {seq} from {header.sender} belongs to another game"
    key = frame.message.key if isinstance(frame.message, Hello) else _key_before(t, frame)
    if key is None:
        # Only the guest's error as message 0 comes before any key (SPEC.md section 5).
        if seq == 0 and header.sender is Role.GUEST and isinstance(frame.message, Error):
            return None
        return f"message {seq} from {header.sender} has no key to be checked by"
    if not signature_valid(key, frame):
        return f"message {seq} from {header.sender}: the signature does not verify"
    return None


def _key_before(t: Transcript, frame: Frame) -> bytes | None:
    """The key of ``frame``'s sender, from its hello, if that hello comes before it."""
    sender = frame.header.sender
    hello_at = 0 if sender is Role.HOST else 1
    return t.key(sender) if frame.header.seq > hello_at else None

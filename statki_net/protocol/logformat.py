"""The game log file: a magic value, then msgpack records, one per message.

Layout (SPEC.md section 15, "The log file")::

    MAGIC                         11 bytes: 89 'STATKI' 0d 0a 1a 0a
    {"log": 1, ...}               the header record
    {"body": bin, "sig": bin}     a frame of the transcript, in transcript order
                                  (+ "got": int, the writer's clock when a peer's frame came)
    {"evidence": bin, "sig": bin, "code": str, "at": int}
                                  the peer's word that did not join the transcript
    {"note": str, "at": int}      something the writer saw that is not a signed message
    {"resume": bin, "sig": bin}   a resume (the writer's or the peer's) on a new connection
    {"say": bin, "sig": bin}      a line of the players' talk (the writer's or the peer's)

Records are appended and flushed one by one, so a log cut short by a crash
reads up to its last whole record.  Where an evidence record stands among the
frame records matters (a referee places it after the frames before it), so
reading keeps every record in order.  This module is pure (bytes in, records
out); the file on disk is ``statki_net.store.logwriter``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, phrase
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.wire import MAX_FRAME, Frame, Role, decode_frame, packed, read_body

MAGIC = b"\x89STATKI\r\n\x1a\n"
LOG_VERSION = 1
"""Version 2 games keep log format 1: it only gained the evidence record, which old readers skip."""
MAX_RECORD = MAX_FRAME + 4096
MAX_NOTE = 500
"""Characters of note text this writer keeps."""


class NotALog(UsageError):
    """The file is not a statki log at all."""


class Signed(Protocol):
    """Anything holding a frame's exact bytes: a sent or received frame."""

    @property
    def body(self) -> bytes: ...

    @property
    def signature(self) -> bytes: ...


@dataclass(frozen=True)
class FrameRecord:
    """A frame of the writer's transcript: body and signature exactly as sent or received."""

    body: bytes
    signature: bytes
    got: int | None = None
    """For a frame from the other side, the writer's clock when it joined the transcript:
    where its turn's clock began, kept for picking the game up (SPEC.md, "Resume")."""


@dataclass(frozen=True)
class EvidenceRecord:
    """The peer's word that did not join the writer's transcript: a refused frame, a
    crossed frame, or a claim too early by the writer's clock (SPEC.md section 15)."""

    body: bytes
    signature: bytes
    code: str | None = None
    """The failure the writer found, for people (a referee checks the frame again)."""
    at: int | None = None
    """The writer's clock when the frame came, for people."""
    after: int = 0
    """How many frame records come before it in the log: where it stands."""


@dataclass(frozen=True)
class Note:
    """Something the writer recorded that no one signed: a lost connection, a rejected frame."""

    text: str
    at: int = 0
    data: bytes = b""
    """The raw bytes of a rejected frame, kept as evidence (bounded)."""


@dataclass(frozen=True)
class ResumeRecord:
    """A resume said on a new connection (SPEC.md, "Resume"): no message of the game, kept
    so the log shows where and how the game went on; a referee skips it."""

    body: bytes
    signature: bytes
    after: int = 0
    """How many frame records come before it in the log."""


@dataclass(frozen=True)
class TalkRecord:
    """A line of the players' talk, the writer's or the peer's, as sent or received (SPEC.md
    section 15): no message of the game; a referee shows it and checks its signature."""

    body: bytes
    signature: bytes
    after: int = 0
    """How many frame records come before it in the log."""


Record = FrameRecord | EvidenceRecord | Note | ResumeRecord | TalkRecord


@dataclass
class LogContents:
    """A log as read: its header, its records, and where it was damaged."""

    header: dict[str, Any]
    records: list[Record] = field(default_factory=list)
    """Every record after the header, in the order written."""
    damage: Phrase | None = None
    """Why reading stopped early, if it did: a cut-off or garbled record."""

    @property
    def frames(self) -> list[tuple[bytes, bytes]]:
        """Each frame record's exact body and signature, in order."""
        return [(r.body, r.signature) for r in self.records if isinstance(r, FrameRecord)]

    @property
    def got(self) -> list[int | None]:
        """Each frame record's ``got``, in the order of ``frames``."""
        return [r.got for r in self.records if isinstance(r, FrameRecord)]

    @property
    def evidence(self) -> list[EvidenceRecord]:
        return [r for r in self.records if isinstance(r, EvidenceRecord)]

    @property
    def notes(self) -> list[Note]:
        return [r for r in self.records if isinstance(r, Note)]

    @property
    def talk(self) -> list[TalkRecord]:
        return [r for r in self.records if isinstance(r, TalkRecord)]


def header_record(role: str, software: str, started_at: int) -> dict[str, Any]:
    return {"log": LOG_VERSION, "role": role, "software": software, "started": started_at}


def frame_record(frame: Signed, got: int | None = None) -> bytes:
    """A frame record; ``got``, for a frame from the other side, when it came by this side's
    clock."""
    record: dict[str, Any] = {"body": frame.body, "sig": frame.signature}
    if got is not None:
        record["got"] = got
    return packed(record)


def evidence_record(frame: Signed, code: Code | None = None, at: int | None = None) -> bytes:
    record: dict[str, Any] = {"evidence": frame.body, "sig": frame.signature}
    if code is not None:
        record["code"] = code.value
    if at is not None:
        record["at"] = at
    return packed(record)


def resume_record(frame: Signed) -> bytes:
    return packed({"resume": frame.body, "sig": frame.signature})


def talk_record(frame: Signed) -> bytes:
    return packed({"say": frame.body, "sig": frame.signature})


def whole_records_length(data: bytes) -> int:
    """How many bytes of a log are whole records (with the magic value): where a log cut
    short by a crash can be appended to."""
    if not is_log(data):
        raise NotALog(phrase(N_("not a statki log (no magic value at the start)")))
    unpacker = msgpack.Unpacker(
        raw=False, max_buffer_size=max(len(data), 1), max_bin_len=MAX_RECORD, max_str_len=MAX_RECORD
    )
    unpacker.feed(data[len(MAGIC) :])
    whole = 0
    try:
        for _ in unpacker:
            whole = unpacker.tell()
    except Exception:  # garbage after the last whole record: cut there
        pass
    return len(MAGIC) + whole


def note_record(note: Note) -> bytes:
    record: dict[str, Any] = {"note": note.text[:MAX_NOTE], "at": note.at}
    if note.data:
        record["data"] = note.data[:MAX_FRAME]
    return packed(record)


def log_file(header: dict[str, Any], records: Iterable[bytes]) -> bytes:
    """A whole log file: the magic value, the header record, then ``records`` as written."""
    return MAGIC + packed(header) + b"".join(records)


def is_log(start: bytes) -> bool:
    return start.startswith(MAGIC)


def read_log(data: bytes) -> LogContents:
    """Read a whole log; damage after the magic value is reported, not raised.

    Raises ``NotALog`` only when the magic value is missing or the header names
    a log version this software does not know; a log with the magic value is a
    statki log, however damaged.
    """
    if not is_log(data):
        raise NotALog(phrase(N_("not a statki log (no magic value at the start)")))
    unpacker = msgpack.Unpacker(
        raw=False, max_buffer_size=max(len(data), 1), max_bin_len=MAX_RECORD, max_str_len=MAX_RECORD
    )
    unpacker.feed(data[len(MAGIC) :])
    contents: LogContents | None = None
    whole = 0
    """Bytes read up to the end of the last whole record.  Not ``unpacker.tell()`` once
    the loop is over: it counts the start of a record cut off (``0x92 0x01``) as read."""
    try:
        for record in unpacker:
            whole = unpacker.tell()
            if contents is None:
                contents = _header(record)
            else:
                _add_record(contents, record)
    except NotALog:
        raise
    except Exception:  # msgpack raises several types for garbage
        if contents is None:
            return LogContents(header={}, damage=phrase(N_("the log's header is unreadable")))
        contents.damage = contents.damage or phrase(
            N_("the record after message {seq} is unreadable"), seq=len(contents.frames)
        )
        return contents
    if contents is None:
        return LogContents(header={}, damage=phrase(N_("the log has no header")))
    if whole != len(data) - len(MAGIC):
        contents.damage = contents.damage or phrase(
            N_("the log is cut off after {messages} messages"), messages=len(contents.frames)
        )
    return contents


def _header(record: Any) -> LogContents:
    version = record.get("log") if isinstance(record, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version != LOG_VERSION:
        raise NotALog(f"statki log of version {version}; this software reads version {LOG_VERSION}")
    if version != LOG_VERSION:
        # Keep reading: the frames after a damaged header may still be judged.
        return LogContents(header={}, damage=phrase(N_("the log's header record is damaged")))
    assert isinstance(record, dict)
    return LogContents(header=record)


def _add_record(contents: LogContents, record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("a record must be a map")
    # A map with "body" is a frame record whatever else it holds; then "evidence",
    # "resume", "say", "note".
    if "body" in record:
        body, signature = record.get("body"), record.get("sig")
        if not isinstance(body, bytes) or not isinstance(signature, bytes):
            raise ValueError("a frame record holds two bins")
        got = record.get("got")
        # Only this side's resume reads it: of another type, it is as if absent.
        contents.records.append(
            FrameRecord(
                body, signature, got if isinstance(got, int) and not isinstance(got, bool) else None
            )
        )
    elif "evidence" in record:
        body, signature = record.get("evidence"), record.get("sig")
        if not isinstance(body, bytes) or not isinstance(signature, bytes):
            raise ValueError("an evidence record holds two bins")
        if len(body) > MAX_FRAME:
            raise ValueError("an evidence record holds more than a frame")
        code, at = record.get("code"), record.get("at")
        contents.records.append(
            EvidenceRecord(
                body,
                signature,
                # For people only: of another type, they are ignored.
                code if isinstance(code, str) else None,
                at if isinstance(at, int) and not isinstance(at, bool) else None,
                after=len(contents.frames),
            )
        )
    elif "resume" in record:
        body, signature = record.get("resume"), record.get("sig")
        if isinstance(body, bytes) and isinstance(signature, bytes):
            contents.records.append(ResumeRecord(body, signature, after=len(contents.frames)))
    elif "say" in record:
        body, signature = record.get("say"), record.get("sig")
        if isinstance(body, bytes) and isinstance(signature, bytes):
            contents.records.append(TalkRecord(body, signature, after=len(contents.frames)))
    elif "note" in record:
        text, at, data = record.get("note"), record.get("at", 0), record.get("data", b"")
        if isinstance(text, str) and isinstance(at, int) and isinstance(data, bytes):
            contents.records.append(Note(text, at, data))
    # Records of unknown kinds are ignored, so later versions can add some.


def frames_of(contents: LogContents) -> list[Frame]:
    """Decode the frames; raises ProtocolError at the first that is not well formed."""
    return [decode_frame([body, signature]) for body, signature in contents.frames]


def heard_at(contents: LogContents, frames: list[Frame], role: Role) -> int | None:
    """When the last frame from ``role``'s peer came, by the writer's clock (its record's
    ``got``), for ``frames`` decoded from ``contents``; None where the log does not say."""
    for frame, got in zip(reversed(frames), reversed(contents.got), strict=True):
        if frame.header.sender is not role:
            return got
    return None


def next_say(contents: LogContents, role: Role) -> int:
    """The ``n`` of ``role``'s next line of talk: one above the highest its log holds, so a
    side that picks its game up after a restart is not taken for replaying its own lines."""
    said = [-1]
    for record in contents.talk:
        try:
            fields = read_body(record.body)
        except ProtocolError:
            continue
        n = fields.get("n")
        if fields.get("from") == role.value and type(n) is int:
            said.append(n)
    return max(said) + 1

"""The game log file: a magic value, then msgpack records, one per message.

Layout (SPEC.md, "The log file")::

    MAGIC                      11 bytes: 89 'STATKI' 0d 0a 1a 0a
    {"log": 1, ...}            the header record
    {"body": bin, "sig": bin}  a frame of the transcript, in transcript order
    {"note": str, "at": int}   something the writer saw that is not a signed message

Records are appended and flushed one by one, so a log cut short by a crash
reads up to its last whole record.  This module is pure (bytes in, records
out); the file on disk is ``statki_net.store.logwriter``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgpack

from statki_net.game.errors import UsageError
from statki_net.protocol.wire import MAX_FRAME, Frame, decode_frame

MAGIC = b"\x89STATKI\r\n\x1a\n"
LOG_VERSION = 1
MAX_RECORD = MAX_FRAME + 4096


class NotALog(UsageError):
    """The file is not a statki log at all."""


@dataclass(frozen=True)
class Note:
    """Something the writer recorded that no one signed: a lost connection, a rejected frame."""

    text: str
    at: int = 0
    data: bytes = b""
    """The raw bytes of a rejected frame, kept as evidence (bounded)."""


@dataclass
class LogContents:
    header: dict[str, Any]
    frames: list[tuple[bytes, bytes]] = field(default_factory=list)
    """Each frame's exact body and signature, in order."""
    notes: list[Note] = field(default_factory=list)
    damage: str | None = None
    """Why reading stopped early, if it did: a cut-off or garbled record."""


def header_record(role: str, software: str, started_at: int) -> dict[str, Any]:
    return {"log": LOG_VERSION, "role": role, "software": software, "started": started_at}


def frame_record(frame: Frame) -> bytes:
    return bytes(msgpack.packb({"body": frame.body, "sig": frame.signature}, use_bin_type=True))


def note_record(note: Note) -> bytes:
    record: dict[str, Any] = {"note": note.text[:500], "at": note.at}
    if note.data:
        record["data"] = note.data[:MAX_FRAME]
    return bytes(msgpack.packb(record, use_bin_type=True))


def is_log(start: bytes) -> bool:
    return start.startswith(MAGIC)


def read_log(data: bytes) -> LogContents:
    """Read a whole log; damage after the magic value is reported, not raised.

    Raises ``NotALog`` only when the magic value is missing or the header names
    a log version this software does not know; a log with the magic value is a
    statki log, however damaged.
    """
    if not is_log(data):
        raise NotALog("not a statki log (no magic value at the start)")
    unpacker = msgpack.Unpacker(
        raw=False, max_buffer_size=max(len(data), 1), max_bin_len=MAX_RECORD, max_str_len=MAX_RECORD
    )
    unpacker.feed(data[len(MAGIC) :])
    contents: LogContents | None = None
    try:
        for record in unpacker:
            if contents is None:
                contents = _header(record)
            else:
                _add_record(contents, record)
    except NotALog:
        raise
    except Exception as error:  # msgpack raises several types for garbage
        if contents is None:
            return LogContents(header={}, damage="the log's header is unreadable")
        contents.damage = contents.damage or (
            f"unreadable record after {len(contents.frames)} messages ({type(error).__name__})"
        )
        return contents
    if contents is None:
        return LogContents(header={}, damage="the log has no header")
    consumed = unpacker.tell()
    if consumed != len(data) - len(MAGIC):
        contents.damage = contents.damage or (
            f"the log is cut off after {len(contents.frames)} messages"
        )
    return contents


def _header(record: Any) -> LogContents:
    version = record.get("log") if isinstance(record, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version != LOG_VERSION:
        raise NotALog(f"statki log of version {version}; this software reads version {LOG_VERSION}")
    if version != LOG_VERSION:
        # Keep reading: the frames after a damaged header may still be judged.
        return LogContents(header={}, damage="the log's header record is damaged")
    assert isinstance(record, dict)
    return LogContents(header=record)


def _add_record(contents: LogContents, record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("a record must be a map")
    if "body" in record:
        body, signature = record.get("body"), record.get("sig")
        if not isinstance(body, bytes) or not isinstance(signature, bytes):
            raise ValueError("a frame record holds two bins")
        contents.frames.append((body, signature))
    elif "note" in record:
        text, at, data = record.get("note"), record.get("at", 0), record.get("data", b"")
        if isinstance(text, str) and isinstance(at, int) and isinstance(data, bytes):
            contents.notes.append(Note(text, at, data))
    # Records of unknown kinds are ignored, so later versions can add some.


def frames_of(contents: LogContents) -> list[Frame]:
    """Decode the frames; raises ProtocolError at the first that is not well formed."""
    return [decode_frame([body, signature]) for body, signature in contents.frames]

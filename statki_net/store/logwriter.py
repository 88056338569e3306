"""The log file on disk: records appended one by one, each flushed (SPEC.md, "The log file")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any

import msgpack

from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    MAGIC,
    Note,
    Signed,
    evidence_record,
    frame_record,
    note_record,
    resume_record,
    whole_records_length,
)
from statki_net.store.home import private_folder


class LogWriter:
    """Appends records to one log file and flushes each, so nothing said is lost."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        private_folder(path.parent)
        # O_EXCL: never through a link, never over a file already there.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._file: IO[bytes] = os.fdopen(fd, "wb")
        self._write(MAGIC + msgpack.packb(header, use_bin_type=True))

    @classmethod
    def appending(cls, path: Path) -> LogWriter:
        """Go on writing the log of a game this side's program stopped in: after its last
        whole record (a crash may have cut the one it was writing)."""
        writer = cls.__new__(cls)
        writer.path = path
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        file = os.fdopen(fd, "r+b")
        file.truncate(whole_records_length(file.read()))
        file.seek(0, os.SEEK_END)
        writer._file = file
        return writer

    def resume(self, frame: Signed) -> None:
        """A resume said on a new connection, this side's or the peer's."""
        self._write(resume_record(frame))

    def frame(self, frame: Signed) -> None:
        """A frame of this side's transcript, sent, received or written as if sent."""
        self._write(frame_record(frame))

    def evidence(self, frame: Signed, code: Code | None = None, at: int | None = None) -> None:
        """The peer's word that did not join the transcript; written as soon as it is checked,
        so a refused frame comes before the ``error`` that answers it."""
        self._write(evidence_record(frame, code, at))

    def note(self, note: Note) -> None:
        self._write(note_record(note))

    def _write(self, data: bytes) -> None:
        if self._file.closed:
            return
        self._file.write(data)
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            os.fsync(self._file.fileno())
            self._file.close()

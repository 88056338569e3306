"""The log file on disk: records appended one by one, each flushed (SPEC.md, "The log file").

Flushed is not on disk: after a power cut the kernel's cache is gone.  So the
file and its directory entry are made durable when the log is created, and
``sync`` makes durable everything written so far; the connection calls it
before a message of this side's leaves (``net.connection``), so the other
side never holds a word of ours that our own log could lose.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    MAGIC,
    Note,
    Signed,
    evidence_record,
    frame_record,
    note_record,
    resume_record,
    talk_record,
    whole_records_length,
)
from statki_net.protocol.wire import packed
from statki_net.store.home import private_folder

_datasync: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)
"""The file's data (and the size), without the times fsync also writes; fsync where
there is no fdatasync (macOS)."""


class LogWriter:
    """Appends records to one log file and flushes each; ``sync`` puts them on disk."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        new_folder = not path.parent.exists()
        private_folder(path.parent)
        if new_folder:  # logs/ made just now: its own entry, in the home, on disk too
            sync_folder(path.parent.parent)
        # O_EXCL: never through a link, never over a file already there.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._file: IO[bytes] = os.fdopen(fd, "wb")
        self.unsynced = False
        """Records were written since the last ``sync``: flushed, not yet surely on disk."""
        self.syncs = 0
        """How many times the file was put on disk (the benchmark counts them)."""
        self._write(MAGIC + packed(header))
        self.sync()
        sync_folder(path.parent)

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
        writer.unsynced = True  # the cut, on disk before anything more is sent
        writer.syncs = 0
        writer.sync()
        return writer

    def resume(self, frame: Signed) -> None:
        """A resume said on a new connection, this side's or the peer's."""
        self._write(resume_record(frame))

    def frame(self, frame: Signed, got: int | None = None) -> None:
        """A frame of this side's transcript, sent, received or written as if sent; ``got``,
        for a received one, when it came by this side's clock."""
        self._write(frame_record(frame, got))

    def evidence(self, frame: Signed, code: Code | None = None, at: int | None = None) -> None:
        """The peer's word that did not join the transcript; written as soon as it is checked,
        so a refused frame comes before the ``error`` that answers it."""
        self._write(evidence_record(frame, code, at))

    def note(self, note: Note) -> None:
        self._write(note_record(note))

    def talk(self, frame: Signed) -> None:
        """A line of the players' talk, this side's or the peer's: outside the transcript."""
        self._write(talk_record(frame))

    def _write(self, data: bytes) -> None:
        if self._file.closed:
            return
        self._file.write(data)
        self._file.flush()
        self.unsynced = True

    def sync(self) -> None:
        """Everything written so far on disk; nothing to do when nothing new was written."""
        if self.unsynced and not self._file.closed:
            _datasync(self._file.fileno())
            self.unsynced = False
            self.syncs += 1

    def close(self) -> None:
        if not self._file.closed:
            os.fsync(self._file.fileno())
            self._file.close()


def sync_folder(folder: Path) -> None:
    """The folder's entries on disk: a file just made there survives a power cut by name."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

"""The log file on disk: records appended one by one, evidence in its place."""

from __future__ import annotations

from pathlib import Path

from peers import LOG_HEADER, FrameBytes

from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    MAGIC,
    EvidenceRecord,
    FrameRecord,
    read_log,
)
from statki_net.store.logwriter import LogWriter


def test_the_log_writer_writes_evidence_between_frames(tmp_path: Path) -> None:
    path = tmp_path / "game.statki"
    writer = LogWriter(path, LOG_HEADER)
    writer.frame(FrameBytes(b"mine"))
    writer.evidence(FrameBytes(b"theirs, refused"), Code.BAD_ANSWER, 9)
    writer.frame(FrameBytes(b"my error"))
    writer.close()
    data = path.read_bytes()
    assert data.startswith(MAGIC)
    contents = read_log(data)
    assert [type(r) for r in contents.records] == [FrameRecord, EvidenceRecord, FrameRecord]
    assert contents.evidence == [
        EvidenceRecord(b"theirs, refused", bytes(64), "bad-answer", 9, after=1)
    ]

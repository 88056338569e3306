"""The log file of SPEC.md section 15: frames, evidence and notes, read back in order."""

from __future__ import annotations

import msgpack
import pytest
from peers import LOG_HEADER, FrameBytes

from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    EvidenceRecord,
    FrameRecord,
    Note,
    evidence_record,
    frame_record,
    log_file,
    note_record,
    read_log,
)
from statki_net.protocol.wire import MAX_FRAME


def packed(record: object) -> bytes:
    return bytes(msgpack.packb(record, use_bin_type=True))


def test_evidence_keeps_its_place_among_the_frames() -> None:
    records = [
        frame_record(FrameBytes(b"a")),
        frame_record(FrameBytes(b"b")),
        evidence_record(FrameBytes(b"refused"), Code.BAD_SHOT, 77),
        note_record(Note("lost", 80)),
        frame_record(FrameBytes(b"c")),
        evidence_record(FrameBytes(b"crossed")),
    ]
    contents = read_log(log_file(LOG_HEADER, records))
    assert contents.damage is None and contents.header == LOG_HEADER
    assert contents.records == [
        FrameRecord(b"a", bytes(64)),
        FrameRecord(b"b", bytes(64)),
        EvidenceRecord(b"refused", bytes(64), "bad-shot", 77, after=2),
        Note("lost", 80),
        FrameRecord(b"c", bytes(64)),
        EvidenceRecord(b"crossed", bytes(64), None, None, after=3),
    ]
    assert contents.frames == [(b"a", bytes(64)), (b"b", bytes(64)), (b"c", bytes(64))]
    assert [e.body for e in contents.evidence] == [b"refused", b"crossed"]
    assert contents.notes == [Note("lost", 80)]


def test_a_map_with_body_is_a_frame_then_one_with_evidence_then_a_note() -> None:
    records = [
        packed({"body": b"f", "sig": b"s", "evidence": b"e", "note": "n"}),
        packed({"evidence": b"e", "sig": b"s", "note": "n"}),
        packed({"note": "n", "at": 1}),
        packed({"something": "else"}),  # a kind this reader does not know: skipped
    ]
    contents = read_log(log_file(LOG_HEADER, records))
    assert [type(r) for r in contents.records] == [FrameRecord, EvidenceRecord, Note]
    assert contents.damage is None


def test_an_evidence_record_with_code_or_at_of_another_type_keeps_the_frame() -> None:
    record = packed({"evidence": b"e", "sig": b"s", "code": 5, "at": "soon"})
    [evidence] = read_log(log_file(LOG_HEADER, [record])).records
    assert evidence == EvidenceRecord(b"e", b"s", None, None, after=0)
    flag = packed({"evidence": b"e", "sig": b"s", "at": True})
    [evidence] = read_log(log_file(LOG_HEADER, [flag])).records
    assert isinstance(evidence, EvidenceRecord) and evidence.at is None


@pytest.mark.parametrize(
    "record",
    [
        {"evidence": "text", "sig": b"s"},
        {"evidence": b"e", "sig": None},
        {"evidence": b"e"},
        {"evidence": bytes(MAX_FRAME + 1), "sig": b"s"},
    ],
)
def test_a_bad_evidence_record_is_damage_and_what_came_before_it_is_kept(
    record: dict[str, object],
) -> None:
    contents = read_log(log_file(LOG_HEADER, [frame_record(FrameBytes(b"a")), packed(record)]))
    assert contents.damage is not None
    assert contents.frames == [(b"a", bytes(64))]


def test_evidence_of_a_whole_frame_is_kept() -> None:
    largest = bytes(MAX_FRAME)
    contents = read_log(log_file(LOG_HEADER, [evidence_record(FrameBytes(largest))]))
    assert contents.damage is None and contents.evidence[0].body == largest


@pytest.mark.parametrize("cut", [b"\x92\x01", b"\x99garbage", b"\x81\xa4body"])
def test_a_record_cut_off_inside_an_array_or_a_map_is_damage(cut: bytes) -> None:
    """A review: msgpack counts the start of a record cut off as read, so a log ending in
    one was taken for whole."""
    contents = read_log(log_file(LOG_HEADER, [frame_record(FrameBytes(b"a"))]) + cut)
    assert contents.damage is not None
    assert contents.frames == [(b"a", bytes(64))]

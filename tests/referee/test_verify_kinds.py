"""The referee names each kind of wrong, its class, and who did it where a signature proves it."""

from __future__ import annotations

from dataclasses import replace

import msgpack
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.commitment import SECRET_SIZE
from statki_net.protocol.endings import End, Standing
from statki_net.protocol.logformat import MAGIC, Note, frame_record, header_record, note_record
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Message, Reveal, Role, Verdict
from statki_net.referee.verify import judge_log


class RevealsAnotherSecret(Behaviour):
    """Commits honestly, then opens with a different secret."""

    def say(self, session: Session, message: Message) -> Message | None:
        if isinstance(message, Reveal):
            return replace(message, secret=bytes(SECRET_SIZE))
        return message


class ClaimsTheWin(Behaviour):
    def say(self, session: Session, message: Message) -> Message | None:
        return Verdict(session.role, "sunk") if isinstance(message, Verdict) else message


def test_a_reveal_that_does_not_open_the_commitment_is_a_bad_reveal() -> None:
    pair = make_pair(PRESETS["classic"], seed=41, guest=RevealsAnotherSecret())
    play(pair, seed=42, resign_at=3)
    judgement = judge_log(log_bytes(pair.host))
    [violation] = judgement.violations
    assert violation.kind == "bad-reveal" and violation.culprit is Role.GUEST
    assert violation.violation_class == "cheating" and violation.move is None
    assert (judgement.end, judgement.winner) == (End.CHEATED, Role.HOST)


def test_a_false_verdict_is_named_and_changes_no_result() -> None:
    pair = make_pair(PRESETS["classic"], seed=43, guest=ClaimsTheWin())
    play(pair, seed=44, resign_at=2, resigner=Role.GUEST)
    judgement = judge_log(log_bytes(pair.host))
    assert pair.host.transcript.winner is Role.HOST
    [violation] = judgement.violations
    assert violation.kind == "wrong-verdict" and violation.culprit is Role.GUEST
    assert "the guest stated guest won (sunk); its transcript showed host won" in str(
        violation.detail
    )
    assert (judgement.end, judgement.winner) == (End.RESIGNED, Role.HOST)
    assert judgement.standing is Standing.INVALID


def test_a_false_answer_names_the_move_and_the_cell() -> None:
    pair = make_pair(PRESETS["classic"], seed=4, guest=LiesAboutFirstHit())
    play(pair, seed=5)
    judgement = judge_log(log_bytes(pair.host))
    lie = judgement.violations[0]
    assert lie.cell is not None and lie.move is not None
    line = judgement.describe(lie)
    assert line.startswith(f"false-answer (Olek (guest), move {lie.move}, {lie.cell}): ")
    assert "answered water, the commitment holds a ship" in line


def test_a_bad_signature_blames_no_player() -> None:
    pair = make_pair(PRESETS["classic"], seed=45)
    play(pair, seed=46, resign_at=3)
    log = bytearray(log_bytes(pair.host))
    last = pair.host.transcript.frames[-1]
    log[log.rfind(last.signature) + 5] ^= 0x40
    judgement = judge_log(bytes(log))
    [violation] = judgement.violations
    assert violation.kind == "bad-signature" and violation.culprit is None
    assert violation.violation_class == "tampering"
    assert judgement.standing is Standing.INVALID and judgement.ending is None


def test_an_unfinished_game_names_nobody() -> None:
    pair = make_pair(PRESETS["classic"], seed=47)
    play(pair, seed=48)
    frames = pair.host.transcript.frames[:20]
    head = MAGIC + bytes(msgpack.packb(header_record("host", "t", 0), use_bin_type=True))
    log = head + b"".join(frame_record(f) for f in frames)
    log += note_record(Note("the connection closed", 5))
    judgement = judge_log(log)
    assert judgement.violations == [] and judgement.standing is Standing.UNFINISHED
    assert "before any ending" in str(judgement.reason)


def test_a_damaged_header_is_damage_not_a_foreign_file() -> None:
    pair = make_pair(PRESETS["classic"], seed=49)
    play(pair, seed=50, resign_at=2)
    log = bytearray(log_bytes(pair.host))
    log[len(MAGIC)] = 0xC1  # never used by msgpack
    judgement = judge_log(bytes(log))
    assert [v.kind for v in judgement.violations] == ["damaged"]
    assert judgement.violations[0].violation_class == "damage"
    kinds = [v.kind for v in judge_log(MAGIC).violations]
    assert kinds == ["damaged"]


def test_a_message_after_the_end_is_tampering_and_blames_no_player() -> None:
    pair = make_pair(PRESETS["classic"], seed=51)
    play(pair, seed=52, resign_at=2)
    log = log_bytes(pair.host) + frame_record(pair.host.transcript.frames[-1])
    judgement = judge_log(log)
    [violation] = judgement.violations
    assert violation.kind == "after-the-end" and violation.culprit is None
    assert violation.violation_class == "tampering" and violation.move is None
    assert judgement.end is End.RESIGNED and judgement.standing is Standing.INVALID


def test_an_unfinished_log_says_what_its_writer_noted_and_blames_nobody() -> None:
    pair = make_pair(PRESETS["classic"], seed=53)
    play(pair, seed=54)
    head = MAGIC + bytes(msgpack.packb(header_record("host", "t", 0), use_bin_type=True))
    log = head + b"".join(frame_record(f) for f in pair.host.transcript.frames[:20])
    judgement = judge_log(log + note_record(Note("the connection was reset", 9)))
    assert str(judgement.reason).endswith("(a log's writer noted: the connection was reset)")
    assert judgement.end_word == "unfinished" and not judgement.culprits

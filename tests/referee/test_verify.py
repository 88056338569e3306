"""One log judged alone: honest games are valid results, tampering is found and blames nobody."""

from dataclasses import replace

import msgpack
import pytest
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.game.battle import Outcome
from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.protocol.endings import End, Standing
from statki_net.protocol.logformat import MAGIC, NotALog, frame_record, header_record
from statki_net.protocol.wire import Frame, Role
from statki_net.referee.verify import judge_log


def log_of(frames: list[Frame]) -> bytes:
    head = MAGIC + bytes(msgpack.packb(header_record("host", "t", 0), use_bin_type=True))
    return head + b"".join(frame_record(f) for f in frames)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_honest_game_is_valid(preset: str) -> None:
    pair = make_pair(PRESETS[preset], seed=11)
    play(pair, seed=12)
    judgement = judge_log(log_bytes(pair.host))
    assert judgement.valid, judgement.violations
    assert judgement.standing is Standing.VALID and judgement.violations == []
    assert judgement.winner == pair.host.transcript.winner
    assert judgement.end == End.SUNK and not judgement.culprits
    assert judgement.rules == preset
    assert judgement.headline().startswith("valid: ")
    assert judgement.game == pair.host.transcript.game


def test_resigned_game_is_valid_and_revealed() -> None:
    pair = make_pair(PRESETS["classic"], seed=2)
    play(pair, seed=3, resign_at=4)
    t = pair.guest.transcript
    assert t.end is End.RESIGNED
    assert all(t.sides[r].fleet is not None for r in Role), (
        "both fleets revealed after a resignation"
    )
    judgement = judge_log(log_bytes(pair.guest))
    assert judgement.valid and judgement.end == "resigned" and not judgement.culprits


def test_false_answer_is_caught_on_the_move() -> None:
    pair = make_pair(PRESETS["classic"], seed=4, guest=LiesAboutFirstHit())
    play(pair, seed=5)
    t = pair.host.transcript
    assert t.end is End.CHEATED and t.winner is Role.HOST
    [finding] = t.findings
    assert finding.culprit is Role.GUEST and finding.kind == "false-answer"
    lie_move = next(
        v.move
        for v in t.sides[Role.HOST].volleys
        if v.answer.outcomes == (Outcome.MISS,) and finding.square in v.shots
    )
    assert finding.move == lie_move
    assert "answered water, the commitment holds a ship" in str(finding.detail)
    judgement = judge_log(log_bytes(pair.host))
    assert judgement.standing is Standing.INVALID
    assert (judgement.end, judgement.winner, judgement.culprits) == (
        End.CHEATED,
        Role.HOST,
        frozenset({Role.GUEST}),
    )
    [violation] = judgement.violations
    assert violation.kind == "false-answer" and violation.violation_class == "cheating"
    assert violation.culprit is Role.GUEST and violation.move == finding.move


def test_tampering_is_found_and_blames_nobody() -> None:
    pair = make_pair(PRESETS["classic"], seed=6)
    play(pair, seed=7)
    frames = pair.host.transcript.frames
    cut = judge_log(log_of(frames[:10] + frames[11:]))
    assert [v.kind for v in cut.violations] == ["broken-chain"]
    swapped = [*frames[:10], frames[11], frames[10], *frames[12:]]
    assert [v.kind for v in judge_log(log_of(swapped)).violations] == ["broken-chain"]
    other = make_pair(PRESETS["classic"], seed=8)
    play(other, seed=9)
    stitched = judge_log(log_of(frames[:12] + other.host.transcript.frames[12:]))
    assert stitched.violations[0].kind in ("broken-chain", "bad-signature")
    edited = bytearray(log_of(frames))
    index = edited.find(frames[12].body) + 30
    edited[index] ^= 1
    spoiled = judge_log(bytes(edited))
    assert spoiled.violations[0].kind in ("bad-signature", "malformed")
    for judgement in (cut, stitched, spoiled):
        assert judgement.standing is Standing.INVALID
        assert all(v.culprit is None for v in judgement.violations)
        assert all(v.violation_class == "tampering" for v in judgement.violations)


def test_a_log_cut_cleanly_is_unfinished_not_invalid() -> None:
    pair = make_pair(PRESETS["classic"], seed=6)
    play(pair, seed=7)
    truncated = judge_log(log_of(pair.host.transcript.frames[:15]))
    assert truncated.standing is Standing.UNFINISHED and truncated.ending is None
    assert truncated.violations == [] and not truncated.culprits
    assert truncated.headline().startswith("unfinished: ")


def test_not_a_log() -> None:
    with pytest.raises(NotALog):
        judge_log(b"hello")
    damaged = judge_log(MAGIC + b"\x81\xa3log\x01" + b"\xc1\xc1")
    assert damaged.standing is Standing.INVALID
    assert [v.kind for v in damaged.violations] == ["damaged"]


def test_rules_are_named_by_the_presets_they_combine_or_are_custom() -> None:
    combined = ruleset_named("five-ships+salvo")
    pair = make_pair(combined, seed=13)
    play(pair, seed=14, resign_at=3)
    assert judge_log(log_bytes(pair.host)).rules == "five-ships+salvo"
    custom = replace(PRESETS["classic"], size=12)
    pair = make_pair(custom, seed=15)
    play(pair, seed=16, resign_at=3)
    assert judge_log(log_bytes(pair.host)).rules == "custom rules"

import pytest
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.game.battle import Outcome
from statki_net.game.rules import PRESETS
from statki_net.protocol.endings import End
from statki_net.protocol.logformat import MAGIC, NotALog
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_honest_game_is_valid(preset: str) -> None:
    pair = make_pair(PRESETS[preset], seed=11)
    play(pair, seed=12)
    judgement = judge_log(log_bytes(pair.host))
    assert judgement.valid, judgement.violations
    assert judgement.winner == pair.host.transcript.winner
    assert judgement.end == End.SUNK
    assert judgement.rules == preset
    assert judgement.headline().startswith("valid: ")


def test_resigned_game_is_valid_and_revealed() -> None:
    pair = make_pair(PRESETS["classic"], seed=2)
    play(pair, seed=3, resign_at=4)
    t = pair.guest.transcript
    assert t.end is End.RESIGNED
    assert all(t.sides[r].fleet is not None for r in Role), (
        "both fleets revealed after a resignation"
    )
    judgement = judge_log(log_bytes(pair.guest))
    assert judgement.valid and judgement.end == "resigned"


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
    assert "answered water, the commitment holds a ship" in finding.detail
    judgement = judge_log(log_bytes(pair.host))
    assert not judgement.valid
    assert judgement.violations[0].kind == "false-answer"
    assert judgement.violations[0].culprit is Role.GUEST
    assert judgement.violations[0].move == finding.move


def test_tampering_is_found() -> None:
    pair = make_pair(PRESETS["classic"], seed=6)
    play(pair, seed=7)
    frames = pair.host.transcript.frames
    import msgpack

    from statki_net.protocol.logformat import frame_record, header_record

    head = MAGIC + bytes(msgpack.packb(header_record("host", "t", 0), use_bin_type=True))

    def log(fs: list) -> bytes:  # type: ignore[type-arg]
        return head + b"".join(frame_record(f) for f in fs)

    cut = judge_log(log(frames[:10] + frames[11:]))
    assert cut.violations[0].kind == "broken-chain"
    swapped = [*frames[:10], frames[11], frames[10], *frames[12:]]
    assert judge_log(log(swapped)).violations[0].kind in ("broken-chain", "out-of-turn")
    other = make_pair(PRESETS["classic"], seed=8)
    play(other, seed=9)
    stitched = judge_log(log(frames[:12] + other.host.transcript.frames[12:]))
    assert stitched.violations[0].kind in ("broken-chain", "bad-signature")
    truncated = judge_log(log(frames[:15]))
    assert truncated.violations[0].kind == "unfinished"
    edited = bytearray(log(frames))
    index = edited.find(frames[12].body) + 30
    edited[index] ^= 1
    assert judge_log(bytes(edited)).violations[0].kind in ("bad-signature", "malformed")


def test_not_a_log() -> None:
    with pytest.raises(NotALog):
        judge_log(b"hello")
    damaged = judge_log(MAGIC + b"\x81\xa3log\x01" + b"\xc1\xc1")
    assert not damaged.valid

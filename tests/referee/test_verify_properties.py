"""Property tests of the referee: honest logs pass, and no tampering goes unseen."""

from __future__ import annotations

from functools import cache

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.logformat import MAGIC, frame_record, header_record
from statki_net.protocol.wire import Frame
from statki_net.referee.verify import judge_log

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def game(name: str, seed: int, resign_at: int | None = None) -> tuple[Frame, ...]:
    pair = make_pair(PRESETS[name], seed=seed)
    play(pair, seed=seed + 1, resign_at=resign_at)
    return tuple(pair.host.transcript.frames)


def short_games() -> list[tuple[Frame, ...]]:
    """Small logs holding every kind of message, so each example is cheap to judge."""
    return [game("classic", 21, resign_at=4), game("salvo-count", 22), game("five-ships", 23, 6)]


HEAD = MAGIC + bytes(msgpack.packb(header_record("host", "statki test", 0), use_bin_type=True))


def log_of(frames: list[Frame] | tuple[Frame, ...]) -> bytes:
    return HEAD + b"".join(frame_record(f) for f in frames)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(1, 10_000), st.sampled_from([None, 3, 9]))
def test_honest_logs_are_valid_under_every_preset(
    preset: str, seed: int, resign_at: int | None
) -> None:
    pair = make_pair(PRESETS[preset], seed=seed)
    play(pair, seed=seed + 7, resign_at=resign_at)
    judgement = judge_log(log_bytes(pair.guest, role="guest"))
    assert judgement.valid, judgement.violations
    assert judgement.winner == pair.guest.transcript.winner
    assert judgement.winner == pair.host.transcript.winner


def test_the_short_logs_are_valid() -> None:
    for frames in short_games():
        assert judge_log(log_of(frames)).valid


@settings(max_examples=1000, deadline=None)
@given(st.integers(0, 2), st.data())
def test_any_single_byte_change_in_the_frames_is_detected(which: int, data: st.DataObject) -> None:
    log = bytearray(log_of(short_games()[which]))
    where = data.draw(st.integers(len(HEAD), len(log) - 1), label="offset")
    log[where] = data.draw(st.integers(0, 255).filter(lambda b: b != log[where]), label="byte")
    judgement = judge_log(bytes(log))
    assert not judgement.valid
    assert judgement.violations


@FAST
@given(st.integers(0, 2), st.data())
def test_any_cut_is_detected(which: int, data: st.DataObject) -> None:
    frames = short_games()[which]
    start = data.draw(st.integers(0, len(frames) - 1), label="start")
    end = data.draw(st.integers(start + 1, len(frames)), label="end")
    assert not judge_log(log_of(frames[:start] + frames[end:])).valid


@FAST
@given(st.integers(0, 2), st.data())
def test_any_reordering_is_detected(which: int, data: st.DataObject) -> None:
    frames = short_games()[which]
    order = data.draw(st.permutations(range(len(frames))), label="order")
    if order == list(range(len(frames))):
        order = order[1:] + order[:1]
    assert not judge_log(log_of([frames[i] for i in order])).valid


@FAST
@given(st.integers(0, 2), st.integers(0, 2), st.data())
def test_any_splice_of_two_games_is_detected(which: int, other: int, data: st.DataObject) -> None:
    mine, theirs = short_games()[which], game("classic", 31 + other, resign_at=5)
    cut_in = data.draw(st.integers(0, len(mine)), label="cut in")
    resume = data.draw(st.integers(cut_in, len(mine)), label="resume")
    start = data.draw(st.integers(0, len(theirs) - 1), label="start")
    stop = data.draw(st.integers(start + 1, len(theirs)), label="stop")
    spliced = mine[:cut_in] + theirs[start:stop] + mine[resume:]
    if spliced == theirs:
        # All of mine cut away and all of theirs kept: that is their whole,
        # honest game, not a splice.
        spliced = spliced[:-1] + mine[-1:]
    assert not judge_log(log_of(spliced)).valid

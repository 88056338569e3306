"""The referee's shortcut (SPEC.md section 16): checking each side's last signature.

A referee may verify only each side's last signature in a log's transcript,
since each covers the hash chain before it, and check every signature only to
locate a failure.  These tests hold it to the report of a referee that checks
every one: the same on every sample log and on every tampered log, but for the
one change the shortcut cannot see, a signature replaced on a record that is
not its side's last, which the shortcut judges as the log was before it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import msgpack
import pytest
from gamelogs import log_file_of, named, played, signed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol import transcript
from statki_net.protocol.logformat import MAGIC, frame_record, header_record, read_log
from statki_net.protocol.wire import Frame, Role, Shot, sign, signature_valid
from statki_net.referee.verify import NamedLog, judge_log, judge_logs

LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"
HEAD = MAGIC + bytes(msgpack.packb(header_record("host", "statki test", 0), use_bin_type=True))
SIGNATURE = 64
"""A frame record ends with its signature's bytes (``frame_record``)."""

CHANGE = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def game(name: str, seed: int, resign_at: int | None = None) -> tuple[Frame, ...]:
    pair = make_pair(PRESETS[name], seed=seed)
    play(pair, seed=seed + 1, resign_at=resign_at)
    return tuple(pair.host.transcript.frames)


def games() -> list[tuple[Frame, ...]]:
    return [game("classic", 41, resign_at=4), game("salvo-count", 42), game("five-ships", 43, 6)]


def log_of(frames: tuple[Frame, ...] | list[Frame]) -> bytes:
    return HEAD + b"".join(frame_record(f) for f in frames)


def both(data: bytes, name: str = "log") -> tuple[dict[str, object], dict[str, object]]:
    """The reports with the shortcut and with every signature checked."""
    return judge_log(data, name).to_json(), judge_log(data, name, every_signature=True).to_json()


def hidden_signature(frames: tuple[Frame, ...], offset: int) -> bool:
    """Whether ``offset`` of ``log_of(frames)`` is in the signature of a record that is
    not its side's last: the one change a check of the last signatures cannot see."""
    last = {frame.header.sender: index for index, frame in enumerate(frames)}
    end = len(HEAD)
    for index, frame in enumerate(frames):
        end += len(frame_record(frame))
        if offset < end:
            return offset >= end - SIGNATURE and last[frame.header.sender] != index
    return False


# ---------------------------------------------------------------- the sample logs


def sample_logs() -> list[Path]:
    return sorted(LOGS.glob("*.statki"))


def test_every_sample_log_gets_the_same_report_either_way_but_the_one_signature_replaced() -> None:
    honest = judge_log((LOGS / "honest-short.statki").read_bytes(), "bad-signature.statki")
    assert len(sample_logs()) > 30
    for path in sample_logs():
        shortcut, every = both(path.read_bytes(), path.name)
        assert every == json.loads(path.with_suffix(".json").read_text())["expected"]
        if path.name == "bad-signature.statki":
            # Message 9's signature, replaced, is not the guest's last: its body is
            # the guest's word all the same, vouched for by the guest's later messages.
            assert every["standing"] == "invalid" and shortcut == honest.to_json()
        else:
            assert shortcut == every, path.name


def test_every_pair_of_sample_logs_gets_the_same_reports_either_way() -> None:
    pairs = sorted(LOGS.glob("*.pair.json"))
    assert pairs
    for pair in pairs:
        names = json.loads(pair.read_text())["logs"]
        logs = [NamedLog(n, read_log((LOGS / n).read_bytes())) for n in names]
        shortcut = [game.to_json() for game in judge_logs(logs)]
        assert shortcut == [game.to_json() for game in judge_logs(logs, every_signature=True)]


# ---------------------------------------------------------------- tampered logs


@CHANGE
@given(st.integers(0, 2), st.data())
def test_a_changed_byte_gets_the_same_report_either_way_unless_a_signature_hides_it(
    which: int, data: st.DataObject
) -> None:
    frames = games()[which]
    original = log_of(frames)
    log = bytearray(original)
    where = data.draw(st.integers(len(HEAD), len(log) - 1), label="offset")
    log[where] = data.draw(st.integers(0, 255).filter(lambda b: b != log[where]), label="byte")
    shortcut, every = both(bytes(log))
    if hidden_signature(frames, where):
        assert every["standing"] == "invalid"
        assert shortcut == judge_log(original).to_json()
    else:
        assert shortcut == every


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2), st.data())
def test_cut_reordered_and_spliced_logs_get_the_same_report_either_way(
    which: int, data: st.DataObject
) -> None:
    frames = list(games()[which])
    other = list(game("classic", 51, resign_at=5))
    start = data.draw(st.integers(0, len(frames) - 1), label="start")
    stop = data.draw(st.integers(start, len(frames)), label="stop")
    kind = data.draw(st.sampled_from(["cut", "swap", "splice"]), label="kind")
    if kind == "cut":
        tampered = frames[:start] + frames[stop:]
    elif kind == "swap":
        tampered = list(frames)
        tampered[start], tampered[stop - 1] = tampered[stop - 1], tampered[start]
    else:
        tampered = frames[:start] + other[start:stop] + frames[stop:]
    shortcut, every = both(log_of(tampered))
    assert shortcut == every


def test_a_forgery_signed_by_the_wrong_key_is_found_at_its_place() -> None:
    """The last frame signed by a key not its side's: the check of the last signature
    fails, and checking every signature names the forged message."""
    honest = played("classic", seed=61)
    at = honest.shooting(Role.HOST)
    shot = signed(honest, honest.frames[:at], Role.HOST, Shot((0,)))
    forged = sign(honest.key(Role.GUEST), shot.header, shot.message)
    log = log_file_of([*honest.frames[:at], forged])
    shortcut, every = both(log)
    assert shortcut == every
    [violation] = judge_log(log).violations
    assert violation.kind == "bad-signature" and f"message {at}" in str(violation.detail)


def test_the_shortcut_verifies_one_signature_a_side_of_an_honest_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The point of it: an honest log costs one signature check a side, not one a frame."""
    frames = games()[0]
    checked: list[int] = []
    real = signature_valid

    def counting(key: bytes, frame: Frame) -> bool:
        checked.append(frame.header.seq)
        return real(key, frame)

    monkeypatch.setattr(transcript, "signature_valid", counting)
    assert judge_log(log_of(frames)).valid
    assert sorted(checked) == [len(frames) - 2, len(frames) - 1]
    checked.clear()
    assert judge_log(log_of(frames), every_signature=True).valid
    assert checked == list(range(len(frames)))


def test_two_sides_logs_of_a_lost_connection_get_the_same_report_either_way() -> None:
    honest = played("classic", seed=71)
    cut = honest.shooting(Role.GUEST)
    host = log_file_of(honest.frames[:cut])
    guest = log_file_of(honest.frames[: cut + 1], Role.GUEST)
    logs = [named("host", host), named("guest", guest)]
    shortcut = [g.to_json() for g in judge_logs(logs)]
    assert shortcut == [g.to_json() for g in judge_logs(logs, every_signature=True)]

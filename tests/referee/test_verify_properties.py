"""Property tests of the referee: honest logs pass, no tampering goes unseen, and several
logs of one game make one game, whose forks are judged by who signed what."""

from __future__ import annotations

import json
from functools import cache

import msgpack
from gamelogs import Played, log_file_of, named, played, signed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.endings import End, Standing
from statki_net.protocol.logformat import MAGIC, frame_record, header_record, log_file
from statki_net.protocol.wire import (
    SIGN_LABEL,
    Accept,
    Error,
    Frame,
    Message,
    Resign,
    Role,
    TimeClaim,
)
from statki_net.referee.verify import judge_game, judge_log, judge_logs

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
def test_honest_logs_are_valid_under_every_preset_alone_and_together(
    preset: str, seed: int, resign_at: int | None
) -> None:
    pair = make_pair(PRESETS[preset], seed=seed)
    play(pair, seed=seed + 7, resign_at=resign_at)
    host, guest = log_bytes(pair.host), log_bytes(pair.guest, role="guest")
    alone = [judge_log(host), judge_log(guest)]
    [together] = judge_logs([named("host", host), named("guest", guest)])
    for judgement in [*alone, together]:
        assert judgement.valid, judgement.violations
        assert judgement.fork is None and judgement.violations == []
        assert judgement.winner == pair.host.transcript.winner == pair.guest.transcript.winner
        assert judgement.end is pair.host.transcript.end
    assert [log.messages for log in together.logs] == [len(pair.host.transcript.frames)] * 2


def test_the_short_logs_are_valid() -> None:
    for frames in short_games():
        assert judge_log(log_of(frames)).valid


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2), st.data())
def test_any_single_byte_change_in_the_frames_is_detected(which: int, data: st.DataObject) -> None:
    log = bytearray(log_of(short_games()[which]))
    where = data.draw(st.integers(len(HEAD), len(log) - 1), label="offset")
    log[where] = data.draw(st.integers(0, 255).filter(lambda b: b != log[where]), label="byte")
    # Every signature: the one change the shortcut misses is tested in test_last_signatures.
    judgement = judge_log(bytes(log), every_signature=True)
    assert not judgement.valid
    # A change can make a record one of an unknown kind, which readers skip: the
    # log then ends early (unfinished), or the next frame does not follow.
    assert judgement.violations or judgement.standing is Standing.UNFINISHED


@FAST
@given(st.integers(0, 2), st.data())
def test_any_cut_is_detected(which: int, data: st.DataObject) -> None:
    frames = short_games()[which]
    start = data.draw(st.integers(0, len(frames) - 1), label="start")
    end = data.draw(st.integers(start + 1, len(frames)), label="end")
    judgement = judge_log(log_of(frames[:start] + frames[end:]))
    if end < len(frames):
        assert judgement.standing is Standing.INVALID
        assert [v.kind for v in judgement.violations] == ["broken-chain"]
    elif start > 2:
        # Only the end is gone: the log stops before the game did.
        assert judgement.standing is Standing.UNFINISHED and judgement.violations == []
    else:
        # Nothing was at stake before the guest's accept.
        assert judgement.valid and judgement.end is End.NO_GAME and not judgement.culprits


@FAST
@given(st.integers(0, 2), st.data())
def test_any_reordering_is_detected(which: int, data: st.DataObject) -> None:
    frames = short_games()[which]
    order = data.draw(st.permutations(range(len(frames))), label="order")
    if order == list(range(len(frames))):
        order = order[1:] + order[:1]
    assert judge_log(log_of([frames[i] for i in order])).standing is Standing.INVALID


@FAST
@given(st.integers(0, 2), st.integers(0, 2), st.data())
def test_any_splice_of_two_games_is_detected(which: int, other: int, data: st.DataObject) -> None:
    mine, theirs = short_games()[which], game("classic", 31 + other, resign_at=5)
    cut_in = data.draw(st.integers(1, len(mine)), label="cut in")
    resume = data.draw(st.integers(cut_in, len(mine)), label="resume")
    start = data.draw(st.integers(0, len(theirs) - 1), label="start")
    stop = data.draw(st.integers(start + 1, len(theirs)), label="stop")
    spliced = mine[:cut_in] + theirs[start:stop] + mine[resume:]
    assert judge_log(log_of(spliced)).standing is Standing.INVALID


@FAST
@given(st.integers(0, 2), st.integers(1, 4))
def test_copies_of_a_log_are_one_game_judged_as_the_log_alone(which: int, copies: int) -> None:
    log = log_of(short_games()[which])
    alone = judge_log(log, "copy")
    [together] = judge_logs([named("copy", log)] * copies)
    assert len(together.logs) == copies
    assert together.to_json() | {"logs": []} == alone.to_json() | {"logs": []}


@FAST
@given(st.integers(0, 2), st.data())
def test_both_sides_logs_agree_at_any_point_the_game_stopped(
    which: int, data: st.DataObject
) -> None:
    """Each side holds a prefix of the one transcript: judged together, the longer stands."""
    frames = short_games()[which]
    mine = data.draw(st.integers(2, len(frames)), label="host's messages")
    theirs = data.draw(st.integers(2, len(frames)), label="guest's messages")
    host, guest = log_of(frames[:mine]), log_file_of(frames[:theirs], Role.GUEST)
    [together] = judge_logs([named("host", host), named("guest", guest)])
    longer = judge_log(host if mine >= theirs else guest)
    assert together.fork is None
    assert (together.standing, together.ending) == (longer.standing, longer.ending)


@FAST
@given(st.integers(0, 1), st.integers(0, 1))
def test_a_log_without_a_game_id_is_a_game_of_its_own(mine: int, theirs: int) -> None:
    frames = short_games()[0]
    judged = judge_logs([named("host", log_of(frames[:mine])), named("g", log_of(frames[:theirs]))])
    assert len(judged) == 2 and all(j.game is None for j in judged)
    assert all(j.valid and j.end is End.NO_GAME for j in judged)


STOPS: list[Message] = [Error("closed", "stopped"), TimeClaim(120_000), Resign()]


@FAST
@given(st.data())
def test_a_fork_signed_twice_by_one_side_is_equivocation(data: st.DataObject) -> None:
    whole = played(seed=81, resign_at=5)
    frames = whole.frames
    place = data.draw(st.integers(2, len(frames) - 1), label="place")
    signer = frames[place].header.sender
    # Dated apart from the message it stands beside, so that the two always differ.
    at = frames[place].header.at + 1_000
    other = signed(whole, frames[:place], signer, data.draw(st.sampled_from(STOPS)), at=at)
    logs = [named("one", log_file_of(frames)), named("two", log_file_of([*frames[:place], other]))]
    judgement = judge_game(data.draw(st.permutations(logs), label="order"))
    assert judgement.standing is Standing.INVALID
    assert judgement.fork is not None and judgement.fork.seq == place
    equivocations = [v for v in judgement.violations if v.kind == "equivocation"]
    assert [v.culprit for v in equivocations] == [signer]
    assert judgement.culprits == {signer}
    at_stake = any(isinstance(f.message, Accept) for f in frames[:place])
    if at_stake:
        assert (judgement.end, judgement.winner) == (End.CHEATED, signer.other)
    else:
        assert (judgement.end, judgement.winner) == (End.NO_GAME, None)


def _mutated(value: object, data: st.DataObject) -> object:
    """``value`` with one part replaced by something of any msgpack type."""
    anything = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**63), 2**64 - 1)
        | st.floats(allow_nan=False)
        | st.text(max_size=30)
        | st.binary(max_size=40),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=8,
    )
    if isinstance(value, dict) and value and data.draw(st.booleans(), label="deeper"):
        key = data.draw(st.sampled_from(sorted(value, key=str)), label="key")
        return {**value, key: _mutated(value[key], data)}
    if isinstance(value, list) and value and data.draw(st.booleans(), label="deeper"):
        where = data.draw(st.integers(0, len(value) - 1), label="item")
        return [*value[:where], _mutated(value[where], data), *value[where + 1 :]]
    return data.draw(anything, label="replacement")


@cache
def hostile_games() -> tuple[Played, ...]:
    """Short games whose frames a hostile peer rewrites (three presets' worth of messages)."""
    return (
        played(seed=83, resign_at=4),
        played("salvo-count", 84, resign_at=3),
        played("five-ships", 85, resign_at=5),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2), st.data())
def test_a_signed_frame_of_any_content_is_judged_without_failing(
    which: int, data: st.DataObject
) -> None:
    """A hostile peer signs whatever it likes: the referee still judges, and blames only it."""
    whole = hostile_games()[which]
    frames = whole.frames
    place = data.draw(st.integers(2, len(frames) - 1), label="place")
    original = frames[place]
    fields = msgpack.unpackb(original.body, raw=False)
    # The keys that place the frame stay, so it is its sender's word at that place.
    free = sorted(set(fields) - {"from", "seq", "prev", "game"})
    key = data.draw(st.sampled_from(free), label="key")
    changed = dict(fields)
    if data.draw(st.booleans(), label="drop it"):
        del changed[key]
    else:
        changed[key] = _mutated(fields[key], data)
    body = msgpack.packb(changed, use_bin_type=True)
    sender = original.header.sender
    signature = whole.key(sender).sign(SIGN_LABEL + body)
    records = [frame_record(f) for f in frames[:place]]
    records.append(msgpack.packb({"body": body, "sig": signature}, use_bin_type=True))
    judgement = judge_log(log_file(header_record("host", "t", 0), records))
    assert judgement.standing in (Standing.VALID, Standing.INVALID, Standing.UNFINISHED)
    assert sender.other not in judgement.culprits, judgement.lines()
    assert all(v.culprit in (None, sender) for v in judgement.violations), judgement.lines()
    json.dumps(judgement.to_json())

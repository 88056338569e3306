"""The players' talk (SPEC.md section 6, "say"): lines outside the game that cannot touch it.

Two sessions play back to back in memory.  The property: whatever lines the
players say, whenever (between any two deliveries), and whatever bad talk
someone on the path slips in, each side's transcript is byte for byte the one
silence gives, and so are the endings and the referee's judgement of both
logs.  Then each bound, one by one, with the typed outcome the receiver
gives it, and the referee's view of talk records.
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import log_of, make_pair, player_moves, step

from statki_net.game.rules import PRESETS
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.bounds import (
    HEARD_RATE,
    MAX_SAY_BODY,
    MAX_SAY_CHARS,
    MAX_SAYS,
    MAX_TALK_NOTES,
    SAY_RATE,
    SAY_WINDOW_MS,
)
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    frame_record,
    header_record,
    log_file,
    next_say,
    read_log,
    talk_record,
)
from statki_net.protocol.session import Session
from statki_net.protocol.talk import TalkDropped, TalkHeard, TalkRefused, TalkSaid
from statki_net.protocol.wire import (
    SAY_LABEL,
    Role,
    Say,
    SayFrame,
    encode_say,
    sign_say,
)
from statki_net.referee.judging import NamedLog, judge_game
from statki_net.referee.violations import Kind, ViolationClass

LINES = ("hej", "Cześć! Gramy?", "pudło", "trafiony zatopiony", "ą" * MAX_SAY_CHARS, "  ok  ")


def opened(seed: int = 7) -> BackToBack:
    """A pair past the hellos and the guest's accept: both have the game id."""
    pair = make_pair(PRESETS["classic"], seed=seed)
    rng = random.Random(seed)
    while len(pair.guest.transcript.frames) < 3 or len(pair.host.transcript.frames) < 3:
        assert step(pair, rng)
    return pair


def line(
    sender: Session,
    text: str = "hej",
    *,
    n: int = 0,
    game: bytes | None = None,
    at: int = 0,
    override: dict[str, Any] | None = None,
) -> SayFrame:
    """A say signed by ``sender``'s key, of its game unless told otherwise; ``override``
    changes fields of the body after the fact (still signed)."""
    say = Say(sender.role, sender.transcript.game if game is None else game, n, 2, at, text)
    frame = sign_say(sender.key, say)
    if not override:
        return frame
    body = dict(msgpack.unpackb(frame.body, raw=False), **override)
    data = bytes(msgpack.packb(body, use_bin_type=True))
    return SayFrame(data, sender.key.sign(SAY_LABEL + data), say)


def heard(pair: BackToBack, receiver: Session, data: bytes) -> list[Any]:
    """The talk events ``receiver`` gives for ``data``, which the game never sees."""
    before = (len(receiver.transcript.frames), receiver.connected, receiver.deadline())
    events = receiver.receive_data(data, pair.now)
    assert (len(receiver.transcript.frames), receiver.connected, receiver.deadline()) == before
    return [e for e in events if isinstance(e, TalkHeard | TalkDropped)]


def dropped(pair: BackToBack, receiver: Session, data: bytes) -> Code:
    [event] = heard(pair, receiver, data)
    assert isinstance(event, TalkDropped), event
    return event.code


# ---------------------------------------------------------------- the property

Talk = tuple[int, str, str]
"""(progress, who, what): once the two transcripts hold ``progress`` messages between
them, ``who`` does ``what``."""

SCHEDULE = st.lists(
    st.tuples(
        st.integers(2, 600),
        st.sampled_from(["host", "guest"]),
        st.sampled_from(["say", "burst", "long", "control", "forged", "other-game", "replay"]),
    ),
    max_size=25,
)
ADVANCES = st.dictionaries(st.integers(0, 600), st.integers(1, 4_000), max_size=20)
"""Clock jumps at points of the game, the same with and without talk: timing varies, the
game does not (and no delivery moves the clock, so talk's own deliveries cannot)."""


def played(seed: int, advances: dict[int, int], talk: list[Talk]) -> tuple[BackToBack, int]:
    """A whole honest game, one delivery or one player's move at a time, with ``talk``
    slipped in between any two; how many lines the players said."""
    pair = make_pair(PRESETS["classic"], seed=seed)
    rng = random.Random(seed)
    pair.record(Role.HOST, pair.host.start(pair.now))
    done: set[int] = set()
    said = 0
    for _ in range(5000):
        progress = len(pair.host.transcript.frames) + len(pair.guest.transcript.frames)
        if progress not in done:
            done.add(progress)
            pair.now += advances.get(progress, 0)
            for when, who, what in talk:
                if when == progress:
                    said += act(pair, Role(who), what)
        if not (delivered(pair) or player_moves(pair, rng)):
            break
    assert pair.host.closed and pair.guest.closed
    return pair, said


def delivered(pair: BackToBack) -> bool:
    """One side's pending bytes to the other, the host's first; the clock stands still."""
    for sender in (pair.host, pair.guest):
        data = sender.data_to_send()
        if data:
            receiver = pair.session(sender.role.other)
            pair.record(receiver.role, receiver.receive_data(data, pair.now))
            return True
    return False


def act(pair: BackToBack, role: Role, what: str) -> int:
    """One piece of talk: said by ``role``'s player, or slipped in by someone on the path
    towards ``role``'s peer; how many lines were said."""
    side, peer = pair.session(role), pair.session(role.other)
    if what in ("say", "burst", "long", "control"):
        texts = {
            "say": ["hej"],
            "burst": ["raz", "dwa", "trzy", "cztery", "pięć", "sześć", "siedem"],
            "long": ["x" * (MAX_SAY_CHARS + 1)],
            "control": ["a\u202eb", "line\nbreak"],
        }[what]
        said = 0
        for text in texts:
            try:
                pair.record(role, side.say(text, pair.now))
                said += 1
            except TalkRefused:
                pass  # over the rate, a bound, or nobody to hear: refused, the game goes on
        return said
    if not peer.connected or len(side.transcript.frames) < 2:
        return 0
    own = [e.frame for e in pair.events[role] if isinstance(e, TalkSaid)]
    forged = {
        "forged": SayFrame(line(side).body, bytes(64), line(side).say),
        "other-game": line(side, game=bytes(32)),
        "replay": own[-1] if own else line(side, game=bytes(32)),
    }[what]
    pair.record(peer.role, peer.receive_data(forged.encode(), pair.now))
    return 0


def verdicts(pair: BackToBack) -> list[tuple[Any, ...]]:
    """What the referee makes of each side's log."""
    logs = [NamedLog(role.value, read_log(log_of(pair.events[role], role))) for role in Role]
    out = []
    for group in ([logs[0]], [logs[1]]):
        judgement = judge_game(group)
        out.append((judgement.ending, judgement.standing, judgement.headline()))
    return out


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(seed=st.integers(1, 4), advances=ADVANCES, talk=SCHEDULE)
def test_no_talk_at_any_moment_changes_the_game(
    seed: int, advances: dict[int, int], talk: list[Talk]
) -> None:
    silent, _ = played(seed, advances, [])
    talking, said = played(seed, advances, talk)
    for role in Role:
        quiet, chatty = silent.session(role), talking.session(role)
        assert [f.body for f in chatty.transcript.frames] == [
            f.body for f in quiet.transcript.frames
        ]
        assert chatty.ending == quiet.ending
    assert verdicts(talking) == verdicts(silent)
    heard_lines = sum(isinstance(e, TalkHeard) for r in Role for e in talking.events[r])
    assert heard_lines <= said, "only what was said is heard, and each line once"


def test_a_game_full_of_talk_is_judged_as_the_silent_one_and_shows_the_talk() -> None:
    talk = [(i, r, "say") for i in range(2, 300, 9) for r in ("host", "guest")]
    advances = {i: 2_100 for i in range(2, 300, 9)}
    silent, _ = played(3, advances, [])
    talking, said = played(3, advances, talk)
    assert verdicts(talking) == verdicts(silent)
    logs = [NamedLog(r.value, read_log(log_of(talking.events[r], r))) for r in Role]
    judgement = judge_game(logs)
    assert len(judgement.talk) == said > 20, "every line once, though both logs hold it"
    assert {line.sender for line in judgement.talk} == {Role.HOST, Role.GUEST}
    assert [line.seen for line in judgement.talk] == sorted(line.seen for line in judgement.talk)
    report = judgement.to_json()
    assert report["talk"][0] == {
        "from": judgement.talk[0].sender.value,
        "n": 0,
        "seen": judgement.talk[0].seen,
        "at": judgement.talk[0].at,
        "text": "hej",
    }
    assert any(f"after message {judgement.talk[0].seen}: hej" in s for s in judgement.lines())


# ---------------------------------------------------------------- bounds, one by one


def test_a_line_is_heard_once_signed_of_this_game_and_in_order() -> None:
    pair = opened()
    events = pair.guest.say("Cześć! Gramy?", pair.now)
    [said] = [e for e in events if isinstance(e, TalkSaid)]
    assert said.say.n == 0 and said.say.seen == len(pair.guest.transcript.frames)
    [event] = heard(pair, pair.host, pair.guest.data_to_send())
    assert isinstance(event, TalkHeard) and event.say.text == "Cześć! Gramy?"
    assert event.frame.body == said.frame.body
    assert dropped(pair, pair.host, said.frame.encode()) is Code.BAD_CHAIN, "a replay"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("x" * (MAX_SAY_CHARS + 1), "longer than 200 characters"),
        ("😀" * 151, "longer than 600 bytes"),
        ("", "an empty line"),
        ("   ", "an empty line"),
        ("two\nlines", "U+000A"),
        ("tab\there", "U+0009"),
        ("bell\x07", "U+0007"),
        ("del\x7f", "U+007F"),
        ("c1\x85", "U+0085"),
        ("evil \u202egnp.exe", "U+202E"),
        ("isolate \u2066x\u2069", "U+2066"),
        ("mark \u200f", "U+200F"),
        ("para\u2029graph", "U+2029"),
    ],
)
def test_a_line_out_of_bounds_is_refused_to_say_and_dropped_when_heard(text: str, why: str) -> None:
    pair = opened()
    with pytest.raises(TalkRefused) as refused:
        pair.guest.say(text, pair.now)
    assert refused.value.code is Code.BAD_FIELD and why in str(refused.value)
    assert not pair.guest.data_to_send(), "nothing was sent"
    assert dropped(pair, pair.host, line(pair.guest, text).encode()) is Code.BAD_FIELD


def test_a_line_of_two_hundred_polish_letters_is_within_bounds() -> None:
    pair = opened()
    pair.guest.say("ż" * MAX_SAY_CHARS, pair.now)
    [event] = heard(pair, pair.host, pair.guest.data_to_send())
    assert isinstance(event, TalkHeard)


def test_talking_too_fast_is_refused_to_the_sender_and_dropped_by_the_receiver() -> None:
    pair = opened()
    for i in range(SAY_RATE):
        pair.guest.say(f"line {i}", pair.now)
    with pytest.raises(TalkRefused) as refused:
        pair.guest.say("one too many", pair.now)
    assert refused.value.code is Code.TOO_FAST
    pair.guest.say("later", pair.now + SAY_WINDOW_MS)  # the window has moved on
    # A peer that ignores its own bound: the receiver takes twice the rate, then drops.
    codes = [
        e.code if isinstance(e, TalkDropped) else None
        for n in range(HEARD_RATE + 3)
        for e in heard(pair, pair.host, line(pair.guest, f"flood {n}", n=n).encode())
    ]
    assert codes == [None] * HEARD_RATE + [Code.TOO_FAST] * 3
    pair.now += SAY_WINDOW_MS
    [event] = heard(pair, pair.host, line(pair.guest, "calm again", n=99).encode())
    assert isinstance(event, TalkHeard)


def test_a_flood_is_counted_before_its_signatures_are_checked_and_noted_only_at_first() -> None:
    pair = opened()
    bad = [SayFrame(line(pair.guest, n=n).body, bytes(64), line(pair.guest).say) for n in range(40)]
    events = pair.host.receive_data(b"".join(f.encode() for f in bad), pair.now)
    drops = [e for e in events if isinstance(e, TalkDropped)]
    assert [d.code for d in drops] == [Code.BAD_SIGNATURE] * HEARD_RATE + [Code.TOO_FAST] * 30
    assert [d.noted for d in drops] == [True] * MAX_TALK_NOTES + [False] * (40 - MAX_TALK_NOTES)
    assert pair.host.connected and pair.host.talk.dropped[Code.TOO_FAST] == 30


def test_a_game_takes_at_most_its_total_of_lines_from_a_side() -> None:
    pair = opened()
    for n in range(MAX_SAYS):
        pair.now += SAY_WINDOW_MS
        [event] = heard(pair, pair.host, line(pair.guest, f"{n}", n=n).encode())
        assert isinstance(event, TalkHeard)
    pair.now += SAY_WINDOW_MS
    assert dropped(pair, pair.host, line(pair.guest, "more", n=MAX_SAYS).encode()) is Code.TOO_FAST


@pytest.mark.parametrize(
    ("forge", "code"),
    [
        (lambda p: SayFrame(line(p.guest).body, bytes(64), line(p.guest).say), Code.BAD_SIGNATURE),
        (lambda p: line(p.host, "signed by the host"), Code.OUT_OF_TURN),
        (lambda p: line(p.guest, game=bytes(32)), Code.BAD_CHAIN),
        (lambda p: line(p.guest, override={"text": 7}), Code.BAD_FIELD),
        (lambda p: line(p.guest, override={"n": -1}), Code.BAD_FIELD),
        (lambda p: line(p.guest, override={"at": 1.5}), Code.BAD_FIELD),
        (lambda p: line(p.guest, override={"from": "referee"}), Code.BAD_FIELD),
        (lambda p: line(p.guest, override={"pad": b"x" * MAX_SAY_BODY}), Code.TOO_LARGE),
        (lambda p: line(p.guest, override={"pad": b"x" * MAX_SAY_BODY, "text": 7}), Code.TOO_LARGE),
    ],
    ids=[
        "bad-signature",
        "own-name",
        "other-game",
        "text-not-str",
        "negative-n",
        "float-at",
        "stranger",
        "too-large",
        "too-large-first",
    ],
)
def test_talk_that_is_not_the_peers_line_is_dropped_with_its_code(forge: Any, code: Code) -> None:
    pair = opened()
    assert dropped(pair, pair.host, forge(pair).encode()) is code
    # The game goes on as if nothing had come.
    assert step(pair, random.Random(1)) and pair.host.connected and pair.guest.connected


def test_talk_before_the_game_has_an_id_is_refused_and_dropped() -> None:
    pair = make_pair(PRESETS["classic"], seed=3)
    pair.record(Role.HOST, pair.host.start(pair.now))
    with pytest.raises(TalkRefused) as refused:
        pair.host.say("anyone?", pair.now)
    assert refused.value.code is Code.OUT_OF_TURN
    early = sign_say(pair.host.key, Say(Role.HOST, bytes(32), 0, 1, 0, "hello?"))
    hello = pair.host.data_to_send()
    events = pair.guest.receive_data(early.encode() + hello, pair.now)
    assert [e.code for e in events if isinstance(e, TalkDropped)] == [Code.OUT_OF_TURN]
    assert len(pair.guest.transcript.frames) == 2, "the hellos go on as if nothing came"


def test_nothing_is_said_over_a_lost_connection_nor_after_the_end() -> None:
    pair = opened()
    pair.cut()
    with pytest.raises(TalkRefused) as refused:
        pair.guest.say("hello?", pair.now)
    assert refused.value.code is Code.LOST
    done = opened(seed=8)
    rng = random.Random(2)
    while step(done, rng):
        pass
    with pytest.raises(TalkRefused):
        done.host.say("gg", done.now)


def test_a_side_picked_up_again_goes_on_numbering_its_lines() -> None:
    pair = opened()
    for text in ("one", "two"):
        pair.record(Role.GUEST, pair.guest.say(text, pair.now))
    pair.pump()
    contents = read_log(log_of(pair.events[Role.GUEST], Role.GUEST))
    assert next_say(contents, Role.GUEST) == 2
    assert next_say(contents, Role.HOST) == 0


# ---------------------------------------------------------------- the referee


def talking_logs() -> tuple[BackToBack, list[bytes]]:
    pair = opened()
    pair.record(Role.GUEST, pair.guest.say("Cześć!", pair.now))
    pair.record(Role.HOST, pair.host.say("Hej!", pair.now))
    pair.pump()
    rng = random.Random(5)
    while step(pair, rng):
        pass
    return pair, [log_of(pair.events[role], role) for role in Role]


def test_the_referee_shows_the_talk_and_ignores_it_for_the_verdict() -> None:
    pair, logs = talking_logs()
    judgement = judge_game([NamedLog("host", read_log(logs[0]))])
    assert [(t.sender, t.text) for t in judgement.talk] == [
        (Role.GUEST, "Cześć!"),
        (Role.HOST, "Hej!"),
    ]
    assert judgement.valid and not judgement.violations
    assert judgement.ending == pair.host.ending


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda body, sig: (body.replace(b"Hej", b"Nie"), sig), "signature does not verify"),
        (lambda body, sig: (msgpack.packb({"type": "shot"}), sig), "not a say"),
        (lambda body, sig: (b"\xc1", sig), "cannot be read"),
    ],
    ids=["words-changed", "not-a-say", "garbage"],
)
def test_a_bad_talk_record_is_found_and_changes_neither_result_nor_standing(
    change: Any, what: str
) -> None:
    pair, logs = talking_logs()
    contents = read_log(logs[0])
    header = header_record("host", "statki test", 0)
    records = []
    for record in contents.records:
        if record in contents.talk and b"Hej" in record.body:
            body, signature = change(record.body, record.signature)
            records.append(bytes(msgpack.packb({"say": body, "sig": signature})))
        elif record in contents.talk:
            records.append(talk_record(record))
        else:
            records.append(frame_record(record))  # type: ignore[arg-type]
    judgement = judge_game([NamedLog("host", read_log(log_file(header, records)))])
    [bad] = judgement.violations
    assert bad.kind is Kind.BAD_TALK and bad.violation_class is ViolationClass.TALK
    assert what in str(bad.detail) and bad.culprit is None
    assert judgement.valid and judgement.ending == pair.host.ending
    assert [t.text for t in judgement.talk] == ["Cześć!"]
    assert "bad-talk" not in judgement.headline() and judgement.standing_words() == "valid"


def test_a_line_replayed_in_a_log_or_from_another_game_is_bad_talk() -> None:
    _, logs = talking_logs()
    contents = read_log(logs[0])
    header = header_record("host", "statki test", 0)
    first = contents.talk[0]
    stranger = make_pair(PRESETS["classic"], seed=99).guest
    foreign = sign_say(stranger.key, Say(Role.GUEST, bytes(32), 5, 2, 0, "obcy"))
    records = [frame_record(r) for r in contents.records if r not in contents.talk]  # type: ignore[arg-type]
    records += [talk_record(first), talk_record(first), talk_record(foreign)]
    judgement = judge_game([NamedLog("host", read_log(log_file(header, records)))])
    details = sorted(str(v.detail) for v in judgement.violations)
    assert [v.kind for v in judgement.violations] == [Kind.BAD_TALK] * 2
    assert any("again, or out of order" in d for d in details)
    assert any("another game" in d for d in details)
    said = msgpack.unpackb(first.body, raw=False)["text"]
    assert [t.text for t in judgement.talk] == [said] and judgement.valid


def test_a_say_body_is_what_the_vectors_show() -> None:
    say = Say(Role.HOST, bytes(range(32)), 3, 12, 1_700_000_000_000, "pudło")
    fields = msgpack.unpackb(encode_say(say), raw=False)
    assert list(fields) == ["type", "from", "game", "n", "seen", "at", "text"]
    assert fields["type"] == "say" and fields["text"] == "pudło"
    assert SAY_LABEL == b"statki/v4/say\x00"

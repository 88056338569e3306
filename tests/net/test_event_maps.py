"""A session's events as control-socket maps: each reads back as the value it was, through
msgpack as the socket carries it, and a copy that follows them is the session it copies.

Whole games are played back to back in memory (``tests/peers.py``), so the
events are the real ones of every kind a game gives; the kinds only a broken
connection or a hostile peer gives are written out here.  Cheap: no sockets,
a few games of a few hundred messages.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import key_from, make_pair, play, seeded_entropy

from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.game.words import Term, as_is, phrase
from statki_net.net.control import pack, unpacker
from statki_net.net.event_maps import event_from_map, event_map
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.events import (
    ConnectionLost,
    Event,
    Evidence,
    Failed,
    FrameAdded,
    GameClosed,
    Resumed,
)
from statki_net.protocol.session import Session
from statki_net.protocol.talk import TalkDropped
from statki_net.protocol.transcript import Finding, FindingKind
from statki_net.protocol.wire import Role, read_envelope


def through_the_socket(event: Event) -> Event | None:
    """``event`` written as a map, packed as the socket packs it, read back."""
    messages = unpacker()
    messages.feed(pack(event_map(event)))
    [value] = list(messages)
    return event_from_map(value)


def played(seed: int, rules: str, resign_at: int | None) -> BackToBack:
    pair = make_pair(ruleset_named(rules), seed)
    play(pair, seed, resign_at=resign_at)
    for role in (Role.HOST, Role.GUEST):
        # A line each way, so that talk is among the events.
        session = pair.session(role)
        if not session.closed:
            pair.record(role, session.say("hej", pair.now))
    pair.pump()
    return pair


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(1, 10_000),
    rules=st.sampled_from(sorted(PRESETS)),
    resign_at=st.none() | st.integers(1, 30),
)
def test_every_event_of_a_game_reads_back_as_it_was(
    seed: int, rules: str, resign_at: int | None
) -> None:
    pair = played(seed, rules, resign_at)
    for role in (Role.HOST, Role.GUEST):
        events = pair.events[role]
        assert any(isinstance(e, GameClosed) for e in events)
        for event in events:
            assert through_the_socket(event) == event


def test_the_events_of_a_broken_connection_and_a_hostile_peer_read_back() -> None:
    pair = make_pair(ruleset_named("classic"), 3)
    pair.record(Role.HOST, pair.host.start(pair.now))
    [hello] = pair.host.transcript.frames
    envelope = read_envelope([hello.body, hello.signature])
    # A phrase travels as its text and facts, a term and a phrase inside it included, so the
    # front end says it in its own player's language.
    reason = phrase("{who:gen} answers: {what}", who=Term("host"), what=as_is("false"))
    ending = Ending(End.CHEATED, Role.GUEST, frozenset({Role.HOST}), reason)
    detail = phrase("{square} was a hit", square="B4")
    finding = Finding(Role.HOST, FindingKind.FALSE_ANSWER, detail, move=7, square=13)
    rare: list[Event] = [
        Evidence(envelope, Code.BAD_CHAIN, 1234),
        ConnectionLost(Code.LOST, "the connection closed", b"\x00garbage"),
        Resumed(12, 3),
        Failed(None, "who knows", by_peer=True, unknown_code="brand-new"),
        Failed(Code.TIMEOUT, "no move in time", by_peer=False),
        GameClosed(ending, (finding,)),
        GameClosed(Ending(End.NO_GAME, reason=as_is("the host left")), ()),
        TalkDropped(Code.TOO_FAST, "two lines at once", 99, b"\x01", noted=False),
        FrameAdded(hello, outgoing=True),
    ]
    for event in rare:
        assert through_the_socket(event) == event


def test_a_kind_not_known_here_is_passed_over() -> None:
    assert event_from_map({"kind": "from-a-newer-daemon", "x": 1}) is None


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(1, 10_000), rules=st.sampled_from(["classic", "salvo", "five-ships"]))
def test_a_copy_that_follows_the_frames_and_events_is_the_side_it_copies(
    seed: int, rules: str
) -> None:
    """What the daemon sends a front end, batch by batch, rebuilds this side's session."""
    made = make_pair(ruleset_named(rules), seed)
    host = made.host
    copy = Session(
        Role.HOST, key_from(seed * 2), name="Ala", entropy=seeded_entropy(0), rules=host.rules
    )
    assert host.fleet is not None
    copy.set_fleet(host.fleet)

    class Followed(BackToBack):
        """Each batch of the host's events goes to the copy, as the daemon sends it."""

        sent = 0

        def record(self, role: Role, events: list[Event]) -> None:
            super().record(role, events)
            if role is Role.HOST:
                frames = host.transcript.frames[self.sent :]
                self.sent = len(host.transcript.frames)
                told = [through_the_socket(e) for e in events if not isinstance(e, FrameAdded)]
                copy.follow(frames, [e for e in told if e is not None], self.now)
                assert copy.transcript.frames == host.transcript.frames
                assert copy.my_turn == host.my_turn and copy.shots_due == host.shots_due
                assert copy.view == host.view and copy.defence == host.defence
                assert copy.closed == host.closed

    pair = Followed(host, made.guest, made.now)
    play(pair, seed)
    assert host.closed and copy.closed
    assert copy.ending == host.ending and copy.failure == host.failure


@pytest.mark.parametrize("text", ["{b}", "{0}", "{a!r}", "{a:>100000000}", "{a.real}", "{a[0]}"])
def test_a_phrase_whose_text_names_no_fact_of_its_own_is_refused_as_it_is_read(text: str) -> None:
    """Its text is formatted where it is shown: a bad one fails on reading, as a ValueError."""
    reason = {"text": text, "facts": [["a", "z"]]}
    ending: dict[str, object] = {"end": "no-game", "winner": None, "culprits": [], "reason": reason}
    closed = {"kind": "game-closed", "ending": ending, "findings": []}
    with pytest.raises(ValueError):
        event_from_map(closed)

"""A lost connection (SPEC.md section 12): each side finishes the game alone, in its own
transcript, and no side's log blames its own writer.  A pending resignation is sent as
the side's next message, a shot or an answer, and never turns into a claim."""

from __future__ import annotations

import random

import pytest
from peers import deliver_one, finish, make_pair, play

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End
from statki_net.protocol.events import FrameAdded
from statki_net.protocol.phases import Phase
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Error, Resign, Role, TimeClaim

CLASSIC = PRESETS["classic"]


def reached(pair: BackToBack, phase: Phase) -> bool:
    """Both sides know the game is in ``phase``: the side waiting there is in it, and the
    side to speak has read everything the waiting side sent (it may have spoken since)."""
    for waiting in (pair.host, pair.guest):
        t = waiting.transcript
        speaker = pair.session(waiting.role.other)
        if t.phase is phase and t.speaker() is speaker.role:
            return len(speaker.transcript.frames) >= len(t.frames)
    return False


def at_phase(phase: Phase, seed: int = 301, *, resign_at: int | None = None) -> BackToBack:
    """A classic game, delivered a message at a time, stopped as soon as both sides know it
    is in ``phase`` (what the side to speak says there is not delivered yet); with
    ``resign_at``, the side to shoot resigns at that volley."""
    pair = make_pair(CLASSIC, seed=seed)
    rng = random.Random(seed)
    pair.record(Role.HOST, pair.host.start(pair.now))
    volleys = 0
    while not reached(pair, phase):
        if deliver_one(pair):
            continue
        rules = pair.guest.rules
        assert rules is not None
        if pair.guest.transcript.phase is Phase.DECISION:
            pair.record(Role.GUEST, pair.guest.accept(random_fleet(rules, rng), pair.now))
            continue
        mover = next((s for s in (pair.host, pair.guest) if s.my_turn), None)
        if mover is None:
            raise AssertionError(f"the game never reached {phase}")
        volleys += 1
        if volleys == resign_at:
            pair.record(mover.role, mover.resign(pair.now))
            continue
        view = mover.view
        assert view is not None
        square = rng.choice([s for s in range(rules.size**2) if not view.shot & (1 << s)])
        pair.record(mover.role, mover.shoot((square,), pair.now))
    return pair


def own_frames_after(side: Session, count: int) -> list[str]:
    return [f.message.TYPE for f in side.transcript.frames[count:]]


@pytest.mark.parametrize(
    "phase",
    [
        Phase.HOST_COMMIT,
        Phase.GUEST_COMMIT,
        Phase.HOST_COIN,
        Phase.GUEST_COIN,
        Phase.SHOOT,
        Phase.ANSWER,
    ],
)
def test_after_the_accept_each_side_wins_on_time_by_its_own_log(phase: Phase) -> None:
    pair = at_phase(phase)
    pair.cut()
    finish(pair, random.Random(5))
    for side in (pair.host, pair.guest):
        t = side.transcript
        ending = side.ending
        assert t.complete and ending is not None
        assert ending.end is End.TIME and ending.winner is side.role
        assert ending.culprits == {side.peer}, "its log blames only the other side"
        claim = t.frames[-1]
        assert isinstance(claim.message, TimeClaim) and claim.header.sender is side.role
        assert t.findings == [], "a claim made by a side's own clock is never early"


def test_the_side_to_speak_makes_its_move_before_it_waits() -> None:
    pair = at_phase(Phase.SHOOT, seed=302)
    pair.cut()
    shooter = next(s for s in (pair.host, pair.guest) if s.my_turn)
    count = len(shooter.transcript.frames)
    finish(pair, random.Random(6))
    assert own_frames_after(shooter, count)[0] == "shot", "its player's move, written alone"
    assert own_frames_after(shooter, count)[-1] == "timeout"


def test_a_lost_connection_during_the_hellos_ends_at_once_with_no_game() -> None:
    pair = make_pair(CLASSIC, seed=305)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.cut()
    for side in (pair.host, pair.guest):
        ending = side.ending
        assert side.closed and ending is not None and ending.end is End.NO_GAME
        assert ending.culprits == frozenset()
    assert len(pair.host.transcript.frames) == 1 and pair.guest.transcript.frames == []


def test_a_host_kept_waiting_for_the_decision_claims_and_there_is_no_game() -> None:
    pair = at_phase(Phase.DECISION)
    pair.cut()
    while pair.wait_out():
        pass
    ending = pair.host.ending
    assert pair.host.closed and ending is not None
    assert ending.end is End.NO_GAME and ending.culprits == frozenset()
    assert not pair.guest.closed, "the guest's player decides, or the log stays before accept"


@pytest.mark.parametrize("phase", [Phase.FIRST_REVEAL, Phase.SECOND_REVEAL])
def test_reveals_are_written_alone_then_the_silent_side_loses_on_time(phase: Phase) -> None:
    pair = at_phase(phase, seed=307, resign_at=5)
    waiting = next(s for s in (pair.host, pair.guest) if s.transcript.phase is phase)
    revealer = pair.session(waiting.role.other)
    pair.cut()
    finish(pair, random.Random(7))
    ending = waiting.ending
    assert ending is not None and ending.end is End.TIME and ending.winner is waiting.role
    assert any(
        f.message.TYPE == "reveal" and f.header.sender is revealer.role
        for f in revealer.transcript.frames
    ), "the reveal owed was written alone"
    theirs = revealer.ending
    assert theirs is not None and not theirs.blames(revealer.role)
    if phase is Phase.SECOND_REVEAL:
        # The loser revealed last and then waited for a verdict: that changes nothing.
        assert theirs.end is End.RESIGNED and theirs.winner is waiting.role
    else:
        assert theirs.end is End.TIME and theirs.winner is revealer.role


@pytest.mark.parametrize("phase", [Phase.FIRST_VERDICT, Phase.SECOND_VERDICT])
def test_in_the_verdicts_a_lost_connection_changes_nothing(phase: Phase) -> None:
    pair = at_phase(phase, seed=309, resign_at=4)
    decided = pair.host.transcript.ending or pair.guest.transcript.ending
    assert decided is not None and decided.end is End.RESIGNED
    pair.cut()
    finish(pair, random.Random(8))
    for side in (pair.host, pair.guest):
        ending = side.ending
        assert ending is not None and (ending.end, ending.winner) == (decided.end, decided.winner)


# ---------------------------------------------------------------- resigning in the other's turn


def test_a_resignation_pending_at_the_next_shot_is_sent_instead() -> None:
    """Under chain turns a hit earns the next shot: the pending resignation takes its place."""
    pair = make_pair(CLASSIC, seed=311)
    play(pair, seed=312, stop_after=1)
    mover = pair.host if pair.host.my_turn else pair.guest
    view = mover.view
    assert view is not None
    peer = pair.session(mover.role.other)
    assert peer.fleet is not None
    hit = next(s for ship in peer.fleet.ships for s in ship if len(ship) > 1)
    pair.record(mover.role, mover.shoot((hit,), pair.now))
    pair.record(mover.role, mover.resign(pair.now))  # while the answer is owed
    assert mover.resigning
    pair.pump()
    resign = next(f for f in mover.transcript.frames if isinstance(f.message, Resign))
    assert resign.header.sender is mover.role
    previous = mover.transcript.frames[mover.transcript.frames.index(resign) - 1]
    assert previous.message.TYPE == "answer" and previous.header.sender is peer.role
    ending = mover.ending
    assert ending is not None and ending.end is End.RESIGNED and ending.winner is peer.role


def test_a_pending_resignation_never_claims_and_stops_at_the_deadline() -> None:
    pair = make_pair(CLASSIC, seed=313)
    play(pair, seed=314, stop_after=2)
    mover = pair.host if pair.host.my_turn else pair.guest
    waiting = pair.session(mover.role.other)
    pair.record(waiting.role, waiting.resign(pair.now))
    assert waiting.resigning
    pair.cut()
    assert pair.wait_out()  # the waiting side's deadline comes first: the mover never waits
    last = waiting.transcript.frames[-1]
    assert isinstance(last.message, Error) and last.message.code == "closed"
    ending = waiting.ending
    assert waiting.closed and ending is not None and ending.end is End.FORFEIT
    assert ending.winner is mover.role and ending.culprits == {waiting.role}
    finish(pair, random.Random(9))
    other = mover.ending
    assert other is not None and other.winner is mover.role, "both logs name one winner"


def test_frames_written_alone_are_logged_but_not_sent() -> None:
    pair = at_phase(Phase.ANSWER, seed=315)
    pair.cut()
    before = {role: len(pair.events[role]) for role in Role}
    finish(pair, random.Random(10))
    for side in (pair.host, pair.guest):
        written = [
            e for e in pair.events[side.role][before[side.role] :] if isinstance(e, FrameAdded)
        ]
        assert written and all(e.outgoing for e in written)
        assert side.data_to_send() == b""


@pytest.mark.parametrize("waiting", list(Role))
def test_a_side_kept_waiting_for_a_hello_gives_up_at_its_own_move_limit(waiting: Role) -> None:
    pair = make_pair(CLASSIC, seed=317)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.record(Role.GUEST, pair.guest.start(pair.now))
    pair.host.data_to_send()  # the host's hello never arrives: neither hears a hello
    side = pair.session(waiting)
    due = side.deadline()
    assert due is not None and due == pair.now + side.proposed_limits.move_ms
    assert side.check_time(due - 1) == []
    pair.record(waiting, side.check_time(due))
    last = side.transcript.frames[-1]
    assert isinstance(last.message, Error) and last.message.code == "timeout"
    ending = side.ending
    assert side.closed and ending is not None and ending.end is End.NO_GAME
    assert ending.culprits == frozenset()

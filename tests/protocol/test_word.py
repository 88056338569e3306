"""The peer's word (SPEC.md section 3): what a session answers, keeps, and never answers.

Two sessions back to back, the clock passed in; frames the peers would never
send are signed with their keys (a signed bad frame) or made up (bytes that
are nobody's word) and delivered to one side.
"""

from __future__ import annotations

import random

from peers import finish, key_from, make_pair, play

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS
from statki_net.game.words import phrase
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.bounds import CLAIM_SLACK_MS
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.events import (
    STOPPED,
    ConnectionLost,
    Evidence,
    Failed,
    FrameAdded,
    GameClosed,
)
from statki_net.protocol.phases import Phase
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    PROTOCOL_VERSION,
    Error,
    FrameReader,
    Header,
    Hello,
    Message,
    Role,
    Shot,
    TimeClaim,
    sign,
)
from statki_net.store.language import catalog

CLASSIC = PRESETS["classic"]


def in_battle(seed: int, volleys: int = 2) -> BackToBack:
    pair = make_pair(CLASSIC, seed=seed)
    play(pair, seed=seed + 1, stop_after=volleys)
    return pair


def movers(pair: BackToBack) -> tuple[Session, Session]:
    """The side to shoot, and the side waiting on it."""
    mover = pair.host if pair.host.my_turn else pair.guest
    return mover, pair.session(mover.role.other)


def next_frame(session: Session, message: Message, at: int) -> bytes:
    """``message`` signed by ``session``'s key as its next frame, without its session knowing."""
    t = session.transcript
    header = Header(session.role, len(t.frames), t.last_digest, t.game, at)
    return sign(session.key, header, message).encode()


# ---------------------------------------------------------------- refused frames


def test_a_refused_frame_is_kept_answered_at_its_place_and_its_sender_forfeits() -> None:
    pair = in_battle(201)
    mover, waiting = movers(pair)
    bad = next_frame(mover, Shot((1, 2)), pair.now)  # two shots where one is due
    place = len(waiting.transcript.frames)
    events = waiting.receive_data(bad, pair.now + 1)
    kinds = [type(e) for e in events]
    assert kinds == [Evidence, Failed, FrameAdded, GameClosed], "evidence before the answer"
    evidence = events[0]
    assert isinstance(evidence, Evidence) and evidence.code is Code.BAD_SHOT
    assert evidence.frame.encode() == bad
    [error] = [e.open() for e in FrameReader().feed(waiting.data_to_send())]
    assert isinstance(error.message, Error) and error.message.code == "bad-shot"
    assert error.header.seq == place and error.header.prev == evidence.frame.header.prev
    ending = waiting.ending
    assert ending is not None and ending.end is End.FORFEIT
    assert ending.winner is waiting.role and ending.culprits == {mover.role}


def test_an_out_of_turn_frame_is_refused_and_forfeits() -> None:
    pair = in_battle(203)
    mover, waiting = movers(pair)
    bad = next_frame(waiting, Shot((1,)), pair.now)  # the waiting side fires out of turn
    mover.receive_data(bad, pair.now + 1)
    ending = mover.ending
    assert mover.closed and ending is not None and ending.end is End.FORFEIT
    assert ending.culprits == {waiting.role}


def test_a_stop_by_the_peer_is_its_forfeit() -> None:
    pair = in_battle(205)
    mover, waiting = movers(pair)
    pair.record(mover.role, mover.abort(Code.CLOSED, "the player quit", pair.now))
    pair.pump()
    for side in (mover, waiting):
        ending = side.ending
        assert side.closed and ending is not None and ending.end is End.FORFEIT
        assert ending.winner is waiting.role and ending.culprits == {mover.role}


def test_a_stop_is_told_in_the_stopping_players_words_and_quoted_to_the_peer() -> None:
    """The wire and the log keep the English; only the side that said it reads it as its own."""
    pair = in_battle(206)
    mover, waiting = movers(pair)
    said = phrase(STOPPED)
    pair.record(mover.role, mover.abort(Code.CLOSED, str(said), pair.now, said=said))
    pair.pump()
    polish = catalog("pl")
    mine, theirs = (side.ending for side in (mover, waiting))
    assert mine is not None and theirs is not None
    assert "(closed: statki zatrzymano przed końcem gry)" in mine.reason.in_words(polish)
    assert "(closed: statki was stopped before the game ended)" in theirs.reason.in_words(polish)
    assert str(mine.reason) == str(theirs.reason)


def test_statki_s_own_stop_is_true_and_in_the_reader_s_words_on_both_sides() -> None:
    """A new player's first hour: the winner read "The opponent stopped the game: this side
    stopped the game", and in English on a Polish screen."""
    pair = in_battle(207)
    mover, waiting = movers(pair)
    said = phrase(STOPPED)
    pair.record(mover.role, mover.abort(Code.CLOSED, str(said), pair.now, said=said))
    pair.pump()
    polish = catalog("pl")
    [told] = [e for e in pair.events[waiting.role] if isinstance(e, Failed)]
    assert told.plainly().in_words(polish) == (
        "Przeciwnik przerwał grę: statki zatrzymano przed końcem gry"
    )
    assert str(told.plainly()) == (
        "The opponent stopped the game: statki was stopped before the game ended"
    )


def test_a_hello_of_another_version_is_answered_with_version_and_no_game() -> None:
    pair = make_pair(CLASSIC, seed=207)
    pair.host.start(pair.now)
    [hello] = list(FrameReader().feed(pair.host.data_to_send()))
    old = Hello(1, "statki 0.1", public_key_bytes(pair.host.key), "Ala", bytes(32))
    old_hello = sign(pair.host.key, Header(Role.HOST, 0, hello.header.prev, b"", 0), old)
    events = pair.guest.receive_data(old_hello.encode(), pair.now)
    assert [e.code for e in events if isinstance(e, Evidence)] == [Code.VERSION]
    [error] = [e.open() for e in FrameReader().feed(pair.guest.data_to_send())]
    assert isinstance(error.message, Error) and error.message.code == "version"
    assert error.header.seq == 0 and error.header.sender is Role.GUEST
    ending = pair.guest.ending
    assert ending is not None and ending.end is End.NO_GAME and ending.culprits == frozenset()
    # The host takes the guest's error as message 0 unsigned, and ends: no game.
    host_events = pair.host.receive_data(error.encode(), pair.now + 1)
    assert pair.host.closed and not any(isinstance(e, Evidence) for e in host_events)
    assert pair.host.ending is not None and pair.host.ending.end is End.NO_GAME


# ---------------------------------------------------------------- nobody's word


def test_bytes_that_are_nobodys_word_are_never_answered_and_blame_no_one() -> None:
    pair = in_battle(211)
    mover, waiting = movers(pair)
    honest = bytearray(next_frame(mover, Shot((0,)), pair.now))
    honest[10] ^= 0x40  # a bit flipped on the way: the signature no longer holds
    for garbage in (bytes(honest), b"\xc1" * 8):
        probe = in_battle(211)
        _, side = movers(probe)
        events = side.receive_data(garbage, probe.now + 1)
        assert side.data_to_send() == b"", "never answered"
        [lost] = [e for e in events if isinstance(e, ConnectionLost)]
        assert lost.code in (Code.BAD_SIGNATURE, Code.MALFORMED) and lost.data
        assert not side.closed and side.failure is None
    del waiting


def test_an_unsigned_error_injected_mid_game_is_a_lost_connection() -> None:
    pair = in_battle(213)
    mover, waiting = movers(pair)
    t = mover.transcript
    header = Header(mover.role, len(t.frames), t.last_digest, t.game, pair.now)
    injected = sign(key_from(31337), header, Error("closed", "not really"))
    waiting.receive_data(injected.encode(), pair.now + 1)
    assert waiting.lost is not None and waiting.lost.code is Code.BAD_SIGNATURE
    assert not waiting.closed, "the game goes on, alone"
    pair.pump()
    finish(pair, random.Random(1))
    for side in (mover, waiting):
        ending = side.ending
        assert ending is not None and not ending.blames(side.role), "no log blames its writer"
        assert ending.end is End.TIME and ending.winner is side.role


def test_a_crossed_frame_is_kept_and_leaves_this_side_alone() -> None:
    """A claim and a move cross: each side's log ends with its own claim (a dispute)."""
    pair = in_battle(215)
    mover, waiting = movers(pair)
    due = waiting.deadline()
    assert due is not None
    pair.now = due
    pair.record(waiting.role, waiting.check_time(due))  # the claim ...
    view = mover.view
    assert view is not None
    pair.record(mover.role, mover.shoot((0,), due))  # ... crosses the shot
    claim, shot = waiting.data_to_send(), mover.data_to_send()
    assert waiting.closed and waiting.receive_data(shot, due + 1) == []
    events = mover.receive_data(claim, due + 1)
    [evidence] = [e for e in events if isinstance(e, Evidence)]
    assert evidence.code is Code.BAD_CHAIN and isinstance(evidence.frame.open().message, TimeClaim)
    assert mover.lost is not None and mover.lost.code is Code.BAD_CHAIN and not mover.closed
    finish(pair, random.Random(2))
    for side in (mover, waiting):
        ending = side.ending
        assert ending is not None and ending.end is End.TIME and ending.winner is side.role


# ---------------------------------------------------------------- claims by the receiver's clock


def careful_claim(claimant: Session) -> bytes:
    """A claim its claimant's own numbers cannot contradict: the limit, dated the limit after
    its own last message; only the receiver's clock can tell it comes early."""
    t = claimant.transcript
    limit = t.limit()
    last = t.last_at(claimant.role)
    assert last is not None
    return next_frame(claimant, TimeClaim(limit), last + limit)


def test_a_claim_too_early_by_the_receivers_clock_is_kept_and_not_answered() -> None:
    pair = in_battle(221)
    mover, waiting = movers(pair)
    events = mover.receive_data(careful_claim(waiting), pair.now + 1_000)
    [evidence] = [e for e in events if isinstance(e, Evidence)]
    assert evidence.code is Code.OUT_OF_TURN and isinstance(
        evidence.frame.open().message, TimeClaim
    )
    assert mover.data_to_send() == b"" and mover.lost is not None and not mover.closed
    assert not isinstance(mover.transcript.frames[-1].message, TimeClaim), "not appended"
    finish(pair, random.Random(3))
    ending = mover.ending
    assert ending is not None and ending.end is End.TIME and ending.winner is mover.role


def test_the_receivers_slack_is_two_seconds() -> None:
    for early, taken in ((CLAIM_SLACK_MS, True), (CLAIM_SLACK_MS + 1, False)):
        pair = in_battle(223)
        mover, waiting = movers(pair)
        # By the mover's own reckoning its turn began when it read the other's last message.
        runs_out = max(mover.last_heard, mover.waiting_since) + mover.transcript.limit()
        mover.receive_data(careful_claim(waiting), runs_out - early)
        ending = mover.ending
        if taken:
            assert ending is not None and ending.end is End.TIME and ending.winner is waiting.role
        else:
            assert ending is None and mover.lost is not None


# ---------------------------------------------------------------- the host's key


def test_a_guest_refuses_a_host_the_invite_does_not_name_in_silence() -> None:
    pair = make_pair(CLASSIC, seed=231, host_key=public_key_bytes(key_from(1)))
    pair.record(Role.HOST, pair.host.start(pair.now))
    events = pair.guest.receive_data(pair.host.data_to_send(), pair.now)
    assert pair.guest.data_to_send() == b"", "not a word to that host"
    assert not any(isinstance(e, FrameAdded | Evidence) for e in events), "nothing kept"
    assert pair.guest.failure is not None and pair.guest.failure.code is Code.WRONG_KEY
    ending = pair.guest.ending
    assert pair.guest.closed and ending is not None
    assert ending.end is End.NO_GAME and ending.culprits == frozenset()
    pair.pump()  # the guest hangs up; the host, still waiting for a hello, gives up at once
    assert pair.host.closed and pair.host.ending is not None
    assert pair.host.ending.end is End.NO_GAME and pair.host.ending.culprits == frozenset()


def test_a_hello_whose_key_cannot_be_read_is_no_match() -> None:
    pair = make_pair(CLASSIC, seed=233)
    key = public_key_bytes(pair.host.key)
    guest = make_pair(CLASSIC, seed=233, host_key=key).guest
    t = pair.host.transcript
    fake = Hello(PROTOCOL_VERSION, "x", b"short", "Ala", bytes(32), rules={}, limits={})
    frame = sign(pair.host.key, Header(Role.HOST, 0, t.last_digest, b"", 0), fake)
    guest.receive_data(frame.encode(), 5)
    assert guest.failure is not None and guest.failure.code is Code.WRONG_KEY
    assert guest.data_to_send() == b""


def test_a_guest_plays_the_host_its_invite_names() -> None:
    probe = make_pair(CLASSIC, seed=235)
    pair = make_pair(CLASSIC, seed=235, host_key=public_key_bytes(probe.host.key))
    play(pair, seed=236)
    assert pair.guest.transcript.complete and pair.guest.failure is None


def test_a_guest_that_lost_the_host_in_its_decision_may_still_accept() -> None:
    pair = make_pair(CLASSIC, seed=237)
    pair.host.start(pair.now)
    pair.pump()
    assert pair.guest.transcript.phase is Phase.DECISION
    pair.cut()
    rules = pair.guest.rules
    assert rules is not None
    pair.guest.accept(random_fleet(rules, random.Random(1)), pair.now)
    finish(pair, random.Random(4))
    host, guest = pair.host.ending, pair.guest.ending
    assert host is not None and host.end is End.NO_GAME and host.culprits == frozenset()
    assert guest is not None and guest.end is End.TIME and guest.winner is Role.GUEST

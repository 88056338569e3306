"""The protocol core under attack: messages out of place, fuzzed bytes, lies found at the reveal."""

from __future__ import annotations

import contextlib
import random
from dataclasses import replace
from functools import cache

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import closed, key_from, make_pair, play

from statki_net.game.battle import Answer, Outcome
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, random_fleet, read_fleet_text
from statki_net.game.replay import replay
from statki_net.game.rules import PRESETS, Ruleset
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.commitment import Opening, ships_digest
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.events import ConnectionLost, Evidence, Failed, GameStarted
from statki_net.protocol.phases import Phase, may_say
from statki_net.protocol.session import Session
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import (
    MAX_FRAME,
    Commit,
    Error,
    Frame,
    FrameReader,
    Header,
    Message,
    Reveal,
    Role,
    Shot,
    TimeClaim,
    decode_body,
    sign,
)

CLASSIC = PRESETS["classic"]
SMALL = Ruleset(size=6, fleet=(3, 2, 1))
"""Every message of a classic game but in a quarter of the frames."""


def finished_pair(seed: int = 21, rules: Ruleset = CLASSIC) -> BackToBack:
    pair = make_pair(rules, seed=seed)
    play(pair, seed=seed + 1)
    return pair


def keys(pair: BackToBack) -> dict[Role, object]:
    return {Role.HOST: pair.host.key, Role.GUEST: pair.guest.key}


def resign_frame(
    t: Transcript, sender: Role, message: Message, pair: BackToBack, at: int = 0
) -> Frame:
    header = Header(sender, len(t.frames), t.last_digest, t.game, at)
    return sign(keys(pair)[sender], header, message)  # type: ignore[arg-type]


def test_every_message_type_is_rejected_out_of_place() -> None:
    pair = finished_pair(rules=SMALL)
    frames = pair.host.transcript.frames
    samples = {f.message.TYPE: f.message for f in frames}
    # A game that ends by sinking has no resign, refuse, time claim or error,
    # so at each point the one message of these that may stand is the game's
    # own next one: the expectation does not come from the table under test.
    assert set(samples) == {
        "hello",
        "accept",
        "commit",
        "coin",
        "shot",
        "answer",
        "reveal",
        "verdict",
    }
    rejected = 0
    # The game is built once; at each point a copy of the transcript so far
    # takes the out-of-place messages, so no prefix is verified twice.
    game = Transcript()
    for cut, honest in enumerate(frames):
        t = game.copy()
        assert may_say(t.phase, type(honest.message)) and honest.header.sender is t.speaker()
        for kind, message in samples.items():
            for sender in Role:
                if kind == honest.message.TYPE and sender is honest.header.sender:
                    continue
                frame = resign_frame(t, sender, message, pair)
                with pytest.raises(ProtocolError) as caught:
                    t.add(frame)
                assert caught.value.code in {c.value for c in Code}
                assert len(t.frames) == cut, "a rejected frame leaves the transcript as it was"
                rejected += 1
        game.add(honest)
    assert game.complete and len(game.frames) == len(frames)
    assert rejected > 500


def test_time_claim_only_by_the_side_kept_waiting() -> None:
    pair = finished_pair()
    frames = pair.host.transcript.frames
    t = Transcript()
    for frame in frames[:8]:
        t.add(frame)
    speaker = t.speaker()
    assert speaker is not None
    limit = t.limits.move_ms
    with pytest.raises(ProtocolError, match="only the side kept waiting"):
        t.add(resign_frame(t, speaker, TimeClaim(limit), pair, at=10**13))
    last = t.last_at(speaker.other)
    assert last is not None
    t.add(resign_frame(t, speaker.other, TimeClaim(limit), pair, at=last + limit))
    assert t.end is End.TIME and t.winner is speaker.other and t.complete
    assert t.culprits == {speaker} and t.findings == []


def test_error_ends_the_game_from_either_side() -> None:
    pair = finished_pair()
    t = Transcript()
    for frame in pair.host.transcript.frames[:9]:
        t.add(frame)
    t.add(resign_frame(t, Role.GUEST, Error("bad-field", "nope"), pair))
    assert t.complete and t.end is End.FORFEIT and t.error_from is Role.GUEST


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=5))
def test_frame_reader_raises_only_protocol_errors(chunks: list[bytes]) -> None:
    reader = FrameReader()
    try:
        for chunk in chunks:
            list(reader.feed(chunk))
    except ProtocolError:
        pass


msgpack_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
TYPES = st.sampled_from(
    sorted(
        [
            "hello",
            "accept",
            "refuse",
            "commit",
            "coin",
            "shot",
            "answer",
            "resign",
            "timeout",
            "reveal",
            "verdict",
            "error",
            "bogus",
        ]
    )
)


@settings(max_examples=200, deadline=None)
@given(
    TYPES,
    st.dictionaries(
        st.sampled_from(
            [
                "from",
                "seq",
                "prev",
                "game",
                "at",
                "key",
                "rules",
                "squares",
                "proofs",
                "fleet",
                "secret",
                "coin",
                "hits",
                "sunk",
                "outcomes",
                "names",
                "winner",
                "limits",
                "nonce",
                "protocol",
                "software",
                "name",
                "caps",
            ]
        ),
        msgpack_values,
    ),
)
def test_decoder_raises_only_protocol_errors(kind: str, fields: dict[str, object]) -> None:
    body = msgpack.packb({"type": kind, **fields}, use_bin_type=True)
    with contextlib.suppress(ProtocolError):
        decode_body(body)


def test_oversized_frame_is_refused_before_it_is_buffered_whole() -> None:
    reader = FrameReader()
    header = msgpack.packb([b"x" * (MAX_FRAME + 10), b"s" * 64], use_bin_type=True)
    with pytest.raises(ProtocolError) as caught:
        list(reader.feed(header[: MAX_FRAME // 2]))
        list(reader.feed(header[MAX_FRAME // 2 :]))
    assert caught.value.code in (Code.TOO_LARGE.value, Code.MALFORMED.value)


@cache
def finished_frames(seed: int) -> tuple[Frame, ...]:
    """A whole game's frames: a few games, each played once, the orders are what vary."""
    return tuple(finished_pair(seed).host.transcript.frames)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.data())
def test_valid_messages_in_the_wrong_order_raise_only_protocol_errors(
    seed: int, data: st.DataObject
) -> None:
    frames = finished_frames(seed)
    order = data.draw(st.permutations(range(len(frames))))
    t = Transcript()
    for index in order:
        try:
            t.add(frames[index])
        except ProtocolError:
            break
    else:
        assert list(order) == list(range(len(frames)))


# ---------------------------------------------------------------- lies the proofs cannot show


class SaysHitForSunk(Behaviour):
    """Says hit when a ship sinks: the proof shows a ship either way, so only the reveal tells."""

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if (
            answer.outcomes == (Outcome.SUNK,)
            and session.defence is not None
            and len(session.defence.sunk_ships()) == 1
        ):
            return Answer((Outcome.HIT,), 1, 0)
        return answer


def test_hit_for_sunk_is_caught_on_the_move_once_every_ship_square_is_hit() -> None:
    # With these seeds the host hits all 20 ship squares before its own fleet sinks.
    pair = make_pair(PRESETS["alternate"], seed=6, guest=SaysHitForSunk())
    play(pair, seed=7)
    t = pair.host.transcript
    [lie] = t.findings
    assert lie.culprit is Role.GUEST and lie.kind == "false-answer"
    assert "all 20 ship squares are hit, yet only 9 of 10 ships were announced sunk" in str(
        lie.detail
    )
    assert t.end is End.CHEATED and t.winner is Role.HOST
    assert lie.move == t.move, "caught on the move that hit the last ship square"


def test_hit_for_sunk_is_caught_at_the_reveal() -> None:
    probe = make_pair(PRESETS["alternate"], seed=31, guest=SaysHitForSunk())
    play(probe, seed=32)
    assert probe.guest.fleet is not None
    truth = replay(
        PRESETS["alternate"], probe.guest.fleet, probe.host.transcript.sides[Role.HOST].volleys
    )
    lie_move = truth.contradictions[0].move
    # Same game, but the liar resigns on its next turn, before the tally could show the lie.
    pair = make_pair(PRESETS["alternate"], seed=31, guest=SaysHitForSunk())
    play(pair, seed=32, resign_at=lie_move + 1)
    t = pair.host.transcript
    assert t.end is End.CHEATED and t.winner is Role.HOST
    [lie] = t.findings
    assert lie.culprit is Role.GUEST and lie.move == lie_move
    assert "answered hit, the fleet shows sunk" in str(lie.detail)
    verdict = t.sides[Role.HOST].verdict
    assert (
        verdict is not None and verdict.end == "cheated" and "answered hit" in verdict.findings[0]
    )


BENT = "B2 C2 C3 C4\nG2-G4\nA6-A8\nE6-F6\nH6-H7\nH9-I9\nJ1\nJ4\nD9\nA10"


class IllegalFleet(Behaviour):
    """Commits to the bent fleet whatever its player placed, skipping the legality check."""

    checks_own_fleet = False

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        assert session.rules is not None
        return read_fleet_text(session.rules, BENT)[0]


def test_illegal_fleet_is_caught_at_the_reveal() -> None:
    pair = make_pair(CLASSIC, seed=41, guest=IllegalFleet())
    play(pair, seed=42)
    t = pair.host.transcript
    kinds = [f.kind for f in t.findings]
    assert "illegal-fleet" in kinds
    assert any("B2 C2 C3 C4 is not a straight line" in str(f.detail) for f in t.findings)
    assert t.winner is Role.HOST and t.end is End.CHEATED
    assert closed(pair, Role.HOST).ending == t.ending


def test_time_claim_from_session() -> None:
    pair = make_pair(CLASSIC, seed=51)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    rules = pair.guest.rules
    assert rules is not None
    pair.guest.accept(random_fleet(rules, random.Random(5)), pair.now)
    pair.pump()
    waiting = pair.host if not pair.host.my_turn else pair.guest
    due = waiting.deadline()
    assert due is not None
    assert waiting.check_time(due - 1) == []
    events = waiting.check_time(due)
    assert waiting.closed and waiting.transcript.end is End.TIME
    assert waiting.transcript.winner is waiting.role
    assert any(type(e).__name__ == "GameClosed" for e in events)


def test_a_frame_in_my_own_name_is_nobodys_word() -> None:
    pair = make_pair(CLASSIC, seed=61)
    pair.host.start(pair.now)
    hello = pair.host.data_to_send()
    forged = make_pair(CLASSIC, seed=61).host  # same role, same key: a replay of my own hello
    events = forged.receive_data(hello, 5)
    assert forged.lost is not None and forged.lost.code is Code.OUT_OF_TURN
    assert forged.data_to_send() == b"", "never answered"
    assert not any(isinstance(e, Failed) for e in events)
    assert forged.closed and forged.ending is not None and forged.ending.end is End.NO_GAME


def test_a_bad_signature_is_never_answered() -> None:
    pair = make_pair(CLASSIC, seed=71)
    pair.host.start(pair.now)
    data = bytearray(pair.host.data_to_send())
    data[-1] ^= 1  # last byte of the signature
    events = pair.guest.receive_data(bytes(data), 10)
    assert pair.guest.lost is not None and pair.guest.lost.code is Code.BAD_SIGNATURE
    assert pair.guest.data_to_send() == b""
    assert pair.guest.failure is None, "nothing was said, so nothing failed"
    assert any(isinstance(e, ConnectionLost) for e in events)
    ending = pair.guest.ending
    assert ending is not None and ending.end is End.NO_GAME and ending.culprits == frozenset()


def test_keys_differ() -> None:
    assert key_from(1).private_bytes_raw() != key_from(2).private_bytes_raw()


FIVE_IN_A_ROW = (
    "carrier: A1-A5\ndestroyer: A6-A7\nbattleship: C1-C4\ncruiser: E1-E3\nsubmarine: G1-G3"
)


class RecutsAtTheReveal(Behaviour):
    """Commits carrier A1-A5 + destroyer A6-A7, then reveals carrier A3-A7 + destroyer A1-A2."""

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        assert session.rules is not None
        return read_fleet_text(session.rules, FIVE_IN_A_ROW)[0]

    def say(self, session: Session, message: Message) -> Message | None:
        if not isinstance(message, Reveal):
            return message
        rules = session.rules
        assert rules is not None and session.fleet is not None
        recut = (
            "carrier: A3-A7\ndestroyer: A1-A2\nbattleship: C1-C4\ncruiser: E1-E3\nsubmarine: G1-G3"
        )
        fleet = read_fleet_text(rules, recut)[0]
        assert fleet.board == session.fleet.board, "the same squares, cut differently"
        return replace(message, fleet=fleet.ships)


def test_a_reveal_cutting_the_squares_differently_is_caught() -> None:
    pair = make_pair(PRESETS["five-ships"], seed=81, guest=RecutsAtTheReveal())
    play(pair, seed=82, resign_at=3, resigner=Role.GUEST)
    t = pair.host.transcript
    [finding] = t.findings
    assert finding.kind == "bad-reveal" and finding.culprit is Role.GUEST
    assert "cut from the committed squares differently" in str(finding.detail)


def test_a_side_that_does_not_open_its_coin_loses_the_game() -> None:
    """SPEC.md section 11: silence cannot veto the toss, and loses the game, not only the toss."""
    pair = make_pair(CLASSIC, seed=91)
    pair.host.start(pair.now)
    pair.pump()
    rules = pair.guest.rules
    assert rules is not None
    pair.guest.accept(random_fleet(rules, random.Random(1)), pair.now)
    # Deliver everything but the guest's coin: the host waits at the guest's coin.
    senders = [pair.host, pair.guest]
    while pair.host.transcript.phase is not Phase.GUEST_COIN:
        sender = senders[0]
        senders.reverse()
        data = sender.data_to_send()
        if data:
            pair.session(sender.role.other).receive_data(data, pair.now)
    pair.guest.receive_data(pair.host.data_to_send(), pair.now)  # the host's coin
    assert pair.guest.data_to_send(), "the guest's coin is held back"
    due = pair.host.deadline()
    assert due is not None
    events = pair.host.check_time(due)
    assert not any(isinstance(e, GameStarted) for e in events)
    assert pair.host.closed and pair.host.transcript.complete
    ending = pair.host.transcript.ending
    assert ending is not None and ending.end is End.TIME
    assert ending.winner is Role.HOST and ending.culprits == {Role.GUEST}
    claim = pair.host.transcript.frames[-1].message
    assert isinstance(claim, TimeClaim)


def test_a_proof_of_the_wrong_shape_is_a_false_answer() -> None:
    class ShortProofs(Behaviour):
        def proofs(
            self, session: Session, squares: tuple[int, ...], proofs: tuple[Opening, ...]
        ) -> tuple[Opening, ...]:
            return tuple(replace(p, path=p.path[:-1]) for p in proofs)

    pair = make_pair(CLASSIC, seed=93, guest=ShortProofs())
    play(pair, seed=94)
    [finding] = pair.host.transcript.findings
    assert finding.culprit is Role.GUEST and "wrong shape" in str(finding.detail)


def test_an_error_that_crosses_my_shot_ends_the_game_with_its_sender_to_blame() -> None:
    pair = make_pair(CLASSIC, seed=95)
    pair.host.start(pair.now)
    pair.pump()
    rules = pair.guest.rules
    assert rules is not None
    pair.guest.accept(random_fleet(rules, random.Random(2)), pair.now)
    pair.pump()
    shooter = pair.host if pair.host.my_turn else pair.guest
    other = pair.session(shooter.role.other)
    # The other side's player quits just as the shot is fired: the two frames cross.
    shooter.shoot((5,), pair.now)
    other.abort(Code.CLOSED, "the player quit", pair.now)
    shooter_events = shooter.receive_data(other.data_to_send(), pair.now + 1)
    assert other.receive_data(shooter.data_to_send(), pair.now + 1) == [], "the game is over"
    assert shooter.closed and other.closed
    [evidence] = [e for e in shooter_events if isinstance(e, Evidence)]
    assert evidence.code is Code.BAD_CHAIN and isinstance(evidence.frame.open().message, Error)
    assert shooter.failure is not None and shooter.failure.by_peer
    for side in (shooter, other):
        ending = side.ending
        assert ending is not None and ending.end is End.FORFEIT
        assert ending.winner is shooter.role and ending.culprits == {other.role}
    assert isinstance(shooter.transcript.frames[-1].message, Shot), "my shot stays my last frame"


def test_a_repeated_key_is_malformed() -> None:
    """Readers that keep the first or the last of two values must not disagree on signed bytes."""
    pair = finished_pair()
    shot = next(f for f in pair.host.transcript.frames if isinstance(f.message, Shot))
    # Append a second "squares" to the map: same bytes, one more key.
    body = bytearray(shot.body)
    assert body[0] & 0xF0 == 0x80  # a fixmap
    body[0] += 1
    body += msgpack.packb("squares") + msgpack.packb([1])
    with pytest.raises(ProtocolError) as caught:
        decode_body(bytes(body))
    assert caught.value.code == Code.MALFORMED.value


# ---------------------------------------------------------------- time and size abuse


def _to_battle(seed: int) -> BackToBack:
    pair = make_pair(CLASSIC, seed=seed)
    pair.host.start(pair.now)
    pair.pump()
    rules = pair.guest.rules
    assert rules is not None
    pair.guest.accept(random_fleet(rules, random.Random(seed)), pair.now)
    pair.pump()
    return pair


def test_a_claim_its_own_numbers_contradict_is_a_finding_against_the_claimant() -> None:
    """SPEC.md section 12: a claim under the limit, or dated too soon after its sender's
    own last message, joins the transcript as an early claim: the claimant loses."""
    pair = _to_battle(101)
    mover = pair.host if pair.host.my_turn else pair.guest
    waiting = pair.session(mover.role.other)
    t = waiting.transcript
    claim = sign(
        waiting.key, Header(waiting.role, len(t.frames), t.last_digest, t.game, 0), TimeClaim(1)
    )
    mover.receive_data(claim.encode(), pair.now + 1_000)  # one second into its turn
    ending = mover.transcript.ending
    assert mover.closed and ending is not None and ending.end is End.CHEATED
    assert ending.winner is mover.role and ending.culprits == {waiting.role}
    [finding] = mover.transcript.findings
    assert finding.kind == "early-claim" and finding.culprit is waiting.role
    honest = _to_battle(101)
    mover = honest.host if honest.host.my_turn else honest.guest
    waiting = honest.session(mover.role.other)
    due = waiting.deadline()
    assert due is not None
    waiting.check_time(due)
    mover.receive_data(waiting.data_to_send(), due)
    assert mover.transcript.end is End.TIME and mover.transcript.winner is waiting.role
    assert mover.transcript.findings == []


def test_a_peer_that_trickles_bytes_still_runs_out_of_time() -> None:
    pair = _to_battle(103)
    mover = pair.host if pair.host.my_turn else pair.guest
    waiting = pair.session(mover.role.other)
    due = waiting.deadline()
    assert due is not None
    view = mover.view
    assert view is not None
    mover.shoot((0,), pair.now)
    shot = mover.data_to_send()
    waiting.receive_data(shot[:5], due - 1)  # a few bytes of a frame, just in time
    assert waiting.deadline() == due, "part of a frame is not a message"


def test_a_side_caught_cheating_cannot_win_back_on_time() -> None:
    pair = make_pair(PRESETS["five-ships"], seed=105, guest=RecutsAtTheReveal())
    t = pair.host.transcript
    # The host resigns, so the guest (the cheat) reveals first; a claim from the
    # cheat right after its bad reveal must not make it the winner.
    play(pair, seed=106, resign_at=3, resigner=Role.HOST)
    frames = t.frames
    reveal_at = next(i for i, f in enumerate(frames) if isinstance(f.message, Reveal))
    replayed = Transcript()
    for frame in frames[: reveal_at + 1]:
        replayed.add(frame)
    if replayed.end is not End.CHEATED:
        pytest.skip("the first revealer was honest in this game")
    culprit = frames[reveal_at].header.sender
    claim = sign(
        pair.session(culprit).key,
        Header(culprit, len(replayed.frames), replayed.last_digest, replayed.game, 0),
        TimeClaim(10**6),
    )
    replayed.add(claim)
    assert replayed.end is End.CHEATED and replayed.winner is culprit.other


def test_a_reveal_of_a_thousand_ships_is_one_finding() -> None:
    class Thousand(Behaviour):
        """Commits to, and reveals, its ships over and over: a thousand of them."""

        def say(self, session: Session, message: Message) -> Message | None:
            if not isinstance(message, Commit | Reveal):
                return message
            assert session.fleet is not None
            ships = session.fleet.ships
            many = tuple(ships[i % len(ships)] for i in range(1000))
            if isinstance(message, Commit):
                game = session.transcript.game
                return replace(message, ships=ships_digest(game, session.secret, many))
            return replace(message, fleet=many)

    pair = make_pair(CLASSIC, seed=107, guest=Thousand())
    play(pair, seed=108, resign_at=2, resigner=Role.GUEST)
    t = pair.host.transcript
    assert [f.kind for f in t.findings] == ["illegal-fleet"]
    assert "1000 ships revealed, the rules have 10" in str(t.findings[0].detail)


def test_own_shots_off_the_board_are_refused_before_they_are_sent() -> None:
    pair = _to_battle(109)
    mover = pair.host if pair.host.my_turn else pair.guest
    for bad in (-1, 100):
        with pytest.raises(UsageError):
            mover.shoot((bad,), pair.now)
    assert mover.data_to_send() == b""

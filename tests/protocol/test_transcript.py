"""The transcript as SPEC.md version 2 defines it: the order of checks, what every claim
and every error decides, and the bounds on what a host may propose.

Frames here are built from raw maps, so they can carry what no honest encoder
writes (floats, missing keys, wrong types), and signed with the players' keys.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import key_from, make_pair, play

from statki_net.game.rules import PRESETS, Ruleset
from statki_net.game.words import as_is
from statki_net.protocol.bounds import (
    MAX_LIMIT_MS,
    MAX_SHIP_SQUARES,
    MAX_SHIPS,
    MAX_SIZE,
    MIN_MOVE_MS,
    MIN_REVEAL_MS,
    MIN_SIZE,
)
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Check, Code, ProtocolError
from statki_net.protocol.phases import Phase
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.transcript import FindingKind, Transcript
from statki_net.protocol.wire import (
    GENESIS,
    PROTOCOL_VERSION,
    SIGN_LABEL,
    Envelope,
    Error,
    Frame,
    Header,
    Limits,
    Message,
    Role,
    TimeClaim,
    read_envelope,
    sign,
)

CLASSIC = PRESETS["classic"]
HOST_KEY, GUEST_KEY = key_from(700), key_from(701)
KEYS = {Role.HOST: HOST_KEY, Role.GUEST: GUEST_KEY}


def raw(fields: dict[Any, Any], key: Ed25519PrivateKey | None = None) -> Envelope:
    """A frame of exactly these fields, signed by ``key`` (by the sender's, by default)."""
    body = bytes(msgpack.packb(fields, use_bin_type=True))
    signer = key or KEYS[Role(fields["from"])]
    return read_envelope([body, signer.sign(SIGN_LABEL + body)])


def hello_fields(role: Role, seq: int = 0, prev: bytes = GENESIS, **extra: Any) -> dict[Any, Any]:
    fields: dict[Any, Any] = {
        "type": "hello",
        "from": role.value,
        "seq": seq,
        "prev": prev,
        "at": 1_000,
        "protocol": PROTOCOL_VERSION,
        "software": "test",
        "key": public_key_bytes(KEYS[role]),
        "name": role.value,
        "nonce": bytes(32),
    }
    if role is Role.HOST:
        fields["rules"] = CLASSIC.to_map()
        fields["limits"] = Limits().to_map()
    fields.update(extra)
    return fields


def host_hello(**extra: Any) -> Envelope:
    return raw(hello_fields(Role.HOST, **extra))


def with_host_hello() -> Transcript:
    t = Transcript()
    t.add(host_hello())
    return t


def next_fields(t: Transcript, sender: Role, kind: str, **extra: Any) -> dict[Any, Any]:
    fields: dict[Any, Any] = {
        "type": kind,
        "from": sender.value,
        "seq": len(t.frames),
        "prev": t.last_digest,
    }
    if t.game:
        fields["game"] = t.game
    fields["at"] = 2_000
    fields.update(extra)
    return fields


def refused(t: Transcript, item: Envelope | Frame) -> ProtocolError:
    before = len(t.frames)
    with pytest.raises(ProtocolError) as caught:
        t.add(item)
    assert len(t.frames) == before, "a frame that fails leaves the transcript as it was"
    return caught.value


# ---------------------------------------------------------------- the order of checks


def test_a_frame_both_misplaced_and_badly_signed_is_bad_chain() -> None:
    t = with_host_hello()
    fields = hello_fields(Role.GUEST, seq=1, prev=bytes(32))  # wrong prev
    error = refused(t, raw(fields, key=key_from(999)))
    assert (error.code, error.check) == (Code.BAD_CHAIN, Check.PLACE)
    assert not error.refuses, "a frame that fits nowhere is nobody's word"


def test_a_bad_signature_is_found_before_a_bad_field() -> None:
    t = with_host_hello()
    fields = hello_fields(Role.GUEST, seq=1, prev=t.last_digest, name=5)
    error = refused(t, raw(fields, key=key_from(999)))
    assert (error.code, error.check) == (Code.BAD_SIGNATURE, Check.SIGNATURE)
    assert t.refused is None
    error = refused(t, raw(fields))
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.DECODE) and error.refuses
    assert t.refused is not None and t.refused.code is Code.BAD_FIELD


def test_a_hello_without_a_key_cannot_be_anyones_word() -> None:
    fields = hello_fields(Role.HOST)
    del fields["key"]
    error = refused(Transcript(), raw(fields))
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.SIGNATURE)


def test_a_later_hello_is_checked_with_the_key_already_known() -> None:
    """A stranger's self-signed hello cannot pass for the host's word after the handshake."""
    t = with_host_hello()
    t.add(raw(hello_fields(Role.GUEST, seq=1, prev=t.last_digest)))
    stranger = key_from(998)
    fields = next_fields(t, Role.HOST, "hello", **hello_fields(Role.HOST, seq=2))
    fields.update(prev=t.last_digest, game=t.game, key=public_key_bytes(stranger))
    error = refused(t, raw(fields, key=stranger))
    assert error.code is Code.BAD_SIGNATURE
    fields["key"] = public_key_bytes(HOST_KEY)
    error = refused(t, raw(fields))
    assert (error.code, error.check) == (Code.OUT_OF_TURN, Check.TURN)


@pytest.mark.parametrize(
    ("change", "code", "check"),
    [
        ({"from": "referee"}, Code.BAD_FIELD, Check.PLACE),
        ({"seq": -1}, Code.BAD_FIELD, Check.PLACE),
        ({"seq": 0.0}, Code.BAD_FIELD, Check.PLACE),
        ({"prev": b"short"}, Code.BAD_FIELD, Check.PLACE),
        ({"game": "not a hash"}, Code.BAD_FIELD, Check.DECODE),
        ({"protocol": 3.0}, Code.BAD_FIELD, Check.DECODE),
        ({"protocol": 1}, Code.VERSION, Check.DECODE),
        # Version 3, before talk: it meets a version 4 peer only to get `version`.
        ({"protocol": PROTOCOL_VERSION - 1}, Code.VERSION, Check.DECODE),
        (
            {"protocol": PROTOCOL_VERSION + 1, "rules": {"size": 1}, "name": 4},
            Code.VERSION,
            Check.DECODE,
        ),
        ({"at": 1.0}, Code.BAD_FIELD, Check.DECODE),
        ({"at": True}, Code.BAD_FIELD, Check.DECODE),
        ({"rules": [1, 2]}, Code.BAD_FIELD, Check.DECODE),
        ({"rules": {"size": 1}}, Code.BAD_FIELD, Check.CONTENT),
        ({"rules": {"size": 10.0}}, Code.BAD_FIELD, Check.CONTENT),
        ({"limits": {"move_ms": 60_000.0, "reveal_ms": 60_000}}, Code.BAD_FIELD, Check.CONTENT),
        ({"limits": {"move_ms": 60_000}}, Code.BAD_FIELD, Check.CONTENT),
        ({"first": "nobody"}, Code.BAD_FIELD, Check.DECODE),
    ],
)
def test_each_check_of_a_hello_fails_with_its_code_at_its_step(
    change: dict[str, Any], code: Code, check: Check
) -> None:
    fields = hello_fields(Role.HOST)
    fields.update(change)
    try:
        envelope = raw(fields, key=HOST_KEY)
    except ProtocolError as early:  # steps 1-3 fail before any transcript sees the frame
        assert (early.code, early.check) == (code, check)
        return
    error = refused(Transcript(), envelope)
    assert (error.code, error.check) == (code, check)


@pytest.mark.parametrize(
    ("change", "code", "check"),
    [
        ({"type": 7}, Code.BAD_FIELD, Check.DECODE),
        ({"type": "chat"}, Code.UNKNOWN_TYPE, Check.DECODE),
        ({"type": "refuse", "reason": 5}, Code.BAD_FIELD, Check.DECODE),
        ({"type": "refuse", "reason": "x" * 201}, Code.BAD_FIELD, Check.DECODE),
        ({"type": "refuse", "reason": "x" * 200}, None, None),
        ({"type": "commit"}, Code.OUT_OF_TURN, Check.TURN),
        ({"type": "accept", "game": bytes(32)}, Code.BAD_CHAIN, Check.PLACE),
        ({"type": "accept", "extra": 1.5, b"type": "chat"}, None, None),
    ],
)
def test_each_check_of_a_later_message_fails_with_its_code_at_its_step(
    change: dict[Any, Any], code: Code | None, check: Check | None
) -> None:
    t = replayed(2)
    if change.get("type") == "commit":
        change |= {"fleet": bytes(32), "ships": bytes(32), "coin": bytes(32)}
    fields = next_fields(t, Role.GUEST, "accept")
    fields.update(change)
    envelope = raw(fields, key=key_of(t, Role.GUEST))
    if code is None:
        t.add(envelope)
        return
    error = refused(t, envelope)
    assert (error.code, error.check) == (code, check)


def test_a_host_hello_without_rules_or_limits_is_refused_after_its_signature() -> None:
    for missing in ("rules", "limits"):
        fields = hello_fields(Role.HOST)
        del fields[missing]
        error = refused(Transcript(), raw(fields))
        assert (error.code, error.check) == (Code.BAD_FIELD, Check.CONTENT)
        error = refused(Transcript(), raw(fields, key=key_from(5)))
        assert error.code is Code.BAD_SIGNATURE


def test_the_guest_hello_may_carry_rules_and_limits_only_as_maps_it_ignores() -> None:
    t = with_host_hello()
    garbage = {"size": "huge", "fleet": None}
    fields = hello_fields(Role.GUEST, 1, t.last_digest, rules=garbage, limits={"x": 1.5})
    t.add(raw(fields))
    assert t.rules == CLASSIC and t.phase is Phase.DECISION
    t = with_host_hello()
    error = refused(t, raw(hello_fields(Role.GUEST, 1, t.last_digest, limits=5)))
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.DECODE)


def test_both_hellos_with_one_key_is_bad_field() -> None:
    t = with_host_hello()
    fields = hello_fields(Role.GUEST, 1, t.last_digest, key=public_key_bytes(HOST_KEY))
    error = refused(t, raw(fields, key=HOST_KEY))
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.CONTENT)


def test_a_bin_key_is_no_str_key() -> None:
    fields = hello_fields(Role.HOST)
    fields[b"name"] = fields.pop("name")
    error = refused(Transcript(), raw(fields))
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.DECODE)


# ---------------------------------------------------------------- game from message 2 on


@cache
def honest_game() -> tuple[Frame, ...]:
    pair = make_pair(CLASSIC, seed=21)
    play(pair, seed=22)
    return tuple(pair.host.transcript.frames)


@cache
def short_game() -> tuple[Frame, ...]:
    """An honest game that ends in a resignation after a few volleys."""
    pair = make_pair(CLASSIC, seed=23)
    play(pair, seed=24, resign_at=4)
    return tuple(pair.host.transcript.frames)


def replayed(count: int, frames: tuple[Frame, ...] | None = None) -> Transcript:
    t = Transcript()
    for frame in (frames or honest_game())[:count]:
        t.add(frame)
    return t


def until(phase: Phase, frames: tuple[Frame, ...] | None = None) -> Transcript:
    """The transcript of the honest game up to the first time it is in ``phase``."""
    t = Transcript()
    for frame in frames or honest_game():
        if t.phase is phase:
            return t
        t.add(frame)
    raise AssertionError(f"the game never reached {phase}")


def signed(t: Transcript, sender: Role, message: Message, at: int) -> Frame:
    """``message`` from ``sender`` at the end of ``t``, signed with the sender's key."""
    header = Header(sender, len(t.frames), t.last_digest, t.game, at)
    return sign(key_of(t, sender), header, message)


@cache
def _known_keys() -> dict[bytes, Ed25519PrivateKey]:
    """Every key the games here are played with (``make_pair`` keys a seed s with 2s, 2s+1)."""
    keys = [HOST_KEY, GUEST_KEY, *(key_from(n) for n in range(40, 50))]
    return {public_key_bytes(key): key for key in keys}


def key_of(t: Transcript, role: Role) -> Ed25519PrivateKey:
    public = t.key(role)
    assert public is not None
    return _known_keys()[public]


def test_an_error_without_game_after_the_game_id_exists_is_nobodys_word() -> None:
    t = replayed(2)
    fields = next_fields(t, Role.GUEST, "error", code="closed", detail="bye")
    del fields["game"]
    with pytest.raises(ProtocolError) as caught:
        raw(fields, key=GUEST_KEY)
    assert (caught.value.code, caught.value.check) == (Code.BAD_FIELD, Check.PLACE)


# ---------------------------------------------------------------- time claims


def claim(t: Transcript, claimant: Role, *, waited: int | None = None, late: int = 0) -> Frame:
    """A claim by ``claimant`` stating ``waited`` (the limit by default), dated ``late`` ms
    after the limit has run out since its own last message."""
    limit = t.limit()
    last = t.last_at(claimant)
    assert last is not None
    return signed(t, claimant, TimeClaim(limit if waited is None else waited), last + limit + late)


CLAIMS = [
    (Phase.DECISION, End.NO_GAME, None),
    (Phase.HOST_COMMIT, End.TIME, "claimant"),
    (Phase.GUEST_COMMIT, End.TIME, "claimant"),
    (Phase.HOST_COIN, End.TIME, "claimant"),
    (Phase.GUEST_COIN, End.TIME, "claimant"),
    (Phase.SHOOT, End.TIME, "claimant"),
    (Phase.ANSWER, End.TIME, "claimant"),
    (Phase.FIRST_REVEAL, End.TIME, "claimant"),
    (Phase.SECOND_REVEAL, End.TIME, "claimant"),
    (Phase.FIRST_VERDICT, End.SUNK, "before"),
    (Phase.SECOND_VERDICT, End.SUNK, "before"),
]


@pytest.mark.parametrize(("phase", "end", "winner"), CLAIMS)
def test_every_valid_claim_ends_the_game_as_spec_md_section_8_says(
    phase: Phase, end: End, winner: str | None
) -> None:
    t = until(phase)
    speaker = t.speaker()
    assert speaker is not None
    before = t.winner
    t.add(claim(t, speaker.other))
    assert t.complete and t.end is end and t.findings == []
    match winner:
        case "claimant":
            assert t.winner is speaker.other and t.culprits == {speaker}
        case "before":
            assert t.winner is before and t.culprits == frozenset()
        case None:
            assert t.winner is None and t.culprits == frozenset()


@pytest.mark.parametrize("phase", [Phase.HOST_HELLO, Phase.GUEST_HELLO])
def test_no_claim_during_the_hellos(phase: Phase) -> None:
    t = until(phase)
    if not t.frames:
        return  # no key to sign a claim with, and nothing to claim
    error = refused(t, signed(t, Role.HOST, TimeClaim(10**6), 10**13))
    assert (error.code, error.check) == (Code.OUT_OF_TURN, Check.TURN)


@pytest.mark.parametrize("phase", [p for p, _, _ in CLAIMS])
@pytest.mark.parametrize("flaw", ["waited", "dated"])
def test_an_early_claim_is_a_finding_against_the_claimant(phase: Phase, flaw: str) -> None:
    t = until(phase)
    speaker = t.speaker()
    assert speaker is not None
    claimant = speaker.other
    limit = t.limit()
    if flaw == "waited":
        t.add(claim(t, claimant, waited=limit - 1, late=10**6))
    else:
        t.add(claim(t, claimant, late=-1))
    [finding] = t.findings
    assert finding.kind is FindingKind.EARLY_CLAIM and finding.culprit is claimant
    assert t.complete and t.culprits == {claimant}
    if phase is Phase.DECISION:
        assert t.end is End.NO_GAME and t.winner is None
    else:
        assert t.end is End.CHEATED and t.winner is speaker


def test_a_claim_at_exactly_the_limit_stands() -> None:
    t = until(Phase.SHOOT)
    speaker = t.speaker()
    assert speaker is not None
    t.add(claim(t, speaker.other, late=0))
    assert t.end is End.TIME and t.findings == []


def test_a_claim_checks_the_reveal_limit_after_the_battle() -> None:
    t = until(Phase.FIRST_REVEAL)
    assert t.limit() == t.limits.reveal_ms < t.limits.move_ms
    speaker = t.speaker()
    assert speaker is not None
    t.add(claim(t, speaker.other))
    assert t.end is End.TIME and t.findings == []


# ---------------------------------------------------------------- errors


def stop(t: Transcript, sender: Role, code: str = "closed") -> None:
    t.add(signed(t, sender, Error(code, "stopping"), 5_000))


@pytest.mark.parametrize(
    "phase",
    [
        Phase.HOST_COMMIT,
        Phase.GUEST_COMMIT,
        Phase.HOST_COIN,
        Phase.GUEST_COIN,
        Phase.SHOOT,
        Phase.ANSWER,
        Phase.FIRST_REVEAL,
        Phase.SECOND_REVEAL,
    ],
)
@pytest.mark.parametrize("by", list(Role))
def test_from_the_accept_on_an_error_is_its_senders_forfeit(phase: Phase, by: Role) -> None:
    t = until(phase)
    stop(t, by, code="internal")
    assert t.complete and t.end is End.FORFEIT
    assert t.winner is by.other and t.culprits == {by}


@pytest.mark.parametrize("phase", [Phase.GUEST_HELLO, Phase.DECISION])
def test_an_error_before_the_accept_is_no_game_with_nobody_to_blame(phase: Phase) -> None:
    t = until(phase)
    stop(t, Role.HOST)
    assert t.end is End.NO_GAME and t.winner is None and t.culprits == frozenset()


@pytest.mark.parametrize("phase", [Phase.FIRST_VERDICT, Phase.SECOND_VERDICT])
def test_in_the_verdicts_an_error_changes_nothing(phase: Phase) -> None:
    t = until(phase)
    before = t.ending
    speaker = t.speaker()
    assert speaker is not None and before is not None
    stop(t, speaker)
    assert t.complete and t.ending == before


def test_a_refused_frame_is_answered_by_the_error_at_its_place() -> None:
    t = until(Phase.SHOOT)
    shooter = t.speaker()
    assert shooter is not None
    bad = signed(t, shooter, _two_shots(), 3_000)
    error = refused(t, bad)
    assert error.code is Code.BAD_SHOT and error.refuses
    assert t.refused is not None and t.refused.frame.body == bad.body
    stop(t, shooter.other, code=error.code.value)
    assert t.end is End.FORFEIT and t.winner is shooter.other and t.culprits == {shooter}
    assert t.refused is None


def test_a_refused_hello_before_the_accept_names_its_sender_but_no_game() -> None:
    t = with_host_hello()
    bad = raw(hello_fields(Role.GUEST, 1, t.last_digest, name=3))
    assert refused(t, bad).code is Code.BAD_FIELD
    t.add(signed(t, Role.HOST, Error("bad-field", "name"), 5_000))
    assert t.end is End.NO_GAME and t.winner is None and t.culprits == {Role.GUEST}


def test_a_hello_of_another_version_names_nobody() -> None:
    t = with_host_hello()
    bad = raw(hello_fields(Role.GUEST, 1, t.last_digest, protocol=1))
    assert refused(t, bad).code is Code.VERSION
    t.add(signed(t, Role.HOST, Error("version", "1"), 5_000))
    assert t.end is End.NO_GAME and t.culprits == frozenset()


def test_the_guests_error_as_message_0_needs_no_signature() -> None:
    fields = {"type": "error", "from": "guest", "seq": 0, "prev": GENESIS, "at": 1}
    fields |= {"code": "version", "detail": "I speak version 1"}
    t = Transcript()
    t.add(raw(fields, key=key_from(12345)))
    assert t.complete and t.end is End.NO_GAME
    guest_at_one = with_host_hello()
    fields |= {"seq": 1, "prev": guest_at_one.last_digest}
    error = refused(guest_at_one, raw(fields, key=key_from(12345)))
    assert error.code is Code.BAD_SIGNATURE, "only message 0 is taken unsigned"


def test_an_error_at_the_reveal_gives_the_game_away_after_a_sink() -> None:
    t = until(Phase.FIRST_REVEAL)
    before = t.ending
    assert before is not None and before.end is End.SUNK
    winner = t.winner
    assert winner is not None
    stop(t, winner)
    after = t.ending
    assert after is not None and after.end is End.FORFEIT
    assert t.winner is winner.other and t.culprits == {winner}


def test_a_stop_where_a_crossed_error_came_is_judged_as_of_that_place() -> None:
    t = replayed(40)
    speaker_then = t.frames[30].header.sender
    ending = t.ending_if_stopped(speaker_then.other, 30, as_is("gone"))
    assert ending.end is End.FORFEIT and ending.winner is speaker_then
    assert t.ending_if_stopped(Role.GUEST, 2, as_is("gone")).end is End.NO_GAME


def _two_shots() -> Message:
    from statki_net.protocol.wire import Shot

    return Shot((1, 2))


# ---------------------------------------------------------------- what an answer may say


def test_names_may_be_absent_or_empty_when_nothing_sank() -> None:
    from statki_net.game.battle import Answer, Outcome
    from statki_net.protocol.wire import Reply

    rules = PRESETS["five-ships"]
    t = Transcript()
    for frame in _game(rules):
        if t.phase is Phase.ANSWER:
            break
        t.add(frame)
    defender = t.speaker()
    assert defender is not None
    body = signed(t, defender, Reply(Answer((Outcome.MISS,), 0, 0)), 3_000).body
    fields = msgpack.unpackb(body, raw=False)
    names: list[str] | None
    for names in ([], None):
        probe = Transcript()
        for frame in t.frames:
            probe.add(frame)
        if names is None:
            fields.pop("names", None)
        else:
            fields["names"] = names
        frame = probe.check(raw(fields, key=key_of(t, defender)))
        assert frame.message.answer.names == ()  # type: ignore[union-attr]


@cache
def _game(rules: Ruleset) -> tuple[Frame, ...]:
    pair = make_pair(rules, seed=21)
    play(pair, seed=22)
    return tuple(pair.host.transcript.frames)


def test_report_count_outside_salvo_changes_nothing() -> None:
    from statki_net.game.rules import Report

    rules = CLASSIC.with_options(report=Report.COUNT)
    frames = _game(rules)
    t = Transcript()
    for frame in frames:
        t.add(frame)
    assert t.end is End.SUNK and t.findings == []
    assert any(f.message.TYPE == "answer" and f.message.answer.outcomes for f in frames)  # type: ignore[union-attr]


def test_an_empty_ship_in_a_reveal_is_refused_not_found() -> None:
    from statki_net.protocol.wire import Reveal

    t = until(Phase.FIRST_REVEAL, short_game())
    revealer = t.speaker()
    assert revealer is not None
    bad = signed(t, revealer, Reveal(((),), bytes(32)), 9_000)
    error = refused(t, bad)
    assert (error.code, error.check) == (Code.BAD_FIELD, Check.DECODE)


# ---------------------------------------------------------------- bounds, at their edges


def _proposal(
    rules: dict[str, Any] | None = None, limits: dict[str, Any] | None = None
) -> Transcript:
    t = Transcript()
    fields = hello_fields(Role.HOST)
    if rules is not None:
        fields["rules"] = rules
    if limits is not None:
        fields["limits"] = limits
    t.add(raw(fields))
    return t


def _out_of_bounds(
    rules: dict[str, Any] | None = None, limits: dict[str, Any] | None = None
) -> None:
    with pytest.raises(ProtocolError) as caught:
        _proposal(rules, limits)
    assert (caught.value.code, caught.value.check) == (Code.BAD_FIELD, Check.CONTENT)


def _fleet_of(squares: int, ships: int, longest: int) -> list[int]:
    """``ships`` lengths, longest first, totalling ``squares``, none over ``longest``."""
    fleet = [1] * ships
    left = squares - ships
    for i in range(ships):
        grow = min(left, longest - 1)
        fleet[i] += grow
        left -= grow
    assert left == 0
    return fleet


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        ({"size": MIN_SIZE, "fleet": [2, 1]}, {"size": MIN_SIZE - 1, "fleet": [2, 1]}),
        ({"size": MAX_SIZE, "fleet": [2, 1]}, {"size": MAX_SIZE + 1, "fleet": [2, 1]}),
        ({"fleet": [1] * MAX_SHIPS}, {"fleet": [1] * (MAX_SHIPS + 1)}),
        (
            {"size": 10, "fleet": _fleet_of(MAX_SHIP_SQUARES, 12, 10)},
            {"size": 10, "fleet": _fleet_of(MAX_SHIP_SQUARES + 1, 12, 10)},
        ),
        ({"size": 8, "fleet": _fleet_of(32, 4, 8)}, {"size": 8, "fleet": _fleet_of(33, 5, 8)}),
        ({"size": 5, "fleet": [5, 5, 2]}, {"size": 5, "fleet": [5, 5, 3]}),
        ({"size": 6, "fleet": [6]}, {"size": 6, "fleet": [7]}),
        ({"fleet": [1]}, {"fleet": [0]}),
    ],
)
def test_each_rules_bound_holds_at_its_edge(
    inside: dict[str, Any], outside: dict[str, Any]
) -> None:
    assert _proposal(inside).rules is not None
    _out_of_bounds(outside)


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        (
            {"move_ms": MIN_MOVE_MS, "reveal_ms": 60_000},
            {"move_ms": MIN_MOVE_MS - 1, "reveal_ms": 60_000},
        ),
        (
            {"move_ms": MAX_LIMIT_MS, "reveal_ms": 60_000},
            {"move_ms": MAX_LIMIT_MS + 1, "reveal_ms": 60_000},
        ),
        (
            {"move_ms": 60_000, "reveal_ms": MIN_REVEAL_MS},
            {"move_ms": 60_000, "reveal_ms": MIN_REVEAL_MS - 1},
        ),
        (
            {"move_ms": 60_000, "reveal_ms": MAX_LIMIT_MS},
            {"move_ms": 60_000, "reveal_ms": MAX_LIMIT_MS + 1},
        ),
    ],
)
def test_each_limit_bound_holds_at_its_edge(
    inside: dict[str, Any], outside: dict[str, Any]
) -> None:
    t = _proposal(limits=inside)
    assert t.limits == Limits(inside["move_ms"], inside["reveal_ms"])
    _out_of_bounds(limits=outside)

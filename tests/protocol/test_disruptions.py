"""Endings nobody can game (issue 10): at any point of a game, whatever one side does to
leave it, the other side's log never blames its own writer, and the leaver loses.

Two sessions play an honest game one delivery at a time.  At some message
index one side, the leaver, stops the game, sends an ``error``, sends a signed
frame that breaks the protocol, forges a time claim, or the connection drops.
The other side then finishes the game as a real peer would: its player moves
when it is to, and its clock runs to its deadline when it waits.  Everything
is in-process with the clock passed in, so no test waits in real time.

The invariants (``judged``): the honest side's ending never names it; from
the guest's accept (in the honest side's own transcript) on, the honest side
wins and the leaver is the one to blame, unless the game was already decided
(the verdicts); before it, the game is no game, naming at most the leaver;
and a refused frame kept as evidence always names its sender.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from peers import finish, fire, make_pair, snapshot, step

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import NOT_THE_PEERS_WORD, Code
from statki_net.protocol.events import Evidence
from statki_net.protocol.phases import VERDICT_PHASES, Phase
from statki_net.protocol.session import Session
from statki_net.protocol.wire import SIGN_LABEL, Error, Header, Message, Role, TimeClaim, sign

KINDS = ("stop", "error", "bad-frame", "early-claim", "forged-claim", "drop")
BAD_FRAMES: tuple[dict[str, Any], ...] = (
    {"type": "chat", "text": "hi"},  # unknown-type
    {"type": "refuse", "reason": 5},  # bad-field
    {"type": "resign", "at": 1.5},  # a float where an int is due: bad-field
    {"type": "shot", "squares": [65535]},  # off the board, or out of turn
)
ERROR_CODES = ("closed", "internal", "bad-shot", "timeout", "no-such-code")


def signed_next(leaver: Session, message: Message, at: int) -> bytes:
    """``message`` as the leaver's next frame, signed with its key (its session unaware)."""
    t = leaver.transcript
    header = Header(leaver.role, len(t.frames), t.last_digest, t.game, at)
    return sign(leaver.key, header, message).encode()


def raw_next(leaver: Session, fields: dict[str, Any], at: int) -> bytes:
    """A frame of hand-made fields at the end of the leaver's chain, signed with its key."""
    t = leaver.transcript
    body: dict[str, Any] = {"from": leaver.role.value, "seq": len(t.frames), "prev": t.last_digest}
    if t.game:
        body["game"] = t.game
    body["at"] = at
    body.update(fields)
    data = bytes(msgpack.packb(body, use_bin_type=True))
    return bytes(msgpack.packb([data, leaver.key.sign(SIGN_LABEL + data)], use_bin_type=True))


def forged_claim(leaver: Session, *, careful: bool, now: int) -> bytes:
    """A claim made early: by its own numbers (``careful`` False), or with numbers that
    agree with the claimant's own log, so only the receiver's clock can tell."""
    t = leaver.transcript
    if not careful:
        return signed_next(leaver, TimeClaim(1), now)
    limit = t.limit()
    last = t.last_at(leaver.role)
    at = now if last is None else last + limit
    return signed_next(leaver, TimeClaim(limit), at)


def flush(pair: BackToBack, sender: Session) -> None:
    """What ``sender`` has sent arrives first: a stream keeps its order."""
    data = sender.data_to_send()
    if data:
        receiver = pair.session(sender.role.other)
        pair.now += 1
        pair.record(receiver.role, receiver.receive_data(data, pair.now))


def disrupt(pair: BackToBack, kind: str, leaver: Role, rng: random.Random) -> None:
    """The leaver leaves the game its way, then hangs up."""
    bad = pair.session(leaver)
    honest = pair.session(leaver.other)
    if kind == "drop":
        pair.cut()
        return
    now = pair.now
    match kind:
        case "stop":
            if not bad.closed:
                pair.record(leaver, bad.abort(Code.CLOSED, "the player quit", now))
            flush(pair, bad)
        case "error":
            frame = signed_next(bad, Error(rng.choice(ERROR_CODES), "leaving"), now)
            pair.record(honest.role, honest.receive_data(frame, now + 1))
        case "bad-frame":
            frame = raw_next(bad, dict(rng.choice(BAD_FRAMES)), now)
            pair.record(honest.role, honest.receive_data(frame, now + 1))
        case "early-claim" | "forged-claim":
            frame = forged_claim(bad, careful=kind == "forged-claim", now=now)
            pair.record(honest.role, honest.receive_data(frame, now + 1))
    # The leaver hangs up; what the honest side still had to send is lost with it.
    honest.data_to_send()
    pair.record(honest.role, honest.connection_lost(pair.now, "the leaver hung up"))


def finish_alone(pair: BackToBack, side: Session, rng: random.Random) -> None:
    """``side`` plays on by itself to the end of its own log."""
    for _ in range(2000):
        if side.closed:
            return
        t = side.transcript
        rules = side.rules
        if side.role is Role.GUEST and t.phase is Phase.DECISION and rules is not None:
            pair.record(side.role, side.accept(random_fleet(rules, rng), pair.now))
        elif side.my_turn:
            fire(pair, side, rng)
        else:
            due = side.deadline()
            assert due is not None, f"{side.role} waits for nothing at {t.phase}, yet plays on"
            pair.now = max(pair.now, due)
            pair.record(side.role, side.check_time(pair.now))
        side.data_to_send()  # there is no connection to send it on
    raise AssertionError("the game does not end")


def judged(
    side: Session, leaver: Role | None, before: Ending | None, decided: bool, accepted: bool
) -> None:
    """The invariants of the module docstring, for ``side``'s own log.

    ``accepted``: whether the game had begun for both by the time of the disruption (the
    other side too had the guest's accept in its transcript).  Where it had not, the
    leaver's stop can cross the accept, and the game stopped before it: no game.
    """
    ending = side.ending
    assert side.closed and ending is not None, "every game ends in one of the endings"
    me = side.role
    assert not ending.blames(me), f"{me}'s own log blames it: {ending}"
    if decided:
        assert before is not None
        # A decided game changes only against the leaver: a finding, or its stop that
        # crossed this side's last message, which it had not read (the game was not
        # decided yet where the stop stands).
        changed = (ending.end, ending.winner) != (before.end, before.winner)
        if changed:
            assert ending.winner is me and ending.culprits == {leaver or me.other}, ending
        return
    if ending.end is End.NO_GAME:
        assert not (accepted and side.transcript.accepted), f"a game was on: {ending}"
        assert ending.winner is None, ending
        assert ending.culprits <= ({leaver} if leaver else frozenset()), ending
    else:
        assert ending.winner is me, f"{me} should win: {ending}"
        assert ending.end in (End.TIME, End.FORFEIT, End.CHEATED), ending
        assert ending.culprits == ({leaver} if leaver else {me.other}), ending


def refused_evidence_names_its_sender(pair: BackToBack, side: Session) -> None:
    refused = [
        e
        for e in pair.events[side.role]
        if isinstance(e, Evidence)
        and e.code not in NOT_THE_PEERS_WORD
        and e.code is not Code.OUT_OF_TURN  # also the code of a claim too early by the clock
    ]
    ending = side.ending
    assert ending is not None
    for evidence in refused:
        if evidence.code is not Code.VERSION:
            assert evidence.frame.header.sender in ending.culprits, (evidence, ending)


def check_disruption(pair: BackToBack, kind: str, leaver: Role, seed: int) -> None:
    """Disrupt a copy of ``pair`` as ``kind`` says, finish the game, check both sides."""
    probe = snapshot(pair)
    rng = random.Random(seed)
    honest = probe.session(leaver.other)
    if kind != "drop":
        flush(probe, probe.session(leaver))  # what the leaver sent before it left arrives
    before = {role: probe.session(role).ending for role in Role}
    decided = {
        role: probe.session(role).transcript.phase in (*VERDICT_PHASES, Phase.DONE) for role in Role
    }
    accepted = {role: probe.session(role).transcript.accepted for role in Role}
    disrupt(probe, kind, leaver, rng)
    if kind == "drop":
        finish(probe, rng)  # both sides are honest: each finishes alone, in its own log
        for side in (probe.host, probe.guest):
            judged(side, None, before[side.role], decided[side.role], accepted=True)
        return
    finish_alone(probe, honest, rng)
    judged(honest, leaver, before[honest.role], decided[honest.role], accepted[leaver])
    refused_evidence_names_its_sender(probe, honest)
    bad = probe.session(leaver)
    if kind == "stop" and bad.transcript.accepted and not decided[leaver]:
        ending = bad.ending
        assert ending is not None and ending.culprits == {leaver}, "a stop is its own forfeit"


# ---------------------------------------------------------------- every index of a short game


@cache
def short_game_length() -> int:
    pair = make_pair(PRESETS["salvo-count"], seed=3)
    rng = random.Random(4)
    steps = 0
    while step(pair, rng):
        steps += 1
    return steps


@pytest.mark.parametrize("kind", KINDS)
def test_at_every_message_index_of_a_game_no_disruption_blames_the_honest_side(kind: str) -> None:
    pair = make_pair(PRESETS["salvo-count"], seed=3)
    rng = random.Random(4)
    index = 0
    while True:
        for leaver in Role:
            check_disruption(pair, kind, leaver, seed=index)
        index += 1
        if not step(pair, rng):
            break
    assert index == short_game_length() + 1 and index > 40


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_at_every_message_index_of_every_preset_one_disruption_or_another(preset: str) -> None:
    """Each index of a whole game under each preset, the kind and the leaver in turn."""
    pair = make_pair(PRESETS[preset], seed=5)
    rng = random.Random(6)
    index = 0
    while True:
        kind = KINDS[index % len(KINDS)]
        leaver = list(Role)[index // len(KINDS) % 2]
        check_disruption(pair, kind, leaver, seed=index)
        index += 1
        if not step(pair, rng):
            break
    assert index > 40


# ---------------------------------------------------------------- any index of any preset


@cache
def game_length(preset: str, seed: int) -> int:
    pair = make_pair(PRESETS[preset], seed=seed)
    rng = random.Random(seed)
    steps = 0
    while step(pair, rng):
        steps += 1
    return steps


@settings(
    max_examples=20,  # beside the test above, which disrupts every message of every preset
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(1, 3),
    where=st.floats(0, 1),
    kind=st.sampled_from(KINDS),
    leaver=st.sampled_from(list(Role)),
)
def test_no_disruption_in_any_game_blames_the_honest_side(
    preset: str, seed: int, where: float, kind: str, leaver: Role
) -> None:
    pair = make_pair(PRESETS[preset], seed=seed)
    rng = random.Random(seed)
    for _ in range(round(where * game_length(preset, seed))):
        step(pair, rng)
    check_disruption(pair, kind, leaver, seed)

"""The resume handshake, pure: the frame, its checks, and games carried on after a cut.

A game between two in-memory sessions is cut after every delivery of a whole
game; each side then does alone what its rules let it, the two resume on a
"new connection", and the game must finish as one unbroken transcript.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest
from peers import finish, fire, key_from, make_pair, player_moves, snapshot, step

from statki_net.game.errors import UsageError
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End
from statki_net.protocol.events import Resumed
from statki_net.protocol.logformat import ResumeRecord, frames_of, read_log
from statki_net.protocol.resume import (
    MAX_RESUME,
    Resume,
    ResumeError,
    ResumeRefusal,
    check_resume,
    decode_resume,
    encode_resume,
    read_resume,
    redial_wait_ms,
    sign_resume,
)
from statki_net.protocol.session import Session, SideSecrets, public_key_bytes
from statki_net.protocol.wire import SIGN_LABEL, Frame, Hello, Role, game_id
from statki_net.referee.verify import judge_log

SMALL = Ruleset(size=6, fleet=(3, 2))
"""A board so small that a whole game is a few dozen messages."""
NONCE = bytes(range(32))


def resume_of(**changes: object) -> Resume:
    fields: dict[str, object] = {
        "sender": Role.GUEST,
        "game": b"g" * 32,
        "nonce": NONCE,
        "have": 7,
        "last": b"l" * 32,
        "at": 1_000,
    }
    fields.update(changes)
    return Resume(**fields)  # type: ignore[arg-type]


def test_a_resume_reads_back_as_signed() -> None:
    key = key_from(1)
    frame = sign_resume(key, resume_of())
    read = decode_resume(frame.encode())
    assert read == frame
    check_resume(read, sender=Role.GUEST, game=b"g" * 32, key=public_key_bytes(key), nonce=NONCE)


@pytest.mark.parametrize(
    ("checked", "refusal"),
    [
        ({"sender": Role.HOST}, ResumeRefusal.WRONG_SIDE),
        ({"game": b"h" * 32}, ResumeRefusal.UNKNOWN_GAME),
        ({"nonce": bytes(32)}, ResumeRefusal.WRONG_NONCE),
        ({"key": public_key_bytes(key_from(2))}, ResumeRefusal.WRONG_KEY),
    ],
)
def test_a_resume_of_another_side_game_connection_or_key_is_turned_away(
    checked: dict[str, object], refusal: ResumeRefusal
) -> None:
    frame = sign_resume(key_from(1), resume_of())
    expected: dict[str, object] = {
        "sender": Role.GUEST,
        "game": b"g" * 32,
        "key": public_key_bytes(key_from(1)),
        "nonce": NONCE,
    }
    expected.update(checked)
    with pytest.raises(ResumeError) as raised:
        check_resume(frame, **expected)  # type: ignore[arg-type]
    assert raised.value.refusal is refusal


def test_a_resume_signature_is_no_message_signature() -> None:
    """Signed under a label of its own: a message's signature over the same body fails."""
    key = key_from(1)
    body = encode_resume(resume_of())
    forged = msgpack.packb([body, key.sign(SIGN_LABEL + body)], use_bin_type=True)
    with pytest.raises(ResumeError) as raised:
        check_resume(
            decode_resume(forged),
            sender=Role.GUEST,
            game=b"g" * 32,
            key=public_key_bytes(key),
            nonce=NONCE,
        )
    assert raised.value.refusal is ResumeRefusal.WRONG_KEY


@pytest.mark.parametrize(
    "data",
    [
        b"\xc1",
        msgpack.packb([b"x", bytes(64)]),
        msgpack.packb([b"\x80", bytes(63)]),
        msgpack.packb([msgpack.packb({"type": "hello"}), bytes(64)]),
        msgpack.packb([encode_resume(resume_of()).replace(b"have\x07", b"have\xc3"), bytes(64)]),
        msgpack.packb(
            [
                b"\x81" + b"\xa1x\xc5" + (MAX_RESUME).to_bytes(2, "big") + bytes(MAX_RESUME),
                bytes(64),
            ]
        ),
    ],
)
def test_what_is_no_resume_is_malformed(data: bytes) -> None:
    with pytest.raises(ResumeError) as raised:
        decode_resume(data)
    assert raised.value.refusal is ResumeRefusal.MALFORMED


def test_the_guest_backs_off_to_a_cap() -> None:
    waits = [redial_wait_ms(n) for n in range(8)]
    assert waits == sorted(waits) and waits[0] == 500 and waits[-1] == waits[-2] == 8_000


# ---------------------------------------------------------------- games carried on


def play_alone(pair: BackToBack, rng: random.Random) -> None:
    """Each side's player moves while its own transcript says it may; nobody waits out a
    limit (the new connection comes before that)."""
    for _ in range(10):
        if not player_moves(pair, rng):
            return


def whole_game_cut_at(rules: Ruleset, steps: int, seed: int) -> BackToBack:
    """A game cut after ``steps`` steps, played apart, resumed and finished."""
    rng = random.Random(seed)
    pair = make_pair(rules, seed)
    for _ in range(steps):
        if not step(pair, rng):
            break
    pair.cut()
    play_alone(pair, rng)
    if pair.host.resumable and pair.guest.resumable:
        pair.rejoin(NONCE)
    finish(pair, rng)
    return pair


def bodies(session: Session) -> list[bytes]:
    return [frame.body for frame in session.transcript.frames]


def cut_everywhere(rules: Ruleset, seed: int) -> Iterator[tuple[int, BackToBack]]:
    """The game cut after each of its steps in turn (a copy of it, ``snapshot``), played
    apart, resumed and finished; with the number of steps before the cut."""
    rng = random.Random(seed)
    pair = make_pair(rules, seed)
    steps = 0
    while True:
        cut = snapshot(pair)
        rng_apart = random.Random(steps)
        cut.cut()
        play_alone(cut, rng_apart)
        if cut.host.resumable and cut.guest.resumable:
            cut.rejoin(NONCE)
        finish(cut, rng_apart)
        yield steps, cut
        if not step(pair, rng):
            return
        steps += 1


def test_a_game_cut_anywhere_resumes_into_one_transcript() -> None:
    """Every cut after the hellos resumes: one transcript, played to the verdicts.  Only a
    cut in the hellos (no game yet) or one that loses the game's last message (its sender
    is done) is not resumed."""
    resumed = 0
    for steps, pair in cut_everywhere(SMALL, seed=1):
        host, guest = pair.host, pair.guest
        where = f"a cut after step {steps}"
        if not any(isinstance(e, Resumed) for e in pair.events[Role.HOST]):
            if len(host.transcript.frames) < 2:  # in the hellos: no game to resume
                assert host.ending is not None and host.ending.end is End.NO_GAME, where
            elif host.transcript.frames != guest.transcript.frames:
                # The last message lost: its receiver's claim changes nothing.
                assert bodies(host)[:-1] == bodies(guest)[:-1], where
                assert host.ending is not None and guest.ending is not None, where
                assert host.ending.end is guest.ending.end, where
            continue
        resumed += 1
        assert bodies(host) == bodies(guest), f"transcripts differ after {where}"
        assert host.transcript.complete, where
        ending = host.ending
        assert ending is not None and ending.end in {End.SUNK, End.REFUSED}, (where, ending)
    assert resumed > 20


def test_a_classic_game_resumes_after_a_cut_in_the_battle() -> None:
    pair = whole_game_cut_at(ruleset_named("classic"), 40, seed=3)
    assert bodies(pair.host) == bodies(pair.guest)
    assert pair.host.ending is not None and pair.host.ending.end is End.SUNK


def test_each_side_sends_again_what_the_other_lacks() -> None:
    """The host's shot is lost on the way; after the resume it is sent again, once."""
    rng = random.Random(4)
    pair = make_pair(SMALL, 4)
    while not any(s.my_turn for s in (pair.host, pair.guest)):
        assert step(pair, rng)
    pair.pump()
    shooter = next(s for s in (pair.host, pair.guest) if s.my_turn)
    fire(pair, shooter, rng)
    shooter.data_to_send()  # lost on the wire
    pair.cut()
    have = len(shooter.transcript.frames)
    pair.rejoin(NONCE)
    told = [e for e in pair.events[shooter.role] if isinstance(e, Resumed)]
    assert told == [Resumed(have - 1, 1)]
    assert bodies(pair.host)[:have] == bodies(pair.guest)[:have]


def test_a_game_that_is_over_cannot_be_resumed() -> None:
    pair = whole_game_cut_at(SMALL, 0, seed=1)
    assert pair.host.closed and not pair.host.resumable
    with pytest.raises(ResumeError) as raised:
        pair.host.check_resume(sign_resume(pair.guest.key, resume_of()), NONCE)
    assert raised.value.refusal is ResumeRefusal.UNKNOWN_GAME


def test_a_replayed_resume_is_turned_away() -> None:
    rng = random.Random(2)
    pair = make_pair(SMALL, 2)
    for _ in range(12):
        step(pair, rng)
    pair.cut()
    asked = pair.guest.resume_frame(NONCE, pair.now)
    with pytest.raises(ResumeError) as raised:
        pair.host.check_resume(asked, bytes(32))
    assert raised.value.refusal is ResumeRefusal.WRONG_NONCE
    stranger = sign_resume(key_from(99), asked.resume)
    with pytest.raises(ResumeError) as raised:
        pair.host.check_resume(stranger, NONCE)
    assert raised.value.refusal is ResumeRefusal.WRONG_KEY


# ---------------------------------------------------------------- the sample logs

SAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "logs"


def test_the_sample_resumed_logs_hold_one_transcript_and_both_resumes() -> None:
    contents = {role: read_log((SAMPLES / f"resumed-{role}.statki").read_bytes()) for role in Role}
    assert contents[Role.HOST].frames == contents[Role.GUEST].frames
    for role, log in contents.items():
        frames = frames_of(log)
        keys = {side: hello.key for side, hello in hellos(frames).items()}
        resumes = [r for r in log.records if isinstance(r, ResumeRecord)]
        assert len(resumes) == 2
        read = [read_resume([r.body, r.signature]) for r in resumes]
        assert {r.resume.sender for r in read} == {Role.HOST, Role.GUEST}
        assert read[0].resume.nonce == read[1].resume.nonce
        for frame in read:
            check_resume(
                frame,
                sender=frame.resume.sender,
                game=game_id(frames[0].body, frames[1].body),
                key=keys[frame.resume.sender],
                nonce=read[0].resume.nonce,
            )
        # Each resume says how far its sender's transcript went: the game resumed there.
        assert all(r.after == resumes[0].after for r in resumes), role
        judgement = judge_log((SAMPLES / f"resumed-{role}.statki").read_bytes())
        assert judgement.valid and judgement.end is End.SUNK


def hellos(frames: list[Frame]) -> dict[Role, Hello]:
    found = {}
    for frame in frames[:2]:
        assert isinstance(frame.message, Hello)
        found[frame.header.sender] = frame.message
    return found


# ---------------------------------------------------------------- a side restored


def test_a_side_restored_from_its_frames_and_secrets_plays_on() -> None:
    """The guest's program stops mid-battle; a session restored from its frames and kept
    secrets resumes the game with the host, which never stopped."""
    rng = random.Random(6)
    pair = make_pair(SMALL, 6)
    for _ in range(14):
        step(pair, rng)
    pair.pump()
    stopped = pair.guest
    kept = stopped.secrets
    assert kept is not None and kept.secret
    pair.cut()
    pair.guest = Session.restore(
        Role.GUEST,
        stopped.key,
        list(stopped.transcript.frames),
        kept,
        name="Olek",
        entropy=random.Random(0).randbytes,
    )
    pair.record(Role.GUEST, pair.guest.start(pair.now))
    pair.rejoin(NONCE)
    finish(pair, rng)
    assert bodies(pair.host) == bodies(pair.guest)
    assert pair.host.ending is not None and pair.host.ending.end is End.SUNK
    assert not pair.host.transcript.findings, "the restored side answered and revealed honestly"


def test_a_restore_refuses_secrets_that_do_not_open_the_commitment() -> None:
    rng = random.Random(6)
    pair = make_pair(SMALL, 6)
    for _ in range(14):
        step(pair, rng)
    kept = pair.guest.secrets
    assert kept is not None
    wrong = SideSecrets(kept.fleet, bytes(len(kept.secret)), kept.coin)
    with pytest.raises(UsageError, match="do not open"):
        Session.restore(
            Role.GUEST,
            pair.guest.key,
            list(pair.guest.transcript.frames),
            wrong,
            name="Olek",
            entropy=random.Random(0).randbytes,
        )
    with pytest.raises(UsageError, match="key"):
        Session.restore(
            Role.GUEST,
            key_from(77),
            list(pair.guest.transcript.frames),
            kept,
            name="Olek",
            entropy=random.Random(0).randbytes,
        )

"""Evidence, not words: refused frames and crossed ones judged from either side's log.

Each log here is what a side keeps by SPEC.md section 15: the frames of its
transcript, and as evidence records the peer's word that did not join it.
The frames are signed with the players' real keys (``gamelogs.signed``).
"""

from __future__ import annotations

from dataclasses import replace

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from gamelogs import Played, claim, log_file_of, named, played, signed
from peers import FrameBytes

from statki_net.protocol.endings import End, Standing
from statki_net.protocol.logformat import evidence_record, frame_record, header_record, log_file
from statki_net.protocol.session import public_key_bytes
from statki_net.protocol.wire import (
    GENESIS,
    PROTOCOL_VERSION,
    SIGN_LABEL,
    Error,
    Header,
    Hello,
    Role,
    Shot,
    TimeClaim,
    sign,
)
from statki_net.referee.verify import judge_game, judge_logs


def refused_shot(game: Played) -> tuple[bytes, bytes, int]:
    """The guest fires two shots where one is due; the host refuses the frame, keeps it as
    evidence and answers with an error at its place.  (host's log, guest's log, its place)"""
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    bad = signed(game, prefix, Role.GUEST, Shot((1, 2)))
    answer = signed(game, prefix, Role.HOST, Error("bad-shot", "2 shot(s) where 1 are due"))
    host = log_file_of([*prefix, answer], Role.HOST, evidence=[bad], evidence_first=True)
    guest = log_file_of([*prefix, bad], Role.GUEST, evidence=[answer])
    return host, guest, cut


def test_a_refused_frame_is_its_senders_forfeit_in_either_log_and_in_both() -> None:
    game = played(seed=91)
    host, guest, place = refused_shot(game)
    alone = [judge_game([named("host", host)]), judge_game([named("guest", guest)])]
    [together] = judge_logs([named("host", host), named("guest", guest)])
    for judgement in [*alone, together]:
        assert judgement.standing is Standing.VALID, judgement.lines()
        assert (judgement.end, judgement.winner, judgement.culprits) == (
            End.FORFEIT,
            Role.HOST,
            frozenset({Role.GUEST}),
        )
        [breach] = judgement.violations
        assert (breach.kind, breach.violation_class, breach.culprit) == (
            "bad-shot",
            "breach",
            Role.GUEST,
        )
        assert judgement.fork is not None and judgement.fork.seq == place
    assert [log.evidence for log in together.logs] == [1, 1]
    assert together.fork is not None
    branches = {(b.sender, b.type): b.ending for b in together.fork.branches}
    assert {key: ending.end for key, ending in branches.items() if ending} == {
        (Role.GUEST, "shot"): End.FORFEIT,
        (Role.HOST, "error"): End.FORFEIT,
    }


def test_a_refused_frame_named_error_is_still_answered_by_the_others_error() -> None:
    """An ``error`` whose keys are wrong (no ``detail``) is refused like any frame; the
    host's error at its place answers it, in whichever order the log keeps the two.
    (The referee once judged the host's error first, as a stop of its own: a dispute.)"""
    game = played(seed=93)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    wrong = signed(game, prefix, Role.GUEST, Error("closed", "leaving"))
    fields = msgpack.unpackb(wrong.body, raw=False)
    del fields["detail"]
    body = msgpack.packb(fields, use_bin_type=True)
    bad = FrameBytes(body, game.key(Role.GUEST).sign(SIGN_LABEL + body))
    answer = signed(game, prefix, Role.HOST, Error("bad-field", "missing 'detail'"))
    frames = [frame_record(f) for f in prefix]
    for kept in (
        [evidence_record(bad), frame_record(answer)],
        [frame_record(answer), evidence_record(bad)],
    ):
        host = log_file(header_record("host", "statki test", 0), [*frames, *kept])
        judgement = judge_game([named("host", host)])
        assert judgement.standing is Standing.VALID, judgement.lines()
        assert (judgement.end, judgement.winner, judgement.culprits) == (
            End.FORFEIT,
            Role.HOST,
            frozenset({Role.GUEST}),
        )


def test_an_error_that_answers_nothing_is_its_senders_own_stop() -> None:
    game = played(seed=92)
    cut = game.shooting(Role.HOST)
    prefix = game.frames[:cut]
    stop = signed(game, prefix, Role.HOST, Error("closed", "the player quit"))
    judgement = judge_game([named("host", log_file_of([*prefix, stop]))])
    assert judgement.valid and judgement.violations == []
    assert (judgement.end, judgement.winner, judgement.culprits) == (
        End.FORFEIT,
        Role.GUEST,
        frozenset({Role.HOST}),
    )


def test_stopping_after_seeing_the_others_coin_loses_the_game() -> None:
    game = played(seed=93)
    host_coin = next(n for n, f in enumerate(game.frames) if f.message.TYPE == "coin") + 1
    prefix = game.frames[:host_coin]
    stop = signed(game, prefix, Role.GUEST, Error("closed", "I do not like this toss"))
    judgement = judge_game([named("guest", log_file_of([*prefix, stop], Role.GUEST))])
    assert judgement.valid
    assert (judgement.end, judgement.winner) == (End.FORFEIT, Role.HOST)


def test_a_crossed_error_ends_the_game_against_its_sender() -> None:
    """The host stops while the guest's shot is on its way: each keeps the other's frame."""
    game = played(seed=94)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    stop = signed(game, prefix, Role.HOST, Error("closed", "the player quit"))
    shot = signed(game, prefix, Role.GUEST, Shot((0,)))
    host = log_file_of([*prefix, stop])
    guest = log_file_of([*prefix, shot], Role.GUEST, evidence=[stop])
    for logs in ([named("guest", guest)], [named("host", host), named("guest", guest)]):
        judgement = judge_game(logs)
        assert judgement.valid and judgement.violations == []
        assert (judgement.end, judgement.winner) == (End.FORFEIT, Role.GUEST)


def test_a_crossed_claim_kept_as_evidence_makes_one_log_a_dispute() -> None:
    """The guest's shot crossed the host's claim: the guest kept the claim, finished alone
    and claimed in its turn; its own log then holds both claims."""
    game = played(seed=95)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    theirs = claim(game, prefix, Role.HOST)
    shot = signed(game, prefix, Role.GUEST, Shot((0,)))
    mine = claim(game, [*prefix, shot], Role.GUEST)
    judgement = judge_game(
        [named("guest", log_file_of([*prefix, shot, mine], Role.GUEST, evidence=[theirs]))]
    )
    assert judgement.standing is Standing.DISPUTED and judgement.ending is None


def test_an_early_claim_is_a_finding_against_the_claimant() -> None:
    game = played(seed=96)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    waited_little = signed(game, prefix, Role.HOST, TimeClaim(1))
    forged_date = claim(game, prefix, Role.HOST, early_by=game.move_ms - 1)
    for early in (waited_little, forged_date):
        judgement = judge_game([named("host", log_file_of([*prefix, early]))])
        assert judgement.standing is Standing.INVALID
        assert (judgement.end, judgement.winner, judgement.culprits) == (
            End.CHEATED,
            Role.GUEST,
            frozenset({Role.HOST}),
        )
        [violation] = judgement.violations
        assert (violation.kind, violation.culprit) == ("early-claim", Role.HOST)
        assert violation.move == sum(f.message.TYPE == "shot" for f in prefix)


def test_evidence_that_is_not_the_peers_word_is_tampering() -> None:
    game = played(seed=97)
    host, _, _ = refused_shot(game)
    cut = game.shooting(Role.GUEST)
    bad = signed(game, game.frames[:cut], Role.GUEST, Shot((1, 2)))
    spoiled = bytearray(bad.signature)
    spoiled[3] ^= 1
    forged = bytes(host).replace(bad.signature, bytes(spoiled))
    stray = signed(game, game.frames[: cut - 3], Role.GUEST, Shot((5,)))
    elsewhere = log_file_of(game.frames[: cut - 5], evidence=[stray])
    for data in (forged, elsewhere):
        judgement = judge_game([named("log", data)])
        assert judgement.standing is Standing.INVALID
        assert [v.kind for v in judgement.violations if v.violation_class == "tampering"] == [
            "bad-evidence"
        ]
        assert all(v.culprit is None for v in judgement.violations if v.kind == "bad-evidence")


def test_a_host_hello_out_of_bounds_is_no_game_naming_the_host() -> None:
    game = played(seed=98)
    key = game.key(Role.HOST)
    hello = game.frames[0].message
    assert isinstance(hello, Hello)
    tiny = {"size": 3, "fleet": [1]}
    bad = sign(
        key,
        Header(Role.HOST, 0, GENESIS, b"", 5),
        Hello(
            PROTOCOL_VERSION,
            "x",
            hello.key,
            "Ala",
            bytes(32),
            rules=tiny,
            limits={"move_ms": 1000, "reveal_ms": 1000},
        ),
    )
    answer = sign(
        game.key(Role.GUEST),
        Header(Role.GUEST, 0, GENESIS, b"", 6),
        Error("bad-field", "out of bounds"),
    )
    records = [evidence_record(bad), frame_record(answer)]
    data = log_file(header_record("guest", "t", 0), records)
    judgement = judge_game([named("guest", data)])
    assert judgement.valid and judgement.end is End.NO_GAME
    assert judgement.culprits == frozenset({Role.HOST})
    [breach] = judgement.violations
    assert (breach.kind, breach.culprit) == ("bad-field", Role.HOST)
    assert judgement.game is None  # one frame record: no game id


def test_evidence_cannot_bring_a_key_of_its_own_for_a_side_the_game_has() -> None:
    """A stranger's self-signed hello, or an unsigned error as message 0, slipped in as
    evidence before the real guest's hello, would fork the game at its start: neither is
    anyone's word in this game, and neither names the real guest."""
    game = played(seed=99)
    stranger = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    guests = game.frames[1].message
    assert isinstance(guests, Hello)
    fake = replace(guests, key=public_key_bytes(stranger), nonce=bytes(32))
    hello = sign(stranger, Header(Role.GUEST, 1, game.frames[0].digest, b"", 7), fake)
    unsigned = sign(stranger, Header(Role.GUEST, 0, GENESIS, b"", 7), Error("version", "x"))
    for forged, place in ((hello, 1), (unsigned, 0)):
        records = [frame_record(f) for f in game.frames]
        records.insert(place, evidence_record(forged))
        judgement = judge_game([named("host", log_file(header_record("host", "t", 0), records))])
        assert judgement.standing is Standing.INVALID and judgement.fork is None
        assert (judgement.end, judgement.winner) == (End.SUNK, game.pair.host.transcript.winner)
        assert [(v.kind, v.culprit) for v in judgement.violations] == [("bad-evidence", None)]

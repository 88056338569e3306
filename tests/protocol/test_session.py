import pytest
from peers import closed, log_of, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.events import ConnectionLost, Evidence
from statki_net.protocol.phases import Phase
from statki_net.protocol.wire import Header, Role, Shot, sign
from statki_net.referee.verify import judge_log


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_whole_game_in_memory(preset: str) -> None:
    pair = make_pair(PRESETS[preset], seed=3)
    play(pair, seed=5)
    for role in Role:
        t = pair.session(role).transcript
        assert t.phase is Phase.DONE
        assert t.end is End.SUNK
        assert t.findings == []
        assert closed(pair, role).ending == t.ending
    assert [f.body for f in pair.host.transcript.frames] == [
        f.body for f in pair.guest.transcript.frames
    ]
    verdicts = [pair.host.transcript.sides[r].verdict for r in Role]
    assert all(
        v is not None and v.winner == pair.host.transcript.winner and v.findings == ()
        for v in verdicts
    )


def test_resigning_during_the_peers_turn_replaces_the_next_answer() -> None:
    from statki_net.game.battle import Cell

    pair = make_pair(PRESETS["classic"], seed=8)
    play(pair, seed=9, resign_at=10**6, stop_after=3)
    mover = pair.host if pair.host.my_turn else pair.guest
    waiting = pair.session(mover.role.other)
    assert waiting.resign(pair.now) == [], "nothing is sent while the peer is to shoot"
    view = mover.view
    assert view is not None
    target = next(s for s in range(100) if view.cell(s) is Cell.UNKNOWN)
    mover.shoot((target,), pair.now)
    pair.pump()
    t = mover.transcript
    assert t.end is End.RESIGNED and t.winner is mover.role
    assert t.complete and t.findings == []


@pytest.mark.parametrize("first", list(Role))
def test_host_may_propose_who_starts_for_a_rematch(first: Role) -> None:
    import random

    from peers import key_from, seeded_entropy

    from statki_net.game.fleet import random_fleet
    from statki_net.protocol.events import GameStarted, RulesProposed
    from statki_net.protocol.session import Session

    rules = PRESETS["classic"]
    for seed in range(4):  # whatever the coins say, the agreed side starts
        host = Session(
            Role.HOST,
            key_from(seed + 100),
            name="A",
            entropy=seeded_entropy(seed),
            rules=rules,
            fleet=random_fleet(rules, random.Random(seed)),
            first=first,
        )
        guest = Session(
            Role.GUEST, key_from(seed + 200), name="B", entropy=seeded_entropy(seed + 50)
        )
        pair = BackToBack(host, guest, now=1_000_000)
        pair.record(Role.HOST, host.start(0))
        pair.pump()
        pair.record(Role.GUEST, guest.accept(random_fleet(rules, random.Random(seed + 1)), 0))
        pair.pump()
        proposed = [e for e in pair.events[Role.GUEST] if isinstance(e, RulesProposed)]
        assert [e.first for e in proposed] == [first], "the guest is told before it accepts"
        started = [e for e in pair.events[Role.GUEST] if isinstance(e, GameStarted)]
        assert [e.first for e in started] == [first]
        proposal = guest.transcript.sides[Role.HOST].hello
        assert proposal is not None and proposal.first is first


def test_the_peers_time_starts_when_its_turn_begins() -> None:
    """Time spent over our own move is not taken from the peer's next wait."""
    from statki_net.game.battle import Cell

    pair = make_pair(PRESETS["alternate"], seed=12)
    play(pair, seed=13, stop_after=2)
    mover = pair.host if pair.host.my_turn else pair.guest
    assert mover.deadline() is None, "nobody waits on us while it is our own move"
    view = mover.view
    assert view is not None
    late = pair.now + 100_000  # we thought for 100 s before firing
    mover.shoot((next(s for s in range(100) if view.cell(s) is Cell.UNKNOWN),), late)
    limit = mover.transcript.limits.move_ms
    assert mover.deadline() == late + limit
    assert mover.check_time(late + limit - 1) == []


@pytest.mark.parametrize("code", ["overheated", "wrong-key"])  # unknown; never sent
def test_an_error_code_unknown_here_still_ends_the_game_and_keeps_its_words(code: str) -> None:
    from statki_net.protocol.events import BattleOver, Failed, GameClosed
    from statki_net.protocol.wire import Error, Header, sign

    pair = make_pair(PRESETS["classic"], seed=14)
    play(pair, seed=15, stop_after=2)
    mover = pair.host if pair.host.my_turn else pair.guest
    waiting = pair.session(mover.role.other)
    t = mover.transcript
    header = Header(mover.role, len(t.frames), t.last_digest, t.game, pair.now)
    error = sign(mover.key, header, Error(code, "too hot"))
    events = waiting.receive_data(error.encode(), pair.now)
    [failed] = [e for e in events if isinstance(e, Failed)]
    assert failed.code is None and failed.code_text == code and failed.by_peer
    [closing] = [e for e in events if isinstance(e, GameClosed)]
    assert closing.ending is not None and closing.ending.end is End.FORFEIT
    assert not any(isinstance(e, BattleOver) for e in events)


def test_a_lost_connection_does_not_end_the_game() -> None:
    pair = make_pair(PRESETS["classic"], seed=16)
    play(pair, seed=17, stop_after=3)
    assert pair.host.ending is None, "the game goes on"
    pair.cut()
    for side in (pair.host, pair.guest):
        assert side.lost is not None and side.lost.code is Code.LOST
        assert not side.closed and side.ending is None, "it goes on alone"
    finished = make_pair(PRESETS["classic"], seed=16)
    play(finished, seed=17)
    ending = finished.host.ending
    assert ending is not None and ending == finished.host.transcript.ending


def test_a_second_message_signed_for_one_place_is_kept_and_convicts_its_sender() -> None:
    """The guest's shot, then another shot signed for the same message: the host keeps the
    second as evidence (its log alone shows the equivocation), and not a frame sent twice."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4, stop_after=6)
    mover = next(s for s in (pair.host, pair.guest) if s.my_turn)
    honest = pair.session(mover.role.other)
    t = mover.transcript
    twin = sign(mover.key, Header(mover.role, len(t.frames), t.last_digest, t.game, 1), Shot((99,)))
    pair.record(mover.role, mover.shoot((0,), pair.now))
    sent = mover.data_to_send()
    pair.record(honest.role, honest.receive_data(sent, pair.now))
    again = honest.receive_data(sent, pair.now)  # the same frame again: no second word
    assert not any(isinstance(e, Evidence) for e in again)
    assert honest.connected is False
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4, stop_after=6)
    mover = next(s for s in (pair.host, pair.guest) if s.my_turn)
    honest = pair.session(mover.role.other)
    pair.record(mover.role, mover.shoot((0,), pair.now))
    pair.record(honest.role, honest.receive_data(mover.data_to_send() + twin.encode(), pair.now))
    [kept] = [e for e in pair.events[honest.role] if isinstance(e, Evidence)]
    assert kept.frame.body == twin.body and kept.code is Code.BAD_CHAIN
    assert any(isinstance(e, ConnectionLost) for e in pair.events[honest.role])
    judged = judge_log(log_of(pair.events[honest.role], honest.role))
    assert judged.ending is not None and judged.ending.end is End.CHEATED
    assert judged.ending.culprits == {mover.role}

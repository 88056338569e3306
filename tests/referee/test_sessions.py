"""Real sessions, stopped in every way at every message, and both their logs judged.

Issue 10's tests, as the referee sees them: two sessions play a short game,
delivered one message at a time; after each delivery one side drops the
connection, stops, or sends a well-signed frame the rules refuse, and then
each side plays on as its session does (alone, after a lost connection).
Each side's log, written from its session's events, is judged alone and with
the other's: the honest side is never the culprit, the leaver forfeits, a
lost connection that never heals blames nobody.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

from peers import finish, log_of, make_pair, step

from statki_net.game.rules import Ruleset
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import (
    evidence_record,
    frame_record,
    header_record,
    log_file,
    read_log,
)
from statki_net.protocol.wire import FrameReader, Header, Role, Shot, sign
from statki_net.referee.verify import Judgement, NamedLog, judge_game, judge_logs

SMALL = Ruleset(size=5, fleet=(2,))
"""Within the bounds, and short: a whole game is a few dozen messages."""

Stop = Callable[[BackToBack, Role], None]


def started(seed: int) -> BackToBack:
    pair = make_pair(SMALL, seed=seed)
    pair.record(Role.HOST, pair.host.start(pair.now))
    return pair


def judged(pair: BackToBack) -> tuple[dict[Role, Judgement], list[Judgement]]:
    """Each side's log judged alone, and the two given together (grouped by game id)."""
    logs = {r: NamedLog(r.value, read_log(log_of(pair.events[r], r))) for r in Role}
    return {r: judge_game([logs[r]]) for r in Role}, judge_logs(list(logs.values()))


def played_until(seed: int, deliveries: int, stop: Stop, who: Role) -> BackToBack | None:
    """A game stopped by ``stop`` after ``deliveries`` steps, then finished; None when the
    game was over by then."""
    pair = started(seed)
    rng = random.Random(seed)
    for _ in range(deliveries):
        if not step(pair, rng):
            return None
    if pair.session(who).closed:
        return None
    stop(pair, who)
    pair.pump()
    finish(pair, rng)
    return pair


@cache
def length(seed: int) -> int:
    """Steps (deliveries and moves) in the whole game."""
    pair, rng, steps = started(seed), random.Random(seed), 0
    while step(pair, rng):
        steps += 1
    return steps


def cut(pair: BackToBack, who: Role) -> None:
    pair.cut()


def quit_game(pair: BackToBack, who: Role) -> None:
    pair.record(who, pair.session(who).abort(Code.CLOSED, "the player quit", pair.now))


SEED = 112


def every_place() -> range:
    return range(1, length(SEED))


def test_a_lost_connection_at_any_message_blames_nobody() -> None:
    for deliveries in every_place():
        pair = played_until(SEED, deliveries, cut, Role.HOST)
        if pair is None:
            continue
        alone, together = judged(pair)
        for writer, judgement in alone.items():
            where = (deliveries, writer, judgement.lines())
            assert judgement.valid and writer not in judgement.culprits, where
            assert judgement.winner in (writer, None) or judgement.end in (
                End.SUNK,
                End.RESIGNED,
            ), where
        for game in together:
            seen = (deliveries, game.lines())
            assert game.standing in (Standing.VALID, Standing.DISPUTED), seen
            assert game.violations == [], seen
            if len(game.logs) == 2:
                # Each side made its move and claimed: a dispute, or one result both
                # sides' messages agree on.  (A side that lost the connection in the
                # hellos keeps a log without a game id: a game of its own.)
                assert not game.culprits, seen


def test_a_side_that_quits_at_any_message_forfeits_and_the_other_is_never_blamed() -> None:
    for deliveries in every_place():
        for leaver in Role:
            pair = played_until(SEED, deliveries, quit_game, leaver)
            if pair is None:
                continue
            alone, together = judged(pair)
            stayer = leaver.other
            for judgement in (alone[stayer], *together):
                if stayer.value not in [log.name for log in judgement.logs]:
                    continue
                where = (deliveries, leaver, judgement.lines())
                assert judgement.valid and stayer not in judgement.culprits, where
                assert judgement.end in (End.FORFEIT, End.NO_GAME, End.SUNK), where
                if judgement.end is End.FORFEIT:
                    assert judgement.winner is stayer, where


def test_a_refused_frame_at_any_message_is_its_senders_forfeit_in_both_logs() -> None:
    """After each delivery, one side signs three shots as its next frame: too many in its
    turn to shoot, out of turn anywhere else.  The other side refuses them, keeps them as
    evidence and answers at their place; the cheat's log holds them, and the answer as
    evidence."""
    for deliveries in every_place():
        for cheat in Role:
            pair = started(SEED)
            rng = random.Random(SEED)
            if not all(step(pair, rng) for _ in range(deliveries)):
                continue
            sender, receiver = pair.session(cheat), pair.session(cheat.other)
            data = sender.data_to_send()
            if data:  # the cheat's own frames in flight reach the other side first
                pair.record(receiver.role, receiver.receive_data(data, pair.now))
            t = receiver.transcript
            if receiver.closed or len(t.frames) < 2:
                continue  # over, or before the hellos: nobody's word can be refused yet
            header = Header(cheat, len(t.frames), t.last_digest, t.game, pair.now)
            bad = sign(sender.key, header, Shot((0, 1, 2)))
            pair.record(receiver.role, receiver.receive_data(bad.encode(), pair.now + 1))
            # Its last frame answers the refused one (before it, its own frames in flight).
            answer = list(FrameReader().feed(receiver.data_to_send()))[-1]
            prefix = [frame_record(f) for f in t.frames[:-1]]
            cheats_log = log_file(
                header_record(cheat.value, "t", 0),
                [*prefix, frame_record(bad), evidence_record(answer)],
            )
            logs = [
                NamedLog("cheat", read_log(cheats_log)),
                NamedLog("other", read_log(log_of(pair.events[receiver.role], receiver.role))),
            ]
            for judgement in (judge_game(logs[:1]), judge_game(logs[1:]), judge_game(logs)):
                where = (deliveries, cheat, judgement.lines())
                assert judgement.valid and receiver.role not in judgement.culprits, where
                [breach] = judgement.violations
                assert breach.kind in ("out-of-turn", "bad-shot") and breach.culprit is cheat
                if judgement.end is End.FORFEIT:
                    assert judgement.winner is receiver.role, where
                elif judgement.end is End.NO_GAME:  # before the accept
                    assert judgement.culprits == frozenset({cheat}), where
                else:  # in the verdicts the game is decided: it changes nothing
                    assert judgement.end in (End.SUNK, End.RESIGNED, End.CHEATED), where

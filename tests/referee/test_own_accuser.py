"""No log is ever the honest side's accuser (SPEC.md section 16), at any message.

For every place in a game and each side as the one left behind, the log that
side keeps by SPEC.md section 12 when the other stops, sends a bad frame or
vanishes is judged alone, and with the other side's log.  The logs are built
from the game's real frames: what a side writes alone is what it would have
sent, signed with its own key.
"""

from __future__ import annotations

from functools import cache

from gamelogs import Played, claim, log_file_of, named, played, replayed, signed

from statki_net.protocol.endings import End, Standing
from statki_net.protocol.phases import OPENING_PHASES
from statki_net.protocol.wire import Error, Frame, Role, Shot
from statki_net.referee.verify import judge_game


@cache
def game() -> Played:
    return played(seed=101, resign_at=4)


def alone(whole: Played, prefix: list[Frame], writer: Role) -> list[Frame]:
    """What ``writer`` writes after ``prefix`` once the connection is lost: its own moves
    while it is to speak (the game's own next frames), then its claim."""
    frames = list(prefix)
    t = replayed(frames)
    while not t.complete and t.speaker() is writer and len(frames) < len(whole.frames):
        frames.append(whole.frames[len(frames)])
        t = replayed(frames)
    if not t.complete:
        frames.append(claim(whole, frames, writer))
    return frames


def places() -> range:
    # From the guest's hello on: before it no game exists and nobody can claim.
    return range(2, len(game().frames))


def test_a_side_left_behind_never_blames_itself_at_any_message() -> None:
    whole = game()
    for place in places():
        for writer in Role:
            prefix = whole.frames[:place]
            t = replayed(prefix)
            if t.speaker() is None:
                continue
            written = alone(whole, prefix, writer)
            judgement = judge_game([named(writer.value, log_file_of(written, writer))])
            assert judgement.standing is Standing.VALID, (place, writer, judgement.lines())
            assert writer not in judgement.culprits, (place, writer, judgement.lines())
            # Unless its player resigned, the side left behind does not lose.
            resigned = any(f.message.TYPE == "resign" for f in written if f.header.sender is writer)
            if t.phase not in OPENING_PHASES and not resigned:
                assert judgement.winner in (writer, None), (place, writer, judgement.lines())


def test_a_lost_connection_seen_from_both_sides_blames_nobody_at_any_message() -> None:
    whole = game()
    for place in places():
        prefix = whole.frames[:place]
        if replayed(prefix).speaker() is None:
            continue
        logs = [named(r.value, log_file_of(alone(whole, prefix, r), r)) for r in Role]
        judgement = judge_game(logs)
        assert judgement.standing in (Standing.VALID, Standing.DISPUTED), judgement.lines()
        assert not judgement.culprits or judgement.end is not End.CHEATED, judgement.lines()
        assert judgement.violations == [], (place, judgement.lines())


def test_a_side_that_stops_or_breaks_the_protocol_forfeits_at_any_message() -> None:
    """The leaver sends an error in its turn, or a well-signed frame the rules refuse;
    the other side keeps it (as a frame, or as evidence answered by its own error)."""
    whole = game()
    for place in places():
        prefix = whole.frames[:place]
        t = replayed(prefix)
        leaver = t.speaker()
        if leaver is None:
            continue
        stop = signed(whole, prefix, leaver, Error("closed", "the player quit"))
        # Three shots: too many in the leaver's turn to shoot, out of turn anywhere else.
        bad = signed(whole, prefix, leaver, Shot((0, 1, 2)))
        refused = signed(whole, prefix, leaver.other, Error("out-of-turn", "refused"))
        stayer = leaver.other
        logs = {
            "stop": log_file_of([*prefix, stop], stayer),
            "bad frame": log_file_of([*prefix, refused], stayer, [bad], evidence_first=True),
        }
        for how, log in logs.items():
            judgement = judge_game([named(how, log)])
            assert judgement.valid and stayer not in judgement.culprits, (
                place,
                how,
                judgement.lines(),
            )
            if t.phase in OPENING_PHASES:
                assert judgement.end is End.NO_GAME, (place, how, judgement.lines())
            elif judgement.end is End.FORFEIT:
                assert (judgement.winner, judgement.culprits) == (stayer, frozenset({leaver})), (
                    place,
                    how,
                )
            else:
                # In the verdicts the game is decided: a stop changes nothing.
                assert t.phase in ("first-verdict", "second-verdict"), (
                    place,
                    how,
                    judgement.lines(),
                )


def test_a_claim_forged_at_any_cut_is_an_early_claim_against_the_forger() -> None:
    """Issue 10: cut an honest log where the other side must speak and append one's own
    claim, saying the whole limit was waited but dated just after one's own message."""
    whole = game()
    for place in places():
        prefix = whole.frames[:place]
        t = replayed(prefix)
        silent = t.speaker()
        if silent is None or t.phase in OPENING_PHASES[:2]:
            continue
        forger = silent.other
        forged = claim(whole, prefix, forger, early_by=t.limit() - 1)
        judgement = judge_game([named("forged", log_file_of([*prefix, forged], forger))])
        where = (place, judgement.lines())
        assert judgement.standing is Standing.INVALID, where
        assert forger in judgement.culprits and silent not in judgement.culprits, where
        assert [v.kind for v in judgement.violations] == ["early-claim"], where
        if t.phase in OPENING_PHASES:
            assert judgement.end is End.NO_GAME, where
        elif t.end is None:
            assert (judgement.end, judgement.winner) == (End.CHEATED, silent), where

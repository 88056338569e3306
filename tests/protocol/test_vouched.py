"""An honest side does not look for lies in its own answers and reveal (``Transcript.append``,
``vouched``): its transcript must come out exactly as one that checked everything, as the
peer's and a referee's do, and a side that cheats is still checked in full.

Cost: about 3 s (a few whole games in memory under several presets).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import make_pair, play

from statki_net.game.battle import Answer, Outcome
from statki_net.game.rules import ruleset_named
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.session import Session
from statki_net.protocol.transcript import FindingKind, Transcript


def checked_in_full(played: Transcript) -> Transcript:
    """The same frames taken by a transcript that vouches for none of them."""
    again = Transcript()
    for frame in played.frames:
        again.add(frame)
    return again


def standing(t: Transcript) -> tuple[object, ...]:
    sides = tuple(
        (side.opened, side.sea, side.volleys, side.fleet, side.verdict) for side in t.sides.values()
    )
    return (t.phase, t.ending, t.findings, t.found_at, t.settled, t.score, sides)


@settings(max_examples=6, deadline=None)
@given(
    rules=st.sampled_from(["classic", "corners", "five-ships", "salvo", "salvo-count"]),
    seed=st.integers(1, 10_000),
)
def test_an_honest_sides_transcript_is_the_one_checked_in_full(rules: str, seed: int) -> None:
    pair = make_pair(ruleset_named(rules), seed)
    play(pair, seed)
    for side in (pair.host, pair.guest):
        assert side.honest
        assert standing(side.transcript) == standing(checked_in_full(side.transcript))


class SaysMissForHits(Behaviour):
    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if not answer.hits:
            return answer
        return Answer((Outcome.MISS,) * len(answer.outcomes), hits=0, sunk=0)


@pytest.mark.parametrize("rules", ["classic", "salvo-count"])
def test_a_cheat_finds_its_own_lie_as_its_peer_does(rules: str) -> None:
    pair = make_pair(ruleset_named(rules), 3, host=SaysMissForHits())
    play(pair, 3)
    own, peer = pair.host.transcript, pair.guest.transcript
    assert not pair.host.honest
    assert [f.kind for f in own.findings] == [f.kind for f in peer.findings]
    assert own.findings and own.findings[0].kind is FindingKind.FALSE_ANSWER
    assert standing(own) == standing(checked_in_full(own))

import pytest
from peers import closed, make_pair, play

from statki_net.rules import PRESETS
from statki_net.transcript import End, Phase
from statki_net.wire import Role


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_whole_game_in_memory(preset: str) -> None:
    pair = make_pair(PRESETS[preset], seed=3)
    play(pair, seed=5)
    for role in Role:
        t = pair.session(role).transcript
        assert t.phase is Phase.DONE
        assert t.end is End.SUNK
        assert t.findings == []
        assert closed(pair, role).winner == t.winner
    assert [f.body for f in pair.host.transcript.frames] == [
        f.body for f in pair.guest.transcript.frames
    ]
    verdicts = [pair.host.transcript.sides[r].verdict for r in Role]
    assert all(
        v is not None and v.winner == pair.host.transcript.winner and v.findings == ()
        for v in verdicts
    )

"""A peer's own log judged from the transcript it played with, not replayed a second time.

``judge_own_log`` must give exactly ``judge_log``'s report, for every kind of
game, and must judge any file that does not hold exactly the transcript's frames
(tampered, cut, with evidence) as ``judge_log`` does, by replaying it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.net.selfplay import selfplay
from statki_net.protocol.logformat import read_log
from statki_net.protocol.session import Session
from statki_net.referee.reading import read_as_played
from statki_net.referee.verify import judge_log, judge_own_log


def both_ways(session: Session, data: bytes) -> None:
    own = judge_own_log(data, session.transcript, "mine").to_json()
    assert own == judge_log(data, "mine").to_json()


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(1, 10_000), st.sampled_from([None, 2, 7]))
def test_each_sides_own_log_gets_the_referees_report_without_a_replay(
    preset: str, seed: int, resign_at: int | None
) -> None:
    pair = make_pair(PRESETS[preset], seed=seed)
    play(pair, seed=seed + 3, resign_at=resign_at)
    for session, role in ((pair.host, "host"), (pair.guest, "guest")):
        data = log_bytes(session, role=role)
        assert read_as_played("mine", read_log(data), session.transcript) is not None
        both_ways(session, data)


def test_a_lie_is_found_at_its_frame_as_the_referee_finds_it() -> None:
    pair = make_pair(PRESETS["classic"], seed=4, guest=LiesAboutFirstHit())
    play(pair, seed=5)
    for session, role in ((pair.host, "host"), (pair.guest, "guest")):
        data = log_bytes(session, role=role)
        assert read_as_played("mine", read_log(data), session.transcript) is not None
        report = judge_own_log(data, session.transcript).to_json()
        assert report["standing"] == "invalid" and report["violations"]
        both_ways(session, data)


def test_a_file_that_is_not_the_transcript_is_replayed() -> None:
    pair = make_pair(PRESETS["classic"], seed=6)
    play(pair, seed=7)
    data = log_bytes(pair.host)
    spoiled = bytearray(data)
    spoiled[len(data) // 2] ^= 0x40
    cut = data[: len(data) * 2 // 3]
    other = make_pair(PRESETS["classic"], seed=8)
    play(other, seed=9)
    for changed in (bytes(spoiled), cut, log_bytes(other.host)):
        assert read_as_played("mine", read_log(changed), pair.host.transcript) is None
        both_ways(pair.host, changed)


def test_a_game_over_loopback_tells_each_side_the_referees_verdict(tmp_path: Path) -> None:
    report = asyncio.run(selfplay(PRESETS["classic"], 3, 11, strategy="random", log_dir=tmp_path))
    for outcome in (o for pair in report.outcomes for o in pair):
        assert outcome.verdict is not None and outcome.log_path is not None
        judged = judge_log(outcome.log_path.read_bytes())
        assert outcome.verdict.headline == judged.headline()
        assert (outcome.verdict.ending, outcome.verdict.standing) == (
            judged.ending,
            judged.standing,
        )

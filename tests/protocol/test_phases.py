"""The phases as data: the table agrees with SPEC.md and with the games the code plays."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from peers import LiesAboutFirstHit, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.phases import (
    AFTER_THE_LAST_ANSWER,
    BATTLE_PHASES,
    COIN_PHASES,
    HELLO_PHASES,
    PHASES,
    Claim,
    Deadline,
    Period,
    Phase,
    Speaker,
    may_resign,
)
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Message, Resign

SPEC = Path(__file__).resolve().parents[2] / "SPEC.md"
SPEAKERS = {
    "host": Speaker.HOST,
    "guest": Speaker.GUEST,
    "the shooter": Speaker.SHOOTER,
    "the defender (not the shooter)": Speaker.DEFENDER,
    "the winner": Speaker.FIRST,
    "the loser": Speaker.SECOND,
    "nobody": Speaker.NOBODY,
}


def spec_rows(heading: str) -> list[list[str]]:
    """The rows of the table under ``heading`` in SPEC.md section 8, up to the next
    bold-headed paragraph, cells stripped."""
    text = SPEC.read_text()
    section = text[text.index("## 8. The state machine") :]
    rows = []
    for line in section[section.index(heading) :].splitlines()[1:]:
        if line.startswith("**"):
            break
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_each_phase_has_the_speaker_and_moves_spec_md_gives_it() -> None:
    rows = spec_rows("| phase | speaker |")
    assert [Phase(row[0].strip("`")) for row in rows] == list(Phase)
    for name, speaker, moves in rows:
        rule = PHASES[Phase(name.strip("`"))]
        assert rule.speaker is SPEAKERS[speaker], name
        said = {}
        for move in moves.split(";"):
            if "→" in move:
                message, after = ticked(move)[:2]
                said[message] = Phase(after)
        assert {kind.TYPE: after for kind, after in rule.moves.items()} == said, name


CLAIMED_ENDS = {"no-game": Claim.VOIDS_THE_GAME, "time": Claim.WINS_THE_GAME}


def test_each_time_claim_does_what_spec_md_says() -> None:
    rows = spec_rows("| phase when claimed |")
    claimed: dict[Phase, Claim] = {}
    for row in rows:
        ends = ticked(row[1])
        does = CLAIMED_ENDS[ends[0]] if ends else Claim.CHANGES_NOTHING
        assert ends or row[1].startswith("unchanged"), row
        for name in ticked(row[0]):
            claimed[Phase(name)] = does
    for phase, rule in PHASES.items():
        assert rule.claim is claimed.get(phase), phase
        # Every claim ends the game (SPEC.md section 8, "Time claims").
        assert rule.claim is None or rule.claim.leads_to is Phase.DONE, phase
    assert set(COIN_PHASES) == {Phase.HOST_COIN, Phase.GUEST_COIN}
    assert set(HELLO_PHASES) == {Phase.HOST_HELLO, Phase.GUEST_HELLO}
    assert all(PHASES[phase].claim is None for phase in HELLO_PHASES)


def test_the_table_holds_together() -> None:
    for phase, rule in PHASES.items():
        assert (rule.speaker is Speaker.NOBODY) == (rule.deadline is None) == (not rule.moves)
        assert rule.own_word is None or rule.own_word in rule.moves, phase
        assert set(rule.moves) <= set(get_args(Message)), phase
        assert may_resign(phase) == (phase in BATTLE_PHASES) == (Resign in rule.moves)
    # Every phase is reached from the first, by a move, a claim or a last answer.
    reached, frontier = {Phase.HOST_HELLO}, [Phase.HOST_HELLO]
    while frontier:
        rule = PHASES[frontier.pop()]
        leads = [*rule.moves.values(), *([rule.claim.leads_to] if rule.claim else [])]
        if Phase.SHOOT in rule.moves.values():
            leads += AFTER_THE_LAST_ANSWER.values()
        for after in leads:
            if after not in reached:
                reached.add(after)
                frontier.append(after)
    assert reached == set(Phase)


@pytest.mark.parametrize(
    ("preset", "seed", "resign_at", "liar"),
    [("classic", 3, None, False), ("salvo", 5, 6, False), ("classic", 4, None, True)],
)
def test_the_end_is_known_exactly_in_the_closing_phases(
    preset: str, seed: int, resign_at: int | None, liar: bool
) -> None:
    pair = make_pair(PRESETS[preset], seed=seed, guest=LiesAboutFirstHit() if liar else None)
    play(pair, seed=seed + 1, resign_at=resign_at)
    replayed = Transcript()
    periods = []
    for frame in pair.host.transcript.frames:
        replayed.add(frame)
        period = PHASES[replayed.phase].period
        periods.append(period)
        if not replayed.complete:
            assert replayed.ended == (period is Period.CLOSING), replayed.phase
            # The session waits on the reveal limit exactly there.
            assert (PHASES[replayed.phase].deadline is Deadline.REVEAL) == replayed.ended
    assert periods[-1] is Period.DONE and Period.BATTLE in periods
    assert replayed.ending == pair.host.transcript.ending
    assert replayed.speaker() is None and pair.guest.transcript.complete

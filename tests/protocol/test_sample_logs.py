"""The version 2 sample logs of protocol/logs/ say what their descriptions say, by the
transcript alone (the referee's reports, which judge pairs together, are checked with it).

Each log is replayed as a referee reads one log: frame records appended in order,
an evidence record checked at its place, so that a refused frame is known when the
``error`` that answers it comes.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.logformat import EvidenceRecord, FrameRecord, read_log
from statki_net.protocol.transcript import FindingKind, Transcript
from statki_net.protocol.wire import Role, read_envelope

LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"
HOST, GUEST = Role.HOST, Role.GUEST


def replay(name: str) -> tuple[Transcript, list[EvidenceRecord], Role, ProtocolError | None]:
    contents = read_log((LOGS / f"{name}.statki").read_bytes())
    assert contents.damage is None
    t = Transcript()
    stopped: ProtocolError | None = None
    for record in contents.records:
        if isinstance(record, FrameRecord) and stopped is None:
            try:
                t.add(read_envelope([record.body, record.signature]))
            except ProtocolError as error:
                stopped = error  # the log's refused frame: its writer's own last one
        elif isinstance(record, EvidenceRecord):
            # Refused (and kept as such), or crossed: judged with the other side's log.
            with contextlib.suppress(ProtocolError):
                t.check(read_envelope([record.body, record.signature]))
    return t, contents.evidence, Role(contents.header["role"]), stopped


def winner_of(log: str) -> Role:
    return HOST if log.endswith("-host") else GUEST


@pytest.mark.parametrize(
    ("name", "end", "winner", "culprits", "evidence"),
    [
        ("aborted", End.FORFEIT, None, "loser", [Code.BAD_SHOT]),
        ("forfeit-by-error", End.FORFEIT, None, "loser", []),
        ("coin-phase-stop", End.FORFEIT, HOST, {GUEST}, []),
        ("forfeit-by-bad-frame-guest", End.FORFEIT, None, "loser", [Code.BAD_SHOT]),
        ("early-claim", End.CHEATED, None, "loser", []),
        ("forged-claim", End.CHEATED, None, "loser", []),
        ("early-by-the-clock-host", End.TIME, "writer", "other", [Code.OUT_OF_TURN]),
        ("early-by-the-clock-guest", End.TIME, "writer", "other", []),
        ("lost-connection-host", End.TIME, "writer", "other", []),
        ("lost-connection-guest", End.TIME, "writer", "other", []),
        ("crossed-claim-host", End.TIME, "writer", "other", [Code.BAD_CHAIN]),
        ("crossed-claim-guest", End.TIME, "writer", "other", []),
        ("hello-out-of-bounds", End.NO_GAME, None, {HOST}, [Code.BAD_FIELD]),
        ("custom-rules", End.SUNK, None, set(), []),
    ],
)
def test_each_sample_log_ends_as_described(
    name: str, end: End, winner: Role | str | None, culprits: set[Role] | str, evidence: list[Code]
) -> None:
    t, kept, writer, stopped = replay(name)
    ending = t.ending
    assert stopped is None and t.complete and ending is not None, name
    assert ending.end is end, ending
    assert [Code(e.code) for e in kept if e.code] == evidence
    if winner == "writer":
        assert ending.winner is writer
    elif isinstance(winner, Role):
        assert ending.winner is winner
    if culprits == "other":
        assert ending.culprits == {writer.other}
    elif culprits == "loser":
        assert ending.winner is not None and ending.culprits == {ending.winner.other}
    else:
        assert isinstance(culprits, set) and set(ending.culprits) == culprits
    assert not ending.blames(writer) or name in ("forged-claim",), "only a forger's log"


def test_the_senders_log_of_a_refused_frame_ends_with_it() -> None:
    t, kept, writer, stopped = replay("forfeit-by-bad-frame-host")
    assert stopped is not None and stopped.code is Code.BAD_SHOT and stopped.refuses
    assert not t.complete and writer is HOST
    assert [e.code for e in kept] == [Code.BAD_CHAIN.value], "the error that answered it"
    theirs, _, _, _ = replay("forfeit-by-bad-frame-guest")
    assert theirs.ending is not None and theirs.ending.culprits == {HOST}


def test_early_claims_are_findings_against_their_claimants() -> None:
    for name in ("early-claim", "forged-claim"):
        t, _, _, _ = replay(name)
        [finding] = t.findings
        assert finding.kind is FindingKind.EARLY_CLAIM
        assert t.frames[-1].header.sender is finding.culprit


def test_the_guest_keeps_nothing_of_a_host_it_refused_for_its_key() -> None:
    contents = read_log((LOGS / "refused-host-key.statki").read_bytes())
    assert contents.frames == [] and contents.evidence == []
    assert contents.header["role"] == "guest"


def test_a_pair_forks_where_the_connection_was_lost() -> None:
    for pair in ("lost-connection", "crossed-claim", "early-by-the-clock"):
        host, _, _, _ = replay(f"{pair}-host")
        guest, _, _, _ = replay(f"{pair}-guest")
        common = 0
        for mine, theirs in zip(host.frames, guest.frames, strict=False):
            if mine.body != theirs.body:
                break
            common += 1
        assert 10 < common < min(len(host.frames), len(guest.frames)), pair
        assert host.ending is not None and guest.ending is not None
        assert host.ending.winner is HOST and guest.ending.winner is GUEST, "a dispute"

"""The bounds of SPEC.md section 7, at their edges: what a host may propose, and what
they guarantee: the largest honest answer and the largest verdict fit a frame."""

from __future__ import annotations

import itertools
import random
from typing import Any

import msgpack
import pytest
from peers import key_from, make_pair, play, seeded_entropy

from statki_net.game.battle import Answer, Outcome
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import PRESETS, Ruleset, ruleset_named
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.bounds import (
    MAX_FINDINGS,
    MAX_LIMIT_MS,
    MAX_SHIP_SQUARES,
    MAX_SHIPS,
    MAX_SIZE,
    MIN_MOVE_MS,
    MIN_REVEAL_MS,
    MIN_SIZE,
    proposal_problems,
)
from statki_net.protocol.commitment import Opening, path_length
from statki_net.protocol.errors import Check, Code, ProtocolError
from statki_net.protocol.session import Session
from statki_net.protocol.wire import (
    MAX_FRAME,
    MAX_LIST,
    MAX_MAP,
    MAX_TEXT,
    Header,
    Limits,
    Reply,
    Role,
    Verdict,
    encode_body,
    read_body,
)

WIDEST = "\U0001d538"
"""A character of four bytes in UTF-8: the most a character can cost."""


def host(rules: Ruleset, limits: Limits) -> Session:
    return Session(
        Role.HOST, key_from(1), name="Ala", entropy=seeded_entropy(1), rules=rules, limits=limits
    )


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        (Limits(MIN_MOVE_MS, 60_000), Limits(MIN_MOVE_MS - 1, 60_000)),
        (Limits(MAX_LIMIT_MS, 60_000), Limits(MAX_LIMIT_MS + 1, 60_000)),
        (Limits(60_000, MIN_REVEAL_MS), Limits(60_000, MIN_REVEAL_MS - 1)),
        (Limits(60_000, MAX_LIMIT_MS), Limits(60_000, MAX_LIMIT_MS + 1)),
    ],
)
def test_a_host_cannot_propose_limits_out_of_bounds(inside: Limits, outside: Limits) -> None:
    assert host(PRESETS["classic"], inside).proposed_limits == inside
    with pytest.raises(UsageError, match="out of bounds"):
        host(PRESETS["classic"], outside)


@pytest.mark.parametrize(
    ("inside", "outside"),
    [
        (Ruleset(size=MIN_SIZE, fleet=(3, 2)), Ruleset(size=MIN_SIZE - 1, fleet=(3, 2))),
        (Ruleset(size=MAX_SIZE, fleet=(3, 2)), Ruleset(size=MAX_SIZE, fleet=(1,) * 13)),
        (Ruleset(fleet=(1,) * MAX_SHIPS), Ruleset(fleet=(1,) * (MAX_SHIPS + 1))),
        (Ruleset(size=20, fleet=(10, 10, 10, 10)), Ruleset(size=20, fleet=(10, 10, 10, 10, 1))),
        (Ruleset(size=6, fleet=(6, 6, 6)), Ruleset(size=6, fleet=(6, 6, 6, 1))),
        (
            Ruleset(fleet=(3, 2), names=("łódź podwodna", "\N{SHIP}")),
            Ruleset(fleet=(3, 2), names=("łódź\x1b[2J", "\u202eship")),
        ),
    ],
)
def test_a_host_cannot_propose_rules_out_of_bounds(inside: Ruleset, outside: Ruleset) -> None:
    assert proposal_problems(inside, Limits()) == []
    assert sum(outside.fleet) <= MAX_SHIP_SQUARES + 1
    host(inside, Limits())
    with pytest.raises(UsageError, match="out of bounds"):
        host(outside, Limits())


def test_every_preset_and_every_combination_is_within_the_bounds() -> None:
    names = sorted(PRESETS)
    for count in (1, 2, 3):
        for combination in itertools.permutations(names, count):
            rules = ruleset_named("+".join(combination))
            assert proposal_problems(rules, Limits()) == [], combination


def _header() -> Header:
    """The largest header: every number at its widest."""
    return Header(Role.GUEST, 2**32 - 1, bytes(32), bytes(32), -(2**63))


def test_the_largest_honest_answer_fits_a_frame() -> None:
    """A salvo of 12 shots sinking 12 named ships on a 26 x 26 board, with an opening of
    every shot square and of every square around the ships (SPEC.md section 7)."""
    area = MAX_SIZE**2
    depth = path_length(area)
    assert depth == 10
    openings = 12 + 2 * MAX_SHIP_SQUARES + 6 * MAX_SHIPS
    opening = Opening(area - 1, True, bytes(32), (bytes(32),) * depth)
    names = tuple(WIDEST * 39 + str(i % 10) for i in range(MAX_SHIPS))
    answer = Answer((Outcome.SUNK,) * 12, hits=12, sunk=12, names=names)
    body = encode_body(_header(), Reply(answer, (opening,) * openings))
    assert len(body) <= MAX_FRAME
    read_body(body)


def test_the_largest_verdict_fits_a_frame() -> None:
    findings = (WIDEST * MAX_TEXT,) * MAX_FINDINGS
    body = encode_body(_header(), Verdict(Role.HOST, WIDEST * MAX_TEXT, findings))
    assert len(body) <= MAX_FRAME


class Heap(Behaviour):
    """Commits to twelve one-square ships all on one square: 66 overlapping pairs."""

    checks_own_fleet = False

    def fleet(self, session: Session, fleet: Fleet) -> Fleet:
        return Fleet(((55,),) * MAX_SHIPS)


def test_a_verdict_keeps_the_first_findings_only() -> None:
    rules = Ruleset(fleet=(1,) * MAX_SHIPS)
    pair = make_pair(rules, seed=41, guest=Heap())
    play(pair, seed=42, resign_at=3, resigner=Role.GUEST)
    t = pair.host.transcript
    against = t.findings_against(Role.GUEST)
    assert len(against) > MAX_FINDINGS, "enough problems to cut"
    verdict = t.sides[Role.HOST].verdict
    assert verdict is not None
    assert verdict.findings == tuple(str(f.detail)[:MAX_TEXT] for f in against[:MAX_FINDINGS])


@pytest.mark.parametrize(
    ("entries", "items"), [(MAX_MAP, MAX_LIST), (MAX_MAP + 1, 1), (1, MAX_LIST + 1)]
)
def test_maps_and_arrays_are_bounded_at_decoding(entries: int, items: int) -> None:
    body: dict[str, Any] = {"type": "shot", "squares": [0] * items}
    body.update({f"k{i}": 0 for i in range(entries - len(body))})
    data = bytes(msgpack.packb(body, use_bin_type=True))
    if entries <= MAX_MAP and items <= MAX_LIST:
        assert len(read_body(data)) == entries
        return
    with pytest.raises(ProtocolError) as caught:
        read_body(data)
    assert (caught.value.code, caught.value.check) == (Code.MALFORMED, Check.BODY)


def test_a_guest_never_gets_a_proposal_out_of_bounds_from_a_statki_host() -> None:
    """The session's own check and the transcript's agree: what one refuses to propose,
    the other refuses to accept (both read ``protocol.bounds``)."""
    rng = random.Random(5)
    for _ in range(50):
        size = rng.randint(MIN_SIZE - 1, MAX_SIZE)
        fleet = tuple(sorted((rng.randint(1, 5) for _ in range(rng.randint(1, 14))), reverse=True))
        try:
            rules = Ruleset(size=size, fleet=fleet)
        except UsageError:
            continue
        problems = proposal_problems(rules, Limits())
        try:
            host(rules, Limits())
        except UsageError:
            assert problems
        else:
            assert not problems

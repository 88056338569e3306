"""The case table, the injections and the judging, without a network: pure values.

Each injection is fed to statki's own session (two sessions back to back,
``tests/peers.py``), so the bytes a case sends are shown to fail the check
the case is about, and no earlier one: a case that passes for the wrong
reason (a frame mis-chained before it could be badly signed) fails here.
"""

from __future__ import annotations

import random
import re
import secrets
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import make_pair

from statki_net.conformance.acts import injected, join_bytes
from statki_net.conformance.cases import (
    Case,
    Cheat,
    Expectation,
    Injection,
    Kind,
    Side,
    all_cases,
    chosen,
)
from statki_net.conformance.judging import LogSeen, Observation, Outcome, Seen, judge
from statki_net.conformance.report import html_page, summary, text_report
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, combination_name, ruleset_named
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Ending, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.events import ConnectionLost, Evidence, FrameAdded
from statki_net.protocol.screening import JoinAsked, Refusal, Screening, Unwanted
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import PROTOCOL_VERSION, Admit, Error, Role, game_tag

SPEC = (Path(__file__).resolve().parents[2] / "SPEC.md").read_text()
CASES = all_cases()


def test_ids_are_unique_and_say_the_implementations_role() -> None:
    assert len({case.id for case in CASES}) == len(CASES)
    for case in CASES:
        assert case.id.endswith(f"@{case.implementation.value}")


def test_every_case_names_sections_the_spec_has() -> None:
    headings = set(re.findall(r"^## (\d+)\.", SPEC, re.MULTILINE))
    for case in CASES:
        for number in re.findall(r"\d+", case.section.split('"')[0]):
            assert number in headings, f"{case.id}: SPEC has no section {number}"


def test_every_injection_and_every_cheat_is_some_case() -> None:
    assert {case.injection for case in CASES} - {None} == set(Injection)
    assert {case.cheat for case in CASES} - {None} == set(Cheat)


def test_every_preset_and_combination_plays_honestly_in_both_roles() -> None:
    honest = {(case.rules, case.implementation) for case in CASES if case.id.startswith("honest.")}
    names = {combination_name(ruleset_named(case.rules)) for case in CASES}
    assert set(PRESETS) <= names
    assert len({ruleset_named(rules) for rules, _ in honest}) == len(honest) // 2 == 18
    assert all((rules, role) in honest for rules, _ in honest for role in Role)


def test_quick_leaves_out_the_long_cases_and_prefixes_choose() -> None:
    assert all(not case.long for case in chosen(CASES, quick=True))
    assert any(case.long for case in CASES)
    frames = chosen(CASES, only=["frame."], role=Role.GUEST)
    assert frames and all(c.id.startswith("frame.") and c.id.endswith("@guest") for c in frames)


# ---------------------------------------------------------------- the injections


def _in_the_battle(seed: int = 3) -> tuple[BackToBack, Session, Session]:
    """A classic game a volley in, and the side to shoot (the suite) and the other."""
    rules = ruleset_named("classic")
    pair = make_pair(rules, seed)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.accept(random_fleet(rules, random.Random(seed)), pair.now))
    pair.pump()
    mover = pair.host if pair.host.my_turn else pair.guest
    pair.record(mover.role, mover.shoot((0,), pair.now))
    pair.pump()
    while not (pair.host.my_turn or pair.guest.my_turn):
        pair.pump()
    shooter = pair.host if pair.host.my_turn else pair.guest
    return pair, shooter, pair.session(shooter.role.other)


def _answer(injection: Injection) -> tuple[str, Code | None, int]:
    """What statki's session does with the injection sent as the shooter's next message:
    ("error", code) when it refuses it, ("lost", code) when it is nobody's word."""
    pair, suite, implementation = _in_the_battle()
    sent = injected(injection, suite, pair.now, secrets.token_bytes)
    events = implementation.receive_data(sent.data, pair.now + 1)
    lost = [e for e in events if isinstance(e, ConnectionLost)]
    if lost:
        return "lost", lost[0].code, sent.seq
    errors = [
        e.frame
        for e in events
        if isinstance(e, FrameAdded) and e.outgoing and isinstance(e.frame.message, Error)
    ]
    if errors:
        assert any(isinstance(e, Evidence) for e in events), "a refused frame is kept"
        message = errors[0].message
        assert isinstance(message, Error)
        assert errors[0].header.seq == sent.seq, "the error takes the refused frame's place"
        return "error", Code.of(message.code), sent.seq
    return "accepted", None, sent.seq


NOBODYS_WORD = {
    Injection.OVERSIZED: Code.TOO_LARGE,
    Injection.TRUNCATED_BODY: Code.MALFORMED,
    Injection.SHORT_SIGNATURE: Code.MALFORMED,
    Injection.NOT_A_FRAME: Code.MALFORMED,
    Injection.REPEATED_KEY: Code.MALFORMED,
    Injection.EXT_VALUE: Code.MALFORMED,
    Injection.INT_KEY: Code.MALFORMED,
    Injection.BAD_SIGNATURE: Code.BAD_SIGNATURE,
    Injection.BAD_PREV: Code.BAD_CHAIN,
    Injection.SEQ_AHEAD: Code.BAD_CHAIN,
    Injection.WRONG_GAME: Code.BAD_CHAIN,
    Injection.NO_GAME: Code.BAD_FIELD,
    Injection.OWN_NAME: Code.OUT_OF_TURN,
}
REFUSED = {
    Injection.SQUARES_AS_TEXT: Code.BAD_FIELD,
    Injection.FLOAT_SQUARE: Code.BAD_FIELD,
    Injection.AT_AS_TEXT: Code.BAD_FIELD,
    Injection.BIN_KEY: Code.BAD_FIELD,
    Injection.UNKNOWN_TYPE: Code.UNKNOWN_TYPE,
    Injection.TYPE_AS_INT: Code.BAD_FIELD,
    Injection.SHOT_OFF_BOARD: Code.BAD_SHOT,
    Injection.SHOT_TOO_MANY: Code.BAD_SHOT,
    Injection.ACCEPT: Code.OUT_OF_TURN,
    Injection.COMMIT: Code.OUT_OF_TURN,
    Injection.ANSWER: Code.OUT_OF_TURN,
    Injection.TIMEOUT: Code.OUT_OF_TURN,
    Injection.REVEAL: Code.OUT_OF_TURN,
    Injection.VERDICT: Code.OUT_OF_TURN,
    Injection.HELLO: Code.OUT_OF_TURN,
}


@pytest.mark.parametrize("injection", list(NOBODYS_WORD), ids=str)
def test_a_frame_that_is_nobodys_word_fails_the_check_it_is_about(injection: Injection) -> None:
    assert _answer(injection)[:2] == ("lost", NOBODYS_WORD[injection])


@pytest.mark.parametrize("injection", list(REFUSED), ids=str)
def test_a_refused_frame_gets_the_code_it_is_about(injection: Injection) -> None:
    assert _answer(injection)[:2] == ("error", REFUSED[injection])


def test_an_unknown_key_is_accepted() -> None:
    assert _answer(Injection.UNKNOWN_KEY)[0] == "accepted"


def test_the_wrong_versions_follow_the_wire_modules_constant() -> None:
    pair = make_pair(ruleset_named("classic"))
    for injection, version in (
        (Injection.VERSION_NEWER, PROTOCOL_VERSION + 1),
        (Injection.VERSION_OLDER, PROTOCOL_VERSION - 1),
    ):
        data = injected(injection, pair.host, pair.now, secrets.token_bytes).data
        body = msgpack.unpackb(msgpack.unpackb(data)[0], raw=False)
        assert body["protocol"] == version


# ---------------------------------------------------------------- judging


REFUSES = Case(
    "t.refuses@host",
    "3",
    "a test",
    Role.HOST,
    Expectation(Kind.REFUSES, Code.OUT_OF_TURN, End.FORFEIT, Side.IMPLEMENTATION),
)


def _error(code: str, seq: int = 9) -> Seen:
    return Seen("error", seq, code=code)


def test_the_right_error_at_the_right_place_then_a_close_passes() -> None:
    seen = Observation(reached=True, place=9, sent=(_error("out-of-turn"),), closed=True)
    assert judge(REFUSES, seen).outcome is Outcome.PASS


@pytest.mark.parametrize(
    "seen",
    [
        Observation(reached=True, place=9, sent=(_error("bad-field"),), closed=True),
        Observation(reached=True, place=9, sent=(_error("out-of-turn", 10),), closed=True),
        Observation(reached=True, place=9, sent=(_error("out-of-turn"),), closed=False),
        Observation(reached=True, place=9, sent=(), closed=True),
        Observation(reached=False, problem="no invite"),
    ],
    ids=["wrong code", "wrong place", "no close", "silence", "never reached"],
)
def test_anything_else_fails(seen: Observation) -> None:
    result = judge(REFUSES, seen)
    assert result.outcome is Outcome.FAIL and result.reasons


def test_a_log_that_blames_the_implementation_fails() -> None:
    blamed = LogSeen(Ending(End.FORFEIT, Role.GUEST, frozenset({Role.HOST})), Standing.VALID)
    seen = Observation(
        reached=True, place=9, sent=(_error("out-of-turn"),), closed=True, log=blamed
    )
    assert judge(REFUSES, seen).outcome is Outcome.FAIL


def test_an_answer_to_nobodys_word_fails_and_a_may_is_information() -> None:
    ignores = Case("t.ignores@guest", "3", "a test", Role.GUEST, Expectation(Kind.IGNORES))
    answered = Observation(reached=True, sent=(_error("bad-signature", 0),), closed=True)
    assert judge(ignores, answered).outcome is Outcome.FAIL
    may = Case("t.may@guest", "12", "a test", Role.GUEST, Expectation(Kind.CLAIMS), may=True)
    assert judge(may, Observation(reached=True, closed=True)).outcome is Outcome.INFO


def test_a_verdict_must_name_the_winner_the_game_had() -> None:
    honest = Case("t.honest@host", "8", "a test", Role.HOST, Expectation(Kind.FINISHES))
    played = Ending(End.SUNK, Role.GUEST)
    right = Seen("verdict", 40, winner="guest", end="sunk")
    wrong = Seen("verdict", 40, winner="host", end="sunk")
    good = Observation(reached=True, closed=True, verdict=right, ending=played)
    assert judge(honest, good).outcome is Outcome.PASS
    bad = Observation(reached=True, closed=True, verdict=wrong, ending=played)
    assert judge(honest, bad).outcome is Outcome.FAIL


def test_the_summary_is_not_mistaken_for_a_test_runs_result() -> None:
    results = [judge(REFUSES, Observation(reached=True, place=9, closed=True))]
    text = summary(results)
    assert text == "conformance: 1 cases: 0 pass, 1 fail, 0 informational"
    assert not re.search(r"\d+ passed, \d+ failed", text_report(results))
    page = html_page(results, "a <peer>")
    assert "<script" not in page and "a &lt;peer&gt;" in page


PURE_MODULES = ("cases", "acts", "judging", "report")


@pytest.mark.parametrize("name", PURE_MODULES)
def test_the_suites_core_is_pure(name: str) -> None:
    from test_layers import PACKAGE, SHELL_MODULES, imports_of

    for module, _, line in imports_of(PACKAGE / "conformance" / f"{name}.py"):
        top = module.split(".")[0]
        assert top not in SHELL_MODULES, f"conformance/{name}.py:{line} imports {module}"
        assert not module.startswith(("statki_net.net", "statki_net.store")), module


def test_the_suites_joins_meet_the_screening_check_they_are_about() -> None:
    """The join cases' bytes, read by statki's own screening (``protocol.screening``)."""
    secret = secrets.token_bytes(16)
    host = Session(
        Role.HOST,
        Ed25519PrivateKey.generate(),
        name="h",
        entropy=secrets.token_bytes,
        rules=ruleset_named("classic"),
        admit=Admit.INVITE,
        tag=game_tag(secret),
    )
    host.start(0)
    guest = Session(
        Role.GUEST,
        Ed25519PrivateKey.generate(),
        name="g",
        entropy=secrets.token_bytes,
        invite_secret=secret,
    )
    guest.receive_data(host.data_to_send(), 1)
    hello = host.transcript.frames[0]
    key = public_key_bytes(guest.key)
    own = join_bytes(guest, hello.body, game_tag(secret), 2)
    assert Screening(hello, secret).feed(own) == JoinAsked(game_tag(secret), key, b"")
    replayed = join_bytes(guest, hello.body + b"\x00", game_tag(secret), 2)
    assert Screening(hello, secret).feed(replayed) == Unwanted(Refusal.BAD_JOIN)
    assert Screening(hello, secret, key).feed(own) == Unwanted(Refusal.BAD_JOIN), "a second"

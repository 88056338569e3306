"""A damaged or altered copy voids nothing another log proves (SPEC.md section 16,
"The standing"), and the order the logs are given in changes nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from statki_net.game.rules import PRESETS
from statki_net.protocol.endings import Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import MAGIC, read_log
from statki_net.referee.report import Judgement
from statki_net.referee.verify import NamedLog, judge_log, judge_logs
from statki_net.referee.violations import FILE_FAULTS
from statki_net.vectors.games import into_the_battle

LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"
PAIRS = ("talk", "resumed", "damaged-copy", "lost-connection", "forfeit-by-bad-frame")
"""Sample games whose two sides' logs are kept: played out, resumed, resigned, disputed and
forfeited."""
SPOIL = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _bytes(name: str) -> bytes:
    return (LOGS / f"{name}.statki").read_bytes()


def _judged(*logs: tuple[str, bytes]) -> list[Judgement]:
    return judge_logs([NamedLog(name, read_log(data)) for name, data in logs])


def _game(judgements: list[Judgement], game: bytes | None) -> Judgement:
    [judged] = [j for j in judgements if j.game == game]
    return judged


def _spoiled(data: bytes, cut: bool, at: float, bit: int) -> bytes:
    """``data`` cut at, or with one bit flipped at, a place after the magic value."""
    place = len(MAGIC) + int(at * (len(data) - len(MAGIC) - 1))
    if cut:
        return data[:place]
    spoiled = bytearray(data)
    spoiled[place] ^= 1 << bit
    return bytes(spoiled)


@SPOIL
@given(
    st.sampled_from(["talk", "resumed"]),
    st.booleans(),
    st.booleans(),
    st.floats(0, 1),
    st.integers(0, 7),
)
def test_a_damaged_copy_beside_a_whole_log_changes_neither_result_nor_standing(
    base: str, spoil_host: bool, cut: bool, at: float, bit: int
) -> None:
    whole_name, other_name = (
        (f"{base}-guest", f"{base}-host")
        if spoil_host
        else (
            f"{base}-host",
            f"{base}-guest",
        )
    )
    whole = _bytes(whole_name)
    alone = judge_log(whole, whole_name)
    assert alone.standing is Standing.VALID and alone.ending is not None
    spoiled = _spoiled(_bytes(other_name), cut, at, bit)
    for logs in (
        ((whole_name, whole), (other_name, spoiled)),
        ((other_name, spoiled), (whole_name, whole)),
    ):
        judged = _game(_judged(*logs), alone.game)
        assert judged.standing is Standing.VALID, judged.headline()
        assert judged.ending == alone.ending and judged.shots == alone.shots
        faults = [v for v in judged.violations if v.violation_class in FILE_FAULTS]
        assert all(v.set_aside and v.log == other_name for v in faults), faults


def test_a_game_whose_only_whole_proof_is_damaged_stays_invalid() -> None:
    damaged = _bytes("damaged-copy-guest")
    assert judge_log(damaged, "damaged-copy-guest").standing is Standing.INVALID
    cut = _bytes("damaged-copy-host")[: len(damaged) + 200]  # the host's, cut later on
    judged = _game(_judged(("guest", damaged), ("host", cut)), judge_log(damaged, "guest").game)
    assert judged.standing is Standing.INVALID
    assert {v.log for v in judged.violations if v.violation_class in FILE_FAULTS} == {
        "guest",
        "host",
    }


def test_the_damaged_file_is_named_where_two_logs_were_judged() -> None:
    [judged] = _judged(
        ("host.statki", _bytes("damaged-copy-host")),
        ("guest.statki", _bytes("damaged-copy-guest")),
    )
    text = "\n".join(judged.lines())
    assert judged.standing is Standing.VALID
    assert "damaged (in guest.statki): " in text, text
    assert "damaged" not in judged.headline()


@settings(max_examples=len(PAIRS), deadline=None)
@given(st.sampled_from(PAIRS))
def test_the_order_the_logs_are_given_in_changes_no_report(base: str) -> None:
    host, guest = (
        (f"{base}-host", _bytes(f"{base}-host")),
        (f"{base}-guest", _bytes(f"{base}-guest")),
    )
    [one], [other] = _judged(host, guest), _judged(guest, host)
    mine, theirs = one.to_json(), other.to_json()
    for report in (mine, theirs):  # the logs are listed, and the fork's indices given, as given
        report.pop("logs")
        if report["fork"]:
            for branch in report["fork"]["branches"]:
                branch.pop("logs")
            report["fork"]["branches"].sort(key=lambda b: (b["from"], b["type"], b["messages"]))
    assert mine == theirs


def test_a_damaged_copy_stating_the_result_itself_is_set_aside_beside_a_whole_log() -> None:
    """A review: the loser stops (its error), the winner waits and claims on time; the
    result is the loser's forfeit, stated only in the loser's log.  A broken record at the
    end of that log made the game invalid, worse for the winner than no copy at all."""
    game, loser = into_the_battle(PRESETS["classic"], 37, 6)
    game.act(loser.role, loser.shoot((PRESETS["classic"].size ** 2 - 1,), game.now))
    game.link.cut()
    game.act(loser.role, loser.abort(Code.CLOSED, "stopped", game.now))
    winner = game.session(loser.role.other)
    game.wait_out(winner.role)
    whole, copy = game.log(winner.role), game.log(loser.role)
    for spoiled in (copy + b"\x92\x01", copy[:-5]):
        for logs in ((("w", whole), ("l", spoiled)), (("l", spoiled), ("w", whole))):
            [judged] = _judged(*logs)
            assert judged.standing is Standing.VALID, judged.headline()
            assert judged.ending is not None and judged.ending.winner is winner.role
            assert [v.log for v in judged.violations if v.set_aside] == ["l"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(PAIRS), st.floats(0.3, 1), st.floats(0.3, 1))
def test_the_order_changes_no_report_of_two_cut_logs_either(
    base: str, keep_host: float, keep_guest: float
) -> None:
    """A review: with both logs cut, the violations' order and a writer's note came from the
    order the logs were given in."""
    host, guest = _bytes(f"{base}-host"), _bytes(f"{base}-guest")
    named = (
        ("h", host[: int(len(host) * keep_host)]),
        ("g", guest[: int(len(guest) * keep_guest)]),
    )
    reports = [[j.to_json() for j in _judged(*logs)] for logs in (named, named[::-1])]
    for games in reports:
        games.sort(key=lambda report: str(report["game"]))
        for report in games:
            report.pop("logs")
            if report["fork"]:
                for branch in report["fork"]["branches"]:
                    branch.pop("logs")
    assert reports[0] == reports[1]

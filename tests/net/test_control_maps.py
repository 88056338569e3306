"""Notices are typed values; the control socket sends them as SPEC.md's maps, key for key."""

from __future__ import annotations

from pathlib import Path

import pytest

from statki_net.game.battle import Answer, Outcome
from statki_net.game.rules import ruleset_named
from statki_net.game.words import Term, phrase, phrase_map
from statki_net.net import notices
from statki_net.net.boards import Shown
from statki_net.net.control import notice_from_map, notice_map
from statki_net.net.notices import Notice, lost_phrase
from statki_net.protocol.endings import End, Result, Standing
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.protocol.phases import Claim
from statki_net.protocol.wire import Limits, Role
from statki_net.store.language import catalog

CLASSIC = ruleset_named("classic")
POLISH = catalog("pl")
HIT_MISS = Answer((Outcome.HIT, Outcome.MISS), 1, 0)
MISS = Answer((Outcome.MISS,), 0, 0)

WAITING = lost_phrase(60_000, Claim.WINS_THE_GAME, ())
WAITING_MAP = {
    "text": "{p0}",
    "facts": [
        [
            "p0",
            {
                "phrase": {
                    "text": "waiting {seconds} s for the opponent, then {then}",
                    "facts": [
                        ["seconds", 60],
                        ["then", {"phrase": {"text": "the game is yours on time", "facts": []}}],
                    ],
                }
            },
        ]
    ],
}
VALID = phrase("{standing}: {winner} won", standing=Term("valid"), winner=Term("host"))
VALID_MAP = {
    "text": "{standing}: {winner} won",
    "facts": [
        ["standing", {"term": "valid", "context": ""}],
        ["winner", {"term": "host", "context": ""}],
    ],
}

CASES: list[tuple[Notice, str, dict[str, object]]] = [
    (
        notices.Hello("Ala", "aaaaa-bbbbb-ccccc-ddddd", "statki 1", "[::1]:5"),
        "",
        {"event": "hello", "name": "Ala", "key": "aaaaa-bbbbb-ccccc-ddddd",
         "software": "statki 1", "address": "[::1]:5"},
    ),
    (
        notices.Rules(CLASSIC, Limits(60_000, 30_000), Role.GUEST),
        "",
        {"event": "rules", "rules": "classic", "rules_map": CLASSIC.to_map(),
         "move_ms": 60_000, "reveal_ms": 30_000, "first": "guest", "due": None},
    ),
    (
        notices.Rules(CLASSIC, Limits(), None),
        "",
        {"event": "rules", "rules": "classic", "rules_map": CLASSIC.to_map(),
         "move_ms": Limits().move_ms, "reveal_ms": Limits().reveal_ms, "first": None,
         "due": None},
    ),
    (
        notices.Started(Role.HOST, False, "ab" * 32, 10),
        "BOARDS",
        {"event": "started", "first": "host", "you_first": False, "game": "ab" * 32,
         "size": 10, "boards": "BOARDS", "due": None},
    ),
    (notices.Turn(3), "", {"event": "turn", "shots": 3, "due": None}),
    (
        notices.Turn(1, notices.Due(True, 1_796_000_123_456)),
        "",
        {"event": "turn", "shots": 1, "due": {"mine": True, "at": 1_796_000_123_456}},
    ),
    (
        notices.Volley(Role.GUEST, True, 4, ("C7", "J10"), HIT_MISS),
        "",
        {"event": "volley", "shooter": "guest", "mine": True, "move": 4,
         "squares": ["C7", "J10"], "answer": "hit, miss",
         "answered": {"outcomes": ["hit", "miss"], "hits": 1, "sunk": 0, "names": []},
         "boards": "", "due": None},
    ),
    (
        notices.Volley(Role.HOST, False, 5, ("A1",), MISS, notices.Due(True, 1_796_000_123_456)),
        "",
        {"event": "volley", "shooter": "host", "mine": False, "move": 5,
         "squares": ["A1"], "answer": "miss",
         "answered": {"outcomes": ["miss"], "hits": 0, "sunk": 0, "names": []},
         "boards": "", "due": {"mine": True, "at": 1_796_000_123_456}},
    ),
    (notices.Over(Result.LOST, End.SUNK), "", {"event": "over", "result": "lost", "end": "sunk"}),
    (
        Failed(Code.WRONG_KEY, "not the invite's key", by_peer=False),
        "",
        {"event": "failed", "code": "wrong-key", "detail": "not the invite's key",
         "by_peer": False},
    ),
    (
        notices.Lost(str(WAITING), said=WAITING),
        "",
        {"event": "lost", "detail": "waiting 60 s for the opponent, then the game is yours on time",
         "said": WAITING_MAP},
    ),
    (
        notices.Lost("from a daemon that sends no phrase"),
        "",
        {"event": "lost", "detail": "from a daemon that sends no phrase",
         "said": {"text": "", "facts": []}},
    ),
    (
        Failed(None, "?", by_peer=True, unknown_code="new-code"),
        "",
        {"event": "failed", "code": "new-code", "detail": "?", "by_peer": True},
    ),
    (
        notices.Closed(Result.WON, End.RESIGNED, "valid: ...", None, Path("/l/x.statki"), 5, 6,
                       Standing.VALID),
        "",
        {"event": "closed", "result": "won", "end": "resigned", "standing": "valid",
         "verdict": "valid: ...", "verdict_said": None, "failure": None, "failure_said": None,
         "log": "/l/x.statki",
         "my_shots": 5, "their_shots": 6},
    ),
    (
        notices.Closed(Result.WON, End.SUNK, "valid: host won", None, None, 5, 6, Standing.VALID,
                       said=VALID),
        "",
        {"event": "closed", "result": "won", "end": "sunk", "standing": "valid",
         "verdict": "valid: host won", "verdict_said": VALID_MAP, "failure": None,
         "failure_said": None, "log": None,
         "my_shots": 5, "their_shots": 6},
    ),
    (
        notices.Closed(Result.NONE, None, "disputed: ...", None, Path("/l/y.statki"), 9, 9,
                       Standing.DISPUTED),
        "",
        {"event": "closed", "result": "none", "end": "disputed", "standing": "disputed",
         "verdict": "disputed: ...", "verdict_said": None, "failure": None, "failure_said": None,
         "log": "/l/y.statki",
         "my_shots": 9, "their_shots": 9},
    ),
    (
        notices.Talk(Role.GUEST, False, "Cześć!"),
        "",
        {"event": "talk", "from": "guest", "mine": False, "text": "Cześć!"},
    ),
    (
        notices.Closed.without_game("cannot connect: nobody"),
        "",
        {"event": "closed", "result": "none", "end": "no-game", "standing": None, "verdict": None,
         "verdict_said": None, "failure": "cannot connect: nobody", "failure_said": None,
         "log": None, "my_shots": 0,
         "their_shots": 0},
    ),
    (
        notices.Closed.without_game("Ola did not come back", said=phrase("{who} left", who="Ola")),
        "",
        {"event": "closed", "result": "none", "end": "no-game", "standing": None, "verdict": None,
         "verdict_said": None, "failure": "Ola did not come back",
         "failure_said": phrase_map(phrase("{who} left", who="Ola")), "log": None, "my_shots": 0,
         "their_shots": 0},
    ),
]  # fmt: skip


@pytest.mark.parametrize(("notice", "boards", "expected"), CASES)
def test_each_notice_is_the_map_spec_lists_in_its_key_order(
    notice: Notice, boards: str, expected: dict[str, object]
) -> None:
    sent = notice_map(notice, boards)
    assert sent == expected
    assert list(sent) == list(expected), "msgpack writes keys in order: the bytes would change"


@pytest.mark.parametrize(("notice", "boards", "expected"), CASES)
def test_each_map_reads_back_as_its_notice(
    notice: Notice, boards: str, expected: dict[str, object]
) -> None:
    assert notice_from_map(expected) == Shown(notice, boards)
    if not isinstance(notice, notices.Started):  # its "game" is the protocol's id: see below
        assert notice_from_map({**expected, "game": 7}) == Shown(notice, boards)


def test_a_pushed_started_carries_the_daemons_game_number_in_place_of_the_id() -> None:
    pushed = {**notice_map(notices.Started(Role.HOST, True, "ab" * 32, 10)), "game": 7}
    assert list(pushed) == ["event", "first", "you_first", "game", "size", "boards", "due"]
    told = notice_from_map(pushed)
    assert told is not None and told.notice == notices.Started(Role.HOST, True, "7", 10)


def test_a_lost_detail_and_a_verdict_cross_as_phrases_said_in_the_front_end_s_language() -> None:
    """An English daemon's ``lost`` and ``closed``, read by a Polish front end (issue 14)."""
    lost = lost_phrase(None, None, ("shot",))
    told = notice_from_map(notice_map(notices.Lost(str(lost), said=lost)))
    assert told is not None and isinstance(told.notice, notices.Lost)
    assert told.notice.words_in(POLISH) == lost.in_words(POLISH)
    assert "shot" not in told.notice.words_in(POLISH) and "strzał" in told.notice.words_in(POLISH)
    closed = notices.Closed(Result.WON, End.SUNK, str(VALID), None, None, said=VALID)
    back = notice_from_map(notice_map(closed))
    assert back is not None and isinstance(back.notice, notices.Closed)
    assert back.notice.verdict == "valid: host won"
    assert back.notice.verdict_in(POLISH) == "ważna: gospodarz won"


def test_an_event_a_newer_daemon_sends_is_passed_over() -> None:
    assert notice_from_map({"event": "chat", "game": 1, "text": "hi"}) is None

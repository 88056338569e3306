"""A referee's verdict in Polish, from the real logs of ``protocol/logs``: reasons and violations
said in the players' words, the English (what ``--json`` and the vectors keep) unchanged.

Each log is judged once (about a second for all of them) and its judgement put into
both languages: the reasons and details are phrases, kept as their kind and facts, so
the Polish is built from the same facts, never from the English text.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from statki_net.game.words import ENGLISH, Phrase, Words
from statki_net.referee.report import Judgement
from statki_net.referee.verify import judge_log
from statki_net.store.language import catalog

LOGS = Path(__file__).resolve().parent.parent.parent / "protocol" / "logs"
POLISH: Words = catalog("pl")

SAID_AS_IS = re.compile(r"\([a-z-]+: [^()]*\)")
"""A stop's code and the peer's own detail, quoted as they came over the wire: ``(closed: the
player quit)``; no catalog holds a peer's words."""

ENGLISH_WORDS = re.compile(
    r"\b(the|message|answered|shows|refused|stopped|signed|signature|before|after|fork|"
    r"logs|ship|squares|claim|nobody|wins|won|host|guest)\b"
)
"""Words of the English phrases that no Polish line may keep."""


@cache
def judged(name: str) -> Judgement:
    return judge_log((LOGS / name).read_bytes(), name)


def phrases(judgement: Judgement) -> list[Phrase]:
    return [judgement.reason, *(v.detail for v in judgement.violations)]


def english_left(line: str, name: str) -> list[str]:
    """The English words of a Polish line, once the peer's quoted words and the log's name
    are set aside."""
    return ENGLISH_WORDS.findall(SAID_AS_IS.sub("", line.replace(name, "")))


LOG_NAMES = sorted(path.name for path in LOGS.glob("*.statki"))


@pytest.mark.parametrize("name", LOG_NAMES)
def test_every_reason_and_violation_is_said_in_polish(name: str) -> None:
    judgement = judged(name)
    for said in phrases(judgement):
        polish = said.in_words(POLISH)
        assert str(said) == said.in_words(ENGLISH), "str() is the English the report keeps"
        assert not english_left(polish, name), f"{name}: English in {polish!r}"
    for line in judgement.lines(POLISH):
        assert not english_left(line, name), f"{name}: English in {line!r}"


@pytest.mark.parametrize(
    ("name", "polish"),
    [
        ("out-of-turn.statki", "strzał od gospodarza, a ruch ma gość"),
        ("aborted.statki", "gość odrzucił wiadomość 15 od gospodarza"),
        (
            "aborted.statki",
            "zły strzał (Ala (gospodarz), ruch 4): wiadomość 15 (strzał): strzałów: 2",
        ),
        ("illegal-fleet.statki", "niedozwolona flota (Olek (gość)): statki D1-D4 i C1 stykają się"),
        (
            "false-answer-at-reveal.statki",
            "odpowiedź „trafiony”, a flota pokazuje „trafiony zatopiony”",
        ),
        ("false-answer-on-move.statki", "B5: odpowiedź „woda”, a zobowiązanie mówi „statek”"),
        ("early-claim.statki", "przedwczesne zgłoszenie czasu"),
        ("reordered.statki", "ma numer 11, a w tym miejscu powinna być wiadomość 10"),
        ("missing-reveal.statki", "urywają się w fazie pierwszego ujawnienia floty"),
        ("crossed-claim-host.statki", "na czas (wygrywa gospodarz); na czas (wygrywa gość)"),
        ("refused.statki", "gość odrzucił zasady: I play salvo only"),
        ("talk-tampered.statki", "zły wpis czatu: wpis czatu 0: podpis gościa się nie zgadza"),
        ("bad-reveal.statki", "ocena: nieważna (oszustwo)"),
    ],
)
def test_a_polish_verdict_reads_as_a_referee_writes(name: str, polish: str) -> None:
    assert polish in "\n".join(judged(name).lines(POLISH))


def test_the_english_verdict_is_the_report_the_vectors_keep() -> None:
    """``to_json`` is built from the English: the phrases' ``str()``, byte for byte."""
    judgement = judged("out-of-turn.statki")
    report = judgement.to_json()
    assert report["violations"][0]["detail"] == (
        "message 15 (shot): shot from the host, but it is the guest's turn"
    )
    assert report["result"]["reason"] == judgement.result_words(words=ENGLISH)
    assert "the host's message 15 was refused (out-of-turn: " in report["result"]["reason"]

"""What `statki host`/`join` print on stdout once a game played on the full screen is over."""

from __future__ import annotations

from pathlib import Path

import pytest

from statki_net.cli.netplay import told_outcomes
from statki_net.net.connection import Outcome
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.language import speak
from statki_net.store.recorder import LogVerdict

SAMPLE = Path(__file__).parents[2] / "protocol" / "logs" / "honest-classic.statki"


@pytest.mark.parametrize(
    ("language", "said"), [("en", ["verdict: valid", "log: "]), ("pl", ["werdykt: ", "zapis: "])]
)
def test_the_verdict_after_a_full_screen_game_is_said_in_the_players_language(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    said: list[str],
) -> None:
    """As the line prompt says it: the referee's line and the log's path, in the player's
    words (the full screen's ending printed them in English), the verdict wrapped between
    words at the terminal's width (it was cut mid-word).  In process, a few ms."""
    monkeypatch.setenv("COLUMNS", "60")
    judgement = judge_log(SAMPLE.read_bytes())
    assert judgement.ending is not None
    outcome = Outcome(judgement.ending, Role.HOST, 0, 0, LogVerdict.of(judgement), SAMPLE, "game")
    speak(language)
    try:
        told_outcomes([outcome])
    finally:
        speak("en")
    printed = capsys.readouterr().out.splitlines()
    verdict = [line for line in printed if not line.startswith(said[1])]
    assert len(verdict) > 1 and all(len(line) <= 60 for line in verdict), printed
    lines = [" ".join(verdict), printed[-1]]
    assert [line[: len(start)] for line, start in zip(lines, said, strict=True)] == said, lines
    assert (language == "pl") == ("(ocena: ważna)" in lines[0] and "wygrywa" in lines[0]), lines

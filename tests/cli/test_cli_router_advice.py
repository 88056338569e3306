"""``statki host``'s router advice as a terminal shows it."""

from __future__ import annotations

import pytest

from statki_net.cli.netplay import tell_reach
from statki_net.net.reach import NoRouter
from statki_net.store.language import speak

PORT = 47470


@pytest.mark.parametrize(("language", "columns"), [("en", "80"), ("pl", "80"), ("en", "52")])
def test_the_router_advice_is_wrapped_at_words_to_the_terminals_width(
    language: str, columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One 200-character line the terminal cut mid-word ("forw|ard").  In-process: <10 ms."""
    monkeypatch.setenv("COLUMNS", columns)
    speak(language)
    try:
        tell_reach(NoRouter(2.0), PORT, [("192.168.1.2", PORT)])
    finally:
        speak("en")
    lines = capsys.readouterr().err.rstrip("\n").split("\n")
    assert len(lines) > 1 and all(len(line) <= int(columns) for line in lines), lines
    assert lines[0].startswith("statki: ")
    assert "--advertise" in " ".join(lines), "the option is not cut at its hyphens"

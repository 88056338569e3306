"""A salvo's last turn is named a salvo: "Ostatnia salwa", not "Ostatni strzał"."""

from __future__ import annotations

from pathlib import Path

import pytest
from statki_client.layout import plain, screen
from test_client_model import game

from statki_net.store.language import speak


@pytest.mark.parametrize(
    ("language", "mine", "theirs"),
    [
        ("en", "Your last salvo", "Their last salvo"),
        ("pl", "Twoja ostatnia salwa", "Ostatnia salwa przeciwnika"),
    ],
)
def test_the_last_salvo_is_called_a_salvo(
    tmp_path: Path, language: str, mine: str, theirs: str
) -> None:
    model, _ = game(tmp_path, "salvo", seed=9)  # one in which the player starts
    model.ready()
    for square in range(model.shots_due):
        model.choose(square)
    model.choose()
    assert model.shots_fired(True) == 10
    speak(language)
    try:
        text = " ".join(plain(screen(model)).split())
    finally:
        speak("en")
    assert mine in text, text
    assert theirs in text, text

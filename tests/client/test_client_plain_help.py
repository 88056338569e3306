"""The line prompt's help as a new player meets it: whole lines, said once."""

from __future__ import annotations

from pathlib import Path

import pytest
from statki_client.plain import HELP, run_plain
from test_client_model import game

from statki_net.store.language import _, speak


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_line_prompts_help_fits_80_columns_and_keeps_its_margin(language: str) -> None:
    """The Polish help wrapped its "J1;" onto a line of its own at 80 columns."""
    speak(language)
    try:
        lines = _(HELP).split("\n")
    finally:
        speak("en")
    assert max(len(line) for line in lines) <= 80
    margin = len(lines[0]) - len(lines[0].split(":", 1)[1].lstrip())
    continued = [line for line in lines if line.startswith(" ")]
    assert continued and all(len(line) - len(line.lstrip()) == margin for line in continued)


def test_help_does_not_say_the_last_complaint_again(tmp_path: Path) -> None:
    """After a fleet it could not read, "help" printed the help and then the complaint."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    lines = iter(["xyz", "help", "q", "y"])
    out: list[str] = []
    run_plain(model, lambda prompt: next(lines, None), out.append)
    complaints = [text for text in out if "xyz" in text]
    assert len(complaints) == 1, complaints


def test_a_square_off_the_board_is_refused_in_the_players_language(tmp_path: Path) -> None:
    """At the Polish line prompt "b11" was answered in English ("row 11 is off the board")."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    lines = iter(["", "b11", "q", "y"])
    out: list[str] = []
    speak("pl")
    try:
        run_plain(model, lambda prompt: next(lines, None), out.append)
    finally:
        speak("en")
    assert "B11 to nie pole tej planszy" in out, out[-4:]
    assert model.shots_fired(True) == 0


@pytest.mark.parametrize("ending", [["q", "y"], []], ids=["quit-resigns", "input-ends"])
def test_a_resigned_game_says_its_result_once_and_offers_no_key_it_left(
    tmp_path: Path, ending: list[str]
) -> None:
    """After "q", "t" at the Polish prompt the end screen offered "a analizuje grę", a key
    the player had left before, and the result was printed twice."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    lines = iter(["", "A1", *ending])
    out: list[str] = []
    speak("pl")
    try:
        run_plain(model, lambda prompt: next(lines, None), out.append)
        verdict = model.end_screen.verdict if model.end_screen else "?"
        said = "\n".join(out)
        analysis = _("a analyses the game: the best shots, and how hard each fleet was to find")
    finally:
        speak("en")
    assert said.count(verdict) == 1, said[-600:]
    assert analysis not in said

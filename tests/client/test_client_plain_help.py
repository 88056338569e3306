"""The line prompt's help as a new player meets it: whole lines, said once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from statki_client.model import Stage
from statki_client.plain import HELP, run_plain
from test_client_model import game

from statki_net.game.answers import TYPED, Command, typed_as
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
    assert "b11 to nie pole tej planszy" in out, out[-4:]
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


PROMPT_COMMANDS = (
    Command.START,
    Command.NEW,
    Command.DECLINE,
    Command.HINTS,
    Command.HISTORY,
    Command.QUIT,
    Command.ANALYSE,
    Command.REMATCH,
)
"""The commands the line prompt's help tells of (it is itself what ``help`` shows)."""


def _quoted(language: str) -> set[str]:
    speak(language)
    try:
        return set(re.findall(r'["„]([^"„”]+)["”]', _(HELP)))
    finally:
        speak("en")


@pytest.mark.parametrize("language", ["en", "pl"])
def test_every_word_the_help_quotes_is_taken_and_every_command_has_one(language: str) -> None:
    """The Polish help told of "new" and "hints" only, and "nowa" was not taken."""
    quoted = _quoted(language)
    assert all(any(typed_as(word, command) for command in Command) for word in quoted), quoted
    for command in PROMPT_COMMANDS:
        assert quoted & TYPED[command], command


def test_the_polish_help_shows_a_polish_word_wherever_there_is_one() -> None:
    english, polish = _quoted("en"), _quoted("pl")
    for command in PROMPT_COMMANDS[1:]:  # Enter and "ok" start in either language
        assert polish & TYPED[command] - english, command


def test_polish_commands_play_at_the_prompt(tmp_path: Path) -> None:
    """``nowa`` draws another fleet, ``podpowiedzi`` turns the hints on, ``wyjdź`` quits."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    before = model.fleet.board
    lines = iter(["nowa", "historia", "", "podpowiedzi", "wyjdź", "tak"])
    out: list[str] = []
    speak("pl")
    try:
        run_plain(model, lambda prompt: next(lines, None), out.append)
    finally:
        speak("en")
    assert model.fleet.board != before
    assert model.hints
    assert any("Rozegrane gry" in text for text in out), out
    assert model.stage is Stage.OVER and model.end_screen is not None


def test_a_notice_said_again_at_the_prompt_is_wrapped_at_80_columns(tmp_path: Path) -> None:
    """The placing notice, said again after a "q" answered "n", ran to 111 columns."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    lines = iter(["q", "n", "q", "t"])
    out: list[str] = []
    speak("pl")
    try:
        drawn = "Your fleet is drawn at random: Enter starts, 'new' draws another, or type your"
        model.say(_(drawn + " ships, like B2-E2 G2-G4 J1"))
        run_plain(model, lambda prompt: next(lines, None), out.append)
    finally:
        speak("en")
    said = [line for text in out for line in text.split("\n")]
    assert "„nowa” losuje inną" in " ".join(" ".join(said).split())
    assert max(len(line) for line in said) <= 80, [line for line in said if len(line) > 80]

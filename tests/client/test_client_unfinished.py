"""Unfinished games point to ``statki resume``: in the past games panel, and on the first
screen of a game (the line ``statki_client.run.unfinished_words`` makes of what the logs say)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import cast

from statki_client.layout import history_lines, plain, screen
from statki_client.model import Model
from statki_client.pickup import unfinished_words
from test_client_model import game

from statki_net.game.rules import ruleset_named
from statki_net.store.history import GameRow
from statki_net.store.language import speak
from statki_net.store.unfinished import Glance


def row(result: str | None) -> GameRow:
    return GameRow("ab" * 32, 0, "guest", "key", "Ala", "classic", "/log", result=result)


def text(rows: list[GameRow]) -> str:
    model = cast(Model, SimpleNamespace(history=(rows, [])))
    return "\n".join("".join(piece[1] for piece in line) for line in history_lines(model, 80))


def test_an_unfinished_game_is_pointed_to_statki_resume() -> None:
    assert "statki resume" in text([row(None), row("won")])
    assert "statki resume" not in text([row("won")])


def start_screen(tmp_path: Path, unfinished: str) -> str:
    model, _history = game(tmp_path, "classic")  # the first screen of statki play: placement
    model.unfinished = unfinished
    return plain(screen(model))


def test_the_start_screen_names_an_unfinished_game_and_statki_resume(tmp_path: Path) -> None:
    speak("en")
    line = unfinished_words([Glance("Ala", ruleset_named("classic"), my_move=True)])
    shown = start_screen(tmp_path, line)
    assert "Unfinished game vs Ala, classic, your move: statki resume picks it up" in shown
    assert shown.splitlines()[1].startswith("Unfinished game vs Ala"), "under the title"
    assert "Your fleet" in shown and "Enter start" in shown, "the placement screen still whole"


def test_without_unfinished_games_the_start_screen_says_nothing_of_them(tmp_path: Path) -> None:
    speak("en")
    assert unfinished_words([]) == ""
    assert "statki resume" not in start_screen(tmp_path, unfinished_words([]))


def test_several_games_are_counted_and_one_with_an_unreadable_log_named_without_details() -> None:
    speak("en")
    theirs = Glance("Ola", ruleset_named("salvo"), my_move=False)
    assert unfinished_words([None, theirs]) == "Unfinished games: 2; statki resume lists them"
    assert unfinished_words([None]) == "An unfinished game: statki resume picks it up"
    assert "salvo, their move" in unfinished_words([theirs])

"""The player's name: asked for once at a terminal, kept in the home, never the account's."""

from __future__ import annotations

import builtins
import getpass
from pathlib import Path

import pytest
from conftest import Cli

from statki_net.cli.common import NAME_QUESTION, player_name
from statki_net.store.language import speak
from statki_net.store.player import kept_name


def test_the_name_is_asked_once_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "  Zosia \t "

    monkeypatch.setattr(builtins, "input", answer)
    assert player_name(None, tmp_path, may_ask=True) == "Zosia"
    assert player_name(None, tmp_path, may_ask=True) == "Zosia"
    assert asked == [NAME_QUESTION], "asked the first time only"
    assert kept_name(tmp_path) == "Zosia"
    assert player_name("Olek", tmp_path, may_ask=True) == "Olek", "--name, for this game"
    assert kept_name(tmp_path) == "Zosia"
    assert (tmp_path / "name.txt").stat().st_mode & 0o077 == 0


def test_the_name_is_asked_in_the_players_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With LANG=pl_PL.UTF-8 the first line a new player read was English."""
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "Zosia"

    monkeypatch.setattr(builtins, "input", answer)
    speak("pl")
    try:
        player_name(None, tmp_path, may_ask=True)
    finally:
        speak("en")
    assert asked and asked[0].startswith("Twoje imię"), asked
    # at 80 columns the answer is typed on the question's line: room for a 12-letter name
    assert len(asked[0]) + 12 <= 80, asked


def test_without_a_terminal_nobody_is_asked_and_nothing_is_made_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(prompt: str) -> str:
        raise AssertionError("asked without a terminal")

    monkeypatch.setattr(builtins, "input", refuse)
    assert player_name(None, tmp_path, may_ask=False) == ""
    assert kept_name(tmp_path) is None


def test_a_piped_game_is_played_without_the_accounts_name(cli: Cli) -> None:
    done = cli("play", "--plain", "--seed", "4", stdin="\nA1\n")
    assert done.returncode == 0, done.stderr
    assert " you (host)" in done.stdout
    assert f"{getpass.getuser()} (host)" not in done.stdout

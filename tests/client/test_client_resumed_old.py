"""A host's game kept by an older statki (no invite kept with it), picked up with ``u``
(issue 14): open to anyone, its guest comes back with the invite it holds, which has no
secret, so the rematch is hosted again as the first game was; let in by an invite's
secret, it cannot be (the secret is gone), and ``r`` says so in the player's words where it
said "there is no opponent to meet again".
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import press
from statki_client.layout import keys_line, plain, screen
from statki_client.remote import play_over_connection
from statki_client.run import picked_up_model
from test_client_resumed import kept_game

from statki_net.cli.netplay import GuestReunion, HostReunion, Player
from statki_net.cli.resume import NoReunion, resumed_connection, reunion_of
from statki_net.net.admission import Admission
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.net.resume import TakeBack
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Admit, Role
from statki_net.store.history import History
from statki_net.store.language import speak
from statki_net.store.unfinished import restore

OLDER = "An older statki kept this game without its invite"


def _kept_by_an_older_statki(home: Path, admit: Admit) -> str:
    """The host's game kept as an older statki kept it: its port, and no invite."""
    game = kept_game(home, mover=Role.GUEST, side=Role.HOST, admit=admit)
    [file] = list((home / "unfinished").glob("*.json"))
    kept = json.loads(file.read_text())
    kept["invite"] = ""
    file.write_text(json.dumps(kept))
    return game


def _reunion(home: Path, game: str, player: Player) -> HostReunion | NoReunion:
    restored = restore(home, game)
    with History.in_home(home) as history:
        made = reunion_of(
            player, restored.kept, history, before=lambda: None, session=restored.session
        )
    assert not isinstance(made, GuestReunion), "the host's game"
    return made


def test_an_open_game_kept_without_its_invite_is_hosted_again_open(tmp_path: Path) -> None:
    home = tmp_path / "home"
    game = _kept_by_an_older_statki(home, Admit.OPEN)
    made = _reunion(home, game, Player(home, "Ala", None, None, None, on_screen=True))
    assert isinstance(made, HostReunion), made
    assert made.door.admit is Admit.OPEN and made.door.secret is None


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", OLDER), ("pl", "Starsza wersja statki zachowała tę grę bez zaproszenia")],
)
def test_r_after_a_game_whose_invite_is_gone_says_why_in_the_players_words(
    tmp_path: Path, language: str, said: str
) -> None:
    """The opponent never comes back: this side wins on time (a clock 400 times fast); then
    ``r`` says why no rematch can be had, on the end screen, one line."""
    home = tmp_path / "home"
    game = _kept_by_an_older_statki(home, Admit.INVITE)
    clock = ScaledClock(400)
    player = Player(home, "Ala", None, None, None, on_screen=True, clock=clock)
    restored = restore(home, game)
    session = restored.session
    history = History.in_home(home)
    reunion = reunion_of(player, restored.kept, history, before=lambda: None, session=session)
    assert isinstance(reunion, NoReunion), reunion
    model, link = picked_up_model(session, told_so_far(session, restored.contents), reunion=reunion)
    speak(language)

    async def main() -> list[str]:
        async def connect(_session: Session) -> GameConnection:
            return resumed_connection(player, restored, TakeBack(Admission(clock=clock)), history)

        seen: list[str] = []
        with create_pipe_input() as pipe:

            async def rematch_at_the_end() -> None:
                async with asyncio.timeout(30):
                    while model.end_screen is None or not model.end_screen.referee:
                        await asyncio.sleep(0.01)
                    press(model, "r")
                    while model.end_screen is None or said not in plain(screen(model)):
                        await asyncio.sleep(0.01)
                seen.append(plain(screen(model)))
                seen.append(keys_line(model))
                pipe.send_text("q")

            asking = asyncio.ensure_future(rematch_at_the_end())
            await asyncio.wait_for(
                play_over_connection(model, link, connect, input=pipe, output=DummyOutput()),
                timeout=40,
            )
            await asking
        return seen

    try:
        shown, keys = asyncio.run(main())
    finally:
        speak("en")
        history.close()
    assert "there is no opponent to meet again" not in shown
    assert all(len(line) <= 80 for line in shown.splitlines()), shown
    assert "r rematch" not in keys and "r rewanż" not in keys, keys

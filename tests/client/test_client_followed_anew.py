"""A game the daemon plays, its screen closed and opened again, and the kept games a first
screen through the daemon offers: what the screen says is what happened.

The screen opened again on a daemon's game is no game picked up from its log: nobody left
it, so it does not say it waits for the opponent to come back.  And a host's first screen
through the daemon picks a kept game up with ``u``, as one in-process does.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.layout import plain, screen
from statki_client.model import Model
from statki_client.remote import ConnectionLink
from test_client_resumed import kept_game
from test_client_through_daemon import WAIT, daemon_in, game_of, player

from statki_net.cli import netplay
from statki_net.game.rules import ruleset_named
from statki_net.net.control import ControlClient
from statki_net.protocol.replay import told_so_far
from statki_net.store.language import speak
from statki_net.store.picked import ChosenToResume
from statki_net.store.unfinished import restore


def reopened(home: Path, game: str, *, followed: bool) -> Model:
    """The screen on a kept game where it stands: followed (the daemon's) or picked up."""
    restored = restore(home, game)
    session = restored.session
    told = told_so_far(session, restored.contents)
    if followed:  # as ``DaemonLink.attach`` has it: the daemon holds the connection
        session.lost = None
    link = ConnectionLink(session)
    return Model(link, random.Random(0), replayed=tuple(told), followed=followed)


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_screen_opened_again_on_a_daemons_game_says_nobody_left(
    tmp_path: Path, language: str
) -> None:
    speak(language)
    game = kept_game(tmp_path)
    followed = plain(screen(reopened(tmp_path, game, followed=True)))
    picked = plain(screen(reopened(tmp_path, game, followed=False)))
    if language == "en":
        assert "Back on the game the daemon plays: Ala is still there" in followed, followed
        assert "come back" not in followed
        assert "Game picked up from its log: waiting for Ala to come back" in picked
    else:
        assert "Z powrotem w grze, którą rozgrywa demon: Ala wciąż gra" in followed, followed
        assert "wróci" not in followed
        assert "czekam, aż Ala wróci" in picked


def test_a_hosts_first_screen_through_the_daemon_picks_a_kept_game_up_with_u(
    tmp_path: Path,
) -> None:
    """It said ``statki resume`` picks the game up and ``u`` did nothing; now ``u`` leaves
    for it as in-process, and the game the daemon waited with for a guest is withdrawn.
    One daemon start, no game played: 2-4 s."""
    speak("en")
    home = tmp_path / "host"
    kept = kept_game(home)

    async def scenario() -> tuple[BaseException | int, dict[str, object]]:
        me = player(home, tmp_path)
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(
                netplay._host_game(me, ruleset_named("classic"), None, 0, [])
            )
            control = await ControlClient.connect(home)
            assert control is not None
            try:
                number = await game_of(control)
                await asyncio.sleep(0.3)  # the first screen drawn
                keys.send_text("u")
                async with asyncio.timeout(WAIT):
                    try:
                        status: BaseException | int = await run
                    except ChosenToResume as chosen:
                        status = chosen
                state = (await control.request("state", game=number))["state"]
                return status, state
            finally:
                await control.close()

    with daemon_in(home):
        status, state = asyncio.run(scenario())
    assert isinstance(status, ChosenToResume), status
    assert status.game == kept
    assert state["status"] == "over" and "withdrawn" in str(state["failure"]), state

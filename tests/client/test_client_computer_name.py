"""statki's own computer is named in the screen's language; a peer's chosen name is not
touched, even one that reads like the computer's (in-process, a few ms)."""

from __future__ import annotations

from pathlib import Path

from statki_client.computer import computer_key, shown_name
from statki_client.layout import plain, screen
from statki_client.model import Overlay
from test_client_model import game

from statki_net.ai.strategies import STRATEGIES
from statki_net.ai.strength import Strength
from statki_net.game.names import COMPUTER_FINGERPRINTS, STRENGTH_WORDS, computer_name
from statki_net.protocol.session import public_key_bytes
from statki_net.referee.report import fingerprint
from statki_net.store.history import GameRow, History
from statki_net.store.language import speak


def test_the_computers_own_name_is_said_in_polish_and_a_peers_is_kept() -> None:
    medium = fingerprint(public_key_bytes(computer_key("medium")))
    someone = fingerprint(public_key_bytes(computer_key("someone else")))
    assert computer_name("medium") == "computer (medium)", "the wire and the logs keep English"
    speak("pl")
    try:
        assert shown_name("computer (medium)", medium) == "komputer (średni)"
        assert shown_name(
            "computer (density)", fingerprint(public_key_bytes(computer_key("density")))
        ) == ("komputer (density)"), "a strategy's name is typed as it is"
        assert shown_name("computer (medium)", someone) == "computer (medium)", "a peer's choice"
        assert shown_name("Ala", medium) == "Ala"
    finally:
        speak("en")
    assert shown_name("computer (medium)", medium) == "computer (medium)"


def test_the_written_fingerprints_are_the_computers_keys() -> None:
    """The table ``statki history`` names the computer by, against the keys (a few ms)."""
    played = {*(strength.value for strength in Strength), *STRATEGIES}
    assert set(COMPUTER_FINGERPRINTS) == played
    assert set(STRENGTH_WORDS) == {strength.value for strength in Strength}
    for strategy in played:
        assert COMPUTER_FINGERPRINTS[strategy] == fingerprint(
            public_key_bytes(computer_key(strategy))
        )


def test_the_past_games_overlay_names_the_computer_in_polish_in_both_lists(
    tmp_path: Path,
) -> None:
    """The games listed said "komputer (średni)", the wins per opponent "computer (medium)"."""
    medium = fingerprint(public_key_bytes(computer_key("medium")))
    with History.in_home(tmp_path) as history:
        history.started(GameRow("a" * 64, 1, "host", medium, "computer (medium)", "classic", "/l"))
        model, _ = game(tmp_path)
        model.history = (history.games(), history.tally("opponent"))
    model.overlay = Overlay.HISTORY
    speak("pl")
    try:
        text = plain(screen(model))
    finally:
        speak("en")
    assert "computer (medium)" not in text and text.count("komputer (średni)") == 2, text

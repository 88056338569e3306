"""The net layer's notices: English for the control socket, the player's language on a screen."""

from __future__ import annotations

from statki_net.game.words import ENGLISH
from statki_net.net.notices import Lost, Reconnected, Reconnecting, lost_phrase
from statki_net.protocol.phases import Claim
from statki_net.store.language import catalog

POLISH = catalog("pl")


def test_a_reconnection_is_english_on_the_socket_and_polish_on_a_polish_screen() -> None:
    trying = Reconnecting(2, 14_000)
    assert trying.detail == "connection lost, reconnecting (attempt 2), 14 s left"
    assert trying.words_in(POLISH) == "połączenie zerwane, ponowne łączenie (próba 2), zostało 14 s"
    back = Reconnected(have=7, sent=1)
    assert back.detail == "reconnected: the game goes on; 1 of your messages sent again"
    assert back.words_in(POLISH).startswith("połączono ponownie: gra toczy się dalej")


def test_a_lost_connection_says_what_was_recorded_and_how_long_the_wait_is() -> None:
    said = lost_phrase(60_000, Claim.WINS_THE_GAME, ("shot",))
    assert Lost(str(said), said=said).words_in(ENGLISH) == (
        "your shot is recorded in your log; "
        "waiting 60 s for the opponent, then the game is yours on time"
    )
    said = lost_phrase(60_000, Claim.WINS_THE_GAME, ("shot", "answer"))
    assert Lost(str(said), said=said).words_in(POLISH) == (
        "twoje wiadomości (strzał i odpowiedź) są w twoim zapisie gry; "
        "czekam 60 s na przeciwnika, potem wygrywasz na czas"
    )

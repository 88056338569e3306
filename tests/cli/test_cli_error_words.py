"""The errors a person meets most, said in Polish: a square mistyped at the prompt, an invite
pasted wrong, a tournament's unknown rules.  Their English (``str()``) stays what logs and
tools read."""

from __future__ import annotations

import asyncio

import pytest
from conftest import Cli
from netgames import sessions
from test_line_rules import guest_at_the_prompt

from statki_net.game.board import parse_square
from statki_net.game.errors import UsageError
from statki_net.game.rules import ruleset_named
from statki_net.net.invite import parse_invite
from statki_net.protocol.wire import Role
from statki_net.store.language import catalog, speak


def test_a_square_off_the_board_is_said_in_polish_at_the_line_prompt() -> None:
    """A guest against a computer host over loopback, one mistyped square then resigning
    (about 0.2 s)."""
    host, guest = sessions(ruleset_named("classic"), 7, first=Role.GUEST)
    speak("pl")
    try:
        out, _, _ = asyncio.run(guest_at_the_prompt(host, guest, "y\nZ1\nc11\nresign\n"))
    finally:
        speak("en")
    assert "! 'Z1': kolumna Z leży poza planszą (A-J)" in out, out
    assert "! 'c11': wiersz 11 leży poza planszą (1-10)" in out


def test_a_square_error_keeps_its_english_and_says_it_in_polish() -> None:
    with pytest.raises(UsageError) as refused:
        parse_square("7c")
    assert str(refused.value) == "'7c': a square is a letter then a number (C7, not 7C)"
    assert (
        refused.value.in_words(catalog("pl"))
        == "'7c': pole to litera, a po niej liczba (C7, nie 7C)"
    )


@pytest.mark.parametrize(
    ("invite", "polish"),
    [
        ("statki://example.org:47470", "w zaproszeniu po adresach brak klucza gospodarza"),
        (
            "statki://example.org:47470/abc",
            "klucz gospodarza w zaproszeniu nie jest zapisany szesnastkowo",
        ),
        (
            "statki://example.org:99999/" + "ab" * 32,
            "'example.org:99999': port musi być liczbą od 1 do 65535",
        ),
        ("http://example.org", "to nie zaproszenie statki: musi zaczynać się od statki://"),
    ],
)
def test_an_invite_that_does_not_parse_is_said_in_polish(
    invite: str, polish: str, cli: Cli
) -> None:
    """``statki join`` in-process: it refuses the invite before any connection (a few ms)."""
    with pytest.raises(UsageError) as refused:
        parse_invite(invite)
    assert refused.value.in_words(catalog("pl")) == polish
    done = cli("--lang", "pl", "join", invite)
    assert (done.returncode, done.stderr) == (2, f"statki: {polish}\n")


def test_a_tournaments_unknown_rules_are_said_in_polish(cli: Cli) -> None:
    """Refused while the options are read, before any log (a few ms)."""
    polish = cli("--lang", "pl", "tournament", "--rules", "chess", ".")
    assert polish.returncode == 2
    assert polish.stderr.startswith("statki: nieznane zasady chess")
    assert polish.stderr.count("classic") == 1  # the presets listed once, not twice
    english = cli("tournament", "--rules", "chess", ".")
    assert english.stderr.startswith("statki: unknown rules chess; choose from classic, ")
    assert english.stderr.count("classic") == 1


def test_an_unknown_strategy_is_said_in_polish(cli: Cli) -> None:
    """Refused before any game starts (a few ms)."""
    done = cli("--lang", "pl", "play", "--plain", "--bot", "nonsense")
    assert done.returncode == 2
    assert done.stderr.startswith("statki: nieznana strategia 'nonsense'; do wyboru: ")

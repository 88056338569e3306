"""The Polish catalog as a native speaker reads it: wordings a tester winced at.

Each case is a line the tester saw and what it must read now; the general
checks (Polish quotes, one spelling of "trafiony zatopiony") cover the whole
catalog, so a new entry that slips back fails here.
"""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from statki_net.ai.analysis import FleetDifficulty
from statki_net.cli.tournament_report import _rules_words as rules_words
from statki_net.game.names import COMPUTER_FINGERPRINTS
from statki_net.game.words import decimal, phrase_from_map, phrase_map, seconds_said
from statki_net.net.rematch import not_back
from statki_net.protocol.wire import Role
from statki_net.referee.report import said_side
from statki_net.referee.tournament import Points, TournamentRules
from statki_net.store.language import LOCALE_DIR, catalog, speak

PO = LOCALE_DIR / "pl" / "LC_MESSAGES" / "statki.po"


def translations() -> list[str]:
    """Every msgstr of the Polish catalog, each plural form on its own."""
    with PO.open("rb") as po:
        held = [m for m in read_po(po) if m.id]
    forms = [m.string if isinstance(m.string, tuple | list) else (m.string,) for m in held]
    return [str(text) for strings in forms for text in strings if text]


@pytest.mark.parametrize(
    ("english", "polish"),
    [
        (
            "Rematch: connecting to {them} again",
            "Rewanż: ponownie łączę się z przeciwnikiem ({them})",
        ),
        (
            "{who} did not come back for the rematch within {seconds} s",
            "{who}: brak powrotu na rewanż w ciągu {seconds} s",
        ),
        (
            "{who} did not offer the rematch within {seconds} s",
            "{who}: brak propozycji rewanżu w ciągu {seconds} s",
        ),
        (
            "You won on time: the opponent ran out of time",
            "Wygrana na czas: przeciwnikowi skończył się czas na ruch",
        ),
        (
            "your {types} is recorded in your log",
            "twoja wiadomość ({types}) jest w twoim zapisie gry",
        ),
        ("In full:", "Pełne zasady:"),
        (
            "ships may touch, never overlap",
            "statki mogą się stykać, ale nie mogą na siebie nachodzić",
        ),
        (
            "{who} is muted: their talk is kept in the log, not shown",
            "{who}: wyciszenie włączone; czat trafia do zapisu gry, ale nie jest pokazywany",
        ),
        ("{standing}: {result}", "{result} (ocena: {standing})"),
        ("; your fleet was {share}", "; twoja flota była {share}"),
        ("cannot send {message}: {detail}", "nie można wysłać wiadomości ({message}): {detail}"),
        ("{winner} won ({end})", "wygrywa {winner} ({end})"),
    ],
)
def test_a_line_the_tester_saw_reads_as_a_polish_player_says_it(english: str, polish: str) -> None:
    assert catalog("pl").gettext(english) == polish


def test_a_fleet_is_harder_to_find_not_it_is_harder_to_find() -> None:
    words = catalog("pl")
    line = words.ngettext(
        "harder to find than {share:.0%} of {fleets} random fleets (likely between {low:.0%} and "
        "{high:.0%})",
        "harder to find than {share:.0%} of {fleets} random fleets (likely between {low:.0%} and "
        "{high:.0%})",
        200,
    )
    assert line.startswith("trudniejsza do znalezienia niż "), line


def test_the_accuracy_says_shots_once() -> None:
    words = catalog("pl")
    line = words.gettext("Your shots: {accuracy}").format(
        accuracy=words.gettext(
            "{shots} shots, accuracy {n:.0f}% (the best square {best_shots} of {shots} times)"
        ).format(shots=66, n=78, best_shots=18)
    )
    assert line.count("strzał") == 1, line


def test_the_polish_catalog_quotes_the_polish_way() -> None:
    """„nowa” beside "historia" read as two hands; a straight or single quote is English."""
    english_quotes = [
        text
        for text in translations()
        if re.search("[\"'\N{LEFT DOUBLE QUOTATION MARK}\N{LEFT SINGLE QUOTATION MARK}]", text)
    ]
    assert not english_quotes, english_quotes


def test_the_analysis_names_its_strategy_in_polish_with_a_decimal_comma() -> None:
    difficulty = FleetDifficulty(55.5, (50, 57, 64), (55, 56))
    polish, english = difficulty.words(catalog("pl")), difficulty.words()
    assert "density" not in polish and "strategia gęstości" in polish, polish
    assert "55,5 strzału" in polish and "57,0 dla" in polish, polish
    assert "55.5 shots" in english and "57.0 for" in english, english


def test_a_fraction_is_written_with_the_readers_separator() -> None:
    assert decimal(0.25, 2, catalog("pl")) == "0,25"
    assert decimal(-1.5, 1) == "-1.5", "English, the default, as --json and the logs keep it"


def test_seconds_with_a_fraction_cross_the_control_socket_and_are_said_with_a_comma() -> None:
    """A daemon's phrase carries its seconds as a number to be said: the front end that
    reads it in Polish writes "60,5 s", not the daemon's "60.5 s"; a whole number stays
    whole."""
    crossed = phrase_from_map(phrase_map(not_back("Ala", 60_500)))
    assert "60,5 s" in crossed.in_words(catalog("pl")), crossed.in_words(catalog("pl"))
    assert "within 60.5 s" in str(crossed)
    assert "within 120 s" in str(not_back("Ala", 120_000))
    assert seconds_said(0.3).in_words(catalog("pl")) == "0,3"


def test_a_tournaments_rules_say_half_points_and_seconds_with_a_comma() -> None:
    rules = TournamentRules("classic", min_move_ms=90_500, points=Points(win=1, loss=0.5))
    speak("pl")
    try:
        said = rules_words(rules)
    finally:
        speak("en")
    assert "90,5 s" in said and "porażka 0,5" in said, said
    assert "90.5 s" in rules_words(rules) and "loss 0.5" in rules_words(rules)


def test_the_computer_and_its_role_share_one_pair_of_brackets() -> None:
    """``komputer (trudny) (gość)`` read as two asides; English keeps its words (--json)."""
    hard = COMPUTER_FINGERPRINTS["hard"]
    side = said_side("computer (hard)", hard, Role.GUEST)
    assert side.in_words(catalog("pl")) == "komputer (trudny, gość)"
    assert str(side) == "computer (hard) (guest)"
    assert said_side("Ala", hard, Role.HOST).in_words(catalog("pl")) == "Ala (gospodarz)"


def test_hit_and_sunk_is_said_one_way() -> None:
    assert not [text for text in translations() if "trafiony, zatopiony" in text]

"""The command line in Polish and in English: chosen by --lang or the locale, help at 80 columns.

Every command of the registry (``cli/commands.py``) prints its help in both
languages; a line wider than 80 columns fails, and so does a line of words
that reads the same in both (a help text nobody marked for translation).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Cli

from statki_net.ai.strategies import STRATEGIES
from statki_net.ai.strength import Strength
from statki_net.cli.commands import COMMANDS
from statki_net.game.rules import PRESETS

COLUMNS = 80
NAMES = {*PRESETS, *STRATEGIES, *(strength.value for strength in Strength), "tournament"}
"""Names a help lists as they are typed: the same in every language."""


SAME_IN_POLISH = {"N", "T", "I", "A", "B", "HOST", "PORT", "HEX", "ID"}
"""Placeholders a Polish help writes as the English one does (``--jobs N``, ``HOST:PORT``)."""


def placeholders(help_text: str) -> set[str]:
    """The placeholders of a help's usage (``--home DIR``, ``INVITE``): its capitals, the
    options and their choices being lowercase."""
    usage = help_text.split("\n\n", 1)[0]
    return set(re.findall(r"\b[A-Z][A-Z_]*\b", usage))


def helped(cli: Cli, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    finished = cli(*args, "--help")
    assert finished.returncode == 0, finished.stderr
    return finished.stdout


def wordy(line: str) -> bool:
    """A line with words a person reads: not the usage, not options, metavars and names."""
    if line.strip().startswith(("[", "usage", "użycie")):
        return False
    tokens = re.sub(r"\{[^}]*\}", " ", line).replace(",", " ").replace(")", " ").split()
    words = [
        token
        for token in tokens
        if re.fullmatch(r"\(?[a-ząćęłńóśźż]{3,}", token) and token.strip("(") not in NAMES
    ]
    return len(words) >= 2


@pytest.mark.parametrize("command", [command.name for command in COMMANDS])
def test_every_commands_help_fits_80_columns_in_both_languages(
    command: str, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    english = helped(cli, monkeypatch, "--lang", "en", command)
    polish = helped(cli, monkeypatch, "--lang", "pl", command)
    for text in (english, polish):
        wide = [line for line in text.splitlines() if len(line) > COLUMNS]
        assert not wide, f"wider than {COLUMNS} columns: {wide}"
    assert "opcje:" in polish and "użycie: statki " in polish
    same = [line for line in polish.splitlines() if wordy(line) and line in english.splitlines()]
    assert not same, f"{command}: the same in both languages: {same}"
    english_placeholders = [
        word
        for word in sorted(placeholders(english) - SAME_IN_POLISH)
        if re.search(rf"(?<![\w$]){word}(?!\w)", polish)
    ]
    assert not english_placeholders, f"{command}: English placeholders: {english_placeholders}"
    assert placeholders(english) - SAME_IN_POLISH, "a help with no placeholder to check"


def test_the_top_level_help_lists_every_command_in_polish(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    polish = helped(cli, monkeypatch, "--lang", "pl")
    assert "graj z komputerem" in polish and "sprawdź zapisy gier jak sędzia" in polish
    assert "--lang {en,pl}" in polish
    english = helped(cli, monkeypatch, "--lang", "en")
    same = [line for line in polish.splitlines() if wordy(line) and line in english.splitlines()]
    assert not same, f"the same in both languages: {same}"  # --version's help was
    assert "--home KATALOG" in polish and "POLECENIE ..." in polish, polish


def test_the_locale_chooses_the_language_and_lang_overrides_it(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "pl_PL.UTF-8")
    assert "graj z komputerem" in helped(cli, monkeypatch)
    assert "play against the computer" in helped(cli, monkeypatch, "--lang", "en")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")  # neither: English
    assert "play against the computer" in helped(cli, monkeypatch)


@pytest.mark.parametrize(
    "args",
    [
        ("play", "--lang", "pl"),
        ("verify", "--lang=pl"),
        ("--lang", "en", "history", "--lang", "pl"),
        ("--home", "/nonexistent", "play", "--home", "/nonexistent", "--lang", "pl"),
    ],
)
def test_lang_after_the_command_chooses_as_before_it(
    args: tuple[str, ...], cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``--home`` does, ``--lang`` works after the command too: the last one given
    speaks (a few ms each: the help only)."""
    polish = helped(cli, monkeypatch, *args)
    assert "opcje:" in polish and "użycie: statki " in polish
    english = helped(cli, monkeypatch, *args[:-1], "en") if args[-1] == "pl" else None
    assert english is None or "options:" in english


def test_an_error_is_said_in_polish_and_the_exit_code_is_the_same(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    english = cli("--lang", "en", "play", "--strength", "nie")
    polish = cli("--lang", "pl", "play", "--strength", "nie")
    assert english.returncode == polish.returncode == 2
    assert "invalid choice" in english.stderr
    assert "nieprawidłowy wybór" in polish.stderr and "błąd" in polish.stderr


def test_json_stays_english_whatever_the_language(cli: Cli) -> None:
    english = cli("--lang", "en", "history", "--json")
    polish = cli("--lang", "pl", "history", "--json")
    assert english.returncode == polish.returncode == 0
    assert english.stdout == polish.stdout


EVERY_SQUARE = "".join(f"{column}{row}\n" for row in range(1, 11) for column in "ABCDEFGHIJ")


def test_a_whole_game_at_the_line_prompt_in_polish(cli: Cli) -> None:
    """The line prompt's screens, prompts, answers and verdict in the players' words; the
    log it writes is the same kind of file as in English (its path says so on stderr)."""
    done = cli("--lang", "pl", "play", "--plain", "--seed", "3", stdin="\n" + EVERY_SQUARE)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Twoja flota" in out and "czteromasztowiec" in out, "the set-up screen"
    assert "Morze przeciwnika" in out and "TWÓJ RUCH" in out, "the battle screen"
    assert "pudło" in out and "trafiony" in out
    assert re.search(r"^ (Wygrana|Przegrana): ", out, re.M), out[-2000:]
    assert "strzał> " in out
    # The log's path whole, on a line of its own where the line would not fit.
    assert done.stderr.startswith("statki: zapis gry w") and done.stderr.strip().endswith(".statki")
    # The history of that game, in the same words (a few ms: one SQLite read each).
    history = cli("history", "--lang", "pl").stdout
    assert re.search(r"^\S+ \S+  (wygrana|przegrana) \(zatopienie\)  classic", history, re.M)
    assert re.search(r"^    przeciwnik: komputer", history, re.M), history
    assert "jako gospodarz  strzały " in history and history.endswith("1 gra\n")
    stats = cli("stats", "--lang", "pl").stdout
    assert re.search(r"^wszystkie gry: [01] : [01] \((prowadzisz|prowadzi przeciwnik)", stats)


def test_selfplay_sums_up_in_polish(cli: Cli) -> None:
    """One game between two computers over loopback (about a second)."""
    done = cli("selfplay", "--games", "1", "--seed", "5", "--lang", "pl")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["zasady: classic", "gry: 1"]
    assert lines[2].startswith("wygrane: gospodarz ") and ", bez zwycięzcy 0" in lines[2]
    assert lines[3].startswith("średnio strzałów na grę: gospodarz ")
    assert lines[4].startswith("gier na sekundę: ")


LOGS = str(Path(__file__).resolve().parent.parent.parent / "protocol" / "logs")


def test_the_tournament_in_polish_as_a_referee_writes_it(cli: Cli) -> None:
    """The terminal table and the HTML page in the players' words; ``--json`` the same in
    both languages.  The real logs of protocol/ (43 of them): a second or two."""
    polish = cli("--lang", "pl", "tournament", LOGS)
    assert polish.stderr == "" and polish.returncode == 1, "some of its games are disputed"
    text = polish.stdout
    for said in (
        "Turniej: partie: 29, zapisy: 45; liczone: 1, odłożone: 28",
        "Tabela (przy równych punktach decydują: bezpośrednie pojedynki, zwycięstwa,",
        "  #  Gracz          Par  Zw Por  Pkt   zat podd czas walk  osz Bezp    SB   Strz",
        "Ranking (Glicko-2, partia po partii w kolejności rozegrania), od najlepszego",
        "Tabela krzyżowa (punkty wiersza przeciw kolumnie, partia po partii)",
        "Odłożone, nieliczone",
        "Ala \N{EN DASH} Olek: rozegrana ponownie: Ala i Olek mogą zagrać ze",
    ):
        assert said in text, said
    assert all(len(line) <= COLUMNS for line in text.splitlines())
    english_run = cli("--lang", "en", "tournament", LOGS)
    english = english_run.stdout
    assert english_run.returncode == polish.returncode
    assert "Standings (ties: head-to-head, wins," in english and "Gracz" not in english
    page = cli("tournament", LOGS, "--html", "--lang", "pl").stdout
    assert '<html lang="pl">' in page and "<h2>Tabela krzyżowa</h2>" in page
    assert '<th class="name">Gracz</th>' in page and "<h1>Turniej</h1>" in page
    as_json = [cli("--lang", lang, "tournament", LOGS, "--json").stdout for lang in ("en", "pl")]
    assert as_json[0] == as_json[1]

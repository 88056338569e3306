"""The lines the commands print for a person fit an 80-column terminal in both languages
(a tester's finding: ``statki stats`` ran a tally to 101 columns, which the terminal cut
mid-word, "wygry" / "wasz 0%"), and they still say everything: wrapped, never cut."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Cli
from test_cli_history import fill

from statki_net.store.language import speak

COLUMNS = 80


def _fits(printed: str) -> list[str]:
    lines = printed.splitlines()
    assert all(len(line) <= COLUMNS for line in lines), [
        line for line in lines if len(line) > COLUMNS
    ]
    return lines


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    yield
    speak("en")


@pytest.mark.parametrize("language", ["en", "pl"])
def test_stats_fit_80_columns_and_say_every_tally_whole(
    cli: Cli, tmp_path: Path, language: str
) -> None:
    fill(tmp_path / "home")
    done = cli("--lang", language, "stats")
    assert done.returncode == 0, done.stderr
    lines = _fits(done.stdout)
    # Zosia's tally, the longest, runs on to an indented line and says all it said.
    at = next(i for i, line in enumerate(lines) if line.startswith("  Zosia ["))
    assert lines[at + 1].startswith("    "), lines
    tally = " ".join(line.strip() for line in lines[at : at + 2])
    without = "1 without a winner" if language == "en" else "bez zwycięzcy: 1"
    assert tally.endswith(without), tally


@pytest.mark.parametrize(
    ("language", "one", "many"), [("en", "1 game", "5 games"), ("pl", "1 gra", "5 gier")]
)
def test_history_counts_its_games_in_the_readers_plural(
    cli: Cli, tmp_path: Path, language: str, one: str, many: str
) -> None:
    """English said "5 game(s)", as a form does, not as a person would."""
    fill(tmp_path / "home")
    done = cli("--lang", language, "history")
    assert done.returncode == 0, done.stderr
    assert _fits(done.stdout)[-1] == many
    stats = cli("--lang", language, "stats").stdout
    assert f"; {one}\n" in stats and "(s)" not in stats, stats


def test_resume_names_its_argument_in_the_readers_language(cli: Cli) -> None:
    """The Polish hint said "statki resume GAME … (GAME to jej identyfikator…)", GAME in
    English; the hint and the command's help now name it alike, in Polish ID."""
    from statki_net.store.language import catalog

    hint = catalog("pl").gettext(
        "statki resume GAME picks one up (its id, or its first characters)"
    )
    assert "GAME" not in hint and hint.startswith("statki resume ID "), hint
    usage = cli("--lang", "pl", "resume", "--help").stdout
    assert "[ID]" in usage and "GAME" not in usage, usage


def test_an_indented_line_keeps_its_indentation_and_runs_on_under_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report's ``  result: …`` line ran on at the left edge, apart from its item."""
    from statki_net.cli.told import tell

    monkeypatch.setenv("COLUMNS", "40")
    tell("  result: " + "the opponent went away " * 4 + "\nunindented " * 2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("  result: ") and len(lines) > 3, lines
    runs_on = lines[1 : lines.index("unindented")]
    assert runs_on and all(line.startswith("    ") for line in runs_on), lines
    assert all(len(line) <= 40 for line in lines), lines


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_verify_report_fits_80_columns_each_item_indented_under_its_own(
    cli: Cli, language: str
) -> None:
    """The result of a forfeit ran to 110 columns, cut by the terminal mid-word."""
    log = Path(__file__).parents[2] / "protocol" / "logs" / "aborted.statki"
    done = cli("--lang", language, "verify", str(log))
    assert done.returncode == 0, done.stderr
    lines = _fits(done.stdout)
    said = "  result: " if language == "en" else "  wynik: "
    at = next(i for i, line in enumerate(lines) if line.startswith(said))
    assert lines[at + 1].startswith("    "), lines  # the result runs on under itself
    assert "(bad-shot: 2" in " ".join(line.strip() for line in lines[at : at + 3]), lines

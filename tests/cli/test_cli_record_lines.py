"""``statki record`` as a tester found it wanting: a salvo's volley ran to 155 columns, in
the PDF justified prose with "trafiony / zatopiony" split across lines; no word on what the
boards' symbols mean, nor on the game's date; ``--pdf`` printed the whole record on the
terminal too; and a damaged log was recorded with exit status 0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Cli
from test_cli_paper import pages

from statki_net.store.language import speak

LOGS = Path(__file__).parents[2] / "protocol" / "logs"
SALVO = LOGS / "honest-salvo.statki"
COUNTED = LOGS / "honest-salvo-count.statki"
CLASSIC = LOGS / "honest-classic.statki"
SUNK = {"en": "sunk", "pl": "trafiony zatopiony"}


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def _volleys(lines: list[str]) -> list[list[str]]:
    """The list of shots, a volley's rows together."""
    start = next(i for i, line in enumerate(lines) if re.match(r"\s+1\. ", line))
    volleys: list[list[str]] = []
    for line in lines[start:]:
        if not line:
            break
        if re.match(r"\s+\d+\. ", line):
            volleys.append([])
        volleys[-1].append(line)
    return volleys


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_salvo_record_lists_each_square_beside_its_answer_in_80_columns(
    cli: Cli, language: str
) -> None:
    done = cli("--lang", language, "record", str(SALVO))
    speak("en")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    first = _volleys(lines)[0]
    assert len(first) == 10, first  # ten ships afloat, ten squares, a row each
    square_at = first[0].index("F10")
    assert all(re.fullmatch(r"[A-J]\d{1,2}", row[square_at:].split()[0]) for row in first), first
    answers = [row[square_at:].split(maxsplit=1)[1] for row in first]
    assert answers.count(SUNK[language]) == 2, answers
    assert re.match(r"Played on \d{4}-\d\d-\d\d \d\d:\d\d UTC$|Rozegrana ", lines[1]), lines[1]


def test_a_volley_answered_by_its_count_keeps_its_squares_in_rows(cli: Cli) -> None:
    done = cli("record", str(COUNTED))
    lines = done.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    first = _volleys(lines)[0]
    assert first[0].endswith(" 4 hits") and len(first) == 2, first


def test_the_pdf_keeps_a_salvos_rows_and_the_terminal_is_told_where_it_is(
    cli: Cli, tmp_path: Path
) -> None:
    pdf = tmp_path / "salwa.pdf"
    done = cli("--lang", "pl", "record", str(SALVO), "--pdf", str(pdf))
    speak("en")
    assert done.returncode == 0, done.stderr
    assert " ".join(done.stdout.split()) == f"zapisano przebieg gry: {pdf}", done.stdout
    text = "\n".join(page for _, page in pages(pdf))
    read = [" ".join(line.split()) for line in text.splitlines()]
    record = cli("--lang", "pl", "record", str(SALVO)).stdout
    speak("en")
    # Each sinking shot's answer whole on its row, never "trafiony" / "zatopiony" apart.
    sunk = [line for line in read if re.fullmatch(r"(\d+\. .* )?[A-J]\d+ trafiony zatopiony", line)]
    assert len(sunk) == record.count(" trafiony zatopiony") > 0, read
    assert not any(line.startswith("zatopiony") for line in read), read
    assert "Na planszach: # statek x trafiony @ zatopiony o pudło" in " ".join(read)


@pytest.mark.parametrize("cut", [900, 3000])
def test_a_damaged_log_is_recorded_as_far_as_it_goes_and_said_so(
    cli: Cli, tmp_path: Path, cut: int
) -> None:
    """As ``verify`` does: status 1 and a line on stderr; what could be read on stdout."""
    log = tmp_path / "cut.statki"
    log.write_bytes(CLASSIC.read_bytes()[:cut])
    done = cli("record", str(log))
    assert done.returncode == 1, done
    assert done.stdout.startswith("statki: the record of game "), done.stdout
    [said] = done.stderr.splitlines()
    assert said.startswith(f"statki: {log}: not the record of a finished game: "), said
    whole = cli("record", str(CLASSIC))
    assert whole.returncode == 0 and not whole.stderr, whole

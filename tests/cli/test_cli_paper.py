"""``statki sheet`` and ``statki record`` on real files: the PDF's pages and text, read back.

The PDFs are read with pypdf (the test extras), as a reader would see them:
A4 pages, and the words and coordinates on them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import msgpack
from conftest import Cli
from peers import log_bytes, make_pair, play
from pypdf import PdfReader
from test_cli_verify import cheating_log, honest_log

from statki_net.game.rules import PRESETS, Ruleset
from statki_net.protocol.logformat import MAGIC, read_log
from statki_net.referee.verify import replay_log

A4_POINTS = (595.28, 841.89)
LETTERS = " ".join("ABCDEFGHIJ")


def pages(path: Path) -> list[tuple[tuple[float, float], str]]:
    """Each page's size in points and its text."""
    reader = PdfReader(path)
    return [
        ((round(float(p.mediabox.width), 2), round(float(p.mediabox.height), 2)), p.extract_text())
        for p in reader.pages
    ]


def test_the_sheet_is_one_a4_page_with_two_games_of_two_boards(cli: Cli, tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.pdf"
    done = cli("sheet", "-o", str(sheet))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {sheet}: two games of classic on one A4 page\n"
    [(size, text)] = pages(sheet)
    assert size == A4_POINTS
    assert text.count("Your sea") == 2 and text.count("The opponent's sea") == 2
    assert text.count(LETTERS) == 4, "letters over the columns of every board"
    rows = [line.strip() for line in text.splitlines()]
    assert all(rows.count(str(row)) == 4 for row in range(1, 11)), "numbers beside the rows"
    assert "Fleet: 1 x 4-mast ship, 2 x 3-mast ship, 3 x 2-mast ship, 4 x 1-mast ship." in text
    assert "ships never touch, not even at a corner" in text


def test_a_sheet_names_the_ships_of_rules_that_name_them(cli: Cli, tmp_path: Path) -> None:
    sheet = tmp_path / "five.pdf"
    assert cli("sheet", "--rules", "five-ships", "-o", str(sheet)).returncode == 0
    [(size, text)] = pages(sheet)
    assert size == A4_POINTS
    assert "Fleet: " + ", ".join(PRESETS["five-ships"].names) + "." in " ".join(text.split())


def test_a_bigger_board_still_fits_across_the_page(tmp_path: Path) -> None:
    from statki_net.cli.paper import sheet_pdf

    sheet = tmp_path / "twelve.pdf"
    sheet.write_bytes(sheet_pdf(Ruleset(size=12, fleet=(5, 4, 3, 3, 2))))
    [(size, text)] = pages(sheet)
    assert size == A4_POINTS and text.count(" ".join("ABCDEFGHIJKL")) == 4
    where: list[float] = []
    PdfReader(sheet).pages[0].extract_text(
        visitor_text=lambda text, cm, tm, font, points: (
            where.append(tm[4]) if text.strip() == "L" else None
        )
    )
    assert len(where) == 2 * 2 and max(where) < A4_POINTS[0] - 15, "the last column on the page"


def test_the_record_tells_the_fleets_every_shot_and_the_verdict(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "game.statki"
    log.write_bytes(honest_log(51))
    pdf = tmp_path / "record.pdf"
    written = cli("record", str(log), "--pdf", str(pdf))
    assert written.returncode == 0, written.stderr
    # The PDF alone: the terminal is told where it went, not the whole record again.
    assert " ".join(written.stdout.split()) == f"wrote the record to {pdf}", written.stdout
    done = cli("record", str(log))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("statki: the record of game ")
    # The heading says the role; beside the name it said it twice ("Host: Ala (host)").
    assert any(line.startswith("Host: Ala [") for line in lines)
    assert any(line.startswith("Guest: Olek [") for line in lines)
    assert "  # ship  x hit  @ sunk  o miss  - known empty  . not shot at" in lines
    assert "Ala (host)'s fleet:" in lines and "Olek (guest)'s fleet:" in lines
    assert sum(line.startswith("  Ships: ") for line in lines) == 2
    shots = [line for line in lines if re.match(r"\s+\d+\. ", line)]
    assert [int(line.split(".")[0]) for line in shots] == [1, 2, 3, 4]
    assert all(line.split()[-1] in ("miss", "hit", "sunk") for line in shots)
    verdict = lines[lines.index("", -4) + 1 :]
    assert " ".join(" ".join(verdict).split()) == (
        "Verdict: valid: Olek (guest) won: Ala (host) resigned; classic; shots host 2, guest 2"
    )
    assert all(len(line) <= 80 for line in lines), "the verdict wraps at 80 columns"
    text = "\n".join(text for _, text in pages(pdf))
    assert all(size == A4_POINTS for size, _ in pages(pdf))
    for line in (lines[0], *shots, *verdict):
        assert " ".join(line.split()) in " ".join(text.split()), line


def test_a_long_record_goes_on_over_pages(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "cheat.statki"
    log.write_bytes(cheating_log())
    pdf = tmp_path / "record.pdf"
    done = cli("record", str(log), "--pdf", str(pdf))
    assert done.returncode == 0, done.stderr  # a finished game, its cheat found: all told
    assert pdf.name in done.stdout
    read = pages(pdf)
    assert "Verdict: invalid: Ala (host) won: Olek (guest) cheated" in " ".join(
        " ".join(text for _, text in read).split()
    )
    assert len(read) >= 1 and "Verdict: invalid" in read[-1][1]


POLISH_LETTERS = "ąćęłńóśźż"


def test_the_polish_sheet_speaks_the_players_words_with_their_letters(
    cli: Cli, tmp_path: Path
) -> None:
    """In a Unicode font (fpdf2's own are Latin-1): the text read back keeps ą, ę, ó, ż."""
    sheet = tmp_path / "arkusz.pdf"
    done = cli("sheet", "--lang", "pl", "-o", str(sheet))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"zapisano {sheet}: dwie gry (classic) na jednej stronie A4\n"
    [(size, text)] = pages(sheet)
    assert size == A4_POINTS
    assert text.count("Twoje morze") == 2 and text.count("Morze przeciwnika") == 2
    assert text.count(LETTERS) == 4, "the letters stay A-J"
    flat = " ".join(text.split())
    assert (
        "Flota: 1 x czteromasztowiec, 2 x trójmasztowce, 3 x dwumasztowce, 4 x jednomasztowce."
        in flat
    )
    assert "statki nigdy się nie stykają, nawet rogami" in flat
    assert "„trafiony zatopiony”" in flat and "Zatopione statki:" in flat
    assert {letter for letter in POLISH_LETTERS if letter in text} >= set("ąęłóźż")


def test_the_polish_record_on_paper_keeps_every_line_and_letter(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "gra.statki"
    log.write_bytes(honest_log(51))
    pdf = tmp_path / "zapis.pdf"
    written = cli("record", str(log), "--pdf", str(pdf), "--lang", "pl")
    assert written.returncode == 0, written.stderr
    assert written.stdout.startswith("zapisano przebieg gry:"), written.stdout
    done = cli("record", str(log), "--lang", "pl")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("statki: przebieg gry ")
    assert any(line.startswith("Gospodarz: Ala [") for line in lines)
    assert lines[lines.index("Na planszach:") + 1].startswith("  # statek  x trafiony  @ zatopiony")
    assert "Flota \N{EN DASH} Olek (gość):" in lines
    assert sum(line.startswith("  Statki: ") for line in lines) == 2
    shots = [line for line in lines if re.match(r"\s+\d+\. ", line)]
    assert all(line.split()[-1] in ("pudło", "trafiony", "zatopiony") for line in shots)
    assert lines[-2:] == [
        "Werdykt: Olek (gość) wygrywa: Ala (gospodarz) się poddaje (ocena: ważna);",
        "  classic; strzały: gospodarz 2, gość 2",
    ], "wrapped at 80 columns, between words"
    text = " ".join(" ".join(text for _, text in pages(pdf)).split())
    for line in (lines[0], *shots, *lines[-2:]):
        assert " ".join(line.split()) in text, line


def test_a_player_without_a_name_is_unnamed_in_the_record(cli: Cli, tmp_path: Path) -> None:
    """A new player who gave no name read "Host: the host (host)" in their record."""
    pair = make_pair(PRESETS["classic"], seed=51)
    pair.host.name = ""
    play(pair, seed=52, resign_at=5)
    log = tmp_path / "game.statki"
    log.write_bytes(log_bytes(pair.host))
    lines = cli("record", str(log)).stdout.splitlines()
    assert any(line.startswith("Host: unnamed [") for line in lines), lines


def test_the_record_dates_a_game_by_its_signed_hello_not_the_log_s_header(
    cli: Cli, tmp_path: Path
) -> None:
    """A referee's check: the header's "started", the writer's word alone, was printed as
    "Played on"; edited, verify still said valid."""
    original = Path(__file__).resolve().parents[2] / "protocol/logs/honest-classic.statki"
    data = original.read_bytes()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data[len(MAGIC) :])
    header = unpacker.unpack()
    rest = data[len(MAGIC) + unpacker.tell() :]
    edited = tmp_path / "edited.statki"
    edited.write_bytes(MAGIC + msgpack.packb({**header, "started": 86_400_000 * 365}) + rest)
    hello_at = replay_log(read_log(data))[0].frames[0].header.at
    when = datetime.fromtimestamp(hello_at / 1000, UTC).strftime("%Y-%m-%d %H:%M")
    done = cli("record", str(edited))
    assert done.returncode == 0, done.stderr
    assert f"Played on {when} UTC" in done.stdout, done.stdout[:300]

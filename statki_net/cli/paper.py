"""``statki sheet`` and ``statki record``: the game on paper, and a game kept on paper.

``sheet`` writes an A4 PDF to play on paper as the players' own rules tell
it: for each of two games, your sea and the opponent's sea, ten by ten,
letters A-J over the columns and numbers 1-10 beside the rows, and the fleet
to tick off.  ``record LOG`` prints a finished game as a person reads it
(``statki_net.referee.record``), and with ``--pdf FILE`` writes the same on
A4, both in the language statki speaks.  The PDF is made with fpdf2: pure
Python, kept up.  Its own fonts (Helvetica, Courier) are Latin-1 only, with no
ą ć ę ł ń ó ś ź ż, so the text is set in DejaVu Sans (and DejaVu Sans Mono for
the record, whose boards need a typewriter's columns), TrueType fonts Debian
ships in fonts-dejavu-core, embedded in the PDF.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from statki_net.cli.common import EXIT_FOUND, EXIT_OK, Metavar, Subcommands, rules_argument
from statki_net.cli.told import tell_copyable, tell_error
from statki_net.game.errors import UsageError
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.game.rules_words import describe
from statki_net.store.language import _, ngettext, words
from statki_net.store.userfile import write_user_file

if TYPE_CHECKING:
    from fpdf import FPDF

SHEET_FILE = "statki-sheet.pdf"
MAX_DATE_MS = 253_402_300_799_000
"""The last moment of year 9999: a header's time past it is no date."""
MARGIN = 15.0
"""Millimetres of white around the page's content."""
CELL = 7.0
"""Millimetres a square of the sheet's boards measures on the classic board (a notebook's
two squares are 10); a bigger board gets smaller squares, so two boards fit across."""
A4_WIDTH = 210.0
BOARD_GAP = 12.0
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
"""Where Debian's fonts-dejavu-core puts its fonts."""
FONTS = {
    ("sans", ""): "DejaVuSans.ttf",
    ("sans", "B"): "DejaVuSans-Bold.ttf",
    ("mono", ""): "DejaVuSansMono.ttf",
}
"""The font families and styles the PDFs use, and their files."""


def add(commands: Subcommands) -> None:
    sheet = commands.add_parser("sheet")
    rules_argument(sheet)
    sheet.add_argument(
        "--output",
        "-o",
        default=SHEET_FILE,
        metavar=_(Metavar.FILE),
        help=_("the PDF to write (default {SHEET_FILE})").format(SHEET_FILE=SHEET_FILE),
    )
    sheet.set_defaults(run=_sheet)
    record = commands.add_parser("record")
    record.add_argument("log", metavar=_(Metavar.LOG), help=_("the log of a game"))
    record.add_argument(
        "--pdf", metavar=_(Metavar.FILE), help=_("write the record to FILE, on A4, instead")
    )
    record.set_defaults(run=_record)


# ---------------------------------------------------------------- the sheet


def _sheet(args: argparse.Namespace) -> int:
    rules = ruleset_named(args.rules)
    write_user_file(args.output, sheet_pdf(rules))
    print(
        _("wrote {output}: two games of {name} on one A4 page").format(
            output=args.output, name=describe(rules, words()).name
        )
    )
    return EXIT_OK


def sheet_pdf(rules: Ruleset) -> bytes:
    """One A4 page: two games, each your sea beside the opponent's, and the fleet to tick."""
    pdf = _a4()
    pdf.add_page()
    pdf.set_font("sans", "B", 16)
    pdf.cell(0, 8, _("statki: Battleship on squared paper"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("sans", "", 9)
    said = describe(rules, words())
    pdf.multi_cell(
        0,
        5,
        _("Rules: {name}.").format(name=said.name) + " " + "; ".join(said.lines) + ".",
        align="L",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    pdf.ln(3)
    cell = min(CELL, (A4_WIDTH - 2 * MARGIN - BOARD_GAP) / 2 / (rules.size + 1))
    board = cell * (rules.size + 1)
    for game in (1, 2):
        top = pdf.get_y()
        pdf.set_font("sans", "B", 11)
        pdf.cell(
            0,
            6,
            _("Game {game}.  Opponent: ____________________   Date: __________").format(game=game),
        )
        top += 9
        for column, title in enumerate((_("Your sea"), _("The opponent's sea"))):
            left = MARGIN + column * (board + BOARD_GAP)
            _board(pdf, rules.size, cell, left, top + 6, title)
        _fleet_tally(pdf, rules, MARGIN, top + 6 + board + 3)
        pdf.set_y(top + 6 + board + 18)
    pdf.set_font("sans", "", 8)
    pdf.multi_cell(
        0,
        4,
        _(
            "Say each shot as its square, letter first: D5.  The answer is miss, hit, or sunk.  "
            "Mark a miss with a dot and a hit with a cross on the opponent's sea; mark their "
            "shots on your own.  A shot at a square shot before counts as a miss."
        ),
    )
    return bytes(pdf.output())


def _board(pdf: FPDF, size: int, cell: float, left: float, top: float, title: str) -> None:
    """A square board with its title, letters over the columns and numbers beside the rows."""
    pdf.set_font("sans", "B", 10)
    pdf.text(left, top - 2, title)
    pdf.set_font("sans", "", 9)
    for column in range(size):
        x = left + cell * (column + 1)
        pdf.set_xy(x, top)
        pdf.cell(cell, cell, chr(ord("A") + column), align="C")
    for row in range(size):
        y = top + cell * (row + 1)
        pdf.set_xy(left, y)
        pdf.cell(cell, cell, str(row + 1), align="C")
    pdf.set_line_width(0.2)
    for row in range(size):
        for column in range(size):
            pdf.rect(left + cell * (column + 1), top + cell * (row + 1), cell, cell)
    pdf.set_line_width(0.5)
    pdf.rect(left + cell, top + cell, cell * size, cell * size)


def _fleet_tally(pdf: FPDF, rules: Ruleset, left: float, top: float) -> None:
    """The fleet, a box per ship: ticked once it is drawn, crossed once it sinks."""
    pdf.set_font("sans", "", 9)
    pdf.set_xy(left, top)
    counts: dict[int, int] = {}
    for length in rules.fleet:
        counts[length] = counts.get(length, 0) + 1
    parts = [_ships_of(length, count) for length, count in counts.items()]
    if rules.names:
        parts = list(rules.names)
    pdf.multi_cell(0, 4.5, _("Fleet: {ships}.").format(ships=", ".join(parts)))
    pdf.set_x(left)
    boxes = "   ".join("[  ]" for __ in rules.fleet)
    pdf.cell(0, 4.5, _("Ships sunk: {boxes}").format(boxes=boxes))


def _ships_of(length: int, count: int) -> str:
    """``2 x 3-mast ship``; in Polish the players' own names: ``2 x trójmasztowiec``."""
    named = {
        1: ngettext("{n} x 1-mast ship", "{n} x 1-mast ship", count),
        2: ngettext("{n} x 2-mast ship", "{n} x 2-mast ship", count),
        3: ngettext("{n} x 3-mast ship", "{n} x 3-mast ship", count),
        4: ngettext("{n} x 4-mast ship", "{n} x 4-mast ship", count),
    }
    if length in named:
        return named[length].format(n=count)
    return ngettext("{n} x {length}-mast ship", "{n} x {length}-mast ship", count).format(
        n=count, length=length
    )


# ---------------------------------------------------------------- the record


def _record(args: argparse.Namespace) -> int:
    # Here, not at the top: the sheet needs no referee.
    from statki_net.cli.verify import read_named_log
    from statki_net.referee.record import game_record
    from statki_net.referee.verify import NamedLog, judge_game, replay_log

    contents = read_named_log(args.log)
    transcript, __ = replay_log(contents)
    judgement = judge_game([NamedLog(args.log, contents)])
    # The host's hello's time, signed, as the tournament dates a game (the header's
    # "started" is the writer's word alone: edited, verify still said valid); a log with
    # no frame falls back on it, for people only.
    started = (
        transcript.frames[0].header.at if transcript.frames else contents.header.get("started")
    )
    when = started if isinstance(started, int) and not isinstance(started, bool) else None
    played = None
    if when is not None and 0 < when < MAX_DATE_MS:
        played = datetime.fromtimestamp(when / 1000, UTC).strftime("%Y-%m-%d %H:%M")
    lines = game_record(transcript, judgement, words(), played).lines()
    if args.pdf:  # the record goes to the file; the terminal is told where it went
        write_user_file(args.pdf, record_pdf(lines))
        tell_copyable(_("wrote the record to {path}"), args.pdf)
    else:
        print("\n".join(lines))
    if judgement.ending is not None and contents.damage is None:
        return EXIT_OK  # a finished game, cheats and all: its record is whole
    # What could be read is recorded; a referee must not take it for a finished game.
    tell_error(
        _("statki: {log}: not the record of a finished game: {standing}").format(
            log=args.log, standing=judgement.standing_words(words())
        )
    )
    return EXIT_FOUND


def record_pdf(lines: list[str]) -> bytes:
    """The record's lines on A4 pages, in a typewriter's font so the boards keep their
    squares and the shots their columns: each line as it is, never justified."""
    pdf = _a4()
    pdf.add_page()
    pdf.set_font("sans", "B", 13)
    pdf.cell(0, 7, lines[0], new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("mono", "", 9)
    for line in lines[1:]:
        pdf.multi_cell(0, 4, line or " ", align="L", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def _a4() -> FPDF:
    from fpdf import FPDF  # loaded for the commands that write a PDF only

    pdf = FPDF(orientation="portrait", unit="mm", format="A4")
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(auto=True, margin=MARGIN)
    pdf.set_creator("statki")
    for (family, style), name in FONTS.items():
        if not (FONT_DIR / name).is_file():
            raise UsageError(
                _("{font} is missing: install Debian's fonts-dejavu-core").format(
                    font=FONT_DIR / name
                )
            )
        pdf.add_font(family, style, str(FONT_DIR / name))
    return pdf

"""A finished game as a record a person reads: who played, both fleets, every shot, the verdict.

What ``statki record LOG`` prints, and what its PDF holds, in one place: a
``GameRecord`` of plain values built from the log's transcript and the
referee's judgement, and its lines of text.  Pure: values in, values out.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from statki_net.game.battle import Defence
from statki_net.game.board import square_name
from statki_net.game.fleet import ship_text
from statki_net.game.names import said_name
from statki_net.game.picture import DEFENCE_LEGEND, defence_lines
from statki_net.game.replay import Volley
from statki_net.game.rules_words import describe
from statki_net.game.words import ENGLISH, Words
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.report import UNNAMED, Judgement, fingerprint, said_side

WIDTH = 80
"""The record's widest line of words: a terminal's, so the verdict is not cut (it was 110)."""
VERDICT_WRAP: dict[str, Any] = {
    "subsequent_indent": "  ",
    "break_long_words": False,
    "break_on_hyphens": False,
}
"""Wrapped between words only: a name or a fingerprint stays whole."""

SHOT_WIDTH = 4
"""Columns for a square in the list of shots (``J10``, and one between it and its answer)."""
COUNTED_PER_ROW = 5
"""Squares on a row of a volley answered only by its count (``report = count``)."""


@dataclass(frozen=True)
class Shot:
    """One volley of the game, numbered in the order it was fired: a row for each square
    and its answer, so that a salvo's squares and answers stay in their columns (in one
    line they ran past the page, "trafiony / zatopiony" split across two)."""

    number: int
    shooter: str
    rows: tuple[tuple[str, str], ...]
    """The squares and the answer of each row; a volley answered by its count has its
    squares on rows of ``COUNTED_PER_ROW``, the count beside the first."""


@dataclass(frozen=True)
class FleetRecord:
    """One side's fleet as its log shows it: drawn with the other's shots, and ship by ship."""

    player: str
    board: tuple[str, ...]
    """The board as text, the opponent's shots on it; empty when the fleet was not revealed."""
    ships: tuple[str, ...]
    """Each ship as ``B2-E2``, in the rules' order."""


@dataclass(frozen=True)
class GameRecord:
    title: str
    rules: tuple[str, ...]
    players: tuple[str, str]
    fleets: tuple[FleetRecord, FleetRecord]
    shots: tuple[Shot, ...]
    verdict: str
    words: Words = ENGLISH
    played: str | None = None
    """When the game began, as a person reads it (its log's header says it; the shell
    puts it in words, the core reads no clock and formats no dates); None if not known."""
    """The language the record was put into words in: its headings follow it."""

    def lines(self) -> list[str]:
        """The record as text, a line each: what ``statki record`` prints."""
        _ = self.words.gettext
        out = [self.title]
        if self.played is not None:
            out.append(_("Played on {date} UTC").format(date=self.played))
        out += ["", *self.rules, "", *self.players, ""]
        for fleet in self.fleets:
            out.append(_("{player}'s fleet:").format(player=fleet.player))
            if fleet.board:
                out += ["  " + line for line in fleet.board]
                out.append(_("  Ships: {ships}").format(ships=", ".join(fleet.ships)))
            else:
                out.append(_("  The fleet was never revealed."))
            out.append("")
        if any(fleet.board for fleet in self.fleets):
            out += [_("On the boards:"), "  " + _(DEFENCE_LEGEND), ""]
        out.append(_("Shots ({n}), each with its answer:").format(n=len(self.shots)))
        width = max((len(shot.shooter) for shot in self.shots), default=0)
        squares = max((len(row[0]) for shot in self.shots for row in shot.rows), default=0)
        squares = max(squares, SHOT_WIDTH - 1)
        for shot in self.shots:
            head = f"  {shot.number:>3}. {shot.shooter:<{width}}  "
            for at, (square, answer) in enumerate(shot.rows):
                lead = head if at == 0 else " " * len(head)
                out.append(f"{lead}{square:<{squares}} {answer}".rstrip())
        if not self.shots:
            out.append(_("  No shot was fired."))
        verdict = _("Verdict: {verdict}").format(verdict=self.verdict)
        return [*out, "", *textwrap.wrap(verdict, WIDTH, **VERDICT_WRAP)]


def game_record(
    transcript: Transcript,
    judgement: Judgement,
    words: Words = ENGLISH,
    played: str | None = None,
) -> GameRecord:
    """The record of the game ``transcript`` holds, as ``judgement`` found it, in ``words``;
    ``played`` is when it began (from its log's header), for the record's date."""
    _ = words.gettext
    rules = transcript.rules
    names = {role: _player(transcript, role, words) for role in Role}
    game = transcript.game.hex()[:16] if transcript.game else _("(no game id)")
    title = _("statki: the record of game {game}").format(game=game)
    rule_lines: tuple[str, ...] = ()
    if rules is not None:
        described = describe(rules, words)
        rule_lines = (
            _("Rules: {name}.").format(name=described.name),
            *(f"  {line}" for line in described.lines),
        )
    # The heading says the role: "Host: Ala (host)" said it twice.
    players = (
        _("Host: {player} [{key}]").format(
            player=_name(transcript, Role.HOST, words), key=_key(transcript, Role.HOST, words)
        ),
        _("Guest: {player} [{key}]").format(
            player=_name(transcript, Role.GUEST, words), key=_key(transcript, Role.GUEST, words)
        ),
    )
    fleets = (_fleet(transcript, Role.HOST, names), _fleet(transcript, Role.GUEST, names))
    size = rules.size if rules is not None else 10
    volleys = sorted(
        (volley.move, role, volley) for role in Role for volley in transcript.sides[role].volleys
    )
    shots = tuple(
        Shot(number, names[role], _rows(volley, size, words))
        for number, (__, role, volley) in enumerate(volleys, start=1)
    )
    verdict = judgement.headline(words)
    return GameRecord(title, rule_lines, players, fleets, shots, verdict, words, played)


def _rows(volley: Volley, size: int, words: Words) -> tuple[tuple[str, str], ...]:
    """A volley's rows: each square beside its answer, or, answered by its count, the
    squares a few a row and the count beside the first."""
    squares = [square_name(square, size) for square in volley.shots]
    answers = volley.answer.each_in_words(words)
    if len(answers) == len(squares):
        return tuple(zip(squares, answers, strict=True))
    rows = [
        " ".join(squares[at : at + COUNTED_PER_ROW])
        for at in range(0, len(squares), COUNTED_PER_ROW)
    ]
    return ((rows[0], volley.answer.words(words)), *((row, "") for row in rows[1:]))


def _player(transcript: Transcript, role: Role, words: Words) -> str:
    hello = transcript.sides[role].hello
    if hello is None:
        return said_side("", "", role).in_words(words)
    return said_side(hello.name, fingerprint(hello.key), role).in_words(words)


def _name(transcript: Transcript, role: Role, words: Words) -> str:
    """A side's name alone, where its role is said beside it."""
    hello = transcript.sides[role].hello
    if hello is None or not hello.name:
        return words.gettext(UNNAMED)
    return said_name(hello.name, fingerprint(hello.key)).in_words(words)


def _key(transcript: Transcript, role: Role, words: Words) -> str:
    hello = transcript.sides[role].hello
    return fingerprint(hello.key) if hello is not None else words.gettext("no key")


def _fleet(transcript: Transcript, role: Role, names: dict[Role, str]) -> FleetRecord:
    """``role``'s fleet with every shot the other side fired at it."""
    fleet, rules = transcript.sides[role].fleet, transcript.rules
    if fleet is None or rules is None:
        return FleetRecord(names[role], (), ())
    defence = Defence(rules, fleet)
    for volley in transcript.sides[role.other].volleys:
        defence = defence.answer(volley.shots)[1]
    ships = tuple(ship_text(ship, rules.size) for ship in fleet.ships)
    return FleetRecord(names[role], tuple(defence_lines(defence)), ships)

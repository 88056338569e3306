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
from statki_net.game.picture import defence_lines
from statki_net.game.rules_words import describe
from statki_net.game.words import ENGLISH, Words
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.report import Judgement, fingerprint, said_side

WIDTH = 80
"""The record's widest line of words: a terminal's, so the verdict is not cut (it was 110)."""
VERDICT_WRAP: dict[str, Any] = {
    "subsequent_indent": "  ",
    "break_long_words": False,
    "break_on_hyphens": False,
}
"""Wrapped between words only: a name or a fingerprint stays whole."""

SHOT_WIDTH = 8
"""Columns for the squares of one volley in the list of shots (a salvo wraps past them)."""


@dataclass(frozen=True)
class Shot:
    """One volley of the game, numbered in the order it was fired."""

    number: int
    shooter: str
    squares: str
    answer: str


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
    """The language the record was put into words in: its headings follow it."""

    def lines(self) -> list[str]:
        """The record as text, a line each: what ``statki record`` prints."""
        _ = self.words.gettext
        out = [self.title, "", *self.rules, "", *self.players, ""]
        for fleet in self.fleets:
            out.append(_("{player}'s fleet:").format(player=fleet.player))
            if fleet.board:
                out += ["  " + line for line in fleet.board]
                out.append(_("  Ships: {ships}").format(ships=", ".join(fleet.ships)))
            else:
                out.append(_("  The fleet was never revealed."))
            out.append("")
        out.append(_("Shots ({n}), each with its answer:").format(n=len(self.shots)))
        width = max((len(shot.shooter) for shot in self.shots), default=0)
        for shot in self.shots:
            out.append(
                f"  {shot.number:>3}. {shot.shooter:<{width}}  "
                f"{shot.squares:<{SHOT_WIDTH}} {shot.answer}"
            )
        if not self.shots:
            out.append(_("  No shot was fired."))
        verdict = _("Verdict: {verdict}").format(verdict=self.verdict)
        return [*out, "", *textwrap.wrap(verdict, WIDTH, **VERDICT_WRAP)]


def game_record(transcript: Transcript, judgement: Judgement, words: Words = ENGLISH) -> GameRecord:
    """The record of the game ``transcript`` holds, as ``judgement`` found it, in ``words``."""
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
    players = (
        _("Host: {player} [{key}]").format(
            player=names[Role.HOST], key=_key(transcript, Role.HOST, words)
        ),
        _("Guest: {player} [{key}]").format(
            player=names[Role.GUEST], key=_key(transcript, Role.GUEST, words)
        ),
    )
    fleets = (_fleet(transcript, Role.HOST, names), _fleet(transcript, Role.GUEST, names))
    size = rules.size if rules is not None else 10
    volleys = sorted(
        (volley.move, role, volley) for role in Role for volley in transcript.sides[role].volleys
    )
    shots = tuple(
        Shot(
            number,
            names[role],
            " ".join(square_name(square, size) for square in volley.shots),
            volley.answer.words(words),
        )
        for number, (__, role, volley) in enumerate(volleys, start=1)
    )
    verdict = judgement.headline(words)
    return GameRecord(title, rule_lines, players, fleets, shots, verdict, words)


def _player(transcript: Transcript, role: Role, words: Words) -> str:
    hello = transcript.sides[role].hello
    if hello is None:
        return said_side("", "", role).in_words(words)
    return said_side(hello.name, fingerprint(hello.key), role).in_words(words)


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

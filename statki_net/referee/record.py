"""A finished game as a record a person reads: who played, both fleets, every shot, the verdict.

What ``statki record LOG`` prints, and what its PDF holds, in one place: a
``GameRecord`` of plain values built from the log's transcript and the
referee's judgement, and its lines of text.  Pure: values in, values out.
"""

from __future__ import annotations

from dataclasses import dataclass

from statki_net.game.battle import Defence
from statki_net.game.board import square_name
from statki_net.game.fleet import ship_text
from statki_net.game.picture import defence_lines
from statki_net.game.rules import describe
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.report import Judgement, fingerprint

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

    def lines(self) -> list[str]:
        """The record as text, a line each: what ``statki record`` prints."""
        out = [self.title, "", *self.rules, "", *self.players, ""]
        for fleet in self.fleets:
            out.append(f"{fleet.player}'s fleet:")
            if fleet.board:
                out += ["  " + line for line in fleet.board]
                out.append("  Ships: " + ", ".join(fleet.ships))
            else:
                out.append("  The fleet was never revealed.")
            out.append("")
        out.append(f"Shots ({len(self.shots)}), each with its answer:")
        width = max((len(shot.shooter) for shot in self.shots), default=0)
        for shot in self.shots:
            out.append(
                f"  {shot.number:>3}. {shot.shooter:<{width}}  "
                f"{shot.squares:<{SHOT_WIDTH}} {shot.answer}"
            )
        if not self.shots:
            out.append("  No shot was fired.")
        return [*out, "", f"Verdict: {self.verdict}"]


def game_record(transcript: Transcript, judgement: Judgement) -> GameRecord:
    """The record of the game ``transcript`` holds, as ``judgement`` found it."""
    rules = transcript.rules
    names = {role: _player(transcript, role) for role in Role}
    game = transcript.game.hex()[:16] if transcript.game else "(no game id)"
    title = f"statki: the record of game {game}"
    rule_lines: tuple[str, ...] = ()
    if rules is not None:
        described = describe(rules)
        rule_lines = (f"Rules: {described.name}.", *(f"  {line}" for line in described.lines))
    players = (
        f"Host: {names[Role.HOST]} [{_key(transcript, Role.HOST)}]",
        f"Guest: {names[Role.GUEST]} [{_key(transcript, Role.GUEST)}]",
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
            volley.answer.words(),
        )
        for number, (_, role, volley) in enumerate(volleys, start=1)
    )
    return GameRecord(title, rule_lines, players, fleets, shots, judgement.headline())


def _player(transcript: Transcript, role: Role) -> str:
    hello = transcript.sides[role].hello
    name = hello.name if hello is not None and hello.name else f"the {role.value}"
    return f"{name} ({role.value})"


def _key(transcript: Transcript, role: Role) -> str:
    hello = transcript.sides[role].hello
    return fingerprint(hello.key) if hello is not None else "no key"


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

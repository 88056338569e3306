"""Placing the fleet: the ships as they lie, and the moves that shift them.

``Placing`` is the part of ``statki_client.model.Model`` that holds the ships
being placed and the selected one; it starts from a random fleet (or the one
given with ``--fleet``), moves, rotates and re-rolls, says what breaks the
rules, and commits the fleet through the link once it is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from statki_net.game.board import bit, row_col, square_name
from statki_net.game.errors import UsageError
from statki_net.game.fleet import (
    Fleet,
    FleetProblem,
    FleetTextError,
    fleet_problems,
    random_fleet,
    read_fleet_text,
    typed_fleet,
)
from statki_net.game.rules import Ruleset
from statki_net.protocol.session import NO_REASON
from statki_net.store.language import _, words

from .kinds import Stage
from .state import CommonState


@dataclass(frozen=True)
class Placed:
    """A ship being placed: its bow (top or left square), its direction, its length."""

    row: int
    column: int
    horizontal: bool
    length: int

    def squares(self, size: int) -> tuple[int, ...]:
        step = 1 if self.horizontal else size
        return tuple(self.row * size + self.column + i * step for i in range(self.length))

    def on_board(self, size: int) -> bool:
        last_row = self.row + (0 if self.horizontal else self.length - 1)
        last_column = self.column + (self.length - 1 if self.horizontal else 0)
        return min(self.row, self.column) >= 0 and max(last_row, last_column) < size

    @classmethod
    def of(cls, ship: Sequence[int], size: int) -> Placed:
        cells = sorted(ship)
        row, column = row_col(cells[0], size)
        horizontal = len(cells) == 1 or cells[1] - cells[0] == 1
        return cls(row, column, horizontal, len(cells))


@dataclass
class Placing(CommonState):
    """The fleet being placed; see the module docstring."""

    ships: list[Placed] = field(default_factory=list)
    selected: int = 0

    @property
    def fleet(self) -> Fleet:
        return Fleet(tuple(ship.squares(self.size) for ship in self.ships))

    def problems(self) -> list[FleetProblem]:
        if self.rules is None or not self.ships:
            return []
        return fleet_problems(self.rules, self.fleet, words())

    def bad_squares(self) -> int:
        """Squares of ships that break the rules: drawn so they stand out."""
        bad = 0
        for problem in self.problems():
            for square in problem.cells:
                ship = self.fleet.ship_at(square)
                if ship is not None:
                    bad |= sum(bit(s) for s in self.fleet.ships[ship])
        return bad

    def _start_placing(self, rules: Ruleset) -> None:
        self.rules = rules
        self.stage = Stage.PLACING
        self.reroll()
        if self.fleet_text and not self._place_given_fleet(rules):
            return
        if self.must_decide:
            kind = _("custom rules, no preset") if self.departure_lines() else _("these rules")
            self.say(
                _("{Them} proposes {kind}: Enter accepts, d declines").format(
                    Them=self._capitalised(self.opponent_label()), kind=kind
                )
            )
        elif self.rule_choices:
            self.say(
                _("Rules: {rules_name}. Place your fleet; R chooses the rules again").format(
                    rules_name=self.rules_name()
                )
            )
        elif self.at_prompt:
            self.say(
                _(
                    "Your fleet is drawn at random: Enter starts, 'new' draws another,"
                    " or type your ships, like B2-E2 G2-G4 J1"
                )
            )
        else:
            self.say(
                _("Place your fleet: Tab picks a ship, arrows move it, r rotates; Enter starts")
            )

    def reroll(self) -> None:
        assert self.rules is not None
        fleet = random_fleet(self.rules, self.rng)
        self.ships = [Placed.of(ship, self.rules.size) for ship in fleet.ships]
        self.selected = 0
        self.say(_("A new random fleet"))

    def _place_given_fleet(self, rules: Ruleset) -> bool:
        """Start from ``fleet_text``; False (a random fleet and the reason) if it is illegal."""
        try:
            fleet, problems = read_fleet_text(rules, self.fleet_text, words())
        except FleetTextError as error:
            fleet, problems = Fleet(()), [FleetProblem("shape", error.in_words(words()))]
        problems = problems or fleet_problems(rules, fleet, words())
        if problems:
            self.say(
                _("Your fleet file does not fit: {message}; a random fleet instead").format(
                    message=problems[0].message
                ),
                trouble=True,
            )
            return False
        self.ships = [Placed.of(ship, rules.size) for ship in fleet.ships]
        return True

    def place_typed(self, text: str) -> bool:
        """Ships typed at the prompt (``B2-E2 G2-G4 ... J1``), in any order: the fleet, if legal."""
        if self.stage is not Stage.PLACING or self.rules is None:
            return False
        rules = self.rules
        fleet = typed_fleet(rules, text, words())
        if isinstance(fleet, FleetProblem):
            self.say(
                _("That fleet does not fit: {message}").format(message=fleet.message), trouble=True
            )
            return False
        self.ships = [Placed.of(ship, rules.size) for ship in fleet.ships]
        self.say(_("Your fleet is placed as typed: Enter starts the battle"))
        return True

    def select(self, step: int = 1) -> None:
        if self.ships:
            self.selected = (self.selected + step) % len(self.ships)
            self._describe_selected()

    def select_at(self, square: int) -> bool:
        """Pick the ship on ``square`` (a mouse click); False if there is none."""
        index = self.fleet.ship_at(square)
        if index is None:
            return False
        self.selected = index
        self._describe_selected()
        return True

    def _describe_selected(self) -> None:
        assert self.rules is not None
        squares = self.ships[self.selected].squares(self.size)
        where = square_name(squares[0], self.size)
        if len(squares) > 1:
            where += "-" + square_name(squares[-1], self.size)
        self.say(
            _("Selected the {ship_label} at {where}").format(
                ship_label=self.rules.ship_label(self.selected, words()), where=where
            )
        )
        self._report_problems()

    def move_ship(self, rows: int, columns: int) -> bool:
        """Move the selected ship; refused (False) if it would leave the board."""
        if self.stage is not Stage.PLACING or not self.ships:
            return False
        ship = self.ships[self.selected]
        moved = Placed(ship.row + rows, ship.column + columns, ship.horizontal, ship.length)
        if not moved.on_board(self.size):
            self.say(_("The ship cannot go that way: it would leave the board"), trouble=True)
            return False
        self.ships[self.selected] = moved
        self.say("")
        self._report_problems()
        return True

    def move_ship_to(self, square: int) -> bool:
        """Put the selected ship's bow on ``square`` (a click); legal or not, as the arrows do."""
        if self.stage is not Stage.PLACING or not self.ships:
            return False
        ship = self.ships[self.selected]
        row, column = row_col(square, self.size)
        return self.move_ship(row - ship.row, column - ship.column)

    def rotate(self) -> None:
        """Turn the selected ship about its bow, sliding it back onto the board if needed."""
        if self.stage is not Stage.PLACING or not self.ships:
            return
        ship = self.ships[self.selected]
        row, column = ship.row, ship.column
        if ship.horizontal:
            row = min(row, self.size - ship.length)
        else:
            column = min(column, self.size - ship.length)
        self.ships[self.selected] = Placed(row, column, not ship.horizontal, ship.length)
        self.say("")
        self._report_problems()

    def _report_problems(self) -> None:
        problems = self.problems()
        if problems:
            more = _(" (and {n} more)").format(n=len(problems) - 1) if len(problems) > 1 else ""
            self.say(
                _("Not legal: {message}{more}").format(message=problems[0].message, more=more),
                trouble=True,
            )
        elif not self.notice or self.trouble:
            self.say(_("The fleet is legal: Enter starts the battle"))

    def ready(self) -> bool:
        """Commit to the placed fleet; refused while it breaks the rules."""
        if self.stage is not Stage.PLACING:
            return False
        problems = self.problems()
        if problems:
            self.say(
                _("The battle cannot start: {message}").format(message=problems[0].message),
                trouble=True,
            )
            return False
        fleet = self.fleet
        self.must_decide = False
        self.stage = Stage.WAITING
        if self.invite and not self.opponent_key:
            self.say(_("Fleet committed; the game starts when a guest joins with your invite"))
        elif self.is_rematch and self.session.transcript.sides[self.session.peer].hello is None:
            self.say(
                _("Fleet committed; waiting for {them} to accept the rematch").format(
                    them=self.opponent_label()
                )
            )
        else:
            self.say(_("Fleet committed; waiting for the opponent"))
        try:
            self.link.begin(fleet)
        except UsageError as error:
            self.stage = Stage.PLACING
            self.say(_("Cannot start: {error}").format(error=error.in_words(words())), trouble=True)
            return False
        return True

    def decline(self) -> None:
        if self.must_decide and self.stage is Stage.PLACING:
            self.must_decide = False
            self.link.decline(NO_REASON)

"""The battle as the player sees it: both seas, the volleys, and aiming at squares.

``Aiming`` is the part of ``statki_client.model.Model`` that holds the cursor,
the squares marked for a salvo, a coordinate being typed and the volleys so
far; it tells the seas shown and whose turn it is, refuses squares that may
not be chosen, and fires through the link.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from statki_net.ai.density import ship_room
from statki_net.game.battle import Defence, Sea, tells_cells
from statki_net.game.board import bit, full_board, parse_square, row_col, square_name, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.rules import Turns
from statki_net.game.rules_words import describe
from statki_net.store.language import _, ngettext, words

from .kinds import Stage, Volley
from .state import CommonState


@dataclass
class Aiming(CommonState):
    """Aiming and the seas shown; see the module docstring."""

    cursor: int = 0
    marks: list[int] = field(default_factory=list)
    """Squares marked for the salvo being aimed."""
    typed: str = ""
    """A coordinate being typed (``b1`` then ``0``)."""
    typed_from: int = 0
    """Where the cursor was when the coordinate being typed began: Escape puts it back."""
    typing_said: str = ""
    """The notice typing last said ("cleared", "not a square"): about the square typed
    then, so the next square typed takes it away (it stayed while the player typed on)."""
    hints: bool = False
    clicked: int | None = None
    """The square the last click aimed at; a second click on it fires."""
    volleys: list[Volley] = field(default_factory=list)

    @property
    def salvo(self) -> bool:
        return self.rules is not None and self.rules.turns is Turns.SALVO

    @property
    def my_turn(self) -> bool:
        return self.stage is Stage.BATTLE and self.session.my_turn

    @property
    def shots_due(self) -> int:
        return self.session.shots_due if self.my_turn else 0

    @property
    def view(self) -> Sea | None:
        """My view of the opponent's sea."""
        return self.session.view

    @property
    def defence(self) -> Defence | None:
        """My sea with the opponent's shots."""
        return self.session.defence

    def shots_fired(self, mine: bool) -> int:
        role = self.session.role if mine else self.session.peer
        return self.session.transcript.shots_by(role)

    def ships_left(self, mine: bool) -> int:
        if self.rules is None:
            return 0
        if mine:
            return self.defence.afloat if self.defence else len(self.rules.fleet)
        return self.view.afloat if self.view else len(self.rules.fleet)

    def move_cursor(self, rows: int, columns: int) -> None:
        self.clicked = None
        row, column = row_col(self.cursor, self.size)
        row = min(max(row + rows, 0), self.size - 1)
        column = min(max(column + columns, 0), self.size - 1)
        self.cursor = row * self.size + column

    def type_key(self, char: str) -> None:
        """Typing a coordinate: a letter starts one, digits follow; the cursor jumps there.

        A letter off the board (``K``) or digits with no column before them (``11``)
        start a coordinate too, a wrong one: Enter and Space then fire nothing until it
        is put right (Backspace) or cleared (Esc), since the cursor, not the square the
        player meant, is where a shot would go."""
        self.clicked = None
        if not (char.isalpha() or char.isdigit()):
            return
        if not self.typed:
            self.typed_from = self.cursor
        if char.isalpha() or not self.typed:
            if self.typing_said and self.notice == self.typing_said:
                self.say("")
            self.typed = char.upper()
        else:
            self.typed = (self.typed + char)[:3]
        self._follow_typing()

    def erase_typed(self) -> None:
        """Backspace: the last character typed of a coordinate goes; none left, the cursor
        goes back where it was."""
        if not self.typed:
            return
        self.typed = self.typed[:-1]
        if not self.typed:
            self.cursor = self.typed_from
            self.say("")
            return
        self._follow_typing()

    def _follow_typing(self) -> None:
        """The cursor on what is typed so far, or the notice that it names no square."""
        if not self._typed_wrong():
            if len(self.typed) == 1:  # a column alone: the cursor goes to it, a row follows
                self.cursor = row_col(self.cursor, self.size)[0] * self.size + self._column()
            else:
                self.cursor = parse_square(self.typed, self.size)
            return
        self._say_typing(_("{typed} is not a square of this board").format(typed=self.typed))

    def _column(self) -> int:
        return ord(self.typed) - ord("A")

    def _typed_wrong(self) -> bool:
        """Whether what was typed names no square: a column off the board (``K``), a row
        with no column (``1``), or a column and a row that name none (``B11``).  A column
        alone on it awaits its row."""
        if not self.typed:
            return False
        if not self.typed[0].isalpha():
            return True
        if len(self.typed) == 1:
            return not 0 <= self._column() < self.size
        try:
            parse_square(self.typed, self.size)
        except UsageError:
            return True
        return False

    def clear_typing(self) -> None:
        """Escape: forget the coordinate half typed, and put the cursor back where it was."""
        if self.typed:
            self.cursor = self.typed_from
            self.typed = ""
            self._say_typing(_("The square you were typing is cleared"), trouble=False)

    def _say_typing(self, text: str, *, trouble: bool = True) -> None:
        self.say(text, trouble=trouble)
        self.typing_said = text

    def aim_click(self, square: int) -> bool:
        """A click on the opponent's sea: aim there; a second click on it fires.

        In a salvo a click marks the square (or unmarks a marked one) and
        Enter fires as with the keys.  Returns whether a shot was chosen.
        """
        if self.stage is not Stage.BATTLE:
            return False
        self.typed = ""
        if self.salvo:
            self.cursor = square
            return self.toggle_mark(square)
        if self.clicked == square and self.cursor == square:
            self.clicked = None
            return self.choose(square)
        self.cursor, self.clicked = square, square
        name = square_name(square, self.size)
        reason = self.refusal(square)
        if reason:
            self.say(reason, trouble=True)
        else:
            self.say(_("Aiming at {name}: click it again (or Enter) to fire").format(name=name))
        return False

    def refusal(self, square: int) -> str | None:
        """Why ``square`` may not be chosen now, or None if it may."""
        if self.stage is not Stage.BATTLE:
            return _("The battle has not started yet")
        if not self.my_turn:
            return _("Wait: it is the opponent's turn")
        view = self.view
        assert view is not None and self.rules is not None
        name = square_name(square, self.size)
        if square in self.marks:
            return _("{name} is already marked in this salvo (Space removes the mark)").format(
                name=name
            )
        if not self._known(square) or not self._must_repeat():
            return None
        if view.shot & bit(square):
            return _("{name} was shot already: a shot at the same square counts as a miss").format(
                name=name
            )
        rule = describe(self.rules, words()).touching
        return _("{name} lies next to a sunk ship and {rule}: it is known to be empty").format(
            name=name, rule=rule
        )

    def _known(self, square: int) -> bool:
        view = self.view
        return view is not None and bool(view.known & bit(square))

    def _must_repeat(self) -> bool:
        """False only when too few unknown squares are left for the shots due."""
        view = self.view
        assert view is not None
        unknown = self.size * self.size - view.known.bit_count()
        free = unknown - sum(not self._known(s) for s in self.marks)
        return free > 0

    def choose(self, square: int | None = None) -> bool:
        """Enter (or a typed coordinate) on ``square``: fire, or mark it in a salvo.

        In a salvo, Enter with every shot marked fires.  Returns whether
        anything was done; a refusal is in the notice.
        """
        if square is None and self._typed_wrong():
            # Enter on "B11" must not fire at the B1 the cursor stopped on along the way.
            self.say(
                _("{typed} is not a square of this board").format(typed=self.typed), trouble=True
            )
            return False
        square = self.cursor if square is None else square
        self.typed = ""
        if self.salvo and self.my_turn and len(self.marks) >= self.shots_due:
            return self.fire()
        reason = self.refusal(square)
        if reason:
            self.say(reason, trouble=True)
            return False
        if not self.salvo:
            self.marks = [square]
            return self.fire()
        self.marks.append(square)
        left = self.shots_due - len(self.marks)
        if left:
            self.say(
                _("Marked {square}; {left} more to mark").format(
                    square=square_name(square, self.size), left=left
                )
            )
        else:
            self.say(_("Every shot of the salvo is marked: Enter fires, Space unmarks"))
        return True

    def toggle_mark(self, square: int | None = None) -> bool:
        """Space: mark or unmark a square of the salvo; outside a salvo, nothing (Enter fires:
        a player who took Space for a mark, as the help says it is, lost a shot)."""
        if not self.salvo:
            self.say(_("Space marks the squares of a salvo; Enter fires"), trouble=True)
            return False
        if square is None and self._typed_wrong():
            self.say(
                _("{typed} is not a square of this board").format(typed=self.typed), trouble=True
            )
            return False
        square = self.cursor if square is None else square
        if square in self.marks:
            self.marks.remove(square)
            self.say(_("Unmarked {square}").format(square=square_name(square, self.size)))
            return True
        if self.salvo and self.my_turn and len(self.marks) >= self.shots_due:
            self.say(
                _("Every shot is marked already: unmark one first, or Enter fires"), trouble=True
            )
            return False
        return self.choose(square)

    def fire(self) -> bool:
        if not self.my_turn:
            self.say(_("Wait: it is the opponent's turn"), trouble=True)
            return False
        if len(self.marks) != self.shots_due:
            due = self.shots_due - len(self.marks)
            self.say(
                ngettext("Mark {n} more shot(s) first", "Mark {n} more shot(s) first", due).format(
                    n=due
                ),
                trouble=True,
            )
            return False
        shots, self.marks = tuple(self.marks), []
        self.say("")
        self.link.shoot(shots)
        return True

    def hint_squares(self) -> int:
        """Unknown squares of the opponent's sea where no ship still afloat may stand."""
        view = self.view
        if view is None or self.rules is None or not tells_cells(self.rules):
            return 0
        return full_board(self.size) & ~view.known & ~ship_room(view)

    def toggle_hints(self) -> None:
        self.hints = not self.hints
        self.say(_("Hints on: shaded squares cannot hold a ship") if self.hints else _("Hints off"))


def squares_text(squares: int, size: int) -> str:
    return " ".join(square_name(s, size) for s in squares_of(squares))

"""The client's whole state as a plain object: no terminal, no socket, no clock.

``Model`` holds what a player sees and does: placing the fleet, aiming and
marking shots, the last answers, the end of the game, the overlays.  It
drives a ``statki_net.session.Session`` only through a ``Link``, so the same
model plays the computer in-process (``statki_client.local``) and a person
over TCP.  The link feeds the session's events back to ``Model.handle``.
Keys, layouts and the line prompt all act on this object.
"""

from __future__ import annotations

import contextlib
import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from statki_net.battle import Answer, Defence, Sea, tells_cells
from statki_net.board import bit, parse_square, row_col, square_name, squares_of
from statki_net.errors import UsageError
from statki_net.fleet import (
    Fleet,
    FleetProblem,
    FleetTextError,
    fleet_problems,
    placements,
    random_fleet,
    read_fleet_text,
)
from statki_net.history import GameRow, Tally
from statki_net.rules import PRESETS, Ruleset, Touching, Turns, preset_name
from statki_net.session import (
    BattleOver,
    Event,
    Failed,
    GameClosed,
    GameStarted,
    PeerHello,
    RulesProposed,
    Session,
    VolleyDone,
    YourTurn,
)
from statki_net.transcript import End, Phase
from statki_net.verify import fingerprint
from statki_net.wire import Code, Limits, Role

from .review import AnalysisJob, AnalysisState, AnalysisStatus, Runner, Update, job_for, run_now


class Link(Protocol):
    """What the model needs from whatever carries its session's messages.

    Every action returns at once; the events it causes (at once in memory,
    later over a network) arrive through the listener given to ``listen``.
    """

    @property
    def session(self) -> Session: ...

    @property
    def log_path(self) -> Path | None: ...

    def listen(self, listener: Callable[[list[Event]], None]) -> None: ...

    def begin(self, fleet: Fleet) -> None:
        """Commit to ``fleet``: the host opens the game, the guest accepts the rules."""

    def decline(self, reason: str) -> None: ...

    def shoot(self, squares: tuple[int, ...]) -> None: ...

    def resign(self) -> None: ...

    @property
    def can_rematch(self) -> bool:
        """Whether ``rematch`` may give a new game with this opponent once this one is over."""

    def rematch(self) -> Link | None:
        """A new game with the same opponent in which the other side starts, if possible."""

    def propose(self, rules: Ruleset) -> None:
        """The host proposes ``rules`` instead: only before ``begin``; ``session`` may change."""


class Stage(enum.StrEnum):
    CONNECTING = "connecting"
    """Waiting for the opponent, or for the host's rules."""
    RULES = "rules"
    """The host picks the rules from the presets (before the battle, revisited with R)."""
    PLACING = "placing"
    WAITING = "waiting"
    """The fleet is committed; the opponent is placing theirs or the coin is being tossed."""
    BATTLE = "battle"
    FINISHING = "finishing"
    """The battle is decided; the fleets are being revealed and checked."""
    OVER = "over"


class Overlay(enum.StrEnum):
    HELP = "help"
    HISTORY = "history"
    QUIT = "quit"
    ANALYSIS = "analysis"


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


@dataclass(frozen=True)
class Volley:
    """One volley as the screen tells it."""

    mine: bool
    squares: tuple[int, ...]
    answer: Answer

    def words(self, size: int) -> str:
        """``B4: hit`` for one shot; a salvo compactly, each square with its glyph."""
        names = [square_name(s, size) for s in self.squares]
        if len(names) == 1 or not self.answer.outcomes:
            return f"{' '.join(names)}: {self.answer.words()}"
        glyphs = {"miss": "o", "hit": "x", "sunk": "@"}
        shots = " ".join(
            name + glyphs[outcome.value]
            for name, outcome in zip(names, self.answer.outcomes, strict=True)
        )
        return f"{self.answer.hits} hit(s), {self.answer.sunk} sunk: {shots}"


@dataclass(frozen=True)
class Ending:
    """What the end screen shows."""

    verdict: str
    """Who won and how, in one line."""
    findings: tuple[str, ...]
    """Cheating found, one line each (empty for an honest game)."""
    my_fleet: Fleet | None
    their_fleet: Fleet | None
    """The opponent's revealed fleet; None when it was never revealed."""
    my_shots: int
    their_shots: int
    log_path: Path | None
    won: bool | None
    """True, False, or None when nobody won."""
    reason: str = ""
    """Why the game stopped before its end, in words; empty when it was played out."""


HistorySource = Callable[[], tuple[list[GameRow], list[Tally]]]

ABSENT = "absent"
"""The code of a failure where the opponent never came (back): its detail is the words."""

TOUCHING_RULE = {
    Touching.NONE: "ships never touch, not even at a corner",
    Touching.CORNERS: "ships never touch by a side",
    Touching.ANY: "",
}


@dataclass
class Model:
    """The client's state; see the module docstring."""

    link: Link
    rng: random.Random
    """Draws the fleet and its re-rolls."""
    history_source: HistorySource | None = None
    stage: Stage = Stage.CONNECTING
    rules: Ruleset | None = None
    ships: list[Placed] = field(default_factory=list)
    selected: int = 0
    cursor: int = 0
    marks: list[int] = field(default_factory=list)
    """Squares marked for the salvo being aimed."""
    typed: str = ""
    """A coordinate being typed (``b1`` then ``0``)."""
    hints: bool = False
    overlay: Overlay | None = None
    notice: str = ""
    """The status line: the last thing that happened or was refused."""
    trouble: bool = False
    """Whether the notice reports a problem (drawn so it stands out)."""
    volleys: list[Volley] = field(default_factory=list)
    opponent_name: str = ""
    opponent_key: str = ""
    must_decide: bool = False
    """The guest must accept or decline the host's rules."""
    first: Role | None = None
    failure: Failed | None = None
    ending: Ending | None = None
    resign_pending: bool = False
    quitting: bool = False
    """The player asked to leave; the front end exits once ``done``."""
    history: tuple[list[GameRow], list[Tally]] = field(default_factory=lambda: ([], []))
    invite: str = ""
    """The host's invite, shown until the guest arrives."""
    fleet_text: str = ""
    """A fleet to start from (``--fleet``), one ship a line; random when it breaks the rules."""
    is_rematch: bool = False
    """This game is a rematch: the same opponent again."""
    rule_choices: tuple[str, ...] = ()
    """Presets the host picks from on the rules screen; empty: no rules screen."""
    rules_cursor: int = 0
    """The preset highlighted on the rules screen."""
    clicked: int | None = None
    """The square the last click aimed at; a second click on it fires."""
    analysis: AnalysisState = field(default_factory=AnalysisState)
    """The post-game analysis: asked for with ``analyse`` at the end."""
    background: Runner = run_now
    """How the analysis runs: at once here; the full screen runs it in a thread."""
    _job: AnalysisJob | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.link.listen(self.handle)
        rules = self.session.rules
        if rules is not None and self.session.role is Role.HOST:
            if self.rule_choices:
                self._show_rules(rules)
            else:
                self._start_placing(rules)

    # ------------------------------------------------------------ what is known

    @property
    def session(self) -> Session:
        return self.link.session

    @property
    def size(self) -> int:
        return self.rules.size if self.rules else 10

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

    @property
    def done(self) -> bool:
        """The front end may exit: the player quit and nothing is left to say."""
        return self.quitting and not self.resign_pending

    def shots_fired(self, mine: bool) -> int:
        role = self.session.role if mine else self.session.peer
        return self.session.transcript.shots_by(role)

    def ships_left(self, mine: bool) -> int:
        if self.rules is None:
            return 0
        if mine:
            return self.defence.afloat if self.defence else len(self.rules.fleet)
        return self.view.afloat if self.view else len(self.rules.fleet)

    @property
    def limits(self) -> Limits:
        """The time limits: the host's proposal until the hello settles them."""
        session = self.session
        if session.role is Role.HOST and not session.transcript.frames:
            return session.proposed_limits
        return session.transcript.limits

    def rules_name(self) -> str:
        if self.stage is Stage.RULES:
            return "choosing the rules"
        if self.rules is None:
            return "rules not known yet"
        return preset_name(self.rules) or "custom rules"

    def say(self, text: str, *, trouble: bool = False) -> None:
        self.notice, self.trouble = text, trouble

    # ------------------------------------------------------------ choosing the rules

    @property
    def can_choose_rules(self) -> bool:
        """The host may (re)choose the rules: a rules screen, and the fleet not committed."""
        return bool(self.rule_choices) and self.stage in (Stage.RULES, Stage.PLACING)

    def _show_rules(self, current: Ruleset) -> None:
        name = preset_name(current)
        if name in self.rule_choices:
            self.rules_cursor = self.rule_choices.index(name)
        self.stage = Stage.RULES
        self.say("Choose the rules: arrows pick, Enter confirms")

    def revisit_rules(self) -> bool:
        """R in placement: back to the rules screen, the fleet kept unless the fleet changes."""
        if self.stage is not Stage.PLACING or not self.can_choose_rules:
            return False
        assert self.rules is not None
        self._show_rules(self.rules)
        return True

    def move_rules_cursor(self, step: int) -> None:
        if self.stage is Stage.RULES and self.rule_choices:
            self.rules_cursor = (self.rules_cursor + step) % len(self.rule_choices)

    def choose_rules(self) -> bool:
        """Enter on the rules screen: propose the highlighted preset and place the fleet."""
        if self.stage is not Stage.RULES or not self.rule_choices:
            return False
        chosen = PRESETS[self.rule_choices[self.rules_cursor]]
        before = self.rules
        try:
            self.link.propose(chosen)
        except UsageError as error:
            self.say(f"Cannot change the rules now: {error}", trouble=True)
            return False
        same_fleet = (
            bool(self.ships)
            and before is not None
            and (before.size, before.fleet) == (chosen.size, chosen.fleet)
        )
        if not same_fleet:
            self._start_placing(chosen)
            return True
        self.rules, self.stage = chosen, Stage.PLACING
        self.say(f"Rules: {self.rules_name()}; your fleet is kept (R chooses again)")
        self._report_problems()
        return True

    # ------------------------------------------------------------ placing

    @property
    def fleet(self) -> Fleet:
        return Fleet(tuple(ship.squares(self.size) for ship in self.ships))

    def problems(self) -> list[FleetProblem]:
        if self.rules is None or not self.ships:
            return []
        return fleet_problems(self.rules, self.fleet)

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
            self.say(f"{self.opponent_label()} proposes these rules: Enter accepts, d declines")
        elif self.rule_choices:
            self.say(f"Rules: {self.rules_name()}. Place your fleet; R chooses the rules again")
        else:
            self.say("Place your fleet: Tab picks a ship, arrows move it, r rotates; Enter starts")

    def reroll(self) -> None:
        assert self.rules is not None
        fleet = random_fleet(self.rules, self.rng)
        self.ships = [Placed.of(ship, self.rules.size) for ship in fleet.ships]
        self.selected = 0
        self.say("A new random fleet")

    def _place_given_fleet(self, rules: Ruleset) -> bool:
        """Start from ``fleet_text``; False (a random fleet and the reason) if it is illegal."""
        try:
            fleet, problems = read_fleet_text(rules, self.fleet_text)
        except FleetTextError as error:
            fleet, problems = Fleet(()), [FleetProblem("shape", str(error))]
        problems = problems or fleet_problems(rules, fleet)
        if problems:
            self.say(
                f"Your fleet file does not fit: {problems[0].message}; a random fleet instead",
                trouble=True,
            )
            return False
        self.ships = [Placed.of(ship, rules.size) for ship in fleet.ships]
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
        self.say(f"Selected the {self.rules.ship_label(self.selected)} at {where}")
        self._report_problems()

    def move_ship(self, rows: int, columns: int) -> bool:
        """Move the selected ship; refused (False) if it would leave the board."""
        if self.stage is not Stage.PLACING or not self.ships:
            return False
        ship = self.ships[self.selected]
        moved = Placed(ship.row + rows, ship.column + columns, ship.horizontal, ship.length)
        if not moved.on_board(self.size):
            self.say("The ship cannot go that way: it would leave the board", trouble=True)
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
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.say(f"Not legal: {problems[0].message}{more}", trouble=True)
        elif not self.notice or self.trouble:
            self.say("The fleet is legal: Enter starts the battle")

    def ready(self) -> bool:
        """Commit to the placed fleet; refused while it breaks the rules."""
        if self.stage is not Stage.PLACING:
            return False
        problems = self.problems()
        if problems:
            self.say(f"The battle cannot start: {problems[0].message}", trouble=True)
            return False
        fleet = self.fleet
        self.must_decide = False
        self.stage = Stage.WAITING
        if self.invite and not self.opponent_key:
            self.say("Fleet committed; the game starts when a guest joins with your invite")
        elif self.is_rematch and self.session.transcript.sides[self.session.peer].hello is None:
            self.say(f"Fleet committed; waiting for {self.opponent_label()} to accept the rematch")
        else:
            self.say("Fleet committed; waiting for the opponent")
        try:
            self.link.begin(fleet)
        except UsageError as error:
            self.stage = Stage.PLACING
            self.say(f"Cannot start: {error}", trouble=True)
            return False
        return True

    def decline(self) -> None:
        if self.must_decide and self.stage is Stage.PLACING:
            self.must_decide = False
            self.link.decline("the guest declined these rules")

    # ------------------------------------------------------------ shooting

    def move_cursor(self, rows: int, columns: int) -> None:
        self.clicked = None
        row, column = row_col(self.cursor, self.size)
        row = min(max(row + rows, 0), self.size - 1)
        column = min(max(column + columns, 0), self.size - 1)
        self.cursor = row * self.size + column

    def type_key(self, char: str) -> None:
        """Typing a coordinate: a letter starts one, digits follow; the cursor jumps there."""
        self.clicked = None
        if char.isalpha():
            self.typed = char.upper()
        elif char.isdigit() and self.typed:
            self.typed = (self.typed + char)[:3]
        else:
            return
        try:
            self.cursor = parse_square(self.typed, self.size)
        except UsageError:
            if len(self.typed) == 1:
                column = ord(self.typed) - ord("A")
                if 0 <= column < self.size:
                    self.cursor = row_col(self.cursor, self.size)[0] * self.size + column
                    return
            self.say(f"{self.typed} is not a square of this board", trouble=True)

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
            self.say(f"Aiming at {name}: click it again (or Enter) to fire")
        return False

    def refusal(self, square: int) -> str | None:
        """Why ``square`` may not be chosen now, or None if it may."""
        if self.stage is not Stage.BATTLE:
            return "The battle has not started yet"
        if not self.my_turn:
            return "Wait: it is the opponent's turn"
        view = self.view
        assert view is not None and self.rules is not None
        name = square_name(square, self.size)
        if square in self.marks:
            return f"{name} is already marked in this salvo (Space removes the mark)"
        if not self._known(square) or not self._must_repeat():
            return None
        if view.shot & bit(square):
            return f"{name} was shot already: a shot at the same square counts as a miss"
        rule = TOUCHING_RULE[self.rules.touching]
        return f"{name} lies next to a sunk ship and {rule}: it is known to be empty"

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
            self.say(f"Marked {square_name(square, self.size)}; {left} more to mark")
        else:
            self.say("Every shot of the salvo is marked: Enter fires, Space unmarks")
        return True

    def toggle_mark(self, square: int | None = None) -> bool:
        """Space: mark or unmark a square of the salvo."""
        square = self.cursor if square is None else square
        if square in self.marks:
            self.marks.remove(square)
            self.say(f"Unmarked {square_name(square, self.size)}")
            return True
        if self.salvo and self.my_turn and len(self.marks) >= self.shots_due:
            self.say("Every shot is marked already: unmark one first, or Enter fires", trouble=True)
            return False
        return self.choose(square)

    def fire(self) -> bool:
        if not self.my_turn:
            self.say("Wait: it is the opponent's turn", trouble=True)
            return False
        if len(self.marks) != self.shots_due:
            self.say(f"Mark {self.shots_due - len(self.marks)} more shot(s) first", trouble=True)
            return False
        shots, self.marks = tuple(self.marks), []
        self.say("")
        self.link.shoot(shots)
        return True

    def hint_squares(self) -> int:
        """Unknown squares of the opponent's sea where no ship still afloat fits."""
        view = self.view
        if view is None or self.rules is None or not tells_cells(self.rules):
            return 0
        open_squares = ((1 << self.size**2) - 1) & ~view.known | (view.hit & ~view.sunk)
        fits = 0
        for length in set(remaining_lengths(view)):
            for ship, _ in placements(self.rules, length):
                if ship & open_squares == ship:
                    fits |= ship
        return ((1 << self.size**2) - 1) & ~view.known & ~fits

    def toggle_hints(self) -> None:
        self.hints = not self.hints
        self.say("Hints on: shaded squares cannot hold a ship" if self.hints else "Hints off")

    # ------------------------------------------------------------ overlays and leaving

    def toggle_overlay(self, overlay: Overlay) -> None:
        if self.overlay is overlay:
            self.overlay = None
            return
        if overlay is Overlay.HISTORY and self.history_source is not None:
            self.history = self.history_source()
        self.overlay = overlay

    def ask_quit(self) -> None:
        if self.stage is Stage.OVER or (self.stage is Stage.CONNECTING and self.failure):
            self.quitting = True
        else:
            self.overlay = Overlay.QUIT

    def quit_consequence(self) -> str:
        """What leaving now means, for the question before it."""
        if self.stage is Stage.BATTLE:
            return "Quit now and you resign: the opponent wins. Quit? (y/n)"
        if self.stage is Stage.FINISHING:
            return "The fleets are still being checked; quit anyway? (y/n)"
        if self.must_decide:
            return "Quit and decline the rules? (y/n)"
        return "Quit? No game has started. (y/n)"

    def confirm_quit(self) -> None:
        self.overlay = None
        self.quitting = True
        if self.stage is Stage.BATTLE:
            self.resign_pending = True
            self._resign_if_possible()
        elif self.must_decide:
            self.decline()

    def resign_now(self) -> None:
        """Leave at once (an interrupt): resign the battle if this side may speak."""
        self.overlay = None
        self.quitting = True
        if self.stage is Stage.BATTLE:
            self.resign_pending = True
            with contextlib.suppress(UsageError):
                self._resign_if_possible()

    def cancel_quit(self) -> None:
        self.overlay = None

    def _resign_if_possible(self) -> None:
        if not self.resign_pending:
            return
        t = self.session.transcript
        if self.session.closed or t.battle_over:
            self.resign_pending = False
            return
        if t.phase in (Phase.SHOOT, Phase.ANSWER) and t.speaker() is self.session.role:
            self.resign_pending = False
            self.link.resign()
        else:
            self.say("You resign as soon as the opponent's shot is answered")

    @property
    def can_rematch(self) -> bool:
        """Whether the end screen offers ``r``: the game is over and the opponent can be met again.

        Not after a game with a host the invite did not name, nor after a
        rematch the opponent never came to.
        """
        return self.stage is Stage.OVER and self.link.can_rematch

    def rematch(self) -> bool:
        """``r`` at the end: a new game with the same opponent, the other side shooting first.

        The host keeps its rules and places a new fleet; the guest waits for
        the host's rules and who starts, and accepts or declines as before.
        """
        if self.stage is not Stage.OVER:
            return False
        link = self.link.rematch() if self.can_rematch else None
        if link is None:
            self.say("No rematch after this game: there is no opponent to meet again", trouble=True)
            return False
        self.cancel_analysis()
        fresh = Model(link, self.rng, self.history_source, background=self.background)
        fresh.hints, fresh.is_rematch = self.hints, True
        fresh.opponent_name, fresh.opponent_key = self.opponent_name, self.opponent_key
        fresh.fleet_text = self.fleet_text
        if fresh.stage is Stage.PLACING:
            fresh.say(f"Rematch: {fresh.starter_words()}. Place your fleet; Enter starts")
        else:
            fresh.say(f"Rematch: connecting to {self.opponent_label()} again")
        self.__dict__.update(fresh.__dict__)
        self.link.listen(self.handle)
        return True

    def starter_words(self) -> str:
        """Who shoots first, as agreed in the host's hello: ``you start`` or ``Ala starts``."""
        session = self.session
        hello = session.transcript.sides[Role.HOST].hello
        if session.role is Role.HOST:
            first = session.proposed_first
        else:
            first = hello.first if hello is not None else None
        if first is None:
            return "a coin toss decides who starts"
        if first is session.role:
            return "you start"
        return f"{self._capitalised(self.opponent_label())} starts"

    # ------------------------------------------------------------ the analysis

    def why_no_analysis(self) -> str | None:
        """Why the game cannot be analysed now, or None if it can."""
        if self.stage is not Stage.OVER:
            return "The analysis comes at the end of the game"
        t = self.session.transcript
        if self.rules is None or not any(t.sides[role].volleys for role in Role):
            return "No shot was fired: there is nothing to analyse"
        return None

    def analyse(self) -> bool:
        """``a`` at the end: start the analysis (once; again after a failure) and show it."""
        reason = self.why_no_analysis()
        if reason:
            self.say(reason, trouble=True)
            return False
        self.overlay = Overlay.ANALYSIS
        if self.analysis.status in (AnalysisStatus.NOT_ASKED, AnalysisStatus.FAILED):
            self._start_analysis()
        return True

    def _start_analysis(self) -> None:
        assert self.rules is not None
        t, me = self.session.transcript, self.session.role
        # My own fleet is known here even when the game ended before the reveal.
        mine = t.sides[me].fleet or self.session.fleet
        theirs = t.sides[self.session.peer].fleet
        volleys = t.sides[me].volleys, t.sides[me.other].volleys
        job = job_for(self.rules, *volleys, mine, theirs, t.game)
        self._job = job
        self.analysis = AnalysisState(status=AnalysisStatus.SHOTS, effort=job.effort)
        if theirs is None:
            self.analysis.missing = (
                f"{self._capitalised(self.opponent_label())}'s fleet was never revealed (the game"
                " ended before the reveal), so how hard it was to find is not known."
            )
        self.background(job, lambda update: self._take(job, update))

    def _take(self, job: AnalysisJob, update: Update) -> None:
        """A report from ``job``; one from a job given up (a rematch) is ignored."""
        if job is self._job:
            self.analysis.take(update)

    def cancel_analysis(self) -> None:
        """Stop a running analysis (the player leaves, or plays again)."""
        if self._job is not None:
            self._job.cancel()
            self._job = None

    @staticmethod
    def _capitalised(text: str) -> str:
        return text[:1].upper() + text[1:]

    # ------------------------------------------------------------ events

    def opponent_label(self) -> str:
        return self.opponent_name or "the opponent"

    def handle(self, events: list[Event]) -> None:
        for event in events:
            self._handle(event)

    def _handle(self, event: Event) -> None:
        match event:
            case PeerHello(hello=hello):
                self.opponent_name = hello.name
                self.opponent_key = fingerprint(hello.key)
            case RulesProposed(rules=rules):
                self.must_decide = True
                self._start_placing(rules)
            case GameStarted(first=first):
                self.first = first
                self.stage = Stage.BATTLE
                you = first is self.session.role
                them = self.opponent_label()
                them = them[:1].upper() + them[1:]
                self.say("You won the toss: you shoot first" if you else f"{them} shoots first")
            case YourTurn(shots=shots):
                self.marks = []
                if self.resign_pending:
                    self._resign_if_possible()
                elif shots > 1:
                    self.say(f"Your salvo: mark {shots} squares, then Enter fires")
            case VolleyDone(shooter=shooter, squares=squares, answer=answer):
                volley = Volley(shooter is self.session.role, squares, answer)
                self.volleys.append(volley)
                who = "You" if volley.mine else "Opponent"
                self.say(f"{who}: {volley.words(self.size)}")
            case BattleOver():
                self.stage = Stage.FINISHING
                self.say("The battle is over: the fleets are revealed and checked")
            case Failed():
                self.failure = event
                self.say(self._failure_words(event), trouble=True)
            case GameClosed():
                if not self.trouble:  # the last word before the end is stale now
                    self.say("")
                self.stage = Stage.OVER
                self.must_decide = False
                self.resign_pending = False
                self.ending = self._ending(event)
            case _:
                pass

    def _failure_words(self, failure: Failed) -> str:
        if failure.code == Code.CLOSED.value:
            return (
                "Connection lost: the game ends unfinished and counts for no one; the log is kept"
            )
        if failure.code == Code.TIMEOUT.value:
            return "The opponent did not answer in time: the game ends here"
        if failure.code == "wrong-key":
            return f"Not the host your invite names: {failure.detail}"
        if failure.code == ABSENT:
            return failure.detail
        who = "The opponent reported" if failure.by_peer else "The opponent broke the protocol:"
        return f"{who} {failure.code}: {failure.detail}"

    def _ending(self, closed: GameClosed) -> Ending:
        t, me = self.session.transcript, self.session.role
        won = None if closed.winner is None else closed.winner is me
        findings = tuple(
            f"{'You' if f.culprit is me else self.opponent_label()}: {f.detail}"
            for f in closed.findings
        )
        absent = self.failure is not None and self.failure.code == ABSENT
        return Ending(
            verdict="No rematch" if absent else self._verdict(closed.end, won),
            findings=findings,
            my_fleet=self.session.fleet,
            their_fleet=t.sides[self.session.peer].fleet,
            my_shots=t.shots_by(me),
            their_shots=t.shots_by(self.session.peer),
            log_path=self.link.log_path,
            won=won,
            reason=self._failure_words(self.failure) if self.failure and not closed.end else "",
        )

    def _verdict(self, end: End | None, won: bool | None) -> str:
        if end is End.SUNK:
            return "You won: you sank the whole fleet" if won else "You lost: your fleet is sunk"
        if end is End.RESIGNED:
            return "You won: the opponent resigned" if won else "You resigned: the opponent wins"
        if end is End.TIMEOUT:
            if won is None:
                return "No game: the opponent fell silent before the battle"
            if won:
                return "You won on time: the opponent stopped answering"
            return "You lost on time: you did not move within the time limit"
        if end is End.CHEATED:
            if won is None:
                return "Nobody won: both sides broke the rules"
            return "You won: the opponent cheated" if won else "You lost: your side broke the rules"
        if end is End.REFUSED:
            return "No game: the rules were declined"
        return "The game ended unfinished: nobody won"


def remaining_lengths(view: Sea) -> list[int]:
    """The lengths of the opponent's ships not yet sunk, as far as the view tells."""
    rules = view.rules
    left = list(rules.fleet)
    if view.sunk_names and rules.names:
        for name in view.sunk_names:
            length = rules.fleet[rules.names.index(name)]
            if length in left:
                left.remove(length)
        return left
    for ship in view.sunk_ships:
        if len(ship) in left:
            left.remove(len(ship))
        elif left:
            left.remove(min(left))
    return left


def squares_text(squares: int, size: int) -> str:
    return " ".join(square_name(s, size) for s in squares_of(squares))

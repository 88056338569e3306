"""The client's whole state as a plain object: no terminal, no socket, no clock.

``Model`` holds what a player sees and does: placing the fleet, aiming and
marking shots, the last answers, the end of the game, the overlays.  It
drives a ``statki_net.protocol.session.Session`` only through a ``Link``, so the same
model plays the computer in-process (``statki_client.local``) and a person
over TCP.  The link feeds the session's events back to ``Model.handle``.
Keys, layouts and the line prompt all act on this object.

Its parts live in modules named for what they hold, each a dataclass that
``Model`` inherits: ``state`` (what every part reads: the link, the rules,
the notice), ``placement``, ``rules_screen`` (which leads into placement),
``aim`` (the seas shown and the shots), ``ending`` (the verdict and the
analysis) and ``talk`` (the players' talk); the plain values are in
``kinds``.  ``Model`` itself keeps what ties them together: the overlays,
leaving, the rematch and the session's events.  The names importable from
here before the split still are.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from statki_net.game.errors import UsageError
from statki_net.game.rules import CUSTOM_RULES_REFUSED, Ruleset, declined_as_custom
from statki_net.game.rules_words import match_presets
from statki_net.net.notices import Closed, Lost, Reconnected, Reconnecting
from statki_net.protocol.events import (
    BattleOver,
    ConnectionLost,
    Failed,
    GameClosed,
    GameStarted,
    PeerHello,
    RulesProposed,
    VolleyDone,
    YourTurn,
)
from statki_net.protocol.phases import PHASES, Period, may_resign
from statki_net.protocol.rematch import who_starts
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.protocol.wire import Role
from statki_net.referee.verify import fingerprint
from statki_net.store.history import GameRow, Tally
from statki_net.store.language import _, words

from .aim import Aiming, squares_text
from .ending import EndOfGame
from .kinds import (
    ABSENT,
    EndScreen,
    GuestAtTheDoor,
    HistorySource,
    Link,
    Overlay,
    Stage,
    Told,
    Volley,
)
from .pickup import PickingUp
from .placement import Placed
from .rules_screen import RulesScreen
from .talk import Talking

# Everything importable from here before the split, so importers need not change.
__all__ = [
    "ABSENT",
    "EndScreen",
    "HistorySource",
    "Link",
    "Model",
    "Overlay",
    "Placed",
    "Stage",
    "Volley",
    "squares_text",
]


BEFORE_THE_BATTLE = (Stage.CONNECTING, Stage.RULES, Stage.PLACING, Stage.WAITING)
"""The stages a player leaves by ``Link.leave``: the battle has not begun."""

STAGE_OF_PERIOD = {Period.BATTLE: Stage.BATTLE, Period.CLOSING: Stage.FINISHING}
"""The client's stage in each protocol period it draws as a stage of its own."""


@dataclass
class Model(RulesScreen, Aiming, EndOfGame, Talking, PickingUp):
    """The client's state; see the module docstring."""

    first: Role | None = None
    first_told: bool = False
    """The notice says who shoots first: a line of the battle's start, stale at its first
    volley, whoever fires it."""
    resign_pending: bool = False
    quitting: bool = False
    """The player asked to leave; the front end exits once ``done``."""
    lost: bool = False
    """The connection is lost: the game goes on in this side's log alone."""
    history: tuple[list[GameRow], list[Tally]] = field(default_factory=lambda: ([], []))
    bell: bool = True
    """Ring the terminal's bell when this side's turn begins in a timed game (``--no-bell``)."""
    bell_due: bool = False
    """The turn began and the bell is still to ring: the front end rings it, then clears this."""
    replayed: Sequence[Told] = ()
    """A game picked up from its log (``statki resume``): the events its session told so far
    (``statki_net.protocol.replay``), handled as they came, so the screen starts where the
    game stood."""
    followed: bool = False
    """The game replayed is one the daemon plays on (its screen was closed), not one picked
    up from its log: nobody left it, unless the daemon says its connection is lost."""

    def __post_init__(self) -> None:
        self.link.listen(self.handle)
        if self.replayed:
            self._pick_up_where_it_stood()
            return
        rules = self.session.rules
        if rules is not None and self.session.role is Role.HOST:
            if self.rule_choices:
                self._show_rules(rules)
            else:
                self._start_placing(rules)

    @property
    def done(self) -> bool:
        """The front end may exit: the player quit (or left to resume another game) and
        nothing is left to say."""
        return (self.quitting or self.picked is not None) and not self.resign_pending

    def _pick_up_where_it_stood(self) -> None:
        """A game restored from its log: its fleet is committed (the secrets kept say which),
        and what the screen shows comes from the events told again."""
        session = self.session
        self.rules = session.transcript.rules
        if session.fleet is not None and self.rules is not None:
            self.ships = [Placed.of(ship, self.rules.size) for ship in session.fleet.ships]
        self.stage = Stage.WAITING
        self.handle(self.replayed)
        if self.stage is not Stage.OVER:
            self.say(self._picked_up_words().format(them=self.opponent_label()))

    def _picked_up_words(self) -> str:
        """Where a game picked up stands, with ``{them}`` to fill in."""
        if not self.followed:
            return _("Game picked up from its log: waiting for {them} to come back")
        if self.session.lost is not None:
            return _("Back on the game the daemon plays: it waits for {them} to come back")
        return _("Back on the game the daemon plays: {them} is still there")

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
        if self.stage is Stage.BATTLE and self.resign_pending:
            return _("Leave now? Your resignation still goes out when your turn comes (y/n)")
        if self.stage is Stage.BATTLE:
            return _("Resign now? The opponent wins; the end screen then shows both fleets (y/n)")
        if self.stage is Stage.FINISHING:
            return _("The fleets are still being checked; quit anyway? (y/n)")
        if self.must_decide:
            return _("Quit and decline the rules? (y/n)")
        return self._leaving_words()

    def _leaving_words(self) -> str:
        """The question before leaving a game whose battle has not begun (``Link.leave``)."""
        t, me = self.session.transcript, self.session.role
        if t.accepted or (me is Role.GUEST and self.stage is Stage.WAITING):
            # Committed: from the guest's accept on, a side that stops forfeits.
            return _("Quit now and you forfeit: the opponent wins. Quit? (y/n)")
        if self.opponent_key and self.link.person:
            return _("Quit? The opponent has come, but no game began: it ends, nobody wins (y/n)")
        return _("Quit? No game has started. (y/n)")

    def confirm_quit(self) -> None:
        """Yes to the question: leave, or in the battle resign.

        A resignation ends on the end screen (its verdict, both fleets revealed), left
        with q as any end is, whether it is made at once in this side's turn or waits for
        it: leaving at once in one's own turn skipped the end the other case showed.
        """
        self.overlay = None
        if self.stage is Stage.BATTLE and self.resign_pending:
            self._leave_resigning()
            return
        if self.stage is Stage.BATTLE:
            self.resign_pending = True
            self._resign_if_possible()
            return
        self.quitting = True
        if self.must_decide:
            self.decline()
        elif self.stage in BEFORE_THE_BATTLE:
            self.link.leave()

    def _leave_resigning(self) -> None:
        """Asked again while the resignation waits for this side's turn: leave without the
        end screen.  The link resigns now, which its session (or the daemon's) sends as this
        side's next word; in this process only while the screen's close grace lasts, after
        which the connection closes and the opponent wins on time instead."""
        self.resign_pending = False
        self.quitting = True
        with contextlib.suppress(UsageError):
            self.link.resign()

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
        if self.session.closed or t.ended:
            self.resign_pending = False
            return
        if may_resign(t.phase) and t.speaker() is self.session.role:
            self.resign_pending = False
            self.link.resign()
        else:
            # Not "once the shot is answered": a hit may earn the opponent another shot.
            self.say(_("You resign as soon as your turn comes"))

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
            self.say(
                _("No rematch after this game: there is no opponent to meet again"), trouble=True
            )
            return False
        self.cancel_analysis()
        fresh = Model(
            link,
            self.rng,
            self.history_source,
            background=self.background,
            at_prompt=self.at_prompt,  # a rematch at the prompt is placed at the prompt
        )
        fresh.hints, fresh.is_rematch, fresh.bell = self.hints, True, self.bell
        fresh.opponent_name, fresh.opponent_key = self.opponent_name, self.opponent_key
        fresh.fleet_text, fresh.custom_rules = self.fleet_text, self.custom_rules
        fresh.remember_mute = self.remember_mute  # a muted rematch is kept as its game is
        if fresh.stage is Stage.PLACING:
            fresh.say(
                _("Rematch: {starter}. Place your fleet; Enter starts").format(
                    starter=fresh.starter_words()
                )
            )
        else:
            fresh.say(_("Rematch: connecting to {them} again").format(them=self.opponent_label()))
        self.__dict__.update(fresh.__dict__)
        self.link.listen(self.handle)
        return True

    @property
    def door_open(self) -> bool:
        """Someone waits, silent, for this host's hello: a first game's guest, or on a
        rematch (whose opponent is known from the last game) that opponent, most likely,
        for only it is admitted."""
        return bool(self.at_the_door) and (not self.opponent_key or self.is_rematch)

    def waiting_words(self) -> str:
        """What this side waits for before the battle, in a few words (the title, the keys)."""
        if self.opponent_key and self.opponent_shown():
            return _("waiting for {name}").format(name=self.opponent_shown())
        if self.session.role is Role.GUEST and not self.opponent_key:
            return _("waiting for the host's rules")
        if self.door_open:
            # The opponent of a game picked up may be back at the door, not a new guest.
            return (
                _("someone has connected")
                if self.can_pick_up
                else _("a guest waits for your rules")
            )
        return _("waiting for the opponent")

    def door_words(self) -> str:
        """The host's screen, once a guest has come before the rules were said: what to do."""
        if self.is_rematch:
            # Nobody's key is proven at the door (the guest's hello follows the host's): the
            # rematch admits only its opponent, but whoever connected may be anyone.
            return _(
                "Someone has connected for the rematch (only {Who} is admitted):"
                " place your fleet, Enter starts"
            ).format(Who=self._capitalised(self.opponent_label()))
        if self.can_pick_up:
            return _(
                "Someone has connected: a guest waiting for your rules, or the opponent of an"
                " unfinished game, back for it (u picks it up)"
            )
        if self.stage is Stage.RULES:
            return _(
                "A guest has connected and waits for your rules: choose them, then place your fleet"
            )
        return _("A guest has connected and waits for your rules: place your fleet, Enter starts")

    def connecting_words(self) -> str:
        """What a side waits for before there are rules to place a fleet by."""
        if self.session.role is Role.HOST:
            return _("Waiting for the opponent to connect")
        if self.opponent_key:
            return _("Connected to {them}; waiting for their rules").format(
                them=self.opponent_label()
            )
        # The host says its rules once its own fleet is placed: until then it is choosing.
        return _("Connected to the host; waiting while it chooses the rules and places its fleet")

    def agreed_first(self) -> Role | None:
        """Who shoots first as agreed in the host's hello (a rematch); None: a coin toss."""
        session = self.session
        if session.role is Role.HOST:
            return session.proposed_first
        hello = session.transcript.sides[Role.HOST].hello
        return hello.first if hello is not None else None

    def starter_words(self) -> str:
        """Who shoots first, as agreed in the host's hello: ``you start`` or ``Ala starts``."""
        them = self._capitalised(self.opponent_label())
        return who_starts(self.agreed_first(), self.session.role, them).in_words(words())

    def first_words(self, first: Role) -> str:
        """Who shoots first as the battle begins, and whether a toss or an agreement said so."""
        them = self._capitalised(self.opponent_label())
        you = first is self.session.role
        if self.agreed_first() is not None:
            if you:
                return _("You shoot first, as agreed")
            return _("{Them} shoots first, as agreed").format(Them=them)
        if you:
            return _("You won the toss: you shoot first")
        return _("{Them} won the toss and shoots first").format(Them=them)

    def _decline_custom(self, rules: Ruleset) -> None:
        """Rules that are no preset are declined unless the player admitted them.

        A host may propose rules made to win (a tiny board crowded with ships,
        where the first shooter wins): the guest says which, and why it declines.
        """
        self.rules = rules
        who = self._capitalised(self.opponent_label())
        self.say(
            _(
                "{Who} proposes custom rules ({rules}): declined;"
                " statki join --custom-rules admits them"
            ).format(Who=who, rules=match_presets(rules).words(words())),
            trouble=True,
        )
        self.link.decline(CUSTOM_RULES_REFUSED)

    # ------------------------------------------------------------ events

    def handle(self, events: Sequence[Told]) -> None:
        for event in events:
            self._handle(event)
        self._follow_the_protocol()

    def _turn_goes_on(self) -> bool:
        """Whether this side shot last, so its turn goes on (a hit earns another shot)."""
        return bool(self.volleys) and self.volleys[-1].mine

    def _follow_the_protocol(self) -> None:
        """In the battle and after it, the stage is the protocol's period; the model only follows.

        Before it, the stages are the player's own (choosing rules, placing,
        waiting with a committed fleet), which no phase tells apart; and the
        game is over when the session closed it or the link ended it (a
        connection that never became a game), which ``GameClosed`` says.
        """
        if self.stage is Stage.OVER:
            return
        stage = STAGE_OF_PERIOD.get(PHASES[self.session.transcript.phase].period)
        if stage is not None:
            self.stage = stage

    def _handle(self, event: Told) -> None:
        match event:
            case Lost():  # what was recorded, how long the wait
                self.lost = True
                said = event.words_in(words())
                self.say(_("Connection lost: {detail}").format(detail=said), trouble=True)
            case Reconnecting():  # how long is left while the game waits for a new connection
                self.say(self._capitalised(event.words_in(words())), trouble=True)
            case Reconnected():
                self.lost = False
                self.say(self._capitalised(event.words_in(words())))
            case ConnectionLost() if not self.lost:  # the session's, when no words came
                self.lost = True
                # Closed already: no game began, so none goes on in the log (its end says so).
                if self.session.closed and (ending := self.session.ending) is not None:
                    said = ending.reason.in_words(words())  # the peer left before the game
                    self.say(self._capitalised(said), trouble=True)
                else:
                    self.say(_("Connection lost: the game goes on in your log"), trouble=True)
            case Closed() if (
                self.end_screen is not None
                and not self.turned_away()  # no game: the referee's "no game" is noise
                and (referee := event.verdict_in(words()))
            ):
                self.end_screen = dataclasses.replace(self.end_screen, referee=referee)
            case GuestAtTheDoor(connections=connections):
                self.at_the_door = connections
            case PeerHello(hello=hello):
                self.opponent_name = hello.name
                self.opponent_key = fingerprint(hello.key)
                if self.stage is Stage.WAITING and self.session.role is Role.HOST:
                    # "the game starts when a guest joins" is stale: say what comes next.
                    who = self._capitalised(self.opponent_label())
                    self.say(
                        _(
                            "{Who} joined; waiting for them to accept the rules and commit a fleet"
                        ).format(Who=who)
                    )
            case RulesProposed(rules=rules):
                if declined_as_custom(rules, self.custom_rules):
                    self._decline_custom(rules)
                else:
                    self.must_decide = True
                    self._start_placing(rules)
            case GameStarted(first=first):
                self.first = first
                self.say(self.first_words(first))
                self.first_told = True
            case YourTurn(shots=shots):
                self.marks = []
                # A hit's extra shot goes on the same turn: only a turn that begins rings.
                self.bell_due = self.bell and self.link.timed and not self._turn_goes_on()
                if self.resign_pending:
                    self._resign_if_possible()
                elif shots > 1:
                    self.say(_("Your salvo: mark {n} squares, then Enter fires").format(n=shots))
            case VolleyDone(shooter=shooter, squares=squares, answer=answer):
                volley = Volley(shooter is self.session.role, squares, answer)
                self.volleys.append(volley)
                # The last-shot lines tell every volley of the turn; a notice would repeat one.
                # The player's own shot makes what was said before it stale, and the first
                # volley, whoever fired it, the line on who shoots first (not a trouble).
                if volley.mine or (self.first_told and not self.trouble):
                    self.say("")
                self.first_told = False
            case BattleOver():
                self.say(_("The battle is over: the fleets are revealed and checked"))
            case TalkHeard() | TalkSaid():
                self.hear(event)
            case Failed():
                self.failure = event
                self.say(self._failure_words(event), trouble=True)
            case GameClosed():
                if not self.trouble:  # the last word before the end is stale now
                    self.say("")
                self.stage = Stage.OVER
                self.must_decide = False
                self.resign_pending = False
                self.end_screen = self._end_screen(event)
                if self.turned_away():  # its one line is the end screen's title now
                    self.say("")
            case _:
                pass

"""A game against the computer in one process: two sessions wired back to back.

``LocalGame`` is the model's ``Link`` for ``statki play``.  The player's
session and the computer's exchange their bytes in memory, with every
message signed, proved and checked exactly as over a network; the player's
log is written and the game recorded in the history as any real game is.
The computer answers at once, so every action returns with the game moved
on to the player's next decision.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import placement_for
from statki_net.ai.strategies import place_fleet
from statki_net.game.battle import Sea
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.names import computer_name
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, phrase
from statki_net.net.notices import Closed
from statki_net.protocol.endings import Result
from statki_net.protocol.events import (
    Event,
    FrameAdded,
    GameClosed,
    GameStarted,
    RulesProposed,
    YourTurn,
)
from statki_net.protocol.session import Entropy, Session
from statki_net.protocol.talk import TalkSaid
from statki_net.protocol.wire import Limits, Role
from statki_net.store.history import History
from statki_net.store.language import words
from statki_net.store.recorder import GameRecorder, LogVerdict, ending_of

from .computer import computer_key
from .kinds import Told

SLOW_PLACEMENTS = ("hard",)
"""Placements that take seconds (hundreds of candidate fleets): planned ahead in a thread."""

Clock = Callable[[], int]
Chooser = Callable[[Sea, int], tuple[int, ...]]
"""The computer's aim: (its view, shots due) -> squares."""


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


COMPUTER_PEER = "computer, in-process"
"""The opponent as this side's log header names it."""


def simple_chooser(rng: random.Random) -> Chooser:
    """Fire at random squares not known yet (any squares once none are left)."""

    def choose(view: Sea, count: int) -> tuple[int, ...]:
        area = view.rules.size**2
        unknown = [s for s in range(area) if not view.known >> s & 1]
        shots = rng.sample(unknown, min(count, len(unknown)))
        return tuple(shots + rng.sample(range(area), count - len(shots)))

    return choose


class LocalGame:
    """The player (host, proposing ``rules``) against a computer guest; a ``Link``."""

    def __init__(
        self,
        rules: Ruleset,
        key: Ed25519PrivateKey,
        *,
        name: str,
        strategy: str,
        placement: str | None = None,
        chooser: Chooser,
        rng: random.Random,
        home: Path | None = None,
        history: History | None = None,
        clock: Clock = wall_clock_ms,
        entropy: Entropy = secrets.token_bytes,
        starter: Role | None = None,
    ) -> None:
        self.rules = rules
        self.key = key
        self.name = name
        self.strategy = strategy
        self.placement = placement
        """How the computer places its fleet: ``random``, ``hard``, or (None) as its strength."""
        self.chooser = chooser
        self.rng = rng
        self.home = home
        self.history = history
        self.clock = clock
        self.entropy = entropy
        self.starter = starter
        """Who shoots first, proposed in the hello (a rematch); None lets the coin decide."""
        self.first: Role | None = None
        self.recorder: GameRecorder | None = None
        self._listeners: list[Callable[[Sequence[Told]], None]] = []
        self._judged: LogVerdict | None = None
        """The referee's judgement of the log just closed, still to be told."""
        self._session, self._bot = self._pair()
        self._planned: tuple[Ruleset, str, Future[Fleet]] | None = None
        self._plan_placement()

    def _plan_placement(self) -> None:
        """The hard placement costs 1-3 s of CPU: begun in a thread as soon as the rules and
        the computer are known, while the player places theirs, so that Enter is answered at
        once (it froze the screen with nothing on it).  Its own generator, drawn from
        ``rng`` now, keeps a seeded game the same game."""
        placement = placement_for(self.strategy, self.placement)
        if placement not in SLOW_PLACEMENTS:
            self._planned = None
            return
        rules, rng, planned = self.rules, random.Random(self.rng.getrandbits(256)), Future[Fleet]()

        def place() -> None:
            try:
                planned.set_result(place_fleet(rules, placement, rng))
            except BaseException as error:  # told where the fleet is wanted
                planned.set_exception(error)

        threading.Thread(target=place, name="statki-placement", daemon=True).start()
        self._planned = (rules, placement, planned)

    def _computer_fleet(self, rules: Ruleset) -> Fleet:
        """The computer's fleet for ``rules``: the one planned, when planned for them."""
        placement = placement_for(self.strategy, self.placement)
        if self._planned is not None and self._planned[:2] == (rules, placement):
            return self._planned[2].result()
        return place_fleet(rules, placement, self.rng)

    def _pair(self) -> tuple[Session, Session]:
        player = Session(
            Role.HOST,
            self.key,
            name=self.name,
            entropy=self.entropy,
            rules=self.rules,
            first=self.starter,
        )
        bot = Session(
            Role.GUEST,
            computer_key(self.strategy),
            name=computer_name(self.strategy),
            entropy=self.entropy,
        )
        return player, bot

    # ------------------------------------------------------------ the Link

    @property
    def session(self) -> Session:
        return self._session

    @property
    def timed(self) -> bool:
        # The computer answers at once and the player may think as long as they like:
        # nobody claims the game on time, so no limit is shown (the hello still carries one).
        return False

    @property
    def person(self) -> bool:
        return False  # the computer reads no talk: the key bar offers no t and m

    @property
    def log_path(self) -> Path | None:
        return self.recorder.log_path if self.recorder else None

    def listen(self, listener: Callable[[Sequence[Told]], None]) -> None:
        self._listeners = [listener]

    def begin(self, fleet: Fleet) -> None:
        if self._session.transcript.frames:
            raise UsageError(phrase(N_("the game has begun already")))
        self._session.set_fleet(fleet)
        events = self._handshake()
        if self.home is not None:
            self.recorder = GameRecorder(self.home / "logs", self.history, peer=COMPUTER_PEER)
            self.recorder.open(self._session, self.clock())
            self.recorder.started(self._session, self.clock())
        self._deliver([e for e in events if not isinstance(e, FrameAdded)])

    def decline(self, reason: str) -> None:
        raise UsageError(phrase(N_("the player proposes the rules against the computer")))

    def shoot(self, squares: tuple[int, ...]) -> None:
        self._run(self._session.shoot(squares, self.clock()))

    def resign(self) -> None:
        self._run(self._session.resign(self.clock()))

    def leave(self) -> None:
        """Before the battle against the computer nothing is at stake: nobody waits."""

    def say(self, text: str) -> None:
        """The computer never talks: what it is told is kept in the player's log, unanswered."""
        self._run(self._session.say(text, self.clock()))

    def use_computer(self, strategy: str, chooser: Chooser) -> None:
        """Play another computer (a strength chosen on the rules screen): only before ``begin``."""
        if self._session.transcript.frames:
            raise UsageError(phrase(N_("the game has begun already")))
        self.strategy, self.chooser = strategy, chooser
        self._session, self._bot = self._pair()
        self._plan_placement()

    def propose(self, rules: Ruleset) -> None:
        """Play under ``rules`` instead: both sessions start afresh, nothing having been said."""
        if self._session.transcript.frames:
            raise UsageError(phrase(N_("the game has begun already")))
        self.rules = rules
        self._session, self._bot = self._pair()
        self._plan_placement()

    def propose_limits(self, limits: Limits) -> None:
        """Nothing to change: against the computer no move is timed (``timed``)."""

    @property
    def can_rematch(self) -> bool:
        """The computer is always there for another game."""
        return True

    def rematch(self) -> LocalGame:
        """The same opponent and rules; the side that did not shoot first now does."""
        starter = self.first.other if self.first else None
        return LocalGame(
            self.rules,
            self.key,
            name=self.name,
            strategy=self.strategy,
            placement=self.placement,
            chooser=self.chooser,
            rng=self.rng,
            home=self.home,
            history=self.history,
            clock=self.clock,
            entropy=self.entropy,
            starter=starter,
        )

    # ------------------------------------------------------------ moving bytes

    def _handshake(self) -> list[Event]:
        """Hello, accept, commit and toss, up to the first shot."""
        events = self._session.start(self.clock())
        events += self._exchange()
        self.first = next((e.first for e in events if isinstance(e, GameStarted)), None)
        return events

    def _exchange(self) -> list[Event]:
        """Carry bytes both ways, letting the computer act, until both sides are quiet."""
        mine: list[Event] = []
        for _ in range(100_000):  # bounded: a whole game is a few hundred messages
            moved = False
            data = self._session.data_to_send()
            if data:
                moved = True
                self._computer(self._bot.receive_data(data, self.clock()))
            data = self._bot.data_to_send()
            if data:
                moved = True
                mine += self._session.receive_data(data, self.clock())
            if not moved:
                break
        return mine

    def _computer(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, RulesProposed):
                self._bot.accept(self._computer_fleet(event.rules), self.clock())
            elif isinstance(event, YourTurn) and self._bot.view is not None:
                self._bot.shoot(self.chooser(self._bot.view, event.shots), self.clock())

    def _run(self, events: list[Event]) -> None:
        events = events + self._exchange()
        if self.recorder:
            self._record(self.recorder, events)
        told: list[Told] = [e for e in events if not isinstance(e, FrameAdded)]
        verdict, self._judged = self._judged, None
        if verdict is not None:  # the referee's words on the log, after the close
            told.append(self._closed(verdict))
        self._deliver(told)

    def _closed(self, verdict: LogVerdict) -> Closed:
        session, me = self._session, self._session.role
        ending = verdict.ending or session.ending
        t = session.transcript
        return Closed(
            ending.result(me) if ending else Result.NONE,
            ending.end if ending else None,
            verdict=verdict.headline_in(words()),
            failure=None,
            log=self.log_path,
            my_shots=t.shots_by(me),
            their_shots=t.shots_by(me.other),
            standing=verdict.standing,
        )

    def _record(self, recorder: GameRecorder, events: list[Event]) -> None:
        """Log the frames; at the close, judge the log as a referee would and record the end.

        The log is short and the computer waits: judged here, not in a thread.
        """
        for event in events:
            if isinstance(event, FrameAdded):
                recorder.frame(event.frame)
            elif isinstance(event, TalkSaid):
                recorder.talk(event.frame)
        if any(isinstance(e, GameClosed) for e in events):
            verdict = recorder.judge()
            recorder.ended(self._session, ending_of(self._session), verdict, self.clock())
            self._judged = verdict

    def _deliver(self, events: Sequence[Told]) -> None:
        for listener in self._listeners:
            listener(events)

"""The battle: answering shots, the shooter's view, whose turn, who won.

Everything here is a pure function of the rules, the fleet and what was said,
so both peers and a referee compute the same turns from the same answers.
A *volley* is what one player fires in one go: a single shot, or a salvo.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from statki_net.game.board import bit, bitboard_of, popcount, side_neighbours, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, forbidden_around
from statki_net.game.rules import Report, Ruleset, Touching, Turns
from statki_net.game.words import ENGLISH, N_, Words, phrase


class Outcome(enum.StrEnum):
    """What one shot found."""

    MISS = "miss"
    HIT = "hit"
    SUNK = "sunk"


@dataclass(frozen=True)
class Answer:
    """What the defender says about one volley.

    Under ``report = count`` the shots are not answered one by one: only
    ``hits`` and ``sunk`` are told, and ``outcomes`` is empty.
    """

    outcomes: tuple[Outcome, ...]
    """One per shot, in the order fired; empty under ``report = count``."""
    hits: int
    """How many shots found a ship (sinking shots included)."""
    sunk: int
    """How many ships this volley sank."""
    names: tuple[str, ...] = ()
    """The sunk ships' names, where the rules name them."""

    @classmethod
    def single(cls, outcome: Outcome, name: str | None = None) -> Answer:
        return cls(
            (outcome,),
            hits=int(outcome is not Outcome.MISS),
            sunk=int(outcome is Outcome.SUNK),
            names=(name,) if name else (),
        )

    def words(self, words: Words = ENGLISH) -> str:
        """The answer as a player says it: ``hit``, ``sunk: cruiser``, ``2 hits, 1 sunk``
        (in Polish: ``trafiony``, ``trafiony, zatopiony``)."""
        _ = words.gettext
        if self.outcomes and len(self.outcomes) == 1:
            if self.names:
                return _("sunk: {name}").format(name=_(self.names[0]))
            return outcome_words(self.outcomes[0], words)
        if self.outcomes:
            return ", ".join(self.each_in_words(words))
        parts = [words.ngettext("{n} hit", "{n} hits", self.hits).format(n=self.hits)]
        if self.sunk:
            if self.names:
                parts.append(_("sunk: {name}").format(name=", ".join(map(_, self.names))))
            else:
                parts.append(_("{n} sunk").format(n=self.sunk))
        return ", ".join(parts)

    def each_in_words(self, words: Words = ENGLISH) -> tuple[str, ...]:
        """Each shot's answer, in the order fired (none under ``report = count``): a record
        lists a salvo's squares one under another, each beside its own answer."""
        _ = words.gettext
        # Each sinking shot says the ship it sank (the names come in the order sunk), so
        # a named sink is said once: "hit, sunk: cruiser", not "hit, sunk, sunk: cruiser".
        names = iter(self.names)
        return tuple(
            _("sunk: {name}").format(name=_(name))
            if o is Outcome.SUNK and (name := next(names, None))
            else outcome_words(o, words)
            for o in self.outcomes
        )


def outcome_words(outcome: Outcome, words: Words = ENGLISH) -> str:
    """An answer as a player says it (pudło, trafiony, trafiony zatopiony); in the catalog's
    context "answer", apart from a game's end (``sunk``: the whole fleet)."""
    match outcome:
        case Outcome.MISS:
            return words.pgettext("answer", "miss")
        case Outcome.HIT:
            return words.pgettext("answer", "hit")
        case Outcome.SUNK:
            return words.pgettext("answer", "sunk")


# ---------------------------------------------------------------- the defender


@dataclass(frozen=True)
class Defence:
    """A player's own sea: the fleet and the squares the opponent has shot."""

    rules: Ruleset
    fleet: Fleet
    shot: int = 0
    """Bitboard of squares shot at so far."""

    def answer(self, shots: Sequence[int]) -> tuple[Answer, Defence]:
        """Answer a volley truthfully from the fleet; return the answer and the new sea."""
        check_volley(self.rules, shots)
        shot = self.shot
        outcomes = []
        names = []
        for square in shots:
            repeated = bool(shot & bit(square))
            shot |= bit(square)
            index = self.fleet.ship_at(square)
            if repeated or index is None:
                outcomes.append(Outcome.MISS)
            elif bitboard_of(self.fleet.ships[index]) & ~shot == 0:
                outcomes.append(Outcome.SUNK)
                if self.rules.name_sunk:
                    names.append(self.rules.names[index])
            else:
                outcomes.append(Outcome.HIT)
        answer = Answer(
            tuple(outcomes) if self._tells_each() else (),
            hits=sum(o is not Outcome.MISS for o in outcomes),
            sunk=outcomes.count(Outcome.SUNK),
            names=tuple(names),
        )
        return answer, Defence(self.rules, self.fleet, shot)

    def _tells_each(self) -> bool:
        return not (self.rules.turns is Turns.SALVO and self.rules.report is Report.COUNT)

    def sunk_ships(self) -> list[int]:
        return [
            i for i, ship in enumerate(self.fleet.ships) if all(self.shot & bit(s) for s in ship)
        ]

    @property
    def afloat(self) -> int:
        return len(self.fleet.ships) - len(self.sunk_ships())

    @property
    def marked(self) -> int:
        """Squares known empty to both sides because of sunk ships."""
        if not tells_cells(self.rules):
            return 0
        marked = 0
        for index in self.sunk_ships():
            marked |= forbidden_around(self.rules, bitboard_of(self.fleet.ships[index]))
        return marked & ~self.shot


def tells_cells(rules: Ruleset) -> bool:
    """Whether answers say which squares hit (all but salvo with a hit count)."""
    return not (rules.turns is Turns.SALVO and rules.report is Report.COUNT)


def check_volley(rules: Ruleset, shots: Sequence[int]) -> None:
    area = rules.size * rules.size
    if not shots:
        raise UsageError(phrase(N_("a volley needs at least one shot")))
    # The lowest and the highest, not each shot in a generator (checked twice an answer).
    if min(shots) < 0 or max(shots) >= area:
        raise UsageError(phrase(N_("a shot is off the board")))


# ---------------------------------------------------------------- the shooter


class Cell(enum.StrEnum):
    """A square of the opponent's sea as the shooter sees it."""

    UNKNOWN = "unknown"
    MISS = "miss"
    HIT = "hit"
    SUNK = "sunk"
    EMPTY = "empty"
    """Not shot, but known empty: next to a sunk ship."""
    SHOT = "shot"
    """Shot, result not told (salvo answered with a hit count)."""


@dataclass(frozen=True)
class Sea:
    """The shooter's view of the opponent's sea, built from answers only."""

    rules: Ruleset
    shot: int = 0
    hit: int = 0
    sunk: int = 0
    """Squares known to belong to sunk ships."""
    marked: int = 0
    """Squares known empty without being shot."""
    hits_told: int = 0
    """Total hits counted, for salvo answered with a count."""
    sunk_ships: tuple[tuple[int, ...], ...] = ()
    """Each sunk ship as far as its squares are known, in the order sunk."""
    sunk_names: tuple[str, ...] = ()
    sunk_open: tuple[int, ...] = ()
    """Per sink, in the order sunk: the hits not yet known sunk when it sank, as a bitboard.

    The sunk ship lies within them (it holds the sinking shot and only hits
    made before it), which matters where ships may touch and a sink tells
    only its square.  0 where answers do not say which shots hit.
    """

    def cell(self, square: int) -> Cell:
        mask = bit(square)
        if self.sunk & mask:
            return Cell.SUNK
        if self.hit & mask:
            return Cell.HIT
        if self.shot & mask:
            return Cell.MISS if tells_cells(self.rules) else Cell.SHOT
        if self.marked & mask:
            return Cell.EMPTY
        return Cell.UNKNOWN

    @property
    def known(self) -> int:
        """Squares nothing can be learnt from: shot or marked."""
        return self.shot | self.marked

    @property
    def afloat(self) -> int:
        return len(self.rules.fleet) - len(self.sunk_ships)

    def apply(self, shots: Sequence[int], answer: Answer) -> Sea:
        """The view after a volley and its answer; UsageError for an answer of a wrong shape."""
        check_answer_shape(self.rules, shots, answer)
        return self.applied(shots, answer)

    def applied(self, shots: Sequence[int], answer: Answer) -> Sea:
        """``apply`` of an answer whose shape is checked already (``check_answer_shape``, as
        the transcript checks every answer's before it takes it)."""
        rules = self.rules
        shot = self.shot | bitboard_of(shots)
        hit, sunk, marked = self.hit, self.sunk, self.marked
        sunk_ships, sunk_open = self.sunk_ships, self.sunk_open
        if not answer.outcomes:  # totals only: the sinks are known, not where
            sunk_ships += ((),) * answer.sunk
            sunk_open += (0,) * answer.sunk
        for square, outcome in zip(shots, answer.outcomes, strict=True) if answer.outcomes else ():
            if outcome is not Outcome.MISS:
                hit |= bit(square)
            if outcome is Outcome.SUNK:
                ship = self._ship_through(square, hit, sunk)
                sunk_open += (hit & ~sunk,)
                sunk |= ship
                marked = (marked | forbidden_around(rules, ship)) & ~shot
                sunk_ships += (tuple(squares_of(ship)),)
        # One new view, made once: every answer of a game is applied three times (by the
        # shooter, by the defender, and for the defender's proofs), and ``replace`` per
        # change cost more than the rest of this.
        return Sea(
            rules,
            shot=shot,
            hit=hit,
            sunk=sunk,
            marked=marked,
            hits_told=self.hits_told + answer.hits,
            sunk_ships=sunk_ships,
            sunk_names=self.sunk_names + answer.names,
            sunk_open=sunk_open,
        )

    def _ship_through(self, square: int, hit: int, sunk: int) -> int:
        """The sunk ship's squares: the line of unsunk hits through ``square``, among the
        ``hit`` squares known so far, of which ``sunk`` are known sunk already.

        Where ships may not touch by a side, the hits joined by sides to the
        sinking shot are exactly that ship.  Where they may, only the sinking
        square is certain.
        """
        if self.rules.touching is Touching.ANY:
            return bit(square)
        hits = hit & ~sunk
        neighbours = side_neighbours(self.rules.size)
        ship = bit(square)
        frontier = ship
        while frontier:
            grown = 0
            for s in squares_of(frontier):
                grown |= neighbours[s]
            frontier = grown & hits & ~ship
            ship |= frontier
        return ship


def check_answer_shape(rules: Ruleset, shots: Sequence[int], answer: Answer) -> None:
    """Raise UsageError when an answer cannot belong to this volley under these rules."""
    check_volley(rules, shots)
    if tells_cells(rules):
        if len(answer.outcomes) != len(shots):
            raise UsageError(phrase(N_("the answer must give one outcome per shot")))
        if answer.hits != sum(o is not Outcome.MISS for o in answer.outcomes):
            raise UsageError(phrase(N_("the hit count disagrees with the outcomes")))
        if answer.sunk != sum(o is Outcome.SUNK for o in answer.outcomes):
            raise UsageError(phrase(N_("the sunk count disagrees with the outcomes")))
    elif answer.outcomes:
        raise UsageError(
            phrase(N_("under salvo with a hit count the shots are not answered one by one"))
        )
    if not 0 <= answer.sunk <= answer.hits <= len(shots):
        raise UsageError(phrase(N_("more hits or sinks than shots")))
    if rules.name_sunk and len(answer.names) != answer.sunk:
        raise UsageError(phrase(N_("every sunk ship must be named")))
    if not rules.name_sunk and answer.names:
        raise UsageError(phrase(N_("these rules do not name sunk ships")))
    if any(name not in rules.names for name in answer.names):
        raise UsageError(phrase(N_("an unknown ship name")))


# ---------------------------------------------------------------- turns


def volley_size(rules: Ruleset, shooter_afloat: int) -> int:
    """How many shots the shooter fires now: their ships afloat in salvo, else one."""
    return max(1, shooter_afloat) if rules.turns is Turns.SALVO else 1


def shoots_again(rules: Ruleset, answer: Answer) -> bool:
    """Whether the same player fires the next volley."""
    return rules.turns is Turns.CHAIN and answer.hits > 0


def fleet_destroyed(rules: Ruleset, sunk_so_far: int) -> bool:
    return sunk_so_far >= len(rules.fleet)


@dataclass(frozen=True)
class Score:
    """Whose turn it is and how the game stands, from the answers alone.

    Players are 0 and 1; ``sunk[p]`` counts the ships player ``p`` has sunk.
    """

    rules: Ruleset
    to_move: int
    sunk: tuple[int, int] = (0, 0)
    volleys: int = 0

    @property
    def winner(self) -> int | None:
        for player in (0, 1):
            if fleet_destroyed(self.rules, self.sunk[player]):
                return player
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def shots_due(self) -> int:
        """Shots in the next volley: salvo counts the mover's ships still afloat."""
        own_afloat = len(self.rules.fleet) - self.sunk[1 - self.to_move]
        return volley_size(self.rules, own_afloat)

    def after(self, answer: Answer) -> Score:
        """The score after the player to move fired a volley and got ``answer``."""
        if self.over:
            raise UsageError(phrase(N_("the game is over")))
        sunk = list(self.sunk)
        sunk[self.to_move] += answer.sunk
        mover = self.to_move if shoots_again(self.rules, answer) else 1 - self.to_move
        return Score(self.rules, mover, (sunk[0], sunk[1]), self.volleys + 1)


def hits_of(sea: Sea) -> int:
    return popcount(sea.hit) if tells_cells(sea.rules) else sea.hits_told

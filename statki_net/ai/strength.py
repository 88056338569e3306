"""How strong the computer plays: easy, medium, hard, each a strategy, a placement and mistakes.

A person who plays on paper does not fire at random when they err.  They
forget that a square beside a sunk ship was crossed out, or miss that a gap
is too small for any ship left, and fire there; after a hit they try the
squares around it one by one instead of reading which way the hits line up.
The easy and medium computers make those mistakes, at the rates the table
gives; the hard one makes none.

``STRENGTHS`` is the one table.  A strength's name is also a player's name
(``player_named``), so ``--bot medium`` and ``--strength medium`` play alike.
Pure: the mistakes are drawn from the generator the strategy is given.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from types import MappingProxyType

from statki_net.ai.density import per_ship_scores, target_hits
from statki_net.ai.strategies import Strategy, strategy_named
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import bit, full_board, side_neighbours, squares_of
from statki_net.game.words import N_


class Strength(enum.StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True)
class Level:
    """What one strength plays."""

    strategy: str
    """The strategy it aims by when it makes no mistake (``strategies.STRATEGIES``)."""
    placement: str
    """How it places its own fleet (``strategies.PLACEMENTS``)."""
    forgets: float
    """Per shot, the chance it fires at a square it should know is empty instead."""
    trial: float
    """Per volley with a ship to finish, the chance it tries around a hit, not along its line."""
    description: str


STRENGTHS: Mapping[Strength, Level] = MappingProxyType(
    {
        Strength.EASY: Level(
            "random",
            "random",
            forgets=0.2,
            trial=1.0,
            description=N_("searches at random, finishes a ship by trial, often forgets a mark"),
        ),
        Strength.MEDIUM: Level(
            "per-ship",
            "random",
            forgets=0.03,
            trial=0.3,
            description=N_("counts where each ship fits, now and then finishes by trial"),
        ),
        Strength.HARD: Level(
            "density",
            "hard",
            forgets=0.0,
            trial=0.0,
            description=N_("whole-fleet probabilities, no mistakes, a fleet hard to find"),
        ),
    }
)
"""Each strength's strategy, placement and mistake rates (measured in the README)."""

DEFAULT_STRENGTH = Strength.MEDIUM
"""The computer a person meets unless they choose: neither a pushover nor the best."""


def strength_named(name: str) -> Strength | None:
    """The strength called ``name``, or None where it names no strength."""
    try:
        return Strength(name)
    except ValueError:
        return None


def forgettable(sea: Sea) -> int:
    """Squares a careless player may fire at although nothing can be there.

    Squares marked empty beside a sunk ship and not shot, and unknown squares
    where no ship still afloat fits: both known empty to a careful player.
    """
    if not tells_cells(sea.rules):
        return 0
    unknown = full_board(sea.rules.size) & ~sea.known
    scores = per_ship_scores(sea)
    hopeless = sum(bit(s) for s in squares_of(unknown) if scores[s] <= 0)
    return (sea.marked & ~sea.shot) | hopeless


def by_trial(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Shots at unknown squares beside hits of ships not yet sunk, in no order of reason.

    Empty when there is no such square: there is nothing to finish.
    """
    neighbours = side_neighbours(sea.rules.size)
    around = 0
    for hit in squares_of(target_hits(sea)):
        around |= neighbours[hit]
    options = list(squares_of(around & ~sea.known))
    rng.shuffle(options)
    return tuple(options[:count])


def with_mistakes(sea: Sea, shots: tuple[int, ...], forgets: float, rng: Random) -> tuple[int, ...]:
    """``shots``, each replaced at rate ``forgets`` by a square the player forgot was empty."""
    if forgets <= 0:
        return shots
    wasted = forgettable(sea)
    chosen: list[int] = []
    for shot in shots:
        if rng.random() < forgets:
            options = [s for s in squares_of(wasted) if s not in chosen and s not in shots]
            if options:
                shot = rng.choice(options)
        chosen.append(shot)
    return tuple(chosen)


def strength_player(strength: Strength) -> Strategy:
    """The strategy a strength plays, mistakes included."""
    level = STRENGTHS[strength]
    aim = strategy_named(level.strategy)

    def play(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
        shots: tuple[int, ...] = ()
        if level.trial and rng.random() < level.trial:
            shots = by_trial(sea, count, rng)
        if len(shots) < count:
            rest = [s for s in aim(sea, count + len(shots), rng) if s not in shots]
            shots += tuple(rest[: count - len(shots)])
        return with_mistakes(sea, shots, level.forgets, rng)

    return play


def player_named(name: str) -> Strategy:
    """The computer player called ``name``: a strength, else a strategy."""
    strength = strength_named(name)
    return strength_player(strength) if strength else strategy_named(name)

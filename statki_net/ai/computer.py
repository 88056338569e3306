"""The computer player as the network layer uses it: a fleet and volleys.

The strategies live in ``strategies`` and the strengths in ``strength``;
this only binds a player's name (a strength or a strategy) to a generator so
a game driver can ask "where next?".
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from statki_net.ai import strategies
from statki_net.ai.strength import (
    DEFAULT_STRENGTH,
    STRENGTHS,
    Strength,
    player_named,
    strength_named,
)
from statki_net.game.battle import Sea
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, phrase

STRATEGIES = list(strategies.STRATEGIES)
"""The strategies ``--bot`` takes (a strength's name is taken too)."""

PLAYERS = [*STRATEGIES, *(strength.value for strength in Strength)]
"""Every name a computer player goes by: the strategies, then the strengths."""


def check_strategy(name: str) -> str:
    """``name`` when it names a computer player (a strategy or a strength)."""
    if name not in PLAYERS:
        raise UsageError(
            phrase(
                N_("unknown strategy {name}; choose from {names}"),
                name=repr(name),
                names=", ".join(PLAYERS),
            )
        )
    return name


PLACEMENTS = list(strategies.PLACEMENTS)
"""The names ``--placement`` takes."""


def check_placement(name: str) -> str:
    if name not in PLACEMENTS:
        raise UsageError(
            phrase(
                N_("unknown placement {name}; choose from {names}"),
                name=repr(name),
                names=", ".join(PLACEMENTS),
            )
        )
    return name


def placement_for(player: str, placement: str | None = None) -> str:
    """The placement asked for, else the strength's own, else uniformly random."""
    if placement is not None:
        return check_placement(placement)
    strength = strength_named(player)
    return STRENGTHS[strength].placement if strength else "random"


def chosen_player(strength: str | None, bot: str | None) -> str:
    """The player the options name: ``--bot`` when given, else ``--strength`` or the default."""
    if bot:
        return check_strategy(bot)
    return Strength(strength).value if strength else DEFAULT_STRENGTH.value


@dataclass
class ComputerPlayer:
    strategy: str
    """Its player's name: a strategy, or a strength (which adds mistakes and a placement)."""
    rng: Random
    placement: str | None = None
    """How it places its own fleet: uniformly at random, ``hard`` to find, or (None) as
    its strength does (random for a plain strategy)."""

    def fleet(self, rules: Ruleset) -> Fleet:
        return strategies.place_fleet(rules, placement_for(self.strategy, self.placement), self.rng)

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        if count < 1:
            raise UsageError(phrase(N_("a volley needs at least one shot")))
        return player_named(check_strategy(self.strategy))(view, count, self.rng)

"""The computer player as the network layer uses it: a fleet and volleys.

The strategies themselves live in ``strategies``; this only binds a strategy's
name to a generator so a game driver can ask "where next?".
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from statki_net.ai import strategies
from statki_net.game.battle import Sea
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet
from statki_net.game.rules import Ruleset

STRATEGIES = list(strategies.STRATEGIES)
"""The names ``--bot`` takes."""


def check_strategy(name: str) -> str:
    if name not in STRATEGIES:
        raise UsageError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return name


PLACEMENTS = list(strategies.PLACEMENTS)
"""The names ``--placement`` takes."""


def check_placement(name: str) -> str:
    if name not in PLACEMENTS:
        raise UsageError(f"unknown placement {name!r}; choose from {', '.join(PLACEMENTS)}")
    return name


@dataclass
class ComputerPlayer:
    strategy: str
    rng: Random
    placement: str = "random"
    """How it places its own fleet: uniformly at random, or ``hard`` to find."""

    def fleet(self, rules: Ruleset) -> Fleet:
        return strategies.place_fleet(rules, self.placement, self.rng)

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        return strategies.choose_shots(self.strategy, view, count, self.rng)

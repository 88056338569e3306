"""The computer player as the network layer uses it: a fleet and volleys.

The strategies themselves live in ``strategies``; this only binds a strategy's
name to a generator so a game driver can ask "where next?".  Until that
module is present, a plain "random unknown square" player stands in.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from .battle import Cell, Sea
from .errors import UsageError
from .fleet import Fleet, random_fleet
from .rules import Ruleset

Chooser = Callable[[str, Sea, int, random.Random], tuple[int, ...]]


def _random_unknown(name: str, sea: Sea, count: int, rng: random.Random) -> tuple[int, ...]:
    area = sea.rules.size**2
    unknown = [s for s in range(area) if sea.cell(s) is Cell.UNKNOWN]
    chosen = rng.sample(unknown, min(count, len(unknown)))
    return tuple(chosen + rng.sample(range(area), count - len(chosen)))


def _strategies() -> tuple[list[str], Chooser]:
    try:
        from . import strategies
    except ImportError:  # the computer-player module has not landed in this checkout
        return ["random"], _random_unknown
    return list(strategies.STRATEGIES), strategies.choose_shots


STRATEGIES, _choose = _strategies()
"""The names ``--bot`` takes."""


def check_strategy(name: str) -> str:
    if name not in STRATEGIES:
        raise UsageError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return name


@dataclass
class ComputerPlayer:
    strategy: str
    rng: random.Random

    def fleet(self, rules: Ruleset) -> Fleet:
        return random_fleet(rules, self.rng)

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        return _choose(self.strategy, view, count, self.rng)

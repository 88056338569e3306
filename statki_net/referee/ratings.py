"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2022 revision).

Our own, small and pure, rather than PyPI's ``glicko2`` (2.1.0): that package's
volatility step computes Glickman's f(x) with the player's rating where the
paper has its deviation (phi squared), so the volatility drifts wrongly for any
player not rated 1500; it is also untyped and keeps tau on the class.  This
one follows the paper's steps 1 to 8 one function a step and is checked
against its worked example to the published digits (tests/referee/test_ratings.py).

``rate`` is one rating period for one player: its results against opponents
as they stood at the start of the period (Glicko-2 updates everyone at once).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's scale: ratings are (r - 1500) / SCALE, deviations RD / SCALE."""
TAU = 0.5
"""The system constant: how fast volatility may change (Glickman suggests 0.3 to 1.2)."""
EPSILON = 0.000001
"""The convergence tolerance of step 5's iteration, as in the paper."""


@dataclass(frozen=True)
class Rating:
    """A player's rating, deviation and volatility, on the Glicko scale."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    @property
    def mu(self) -> float:
        return (self.rating - 1500.0) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


@dataclass(frozen=True)
class Outcome:
    """One game of a rating period: the opponent as rated at the period's start, and the
    score (1 a win, 0 a loss, 0.5 a draw)."""

    opponent: Rating
    score: float


def rate(player: Rating, games: Sequence[Outcome], tau: float = TAU) -> Rating:
    """The player's rating after one rating period of ``games`` (steps 2 to 8)."""
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not games:
        # Step 6 alone: the deviation grows with time unplayed; the rating stays.
        return Rating(player.rating, math.sqrt(phi**2 + sigma**2) * SCALE, sigma)
    # Step 3 and 4: each opponent's impact g and expected score E, then v and delta.
    impacts = [
        (g, _expected(mu, game.opponent.mu, g), game.score)
        for game in games
        for g in (_g(game.opponent.phi),)
    ]
    v = 1.0 / sum(g**2 * e * (1 - e) for g, e, _ in impacts)
    improvement = sum(g * (score - e) for g, e, score in impacts)
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, delta, v, tau)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    new_mu = mu + new_phi**2 * improvement
    return Rating(SCALE * new_mu + 1500.0, SCALE * new_phi, new_sigma)


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi**2 / math.pi**2)


def _expected(mu: float, mu_j: float, g: float) -> float:
    return 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm the paper gives."""
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    low = a
    if delta**2 > phi**2 + v:
        high = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)

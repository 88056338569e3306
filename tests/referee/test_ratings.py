"""Glicko-2 checked against Glickman's worked example ("Example of the Glicko-2 system").

A player rated 1500, RD 200, volatility 0.06 plays three games in a rating
period (tau 0.5): beats a 1400/30, loses to a 1550/100 and to a 1700/300.
The paper works it through step by step, carrying its tabulated g and E
(rounded to 4 and 3 places) into v and delta; each number below is the
paper's, to the digits it prints.  Computed unrounded, the final values land
within one unit of the paper's last digit, which is what is asserted.
"""

from __future__ import annotations

import math

from statki_net.referee import ratings
from statki_net.referee.ratings import SCALE, Outcome, Rating, rate

PLAYER = Rating(1500, 200, 0.06)
GAMES = [
    Outcome(Rating(1400, 30), 1.0),
    Outcome(Rating(1550, 100), 0.0),
    Outcome(Rating(1700, 300), 0.0),
]


def test_the_worked_example_steps_to_the_published_digits() -> None:
    # Step 2: the Glicko-2 scale.
    assert [round(g.opponent.mu, 4) for g in GAMES] == [-0.5756, 0.2878, 1.1513]
    assert [round(g.opponent.phi, 4) for g in GAMES] == [0.1727, 0.5756, 1.7269]
    assert round(PLAYER.phi, 4) == 1.1513
    # Step 3 and 4: g, E, v and delta, as the paper tabulates them.
    gs = [ratings._g(g.opponent.phi) for g in GAMES]
    es = [ratings._expected(PLAYER.mu, g.opponent.mu, gj) for g, gj in zip(GAMES, gs, strict=True)]
    assert [round(g, 4) for g in gs] == [0.9955, 0.9531, 0.7242]
    assert [round(e, 3) for e in es] == [0.639, 0.432, 0.303]
    # The paper carries its rounded table into v and delta.
    table = [(round(g, 4), round(e, 3), o.score) for g, e, o in zip(gs, es, GAMES, strict=True)]
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in table)
    delta = v * sum(g * (score - e) for g, e, score in table)
    assert round(v, 4) == 1.7785
    assert round(delta, 4) == -0.4834
    # Step 5: the new volatility, from the paper's v and delta.
    assert abs(ratings._volatility(PLAYER.phi, 0.06, -0.4834, 1.7785, 0.5) - 0.05999) <= 1e-5


def test_the_worked_example_ends_where_the_paper_does() -> None:
    after = rate(PLAYER, GAMES, tau=0.5)
    assert round(after.mu, 4) == -0.2069
    assert round(after.phi, 4) == 0.8722
    assert round(after.deviation, 2) == 151.52
    # sigma' = 0.059996 unrounded; the paper prints 0.05999.
    assert abs(after.volatility - 0.05999) <= 1e-5
    # The paper prints r' = 1464.06: its mu' rounded to four places, scaled back
    # (-0.2069 * 173.7178 + 1500 = 1464.058); unrounded, mu' gives 1464.051.
    assert round(round(after.mu, 4) * SCALE + 1500, 2) == 1464.06
    assert abs(after.rating - 1464.06) <= 0.01


def test_a_period_without_games_only_widens_the_deviation() -> None:
    # Step 6 alone (the paper's "if a player does not compete"): phi' = sqrt(phi^2 + sigma^2).
    after = rate(PLAYER, [])
    assert after.rating == PLAYER.rating and after.volatility == PLAYER.volatility
    assert math.isclose(after.phi, math.sqrt(PLAYER.phi**2 + 0.06**2))


def test_the_volatility_follows_the_deviation_not_the_rating() -> None:
    # PyPI's glicko2 2.1.0 uses the rating where f(x) has phi squared: for a player
    # not rated 1500 its volatility comes out 0.0600062 here; f's own root is 0.0600098.
    strong = Rating(1800, 50, 0.06)
    after = rate(strong, [Outcome(Rating(1400, 30), 0.0)])
    mu, phi = strong.mu, strong.phi
    g = ratings._g(Rating(1400, 30).phi)
    e = ratings._expected(mu, Rating(1400, 30).mu, g)
    v = 1 / (g * g * e * (1 - e))
    delta = v * g * (0.0 - e)
    a = math.log(0.06**2)
    x = math.log(after.volatility**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / 0.25

    assert abs(f(x)) < 1e-5
    assert round(after.volatility, 7) == 0.0600098

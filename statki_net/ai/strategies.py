"""Computer players: pure functions from the shooter's view to the next volley.

A strategy takes the shooter's view of the opponent's sea (``battle.Sea``),
the number of shots due and a ``Random`` it may draw from, and returns
that many squares.  Nothing here reads a clock, a file or the global random
generator, so the same view and the same generator state give the same shots.

- ``random``: uniform over unknown squares where some remaining ship still fits.
- ``per-ship``: for each remaining ship, count the positions that fit what is
  known, add them up per square, fire at the highest.
- ``hunt``: a checkerboard sized to the smallest ship left; after a hit,
  finish the ship along its line.
- ``density``: the probability that each square holds a ship over *whole*
  fleets consistent with everything known (see ``density.hit_probabilities``).

Under salvo rules every strategy picks its best *set* of distinct squares.
The estimates the players aim by (what the view implies, per-ship counts,
whole-fleet probabilities) live in ``density``; their public names are
re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from random import Random

from statki_net.ai.density import (
    DEFAULT_SAMPLES,
    EXACT_LIMIT,
    Kind,
    Probabilities,
    SinkClue,
    View,
    afloat_lengths,
    hit_probabilities,
    per_ship_scores,
    read_view,
    target_hits,
)
from statki_net.game.battle import Answer, Defence, Sea, tells_cells, volley_size
from statki_net.game.board import bit, bitboard_of, full_board, row_col, side_neighbours, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, forbidden_around, random_fleet
from statki_net.game.replay import Volley
from statki_net.game.rules import Ruleset, Touching
from statki_net.game.words import N_, phrase

Strategy = Callable[[Sea, int, Random], tuple[int, ...]]
"""A computer player: (view, shots due, generator) -> the squares to fire at."""


# ---------------------------------------------------------------- choosing shots


def _unknown(sea: Sea) -> int:
    return full_board(sea.rules.size) & ~sea.known


def choose_best(sea: Sea, scores: Sequence[float], count: int, rng: Random) -> tuple[int, ...]:
    """The ``count`` unknown squares with the highest scores, ties broken by ``rng``."""
    unknown = list(squares_of(_unknown(sea)))
    ranked = sorted(unknown, key=lambda s: (-scores[s], rng.random()))
    return _fill(sea, tuple(ranked[:count]), count, rng)


def _fill(sea: Sea, chosen: tuple[int, ...], count: int, rng: Random) -> tuple[int, ...]:
    """Top up a volley once no unknown square is left (only repeated shots remain)."""
    if len(chosen) >= count:
        return chosen[:count]
    area = sea.rules.size * sea.rules.size
    rest = [s for s in range(area) if s not in chosen]
    rng.shuffle(rest)
    return chosen + tuple(rest[: count - len(chosen)])


def _fitting_squares(sea: Sea) -> int:
    """Unknown squares where some remaining ship could stand."""
    scores = per_ship_scores(sea)
    return sum(bit(s) for s in squares_of(_unknown(sea)) if scores[s] > 0)


def random_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Uniform over unknown squares where a remaining ship fits."""
    fitting = list(squares_of(_fitting_squares(sea))) or list(squares_of(_unknown(sea)))
    chosen = tuple(rng.sample(fitting, min(count, len(fitting))))
    if len(chosen) < count:
        others = [s for s in squares_of(_unknown(sea)) if s not in chosen]
        chosen += tuple(rng.sample(others, min(count - len(chosen), len(others))))
    return _fill(sea, chosen, count, rng)


def per_ship_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Fire where the most positions of the remaining ships, each on its own, meet."""
    return choose_best(sea, per_ship_scores(sea), count, rng)


NEAR_BEST = 0.02
"""How far below the likeliest square a square's chance may be and still count as as likely.

Where ships may touch (five-ships), the hunt's best chances lie within the
sample's noise of each other, and the pick among them was the noise's.
Letting ``per-ship``'s counts (exact, no sampling) choose among the squares
within this of the best, on 900 five-ships fleets: density 44.95 -> 44.11
shots, paired -0.84 +- 0.40, all of it misses in the hunt; on 1,496 fleets
-0.57 +- 0.30, and -0.39 +- 0.30 leaving out the 300 it was chosen on
(README, "Five-ships: the hunt's near ties").
"""


def density_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Fire at the squares most likely to hold a ship, over whole consistent fleets."""
    chances = hit_probabilities(sea, rng, samples=DEFAULT_SAMPLES).squares
    if sea.rules.touching is Touching.ANY and tells_cells(sea.rules) and not target_hits(sea):
        chances = near_ties_by_counts(chances, per_ship_scores(sea))
    return choose_best(sea, chances, count, rng)


def near_ties_by_counts(chances: Sequence[float], counts: Sequence[float]) -> tuple[float, ...]:
    """Scores that put the squares within ``NEAR_BEST`` of the likeliest first, by ``counts``.

    The other squares keep their chances (below 1), so they follow in the
    chances' order, as a salvo's later shots need.
    """
    best = max(chances, default=0.0)
    most = max(counts, default=0.0) or 1.0
    return tuple(
        1.0 + counts[square] / most if 0 < chance >= best - NEAR_BEST else chance
        for square, chance in enumerate(chances)
    )


def hunt_strategy(sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """Finish a hit ship along its line; otherwise a checkerboard for the smallest ship."""
    size = sea.rules.size
    fitting = _fitting_squares(sea)
    targets = target_hits(sea)
    neighbours = side_neighbours(size)
    in_line = 0
    beside = 0
    for hit in squares_of(targets):
        for step in _line_steps(hit, targets, size):
            in_line |= _end_of_line(hit, step, targets, size)
        beside |= neighbours[hit]
    tiers: list[int] = [in_line & fitting, beside & fitting]
    smallest = min(afloat_lengths(sea), default=1)
    parity = sum(
        bit(s) for s in squares_of(fitting) if sum(row_col(s, size)) % max(1, smallest) == 0
    )
    tiers += [parity, fitting, _unknown(sea)]
    chosen: list[int] = []
    for tier in tiers:
        options = [s for s in squares_of(tier) if s not in chosen]
        rng.shuffle(options)
        chosen += options[: count - len(chosen)]
        if len(chosen) >= count:
            break
    return _fill(sea, tuple(chosen), count, rng)


def _line_steps(hit: int, hits: int, size: int) -> list[int]:
    """Directions (as square steps) in which ``hit`` has a hit neighbour."""
    row, column = row_col(hit, size)
    steps = []
    if column + 1 < size and hits >> (hit + 1) & 1:
        steps.append(1)
    if column > 0 and hits >> (hit - 1) & 1:
        steps.append(-1)
    if row + 1 < size and hits >> (hit + size) & 1:
        steps.append(size)
    if row > 0 and hits >> (hit - size) & 1:
        steps.append(-size)
    return steps


def _end_of_line(hit: int, step: int, hits: int, size: int) -> int:
    """The square just past the line of hits from ``hit`` going ``-step``."""
    square = hit
    while True:
        row, column = row_col(square, size)
        nxt = square - step
        if abs(step) == 1:
            if not 0 <= column - step < size:
                return 0
        elif not 0 <= row - step // size < size:
            return 0
        if hits >> nxt & 1:
            square = nxt
            continue
        return bit(nxt)


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "per-ship": per_ship_strategy,
    "hunt": hunt_strategy,
    "density": density_strategy,
}
"""The computer players by the name ``--bot NAME`` takes."""


def strategy_named(name: str) -> Strategy:
    try:
        return STRATEGIES[name]
    except KeyError:
        said = phrase(
            N_("unknown strategy {name}; choose from {names}"),
            name=repr(name),
            names=", ".join(STRATEGIES),
        )
        raise UsageError(said) from None


def choose_shots(name: str, sea: Sea, count: int, rng: Random) -> tuple[int, ...]:
    """The volley strategy ``name`` fires: ``count`` squares, distinct while unknown ones last."""
    if count < 1:
        raise UsageError(phrase(N_("a volley needs at least one shot")))
    return strategy_named(name)(sea, count, rng)


# ---------------------------------------------------------------- a game against a fleet


@dataclass(frozen=True)
class GameResult:
    """One shooter sinking one fleet."""

    shots: int
    misses: int
    volleys: tuple[Volley, ...]


Chooser = Callable[[Sea, int], tuple[int, ...]]
"""A strategy with its generator bound: (view, shots due) -> squares."""


def sink_fleet(
    rules: Ruleset, fleet: Fleet, choose: Chooser, *, max_volleys: int = 1000
) -> GameResult:
    """Let ``choose`` fire at ``fleet`` until every ship is sunk.

    The shooter is taken to be unharmed, so under salvo each volley has as
    many shots as the whole fleet has ships.
    """
    sea = Sea(rules)
    defence = Defence(rules, fleet)
    volleys: list[Volley] = []
    shots = misses = 0
    due = volley_size(rules, len(rules.fleet))
    while sea.afloat > 0:
        if len(volleys) >= max_volleys:
            raise UsageError("the fleet was not sunk within the volley limit")
        volley = choose(sea, due)
        answer: Answer
        answer, defence = defence.answer(volley)
        sea = sea.apply(volley, answer)
        volleys.append(Volley(len(volleys) + 1, tuple(volley), answer))
        shots += len(volley)
        misses += len(volley) - answer.hits
    return GameResult(shots, misses, tuple(volleys))


def play(rules: Ruleset, fleet: Fleet, strategy: str, rng: Random) -> GameResult:
    """Strategy ``strategy`` against ``fleet``, drawing from ``rng``."""
    player = strategy_named(strategy)
    return sink_fleet(rules, fleet, lambda sea, due: player(sea, due, rng))


# ---------------------------------------------------------------- the computer's own fleet


OPENING_SAMPLES = 20_000
"""Fleets sampled for the opening odds: once per ruleset, so it can afford many."""


@lru_cache(maxsize=16)
def opening_odds(rules: Ruleset) -> tuple[float, ...]:
    """Each square's chance of holding a ship before any shot: where ``density`` looks first.

    Sampled from a fixed seed, so it is a function of the rules alone.
    """
    return tuple(hit_probabilities(Sea(rules), Random(0), samples=OPENING_SAMPLES).squares)


def hard_fleet(rules: Ruleset, rng: Random, *, candidates: int = 400) -> Fleet:
    """A legal fleet that ``density`` takes longer to find than a random one.

    Of ``candidates`` uniformly random fleets it keeps the one that hides
    best, by what hides a fleet from ``density`` under the rules in force:

    - where a sink marks the squares around it, the fleet whose larger ships
      mark the fewest squares (packed together and against the edges): the
      most sea is left unmarked, and density has to comb it for the small
      ships at the end;
    - where nothing is marked (ships may touch), the fleet standing on the
      squares density finds least likely before the first shot, so it looks
      there last.

    Every candidate is legal, so the result is.  Measured in the README
    ("The computer player", ``statki bench placement``).
    """
    if rules.touching is Touching.ANY:
        odds = opening_odds(rules)

        def hiding(fleet: Fleet) -> float:
            return sum(odds[square] for ship in fleet.ships for square in ship)

    else:

        def hiding(fleet: Fleet) -> float:
            return float(marked_by_larger_ships(rules, fleet).bit_count())

    return min((random_fleet(rules, rng) for _ in range(max(1, candidates))), key=hiding)


def marked_by_larger_ships(rules: Ruleset, fleet: Fleet) -> int:
    """The squares the ships longer than one square take or mark when sunk, as a bitboard."""
    covered = 0
    for ship in fleet.ships:
        if len(ship) > 1:
            board = bitboard_of(ship)
            covered |= board | forbidden_around(rules, board)
    return covered


PLACEMENTS: dict[str, Callable[[Ruleset, Random], Fleet]] = {
    "random": random_fleet,
    "hard": hard_fleet,
}
"""How the computer places its own fleet, by the name ``--placement`` takes."""


def place_fleet(rules: Ruleset, placement: str, rng: Random) -> Fleet:
    try:
        place = PLACEMENTS[placement]
    except KeyError:
        choices = ", ".join(PLACEMENTS)
        said = phrase(
            N_("unknown placement {placement}; choose from {choices}"),
            placement=repr(placement),
            choices=choices,
        )
        raise UsageError(said) from None
    return place(rules, rng)


__all__ = [
    "DEFAULT_SAMPLES",
    "EXACT_LIMIT",
    "NEAR_BEST",
    "PLACEMENTS",
    "STRATEGIES",
    "Chooser",
    "GameResult",
    "Kind",
    "Probabilities",
    "SinkClue",
    "Strategy",
    "View",
    "afloat_lengths",
    "choose_shots",
    "density_strategy",
    "hard_fleet",
    "hit_probabilities",
    "hunt_strategy",
    "near_ties_by_counts",
    "per_ship_scores",
    "per_ship_strategy",
    "place_fleet",
    "play",
    "random_strategy",
    "read_view",
    "sink_fleet",
    "strategy_named",
    "target_hits",
]

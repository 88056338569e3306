"""Where the unseen ships may be, judged from the shooter's view of the sea.

Two estimates, both pure (values in, values out; randomness only from the
``Random`` passed in):

- ``per_ship_scores``: for each remaining ship on its own, the positions that
  fit what is known, added up per square.
- ``hit_probabilities``: the probability that each square holds a ship over
  *whole* fleets consistent with everything known, counted exactly when
  there are few enough and sampled otherwise.

Both start from ``read_view``, which turns the sea into constraints on the
ships not yet located.  The players of ``strategies`` turn these into volleys.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from random import Random

from statki_net.game.battle import Sea, tells_cells
from statki_net.game.board import full_board, popcount, squares_of
from statki_net.game.fleet import placements
from statki_net.game.rules import Ruleset, Touching

Kind = tuple[int, str | None]
"""A ship as the shooter can tell it apart: its length, and its name where sinks are named."""

DEFAULT_SAMPLES = 4000
"""Fleets ``hit_probabilities`` samples when there are too many to count."""
EXACT_LIMIT = 20_000
"""Consistent fleets up to which ``hit_probabilities`` counts them all instead of sampling."""
_EXACT_BUDGET = 400_000
"""Candidate checks an exact count may spend before giving up and sampling."""
_PILOT_SAMPLES = 48
_MAX_COVERS = 20_000


# ---------------------------------------------------------------- what the view implies


@dataclass(frozen=True)
class SinkClue:
    """A sink whose ship is not fully known (ships may touch): one of its squares."""

    square: int
    kinds: frozenset[Kind]
    """The kinds of ship it may have been: one, where sinks are named."""
    within: int
    """The hits the ship lies within: the sinking shot and the hits open before it."""


@dataclass(frozen=True)
class View:
    """What the shooter's sea says about where the unplaced ships may stand."""

    rules: Ruleset
    free: int
    """Squares neither shot nor marked: a ship may stand there unseen."""
    hits: int
    """Hit squares not in a ship fixed by the view; each is covered by an unplaced ship."""
    kinds: tuple[Kind, ...]
    """The distinct kinds of unplaced ships, longest first."""
    counts: tuple[int, ...]
    """How many ships of each kind are unplaced (sunk-but-not-located ones included)."""
    clues: tuple[SinkClue, ...]
    """Sinks whose ship must be placed among the unplaced ones, all within hits."""


def _kind_of(rules: Ruleset, index: int) -> Kind:
    name = rules.names[index] if rules.name_sunk else None
    return (rules.fleet[index], name)


def read_view(sea: Sea) -> View:
    """Turn the shooter's sea into constraints on the ships not yet located."""
    rules = sea.rules
    unplaced = Counter(_kind_of(rules, i) for i in range(len(rules.fleet)))
    free = full_board(rules.size) & ~sea.known
    clues: list[SinkClue] = []
    if rules.touching is Touching.ANY:
        # A sink tells only the sinking square; the ship lies somewhere in the hits.
        hits = sea.hit
        for index, ship in enumerate(sea.sunk_ships):
            name = sea.sunk_names[index] if index < len(sea.sunk_names) else None
            allowed = frozenset(k for k in unplaced if name is None or k[1] == name)
            within = sea.sunk_open[index] if index < len(sea.sunk_open) else sea.hit
            if ship and allowed:
                clues.append(SinkClue(ship[0], allowed, within & hits))
    else:
        # Ships never share a side, so a sunk ship is exactly its line of hits.
        hits = sea.hit & ~sea.sunk
        for index, ship in enumerate(sea.sunk_ships):
            name = sea.sunk_names[index] if index < len(sea.sunk_names) else None
            kind = (len(ship), name if rules.name_sunk else None)
            if unplaced[kind] > 0:
                unplaced[kind] -= 1
    kinds = tuple(sorted((k for k in unplaced if unplaced[k] > 0), key=lambda k: -k[0]))
    return View(rules, free, hits, kinds, tuple(unplaced[k] for k in kinds), tuple(clues))


def afloat_lengths(sea: Sea) -> tuple[int, ...]:
    """Lengths of the ships that may still be afloat, longest first.

    Exact where the view tells which ships sank (classic, corners, named
    sinks).  Where it cannot (a hit count only, or unnamed sinks of touching
    ships) a sunk ship's length is unknown, so every length it might have had
    stays in: the list then errs towards ships that are already gone.
    """
    rules = sea.rules
    if not tells_cells(rules):
        return rules.fleet
    view = read_view(sea)
    left = Counter(dict(zip(view.kinds, view.counts, strict=True)))
    for clue in view.clues:
        if len(clue.kinds) == 1:
            (kind,) = clue.kinds
            left[kind] -= 1
    return tuple(sorted((k[0] for k in left.elements()), reverse=True))


def target_hits(sea: Sea) -> int:
    """Hit squares that may belong to a ship still afloat.

    Where ships may touch, a sink tells only its square, so a hit belongs to a
    sunk ship or not as the sunk ships may lie: a hit is a target when some
    way of laying every sunk ship (through its sinking shot, on hits open
    before it, none overlapping) leaves it uncovered.
    """
    if not tells_cells(sea.rules):
        return 0
    open_hits = sea.hit & ~sea.sunk
    if sea.rules.touching is not Touching.ANY or not open_hits:
        return open_hits
    live = 0
    laid_out = False
    for ships, _, _ in _sink_layouts(read_view(sea)):
        laid_out = True
        covered = 0
        for ship in ships:
            covered |= ship
        live |= open_hits & ~covered
        if live == open_hits:
            break
    # No layout at all: the sinks contradict the rules as modelled, so aim at every hit.
    return live if laid_out else open_hits


# ---------------------------------------------------------------- per-ship counting


def _ship_fits(rules: Ruleset, ship: int, halo: int, free: int, targets: int) -> bool:
    """Whether one ship may stand here, judged on its own against what is known."""
    if ship & ~(free | targets):
        return False
    if not ship & free:
        return False  # a ship wholly hit would have been sunk
    # A hit just beside a ship (where ships may not touch) must be part of it.
    return rules.touching is Touching.ANY or not (halo & ~ship & targets)


def ship_room(sea: Sea) -> int:
    """Unknown squares where some ship still afloat may stand, as the view tells.

    Each ship is judged on its own (as ``per_ship_scores`` counts them), so
    this may keep a square no whole fleet can use, never drop one some fleet
    does: a square left out is surely empty.  Where ships may not touch, a
    ship beside a hit it does not hold is no position at all, so the squares
    diagonal to a hit, and those beside a line of hits off its ends, are out.
    """
    rules = sea.rules
    free = full_board(rules.size) & ~sea.known
    if not tells_cells(rules):
        return free
    targets = target_hits(sea)
    room = 0
    for length in set(afloat_lengths(sea)):
        for ship, halo in placements(rules, length):
            if _ship_fits(rules, ship, halo, free, targets):
                room |= ship
    return room & free


LINED_UP = 10.0
"""How much more a position counts for each more target hit it explains.

Where ships touch, a cluster of hits is explained by one ship along it or
by several across it; firing along the line that explains the most hits
finishes a ship (and its sink names it) before the cluster is widened.
Against weighting by the hits covered (1, 2, 3 ...), on 1,500 five-ships
fleets: per-ship 45.07 -> 44.72, paired -0.35 +- 0.16 shots; classic moved
by -0.03 +- 0.02 on 1,000 fleets (README, "The computer").
"""


def per_ship_scores(sea: Sea) -> list[float]:
    """Per square: the number of positions of each remaining ship through it.

    While some hit may belong to a ship afloat, only positions through such
    hits count, each ``LINED_UP`` times more for every such hit it covers,
    which finishes the ship lined up with the hits first.
    """
    rules = sea.rules
    if not tells_cells(rules):
        return _count_only_scores(sea)
    free = full_board(rules.size) & ~sea.known
    targets = target_hits(sea)
    lengths = Counter(afloat_lengths(sea))
    scores = [0.0] * (rules.size * rules.size)
    if targets:
        _add_positions(scores, rules, lengths, free, targets, targeting=True)
    if not any(scores[s] for s in squares_of(free)):
        _add_positions(scores, rules, lengths, free, 0, targeting=False)
    return scores


def _add_positions(
    scores: list[float],
    rules: Ruleset,
    lengths: Counter[int],
    free: int,
    targets: int,
    *,
    targeting: bool,
) -> None:
    for length, many in lengths.items():
        for ship, halo in placements(rules, length):
            if not _ship_fits(rules, ship, halo, free, targets):
                continue
            weight = float(many)
            if targeting:
                covered = popcount(ship & targets)
                if not covered:
                    continue
                weight *= LINED_UP**covered
            for square in squares_of(ship & free):
                scores[square] += weight


def _count_only_scores(sea: Sea) -> list[float]:
    """Per-ship counting when only hit counts are told (salvo with a count).

    A position over squares already shot is as likely as the hits counted
    make a shot square hold a ship, so each shot square it covers scales it
    by that rate.
    """
    rules = sea.rules
    shot_squares = popcount(sea.shot)
    rate = min(1.0, sea.hits_told / shot_squares) if shot_squares else 0.0
    scores = [0.0] * (rules.size * rules.size)
    lengths = Counter(rules.fleet)
    for length, many in lengths.items():
        for ship, _ in placements(rules, length):
            if ship & sea.marked or not ship & ~sea.shot:
                continue
            weight = many * rate ** popcount(ship & sea.shot)
            if weight:
                for square in squares_of(ship & ~sea.shot):
                    scores[square] += weight
    return scores


# ---------------------------------------------------------------- whole-fleet probabilities


@dataclass(frozen=True)
class Probabilities:
    """How likely each square is to hold a ship, given the view."""

    squares: tuple[float, ...]
    """Per square, the probability it holds a ship; 0 for known squares."""
    exact: bool
    """Counted over every consistent fleet, not estimated from a sample."""
    fleets: float
    """The number of consistent fleets (estimated when not exact)."""


@cache
def _through(rules: Ruleset, length: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per square, the positions of a ship of ``length`` covering it: (ship, halo)."""
    table: list[list[tuple[int, int]]] = [[] for _ in range(rules.size * rules.size)]
    for ship, halo in placements(rules, length):
        for square in squares_of(ship):
            table[square].append((ship, halo))
    return tuple(tuple(row) for row in table)


@cache
def _halos(rules: Ruleset) -> dict[int, int]:
    """Each ship position's squares plus the squares no other ship may take."""
    return {ship: halo for length in set(rules.fleet) for ship, halo in placements(rules, length)}


@dataclass(frozen=True)
class _Cover:
    """One way to explain the hits and the sinks: ships placed through them."""

    ships: tuple[int, ...]
    blocked: int
    rest: tuple[int, ...]
    """Ships of each of the view's kinds still to place on unknown squares."""

    @property
    def squares(self) -> int:
        """The squares its ships stand on."""
        board = 0
        for ship in self.ships:
            board |= ship
        return board


def _sink_layouts(view: View) -> Iterator[tuple[tuple[int, ...], int, list[int]]]:
    """Every way to lay the sunk ships of the view's clues: (ships, blocked, kinds left).

    Each ship goes through its sinking shot, within the hits open before it,
    clear of the ships laid before it.  At most ``_MAX_COVERS`` are given;
    the ``kinds left`` list is shared and only valid until the next one.
    """
    rules = view.rules
    kind_index = {kind: i for i, kind in enumerate(view.kinds)}
    counts = list(view.counts)
    given = [0]

    def lay(
        j: int, ships: tuple[int, ...], blocked: int
    ) -> Iterator[tuple[tuple[int, ...], int, list[int]]]:
        if given[0] >= _MAX_COVERS:
            return
        if j == len(view.clues):
            given[0] += 1
            yield ships, blocked, counts
            return
        clue = view.clues[j]
        for kind in clue.kinds:
            i = kind_index.get(kind)
            if i is None or not counts[i]:
                continue
            counts[i] -= 1
            for ship, halo in _through(rules, kind[0])[clue.square]:
                if not ship & (blocked | ~clue.within):
                    yield from lay(j + 1, (*ships, ship), blocked | halo)
            counts[i] += 1

    return lay(0, (), 0)


def _covers(view: View) -> list[_Cover]:
    """Every set of ships that stands on all the hits, honouring the sinks."""
    rules = view.rules
    found: list[_Cover] = []
    allowed = view.free | view.hits

    def cover_hits(ships: tuple[int, ...], blocked: int, counts: list[int]) -> None:
        if len(found) >= _MAX_COVERS:
            return
        covered = 0
        for ship in ships:
            covered |= ship
        open_hits = view.hits & ~covered
        if not open_hits:
            found.append(_Cover(ships, blocked, tuple(counts)))
            return
        lowest = (open_hits & -open_hits).bit_length() - 1
        for i, kind in enumerate(view.kinds):
            if not counts[i]:
                continue
            counts[i] -= 1
            for ship, halo in _through(rules, kind[0])[lowest]:
                if ship & blocked or ship & ~allowed or not ship & view.free:
                    continue
                cover_hits((*ships, ship), blocked | halo, counts)
            counts[i] += 1

    for ships, blocked, counts in _sink_layouts(view):
        cover_hits(ships, blocked, counts)
        if len(found) >= _MAX_COVERS:
            break
    return found


def _free_positions(view: View) -> dict[int, list[int]]:
    """Per length, the positions of a ship wholly on unknown squares."""
    return {
        length: [ship for ship, _ in placements(view.rules, length) if not ship & ~view.free]
        for length in {kind[0] for kind in view.kinds}
    }


def _rest_kinds(cover: _Cover) -> list[int]:
    """The ships left to place after a cover, as indices into the view's kinds."""
    kinds = []
    for index, many in enumerate(cover.rest):
        kinds += [index] * many
    return kinds


class _TooMany(Exception):
    """The exact count ran over its budget."""


def _tally(view: View, tallies: dict[int, float], total: float) -> tuple[float, ...]:
    area = view.rules.size * view.rules.size
    squares = [0.0] * area
    if total <= 0:
        return tuple(squares)
    for ship, weight in tallies.items():
        for square in squares_of(ship & view.free):
            squares[square] += weight
    return tuple(value / total for value in squares)


def _count_exactly(
    view: View, covers: list[_Cover], free_positions: dict[int, list[int]]
) -> tuple[dict[int, float], float]:
    """Every consistent fleet, counted once each (ships of a kind interchangeable)."""
    halos = _halos(view.rules)
    tallies: dict[int, float] = {}
    budget = [_EXACT_BUDGET]

    def place(kinds: list[int], k: int, blocked: int, previous: list[int]) -> float:
        """Count the ways to place kinds[k:], tallying each ship position it uses."""
        candidates = [s for s in previous if not s & blocked]
        budget[0] -= len(previous)
        if budget[0] < 0:
            raise _TooMany
        if k == len(kinds) - 1:
            for ship in candidates:
                tallies[ship] = tallies.get(ship, 0.0) + 1.0
            return float(len(candidates))
        ways = 0.0
        same_next = kinds[k + 1] == kinds[k]
        for position, ship in enumerate(candidates):
            # Ships of one kind come in increasing position order: each fleet once.
            after = candidates[position + 1 :] if same_next else pool(kinds[k + 1])
            below = place(kinds, k + 1, blocked | halos[ship], after)
            if below:
                tallies[ship] = tallies.get(ship, 0.0) + below
            ways += below
        return ways

    def pool(kind: int) -> list[int]:
        return free_positions[view.kinds[kind][0]]

    total = 0.0
    for cover in covers:
        kinds = _rest_kinds(cover)
        ways = place(kinds, 0, cover.blocked, pool(kinds[0])) if kinds else 1.0
        for ship in cover.ships:
            tallies[ship] = tallies.get(ship, 0.0) + ways
        total += ways
    return tallies, total


@dataclass(frozen=True)
class _Line:
    """The positions of a ship of one length lying one way, by the square each begins on.

    Which of them lie wholly on the squares ``free`` is a handful of shifts
    and ANDs on the bitboard (``starts & free & free >> shift ...``), not a
    walk through a list of positions.
    """

    starts: int
    """Squares such a ship may begin on without leaving the board."""
    shifts: tuple[int, ...]
    """How far each of its other squares lies from the first."""
    first_squares: tuple[int, ...]
    """``starts`` as a list, to draw from."""
    ships: tuple[int, ...]
    """Per first square, the ship's squares (0 where no such ship begins)."""
    halos: tuple[int, ...]
    """Per first square, the ship's squares and those no other ship may then take."""

    def fitting(self, free: int) -> int:
        """The first squares of the positions lying wholly on ``free``."""
        fit = self.starts & free
        for shift in self.shifts:
            fit &= free >> shift
        return fit


@cache
def _lines(rules: Ruleset, length: int) -> tuple[_Line, ...]:
    """``placements(rules, length)`` grouped by the way the ship lies: one line or two."""
    area = rules.size * rules.size
    by_step: dict[int, list[tuple[int, int, int]]] = {}
    for ship, halo in placements(rules, length):
        first = (ship & -ship).bit_length() - 1
        step = 1 if length == 1 or ship >> (first + 1) & 1 else rules.size
        by_step.setdefault(step, []).append((first, ship, halo))
    lines = []
    for step, rows in sorted(by_step.items()):
        ships, halos = [0] * area, [0] * area
        for first, ship, halo in rows:
            ships[first], halos[first] = ship, halo
        lines.append(
            _Line(
                sum(1 << first for first, _, _ in rows),
                tuple(step * k for k in range(1, length)),
                tuple(first for first, _, _ in rows),
                tuple(ships),
                tuple(halos),
            )
        )
    return tuple(lines)


_Way = tuple[int, tuple[int, ...], tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]
"""A ``_Line`` as the sampler unpacks it at once: its starts, shifts, first squares and
their number, ships, and per first square the complement of the ship's halo (what stays
free for the others), so that the inner loop looks up no attribute and calls no ``len``."""


@cache
def _ways(rules: Ruleset, length: int) -> tuple[_Way, _Way | None]:
    """``_lines(rules, length)`` as the sampler draws from them: one way, and the other if any."""
    ways = [
        (
            line.starts,
            line.shifts,
            line.first_squares,
            len(line.first_squares),
            line.ships,
            tuple(~halo for halo in line.halos),
        )
        for line in _lines(rules, length)
    ]
    return ways[0], ways[1] if len(ways) > 1 else None


def _sample_fleets(
    view: View,
    covers: list[_Cover],
    rng: Random,
    samples: int,
    kept: list[tuple[int, float]] | None = None,
    odds: Sequence[float] | None = None,
    kept_ships: list[tuple[tuple[int, ...], float]] | None = None,
) -> tuple[dict[int, float], float, list[float]]:
    """Estimate the per-position tallies of ``_count_exactly`` from random fleets.

    Returns the tallies, their total and each cover's part of it.  ``kept``,
    when given, receives every fleet drawn: its squares and its weight;
    ``kept_ships`` the same fleets ship by ship (for a rollout, which must sink them).
    ``odds``, when given, are the chances (summing to 1) with which each
    sample draws its cover, to spend the samples where the fleets are (see
    ``_cover_odds``); otherwise every cover gets an equal share.

    Sequential importance sampling: each cover gets its share of the samples;
    each remaining ship (longest first) takes a uniformly chosen position
    among those still legal beside the ships already placed, and the fleet
    is weighted by the number of choices it had, which makes the weighted
    sample uniform over consistent fleets.  The weights sum to an unbiased
    estimate of the fleet count.

    This is the computer's inner loop, written for CPython's speed: the legal
    positions are bitboards (``_Line``), a position is drawn by trying random
    ones where most are legal and by counting along the bitboard where few
    are, and nothing is allocated per ship but the ship itself.
    """
    rules = view.rules
    tallies: dict[int, float] = {}
    total = 0.0
    if odds is not None:
        drawn = rng.choices(range(len(covers)), weights=odds, k=samples)
        shares = [1.0 / (samples * chance) if chance > 0 else 0.0 for chance in odds]
    elif len(covers) > samples:
        drawn = [rng.randrange(len(covers)) for _ in range(samples)]
        shares = [len(covers) / samples] * len(covers)
    else:
        per_cover = samples // len(covers)
        drawn = list(range(len(covers))) * per_cover
        shares = [1.0 / per_cover] * len(covers)
    plans = []
    for cover, share in zip(covers, shares, strict=True):
        lengths = [view.kinds[kind][0] for kind in _rest_kinds(cover)]
        labelled = math.prod(math.factorial(n) for n in cover.rest)
        plans.append(([_ways(rules, length) for length in lengths], share / labelled))
    cover_weights = [0.0] * len(covers)
    random = rng.random
    get = tallies.get
    for index in drawn:
        ship_ways, weight = plans[index]
        free = view.free & ~covers[index].blocked
        chosen = []
        for way, other in ship_ways:
            # _Line.fitting, written out: a call per line costs as much as the work.
            starts, shifts, firsts, positions, ships, keeps = way
            fit = starts & free
            for shift in shifts:
                fit &= free >> shift
            many = fit.bit_count()
            count = many
            if other is not None:
                other_fit = other[0] & free
                for shift in other[1]:
                    other_fit &= free >> shift
                count += other_fit.bit_count()
            if not count:
                weight = 0.0
                break
            weight *= count
            pick = random() * count
            if pick >= many and other is not None:
                starts, shifts, firsts, positions, ships, keeps = other
                fit, pick, many = other_fit, pick - many, count - many
            if 3 * many >= positions:
                # Most positions are legal: try random ones until one is.
                first = firsts[int(random() * positions)]
                while not fit >> first & 1:
                    first = firsts[int(random() * positions)]
            else:
                # Few are: count along the bitboard to the one picked.
                for _ in range(int(pick)):
                    fit &= fit - 1
                first = (fit & -fit).bit_length() - 1
            chosen.append(ships[first])
            free &= keeps[first]
        if not weight:
            continue
        for ship in chosen:
            tallies[ship] = get(ship, 0.0) + weight
        cover_weights[index] += weight
        total += weight
        if kept is not None:
            board = covers[index].squares
            for ship in chosen:
                board |= ship
            kept.append((board, weight))
        if kept_ships is not None:
            kept_ships.append(((*covers[index].ships, *chosen), weight))
    for cover, weight in zip(covers, cover_weights, strict=True):
        for ship in cover.ships:
            tallies[ship] = tallies.get(ship, 0.0) + weight
    return tallies, total, cover_weights


_EVEN_SHARE = 0.2
"""The part of the samples ``_cover_odds`` still spreads evenly over the covers."""


def _cover_odds(weights: Sequence[float]) -> list[float] | None:
    """Chances of drawing each cover, in proportion to its fleets as a pilot sample found them.

    Where the hits may be explained in many ways, an equal share per cover
    leaves a handful of samples to each, and the square beside a hit is then
    only as well known as the noisiest of those few: drawing the covers as
    the pilot weighed them puts the samples where the fleets are.  Part of
    them stays evenly spread, so a cover the pilot undersold is still drawn
    and the estimate stays unbiased (each draw is weighted by its chance).
    None where there is a single cover or the pilot found no fleet.
    """
    total = sum(weights)
    if len(weights) < 2 or total <= 0:
        return None
    even = _EVEN_SHARE / len(weights)
    return [(1 - _EVEN_SHARE) * weight / total + even for weight in weights]


def hit_probabilities(
    sea: Sea,
    rng: Random,
    *,
    samples: int = DEFAULT_SAMPLES,
    exact_limit: int = EXACT_LIMIT,
) -> Probabilities:
    """The probability that each square holds a ship, over whole consistent fleets.

    Every fleet that agrees with the view (misses, hits, sinks and the
    squares they mark, the ships remaining, the touching rule) is taken as
    equally likely, as the defender's uniform random placement makes them.
    The fleets are counted exactly when there are at most ``exact_limit`` of
    them (and the count stays within its budget); otherwise ``samples``
    fleets are sampled with ``rng``.  Under salvo with a hit count the view
    says too little to place whole fleets, and per-ship counting weighted by
    the hit rate stands in for it (``exact`` False, ``fleets`` 0).
    """
    rules = sea.rules
    if not tells_cells(rules):
        return _normalised(sea, _count_only_scores(sea))
    view = read_view(sea)
    covers = _covers(view)
    if not covers:
        # The answers contradict the rules as modelled: fall back on per-ship counts.
        return _normalised(sea, per_ship_scores(sea))
    free_positions = _free_positions(view)
    pilot = min(samples, max(_PILOT_SAMPLES, len(covers)))
    tallies, total, pilot_weights = _sample_fleets(view, covers, rng, pilot)
    if total <= exact_limit:
        try:
            tallies, total = _count_exactly(view, covers, free_positions)
        except _TooMany:
            pass
        else:
            return Probabilities(_tally(view, tallies, total), True, total)
    if samples > pilot:
        odds = _cover_odds(pilot_weights)
        more, more_total, _ = _sample_fleets(view, covers, rng, samples - pilot, odds=odds)
        share_pilot, share_more = pilot / samples, (samples - pilot) / samples
        merged = {s: w * share_pilot for s, w in tallies.items()}
        for ship, weight in more.items():
            merged[ship] = merged.get(ship, 0.0) + weight * share_more
        tallies, total = merged, total * share_pilot + more_total * share_more
    return Probabilities(_tally(view, tallies, total), False, total)


@dataclass(frozen=True)
class FleetSample:
    """Whole fleets consistent with the view, drawn at random, each with its weight.

    Weighted, the fleets stand for the uniform distribution over consistent
    fleets (``_sample_fleets``), so what is true of a share of their weight
    (that a square holds a ship, given another does) is an estimate of the
    probability.
    """

    fleets: tuple[tuple[int, float], ...]
    """Each fleet's squares as a bitboard, and its weight."""
    total: float


def sample_fleets(sea: Sea, rng: Random, samples: int) -> FleetSample:
    """About ``samples`` whole fleets consistent with the view (none where answers are counts).

    For a look-ahead: ``hit_probabilities`` tallies the same draws without keeping them.
    """
    if not tells_cells(sea.rules):
        return FleetSample((), 0.0)
    view = read_view(sea)
    covers = _covers(view)
    kept: list[tuple[int, float]] = []
    if covers:
        _sample_fleets(view, covers, rng, samples, kept)
    return FleetSample(tuple(kept), sum(weight for _, weight in kept))


def sample_fleet_ships(sea: Sea, rng: Random, samples: int) -> list[tuple[tuple[int, ...], float]]:
    """About ``samples`` consistent fleets, each as its ships' bitboards, with its weight.

    What ``sample_fleets`` draws, kept ship by ship: a rollout plays the game
    out against them and must know when each ship sinks.  None where answers
    are counts or contradict the rules as modelled.
    """
    if not tells_cells(sea.rules):
        return []
    view = read_view(sea)
    covers = _covers(view)
    kept: list[tuple[tuple[int, ...], float]] = []
    if covers:
        _sample_fleets(view, covers, rng, samples, kept_ships=kept)
    return [(ships, weight) for ships, weight in kept if weight > 0]


def _normalised(sea: Sea, scores: list[float]) -> Probabilities:
    """Scale per-ship scores to probabilities: their sum is the ship squares left."""
    free = full_board(sea.rules.size) & ~sea.known
    total = sum(scores[s] for s in squares_of(free))
    left = sea.rules.ship_cells - (popcount(sea.hit) if tells_cells(sea.rules) else sea.hits_told)
    scale = left / total if total else 0.0
    return Probabilities(
        tuple(min(1.0, v * scale) if free >> s & 1 else 0.0 for s, v in enumerate(scores)),
        False,
        0.0,
    )

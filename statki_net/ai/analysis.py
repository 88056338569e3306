"""After the game: how good each shot was, and how hard each fleet was to find.

Pure: values in, values out.  The randomness ``density`` samples with comes
from a passed-in generator, and a ``progress`` callback lets a front end show
how far a long analysis has got (the fleet's difficulty plays whole games).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from statki_net.ai.density import DEFAULT_SAMPLES, hit_probabilities
from statki_net.ai.reference_fleets import KEPT_SHOTS
from statki_net.ai.strategies import play
from statki_net.game.battle import Sea
from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.replay import Volley
from statki_net.game.rules import PRESETS, Ruleset, preset_name
from statki_net.game.words import ENGLISH, Words, decimal

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while an analysis runs."""


def _quiet(done: int, total: int) -> None:
    """The default progress: say nothing."""


@dataclass(frozen=True)
class ShotReview:
    """One shot beside the best one at that moment."""

    move: int
    square: int
    chance: float
    """The probability that the square fired at held a ship."""
    best_square: int
    best_chance: float
    """The highest probability of any square then (for a salvo, of the same rank)."""
    exact: bool
    """Whether the probabilities were counted over every fleet, not sampled."""

    def to_map(self, size: int) -> dict[str, Any]:
        return {
            "move": self.move,
            "square": square_name(self.square, size),
            "chance": round(self.chance, 4),
            "best_square": square_name(self.best_square, size),
            "best_chance": round(self.best_chance, 4),
            "exact": self.exact,
        }


@dataclass(frozen=True)
class ShotsReview:
    """Every shot of one player's game."""

    rules: Ruleset
    shots: tuple[ShotReview, ...]

    @property
    def accuracy(self) -> float:
        """Hits expected from the shots chosen over hits expected from the best ones (0-1)."""
        best = sum(shot.best_chance for shot in self.shots)
        return sum(shot.chance for shot in self.shots) / best if best else 1.0

    @property
    def best_shots(self) -> int:
        """Shots at least as likely to hit as the best square (to within sampling error)."""
        return sum(shot.chance >= shot.best_chance - 0.005 for shot in self.shots)

    def to_map(self) -> dict[str, Any]:
        return {
            "accuracy": round(self.accuracy, 4),
            "best_shots": self.best_shots,
            "shots": [shot.to_map(self.rules.size) for shot in self.shots],
        }


def review_shots(
    rules: Ruleset,
    volleys: Sequence[Volley],
    rng: Random,
    *,
    samples: int = DEFAULT_SAMPLES,
    progress: Progress = _quiet,
) -> ShotsReview:
    """For every shot: its chance of hitting, and the best square's, given what was known.

    ``volleys`` are one shooter's volleys in order, with the answers given.
    In a salvo the shots are ranked by chance and each is set beside the
    square of the same rank in the best set.
    """
    sea = Sea(rules)
    reviews: list[ShotReview] = []
    for done, volley in enumerate(volleys):
        progress(done, len(volleys))
        found = hit_probabilities(sea, rng, samples=samples)
        chances = found.squares
        unknown = [s for s in range(rules.size * rules.size) if not sea.known >> s & 1]
        best = sorted(unknown, key=lambda s: -chances[s])
        fired = sorted(volley.shots, key=lambda s: -chances[s])
        for rank, square in enumerate(fired):
            top = best[rank] if rank < len(best) else square
            reviews.append(
                ShotReview(volley.move, square, chances[square], top, chances[top], found.exact)
            )
        sea = sea.apply(volley.shots, volley.answer)
    progress(len(volleys), len(volleys))
    return ShotsReview(rules, tuple(reviews))


@dataclass(frozen=True)
class FleetDifficulty:
    """How many shots ``density`` needs for a fleet, against random fleets."""

    shots: float
    """Mean shots ``density`` needed to sink this fleet."""
    reference: tuple[int, ...]
    """Shots ``density`` needed for each of the random fleets compared with."""
    games: tuple[int, ...] = ()
    """Shots ``density`` needed in each game against this fleet; empty: only the mean is known."""

    @property
    def percentile(self) -> float:
        """Share of random fleets found sooner (ties count half): "harder than 83%".

        Every game against this fleet is set against every random fleet, so one
        unlucky game moves the share by its part only (the end screen and
        ``statki analyze`` measure with this one method, on samples of their size).
        """
        games = self.games or (self.shots,)
        sooner = sum(shots < game for game in games for shots in self.reference)
        ties = sum(shots == game for game in games for shots in self.reference)
        return 100 * (sooner + ties / 2) / (len(games) * len(self.reference))

    @property
    def likely_range(self) -> tuple[float, float]:
        """Where the share lies, 95 times in 100: Wilson's interval over the random fleets.

        Their number, not the pairs', is the sample: the fewer random fleets,
        the wider the range (6 fleets found sooner: 61% to 100%).
        """
        n, share, z = len(self.reference), self.percentile / 100, 1.96
        middle = (share + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return 100 * max(0.0, middle - half), 100 * min(1.0, middle + half)

    def share_words(self, words: Words = ENGLISH) -> str:
        """The share with its sample and uncertainty, one clause."""
        low, high = self.likely_range
        fleets = len(self.reference)
        # Percentages by the format's own %: a % sign followed by a space in a message is
        # taken for a %-format by the catalog's tools.
        return words.ngettext(
            "harder to find than {share:.0%} of {fleets} random fleets"
            " (likely between {low:.0%} and {high:.0%})",
            "harder to find than {share:.0%} of {fleets} random fleets"
            " (likely between {low:.0%} and {high:.0%})",
            fleets,
        ).format(share=self.percentile / 100, fleets=fleets, low=low / 100, high=high / 100)

    def words(self, words: Words = ENGLISH) -> str:
        games = len(self.games) or 1
        return words.ngettext(
            "{share}; density needed {shots} shots in {games} game"
            " against {mean} for a random fleet",
            "{share}; density needed {shots} shots in {games} games"
            " against {mean} for a random fleet",
            games,
        ).format(
            share=self.share_words(words),
            shots=decimal(self.shots, 1, words),
            games=games,
            mean=decimal(statistics.fmean(self.reference), 1, words),
        )

    def to_map(self) -> dict[str, Any]:
        low, high = self.likely_range
        return {
            "shots": round(self.shots, 2),
            "games": len(self.games) or 1,
            "random_fleets": len(self.reference),
            "random_fleets_mean": round(statistics.fmean(self.reference), 2),
            "percentile": round(self.percentile, 1),
            "likely_range": [round(low, 1), round(high, 1)],
        }


def reference_shots(
    rules: Ruleset, rng: Random, *, fleets: int = 30, progress: Progress = _quiet
) -> tuple[int, ...]:
    """Shots ``density`` needs for each of ``fleets`` uniformly random fleets.

    The same for every game under the same rules, so a front end may keep it.
    """
    shots = []
    for done in range(fleets):
        progress(done, fleets)
        shots.append(play(rules, random_fleet(rules, rng), "density", rng).shots)
    progress(fleets, fleets)
    return tuple(shots)


REFERENCE_SEED = "statki reference fleet"
"""What the kept reference's generators are seeded with, before the preset and the number."""


def reference_game(name: str, index: int) -> int:
    """Shots ``density`` needs for fleet ``index`` of preset ``name``'s kept reference.

    The fleet and the play draw from one generator seeded by the two, so the
    table (``statki_net.ai.reference_fleets``, written by
    ``bench/reference_fleets.py``) can be played again, entry by entry, by
    anyone: the tests do, and a change to ``density``'s play shows there.
    """
    rules = PRESETS[name]
    rng = Random(f"{REFERENCE_SEED} {name} {index}")
    return play(rules, random_fleet(rules, rng), "density", rng).shots


def kept_reference(rules: Ruleset) -> tuple[int, ...] | None:
    """The shots ``density`` needed for the kept random fleets of ``rules``, a preset's;
    None for other rules, whose random fleets are played when asked for.

    They are the same for every game under the same rules, so many are kept, played
    once: a fleet is ranked among all of them at no cost (a few random fleets played
    at the end of each game were most of an analysis's time, and ranked coarsely)."""
    name = preset_name(rules)
    return KEPT_SHOTS.get(name) if name is not None else None


def fleet_difficulty(
    rules: Ruleset,
    fleet: Fleet,
    rng: Random,
    *,
    games: int = 3,
    reference: Sequence[int] | None = None,
    reference_fleets: int = 30,
    progress: Progress = _quiet,
) -> FleetDifficulty:
    """Sink ``fleet`` with ``density`` ``games`` times and rank it among random fleets.

    Pass ``reference`` (from ``reference_shots``) to skip playing the random
    fleets again.
    """
    total = games + (0 if reference is not None else reference_fleets)
    shots = []
    for done in range(games):
        progress(done, total)
        shots.append(play(rules, fleet, "density", rng).shots)
    if reference is None:
        reference = reference_shots(
            rules,
            rng,
            fleets=reference_fleets,
            progress=lambda done, _: progress(games + done, total),
        )
    progress(total, total)
    return FleetDifficulty(statistics.fmean(shots), tuple(reference), tuple(shots))


@dataclass(frozen=True)
class Analysis:
    """One player's side of a finished game: their shots, and the fleet they fired at."""

    shots: ShotsReview
    fleet: FleetDifficulty | None

    def to_map(self) -> dict[str, Any]:
        result = self.shots.to_map()
        result["fleet"] = self.fleet.to_map() if self.fleet else None
        return result


def analyze(
    rules: Ruleset,
    volleys: Sequence[Volley],
    fleet: Fleet | None,
    rng: Random,
    *,
    fleet_games: int = 3,
    reference: Sequence[int] | None = None,
    reference_fleets: int = 30,
    progress: Progress = _quiet,
) -> Analysis:
    """Review one shooter's ``volleys`` and how hard the defender's ``fleet`` was to find.

    ``fleet`` is the fleet fired at, as revealed; None skips its difficulty.
    ``progress(done, total)`` counts volleys reviewed, then games played.
    """
    fleet_work = 0 if fleet is None else fleet_games + (0 if reference else reference_fleets)
    total = len(volleys) + fleet_work
    shots = review_shots(rules, volleys, rng, progress=lambda done, _: progress(done, total))
    difficulty = None
    if fleet is not None:
        difficulty = fleet_difficulty(
            rules,
            fleet,
            rng,
            games=fleet_games,
            reference=reference,
            reference_fleets=reference_fleets,
            progress=lambda done, _: progress(len(volleys) + done, total),
        )
    progress(total, total)
    return Analysis(shots, difficulty)

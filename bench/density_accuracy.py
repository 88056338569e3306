"""Benchmark: how far density's 4,000-fleet estimate lies from a large sample, aiming at hits.

Run from the checkout:  python bench/density_accuracy.py [--rules five-ships] [--fleets 4] [--hunt]

It plays per-ship against the bench's seeded fleets (``statki bench ai``'s
fleets, seed 1), keeps about a quarter of the positions with a hit to aim
at (up to three a fleet), and for each that ``density`` does not count
exactly compares three 4,000-fleet estimates with one from ``--reference``
fleets: the rms and the largest error over the unknown squares, and the
chance lost by the square the estimate would fire at (the reference's best
chance minus its chance of that square).  Each move's sample is where the
hits may be explained in many ways (the covers), so this is where the
sampler is weakest.  ``--hunt`` keeps instead positions after a sink with
no hit left to aim at.
"""

from __future__ import annotations

import argparse
import random
import statistics

from statki_net.ai.density import hit_probabilities
from statki_net.ai.strategies import per_ship_strategy, sink_fleet, target_hits
from statki_net.cli.bench import fleet_for
from statki_net.game.battle import Sea
from statki_net.game.rules import ruleset_named


def positions(rules_name: str, fleets: int, *, hunt: bool) -> list[Sea]:
    rules = ruleset_named(rules_name)
    kept: list[Sea] = []
    for game in range(fleets):
        rng = random.Random(game)

        def choose(
            sea: Sea, due: int, game: int = game, rng: random.Random = rng
        ) -> tuple[int, ...]:
            wanted = not target_hits(sea) and bool(sea.sunk_ships) if hunt else target_hits(sea)
            if wanted and rng.random() < (0.3 if hunt else 0.25) and len(kept) < 3 * (game + 1):
                kept.append(sea)
            return per_ship_strategy(sea, due, rng)

        sink_fleet(rules, fleet_for(rules, "uniform", 1, game), choose)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="five-ships")
    parser.add_argument("--fleets", type=int, default=4)
    parser.add_argument("--reference", type=int, default=100_000)
    parser.add_argument("--hunt", action="store_true", help="positions with no hit to aim at")
    args = parser.parse_args()
    rms, worst, lost = [], [], []
    for sea in positions(args.rules, args.fleets, hunt=args.hunt):
        reference = hit_probabilities(sea, random.Random(1), samples=args.reference)
        if reference.exact:
            continue
        size = sea.rules.size
        unknown = [s for s in range(size * size) if not sea.known >> s & 1]
        best = max(reference.squares)
        for seed in range(3):
            found = hit_probabilities(sea, random.Random(10 + seed)).squares
            errors = [found[s] - reference.squares[s] for s in unknown]
            rms.append(statistics.fmean(e * e for e in errors) ** 0.5)
            worst.append(max(abs(e) for e in errors))
            lost.append(best - reference.squares[max(unknown, key=lambda s: found[s])])
    phase = "hunting" if args.hunt else "aiming at hits"
    print(
        f"{args.rules}, {phase}: {len(rms) // 3} positions, 3 estimates each"
        f" against {args.reference:,}"
        f" fleets: rms error {statistics.fmean(rms):.4f}, largest {max(worst):.4f},"
        f" chance lost by the square chosen {statistics.fmean(lost):.4f}"
    )


if __name__ == "__main__":
    main()

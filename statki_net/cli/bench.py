"""``statki bench ai``: the computer players side by side on the same fleets.

Every strategy plays the same N seeded, uniformly random legal fleets, so the
difference between two strategies is measured game by game (paired), which
needs far fewer games than comparing two separate means.  The clock is read
here, around each move, never inside a strategy.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from statki_net.ai.strategies import STRATEGIES, hard_fleet, play, sink_fleet, strategy_named
from statki_net.cli.common import EXIT_OK, Subcommands, rules_argument
from statki_net.game.battle import Sea
from statki_net.game.errors import UsageError
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import Ruleset, ruleset_named

YARDSTICK = "per-ship"
"""The strategy every other one is compared with, game by game."""


def add(commands: Subcommands) -> None:
    bench = commands.add_parser("bench")
    kinds = bench.add_subparsers(dest="kind", required=True, metavar="KIND")
    ai = kinds.add_parser("ai", help="every strategy against the same random fleets")
    rules_argument(ai)
    ai.add_argument("--games", type=int, default=100, metavar="N", help="fleets to sink")
    ai.add_argument("--seed", type=int, default=1, metavar="S", help="seed for fleets and bots")
    ai.add_argument(
        "--strategies",
        default=",".join(STRATEGIES),
        metavar="A,B,...",
        help=f"strategies to compare ({', '.join(STRATEGIES)})",
    )
    ai.add_argument("--jobs", type=int, default=1, metavar="J", help="games played in parallel")
    ai.add_argument("--json", action="store_true", help="one JSON object keyed by strategy")
    ai.set_defaults(run=_bench_ai)
    placement = kinds.add_parser(
        "placement", help="shots density needs against hard fleets and random ones"
    )
    rules_argument(placement)
    placement.add_argument("--games", type=int, default=40, metavar="N", help="fleets of each kind")
    placement.add_argument("--seed", type=int, default=1, metavar="S", help="seed")
    placement.add_argument("--json", action="store_true", help="one JSON object")
    placement.set_defaults(run=_bench_placement)


def _bench_placement(args: argparse.Namespace) -> int:
    """Density against N hard fleets and N random ones, paired game by game."""
    if args.games < 2:
        raise UsageError("--games must be at least 2")
    rules = ruleset_named(args.rules)
    hard, uniform = [], []
    for game in range(args.games):
        rng = random.Random(f"placement:{args.seed}:{game}")
        fleets = (hard_fleet(rules, rng), random_fleet(rules, rng))
        shots = [
            play(rules, fleet, "density", random.Random(f"bot:{args.seed}:{game}")).shots
            for fleet in fleets
        ]
        hard.append(shots[0])
        uniform.append(shots[1])
        print(f"\r{game + 1}/{args.games}", end="", file=sys.stderr)
    print(file=sys.stderr)
    diffs = [a - b for a, b in zip(hard, uniform, strict=True)]
    result = {
        "hard": round(statistics.fmean(hard), 2),
        "random": round(statistics.fmean(uniform), 2),
        "difference": round(statistics.fmean(diffs), 2),
        "stderr": round(statistics.stdev(diffs) / math.sqrt(len(diffs)), 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"density needs {result['hard']} shots for hard fleets, {result['random']} for random "
            f"ones: {result['difference']:+} ± {result['stderr']} shots ({args.games} of each)"
        )
    return EXIT_OK


@dataclass(frozen=True)
class Game:
    shots: int
    misses: int
    move_seconds: tuple[float, ...]


def play_one(rules: Ruleset, strategy: str, seed: int, game: int) -> Game:
    """Game number ``game`` of a bench seeded ``seed``: the same fleet for every strategy."""
    fleet = random_fleet(rules, random.Random(f"fleet:{seed}:{game}"))
    player = strategy_named(strategy)
    rng = random.Random(f"bot:{seed}:{game}:{strategy}")
    seconds: list[float] = []

    def timed(sea: Sea, due: int) -> tuple[int, ...]:
        start = time.perf_counter()
        shots = player(sea, due, rng)
        seconds.append(time.perf_counter() - start)
        return shots

    result = sink_fleet(rules, fleet, timed)
    return Game(result.shots, result.misses, tuple(seconds))


def _play_task(task: tuple[Ruleset, str, int, int]) -> Game:
    return play_one(*task)


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile: the smallest value at least ``share`` of them reach."""
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, spread / math.sqrt(len(values))


def summary(games: Sequence[Game]) -> dict[str, float]:
    shots = [float(g.shots) for g in games]
    millis = [1000 * s for g in games for s in g.move_seconds]
    mean, stderr = mean_and_stderr(shots)
    return {
        "mean": round(mean, 3),
        "stderr": round(stderr, 3),
        "median": statistics.median(shots),
        "p90": percentile(shots, 0.9),
        "max": max(shots),
        "misses": round(statistics.fmean(g.misses for g in games), 3),
        "ms_p50": round(statistics.median(millis), 3),
        "ms_p99": round(percentile(millis, 0.99), 3),
    }


def paired(games: Sequence[Game], yardstick: Sequence[Game]) -> tuple[float, float]:
    """Mean and standard error of the per-fleet difference in shots."""
    return mean_and_stderr(
        [float(a.shots - b.shots) for a, b in zip(games, yardstick, strict=True)]
    )


def _bench_ai(args: argparse.Namespace) -> int:
    rules = ruleset_named(args.rules)
    names = [name.strip() for name in args.strategies.split(",") if name.strip()]
    for name in names:
        strategy_named(name)
    if args.games < 1 or args.jobs < 1:
        raise UsageError("--games and --jobs must be at least 1")
    results: dict[str, list[Game]] = {}
    for name in names:
        tasks = [(rules, name, args.seed, game) for game in range(args.games)]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results[name] = list(pool.map(_play_task, tasks, chunksize=4))
        else:
            results[name] = [_play_task(task) for task in tasks]
        if not args.json:
            print(f"  {name}: done", file=sys.stderr, flush=True)
    table: dict[str, dict[str, Any]] = {name: summary(games) for name, games in results.items()}
    if YARDSTICK in results:
        for name in names:
            if name != YARDSTICK:
                mean, stderr = paired(results[name], results[YARDSTICK])
                table[name]["vs_" + YARDSTICK] = {
                    "mean": round(mean, 3),
                    "stderr": round(stderr, 3),
                }
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        print(_text(args, table))
    return EXIT_OK


def _text(args: argparse.Namespace, table: dict[str, dict[str, Any]]) -> str:
    lines = [
        f"rules {args.rules}, {args.games} fleets, seed {args.seed}: shots to sink the whole fleet",
        f"{'strategy':<10} {'mean':>13} {'median':>7} {'p90':>6} {'max':>6} {'misses':>7}"
        f" {'ms p50':>8} {'ms p99':>8}",
    ]
    for name, row in table.items():
        mean = f"{row['mean']:.2f} ± {row['stderr']:.2f}"
        lines.append(
            f"{name:<10} {mean:>13} {row['median']:>7g} {row['p90']:>6g} {row['max']:>6g}"
            f" {row['misses']:>7.2f} {row['ms_p50']:>8.2f} {row['ms_p99']:>8.2f}"
        )
    for name, row in table.items():
        versus = row.get("vs_" + YARDSTICK)
        if versus:
            lines.append(
                f"{name} - {YARDSTICK}: {versus['mean']:+.2f} ± {versus['stderr']:.2f} shots"
                " (paired, same fleets)"
            )
    return "\n".join(lines)

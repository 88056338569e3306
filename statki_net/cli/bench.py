"""``statki bench ai``: the computer players side by side on the same fleets.

Every strategy plays the same N seeded, uniformly random legal fleets, so the
difference between two strategies is measured game by game (paired), which
needs far fewer games than comparing two separate means.  The clock is read
here, around each move, never inside a strategy, and it is the process's
CPU time: on a shared machine the other jobs slow the figures as little as
they can.

A long run can be farmed out: ``--shard I/N`` plays every N-th game from the
I-th and prints its games as JSON; ``--merge FILES`` reads the shards back
and prints what the whole run would have (the same shots game by game; only
the timings differ, being taken elsewhere).

A developer's tool: its figures (the tables, the progress on stderr) are English, as
``--json`` is, and stay comparable across machines and runs whatever the locale; its help
and its refusals are said in the person's language, as every command's are.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from statki_net.ai.computer import PLAYERS, check_strategy
from statki_net.ai.exact import clustered_fleet, exact_strategy
from statki_net.ai.lookahead import lookahead_strategy
from statki_net.ai.rollout import rollout_strategy
from statki_net.ai.strategies import (
    STRATEGIES,
    Strategy,
    hard_fleet,
    play,
    sink_fleet,
)
from statki_net.ai.strength import player_named
from statki_net.ai.two_shot import two_shot_strategy
from statki_net.cli.common import EXIT_OK, Metavar, Subcommands, rules_argument
from statki_net.game.battle import Sea, tells_cells
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import Ruleset, Touching, ruleset_named
from statki_net.game.words import N_
from statki_net.store.language import _
from statki_net.store.userfile import read_user_text

MAX_SHARD = 64 * 1024 * 1024
"""Bytes of a shard read at most: far more than a shard of any run holds."""
YARDSTICK = "per-ship"
"""The strategy every other one is compared with, game by game."""

EXACT = "exact"
"""The bench's own player: greedy on exact whole-fleet probabilities (``ai.exact``)."""
LOOKAHEAD = "lookahead"
"""The bench's trial of beyond-greedy play: density looking one shot ahead (``ai.lookahead``)."""

TWO_SHOT = "two-shot"
"""The bench's cheap trial: per-ship counting weighing two shots in the hunt (``ai.two_shot``)."""

ROLLOUT = "rollout"
"""The bench's trial of playing on: density's likeliest squares weighed by games played out
on sampled fleets (``ai.rollout``)."""

BENCH_ONLY: dict[str, Strategy] = {
    EXACT: exact_strategy,
    LOOKAHEAD: lookahead_strategy,
    TWO_SHOT: two_shot_strategy,
    ROLLOUT: rollout_strategy,
}
"""Players only the bench plays: references and trials, too slow or unproven for a game."""

BENCH_PLAYERS = (*PLAYERS, *BENCH_ONLY)
"""What ``--strategies`` takes: the strategies, the strengths, and the bench's own players."""


def bench_player(name: str) -> Strategy:
    if name in BENCH_ONLY:
        return BENCH_ONLY[name]
    return player_named(check_strategy(name))


FLEETS: dict[str, Callable[[Ruleset, random.Random], Fleet]] = {
    "uniform": random_fleet,
    "hard": hard_fleet,
    "clustered": clustered_fleet,
}
"""The fleets ``--fleets`` plays against: uniformly random ones, ``--placement hard``'s,
and fleets wholly inside one half of the board (``strategies.clustered_fleet``)."""


@lru_cache(maxsize=4096)
def fleet_for(rules: Ruleset, kind: str, seed: int, game: int) -> Fleet:
    """Game ``game``'s fleet of ``kind``: the uniform one is the bench's fleet as it always was.

    Kept for the other strategies of the run: a hard fleet tries 400 random ones.
    """
    label = "fleet" if kind == "uniform" else kind
    return FLEETS[kind](rules, random.Random(f"{label}:{seed}:{game}"))


def label(strategy: str, fleets: str) -> str:
    """A run's name: the strategy, and the fleets it played where they are not uniform."""
    return strategy if fleets == "uniform" else f"{strategy}@{fleets}"


def add(commands: Subcommands) -> None:
    bench = commands.add_parser("bench")
    kinds = bench.add_subparsers(dest="kind", required=True, metavar=_(Metavar.COMMAND))
    ai = kinds.add_parser("ai", help=_("every strategy against the same random fleets"))
    rules_argument(ai)
    ai.add_argument("--games", type=int, default=100, metavar="N", help=_("fleets to sink"))
    ai.add_argument(
        "--seed", type=int, default=1, metavar=_(Metavar.SEED), help=_("seed for fleets and bots")
    )
    ai.add_argument(
        "--strategies",
        default=",".join(STRATEGIES),
        metavar="A,B,...",
        help=_("strategies to compare ({join})").format(join=", ".join(BENCH_PLAYERS)),
    )
    ai.add_argument(
        "--fleets",
        default="uniform",
        metavar=_(Metavar.KINDS),
        help=_("the fleets each strategy plays, each kind beside the others ({join})").format(
            join=", ".join(FLEETS)
        ),
    )
    ai.add_argument("--jobs", type=int, default=1, metavar="N", help=_("games played in parallel"))
    ai.add_argument("--json", action="store_true", help=_("one JSON object keyed by strategy"))
    farm = ai.add_mutually_exclusive_group()
    farm.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help=_("play only games I, I+N, I+2N, ... (I from 1 to N) and print them as JSON to merge"),
    )
    farm.add_argument(
        "--merge",
        nargs="+",
        metavar=_(Metavar.FILE),
        help=_("read the shards' JSON and print the whole run (rules, games, seed from the files)"),
    )
    ai.add_argument(
        "--results",
        metavar=_(Metavar.FILE),
        help=_(
            "write each game to FILE as soon as it is played, and play only the games not there"
            " yet: a run stopped is continued by the same command"
        ),
    )
    ai.add_argument(
        "--so-far",
        action="store_true",
        help=_("with --merge: the first games every strategy has played, where a run goes on"),
    )
    ai.set_defaults(run=_bench_ai)
    placement = kinds.add_parser(
        "placement", help=_("shots density needs against hard fleets and random ones")
    )
    rules_argument(placement)
    placement.add_argument(
        "--games", type=int, default=40, metavar="N", help=_("fleets of each kind")
    )
    placement.add_argument("--seed", type=int, default=1, metavar=_(Metavar.SEED), help=_("seed"))
    placement.add_argument("--json", action="store_true", help=_("one JSON object"))
    placement.set_defaults(run=_bench_placement)


def _bench_placement(args: argparse.Namespace) -> int:
    """Density against N hard fleets and N random ones, paired game by game."""
    if args.games < 2:
        raise UsageError(_("--games must be at least 2"))
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
            _(
                "density needs {hard} shots for hard fleets, {random} for random ones:"
                " {difference} ± {stderr} shots ({games} of each)"
            ).format(
                hard=result["hard"],
                random=result["random"],
                difference=f"{result['difference']:+}",
                stderr=result["stderr"],
                games=args.games,
            )
        )
    return EXIT_OK


@dataclass(frozen=True)
class Game:
    shots: int
    misses: int
    move_seconds: tuple[float, ...]
    """CPU time each move took."""

    def to_map(self, number: int) -> dict[str, Any]:
        return {
            "game": number,
            "shots": self.shots,
            "misses": self.misses,
            "move_seconds": [round(s, 7) for s in self.move_seconds],
        }

    @classmethod
    def from_map(cls, data: dict[str, Any]) -> Game:
        return cls(int(data["shots"]), int(data["misses"]), tuple(data["move_seconds"]))


def play_one(rules: Ruleset, strategy: str, seed: int, game: int, fleets: str = "uniform") -> Game:
    """Game number ``game`` of a bench seeded ``seed``: the same fleet for every strategy."""
    fleet = fleet_for(rules, fleets, seed, game)
    player = bench_player(strategy)
    rng = random.Random(f"bot:{seed}:{game}:{strategy}")
    seconds: list[float] = []

    def timed(sea: Sea, due: int) -> tuple[int, ...]:
        start = time.process_time()
        shots = player(sea, due, rng)
        seconds.append(time.process_time() - start)
        return shots

    result = sink_fleet(rules, fleet, timed)
    return Game(result.shots, result.misses, tuple(seconds))


def _play_task(task: tuple[Ruleset, str, int, int, str]) -> Game:
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


@dataclass(frozen=True)
class Plan:
    """What a bench run plays: the same for a whole run and each of its shards."""

    rules_name: str
    games: int
    seed: int
    strategies: tuple[str, ...]
    fleets: tuple[str, ...] = ("uniform",)

    @property
    def rules(self) -> Ruleset:
        return ruleset_named(self.rules_name)

    @property
    def runs(self) -> tuple[tuple[str, str], ...]:
        """(strategy, fleets) of every run, fleets by fleets."""
        return tuple((name, kind) for kind in self.fleets for name in self.strategies)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label(name, kind) for name, kind in self.runs)

    def to_map(self) -> dict[str, Any]:
        plan: dict[str, Any] = {
            "rules": self.rules_name,
            "games": self.games,
            "seed": self.seed,
            "strategies": list(self.strategies),
        }
        if self.fleets != ("uniform",):
            plan["fleets"] = list(self.fleets)
        return plan


Shard = tuple[int, int]
"""(I, N): the I-th of N shards, I counted from 1."""


def _shard(text: str) -> Shard:
    index, slash, count = text.partition("/")
    try:
        shard = (int(index), int(count))
    except ValueError:
        shard = (0, 0)
    if not slash or not 1 <= shard[0] <= shard[1]:
        raise argparse.ArgumentTypeError(
            _("{text}: a shard is I/N with 1 <= I <= N, like 2/8").format(text=repr(text))
        )
    return shard


def shard_games(games: int, shard: Shard) -> range:
    """The games shard ``I/N`` plays: every N-th from game I-1, so shards take equal shares."""
    index, count = shard
    return range(index - 1, games, count)


def _bench_ai(args: argparse.Namespace) -> int:
    if args.results and args.merge:
        raise UsageError(_("--results is written by a run and --merge reads it: not both at once"))
    if args.so_far and not args.merge:
        raise UsageError(_("--so-far is for --merge"))
    if args.merge:
        plan, results = merge_shards(args.merge, so_far=args.so_far)
    else:
        names = tuple(name.strip() for name in args.strategies.split(",") if name.strip())
        kinds = tuple(kind.strip() for kind in args.fleets.split(",") if kind.strip())
        plan = Plan(args.rules, args.games, args.seed, names, kinds)
        for name in names:
            if name not in BENCH_ONLY:
                check_strategy(name)
            elif name == EXACT and (
                plan.rules.touching is Touching.ANY or not tells_cells(plan.rules)
            ):
                raise UsageError(_("exact counts only where ships never share a side"))
        for kind in kinds:
            if kind not in FLEETS:
                raise UsageError(
                    _("unknown fleets {kind}; choose from {kinds}").format(
                        kind=repr(kind), kinds=", ".join(FLEETS)
                    )
                )
        if args.games < 1 or args.jobs < 1:
            raise UsageError(_("--games and --jobs must be at least 1"))
        if args.results:
            if args.jobs > 1:
                raise UsageError(
                    _("--results plays its games one by one in this process: run more shards")
                )
            shard = args.shard or (1, 1)
            results = play_into(plan, shard, args.results)
            print(json.dumps(_shard_map(plan, shard, results)))
            return EXIT_OK
        numbers = shard_games(plan.games, args.shard) if args.shard else range(plan.games)
        results = _play(plan, numbers, args.jobs, quiet=args.json or bool(args.shard))
        if args.shard:
            print(json.dumps(_shard_map(plan, args.shard, results)))
            return EXIT_OK
    table = _table(plan, [results[name] for name in plan.labels])
    print(json.dumps(table, indent=2) if args.json else _text(plan, table))
    return EXIT_OK


def _play(plan: Plan, numbers: range, jobs: int, *, quiet: bool) -> dict[str, dict[int, Game]]:
    """Every strategy of the plan on the numbered games: per strategy, game number -> game."""
    rules = plan.rules
    results: dict[str, dict[int, Game]] = {}
    for name, kind in plan.runs:
        tasks = [(rules, name, plan.seed, game, kind) for game in numbers]
        if jobs > 1:
            with ProcessPoolExecutor(jobs) as pool:
                games = list(pool.map(_play_task, tasks, chunksize=4))
        else:
            games = [_play_task(task) for task in tasks]
        results[label(name, kind)] = dict(zip(numbers, games, strict=True))
        if not quiet:
            said = _("{strategy}: played").format(strategy=label(name, kind))
            print(f"  {said}", file=sys.stderr, flush=True)
    return results


def _shard_map(plan: Plan, shard: Shard, results: dict[str, dict[int, Game]]) -> dict[str, Any]:
    return {
        "bench": "ai",
        "plan": plan.to_map(),
        "shard": list(shard),
        "results": {
            name: [game.to_map(number) for number, game in games.items()]
            for name, games in results.items()
        },
    }


Played = list[tuple[str, int, Game]]
"""Games read from a shard or a results file: (the run's label, the game's number, the game)."""


@dataclass(frozen=True)
class ShardFile:
    """What a shard's file holds, and whether it is a results file (``--results``) or one object."""

    plan: Plan
    shard: Shard | None
    played: Played
    lines: bool


def _read_shard(path: str) -> ShardFile:
    """A shard's plan and games: one JSON object (``--shard``) or JSON lines (``--results``).

    A results file is its run's plan on the first line, then a game a line; a
    last line cut short (the run was stopped while writing it) is left out.
    """
    text = read_user_text(path, limit=MAX_SHARD, what=N_("shard of statki bench ai"))
    try:
        lines = _json_lines(text)
        head = lines[0]
        theirs = _plan_of(head["plan"])
        shard = (int(head["shard"][0]), int(head["shard"][1])) if "shard" in head else None
        if "results" in head:
            played = [
                (name, int(g["game"]), Game.from_map(g))
                for name in theirs.labels
                for g in head["results"][name]
            ]
        else:
            played = [(str(g["name"]), int(g["game"]), Game.from_map(g)) for g in lines[1:]]
        if any(name not in theirs.labels for name, _, _ in played):
            raise ValueError("a game of a strategy the plan does not play")
    except (ValueError, KeyError, TypeError, IndexError) as error:
        raise UsageError(
            _("{path}: not a shard of statki bench ai ({error})").format(path=path, error=error)
        ) from None
    return ShardFile(theirs, shard, played, "results" not in head)


def _json_lines(text: str) -> list[Any]:
    """A shard's one JSON object, or a results file's lines but a last one cut short."""
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    rows = text.split("\n")
    lines = []
    for number, row in enumerate(rows):
        if row.strip():
            try:
                lines.append(json.loads(row))
            except ValueError:
                if number < len(rows) - 1:
                    raise
    return lines


def _plan_of(data: dict[str, Any]) -> Plan:
    return Plan(
        str(data["rules"]),
        int(data["games"]),
        int(data["seed"]),
        tuple(str(name) for name in data["strategies"]),
        tuple(str(kind) for kind in data.get("fleets", ["uniform"])),
    )


def merge_shards(
    paths: Sequence[str], *, so_far: bool = False
) -> tuple[Plan, dict[str, dict[int, Game]]]:
    """The plan the shards share and every game they played, each exactly once.

    ``so_far``: a run still going is merged over its first games that every
    strategy has played (the plan then counts those only).
    """
    plan: Plan | None = None
    results: dict[str, dict[int, Game]] = {}
    for path in paths:
        read = _read_shard(path)
        theirs, played = read.plan, read.played
        if plan is None:
            plan = theirs
            results = {name: {} for name in plan.labels}
        elif theirs != plan:
            raise UsageError(
                _("{path}: a shard of another run ({theirs} is not {plan})").format(
                    path=path, theirs=theirs, plan=plan
                )
            )
        for name, number, game in played:
            if number in results[name]:
                raise UsageError(
                    _("{path}: game {number} of {name} is in two shards").format(
                        path=path, number=number, name=name
                    )
                )
            results[name][number] = game
    assert plan is not None  # argparse gives --merge at least one file
    if so_far:
        done = next(
            (n for n in range(plan.games) if any(n not in run for run in results.values())),
            plan.games,
        )
        if not done:
            raise UsageError(_("the shards hold no game yet that every strategy has played"))
        if done < plan.games:
            print(f"the first {done} of {plan.games} games, played so far", file=sys.stderr)
        plan = replace(plan, games=done)
        results = {
            name: {n: g for n, g in run.items() if n < done} for name, run in results.items()
        }
    for name, run in results.items():
        missing = sorted(set(range(plan.games)) - set(run))
        if missing:
            raise UsageError(
                _("the shards lack {n} game(s) of {name}, from {first}").format(
                    n=len(missing), name=name, first=missing[0]
                )
            )
    return plan, {name: dict(sorted(run.items())) for name, run in results.items()}


def play_into(plan: Plan, shard: Shard, path: str) -> dict[str, dict[int, Game]]:
    """Play the shard game by game, each written to ``path`` once played; skip those there.

    Game by game (every strategy's), so that a run stopped at any moment
    leaves whole pairs to compare, and in this one process, whose counts an
    exact player keeps for its later games (their openings are alike).
    """
    results: dict[str, dict[int, Game]] = {name: {} for name in plan.labels}
    try:
        if os.path.exists(path) and os.path.getsize(path):
            read = _read_shard(path)
            if (read.plan, read.shard, read.lines) != (plan, shard, True):
                raise UsageError(
                    _("{path}: the results of another run or shard, not continued").format(
                        path=path
                    )
                )
            for name, number, game in read.played:
                results[name][number] = game
            _cut_at_last_line(path)
        else:
            with open(path, "w", encoding="utf-8") as out:
                out.write(json.dumps({"bench": "ai", "plan": plan.to_map(), "shard": list(shard)}))
                out.write("\n")
        with open(path, "a", encoding="utf-8") as out:
            for number in shard_games(plan.games, shard):
                for name, kind in plan.runs:
                    run = results[label(name, kind)]
                    if number not in run:
                        run[number] = play_one(plan.rules, name, plan.seed, number, kind)
                        line = {"name": label(name, kind), **run[number].to_map(number)}
                        out.write(json.dumps(line) + "\n")
                        out.flush()
    except OSError as error:
        raise UsageError(
            _("{path}: the results cannot be written ({error})").format(
                path=path, error=error.strerror or error
            )
        ) from None
    return {name: dict(sorted(run.items())) for name, run in results.items()}


def _cut_at_last_line(path: str) -> None:
    """Drop a last line cut short by a run stopped while writing it: the game is played again."""
    with open(path, "rb+") as file:
        data = file.read()
        if not data.endswith(b"\n"):
            file.truncate(data.rfind(b"\n") + 1)


def _table(plan: Plan, runs: Sequence[dict[int, Game]]) -> dict[str, dict[str, Any]]:
    """Each strategy's summary, and its paired difference to the yardstick."""
    games = {name: list(run.values()) for name, run in zip(plan.labels, runs, strict=True)}
    table: dict[str, dict[str, Any]] = {name: summary(played) for name, played in games.items()}
    for kind in plan.fleets:
        yardstick = label(YARDSTICK, kind)
        if yardstick not in games:
            continue
        for name in plan.strategies:
            if name != YARDSTICK:
                mean, stderr = paired(games[label(name, kind)], games[yardstick])
                table[label(name, kind)]["vs_" + YARDSTICK] = {
                    "mean": round(mean, 3),
                    "stderr": round(stderr, 3),
                }
    return table


TABLE_HEADINGS = (
    N_("strategy"),
    N_("mean"),
    N_("median"),
    N_("p90"),
    N_("max"),
    N_("misses"),
    N_("ms p50"),
    N_("ms p99"),
)
"""The table's column headings, translated where the table is aligned."""


def _text(plan: Plan, table: dict[str, dict[str, Any]]) -> str:
    width = max(10, *(len(name) for name in table))
    heads = {head: _(head) for head in TABLE_HEADINGS}
    lines = [
        _("rules {rules}, {games} fleets, seed {seed}: shots to sink the whole fleet").format(
            rules=plan.rules_name, games=plan.games, seed=plan.seed
        ),
        f"{heads['strategy']:<{width}} {heads['mean']:>13} {heads['median']:>7}"
        f" {heads['p90']:>6} {heads['max']:>6} {heads['misses']:>7}"
        f" {heads['ms p50']:>8} {heads['ms p99']:>8}",
    ]
    for name, row in table.items():
        mean = f"{row['mean']:.2f} ± {row['stderr']:.2f}"
        lines.append(
            f"{name:<{width}} {mean:>13} {row['median']:>7g} {row['p90']:>6g} {row['max']:>6g}"
            f" {row['misses']:>7.2f} {row['ms_p50']:>8.2f} {row['ms_p99']:>8.2f}"
        )
    for name, row in table.items():
        versus = row.get("vs_" + YARDSTICK)
        if versus:
            yardstick = YARDSTICK + "".join(name.partition("@")[1:])
            lines.append(
                _("{name} - {yardstick}: {mean} ± {stderr} shots (paired, same fleets)").format(
                    name=name,
                    yardstick=yardstick,
                    mean=f"{versus['mean']:+.2f}",
                    stderr=f"{versus['stderr']:.2f}",
                )
            )
    if len(plan.fleets) > 1:
        lines += ["", _("mean shots ± s.e. by the fleets played (each kind its own fleets):")]
        lines.append(f"{heads['strategy']:<10}" + "".join(f" {kind:>15}" for kind in plan.fleets))
        for name in plan.strategies:
            cells = [table[label(name, kind)] for kind in plan.fleets]
            lines.append(
                f"{name:<10}"
                + "".join(f" {row['mean']:>8.2f} ± {row['stderr']:<4.2f}" for row in cells)
            )
    return "\n".join(lines)

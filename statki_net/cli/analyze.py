"""``statki analyze LOG``: after the game, how good each shot was and how hard each fleet was.

The analysis itself is pure (``statki_net.ai.analysis``); this reads the log,
replays it as the referee does, and shows progress while ``density`` thinks.
Its parts are independent (each player's shots reviewed, each game density
plays against a fleet, each random fleet ranked against), so they run side by
side in worker processes, one a core, each with a generator seeded from the
analysis's seed: the same seed gives the same figures on any number of cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any

from statki_net.ai.analysis import Analysis, FleetDifficulty, ShotsReview, review_shots
from statki_net.ai.strategies import play
from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_OK, Subcommands
from statki_net.cli.verify import LOG, MAX_LOG_BYTES
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.replay import Volley
from statki_net.game.rules import Ruleset
from statki_net.protocol.logformat import read_log
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.verify import replay_log
from statki_net.store.userfile import read_user_file


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("analyze")
    parser.add_argument("log", metavar="LOG", help="a game log")
    parser.add_argument("--json", action="store_true", help="print one JSON document for tools")
    parser.add_argument(
        "--reference-fleets",
        type=int,
        default=20,
        metavar="N",
        help="random fleets to rank each fleet against (default 20; more is slower and finer)",
    )
    parser.add_argument(
        "--fleet-games",
        type=int,
        default=3,
        metavar="N",
        help="games density plays against each player's fleet (default 3)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed for the sampling (default: from the game id)"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="processes to use (default: all cores)"
    )
    parser.set_defaults(run=_analyze)


class Progress:
    """A one-line indicator on standard error, only where a person watches it."""

    def __init__(self) -> None:
        self.shown = sys.stderr.isatty()
        self.label = ""

    def __call__(self, done: int, total: int) -> None:
        if self.shown and total:
            print(f"\ranalysing {self.label}: {100 * done // total:3d}%", end="", file=sys.stderr)

    def finish(self) -> None:
        if self.shown:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)


def _analyze(args: argparse.Namespace) -> int:
    if args.reference_fleets < 1 or args.fleet_games < 1:
        print("statki: --reference-fleets and --fleet-games must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    transcript, _ = replay_log(read_log(read_user_file(args.log, limit=MAX_LOG_BYTES, what=LOG)))
    rules = transcript.rules
    if rules is None or transcript.score is None:
        print(
            "statki: the log ends before the battle began; there is nothing to analyse",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    seed = args.seed if args.seed is not None else int.from_bytes(transcript.game[:8], "big")
    progress = Progress()
    progress.label = "the game"
    results = _analysis(transcript, rules, args, random.Random(seed), progress)
    progress.finish()
    if args.json:
        print(json.dumps(_as_json(transcript, results), indent=2))
    else:
        print(_as_text(transcript, rules, results))
    return EXIT_OK


# ---------------------------------------------------------------- the parts, side by side


def _review(rules: Ruleset, volleys: Sequence[Volley], seed: int) -> ShotsReview:
    return review_shots(rules, volleys, random.Random(seed))


def _shots_to_sink(rules: Ruleset, fleet: Fleet | None, seed: int) -> int:
    """Shots density needs against ``fleet``, or against a random fleet when None."""
    rng = random.Random(seed)
    return play(rules, fleet or random_fleet(rules, rng), "density", rng).shots


def _analysis(
    transcript: Transcript,
    rules: Ruleset,
    args: argparse.Namespace,
    rng: random.Random,
    progress: Callable[[int, int], None],
) -> dict[Role, Analysis]:
    """Each player's analysis (``statki_net.ai.analysis.analyze``), its parts run at once."""
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    seeds = iter(lambda: rng.getrandbits(64), None)
    fleets = {role: transcript.sides[role.other].fleet for role in Role}
    fought = [role for role in Role if fleets[role] is not None]
    total = len(Role) + args.reference_fleets + args.fleet_games * len(fought)
    with _Parts(jobs, total, progress) as parts:
        reviews = {
            role: parts.run(_review, rules, transcript.sides[role].volleys, next(seeds))
            for role in Role
        }
        reference = [
            parts.run(_shots_to_sink, rules, None, next(seeds))
            for _ in range(args.reference_fleets)
        ]
        games = {
            role: [
                parts.run(_shots_to_sink, rules, fleet, next(seeds))
                for _ in range(args.fleet_games)
            ]
            for role in fought
            for fleet in [fleets[role]]
        }
    ranks = tuple(part.result() for part in reference)
    return {
        role: Analysis(
            reviews[role].result(),
            FleetDifficulty(statistics.fmean(g.result() for g in games[role]), ranks)
            if role in games
            else None,
        )
        for role in Role
    }


class _Parts:
    """Runs the parts in ``jobs`` worker processes (or here, for one), counting them done."""

    def __init__(self, jobs: int, total: int, progress: Callable[[int, int], None]) -> None:
        self.pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
        self.total = total
        self.progress = progress
        self.parts: list[Future[Any]] = []

    def run(self, work: Callable[..., Any], *args: Any) -> Future[Any]:
        if self.pool is not None:
            part = self.pool.submit(work, *args)
        else:
            part = Future()
            part.set_result(work(*args))
            self.progress(len(self.parts) + 1, self.total)
        self.parts.append(part)
        return part

    def __enter__(self) -> _Parts:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is None:
            return
        with self.pool:
            if exc[0] is not None:
                self.pool.shutdown(cancel_futures=True)
                return
            for done, _ in enumerate(as_completed(self.parts), start=1):
                self.progress(done, self.total)


def _player(transcript: Transcript, role: Role) -> str:
    hello = transcript.sides[role].hello
    name = hello.name if hello and hello.name else role.value
    return f"{name} ({role.value})"


def _as_text(transcript: Transcript, rules: Ruleset, results: dict[Role, Analysis]) -> str:
    lines = []
    for role in Role:
        result = results[role]
        shots = result.shots
        lines.append(
            f"{_player(transcript, role)}: {len(shots.shots)} shots, accuracy "
            f"{100 * shots.accuracy:.0f}% (the best square {shots.best_shots} times)"
        )
        for review in shots.shots:
            line = review.to_map(rules.size)
            best = (
                ""
                if line["square"] == line["best_square"]
                else (f"   best {line['best_square']} {100 * review.best_chance:.0f}%")
            )
            lines.append(
                f"  move {review.move:3d}  {line['square']:>3}  {100 * review.chance:3.0f}%{best}"
            )
        own = results[role.other].fleet
        lines.append(
            f"  {_player(transcript, role)}'s fleet: "
            + (own.words() if own else "not revealed, so its difficulty is unknown")
        )
        lines.append("")
    return "\n".join(lines).rstrip()


def _as_json(transcript: Transcript, results: dict[Role, Analysis]) -> dict[str, Any]:
    return {
        role.value: {"player": _player(transcript, role), **results[role].to_map()} for role in Role
    }

"""``statki analyze LOG``: after the game, how good each shot was and how hard each fleet was.

The analysis itself is pure (``statki_net.ai.analysis``); this reads the log,
replays it as the referee does, and shows progress while ``density`` thinks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from statki_net.ai.analysis import Analysis, analyze, reference_shots
from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_OK, Subcommands
from statki_net.cli.verify import LOG, MAX_LOG_BYTES
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
    rng = random.Random(seed)
    progress = Progress()
    progress.label = "random fleets"
    reference = reference_shots(rules, rng, fleets=args.reference_fleets, progress=progress)
    results: dict[Role, Analysis] = {}
    for role in Role:
        progress.label = _player(transcript, role)
        results[role] = analyze(
            rules,
            transcript.sides[role].volleys,
            transcript.sides[role.other].fleet,
            rng,
            fleet_games=args.fleet_games,
            reference=reference,
            progress=progress,
        )
    progress.finish()
    if args.json:
        print(json.dumps(_as_json(transcript, results), indent=2))
    else:
        print(_as_text(transcript, rules, results))
    return EXIT_OK


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

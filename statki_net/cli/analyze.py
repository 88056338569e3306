"""``statki analyze LOG``: after the game, how good each shot was and how hard each fleet was.

The analysis itself is pure (``statki_net.ai.analysis``); this reads the log,
replays it as the referee does, and shows progress while ``density`` thinks.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from statki_net.ai.analysis import Analysis, analyze, reference_shots
from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_OK, Subcommands
from statki_net.game.rules import Ruleset
from statki_net.protocol.logformat import LogContents, read_log
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.verify import replay_log
from statki_net.referee.violations import Violation, ViolationClass


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
    """How far the analysis has got, on standard error: it takes minutes on the classic board.

    On a terminal one line is rewritten in place; elsewhere (a log file, a
    pipe) a line is added at each quarter, so a long run is never silent.
    """

    STEP = 25
    """Percent between two lines written where nothing is rewritten."""

    def __init__(self) -> None:
        self.in_place = sys.stderr.isatty()
        self.label = ""
        self.said = -1
        """The last percent written as a line of its own for this label."""

    def start(self, label: str) -> None:
        self.label, self.said = label, -1

    def __call__(self, done: int, total: int) -> None:
        if not total:
            return
        percent = 100 * done // total
        if self.in_place:
            print(f"\ranalysing {self.label}: {percent:3d}%", end="", file=sys.stderr)
        elif percent >= self.said + self.STEP or (percent == 100 and self.said < 100):
            self.said = percent - percent % self.STEP
            print(f"analysing {self.label}: {percent}%", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.in_place:
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)


def _analyze(args: argparse.Namespace) -> int:
    if args.reference_fleets < 1 or args.fleet_games < 1:
        print("statki: --reference-fleets and --fleet-games must be at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT
    contents = read_log(Path(args.log).read_bytes())
    transcript, violation = replay_log(contents)
    rules = transcript.rules
    if rules is None or transcript.score is None:
        print(
            "statki: the log ends before the battle began; there is nothing to analyse",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    for warning in _warnings(contents, transcript, violation):
        print(f"statki: warning: {warning}", file=sys.stderr)
    seed = args.seed if args.seed is not None else int.from_bytes(transcript.game[:8], "big")
    rng = random.Random(seed)
    progress = Progress()
    progress.start(f"{args.reference_fleets} random fleets")
    reference = reference_shots(rules, rng, fleets=args.reference_fleets, progress=progress)
    results: dict[Role, Analysis] = {}
    for role in Role:
        progress.start(f"the shots of {_player(transcript, role)}")
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


def _warnings(
    contents: LogContents, transcript: Transcript, violation: Violation | None
) -> list[str]:
    """What the reader of the analysis must know of the log: damage, a broken rule, no end."""
    said = []
    messages = len(transcript.frames)
    if contents.damage:
        said.append(
            f"the log is damaged ({contents.damage});"
            f" the {messages} messages before it are analysed"
        )
    elif violation is not None and violation.violation_class is not ViolationClass.BREACH:
        said.append(
            f"the referee finds the log invalid ({violation.kind}: {violation.detail});"
            f" the {messages} messages before that are analysed"
        )
    if transcript.ending is None:
        said.append("the game in this log did not finish; the moves played so far are analysed")
    return said


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

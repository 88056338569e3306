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
import signal
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any

from statki_net.ai.analysis import (
    Analysis,
    FleetDifficulty,
    ShotsReview,
    kept_reference,
    review_shots,
)
from statki_net.ai.strategies import play
from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_OK, Metavar, Subcommands
from statki_net.cli.told import StatusLine, tell, tell_error
from statki_net.cli.verify import read_named_log
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.replay import Volley
from statki_net.game.rules import Ruleset
from statki_net.protocol.logformat import LogContents
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role
from statki_net.referee.report import fingerprint, said_side
from statki_net.referee.verify import replay_log
from statki_net.referee.violations import Violation, ViolationClass
from statki_net.store.language import _, ngettext, words

PLAYED_REFERENCE = 20
"""Random fleets played to rank a fleet against where the rules have no kept ones."""


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("analyze")
    parser.add_argument("log", metavar=_(Metavar.LOG), help=_("a game log"))
    parser.add_argument("--json", action="store_true", help=_("print one JSON document for tools"))
    parser.add_argument(
        "--reference-fleets",
        type=int,
        default=None,
        metavar="N",
        help=_(
            "random fleets to play now and rank each fleet against (default: a preset's"
            " kept ones, else 20)"
        ),
    )
    parser.add_argument(
        "--fleet-games",
        type=int,
        default=3,
        metavar="N",
        help=_("games density plays against each player's fleet (default 3)"),
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar=_(Metavar.SEED),
        help=_("seed for the sampling (default: from the game id)"),
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help=_("processes to use (default: all cores)"),
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
        self.line = StatusLine(sys.stderr)
        self.label = ""
        self.said = -1
        """The last percent written as a line of its own for this label."""

    def start(self, label: str) -> None:
        self.label, self.said = label, -1

    def __call__(self, done: int, total: int) -> None:
        if not total:
            return
        percent = 100 * done // total
        said = _("analysing {label}: {percent}%")
        if self.in_place:
            shown = said.format(label=self.label, percent=f"{percent:3d}")
            self.line.show(shown, shortened=self.label)
        elif percent >= self.said + self.STEP or (percent == 100 and self.said < 100):
            self.said = percent - percent % self.STEP
            tell_error(said.format(label=self.label, percent=percent))

    def finish(self) -> None:
        self.line.clear()


def _analyze(args: argparse.Namespace) -> int:
    if (args.reference_fleets is not None and args.reference_fleets < 1) or args.fleet_games < 1:
        tell_error(_("statki: --reference-fleets and --fleet-games must be at least 1"))
        return EXIT_BAD_INPUT
    contents = read_named_log(args.log)
    transcript, violation = replay_log(contents)
    rules = transcript.rules
    if rules is None or transcript.score is None:
        tell_error(_("statki: the log ends before the battle began; there is nothing to analyse"))
        return EXIT_BAD_INPUT
    for warning in _warnings(contents, transcript, violation):
        tell_error(_("statki: warning: {warning}").format(warning=warning))
    seed = args.seed if args.seed is not None else int.from_bytes(transcript.game[:8], "big")
    progress = Progress()
    progress.start(_("the game"))
    results = _analysis(transcript, rules, args, random.Random(seed), progress)
    progress.finish()
    if args.json:
        print(json.dumps(_as_json(transcript, results), indent=2))
    else:
        tell(_as_text(transcript, rules, results))
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
    kept = kept_reference(rules) if args.reference_fleets is None else None
    playing = 0 if kept is not None else args.reference_fleets or PLAYED_REFERENCE
    total = len(Role) + playing + args.fleet_games * len(fought)
    with _Parts(jobs, total, progress) as parts:
        reviews = {
            role: parts.run(_review, rules, transcript.sides[role].volleys, next(seeds))
            for role in Role
        }
        reference = [parts.run(_shots_to_sink, rules, None, next(seeds)) for _ in range(playing)]
        games = {
            role: [
                parts.run(_shots_to_sink, rules, fleet, next(seeds))
                for _ in range(args.fleet_games)
            ]
            for role in fought
            for fleet in [fleets[role]]
        }
    ranks = kept if kept is not None else tuple(part.result() for part in reference)
    return {
        role: Analysis(
            reviews[role].result(),
            FleetDifficulty(
                statistics.fmean(g.result() for g in games[role]),
                ranks,
                tuple(g.result() for g in games[role]),
            )
            if role in games
            else None,
        )
        for role in Role
    }


def _worker_signals() -> None:
    """A worker leaves Ctrl-C to the command (which stops it) and dies at once when stopped:
    inherited, the command's handlers printed a traceback of every worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


class _Parts:
    """Runs the parts in ``jobs`` worker processes (or here, for one), counting them done."""

    def __init__(self, jobs: int, total: int, progress: Callable[[int, int], None]) -> None:
        self.pool = ProcessPoolExecutor(jobs, initializer=_worker_signals) if jobs > 1 else None
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
        if exc[0] is not None:
            self._stop(self.pool)
            return
        try:
            for done, _ in enumerate(as_completed(self.parts), start=1):
                self.progress(done, self.total)
        except BaseException:  # Ctrl-C while the parts run
            self._stop(self.pool)
            raise
        self.pool.shutdown()

    @staticmethod
    def _stop(pool: ProcessPoolExecutor) -> None:
        """Stop the workers now: the parts under way are minutes of work for a long game,
        and a shutdown waits for them, where a person who pressed Ctrl-C does not.  The
        workers go first, then a shutdown that waits for the pool's own thread: one that
        did not wait left that thread to find its dead workers after the pool was taken
        apart, and its traceback came at exit (CPython gh-132969)."""
        for worker in list((pool._processes or {}).values()):
            worker.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def _warnings(
    contents: LogContents, transcript: Transcript, violation: Violation | None
) -> list[str]:
    """What the reader of the analysis must know of the log: damage, a broken rule, no end."""
    said = []
    messages = len(transcript.frames)
    if contents.damage:
        said.append(
            _(
                "the log is damaged ({damage}); the {messages} messages before it are analysed"
            ).format(damage=contents.damage.in_words(words()), messages=messages)
        )
    elif violation is not None and violation.violation_class is not ViolationClass.BREACH:
        said.append(
            _(
                "the referee finds the log invalid ({kind}: {detail});"
                " the {messages} messages before that are analysed"
            ).format(
                kind=_(violation.kind.value),
                detail=violation.detail.in_words(words()),
                messages=messages,
            )
        )
    if transcript.ending is None:
        said.append(_("the game in this log did not finish; the moves played so far are analysed"))
    return said


def _player(transcript: Transcript, role: Role) -> str:
    hello = transcript.sides[role].hello
    name = hello.name if hello and hello.name else role.value
    return f"{name} ({role.value})"


def _player_words(transcript: Transcript, role: Role) -> str:
    """``_player`` for a person, as ``statki record`` says a side (the computer's name and
    the role in the language spoken)."""
    hello = transcript.sides[role].hello
    if hello is None:
        return said_side("", "", role).in_words(words())
    return said_side(hello.name, fingerprint(hello.key), role).in_words(words())


def _shots_line(player: str, shots: ShotsReview) -> str:
    return ngettext(
        "{player}: {shots} shot, accuracy {accuracy}% (the best square {best} times)",
        "{player}: {shots} shots, accuracy {accuracy}% (the best square {best} times)",
        len(shots.shots),
    ).format(
        player=player,
        shots=len(shots.shots),
        accuracy=f"{100 * shots.accuracy:.0f}",
        best=shots.best_shots,
    )


def _as_text(transcript: Transcript, rules: Ruleset, results: dict[Role, Analysis]) -> str:
    lines = []
    for role in Role:
        result = results[role]
        shots = result.shots
        player = _player_words(transcript, role)
        count = len(shots.shots)
        if not count:  # no accuracy to speak of ("accuracy 100%" of no shot)
            lines.append(_("{player}: no shots").format(player=player))
        else:
            lines.append(_shots_line(player, shots))
        for review in shots.shots:
            line = review.to_map(rules.size)
            best = (
                ""
                if line["square"] == line["best_square"]
                else "   "
                + _("best {square} {percent}%").format(
                    square=line["best_square"], percent=f"{100 * review.best_chance:.0f}"
                )
            )
            lines.append(
                "  "
                + _("move {move}").format(move=f"{review.move:3d}")
                + f"  {line['square']:>3}  {100 * review.chance:3.0f}%{best}"
            )
        own = results[role.other].fleet
        lines.append(
            "  "
            + _("{player}'s fleet: {how}").format(
                player=player,
                how=own.words(words()) if own else _("not revealed, so its difficulty is unknown"),
            )
        )
        lines.append("")
    return "\n".join(lines).rstrip()


def _as_json(transcript: Transcript, results: dict[Role, Analysis]) -> dict[str, Any]:
    return {
        role.value: {"player": _player(transcript, role), **results[role].to_map()} for role in Role
    }

"""The analysis on the end screen: the job that runs it and the state the model keeps.

``AnalysisJob.run(report)`` does the work (``statki_net.ai.analysis``, pure)
and tells how it goes through ``report``: progress, the shot review as soon
as it is ready, then the fleets' difficulty.  It neither knows nor cares
which thread it runs in; the full screen runs it in a thread of its own
(``keys.build_app``), the line prompt and the tests at once.  The model
folds the reports into an ``AnalysisState``, plain data the screen draws.

It must be pleasant on the classic board, so the fleets are ranked against
a small reference (``QUICK``): an estimate, and the screen says so;
``statki analyze LOG`` measures finer.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from statki_net.ai.analysis import (
    FleetDifficulty,
    ShotReview,
    ShotsReview,
    fleet_difficulty,
    kept_reference,
    reference_shots,
    review_shots,
)
from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet
from statki_net.game.replay import Volley
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, SILENCE, Phrase
from statki_net.store.failures import failed
from statki_net.store.language import _, words


@dataclass(frozen=True)
class Effort:
    """How much ``density`` plays to rank a fleet: fewer is quicker and coarser."""

    reference_fleets: int
    """Random fleets to play and rank against where the rules have none kept (a preset has
    them: ``analysis.kept_reference``)."""
    fleet_games: int
    """Games ``density`` plays against each fleet."""


QUICK = Effort(reference_fleets=6, fleet_games=2)
"""Measured on a 2-core machine, classic, a game of 64 shots a side: 10 s to review
both sides' shots, then about 3.5 s a game of ``density``: 42 s in all (59 s with 8
reference fleets, too close to the minute a player waits for it).  Under a preset the
random fleets are the kept ones, played once for all games: only the 4 games remain."""


class AnalysisStatus(enum.StrEnum):
    NOT_ASKED = "not asked"
    SHOTS = N_("reviewing the shots")
    FLEETS = N_("estimating how hard the fleets were to find")
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class Progress:
    status: AnalysisStatus
    percent: int


@dataclass(frozen=True)
class ShotsReviewed:
    mine: ShotsReview
    theirs: ShotsReview


@dataclass(frozen=True)
class FleetsRanked:
    mine: FleetDifficulty | None
    """How hard the player's own fleet was to find; None when not known."""
    theirs: FleetDifficulty | None


@dataclass(frozen=True)
class AnalysisFailed:
    reason: Phrase
    """``analysing the game failed: …``, said where it is shown."""


Update = Progress | ShotsReviewed | FleetsRanked | AnalysisFailed
Report = Callable[[Update], None]
Runner = Callable[["AnalysisJob", Report], None]
"""Starts a job: ``runner(job, report)``; the full screen's runs it in a thread."""


def run_now(job: AnalysisJob, report: Report) -> None:
    """Run ``job`` to its end before returning (the line prompt, the tests)."""
    job.run(report)


class _Cancelled(Exception):
    """The job was cancelled: the player left or started another game."""


@dataclass
class AnalysisJob:
    """One game's analysis, from both sides, with everything it needs copied in."""

    rules: Ruleset
    my_volleys: tuple[Volley, ...]
    their_volleys: tuple[Volley, ...]
    my_fleet: Fleet | None
    their_fleet: Fleet | None
    seed: int
    effort: Effort = QUICK
    cancelled: bool = False
    """Set from any thread; the job stops at its next step."""

    def cancel(self) -> None:
        self.cancelled = True

    def run(self, report: Report) -> None:
        """Review the shots, report them, rank the fleets, report them; stop when cancelled."""
        try:
            self._run(report)
        except _Cancelled:
            return
        except Exception as error:  # in a thread nobody else would hear of it: tell the screen
            report(AnalysisFailed(failed(N_("analysing the game"), error)))

    def _run(self, report: Report) -> None:
        rng = random.Random(self.seed)
        ticker = _Ticker(self, report, AnalysisStatus.SHOTS)
        ticker(0, 1)
        mine_count = len(self.my_volleys)
        total = mine_count + len(self.their_volleys)
        mine = review_shots(
            self.rules, self.my_volleys, rng, progress=lambda done, _: ticker(done, total)
        )
        theirs = review_shots(
            self.rules,
            self.their_volleys,
            rng,
            progress=lambda done, _: ticker(mine_count + done, total),
        )
        report(ShotsReviewed(mine, theirs))
        fleets = [fleet for fleet in (self.my_fleet, self.their_fleet) if fleet is not None]
        if not fleets:
            report(FleetsRanked(None, None))
            return
        effort = self.effort
        ticker = _Ticker(self, report, AnalysisStatus.FLEETS)
        kept = kept_reference(self.rules)
        played = 0 if kept is not None else effort.reference_fleets
        games = played + effort.fleet_games * len(fleets)
        reference = kept or reference_shots(
            self.rules, rng, fleets=played, progress=lambda done, _: ticker(done, games)
        )
        ranked: list[FleetDifficulty | None] = []
        for fleet in (self.my_fleet, self.their_fleet):
            if fleet is None:
                ranked.append(None)
                continue
            ranked.append(
                fleet_difficulty(
                    self.rules,
                    fleet,
                    rng,
                    games=effort.fleet_games,
                    reference=reference,
                    progress=ticker.after(played, games),
                )
            )
            played += effort.fleet_games
        report(FleetsRanked(ranked[0], ranked[1]))


class _Ticker:
    """Progress in whole percent, reported when it changes; the check for cancelling."""

    def __init__(self, job: AnalysisJob, report: Report, status: AnalysisStatus) -> None:
        self.job, self.report, self.status = job, report, status
        self.last = -1

    def __call__(self, done: int, total: int) -> None:
        if self.job.cancelled:
            raise _Cancelled
        percent = 100 * done // total if total else 100
        if percent != self.last:
            self.last = percent
            self.report(Progress(self.status, percent))

    def after(self, start: int, total: int) -> Callable[[int, int], None]:
        """Progress of a part that begins once ``start`` of ``total`` steps are done."""
        return lambda done, _: self(start + done, total)


@dataclass
class AnalysisState:
    """What the end screen knows of the analysis: plain data, folded from the job's reports."""

    status: AnalysisStatus = AnalysisStatus.NOT_ASKED
    percent: int = 0
    mine: ShotsReview | None = None
    """The player's shots."""
    theirs: ShotsReview | None = None
    my_fleet: FleetDifficulty | None = None
    """How hard the player's own fleet was to find."""
    their_fleet: FleetDifficulty | None = None
    missing: str = ""
    """Why how hard a fleet was is not told, when it is not."""
    error: Phrase = SILENCE
    effort: Effort = field(default=QUICK)

    @property
    def running(self) -> bool:
        return self.status in (AnalysisStatus.SHOTS, AnalysisStatus.FLEETS)

    def take(self, update: Update) -> None:
        match update:
            case Progress(status=status, percent=percent):
                self.status, self.percent = status, percent
            case ShotsReviewed(mine=mine, theirs=theirs):
                self.mine, self.theirs = mine, theirs
                self.status, self.percent = AnalysisStatus.FLEETS, 0
            case FleetsRanked(mine=mine_fleet, theirs=their_fleet):
                self.my_fleet, self.their_fleet = mine_fleet, their_fleet
                self.status, self.percent = AnalysisStatus.DONE, 100
            case AnalysisFailed(reason=reason):
                self.status, self.error = AnalysisStatus.FAILED, reason

    # ------------------------------------------------------------ in words

    def progress_words(self) -> str:
        """One line while it runs: what it is doing and how far it has got."""
        if self.status is AnalysisStatus.FLEETS:
            return _("Analysing: {value} (an estimate), {percent}%").format(
                value=_(self.status.value), percent=self.percent
            )
        return _("Analysing: {value}, {percent}%").format(
            value=_(self.status.value), percent=self.percent
        )

    def lines(self, size: int, opponent: str) -> list[str]:
        """The analysis as text, one item a line (the screen wraps long ones)."""
        if self.status is AnalysisStatus.NOT_ASKED:
            return [_("Not analysed yet: press a to analyse the game.")]
        lines: list[str] = []
        if self.mine is not None and self.theirs is not None:
            lines.append(_("You: {accuracy}").format(accuracy=accuracy_words(self.mine)))
            worst = worst_shots(self.mine)
            if worst:
                lines.append(_("  The shots that missed the best square by the most:"))
                lines += ["    " + shot_words(shot, size) for shot in worst]
            lines.append(
                _("  Your fleet: {fleet_words}").format(
                    fleet_words=self._fleet_words(self.my_fleet)
                )
            )
            lines.append("")
            lines.append(
                _("{opponent}: {accuracy_words}").format(
                    opponent=opponent, accuracy_words=accuracy_words(self.theirs)
                )
            )
            lines.append(
                _("  Their fleet: {fleet_words}").format(
                    fleet_words=self._fleet_words(self.their_fleet)
                )
            )
            lines.append("")
        if self.running:
            lines.append(self.progress_words())
        if self.status is AnalysisStatus.FAILED:
            lines.append(self.error.in_words(words()))
        if self.status is AnalysisStatus.DONE and self.missing:
            lines.append(self.missing)
        if self.mine is not None:
            effort = self.effort
            ranked = self.my_fleet or self.their_fleet  # its random fleets: kept or played
            fleets = len(ranked.reference) if ranked else effort.reference_fleets
            lines.append(
                _("Accuracy: the hits your shots could expect over those the best squares could")
            )
            lines.append(
                _(
                    "Fleets: an estimate ({reference_fleets} random fleets, {fleet_games} games"
                    " each); statki analyze LOG is finer"
                ).format(reference_fleets=fleets, fleet_games=effort.fleet_games)
            )
        return lines

    def _fleet_words(self, difficulty: FleetDifficulty | None) -> str:
        if difficulty is not None:
            return difficulty.words(words())
        if self.status is AnalysisStatus.DONE:
            return _("not known")
        if self.status is AnalysisStatus.FAILED:
            return _("not estimated")
        return _("being estimated...")

    def summary(self) -> str:
        """The end screen's few words about the analysis (two lines at most)."""
        if self.status is AnalysisStatus.NOT_ASKED:
            return _("a analyses the game: the best shots, and how hard each fleet was to find")
        if self.status is AnalysisStatus.FAILED:
            return self.error.in_words(words())
        if self.mine is None:
            return self.progress_words() + _(" (a shows it)")
        said = _(
            "Analysis (a shows it): your accuracy {n:.0f}% (the best square {best_shots} of"
            " {shots} times)"
        ).format(
            n=100 * self.mine.accuracy, best_shots=self.mine.best_shots, shots=len(self.mine.shots)
        )
        if self.running:
            return _("{said}; the fleets: {percent}%").format(said=said, percent=self.percent)
        if self.my_fleet is not None:
            said += _("; your fleet was {share}").format(share=self.my_fleet.share_words(words()))
        return said


def accuracy_words(review: ShotsReview) -> str:
    """``41 shots, accuracy 78% (the best square 18 of 41 times)``."""
    shots = len(review.shots)
    return _(
        "{shots} shots, accuracy {n:.0f}% (the best square {best_shots} of {shots} times)"
    ).format(shots=shots, n=100 * review.accuracy, best_shots=review.best_shots)


def worst_shots(review: ShotsReview, count: int = 3) -> list[ShotReview]:
    """The shots whose chance fell furthest below the best square's, worst first."""
    missed = [shot for shot in review.shots if shot.best_chance - shot.chance > 0.005]
    missed.sort(key=lambda shot: (shot.chance - shot.best_chance, shot.move))
    return missed[:count]


def shot_words(shot: ShotReview, size: int) -> str:
    """``move 12  C4 12%, the best E5 48%``."""
    return _(
        "move {move:3d}  {square_name:>3} {n:3.0f}%, the best {square_name2:>3} {n2:3.0f}%"
    ).format(
        move=shot.move,
        square_name=square_name(shot.square, size),
        n=100 * shot.chance,
        square_name2=square_name(shot.best_square, size),
        n2=100 * shot.best_chance,
    )


def job_for(
    rules: Ruleset,
    my_volleys: Sequence[Volley],
    their_volleys: Sequence[Volley],
    my_fleet: Fleet | None,
    their_fleet: Fleet | None,
    game_id: bytes,
    effort: Effort = QUICK,
) -> AnalysisJob:
    """The job for one game; seeded by the game, so the same game reads the same."""
    return AnalysisJob(
        rules,
        tuple(my_volleys),
        tuple(their_volleys),
        my_fleet,
        their_fleet,
        int.from_bytes(game_id[:8], "big"),
        effort,
    )

"""The end of the game: the verdict, what the end screen shows, and the analysis.

``EndOfGame`` is the part of ``statki_client.model.Model`` that holds how the
game failed or closed and the post-game analysis: it takes how the game ended
from the protocol (``statki_net.protocol.endings.Ending``), words failures and
verdicts, builds the ``EndScreen`` drawn at the end, and starts, follows and
cancels the analysis job (``statki_client.review``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from statki_net.game.words import Phrase, as_is
from statki_net.protocol.endings import End, Ending, Result
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed, GameClosed
from statki_net.protocol.wire import Role
from statki_net.store.language import _, words

from .kinds import ABSENT, EndScreen, Overlay, Stage
from .review import AnalysisJob, AnalysisState, AnalysisStatus, Runner, Update, job_for, run_now
from .state import CommonState


@dataclass
class EndOfGame(CommonState):
    """The end of the game and its analysis; see the module docstring."""

    failure: Failed | None = None
    end_screen: EndScreen | None = None
    analysis: AnalysisState = field(default_factory=AnalysisState)
    """The post-game analysis: asked for with ``analyse`` at the end."""
    background: Runner = run_now
    """How the analysis runs: at once here; the full screen runs it in a thread."""
    _job: AnalysisJob | None = field(default=None, init=False, repr=False)

    def why_no_analysis(self) -> str | None:
        """Why the game cannot be analysed now, or None if it can."""
        if self.stage is not Stage.OVER:
            return _("The analysis comes at the end of the game")
        t = self.session.transcript
        if self.rules is None or not any(t.sides[role].volleys for role in Role):
            return _("No shot was fired: there is nothing to analyse")
        return None

    def analyse(self) -> bool:
        """``a`` at the end: start the analysis (once; again after a failure) and show it."""
        reason = self.why_no_analysis()
        if reason:
            self.say(reason, trouble=True)
            return False
        self.overlay = Overlay.ANALYSIS
        if self.analysis.status in (AnalysisStatus.NOT_ASKED, AnalysisStatus.FAILED):
            self._start_analysis()
        return True

    def _start_analysis(self) -> None:
        assert self.rules is not None
        t, me = self.session.transcript, self.session.role
        # My own fleet is known here even when the game ended before the reveal.
        mine = t.sides[me].fleet or self.session.fleet
        theirs = t.sides[self.session.peer].fleet
        volleys = t.sides[me].volleys, t.sides[me.other].volleys
        job = job_for(self.rules, *volleys, mine, theirs, t.game)
        self._job = job
        self.analysis = AnalysisState(status=AnalysisStatus.SHOTS, effort=job.effort)
        if theirs is None:
            self.analysis.missing = _(
                "{Them}'s fleet was never revealed (the game ended before the reveal),"
                " so how hard it was to find is not known."
            ).format(Them=self._capitalised(self.opponent_label()))
        self.background(job, lambda update: self._take(job, update))

    def _take(self, job: AnalysisJob, update: Update) -> None:
        """A report from ``job``; one from a job given up (a rematch) is ignored."""
        if job is self._job:
            self.analysis.take(update)

    def cancel_analysis(self) -> None:
        """Stop a running analysis (the player leaves, or plays again)."""
        if self._job is not None:
            self._job.cancel()
            self._job = None

    def _failure_words(self, failure: Failed) -> str:
        if failure.code is Code.CLOSED and failure.by_peer and not self.session.transcript.accepted:
            # Its own stop before anything was at stake: it left (its detail is its English).
            return _("{Them} left before the battle: there is no game").format(
                Them=self._capitalised(self.opponent_label())
            )
        if failure.code is ABSENT:
            return failure.detail_in(words())
        said = failure.plainly().in_words(words())
        return said[:1].upper() + said[1:]  # a detail said first begins a sentence

    def _how_it_ended(self) -> Ending:
        """The transcript's ending, as the session's ``GameClosed`` tells it.

        A game stopped before its transcript could end (the connection lost, a
        host the invite did not name, no opponent for a rematch) ends ``NO_GAME`` here,
        with the failure's words as its reason.
        """
        t = self.session.transcript
        ending = t.ending
        if ending is not None:  # its reason as this side's player reads it
            return dataclasses.replace(ending, reason=t.reason_to(self.session.role))
        said = self._failure_words(self.failure) if self.failure else ""
        return Ending(End.NO_GAME, reason=as_is(said) if said else Phrase())

    def _end_screen(self, closed: GameClosed) -> EndScreen:
        t, me = self.session.transcript, self.session.role
        ending = self._how_it_ended()
        result = ending.result(me)
        findings = tuple(
            _("{them}: {detail}").format(
                them=_("You") if f.culprit is me else self.opponent_label(),
                detail=f.detail.in_words(words()),
            )
            for f in closed.findings
        )
        absent = self.failure is not None and self.failure.code is ABSENT
        # A battle stopped before its end is no game that never began: its log is kept
        # and ``statki resume`` picks it up (a daemon gone, a connection lost for good).
        unfinished = t.ending is None and t.accepted
        why = ending.reason.in_words(words()) if ending.end is End.NO_GAME else ""
        if self.turned_away():
            # One line, what the refusal means: nothing of a game that never began.
            verdict, why = why, ""
        elif absent:
            verdict = _("No rematch")
        elif unfinished:
            verdict = _("The game stopped unfinished: statki resume picks it up")
        else:
            verdict = self._verdict(ending.end, result)
        return EndScreen(
            ending=ending,
            result=result,
            verdict=verdict,
            findings=findings,
            my_fleet=self.session.fleet,
            their_fleet=t.sides[self.session.peer].fleet,
            my_shots=t.shots_by(me),
            their_shots=t.shots_by(self.session.peer),
            log_path=self.link.log_path,
            why_unfinished=why,
            unfinished=unfinished,
        )

    def turned_away(self) -> bool:
        """The host turned this guest away, or was not the invite's: no game to tell of."""
        return self.failure is not None and self.failure.turned_away

    @staticmethod
    def _verdict(end: End, result: Result) -> str:
        match end, result:
            case End.SUNK, Result.WON:
                return _("You won: you sank the whole fleet")
            case End.SUNK, _:
                return _("You lost: your fleet is sunk")
            case End.RESIGNED, Result.WON:
                return _("You won: the opponent resigned")
            case End.RESIGNED, _:
                return _("You resigned: the opponent wins")
            case End.TIME, Result.WON:
                return _("You won on time: the opponent ran out of time")
            case End.TIME, _:
                return _("You lost on time: you did not move within the time limit")
            case End.FORFEIT, Result.WON:
                return _("You won: the opponent stopped the game")
            case End.FORFEIT, _:
                return _("You lost: your side stopped the game")
            case End.CHEATED, Result.NONE:
                return _("Nobody won: both sides broke the rules")
            case End.CHEATED, Result.WON:
                return _("You won: the opponent cheated")
            case End.CHEATED, _:
                return _("You lost: your side broke the rules")
            case End.REFUSED, _:
                return _("No game: the rules were declined")
            case End.NO_GAME, _:
                return _("No game: it stopped before the rules were accepted")
        return _("The game ended unfinished: nobody won")

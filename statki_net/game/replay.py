"""The replay check: does a revealed fleet agree with every answer given?

Used by both peers at the reveal and by referees.  It reports everything it
finds, not only the first problem, so a verdict can name every false answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from statki_net.game.battle import Answer, Defence, Outcome
from statki_net.game.board import square_name
from statki_net.game.fleet import Fleet, FleetProblem, fleet_problems
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, Fact, Phrase, Term, phrase


@dataclass(frozen=True)
class Volley:
    """One volley as it was played: its move number, the shots, the answer given."""

    move: int
    shots: tuple[int, ...]
    answer: Answer


@dataclass(frozen=True)
class Contradiction:
    """An answer the revealed fleet shows to be false."""

    move: int
    square: int | None
    """The shot concerned; None when only the volley's totals are wrong."""
    said: str
    truth: str

    def describe(self, size: int) -> Phrase:
        if self.square is None:
            return phrase(
                N_("move {move}: answered {said}, the fleet shows {truth}"),
                move=self.move,
                said=_outcome(self.said),
                truth=_outcome(self.truth),
            )
        return phrase(
            N_("move {move} at {square}: answered {said}, the fleet shows {truth}"),
            move=self.move,
            square=square_name(self.square, size),
            said=_outcome(self.said),
            truth=_outcome(self.truth),
        )


OUTCOMES = frozenset(outcome.value for outcome in Outcome)


def _outcome(said: str) -> Fact:
    """An answer's word (``hit``) as the players say it; a count of outcomes as it is."""
    return Term(said, "answer") if said in OUTCOMES else said


@dataclass(frozen=True)
class ReplayReport:
    """What a replay of a finished game found against the fleets and the answers."""

    fleet_problems: tuple[FleetProblem, ...]
    contradictions: tuple[Contradiction, ...]

    @property
    def honest(self) -> bool:
        return not self.fleet_problems and not self.contradictions


def replay(rules: Ruleset, fleet: Fleet, volleys: Sequence[Volley]) -> ReplayReport:
    """Replay the volleys against the fleet and report every discrepancy."""
    defence = Defence(rules, fleet)
    found: list[Contradiction] = []
    for volley in volleys:
        truth, defence = defence.answer(volley.shots)
        found.extend(_compare(volley, truth))
    return ReplayReport(tuple(fleet_problems(rules, fleet)), tuple(found))


def _compare(volley: Volley, truth: Answer) -> list[Contradiction]:
    said = volley.answer
    found = [
        Contradiction(volley.move, square, told.value, real.value)
        for square, told, real in zip(volley.shots, said.outcomes, truth.outcomes, strict=False)
        if told is not real
    ]
    if len(said.outcomes) != len(truth.outcomes):
        found.append(
            Contradiction(
                volley.move, None, f"{len(said.outcomes)} outcomes", f"{len(truth.outcomes)}"
            )
        )
    if not found and (said.hits, said.sunk) != (truth.hits, truth.sunk):
        found.append(
            Contradiction(
                volley.move,
                None,
                f"{said.hits} hit(s), {said.sunk} sunk",
                f"{truth.hits} hit(s), {truth.sunk} sunk",
            )
        )
    if said.names != truth.names:
        found.append(
            Contradiction(
                volley.move, None, f"sunk {list(said.names)}", f"sunk {list(truth.names)}"
            )
        )
    return found

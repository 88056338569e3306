"""The clock a player sees: the seconds left to the side to move, and the warnings.

The deadline is the session's (``Session.turn_clock``: who moves, and when
their time runs out); ``now`` is passed in by the front end that draws, so
the model reads no clock.  A game without a time limit (against the computer)
shows none.
"""

from __future__ import annotations

from dataclasses import dataclass

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, phrase
from statki_net.protocol.bounds import MAX_LIMIT_MS, MIN_MOVE_MS
from statki_net.protocol.wire import Limits
from statki_net.store.language import _

from .kinds import Stage
from .state import CommonState

WARNINGS = (30, 10)
"""Seconds left at which the side to move is warned, the last one the most urgent."""
MOVE_LIMITS = (60, 120, 300, 600, 1800, 3600)
"""The move limits, in seconds, the host picks from on the rules screen (``+`` and ``-``)."""


@dataclass(frozen=True)
class ClockWords:
    text: str
    urgent: bool
    """The side to move is this side, and its time is nearly out: drawn to stand out."""


def clock_words(model: CommonState, now: int) -> ClockWords | None:
    """What the clock says at ``now`` (ms); None when no clock is shown."""
    if not model.link.timed or model.stage not in (Stage.BATTLE, Stage.FINISHING):
        return None
    clock = model.session.turn_clock()
    if clock is None:
        return None
    mover, deadline = clock
    left = max(0, -(-(deadline - now) // 1000))  # whole seconds, rounded up
    if mover is not model.session.role:
        return their_time_words(model.opponent_label(), left)
    return your_time_words(left)


def your_time_words(left: int, warning: int | None = None) -> ClockWords:
    """The clock's words to the side to move with ``left`` s left; ``warning``: the mark
    (one of ``WARNINGS``) just reached, for a front end whose timer may wake a moment early."""
    level = left if warning is None else min(left, warning)
    if level <= WARNINGS[-1]:
        return ClockWords(
            _("Only {left} s left: move now, or you lose on time!").format(left=left), True
        )
    if level <= WARNINGS[0]:
        return ClockWords(_("{left} s left for your move: hurry.").format(left=left), True)
    return ClockWords(_("You have {left} s left for your move.").format(left=left), False)


def their_time_words(who: str, left: int, warning: int | None = None) -> ClockWords:
    """The clock's words to the waiting side: ``who`` (the opponent) has ``left`` s left to
    move.  ``warning``: the mark (one of ``WARNINGS``) just reached, said as a warning (the
    line prompt says each once; the screen, which counts down, says the time alone)."""
    who = who[:1].upper() + who[1:]
    if left == 0:
        return ClockWords(
            _("{who}'s time is up: the game is claimed on time.").format(who=who), False
        )
    if warning is not None and min(left, warning) <= WARNINGS[-1]:
        said = _("{who} has only {left} s left to move, then the game is yours on time.")
    elif warning is not None:
        said = _("{who} has only {left} s left to move.")
    else:
        said = _("{who} has {left} s left to move.")
    return ClockWords(said.format(who=who, left=left), False)


def limit_choices(current_ms: int) -> tuple[int, ...]:
    """The move limits offered, in seconds, the current one among them."""
    seconds = current_ms // 1000
    return tuple(sorted({*MOVE_LIMITS, seconds}))


def next_limit(limits: Limits, step: int) -> Limits:
    """The move limit one choice up (``step`` 1) or down (-1); the reveal's limit with it."""
    choices = limit_choices(limits.move_ms)
    index = choices.index(limits.move_ms // 1000)
    seconds = choices[min(max(index + step, 0), len(choices) - 1)]
    ms = seconds * 1000
    if not MIN_MOVE_MS <= ms <= MAX_LIMIT_MS:
        raise UsageError(
            phrase(
                N_("a move limit of {seconds} s is outside the protocol's bounds"),
                seconds=str(seconds),
            )
        )
    return Limits(move_ms=ms, reveal_ms=ms)

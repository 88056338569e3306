"""Both boards drawn as text, for the front ends that show text.

The line prompt prints them after every volley; the daemon's control socket
sends them in its ``started`` and ``volley`` events and in a game's state
(SPEC.md, "The control socket").  Drawn from the session as it stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from statki_net.game.battle import Defence, Sea
from statki_net.game.picture import LEGEND, defence_lines, sea_lines, side_by_side
from statki_net.game.words import ENGLISH, Words
from statki_net.net.notices import Notice, Started, Volley
from statki_net.protocol.session import Session


@dataclass(frozen=True)
class Shown:
    """A notice as a text front end shows it: with the boards as they stood when it was told.

    ``boards`` is empty but after ``Started`` and ``Volley`` (and when nobody draws).
    """

    notice: Notice
    boards: str = ""


def shown(notice: Notice, session: Session, words: Words = ENGLISH) -> Shown:
    """``notice`` with the boards drawn now, if it is one that shows them (titled in ``words``;
    the control socket's are English)."""
    if isinstance(notice, Started | Volley):
        return Shown(notice, boards_text(session, words))
    return Shown(notice)


def boards_text(session: Session, words: Words = ENGLISH) -> str:
    """This side's fleet with the opponent's shots, beside its view of their sea, and the legend."""
    _ = words.gettext
    rules = session.rules
    if rules is None:
        return ""
    defence = _current_defence(session)
    view = session.view or Sea(rules)
    left = defence_lines(defence) if defence else sea_lines(Sea(rules))  # no fleet yet: water
    titles = (_("your fleet"), _("their sea"))
    return side_by_side(left, sea_lines(view), titles) + "\n" + _(LEGEND)


def _current_defence(session: Session) -> Defence | None:
    """This side's fleet with every shot the opponent has fired at it so far."""
    if session.fleet is None or session.rules is None:
        return None
    defence = Defence(session.rules, session.fleet)
    for volley in session.transcript.sides[session.peer].volleys:
        defence = defence.answer(volley.shots)[1]
    return defence

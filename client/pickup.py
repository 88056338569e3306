"""Picking an unfinished game up from the start screen: ``u``, and the list to choose from.

``PickingUp`` is a part of the model (see ``statki_client.model``).  The
first screens of ``statki play``, ``host`` and ``join`` name the games kept
for ``statki resume`` (``kept``, oldest first).  ``u`` picks up the one
named, or, when there are several, opens a short list (up/down, Enter, or
the game's digit).  Whether a game can be picked up the shell finds out
(``pick_up``: it reads the game's log and secrets): when it can, the model
leaves this screen and the front end resumes that game (``picked``); when it
cannot, one line says why and the game leaves the list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from statki_net.game.rules_words import describe
from statki_net.store.language import _, words
from statki_net.store.unfinished import Glance

from .kinds import Overlay, Stage
from .state import CommonState

NAME_SHOWN = 9
"""The opponent's name is cut to this on the unfinished games' line, so that it fits
80 columns with the longest preset's name, in both languages."""
PICK_KEY = "u"
LISTED = 9
"""Games the list shows, each with its digit."""
BEFORE_ANY_GAME = (Stage.CONNECTING, Stage.RULES, Stage.PLACING, Stage.WAITING)
"""The stages of the first screens, where no game of this side is under way yet."""

PickUp = Callable[[str], str | None]
"""The shell's: try to pick up the game of this id; None when it can be (the front end
leaves for it), else the one line, in the player's language, saying why it cannot."""


@dataclass(frozen=True)
class KeptGame:
    """A game kept for resuming, as the start screen names it."""

    game: str
    """Its id, hex."""
    glance: Glance | None
    """How far it got, as its log tells; None when the log does not read."""

    def words(self) -> str:
        if self.glance is None:
            return _("a game whose log does not read ({game})").format(game=self.game[:8])
        return glance_words(self.glance)


def glance_words(kept: Glance) -> str:
    """The game in a few words: "vs Ala, classic, your move"."""
    return _("vs {name}, {rules}, {turn}").format(
        name=kept.opponent[:NAME_SHOWN] or "?",
        rules=describe(kept.rules, words()).name if kept.rules else "?",
        turn=_("your move") if kept.my_move else _("their move"),
    )


def unfinished_words(games: Sequence[Glance | None]) -> str:
    """One line on the kept games (oldest first): the game and its state when there is
    one whose log reads (None: it does not), else how many; ``statki resume`` lists them."""
    if len(games) > 1:
        return _("Unfinished games: {n}; statki resume lists them").format(n=len(games))
    if not games:
        return ""
    if games[0] is None:
        return _("An unfinished game: statki resume picks it up")
    return _("Unfinished game {details}: statki resume picks it up").format(
        details=glance_words(games[0])
    )


@dataclass
class PickingUp(CommonState):
    """The unfinished games the start screen offers; see the module docstring."""

    kept: tuple[KeptGame, ...] = ()
    pick_up: PickUp | None = None
    picked: str | None = None
    """The game the player chose to resume: the front end leaves this screen for it."""
    pick_cursor: int = 0
    """The game highlighted in the list."""

    @property
    def can_pick_up(self) -> bool:
        """Whether ``u`` picks a game up now: there is one, and no game of this side is
        under way (nothing committed: leaving costs nothing but this screen)."""
        session = self.session
        return (
            bool(self.kept)
            and self.pick_up is not None
            and not self.at_prompt
            and self.stage in BEFORE_ANY_GAME
            and session.transcript.sides[session.role].commit is None
        )

    def unfinished_line(self) -> str:
        """The start screen's line on the kept games: with the key that picks them up."""
        if not self.can_pick_up:
            return self.unfinished
        if len(self.kept) > 1:
            return _("Unfinished games: {n}; u picks one up").format(n=len(self.kept))
        return _("Unfinished game {details}: u picks it up").format(details=self.kept[0].words())

    def ask_pick_up(self) -> None:
        """``u``: the one game kept is picked up; of several, the list opens."""
        if not self.can_pick_up:
            return
        if len(self.kept) == 1:
            self._try(self.kept[0])
        else:
            self.pick_cursor = 0
            self.overlay = Overlay.PICK

    def move_pick_cursor(self, step: int) -> None:
        shown = min(len(self.kept), LISTED)
        if shown:
            self.pick_cursor = (self.pick_cursor + step) % shown

    def pick(self, index: int | None = None) -> None:
        """Enter (the highlighted game) or a digit (``index``, from 0) in the list."""
        index = self.pick_cursor if index is None else index
        if not self.can_pick_up:  # a game began meanwhile (a guest came): not now
            self.overlay = None
        elif 0 <= index < min(len(self.kept), LISTED):
            self.overlay = None
            self._try(self.kept[index])

    def _try(self, kept: KeptGame) -> None:
        assert self.pick_up is not None
        why_not = self.pick_up(kept.game)
        if why_not is not None:
            self.kept = tuple(game for game in self.kept if game.game != kept.game)
            self.unfinished = unfinished_words([game.glance for game in self.kept])
            self.say(why_not, trouble=True)
            return
        self.picked = kept.game
        if self.must_decide:  # the host is told, as when the guest quits here
            self.must_decide = False
            self.link.decline("the guest left to resume another game")

"""The players' talk on the screen: the chat line being typed, the last lines said, muting.

``Talking`` is a part of the model (see ``statki_client.model``).  ``t``
opens the chat line; while it is open every key types into it, Enter says
the line (through the link, which signs it outside the game's transcript),
Escape closes it, Backspace takes a character back.  ``m`` mutes the
opponent: their lines are still heard and kept in the log, only no longer
shown.  The screen shows the last ``SHOWN_LINES`` lines (``lines_shown``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from statki_net.game.errors import UsageError
from statki_net.protocol.bounds import MAX_SAY_CHARS
from statki_net.protocol.phases import Phase
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.store.language import _, words

from .state import CommonState

SHOWN_LINES = 10
"""Lines of talk the screen may show beside the boards (as many rows as fit, from the end)."""
KEPT_LINES = 50
OPEN_KEY = "t"
MUTE_KEY = "m"
SEND_KEY = "enter"
CLOSE_KEY = "escape"
BACK_KEYS = ("backspace", "c-h")

RememberMute = Callable[[str, bool], None]
"""Keep whether the opponent of the game of this id (hex) is muted."""


@dataclass(frozen=True)
class TalkLine:
    """A line as the screen shows it: who said it (this side or not) and what."""

    mine: bool
    text: str


def _kept() -> deque[TalkLine]:
    return deque(maxlen=KEPT_LINES)


@dataclass
class Talking(CommonState):
    """The chat line and the talk so far; see the module docstring."""

    draft: str | None = None
    """The line being typed; None while the chat line is closed."""
    talk: deque[TalkLine] = field(default_factory=_kept)
    """Every line said or heard (the last ``KEPT_LINES``), muted ones included."""
    muted: bool = False
    """The player muted the opponent: their lines are kept, not shown."""
    remember_mute: RememberMute | None = None
    """The shell's: keeps ``muted`` with the game's kept state, for when it is picked up."""

    @property
    def can_talk(self) -> bool:
        """Whether a line can be said now: the game has an id, is not over, and is connected."""
        session = self.session
        return (
            len(session.transcript.frames) >= 2
            and session.transcript.phase is not Phase.DONE
            and session.connected
        )

    def open_chat(self) -> None:
        if not self.can_talk:
            self.say(_("Nobody to talk to now"), trouble=True)
            return
        self.draft = ""

    def chat_key(self, key: str) -> None:
        """A key pressed while the chat line is open."""
        assert self.draft is not None
        if key == SEND_KEY:
            self._send(self.draft)
        elif key == CLOSE_KEY:
            self.draft = None
        elif key in BACK_KEYS:
            self.draft = self.draft[:-1]
        elif len(key) == 1 and key.isprintable() and len(self.draft) < MAX_SAY_CHARS:
            self.draft += key

    def toggle_mute(self) -> None:
        self.muted = not self.muted
        game = self.session.transcript.game
        if self.remember_mute is not None and game:
            self.remember_mute(game.hex(), self.muted)
        who = self._capitalised(self.opponent_label())
        self.say(
            _("{who} is muted: their talk is kept in the log, not shown").format(who=who)
            if self.muted
            else _("{who} can be heard again").format(who=who)
        )

    def lines_shown(self) -> list[TalkLine]:
        """The last lines to show: this side's, and the opponent's unless muted."""
        shown = [line for line in self.talk if line.mine or not self.muted]
        return shown[-SHOWN_LINES:]

    def hear(self, event: TalkHeard | TalkSaid) -> None:
        """A line said or heard (the session's event).  It is the notice too, for the
        screens that draw no talk (placing the fleet, a board too large for the talk
        beside it): one's own line as well, unless a problem is being told; a line heard
        not while muted."""
        mine = isinstance(event, TalkSaid)
        self.talk.append(TalkLine(mine, event.say.text))
        if self.trouble or (self.muted and not mine):
            return
        if mine:
            self.say(_("You: {text}").format(text=event.say.text))
        else:
            who = self._capitalised(self.opponent_label())
            self.say(_("{name} says: {text}").format(name=who, text=event.say.text))

    def _send(self, text: str) -> None:
        if not text.strip():
            self.draft = None
            return
        try:
            self.link.say(text.strip())
        except UsageError as error:
            self.say(error.in_words(words()), trouble=True)
            return  # the line stays, to be shortened or sent again
        self.draft = None

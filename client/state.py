"""What every part of the client's state reads: the link, the rules, the notice.

``CommonState`` is the base of ``statki_client.model.Model``: the fields set
from outside (the link, the generator, the host's rule choices, an invite, a
fleet to start from) and the facts each part needs (the session, the board
size, the time limits, the opponent's name), and ``say`` for the status line.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from statki_net.game.rules import Ruleset
from statki_net.game.rules_words import describe, match_presets
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Limits, Role
from statki_net.store.language import _, words

from .computer import shown_name
from .kinds import HistorySource, Link, Overlay, Stage


@dataclass
class CommonState:
    """The state every part of the model shares; see the module docstring."""

    link: Link
    rng: random.Random
    """Draws the fleet and its re-rolls."""
    history_source: HistorySource | None = None
    stage: Stage = Stage.CONNECTING
    rules: Ruleset | None = None
    overlay: Overlay | None = None
    notice: str = ""
    """The status line: the last thing that happened or was refused."""
    trouble: bool = False
    """Whether the notice reports a problem (drawn so it stands out)."""
    opponent_name: str = ""
    opponent_key: str = ""
    must_decide: bool = False
    """The guest must accept or decline the host's rules."""
    invite: str = ""
    """The host's invite, shown until the guest arrives."""
    fleet_text: str = ""
    """A fleet to start from (``--fleet``), one ship a line; random when it breaks the rules."""
    is_rematch: bool = False
    """This game is a rematch: the same opponent again."""
    rule_choices: tuple[str, ...] = ()
    """Presets the host picks from on the rules screen; empty: no rules screen."""
    strength_choices: tuple[str, ...] = ()
    """Strengths of the computer offered on the rules screen; empty: none to choose."""
    strength_cursor: int = 0
    """The strength highlighted on the rules screen."""
    on_strength: Callable[[str], None] | None = None
    """Told the strength chosen when the rules are (before they are proposed)."""
    custom_rules: bool = False
    """As a guest, consider rules that are no preset (``--custom-rules``) instead of declining."""
    at_prompt: bool = False
    at_the_door: int = 0
    """Connections waiting for the host's hello, which goes out once its fleet is committed:
    its guest, most likely, who cannot be named before it has said hello."""
    unfinished: str = ""
    """A line on the games kept for ``statki resume``; shown until the battle starts."""
    """Played at the line prompt (``--plain``): squares are typed, no cursor nor keys to tell."""

    @property
    def session(self) -> Session:
        return self.link.session

    @property
    def size(self) -> int:
        return self.rules.size if self.rules else 10

    @property
    def limits(self) -> Limits:
        """The time limits: the host's proposal until the hello settles them."""
        session = self.session
        if session.role is Role.HOST and not session.transcript.frames:
            return session.proposed_limits
        return session.transcript.limits

    @property
    def move_seconds(self) -> int | None:
        """The seconds a move may take; None in a game without a clock (against the computer)."""
        return self.limits.move_ms // 1000 if self.link.timed else None

    def rules_name(self) -> str:
        if self.stage is Stage.RULES:
            return _("choosing the rules")
        if self.rules is None:
            return _("rules not known yet")
        return describe(self.rules, words()).name

    def departure_lines(self) -> list[str]:
        """How the rules depart from the nearest preset, a line each; none for a preset.

        Before a guest accepts it sees every way the host's rules are unusual
        (SPEC.md, section 7); presets and their combinations need no words.
        """
        if self.rules is None:
            return []
        match = match_presets(self.rules)
        if not match.custom:
            return []
        return [
            _("No preset: unlike {nearest},").format(nearest=match.nearest),
            *(f" {d}" for d in match.differences(words())),
        ]

    def say(self, text: str, *, trouble: bool = False) -> None:
        self.notice, self.trouble = text, trouble

    def opponent_shown(self) -> str:
        """The opponent's name as a screen shows it: statki's own computer's in its words."""
        return shown_name(self.opponent_name, self.opponent_key)

    def opponent_label(self) -> str:
        """The opponent in a sentence: their name, told apart from this side's when the same."""
        name = self.opponent_shown()
        if not name:
            return _("the opponent")
        if name.casefold() == self.session.name.casefold():
            return _("your opponent {name}").format(name=name)
        return name

    @staticmethod
    def _capitalised(text: str) -> str:
        return text[:1].upper() + text[1:]

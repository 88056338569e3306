"""The rules screen: the host picks the rules from the presets before placing.

``RulesScreen`` is the part of ``statki_client.model.Model`` behind it.  It
builds on ``Placing`` because choosing the rules leads into placing the fleet
(kept when the new rules have the same board and ships), and ``R`` during
placement comes back here.
"""

from __future__ import annotations

from dataclasses import dataclass

from statki_net.game.errors import UsageError
from statki_net.game.rules import PRESETS, Ruleset, preset_name
from statki_net.store.language import _, words

from .clock import next_limit
from .kinds import Stage
from .placement import Placing


@dataclass
class RulesScreen(Placing):
    """Choosing the rules; see the module docstring."""

    rules_cursor: int = 0
    """The preset highlighted on the rules screen."""

    @property
    def can_choose_rules(self) -> bool:
        """The host may (re)choose the rules: a rules screen, and the fleet not committed."""
        return bool(self.rule_choices) and self.stage in (Stage.RULES, Stage.PLACING)

    def _show_rules(self, current: Ruleset) -> None:
        name = preset_name(current)
        if name in self.rule_choices:
            self.rules_cursor = self.rule_choices.index(name)
        self.stage = Stage.RULES
        self.say(_("Choose the rules: arrows pick, Enter confirms"))

    def revisit_rules(self) -> bool:
        """R in placement: back to the rules screen, the fleet kept unless the fleet changes."""
        if self.stage is not Stage.PLACING or not self.can_choose_rules:
            return False
        assert self.rules is not None
        self._show_rules(self.rules)
        return True

    def change_move_limit(self, step: int) -> bool:
        """``+`` or ``-`` on the rules screen: the next longer or shorter time for a move."""
        if self.stage is not Stage.RULES or not self.link.timed:
            return False
        try:
            self.link.propose_limits(next_limit(self.limits, step))
        except UsageError as error:
            self.say(
                _("Cannot change the time for a move now: {error}").format(
                    error=error.in_words(words())
                ),
                trouble=True,
            )
            return False
        self.say(
            _("Each move may take {n} s; Enter confirms the rules").format(
                n=self.limits.move_ms // 1000
            )
        )
        return True

    def move_rules_cursor(self, step: int) -> None:
        if self.stage is Stage.RULES and self.rule_choices:
            self.rules_cursor = (self.rules_cursor + step) % len(self.rule_choices)

    def move_strength_cursor(self, step: int) -> None:
        if self.stage is Stage.RULES and self.strength_choices:
            self.strength_cursor = (self.strength_cursor + step) % len(self.strength_choices)

    @property
    def strength(self) -> str | None:
        """The computer's strength highlighted, where the screen offers one."""
        return self.strength_choices[self.strength_cursor] if self.strength_choices else None

    def choose_rules(self) -> bool:
        """Enter on the rules screen: propose the highlighted preset and place the fleet."""
        if self.stage is not Stage.RULES or not self.rule_choices:
            return False
        chosen = PRESETS[self.rule_choices[self.rules_cursor]]
        before = self.rules
        if self.on_strength is not None and self.strength is not None:
            self.on_strength(self.strength)
        try:
            self.link.propose(chosen)
        except UsageError as error:
            self.say(
                _("Cannot change the rules now: {error}").format(error=error.in_words(words())),
                trouble=True,
            )
            return False
        same_fleet = (
            bool(self.ships)
            and before is not None
            and (before.size, before.fleet) == (chosen.size, chosen.fleet)
        )
        if not same_fleet:
            self._start_placing(chosen)
            return True
        self.rules, self.stage = chosen, Stage.PLACING
        self.say(
            _("Rules: {rules_name}; your fleet is kept (R chooses again)").format(
                rules_name=self.rules_name()
            )
        )
        self._report_problems()
        return True

"""The kept reference an analysis ranks a fleet against: played again, entry by entry."""

from __future__ import annotations

import pytest

from statki_net.ai.analysis import kept_reference, reference_game
from statki_net.ai.reference_fleets import KEPT_SHOTS
from statki_net.game.rules import PRESETS, Ruleset, ruleset_named

QUICK_PRESETS = ("five-ships", "salvo", "salvo-count")
"""Presets whose games take a fraction of a second: checked at both ends of their table."""


def test_every_preset_keeps_two_hundred_random_fleets() -> None:
    assert set(KEPT_SHOTS) == set(PRESETS)
    for name, rules in PRESETS.items():
        shots = kept_reference(rules)
        assert shots is not None and len(shots) == 200, name
        squares = rules.size * rules.size
        assert all(sum(rules.fleet) <= n <= squares for n in shots), name


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_kept_shots_are_what_density_plays_again(name: str) -> None:
    """Fails when ``density``'s play changes: run bench/reference_fleets.py again."""
    kept = KEPT_SHOTS[name]
    for index in (0, len(kept) - 1) if name in QUICK_PRESETS else (0,):
        assert reference_game(name, index) == kept[index], (name, index)


def test_rules_no_preset_makes_have_no_kept_fleets_and_are_played() -> None:
    assert kept_reference(ruleset_named("five-ships+salvo")) is None
    assert kept_reference(Ruleset(size=6, fleet=(3, 2, 1))) is None

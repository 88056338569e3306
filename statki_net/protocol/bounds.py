"""The bounds every peer enforces on what a host proposes (SPEC.md section 7, "Bounds").

They keep rules from being a weapon: no board so small or so crowded that
the first shooter wins, no move limit too short for a person, no proposal
that makes a peer compute for long or an honest frame too large to send.  A
host must not propose anything outside them; a guest answers a hello outside
them with ``bad-field``.  They live here, in the protocol, and not in the
game's rules: the game itself plays any board (its tests use 4 x 4 ones).
"""

from __future__ import annotations

from statki_net.game.rules import Ruleset
from statki_net.protocol.wire import Limits

MIN_SIZE = 5
MAX_SIZE = 26
MAX_SHIPS = 12
MAX_SHIP_SQUARES = 40
"""Squares of all ships together; and at most half the board."""
MIN_MOVE_MS = 60_000
"""A minute: time for a person to read the rules, place a fleet, aim a volley."""
MIN_REVEAL_MS = 30_000
"""Half a minute: nothing after the battle asks a person; it outlasts a slow network."""
MAX_LIMIT_MS = 86_400_000
"""A day: no proposal holds the other side to a wait of weeks."""

MAX_FINDINGS = 64
"""Findings a verdict keeps, the first found, so an honest verdict always fits a frame
(SPEC.md section 6, "verdict")."""

CLAIM_SLACK_MS = 2_000
"""How much earlier than its own reckoning a receiver still takes a time claim
(SPEC.md section 12, "The receiver's check"): network delay and clock drift."""


def rules_problems(rules: Ruleset) -> list[str]:
    """How ``rules`` break the bounds, in words; empty when within them."""
    problems = []
    if not MIN_SIZE <= rules.size <= MAX_SIZE:
        problems.append(f"the board must be {MIN_SIZE}x{MIN_SIZE} to {MAX_SIZE}x{MAX_SIZE}")
    if not 1 <= len(rules.fleet) <= MAX_SHIPS:
        problems.append(f"the fleet must have 1 to {MAX_SHIPS} ships")
    squares = sum(rules.fleet)
    if squares > MAX_SHIP_SQUARES:
        problems.append(f"the ships must cover at most {MAX_SHIP_SQUARES} squares")
    if 2 * squares > rules.size**2:
        problems.append("the ships must cover at most half the board")
    return problems


def limits_problems(limits: Limits) -> list[str]:
    """How ``limits`` break the bounds, in words; empty when within them."""
    problems = []
    if not MIN_MOVE_MS <= limits.move_ms <= MAX_LIMIT_MS:
        problems.append(f"move_ms must be {MIN_MOVE_MS} to {MAX_LIMIT_MS}")
    if not MIN_REVEAL_MS <= limits.reveal_ms <= MAX_LIMIT_MS:
        problems.append(f"reveal_ms must be {MIN_REVEAL_MS} to {MAX_LIMIT_MS}")
    return problems


def proposal_problems(rules: Ruleset, limits: Limits) -> list[str]:
    """Everything out of bounds in a host's proposal."""
    return rules_problems(rules) + limits_problems(limits)

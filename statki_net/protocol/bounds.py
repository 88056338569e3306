"""The bounds every peer enforces on what a host proposes (SPEC.md section 7, "Bounds").

They keep rules from being a weapon: no board so small or so crowded that
the first shooter wins, no move limit too short for a person, no proposal
that makes a peer compute for long or an honest frame too large to send.  A
host must not propose anything outside them; a guest answers a hello outside
them with ``bad-field``.  They live here, in the protocol, and not in the
game's rules: the game itself plays any board (its tests use 4 x 4 ones).
"""

from __future__ import annotations

from statki_net.game.board import MAX_SIZE as MAX_SIZE  # the bound is the board's letters
from statki_net.game.rules import Ruleset
from statki_net.game.words import CONTROL_CHARACTERS, N_, Phrase, phrase
from statki_net.protocol.wire import Limits

MIN_SIZE = 5
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

RESUME_WINDOW_MS = 20_000
"""The least a side back after its program stopped waits for the peer's move (SPEC.md,
"Resume", "After the program stopped"): a guest's redial rounds (at most 8 s apart) and a
resume handshake (at most 10 s), so that a move made while apart arrives before a claim."""
CLAIM_SLACK_MS = 2_000
"""How much earlier than its own reckoning a receiver still takes a time claim
(SPEC.md section 12, "The receiver's check"): network delay and clock drift."""


def rules_problems(rules: Ruleset) -> list[Phrase]:
    """How ``rules`` break the bounds, as phrases; empty when within them."""
    problems = []
    if not MIN_SIZE <= rules.size <= MAX_SIZE:
        problems.append(
            phrase(
                N_("the board must be {low}x{low} to {high}x{high}"), low=MIN_SIZE, high=MAX_SIZE
            )
        )
    if not 1 <= len(rules.fleet) <= MAX_SHIPS:
        problems.append(phrase(N_("the fleet must have 1 to {ships} ships"), ships=MAX_SHIPS))
    squares = sum(rules.fleet)
    if squares > MAX_SHIP_SQUARES:
        problems.append(
            phrase(N_("the ships must cover at most {squares} squares"), squares=MAX_SHIP_SQUARES)
        )
    if 2 * squares > rules.size**2:
        problems.append(phrase(N_("the ships must cover at most half the board")))
    if any(ord(char) in CONTROL_CHARACTERS for name in rules.names for char in name):
        # A sink says the name to the shooter's screen (SPEC.md section 7).
        problems.append(phrase(N_("a ship name must hold no control character")))
    return problems


def limits_problems(limits: Limits) -> list[Phrase]:
    """How ``limits`` break the bounds, as phrases; empty when within them."""
    problems = []
    if not MIN_MOVE_MS <= limits.move_ms <= MAX_LIMIT_MS:
        problems.append(
            phrase(N_("move_ms must be {low} to {high}"), low=MIN_MOVE_MS, high=MAX_LIMIT_MS)
        )
    if not MIN_REVEAL_MS <= limits.reveal_ms <= MAX_LIMIT_MS:
        problems.append(
            phrase(N_("reveal_ms must be {low} to {high}"), low=MIN_REVEAL_MS, high=MAX_LIMIT_MS)
        )
    return problems


def proposal_problems(rules: Ruleset, limits: Limits) -> list[Phrase]:
    """Everything out of bounds in a host's proposal."""
    return rules_problems(rules) + limits_problems(limits)


# ---------------------------------------------------------------- talk (SPEC.md, "say")

MAX_SAY_CHARS = 200
"""Characters (code points) in one line of talk: a remark across the desk, not a letter."""
MAX_SAY_BYTES = 600
"""Bytes of one line's text in UTF-8: 200 characters of Polish take at most 400."""
MAX_SAY_BODY = 1024
"""Bytes of a whole ``say`` body: the text and its fixed-size header fit with room."""
SAY_RATE = 5
"""Lines a side may say in any ``SAY_WINDOW_MS`` by its own clock."""
SAY_WINDOW_MS = 10_000
HEARD_RATE = 2 * SAY_RATE
"""Lines a receiver takes in any ``SAY_WINDOW_MS`` by its own clock: twice what a sender may
say, the slack for lines bunched by the network (as ``CLAIM_SLACK_MS`` is for claims)."""
MAX_SAYS = 200
"""Lines one side may say in one game; past it, the receiver drops them all."""
MAX_TALK_NOTES = 16
"""Dropped lines of talk a side notes in its log per game; the rest are only counted, so a
flood cannot bloat the log."""


def talk_problem(text: str) -> str | None:
    """How ``text`` breaks the bounds of a line of talk, in words; None within them."""
    if not text.strip():
        return "an empty line"
    if len(text) > MAX_SAY_CHARS:
        return f"longer than {MAX_SAY_CHARS} characters"
    if len(text.encode("utf-8", "surrogatepass")) > MAX_SAY_BYTES:
        return f"longer than {MAX_SAY_BYTES} bytes"
    bad = next((c for c in text if ord(c) in CONTROL_CHARACTERS), None)
    if bad is not None:
        return f"a control character (U+{ord(bad):04X})"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return "a lone surrogate"
    return None

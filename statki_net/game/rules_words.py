"""The rules told to a person: a ruleset in words, and how it stands to the presets.

Apart from ``rules`` (the options themselves), so that what only reads rules
(the referee, the wire) does not make these words' classes: ``statki verify``
of one log does not (bench/startup.py).  The words are English, marked for
the catalog; each function gives them in the ``Words`` it is passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from statki_net.game.rules import (
    PRESETS,
    Report,
    Ruleset,
    Touching,
    Turns,
    _combinations,
    combination_name,
    rules_label,
)
from statki_net.game.words import ENGLISH, N_, Words


@dataclass(frozen=True)
class Departure:
    """One option in which proposed rules differ from the nearest presets, in words."""

    option: str
    """What differs, as a person calls it: ``board``, ``fleet``, ``touching``."""
    proposed: str
    usual: str
    """The value the nearest presets have."""


@dataclass(frozen=True)
class PresetMatch:
    """How proposed rules stand to the presets: what a guest is shown before it accepts."""

    name: str | None
    """The preset or combination the rules are exactly; None for custom rules."""
    nearest: str
    """The preset or combination they differ least from (``name`` when they are one)."""
    departures: tuple[Departure, ...]
    """Each option in which they differ from ``nearest``; empty for a preset."""

    @property
    def custom(self) -> bool:
        return self.name is None

    def words(self, words: Words = ENGLISH) -> str:
        """In one line: ``five-ships+salvo``, or ``custom rules, unlike classic: board 8x8 ...``."""
        if self.name is not None:
            return self.name
        return words.gettext("custom rules, unlike {nearest}: ").format(
            nearest=self.nearest
        ) + "; ".join(self.differences(words))

    def differences(self, words: Words = ENGLISH) -> tuple[str, ...]:
        """Each departure in words: ``board: 8x8 (classic: 10x10)``."""
        return tuple(
            f"{words.gettext(d.option)}: {d.proposed} ({self.nearest}: {d.usual})"
            for d in self.departures
        )


def match_presets(rules: Ruleset) -> PresetMatch:
    """How ``rules`` stand to the presets and their combinations (see ``PresetMatch``)."""
    name = combination_name(rules)
    if name is not None:
        return PresetMatch(name, name, ())
    candidates = [
        (_departures(rules, usual), usual_name) for usual, usual_name in _combinations().items()
    ]
    # Fewest departures; among those the fewest presets, then the earliest in their order.
    order = list(PRESETS)
    departures, nearest = min(
        candidates,
        key=lambda c: (len(c[0]), c[1].count("+"), [order.index(p) for p in c[1].split("+")]),
    )
    return PresetMatch(None, nearest, departures)


def _departures(rules: Ruleset, usual: Ruleset) -> tuple[Departure, ...]:
    found = []
    for option, words in OPTION_WORDS.items():
        proposed, expected = words(rules), words(usual)
        if proposed != expected:
            found.append(Departure(option, proposed, expected))
    return tuple(found)


def _names_words(rules: Ruleset) -> str:
    return ", ".join(rules.names) if rules.names else "none"


OPTION_LABELS = (
    N_("board"),
    N_("fleet"),
    N_("ship names"),
    N_("touching"),
    N_("turns"),
    N_("report"),
    N_("sinks"),
)
"""The keys of ``OPTION_WORDS``, marked for the catalog: a departure names its option."""

OPTION_WORDS: dict[str, Callable[[Ruleset], str]] = {
    "board": lambda rules: f"{rules.size}x{rules.size}",
    "fleet": lambda rules: ",".join(str(length) for length in rules.fleet),
    "ship names": _names_words,
    "touching": lambda rules: TOUCHING_WORDS[rules.touching][0],
    "turns": lambda rules: TURNS_WORDS[rules.turns],
    "report": lambda rules: REPORT_WORDS[rules.report],
    "sinks": lambda rules: "name the ship" if rules.name_sunk else "do not name the ship",
}
"""Every option of a ruleset, as a person reads its value; two rulesets alike in
all of these are alike (unknown keys aside)."""


TOUCHING_WORDS: dict[Touching, tuple[str, str]] = {
    Touching.NONE: (N_("no touching"), N_("ships never touch, not even at a corner")),
    Touching.CORNERS: (N_("touching at corners only"), N_("ships may touch only at corners")),
    Touching.ANY: (N_("ships may touch"), N_("ships may touch, never overlap")),
}
"""Each touching rule as players say it, then as a clause that stands on its own.

These tables are English; ``describe`` gives them in the ``Words`` it is passed."""

TURNS_WORDS: dict[Turns, str] = {
    Turns.CHAIN: N_("a hit earns another shot"),
    Turns.ALTERNATE: N_("one shot a turn"),
    Turns.SALVO: N_("a salvo: one shot per ship afloat"),
}
SALVO_COUNT_WORDS = N_("a salvo, only how many hit is told")
REPORT_WORDS: dict[Report, str] = {
    Report.EACH: N_("every shot is told"),
    Report.COUNT: N_("only how many hit is told"),
}


@dataclass(frozen=True)
class RulesWords:
    """A ruleset told to a person: each part in words, for a front end to lay out.

    The one place the rules are put into words; screens, prompts and printouts
    pick the parts they have room for (``summary`` in one line, ``lines`` in full).
    """

    name: str
    """The preset it is, or ``custom rules``."""
    ships: str
    """The fleet counted: ``10 ships``, ``5 named ships``, ``7 ships on 8x8``."""
    board: str
    """The board and every ship's length: ``10x10, fleet 4,3,3,2,2,2,1,1,1,1``."""
    touching_brief: str
    """How close ships may stand, as players say it: ``no touching``."""
    touching: str
    """The same as a clause that stands alone: ``ships never touch, not even at a corner``."""
    turns: str
    """Who shoots next, and what a salvo's answer tells: ``one shot a turn``."""

    @property
    def summary(self) -> str:
        """In one line: ``10 ships, no touching, a hit earns another shot``."""
        return f"{self.ships}, {self.touching_brief}, {self.turns}"

    @property
    def lines(self) -> tuple[str, str, str]:
        """In full, a line each: the board and fleet, touching, turns."""
        return (self.board, self.touching, self.turns)


def describe(rules: Ruleset, words: Words = ENGLISH) -> RulesWords:
    """``rules`` in words (see ``RulesWords``), in ``words``' language."""
    _, ngettext = words.gettext, words.ngettext
    count = len(rules.fleet)
    if rules.names:
        ships = ngettext("{n} named ship", "{n} named ships", count).format(n=count)
    else:
        ships = ngettext("{n} ship", "{n} ships", count).format(n=count)
    if rules.size != 10:
        ships += _(" on {size}x{size}").format(size=rules.size)
    fleet = ",".join(str(length) for length in rules.fleet)
    touching_brief, touching = TOUCHING_WORDS[rules.touching]
    turns = TURNS_WORDS[rules.turns]
    if rules.turns is Turns.SALVO and rules.report is Report.COUNT:
        turns = SALVO_COUNT_WORDS
    return RulesWords(
        name=_(rules_label(rules)),
        ships=ships,
        board=_("{size}x{size}, fleet {fleet}").format(size=rules.size, fleet=fleet),
        touching_brief=_(touching_brief),
        touching=_(touching),
        turns=_(turns),
    )

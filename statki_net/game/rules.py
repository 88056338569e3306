"""Rulesets as data: a small map of options, with named presets.

Every variant of the game is a combination of a few independent options, so a
preset is only a name for a common map; the engine never asks which preset is
in force.  ``Ruleset.to_map()`` is what travels in the handshake.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, TypeVar

from statki_net.game.board import MAX_SIZE
from statki_net.game.errors import UsageError
from statki_net.game.words import ENGLISH, N_, Phrase, Words, joined, phrase

MAX_NAME = 40
"""Longest ship name."""


class RulesError(UsageError, ValueError):
    """A ruleset that is not well formed."""


class Touching(enum.StrEnum):
    """How close two ships may stand."""

    NONE = "none"
    """Not by sides, not by corners (the Polish paper game)."""
    CORNERS = "corners"
    """By corners, never by sides."""
    ANY = "any"
    """Anywhere, as long as they do not overlap."""


class Turns(enum.StrEnum):
    """Who shoots next."""

    CHAIN = "chain"
    """One shot at a time; a hit or a sink earns another, a miss passes the turn."""
    ALTERNATE = "alternate"
    """One shot a turn, hit or not."""
    SALVO = "salvo"
    """As many shots a turn as the shooter has ships afloat, all at once."""


class Report(enum.StrEnum):
    """What a salvo's answer tells."""

    EACH = "each"
    """Which shots hit and which missed."""
    COUNT = "count"
    """Only how many hit."""


@dataclass(frozen=True)
class Ruleset:
    """The options of one game."""

    size: int = 10
    """Width and height of the board."""
    fleet: tuple[int, ...] = (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)
    """Ship lengths, longest first."""
    names: tuple[str, ...] = ()
    """Ship names in fleet order; empty when ships are not named."""
    touching: Touching = Touching.NONE
    turns: Turns = Turns.CHAIN
    report: Report = Report.EACH
    """Only meaningful when ``turns`` is salvo."""
    name_sunk: bool = False
    """Whether a sink names the ship ("sunk: cruiser")."""
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Unknown keys read from a map, kept so nothing said is lost."""

    def __post_init__(self) -> None:
        problems = self._problems()
        if problems:
            raise RulesError(joined(problems, "; "))

    def _problems(self) -> list[Phrase]:
        problems = []
        if not 1 <= self.size <= MAX_SIZE:
            problems.append(
                phrase(N_("size must be 1-{most}, not {size}"), most=MAX_SIZE, size=self.size)
            )
        if not self.fleet:
            problems.append(phrase(N_("the fleet has no ships")))
        if any(not 1 <= length <= self.size for length in self.fleet):
            problems.append(phrase(N_("every ship length must be 1-{size}"), size=self.size))
        if list(self.fleet) != sorted(self.fleet, reverse=True):
            problems.append(phrase(N_("ship lengths must be listed longest first")))
        if self.names and len(self.names) != len(self.fleet):
            problems.append(phrase(N_("give a name for every ship or for none")))
        if len(set(self.names)) != len(self.names):
            problems.append(phrase(N_("ship names must differ")))
        if any(not 1 <= len(name) <= MAX_NAME for name in self.names):
            problems.append(phrase(N_("a ship name is 1-{most} characters"), most=MAX_NAME))
        if self.name_sunk and not self.names:
            problems.append(phrase(N_("name_sunk needs ship names")))
        if sum(self.fleet) > self.size * self.size:
            problems.append(phrase(N_("the fleet does not fit on the board")))
        return problems

    @property
    def ship_cells(self) -> int:
        return sum(self.fleet)

    def ship_label(self, index: int, words: Words = ENGLISH) -> str:
        """How a person calls ship ``index``: its name, or its length (a ``4-mast ship``,
        a czteromasztowiec)."""
        if self.names:
            return words.gettext(self.names[index])  # a name no catalog holds stays as it is
        length = self.fleet[index]
        if length in MAST_WORDS:
            return words.gettext(MAST_WORDS[length])
        return words.gettext("{length}-mast ship").format(length=length)

    def to_map(self) -> dict[str, Any]:
        """The ruleset as a plain map, for the wire and for files."""
        rules: dict[str, Any] = dict(self.extra)
        rules.update(
            size=self.size,
            fleet=list(self.fleet),
            touching=self.touching.value,
            turns=self.turns.value,
            report=self.report.value,
            name_sunk=self.name_sunk,
        )
        if self.names:
            rules["names"] = list(self.names)
        return rules

    @classmethod
    def from_map(cls, rules: Mapping[Any, Any]) -> Ruleset:
        """Read a ruleset map; missing keys take the classic defaults, unknown keys are kept."""
        if not isinstance(rules, Mapping):
            raise RulesError(phrase(N_("rules must be a map")))
        known = {"size", "fleet", "names", "touching", "turns", "report", "name_sunk"}
        try:
            return cls(
                size=_int(rules.get("size", 10), "size"),
                fleet=tuple(
                    _int(n, "fleet") for n in _list(rules.get("fleet", list(cls.fleet)), "fleet")
                ),
                names=tuple(_str(n, "names") for n in _list(rules.get("names", []), "names")),
                touching=_choice(Touching, rules.get("touching", "none")),
                turns=_choice(Turns, rules.get("turns", "chain")),
                report=_choice(Report, rules.get("report", "each")),
                name_sunk=_bool(rules.get("name_sunk", False), "name_sunk"),
                extra={k: v for k, v in rules.items() if isinstance(k, str) and k not in known},
            )
        except RulesError as error:
            raise RulesError(phrase(N_("bad rules: {error}"), error=error.as_phrase())) from None

    def with_options(self, **options: Any) -> Ruleset:
        return replace(self, **options)


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(phrase(N_("{key} must hold whole numbers"), key=key))
    return value


def _str(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise RulesError(phrase(N_("{key} must hold strings"), key=key))
    return value


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(phrase(N_("{key} must be true or false"), key=key))
    return value


_Option = TypeVar("_Option", bound=enum.StrEnum)


def _choice(option: type[_Option], value: Any) -> _Option:
    """One of an option's values; another is said as the enum says it, in words of the
    catalog (``'x' is not a valid Touching``: the English stays what peers have read)."""
    try:
        return option(value)
    except ValueError:
        raise RulesError(
            phrase(N_("{value} is not a valid {option}"), value=repr(value), option=option.__name__)
        ) from None


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, (list, tuple)):
        raise RulesError(phrase(N_("{key} must be a list"), key=key))
    return list(value)


CLASSIC = Ruleset()
FIVE_SHIP_FLEET = (5, 4, 3, 3, 2)
# The English game's names: on the wire as written, said in the reader's words where shown.
FIVE_SHIP_NAMES = (N_("carrier"), N_("battleship"), N_("cruiser"), N_("submarine"), N_("destroyer"))

PRESETS: dict[str, Ruleset] = {
    "classic": CLASSIC,
    "corners": replace(CLASSIC, touching=Touching.CORNERS),
    "alternate": replace(CLASSIC, turns=Turns.ALTERNATE),
    "five-ships": Ruleset(
        fleet=FIVE_SHIP_FLEET,
        names=FIVE_SHIP_NAMES,
        touching=Touching.ANY,
        turns=Turns.ALTERNATE,
        name_sunk=True,
    ),
    "salvo": replace(CLASSIC, turns=Turns.SALVO),
    "salvo-count": replace(CLASSIC, turns=Turns.SALVO, report=Report.COUNT),
}
"""The named rulesets.  Combine them with ``+``: ``five-ships+salvo``."""


def ruleset_named(spec: str) -> Ruleset:
    """A preset by name, or presets joined by ``+`` whose options combine.

    ``five-ships+salvo`` is the five-ship fleet with salvo turns: each later
    name overrides the options in which it differs from classic.
    """
    names = [part.strip() for part in spec.split("+")]
    unknown = [name for name in names if name not in PRESETS]
    if unknown or not names:
        wrong = ", ".join(unknown) or repr(spec)
        raise RulesError(
            phrase(
                N_("unknown rules {wrong}; choose from {presets}"),
                wrong=wrong,
                presets=", ".join(PRESETS),
            )
        )
    rules = PRESETS[names[0]]
    for name in names[1:]:
        rules = _overlay(rules, PRESETS[name])
    return rules


def _overlay(base: Ruleset, preset: Ruleset) -> Ruleset:
    changes = {
        key: value for key, value in preset.to_map().items() if CLASSIC.to_map().get(key) != value
    }
    merged = base.to_map()
    merged.update(changes)
    return Ruleset.from_map(merged)


def preset_name(rules: Ruleset) -> str | None:
    """The preset a ruleset is exactly, if any."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    return None


@cache
def _combinations() -> dict[Ruleset, str]:
    """Every ruleset some ``A+B+...`` of presets makes, with its shortest name (the first
    in preset order among the shortest), found by adding one preset at a time."""
    named = {preset: name for name, preset in reversed(PRESETS.items())}
    frontier = dict(named)
    while frontier:
        found: dict[Ruleset, str] = {}
        for rules, name in frontier.items():
            for extra, preset in PRESETS.items():
                combined = _overlay(rules, preset)
                if combined not in named and combined not in found:
                    found[combined] = f"{name}+{extra}"
        named.update(found)
        frontier = found
    return named


def combination_name(rules: Ruleset) -> str | None:
    """The presets ``rules`` combine, as ``A+B`` (the preset's own name for a preset);
    None for rules no combination of presets makes: custom rules.  Who plays without a
    person accepts only these unless its owner allows more (SPEC.md section 7)."""
    # A preset is its own shortest name: most games' rules are named without building
    # every combination (2 ms, a one-log verify's start-up).
    return preset_name(rules) or _combinations().get(rules)


CUSTOM_RULES_REFUSED = "custom rules: this player accepts only presets and their combinations"
"""The reason (on the wire, in English) a side gives when it declines custom rules."""


def declined_as_custom(rules: Ruleset, custom_allowed: bool) -> bool:
    """Whether a guest declines ``rules`` before its player sees them: rules no combination
    of presets makes, where its owner did not admit them (``--custom-rules``).  A host may
    propose rules made to win, a tiny board crowded with ships (SPEC.md section 7); the
    computer, the line front end and the full screen all decide here."""
    return not custom_allowed and combination_name(rules) is None


CUSTOM_RULES = N_("custom rules")
"""What rules no combination of presets makes go by (in the reader's words where shown)."""


def rules_label(rules: Ruleset) -> str:
    """The one name rules go by in the history, the notices, a referee's judgement and a
    tournament's table: the preset, or the presets they combine (``A+B``), else
    ``CUSTOM_RULES``."""
    return combination_name(rules) or CUSTOM_RULES


MAST_WORDS: dict[int, str] = {
    1: N_("1-mast ship"),
    2: N_("2-mast ship"),
    3: N_("3-mast ship"),
    4: N_("4-mast ship"),
    5: N_("5-mast ship"),
}
"""The ships players have a word for (jednomasztowiec ... pięciomasztowiec)."""

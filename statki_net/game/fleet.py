"""Fleets: ships on a board, their legality, random placement, the text form.

A ship is a tuple of squares.  A ``Fleet`` lists its ships in the order of the
ruleset's ``fleet`` (ship ``i`` has length ``rules.fleet[i]`` and, where ships
are named, name ``rules.names[i]``), so a sink can name the ship.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from statki_net.game.board import (
    all_neighbours,
    bitboard_of,
    row_col,
    side_neighbours,
    spread,
    square_name,
    squares_of,
)
from statki_net.game.errors import UsageError
from statki_net.game.rules import Ruleset, Touching
from statki_net.game.words import ENGLISH, N_, SILENCE, Phrase, Words, phrase

if TYPE_CHECKING:  # only named: a referee, which draws no fleet, need not load random
    from random import Random

Ship = tuple[int, ...]
"""A ship: its squares, in order along its line."""


@dataclass(frozen=True)
class FleetProblem:
    """One way a fleet breaks the rules; ``cells`` are the squares concerned."""

    kind: str
    """One of: off-board, shape, count, overlap, touching."""
    message: str
    """``said`` in the words ``fleet_problems`` was given."""
    cells: tuple[int, ...] = ()
    said: Phrase = SILENCE
    """The problem as a phrase: a referee's finding keeps it, to be said in any language."""


def _problem(kind: str, said: Phrase, words: Words, cells: tuple[int, ...] = ()) -> FleetProblem:
    return FleetProblem(kind, said.in_words(words), cells, said)


@dataclass(frozen=True)
class Fleet:
    """A legal or illegal arrangement of ships; see ``fleet_problems``."""

    ships: tuple[Ship, ...]

    @property
    def board(self) -> int:
        """All ship squares as one bitboard."""
        return bitboard_of(square for ship in self.ships for square in ship)

    def ship_at(self, square: int) -> int | None:
        """Index of the ship on ``square``, or None for water."""
        for index, ship in enumerate(self.ships):
            if square in ship:
                return index
        return None

    def to_lists(self) -> list[list[int]]:
        return [list(ship) for ship in self.ships]


def ship_text(ship: Sequence[int], size: int) -> str:
    """``B2-E2`` for a straight ship, ``J10`` for one cell, a list otherwise."""
    names = [square_name(square, size) for square in ship]
    if len(ship) == 1:
        return names[0]
    if _is_line(ship, size):
        return f"{names[0]}-{names[-1]}"
    return " ".join(names)


def _is_line(ship: Sequence[int], size: int) -> bool:
    cells = sorted(ship)
    if len(set(cells)) != len(cells):
        return False
    rows = {row_col(s, size)[0] for s in cells}
    columns = {row_col(s, size)[1] for s in cells}
    if len(rows) == 1:
        return all(b - a == 1 for a, b in itertools.pairwise(cells))
    if len(columns) == 1:
        return all(b - a == size for a, b in itertools.pairwise(cells))
    return False


def line_between(start: int, end: int, size: int) -> Ship | None:
    """The squares from start to end on one row or column, or None if not in line."""
    (r1, c1), (r2, c2) = row_col(start, size), row_col(end, size)
    if r1 == r2:
        step = 1
    elif c1 == c2:
        step = size
    else:
        return None
    low, high = min(start, end), max(start, end)
    return tuple(range(low, high + 1, step))


# ---------------------------------------------------------------- legality


def fleet_problems(rules: Ruleset, fleet: Fleet, words: Words = ENGLISH) -> list[FleetProblem]:
    """Every way the fleet breaks the rules, said in ``words``; empty for a legal fleet."""
    size = rules.size
    problems = [
        _problem(
            "shape",
            phrase(N_("ship {ship} is not a straight line"), ship=ship_text(ship, size)),
            words,
            tuple(ship),
        )
        for ship in fleet.ships
        if not _is_line(ship, size)
    ]
    problems += _count_problems(rules, fleet, words)
    problems += _contact_problems(rules, fleet, words)
    return problems


def _count_problems(rules: Ruleset, fleet: Fleet, words: Words) -> list[FleetProblem]:
    have = Counter(len(ship) for ship in fleet.ships)
    want = Counter(rules.fleet)
    problems = []
    for length in sorted(set(have) | set(want), reverse=True):
        if have[length] == want[length]:
            continue
        cells = tuple(s for ship in fleet.ships if len(ship) == length for s in ship)
        problems.append(
            _problem(
                "count",
                phrase(
                    N_("{have} ship(s) of length {length}, the rules want {want}"),
                    have=have[length],
                    length=length,
                    want=want[length],
                ),
                words,
                cells,
            )
        )
    if problems:
        return problems
    # Ship i is the rules' ship i: that is how a sink names it and how a reveal is read.
    for index, ship in enumerate(fleet.ships):
        if len(ship) != rules.fleet[index]:
            label = (
                phrase(N_("the {name}"), name=rules.names[index])
                if rules.names
                else phrase(N_("ship {n}"), n=index + 1)
            )
            problems.append(
                _problem(
                    "count",
                    phrase(
                        N_(
                            "{label} must be {length} long, not {actual} (ships are listed in"
                            " the order of the rules' fleet)"
                        ),
                        label=label,
                        length=rules.fleet[index],
                        actual=len(ship),
                    ),
                    words,
                    ship,
                )
            )
    return problems


MAX_CONTACTS = 100
"""Pairs of ships meeting that are listed one by one; past them a fleet gets one more line.

Ships that overlap or touch are found through the squares they stand on, so
checking costs time in proportion to the fleet's size, not its square; and a
text of thousands of ships piled on one board, where nearly every pair meets,
is told so in a bounded number of lines.
"""


def _contact_problems(rules: Ruleset, fleet: Fleet, words: Words) -> list[FleetProblem]:
    size = rules.size
    table = {
        Touching.NONE: all_neighbours(size),
        Touching.CORNERS: side_neighbours(size),
        Touching.ANY: None,
    }[rules.touching]
    pairs = _meeting_pairs(fleet, size, table, limit=MAX_CONTACTS + 1)
    problems = [
        problem
        for i, j in sorted(pairs)[:MAX_CONTACTS]
        if (problem := _contact(rules, table, fleet.ships[i], fleet.ships[j], words)) is not None
    ]
    if len(pairs) > MAX_CONTACTS:
        problems.append(
            _problem(
                "overlap",
                phrase(
                    N_("more than {n} pairs of ships overlap or touch; not all listed"),
                    n=MAX_CONTACTS,
                ),
                words,
            )
        )
    return problems


def _meeting_pairs(
    fleet: Fleet, size: int, table: tuple[int, ...] | None, *, limit: int
) -> set[tuple[int, int]]:
    """The pairs of ships (by index) that share a square or stand next to each other.

    Stops once ``limit`` pairs are found.
    """
    standing: dict[int, list[int]] = {}
    for index, ship in enumerate(fleet.ships):
        for square in dict.fromkeys(ship):
            standing.setdefault(square, []).append(index)
    pairs: set[tuple[int, int]] = set()
    for square, here in standing.items():
        near = [square]
        if table is not None and 0 <= square < size * size:
            near += squares_of(table[square])
        for other in near:
            for i in here:
                for j in standing.get(other, ()):
                    if i != j:
                        pairs.add((min(i, j), max(i, j)))
                        if len(pairs) >= limit:
                            return pairs
    return pairs


def _contact(
    rules: Ruleset, table: tuple[int, ...] | None, one: Ship, two: Ship, words: Words
) -> FleetProblem | None:
    """How two ships break the touching rule, if they do."""
    size = rules.size
    first, second = bitboard_of(one), bitboard_of(two)
    names = phrase(N_("{one} and {two}"), one=ship_text(one, size), two=ship_text(two, size))
    if first & second:
        cells = tuple(squares_of(first & second))
        where = ", ".join(square_name(s, size) for s in cells)
        return _problem(
            "overlap",
            phrase(N_("ships {names} overlap at {where}"), names=names, where=where),
            words,
            cells,
        )
    if table is not None and spread(first, table) & second:
        cells = tuple(squares_of((spread(first, table) & second) | (spread(second, table) & first)))
        where = ", ".join(square_name(s, size) for s in cells)
        kind = phrase(
            N_("by a side or a corner") if rules.touching is Touching.NONE else N_("by a side")
        )
        return _problem(
            "touching",
            phrase(
                N_("ships {names} touch {kind} at {where}"), names=names, kind=kind, where=where
            ),
            words,
            cells,
        )
    return None


def forbidden_around(rules: Ruleset, ship_board: int) -> int:
    """The squares no other ship may take because of this ship: the marking after a sink."""
    if rules.touching is Touching.NONE:
        return spread(ship_board, all_neighbours(rules.size))
    if rules.touching is Touching.CORNERS:
        return spread(ship_board, side_neighbours(rules.size))
    return 0


# ---------------------------------------------------------------- placement


@cache
def placements(rules: Ruleset, length: int) -> tuple[tuple[int, int], ...]:
    """Every position of a ship of ``length``: (its squares, its squares plus their halo)."""
    size = rules.size
    result = []
    for start in range(size * size):
        row, column = row_col(start, size)
        steps = [1] if length == 1 else [1, size]
        for step in steps:
            if step == 1 and column + length > size:
                continue
            if step == size and row + length > size:
                continue
            ship = bitboard_of(range(start, start + step * length, step))
            result.append((ship, ship | forbidden_around(rules, ship)))
    return tuple(result)


def random_fleet(rules: Ruleset, rng: Random, *, max_tries: int = 1_000_000) -> Fleet:
    """A legal fleet drawn uniformly from all legal fleets.

    Each ship's position is drawn uniformly and independently, and the whole
    draw is thrown away as soon as a ship meets one placed before it.  That is
    rejection sampling from independent uniform positions, so every legal
    fleet is equally likely (ships of equal length being interchangeable).
    """
    # Thousands of draws a fleet: each is ``rng.randrange(len(positions))`` done as
    # ``Random._randbelow`` does it (bits of the length's width, drawn again while out of
    # range), so that the same seed still gives the same fleet, at half the cost.
    positions_of = [placements(rules, length) for length in rules.fleet]
    options = [
        (positions, len(positions), len(positions).bit_length()) for positions in positions_of
    ]
    getrandbits = rng.getrandbits
    for _ in range(max_tries):
        halo = 0
        chosen = []
        for positions, count, bits in options:
            drawn = getrandbits(bits)
            while drawn >= count:
                drawn = getrandbits(bits)
            ship, around = positions[drawn]
            if ship & halo:
                break
            halo |= around
            chosen.append(ship)
        else:
            return Fleet(tuple(tuple(squares_of(ship)) for ship in chosen))
    raise UsageError(
        phrase(N_("could not place the fleet: the board is too crowded for these rules"))
    )


# ---------------------------------------------------------------- text form


class FleetTextError(UsageError, ValueError):
    """Text that cannot be read as a fleet at all: raised with a phrase, said where shown."""


_SQUARE = re.compile(r"^([A-Za-z])(\d{1,2})$")

_IN_A_FILE = {
    "off": N_("line {number}: {ship} goes off the board ({off})"),
    "off-whole": N_("line {number}: {ship} is off the board"),
    "ends": N_("line {number}: expected START-END, like B2-E2"),
    "square": N_("line {number}: {text} is not a square like B2"),
}
"""What is wrong with a line of a fleet file, said with the line's number."""

_AS_TYPED = {
    "off": N_("{ship} goes off the board ({off})"),
    "off-whole": N_("{ship} is off the board"),
    "ends": N_("{ship}: expected START-END, like B2-E2"),
    "square": N_("{text} is not a square like B2"),
}
"""The same of ships typed on one line at a prompt, where a line number means nothing."""


def read_fleet_text(
    rules: Ruleset, text: str, words: Words = ENGLISH, *, typed: bool = False
) -> tuple[Fleet, list[FleetProblem]]:
    """Read a fleet, one ship a line (``B2-E2``, ``J10``, optionally ``cruiser: C1-C3``).

    Returns the fleet and the problems found while reading (squares off the
    board); ``fleet_problems`` finds the rest.  Text that is not a fleet at all
    raises ``FleetTextError``, a phrase.  The problems are said in ``words``,
    naming the line of each, unless the ships were ``typed`` one a word at a prompt.
    """
    said_as = _AS_TYPED if typed else _IN_A_FILE
    ships: list[tuple[str | None, Ship]] = []
    problems: list[FleetProblem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        label, _, cells = line.rpartition(":")
        name = label.strip().lower() or None
        ship, off_board = _read_ship(rules, cells.strip(), number, said_as)
        if off_board:
            # A ship wholly off (a one-mast K11) is named once, not "K11 ... (K11)".
            whole = off_board.upper() == cells.strip().upper()
            said = phrase(
                said_as["off-whole" if whole else "off"],
                number=number,
                ship=cells.strip(),
                off=off_board,
            )
            problems.append(_problem("off-board", said, words))
            continue
        ships.append((name, ship))
    if not ships and not problems:
        raise FleetTextError(phrase(N_("no ships found")))
    return Fleet(_in_rules_order(rules, ships)), problems


def typed_fleet(rules: Ruleset, text: str, words: Words = ENGLISH) -> Fleet | FleetProblem:
    """Ships typed on one line at a prompt (``B2-E2 G2-G4 ... J1``, in any order): the
    fleet if it is legal, else the first thing wrong with it (every prompt reads them so)."""
    try:
        typed = "\n".join(text.replace(",", " ").split())
        fleet, problems = read_fleet_text(rules, typed, words, typed=True)
    except FleetTextError as error:
        return FleetProblem("shape", error.in_words(words))
    problems = problems or fleet_problems(rules, fleet, words)
    return problems[0] if problems else fleet


def _read_ship(rules: Ruleset, spec: str, number: int, said_as: dict[str, str]) -> tuple[Ship, str]:
    size = rules.size
    parts = spec.replace("-", " - ").split()
    if len(parts) == 3 and parts[1] == "-":
        ends = [_coordinates(parts[0], number, said_as), _coordinates(parts[2], number, said_as)]
        off = [
            p for p, (c, r) in zip((parts[0], parts[2]), ends, strict=True) if not _on(c, r, size)
        ]
        if off:
            return (), ", ".join(off)
        first, last = (r * size + c for c, r in ends)
        line = line_between(first, last, size)
        if line is None:
            # A diagonal ship: keep its two ends so the shape check names it.
            return (first, last), ""
        return (line if first <= last else line[::-1]), ""
    if "-" in parts:
        raise FleetTextError(phrase(said_as["ends"], number=number, ship=spec))
    coordinates = [_coordinates(part, number, said_as) for part in parts]
    off = [p for p, (c, r) in zip(parts, coordinates, strict=True) if not _on(c, r, size)]
    if off:
        return (), ", ".join(off)
    return tuple(r * size + c for c, r in coordinates), ""


def _coordinates(text: str, number: int, said_as: dict[str, str]) -> tuple[int, int]:
    match = _SQUARE.match(text)
    if not match:
        raise FleetTextError(phrase(said_as["square"], number=number, text=repr(text)))
    return ord(match.group(1).upper()) - ord("A"), int(match.group(2)) - 1


def _on(column: int, row: int, size: int) -> bool:
    return 0 <= column < size and 0 <= row < size


def _in_rules_order(rules: Ruleset, ships: list[tuple[str | None, Ship]]) -> tuple[Ship, ...]:
    """Put named ships in their slot and the rest by length, longest first."""
    slots: list[Ship | None] = [None] * len(rules.fleet)
    rest: list[Ship] = []
    for name, ship in ships:
        if name and name in rules.names and slots[rules.names.index(name)] is None:
            slots[rules.names.index(name)] = ship
        else:
            rest.append(ship)
    rest.sort(key=len, reverse=True)
    for index, length in enumerate(rules.fleet):
        if slots[index] is None:
            fitting = next((s for s in rest if len(s) == length), None)
            if fitting is not None:
                rest.remove(fitting)
                slots[index] = fitting
    for index in range(len(slots)):
        if slots[index] is None and rest:
            slots[index] = rest.pop(0)
    return tuple(s for s in slots if s is not None) + tuple(rest)


def fleet_text(rules: Ruleset, fleet: Fleet) -> str:
    """The text form of a fleet, one ship a line, readable by ``read_fleet_text``."""
    lines = []
    for index, ship in enumerate(fleet.ships):
        label = f"{rules.names[index]}: " if rules.names and index < len(rules.names) else ""
        lines.append(label + ship_text(ship, rules.size))
    return "\n".join(lines) + "\n"


def fleet_from_lists(rules: Ruleset, ships: Iterable[Iterable[int]]) -> Fleet:
    """A fleet from lists of square numbers, checking only that they are on the board."""
    area = rules.size * rules.size
    result = []
    for ship in ships:
        cells = tuple(ship)
        if not cells or any(not 0 <= s < area for s in cells):
            raise UsageError(phrase(N_("a ship must be a non-empty list of squares on the board")))
        result.append(cells)
    return Fleet(tuple(result))

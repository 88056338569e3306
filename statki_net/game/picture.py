"""Boards drawn as text, the way they look on squared paper.

One character a square, a space between, letters over the columns and numbers
beside the rows.  The characters alone tell everything apart, so nothing here
depends on colour.
"""

from __future__ import annotations

from collections.abc import Callable

from statki_net.game.battle import Cell, Defence, Sea
from statki_net.game.board import bit
from statki_net.game.fleet import Fleet
from statki_net.game.words import N_

GLYPHS = {
    "water": ".",
    "ship": "#",
    Cell.UNKNOWN: ".",
    Cell.MISS: "o",
    Cell.HIT: "x",
    Cell.SUNK: "@",
    Cell.EMPTY: "-",
    Cell.SHOT: "?",
}
LEGEND = N_("# ship  o miss  x hit  @ sunk  - known empty  ? shot, result untold")
"""English; a text front end shows ``words.gettext(LEGEND)``."""
DEFENCE_LEGEND = N_("# ship  x hit  @ sunk  o miss  - known empty  . not shot at")
"""What ``defence_lines`` draws, for a record that shows a finished game's fleets."""


def grid(size: int, glyph: Callable[[int], str]) -> list[str]:
    """The lines of a board whose square ``s`` is drawn as ``glyph(s)``."""
    header = "    " + " ".join(chr(ord("A") + c) for c in range(size))
    lines = [header]
    for row in range(size):
        cells = " ".join(glyph(row * size + column) for column in range(size))
        lines.append(f"{row + 1:>2}  {cells}")
    return lines


def fleet_picture(size: int, fleet: Fleet) -> str:
    board = fleet.board
    return "\n".join(grid(size, lambda s: GLYPHS["ship"] if board & bit(s) else GLYPHS["water"]))


def sea_lines(sea: Sea) -> list[str]:
    """The opponent's sea as the shooter knows it."""
    return grid(sea.rules.size, lambda s: GLYPHS[sea.cell(s)])


def defence_lines(defence: Defence) -> list[str]:
    """A player's own sea: ships, and the opponent's shots on it."""
    return grid(defence.rules.size, defence_glyph(defence))


def defence_glyph(defence: Defence) -> Callable[[int], str]:
    """How each square of a player's own sea is drawn."""
    board = defence.fleet.board
    sunk = 0
    for index in defence.sunk_ships():
        for square in defence.fleet.ships[index]:
            sunk |= bit(square)
    marked = defence.marked

    def glyph(square: int) -> str:
        mask = bit(square)
        if sunk & mask:
            return GLYPHS[Cell.SUNK]
        if board & mask:
            return GLYPHS[Cell.HIT] if defence.shot & mask else GLYPHS["ship"]
        if defence.shot & mask:
            return GLYPHS[Cell.MISS]
        if marked & mask:
            return GLYPHS[Cell.EMPTY]
        return GLYPHS["water"]

    return glyph


def side_by_side(left: list[str], right: list[str], titles: tuple[str, str], gap: int = 6) -> str:
    width = max(len(line) for line in left)
    lines = [f"{titles[0]:<{width}}{' ' * gap}{titles[1]}"]
    lines += [f"{a:<{width}}{' ' * gap}{b}" for a, b in zip(left, right, strict=True)]
    return "\n".join(lines)

"""Squares and bitboards.

A square is an int: ``row * size + column``, with A1 = 0, B1 = 1 and, on the
standard board, J10 = 99.  A set of squares is a bitboard: one Python int with
bit ``square`` set for each member.  Columns are letters (A is the first),
rows are numbers from 1, and a square's name is letter first: ``C7``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from statki_net.game.english import N_
from statki_net.game.errors import UsageError
from statki_net.game.words import phrase

MAX_SIZE = 26
"""Columns are single letters, so a board is at most 26 wide."""


class SquareError(UsageError, ValueError):
    """A square's name that does not name a square on the board."""


def _check_size(size: int) -> None:
    if not 1 <= size <= MAX_SIZE:
        raise UsageError(
            phrase(
                N_("board size must be between 1 and {most}, not {size}"), most=MAX_SIZE, size=size
            )
        )


def parse_square(text: str, size: int = 10) -> int:
    """Read ``"C7"`` (any case, surrounding spaces allowed) as a square."""
    _check_size(size)
    name = text.strip().upper()
    last_column = chr(ord("A") + size - 1)
    if not name:
        raise SquareError(phrase(N_("empty square: expected a letter and a number, like C7")))
    letter, digits = name[0], name[1:]
    if not letter.isalpha():
        raise SquareError(
            phrase(
                N_("{typed}: a square is a letter then a number (C7, not 7C)"),
                typed=repr(text.strip()),
            )
        )
    if not ("A" <= letter <= last_column):
        raise SquareError(
            phrase(
                N_("{typed}: column {letter} is off the board (A-{last})"),
                typed=repr(text.strip()),
                letter=letter,
                last=last_column,
            )
        )
    if not digits.isdigit() or not digits.isascii():
        raise SquareError(
            phrase(
                N_("{typed}: expected a row number 1-{size} after the letter"),
                typed=repr(text.strip()),
                size=size,
            )
        )
    row = int(digits)
    if not 1 <= row <= size:
        raise SquareError(
            phrase(
                N_("{typed}: row {row} is off the board (1-{size})"),
                typed=repr(text.strip()),
                row=row,
                size=size,
            )
        )
    return (row - 1) * size + (ord(letter) - ord("A"))


_SQUARE_WORDS = re.compile(r"[A-Za-z]\s+\d+(?![\w])|[^\s,;]+")
_SPACES = re.compile(r"\s")


def square_words(text: str) -> list[str]:
    """The squares a typed line names, each as typed: ``"A1 b2,C3"`` gives three, and
    ``"a 1"`` one, ``A1`` with the space left out (read as two words, it was "1 is not
    a square"); what is no square stays a word of its own, for its error to name it."""
    return [_SPACES.sub("", word) for word in _SQUARE_WORDS.findall(text)]


def square_name(square: int, size: int = 10) -> str:
    """The name of a square: ``square_name(0) == "A1"``."""
    _check_size(size)
    if not 0 <= square < size * size:
        raise SquareError(
            phrase(N_("square {square} is off a {size}x{size} board"), square=square, size=size)
        )
    row, column = divmod(square, size)
    return f"{chr(ord('A') + column)}{row + 1}"


def row_col(square: int, size: int) -> tuple[int, int]:
    """Zero-based (row, column) of a square."""
    return divmod(square, size)


def bit(square: int) -> int:
    return 1 << square


def squares_of(bitboard: int) -> Iterator[int]:
    """The squares in a bitboard, lowest first."""
    while bitboard:
        low = bitboard & -bitboard
        yield low.bit_length() - 1
        bitboard ^= low


def bitboard_of(squares: Iterable[int]) -> int:
    board = 0
    for square in squares:
        board |= 1 << square
    return board


def popcount(bitboard: int) -> int:
    return bitboard.bit_count()


@cache
def full_board(size: int) -> int:
    return (1 << (size * size)) - 1


@cache
def side_neighbours(size: int) -> tuple[int, ...]:
    """For each square, the bitboard of the squares sharing a side with it."""
    return tuple(_neighbours(square, size, diagonal=False) for square in range(size * size))


@cache
def all_neighbours(size: int) -> tuple[int, ...]:
    """For each square, the bitboard of the squares sharing a side or a corner."""
    return tuple(_neighbours(square, size, diagonal=True) for square in range(size * size))


def _neighbours(square: int, size: int, *, diagonal: bool) -> int:
    row, column = divmod(square, size)
    board = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0) or (not diagonal and dr and dc):
                continue
            r, c = row + dr, column + dc
            if 0 <= r < size and 0 <= c < size:
                board |= 1 << (r * size + c)
    return board


def spread(bitboard: int, neighbours: tuple[int, ...]) -> int:
    """The squares next to any square of ``bitboard`` (by the given table), itself excluded."""
    around = 0
    for square in squares_of(bitboard):
        around |= neighbours[square]
    return around & ~bitboard

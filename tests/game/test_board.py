import pytest
from hypothesis import given
from hypothesis import strategies as st

from statki_net.game.board import (
    SquareError,
    all_neighbours,
    parse_square,
    side_neighbours,
    square_name,
    square_words,
)


@pytest.mark.parametrize(
    ("text", "square"),
    [("A1", 0), ("B1", 1), ("J10", 99), ("c7", 62), ("  d5 ", 43), ("a10", 90)],
)
def test_parse_square(text: str, square: int) -> None:
    assert parse_square(text) == square


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("K1", "column K is off the board"),
        ("A0", "row 0 is off the board"),
        ("A11", "row 11 is off the board"),
        ("1A", "letter then a number"),
        ("", "empty square"),
        ("   ", "empty square"),
        ("B", "expected a row number"),
        ("B-1", "expected a row number"),
        ("B²", "expected a row number"),
    ],
)
def test_parse_square_rejects_with_reason(text: str, says: str) -> None:
    with pytest.raises(SquareError, match=says):
        parse_square(text)


def test_small_board_limits_columns_and_rows() -> None:
    assert parse_square("E5", 5) == 24
    with pytest.raises(SquareError, match="A-E"):
        parse_square("F1", 5)
    with pytest.raises(SquareError, match="1-5"):
        parse_square("A6", 5)


@given(st.integers(1, 26).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n * n - 1))))
def test_name_and_parse_are_inverse(case: tuple[int, int]) -> None:
    size, square = case
    assert parse_square(square_name(square, size), size) == square
    assert parse_square(square_name(square, size).lower(), size) == square


def test_neighbour_tables() -> None:
    corner = all_neighbours(10)[0]
    assert sorted(i for i in range(100) if corner >> i & 1) == [1, 10, 11]
    middle = side_neighbours(10)[parse_square("E5")]
    assert sorted(square_name(i) for i in range(100) if middle >> i & 1) == ["D5", "E4", "E6", "F5"]


def test_the_squares_of_a_typed_line_are_read_with_or_without_a_space() -> None:
    assert square_words("A1 b2,C3;d4") == ["A1", "b2", "C3", "d4"]
    assert square_words("a 1  b 10") == ["a1", "b10"]
    assert square_words("hello a1b k 11") == ["hello", "a1b", "k11"]
    assert square_words(" , ") == []

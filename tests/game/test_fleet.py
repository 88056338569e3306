import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from statki_net.game.board import (
    all_neighbours,
    bitboard_of,
    parse_square,
    side_neighbours,
    spread,
    squares_of,
)
from statki_net.game.fleet import (
    MAX_CONTACTS,
    Fleet,
    FleetTextError,
    fleet_problems,
    fleet_text,
    placements,
    random_fleet,
    read_fleet_text,
)
from statki_net.game.rules import PRESETS, Ruleset, Touching

CLASSIC = PRESETS["classic"]


def fleet_of(*ships: str, rules: Ruleset = CLASSIC) -> Fleet:
    fleet, problems = read_fleet_text(rules, "\n".join(ships))
    assert not problems
    return fleet


LEGAL = ["B2-E2", "G2-G4", "A5-A7", "C5-D5", "F6-F7", "H9-I9", "J1", "J4", "D9", "A10"]


def kinds(rules: Ruleset, fleet: Fleet) -> list[str]:
    return [p.kind for p in fleet_problems(rules, fleet)]


def test_a_legal_fleet() -> None:
    assert fleet_problems(CLASSIC, fleet_of(*LEGAL)) == []


def test_edge_and_corner_ships_are_legal() -> None:
    fleet = fleet_of(
        "A1-D1", "J1-J3", "A10-C10", "J9-J10", "A3-A4", "F1-G1", "C5", "E5", "G5", "J6"
    )
    assert fleet_problems(CLASSIC, fleet) == []


def test_bent_and_diagonal_ships_are_named() -> None:
    rules = CLASSIC
    bent = fleet_of("B2 C2 C3 C4", *LEGAL[1:])
    problems = fleet_problems(rules, bent)
    assert "shape" in [p.kind for p in problems]
    assert any("B2 C2 C3 C4 is not a straight line" in p.message for p in problems)
    diagonal, _ = read_fleet_text(rules, "\n".join(["B2-E5", *LEGAL[1:]]))
    assert any(p.kind == "shape" and "B2" in p.message for p in fleet_problems(rules, diagonal))


def test_gapped_ship_is_not_a_line() -> None:
    fleet = fleet_of("B2 C2 E2 F2", *LEGAL[1:])
    assert "shape" in kinds(CLASSIC, fleet)


def test_wrong_counts_say_what_is_wrong() -> None:
    fleet = fleet_of("B2-F2", *LEGAL[1:])
    messages = [p.message for p in fleet_problems(CLASSIC, fleet)]
    assert "1 ship(s) of length 5, the rules want 0" in messages
    assert "0 ship(s) of length 4, the rules want 1" in messages
    missing = fleet_of(*LEGAL[:-1])
    assert [p.message for p in fleet_problems(CLASSIC, missing)] == [
        "3 ship(s) of length 1, the rules want 4"
    ]


def test_touching_names_ships_and_cells() -> None:
    corner = fleet_of("B2-E2", "F3-H3", *LEGAL[2:])  # E2 and F3 meet at a corner
    problems = fleet_problems(CLASSIC, corner)
    assert [p.kind for p in problems] == ["touching"]
    assert problems[0].message == "ships B2-E2 and F3-H3 touch by a side or a corner at E2, F3"
    assert fleet_problems(PRESETS["corners"], corner) == []
    side = fleet_of("B2-E2", "F2-H2", *LEGAL[2:])
    assert kinds(PRESETS["corners"], side) == ["touching"]
    assert kinds(PRESETS["classic"], side) == ["touching"]


def test_overlap_is_refused_everywhere() -> None:
    for name, rules in PRESETS.items():
        ships = (
            ["A1-A5", "A1-D1", "C3-C5", "E5-E7", "G7-H7"]
            if rules.names
            else ["B2-E2", "C1-C3", *LEGAL[2:]]
        )
        fleet, _ = read_fleet_text(rules, "\n".join(ships))
        assert "overlap" in kinds(rules, fleet), name


def test_all_problems_reported() -> None:
    fleet, off = read_fleet_text(CLASSIC, "B2-E2\nC2-C4\nD9-D12\nA5 B6\nJ1\nJ2")
    found = {p.kind for p in fleet_problems(CLASSIC, fleet)} | {p.kind for p in off}
    assert found == {"off-board", "shape", "count", "overlap", "touching"}
    assert "D9-D12 goes off the board (D12)" in off[0].message


def test_a_ship_wholly_off_the_board_is_named_once() -> None:
    """A new player typed K11: "K11 goes off the board (K11)"."""
    _, off = read_fleet_text(CLASSIC, "k11", typed=True)
    assert [p.message for p in off] == ["k11 is off the board"]


@pytest.mark.parametrize("text", ["", "# nothing\n", "hello world", "B2-", "B2-E2-F2", "2B-E2"])
def test_unreadable_text(text: str) -> None:
    with pytest.raises(FleetTextError):
        read_fleet_text(CLASSIC, text)


def test_named_ships_take_their_slot() -> None:
    rules = PRESETS["five-ships"]
    fleet, _ = read_fleet_text(
        rules,
        "submarine: A1-A3\ncruiser: C1-C3\ncarrier: E1-E5\ndestroyer: G1-G2\nbattleship: I1-I4",
    )
    assert fleet.ships[2] == (parse_square("C1"), parse_square("C2"), parse_square("C3"))
    assert fleet.ships[3][0] == parse_square("A1")
    assert fleet_problems(rules, fleet) == []
    assert read_fleet_text(rules, fleet_text(rules, fleet))[0] == fleet


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**32))
def test_every_random_fleet_is_legal_and_round_trips(name: str, seed: int) -> None:
    rules = PRESETS[name]
    fleet = random_fleet(rules, random.Random(seed))
    assert fleet_problems(rules, fleet) == []
    assert [len(s) for s in fleet.ships] == list(rules.fleet)
    assert read_fleet_text(rules, fleet_text(rules, fleet)) == (fleet, [])


def test_same_seed_same_fleet() -> None:
    assert random_fleet(CLASSIC, random.Random(7)) == random_fleet(CLASSIC, random.Random(7))
    assert random_fleet(CLASSIC, random.Random(7)) != random_fleet(CLASSIC, random.Random(8))


def _all_legal_fleets(rules: Ruleset) -> set[frozenset[frozenset[int]]]:
    """Every legal fleet, by brute force, as sets of ships (equal ships interchangeable)."""
    found: set[frozenset[frozenset[int]]] = set()
    options = [placements(rules, length) for length in rules.fleet]

    def extend(index: int, halo: int, chosen: list[int]) -> None:
        if index == len(options):
            found.add(frozenset(frozenset(i for i in range(64) if s >> i & 1) for s in chosen))
            return
        for ship, around in options[index]:
            if not ship & halo:
                extend(index + 1, halo | around, [*chosen, ship])

    extend(0, 0, [])
    return found


@pytest.mark.parametrize("touching", list(Touching))
def test_random_placement_is_uniform(touching: Touching) -> None:
    """Chi-square test of the sampler against the exact list of legal fleets on a 4x4 board."""
    rules = Ruleset(size=4, fleet=(2, 1, 1), touching=touching)
    every = _all_legal_fleets(rules)
    rng = random.Random(2026)
    draws = 60 * len(every)
    counts = Counter(
        frozenset(frozenset(s) for s in random_fleet(rules, rng).ships) for _ in range(draws)
    )
    assert set(counts) == every
    expected = draws / len(every)
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in every)
    dof = len(every) - 1
    # Mean dof, sd sqrt(2 dof): five sd above the mean fails a biased sampler, not a fair one.
    assert chi2 < dof + 5 * (2 * dof) ** 0.5, (chi2, dof)


def test_a_biased_sampler_fails_that_test() -> None:
    """The uniformity test has teeth: greedy sequential placement is measurably biased."""
    rules = Ruleset(size=4, fleet=(2, 1, 1))
    every = sorted(_all_legal_fleets(rules), key=sorted)
    rng = random.Random(1)
    counts: Counter[frozenset[frozenset[int]]] = Counter()
    draws = 60 * len(every)
    for _ in range(draws):
        halo, chosen = 0, []
        for length in rules.fleet:
            fits = [(s, a) for s, a in placements(rules, length) if not s & halo]
            ship, around = rng.choice(fits)
            halo |= around
            chosen.append(frozenset(i for i in range(16) if ship >> i & 1))
        counts[frozenset(chosen)] += 1
    expected = draws / len(every)
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in every)
    dof = len(every) - 1
    assert chi2 > dof + 5 * (2 * dof) ** 0.5


def test_pairs_of_ships_checked_once() -> None:
    fleet = fleet_of(*LEGAL)
    assert len(list(combinations(fleet.ships, 2))) == 45


@given(
    st.integers(0, 8),
    st.integers(0, 8),
    st.sampled_from([(1, 1), (1, -1), (-1, 1), (-1, -1)]),
)
def test_ships_touching_at_a_corner(row: int, column: int, direction: tuple[int, int]) -> None:
    """Two single ships meeting at a corner: classic refuses, corners and five-ships accept."""
    dr, dc = direction
    other_row, other_column = row + dr, column + dc
    if not (0 <= other_row < 10 and 0 <= other_column < 10):
        return
    ships = ((row * 10 + column,), (other_row * 10 + other_column,))
    for name, refused in (("classic", True), ("corners", False), ("five-ships", False)):
        rules = Ruleset(fleet=(1, 1), touching=PRESETS[name].touching)
        kinds_found = [p.kind for p in fleet_problems(rules, Fleet(ships))]
        assert kinds_found == (["touching"] if refused else []), name


@given(st.integers(0, 99), st.sampled_from(sorted(PRESETS)))
def test_overlapping_ships_refused_under_every_preset(square: int, name: str) -> None:
    rules = Ruleset(fleet=(1, 1), touching=PRESETS[name].touching)
    assert [p.kind for p in fleet_problems(rules, Fleet(((square,), (square,))))] == ["overlap"]


def _pairwise_contacts(rules: Ruleset, fleet: Fleet) -> list[tuple[str, tuple[int, ...]]]:
    """The contact problems as every pair of ships compared with every other: the reference."""
    table = {
        Touching.NONE: all_neighbours(rules.size),
        Touching.CORNERS: side_neighbours(rules.size),
        Touching.ANY: None,
    }[rules.touching]
    found = []
    for one, two in combinations(fleet.ships, 2):
        first, second = bitboard_of(one), bitboard_of(two)
        if first & second:
            found.append(("overlap", tuple(squares_of(first & second))))
        elif table is not None and spread(first, table) & second:
            near = (spread(first, table) & second) | (spread(second, table) & first)
            found.append(("touching", tuple(squares_of(near))))
    return found


ships_on_a_small_board = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(1, 3), st.booleans()),
    min_size=1,
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(ships_on_a_small_board, st.sampled_from(list(Touching)))
def test_contacts_found_through_squares_are_the_pairwise_ones(
    specs: list[tuple[int, int, int, bool]], touching: Touching
) -> None:
    rules = Ruleset(size=6, fleet=(1,), touching=touching)
    ships = []
    for row, column, length, down in specs:
        step = 6 if down else 1
        end_row, end_column = (row + length - 1, column) if down else (row, column + length - 1)
        if end_row < 6 and end_column < 6:
            ships.append(tuple(range(row * 6 + column, row * 6 + column + step * length, step)))
    fleet = Fleet(tuple(ships))
    contacts = [
        (p.kind, p.cells) for p in fleet_problems(rules, fleet) if p.kind in ("overlap", "touching")
    ]
    assert contacts == _pairwise_contacts(rules, fleet)


def test_thousands_of_piled_ships_get_a_bounded_list() -> None:
    rules = PRESETS["classic"]
    rng = random.Random(3)
    text = "\n".join(
        f"{'ABCDEFGHIJ'[rng.randrange(10)]}{row}-{'ABCDEFGHIJ'[0]}{row}"
        for row in (rng.randrange(1, 11) for _ in range(5000))
    )
    fleet, problems = read_fleet_text(rules, text)
    assert len(fleet.ships) == 5000 and not problems
    contacts = [p for p in fleet_problems(rules, fleet) if p.kind in ("overlap", "touching")]
    assert len(contacts) == MAX_CONTACTS + 1
    assert "not all listed" in contacts[-1].message


def _fleet_by_randrange(rules: Ruleset, rng: random.Random) -> tuple[tuple[int, ...], ...]:
    """``random_fleet`` as it was written first, with ``randrange``: the fleets a seed gave."""
    options = [placements(rules, length) for length in rules.fleet]
    while True:
        halo, chosen = 0, []
        for positions in options:
            ship, around = positions[rng.randrange(len(positions))]
            if ship & halo:
                break
            halo |= around
            chosen.append(ship)
        else:
            return tuple(tuple(squares_of(ship)) for ship in chosen)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_seed_gives_the_fleet_randrange_gave(name: str) -> None:
    """``random_fleet`` draws its positions with ``getrandbits`` as ``randrange`` does inside
    (about 0.1 s for the presets): if Python ever drew ``randrange`` otherwise, seeded games
    would change their fleets, and this says so."""
    rules = PRESETS[name]
    for seed in (1, 2):
        assert random_fleet(rules, random.Random(seed)).ships == _fleet_by_randrange(
            rules, random.Random(seed)
        )

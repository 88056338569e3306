"""The bench's exact reference: counts against brute force, draws uniform, density agrees."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from statki_net.ai.density import hit_probabilities, read_view
from statki_net.ai.exact import (
    Problem,
    _Packing,
    _slot_values,
    _words,
    clustered_fleet,
    count,
    counted,
    draw_fleet,
    exact_probabilities,
    exact_strategy,
    halves,
    problem_of,
    recount,
    recount_cost,
    ships_of,
)
from statki_net.ai.strategies import per_ship_strategy, sink_fleet
from statki_net.game.battle import Defence, Sea
from statki_net.game.board import squares_of
from statki_net.game.fleet import fleet_problems, placements, random_fleet
from statki_net.game.rules import Ruleset, Touching, ruleset_named


def brute_force(rules: Ruleset, free: int, hits: int) -> tuple[int, Counter[int]]:
    """Fleets on ``free | hits`` covering the hits, none wholly on hits: (count, per square).

    Ships never share a side here, so a fleet is its set of squares.
    """
    allowed = free | hits
    boards: set[int] = set()

    def place(index: int, taken: int, board: int) -> None:
        if index == len(rules.fleet):
            if board & hits == hits:
                boards.add(board)
            return
        for ship, halo in placements(rules, rules.fleet[index]):
            if not ship & ~allowed and not ship & taken and ship & free:
                place(index + 1, taken | halo, board | ship)

    place(0, 0, 0)
    squares: Counter[int] = Counter()
    for board in boards:
        squares.update(squares_of(board))
    return len(boards), squares


def need_of(rules: Ruleset) -> tuple[int, ...]:
    many = Counter(rules.fleet)
    return tuple(many[length] for length in range(rules.size + 1))


@pytest.mark.parametrize("seed", range(25))
def test_the_count_is_brute_force_s_on_small_boards(seed: int) -> None:
    rng = random.Random(seed)
    rules = Ruleset(
        size=rng.choice([4, 5, 6]),
        fleet=rng.choice([(3, 2, 1), (2, 2, 1, 1), (3, 1, 1), (4, 2), (2, 1, 1, 1)]),
        touching=rng.choice([Touching.NONE, Touching.CORNERS]),
    )
    free, hits = 0, 0
    for square in range(rules.size**2):
        draw = rng.random()
        if draw < 0.07:
            hits |= 1 << square
        elif draw > 0.27:
            free |= 1 << square
    table = count(Problem(rules, free, hits, need_of(rules)))
    fleets, squares = brute_force(rules, free, hits)
    assert table.fleets == fleets
    counted = table.ship_counts()
    assert [counted[s] for s in squares_of(free)] == [squares[s] for s in squares_of(free)]


def test_a_ship_as_long_as_the_board_is_counted_too() -> None:
    """A line of eight squares has a status past five bits: the packed frontier makes room."""
    rules = Ruleset(size=8, fleet=(8, 2, 1))
    rng = random.Random(9)
    free = sum(1 << s for s in range(64) if rng.random() < 0.85)
    table = count(Problem(rules, free, 0, need_of(rules)))
    fleets, squares = brute_force(rules, free, 0)
    assert table.fleets == fleets > 0
    assert [table.ship_counts()[s] for s in range(64)] == [squares[s] for s in range(64)]


def test_a_drawn_fleet_is_uniform_among_all() -> None:
    rules = Ruleset(size=4, fleet=(2, 1))
    problem = Problem(rules, (1 << 16) - 1, 0, need_of(rules))
    fleets = count(problem).fleets
    rng = random.Random(7)
    seen = Counter(draw_fleet(problem, rng) for _ in range(12 * fleets))
    assert len(seen) == fleets
    chi2 = sum((n - 12) ** 2 / 12 for n in seen.values())
    assert chi2 < fleets - 1 + 5 * (2 * (fleets - 1)) ** 0.5, "within five standard deviations"
    for board in seen:
        assert not fleet_problems(rules, ships_of(rules, board))


def test_where_density_counts_exactly_the_reference_agrees() -> None:
    rules = Ruleset(size=7, fleet=(3, 2, 2, 1, 1))
    rng = random.Random(3)
    sea, defence = Sea(rules), Defence(rules, random_fleet(rules, rng))
    compared = 0
    while sea.afloat:
        shots = per_ship_strategy(sea, 1, rng)
        answer, defence = defence.answer(shots)
        sea = sea.apply(shots, answer)
        estimate = hit_probabilities(sea, random.Random(1), samples=200)
        if estimate.exact and sea.afloat:
            odds, fleets = exact_probabilities(sea)
            assert fleets == estimate.fleets
            assert odds == pytest.approx(estimate.squares, abs=1e-9)
            compared += 1
    assert compared >= 3


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    rules=st.sampled_from(
        [
            Ruleset(size=5, fleet=(3, 2, 1, 1)),
            Ruleset(size=6, fleet=(3, 2, 2, 1, 1)),
            Ruleset(size=6, fleet=(3, 2, 1, 1), touching=Touching.CORNERS),
        ]
    ),
    seed=st.integers(0, 2**32),
    shots=st.integers(8, 30),
)
def test_density_s_exact_count_agrees_at_every_point_of_a_game(
    rules: Ruleset, seed: int, shots: int
) -> None:
    """Positions from real play (misses, open hits, sunk ships and their halos), not made up."""
    rng = random.Random(seed)
    sea, defence = Sea(rules), Defence(rules, random_fleet(rules, rng))
    for _ in range(shots):
        if not sea.afloat:
            break
        volley = per_ship_strategy(sea, 1, rng)
        answer, defence = defence.answer(volley)
        sea = sea.apply(volley, answer)
    expected = hit_probabilities(sea, random.Random(0), samples=200)
    assume(expected.exact)  # density counts exactly below its limit, samples above it
    odds, fleets = exact_probabilities(sea)
    assert fleets == expected.fleets
    assert odds == pytest.approx(expected.squares, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_a_position_s_mirror_images_share_its_counts(seed: int) -> None:
    rules = Ruleset(size=6, fleet=(3, 2, 2, 1))
    rng = random.Random(seed)
    free = sum(1 << s for s in range(36) if rng.random() < 0.8)
    hits = (1 << rng.randrange(36)) & ~free
    problem = Problem(rules, free, hits, need_of(rules))
    direct = count(problem)
    for _ in range(2):  # the second time from the kept image
        shared = counted(problem)
        assert (shared.fleets, shared.ship_counts()) == (direct.fleets, direct.ship_counts())


def test_counts_that_outgrow_a_word_take_two() -> None:
    many = Ruleset(size=10, fleet=(1,) * 20)
    assert _words(ruleset_named("classic"), need_of(ruleset_named("classic"))) == 1
    assert _words(many, need_of(many)) == 2
    packing = _Packing((0, 3), 128)
    slots = [5, 2**64 + 7, 2**100]
    packed = sum(value << (128 * slot) for slot, value in enumerate(slots))
    assert list(_slot_values(packed, packing)) == [*slots, 0]


@pytest.mark.parametrize(
    "rules",
    [
        Ruleset(size=5, fleet=(3, 2, 1, 1)),
        Ruleset(size=5, fleet=(3, 2, 2, 1), touching=Touching.CORNERS),
    ],
    ids=["no-touching", "corners"],
)
def test_the_exact_player_fires_where_brute_force_finds_the_most_fleets(rules: Ruleset) -> None:
    """What it plays, not only what it counts: every shot of whole games, the counts kept.

    The later games meet their openings again turned or flipped (ties are
    drawn at random), so their shots come from counts kept in another image
    and carried back: a square carried wrong is a shot where fewer fleets are.
    """
    rng = random.Random(3)
    for _ in range(8):
        sea, defence = Sea(rules), Defence(rules, random_fleet(rules, rng))
        while sea.afloat:
            view = read_view(sea)
            left = [
                length
                for kind, many in zip(view.kinds, view.counts, strict=True)
                for length in [kind[0]] * many
            ]
            fleets, squares = brute_force(replace(rules, fleet=tuple(left)), view.free, view.hits)
            (shot,) = exact_strategy(sea, 1, rng)
            assert exact_probabilities(sea)[1] == fleets
            assert squares[shot] == max(squares[s] for s in squares_of(view.free))
            answer, defence = defence.answer((shot,))
            sea = sea.apply((shot,), answer)


def test_the_exact_player_sinks_a_fleet_on_a_small_board() -> None:
    rules = Ruleset(size=5, fleet=(3, 2, 1, 1))
    fleet = random_fleet(rules, random.Random(2))
    rng = random.Random(4)
    done = sink_fleet(rules, fleet, lambda sea, due: exact_strategy(sea, due, rng))
    fired = [square for volley in done.volleys for square in volley.shots]
    assert len(set(fired)) == len(fired) == done.shots, "never the same square twice"


@pytest.mark.parametrize(
    "rules",
    [
        Ruleset(size=6, fleet=(3, 2, 2, 1, 1)),  # counted, as classic is (in seconds, not here)
        Ruleset(size=6, fleet=(3, 2, 2, 1), touching=Touching.CORNERS),
        ruleset_named("five-ships"),  # ships touch: drawn by rejection
    ],
    ids=["no-touching", "corners", "five-ships"],
)
def test_a_clustered_fleet_is_legal_and_inside_one_half(rules: Ruleset) -> None:
    rng = random.Random(5)
    for _ in range(10):
        fleet = clustered_fleet(rules, rng)
        assert not fleet_problems(rules, fleet)
        assert any(not fleet.board & ~half for half in halves(rules.size))


@pytest.mark.parametrize("seed", range(12))
def test_a_recount_from_another_position_s_passes_is_a_fresh_count(seed: int) -> None:
    """Whatever rows two views share, the kept passes give the same counts as counting anew.

    The second view changes a few adjacent rows of the first in any way (a
    hit may become unknown, so the forward pass meets frontiers the kept
    backward pass never did), the way a bench's next game reuses the last
    game's passes.
    """
    rng = random.Random(seed)
    rules = Ruleset(
        size=6, fleet=(3, 2, 2, 1), touching=rng.choice([Touching.NONE, Touching.CORNERS])
    )

    def view(free: int, hits: int, rows: range) -> tuple[int, int]:
        for square in range(rows.start * 6, rows.stop * 6):
            draw = rng.random()
            free, hits = free & ~(1 << square), hits & ~(1 << square)
            if draw < 0.1:
                hits |= 1 << square
            elif draw > 0.25:
                free |= 1 << square
        return free, hits

    first = view(0, 0, range(6))
    kept = recount(Problem(rules, *first, need_of(rules)), None)
    for _ in range(4):
        top = rng.randrange(6)
        changed = view(*first, range(top, min(6, top + rng.randrange(1, 3))))
        problem = Problem(rules, *changed, need_of(rules))
        again = recount(problem, kept)
        fresh = count(problem)
        assert (again.table.fleets, again.table.counts) == (fresh.fleets, fresh.counts)
        assert recount_cost(problem, kept) <= 12
        kept = again


def test_a_game_counted_from_its_last_passes_is_counted_exactly() -> None:
    """``counted`` recounts each new position from the last one's passes, in the nearest image."""
    rules = Ruleset(size=7, fleet=(3, 2, 2, 1, 1))
    rng = random.Random(11)
    for _ in range(2):  # the second game starts from the first one's passes
        sea, defence = Sea(rules), Defence(rules, random_fleet(rules, rng))
        while sea.afloat:
            problem = problem_of(sea)
            shared, fresh = counted(problem), count(problem)
            assert (shared.fleets, shared.ship_counts()) == (fresh.fleets, fresh.ship_counts())
            volley = per_ship_strategy(sea, 1, rng)
            answer, defence = defence.answer(volley)
            sea = sea.apply(volley, answer)


def test_a_sink_is_recounted_from_the_last_passes_in_the_rows_it_marks() -> None:
    """A sunk ship stays in the fleet counted, so the ships to place do not change with it."""
    rules = Ruleset(size=7, fleet=(3, 2, 2, 1, 1))
    rng = random.Random(5)
    sea, defence = Sea(rules), Defence(rules, random_fleet(rules, rng))
    kept = recount(problem_of(sea), None)
    sinks = 0
    while sea.afloat:
        volley = per_ship_strategy(sea, 1, rng)
        answer, defence = defence.answer(volley)
        after = sea.apply(volley, answer)
        problem = problem_of(after)
        if len(after.sunk_ships) > len(sea.sunk_ships):
            sinks += 1
            assert recount_cost(problem, kept) < 2 * 7, "not counted afresh"
        kept = recount(problem, kept)
        fresh = count(problem)
        assert (kept.table.fleets, kept.table.counts) == (fresh.fleets, fresh.counts)
        sea = after
    assert sinks == len(rules.fleet)

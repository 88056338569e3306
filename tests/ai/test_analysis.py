"""Post-game analysis, and ``statki bench ai`` as the command prints it (in this process)."""

from __future__ import annotations

import json
import random

import pytest
from conftest import Cli

from statki_net.ai.analysis import FleetDifficulty, analyze, review_shots
from statki_net.ai.strategies import play
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, Ruleset, Touching

SMALL = Ruleset(size=6, fleet=(3, 2, 1), touching=Touching.NONE)


def test_density_own_shots_are_always_best() -> None:
    rng = random.Random(5)
    fleet = random_fleet(SMALL, rng)
    game = play(SMALL, fleet, "density", random.Random(1))
    review = review_shots(SMALL, game.volleys, random.Random(1))
    assert len(review.shots) == game.shots
    assert review.accuracy == pytest.approx(1.0)
    assert review.best_shots == game.shots


def test_random_shots_score_below_the_best_and_report_progress() -> None:
    fleet = random_fleet(SMALL, random.Random(2))
    game = play(SMALL, fleet, "random", random.Random(3))
    seen: list[tuple[int, int]] = []
    analysis = analyze(
        SMALL,
        game.volleys,
        fleet,
        random.Random(4),
        fleet_games=2,
        reference_fleets=4,
        progress=lambda done, total: seen.append((done, total)),
    )
    review = analysis.shots
    assert 0 < review.accuracy < 1
    assert all(0 <= s.chance <= s.best_chance + 1e-9 <= 1 + 1e-9 for s in review.shots)
    assert seen[-1][0] == seen[-1][1] == len(game.volleys) + 2 + 4
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert analysis.fleet is not None
    assert 0 <= analysis.fleet.percentile <= 100
    data = json.loads(json.dumps(analysis.to_map()))
    assert data["shots"][0]["square"][0] in "ABCDEF"


def test_salvo_shots_are_ranked_against_the_best_set() -> None:
    rules = PRESETS["salvo"]
    game = play(rules, random_fleet(rules, random.Random(1)), "hunt", random.Random(1))
    first = game.volleys[:1]
    review = review_shots(rules, first, random.Random(0), samples=200)
    assert len(review.shots) == 10
    assert len({s.best_square for s in review.shots}) == 10


def test_percentile_counts_fleets_found_sooner() -> None:
    assert FleetDifficulty(50.0, (40, 45, 50, 60)).percentile == pytest.approx(62.5)
    assert (
        "harder to find than 62% of 4 random fleets"
        in FleetDifficulty(50.0, (40, 45, 50, 60)).words()
    )


def test_each_game_against_the_fleet_is_set_against_each_random_fleet() -> None:
    """Two games of 45 and 55 shots: the first beats one random fleet of four, the second
    three; the share is their mean, not the mean game's rank."""
    difficulty = FleetDifficulty(50.0, (40, 50, 50, 60), (45, 55))
    assert difficulty.percentile == pytest.approx(50.0)


def test_the_fewer_random_fleets_the_wider_the_likely_range() -> None:
    few = FleetDifficulty(90.0, (50, 55, 60, 62, 65, 70))
    many = FleetDifficulty(90.0, (50, 55, 60, 62, 65, 70) * 5)
    assert few.percentile == many.percentile == 100
    low_few, high_few = few.likely_range
    low_many, high_many = many.likely_range
    assert high_few == pytest.approx(100) and high_many == pytest.approx(100)
    assert low_few == pytest.approx(61, abs=1) and low_many > 85
    assert "100% of 6 random fleets (likely between 61% and 100%)" in few.share_words()


def test_bench_ai_command(cli: Cli) -> None:
    result = cli(
        "bench", "ai", "--rules", "classic", "--games", "2", "--seed", "3",
        "--strategies", "random,per-ship,hunt", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert set(table) == {"random", "per-ship", "hunt"}
    for row in table.values():
        assert {"mean", "stderr", "median", "p90", "max", "misses", "ms_p50", "ms_p99"} <= set(row)
        assert 20 <= row["mean"] <= 100
    assert "vs_per-ship" in table["hunt"]
    text = cli("bench", "ai", "--games", "1", "--strategies", "per-ship,density")
    assert text.returncode == 0, text.stderr
    assert "density - per-ship:" in text.stdout
    wrong = cli("bench", "ai", "--strategies", "psychic")
    assert wrong.returncode == 2 and "unknown strategy" in wrong.stderr

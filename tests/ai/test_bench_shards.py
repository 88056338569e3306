"""``statki bench ai --shard I/N`` and ``--merge``: a run farmed out is the run itself.

The command line is run in-process (``main(argv)``): the same parser and
output as the installed command, without a fresh interpreter per call.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from statki_net.cli.main import main

PLAN = ("--rules", "classic", "--games", "5", "--seed", "4", "--strategies", "random,per-ship,hunt")

TIMINGS = {"ms_p50", "ms_p99"}
"""The only figures a merged run may differ in: taken on other runs of the clock."""


def statki(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``statki ARGV`` here: (exit code, stdout, stderr)."""
    try:
        code = main(["bench", "ai", *argv])
    except SystemExit as exit_:  # argparse refuses with exit code 2
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def without_timings(table: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    return {name: {k: v for k, v in row.items() if k not in TIMINGS} for name, row in table.items()}


def test_merged_shards_equal_the_whole_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, whole, _ = statki(capsys, *PLAN, "--json")
    assert code == 0
    shards = []
    for index in (1, 2, 3):
        code, shard, _ = statki(capsys, *PLAN, "--shard", f"{index}/3")
        assert code == 0
        data = json.loads(shard)
        assert [g["game"] for g in data["results"]["hunt"]] == list(range(index - 1, 5, 3))
        path = tmp_path / f"shard{index}.json"
        path.write_text(shard)
        shards.append(str(path))
    code, merged, _ = statki(capsys, "--merge", *reversed(shards), "--json")
    assert code == 0
    assert without_timings(json.loads(merged)) == without_timings(json.loads(whole))
    code, text, _ = statki(capsys, "--merge", *shards)
    assert code == 0
    assert text.startswith("rules classic, 5 fleets, seed 4:")
    assert "hunt - per-ship:" in text


def test_a_merge_needs_every_game_once_from_one_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    small = ("--games", "3", "--strategies", "random")
    paths = []
    for index, seed in ((1, "1"), (2, "1"), (1, "2")):
        code, shard, _ = statki(capsys, *small, "--seed", seed, "--shard", f"{index}/2")
        assert code == 0
        paths.append(tmp_path / f"{index}-{seed}.json")
        paths[-1].write_text(shard)
    first, second, other = (str(p) for p in paths)
    code, _, err = statki(capsys, "--merge", first)
    assert code == 2 and "lack 1 game(s) of random, from 1" in err
    code, _, err = statki(capsys, "--merge", first, second, first)
    assert code == 2 and "game 0 of random is in two shards" in err
    code, _, err = statki(capsys, "--merge", first, other)
    assert code == 2 and "a shard of another run" in err
    junk = tmp_path / "junk.json"
    junk.write_text('{"plan": {}}')
    code, _, err = statki(capsys, "--merge", str(junk))
    assert code == 2 and "not a shard of statki bench ai" in err


@pytest.mark.parametrize("wrong", ["0/3", "4/3", "3", "a/b"])
def test_a_shard_is_one_of_n(capsys: pytest.CaptureFixture[str], wrong: str) -> None:
    code, _, err = statki(capsys, "--games", "1", "--shard", wrong)
    assert code == 2 and "a shard is I/N" in err


def test_each_kind_of_fleet_is_played_beside_the_uniform_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan = ("--rules", "five-ships", "--games", "4", "--seed", "2", "--strategies", "random,hunt")
    fleets = ("--fleets", "uniform,hard,clustered")
    code, whole, _ = statki(capsys, *plan, *fleets, "--json")
    assert code == 0
    table = json.loads(whole)
    assert set(table) == {
        f"{name}{kind}" for name in ("random", "hunt") for kind in ("", "@hard", "@clustered")
    }
    code, uniform, _ = statki(capsys, *plan, "--json")
    assert without_timings(json.loads(uniform))["hunt"] == without_timings(table)["hunt"]
    paths = []
    for index in (1, 2):
        code, shard, _ = statki(capsys, *plan, *fleets, "--shard", f"{index}/2")
        paths.append(tmp_path / f"{index}.json")
        paths[-1].write_text(shard)
    code, text, _ = statki(capsys, "--merge", *map(str, paths))
    assert code == 0 and "hunt@clustered" in text
    assert "by the fleets played" in text
    code, _, err = statki(capsys, *plan, "--fleets", "sneaky")
    assert code == 2 and "unknown fleets 'sneaky'" in err
    code, _, err = statki(capsys, *plan, "--strategies", "exact")
    assert code == 2 and "exact counts only where ships never share a side" in err


def played(lines: list[str]) -> list[tuple[str, int, int]]:
    """A results file's games, but the timings: (strategy, game, shots)."""
    return [(g["name"], g["game"], g["shots"]) for g in map(json.loads, lines[1:])]


def test_a_run_written_game_by_game_is_continued_where_it_stopped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, whole, _ = statki(capsys, *PLAN, "--json")
    assert code == 0
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    code, _, _ = statki(capsys, *PLAN, "--shard", "1/2", "--results", str(first))
    assert code == 0
    lines = first.read_text().splitlines()
    assert len(lines) == 1 + 3 * 3, "the plan, then each of 3 games of 3 strategies"
    # Stopped after four games, the fifth cut short while being written.
    first.write_text("\n".join(lines[:5]) + "\n" + lines[5][:20])
    code, again, _ = statki(capsys, *PLAN, "--shard", "1/2", "--results", str(first))
    assert code == 0
    assert played(first.read_text().splitlines()) == played(lines), "the cut game played again"
    assert len(json.loads(again)["results"]["hunt"]) == 3
    code, _, _ = statki(capsys, *PLAN, "--shard", "2/2", "--results", str(second))
    assert code == 0
    code, merged, _ = statki(capsys, "--merge", str(first), str(second), "--json")
    assert code == 0
    assert without_timings(json.loads(merged)) == without_timings(json.loads(whole))


def test_a_run_still_going_is_merged_over_the_games_played_so_far(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    statki(capsys, *PLAN, "--shard", "1/2", "--results", str(first))
    statki(capsys, *PLAN, "--shard", "2/2", "--results", str(second))
    lines = second.read_text().splitlines()
    second.write_text("\n".join(lines[:5]) + "\n")  # game 1 whole, game 3 by one strategy
    code, _, err = statki(capsys, "--merge", str(first), str(second))
    assert code == 2 and "lack" in err
    code, text, err = statki(capsys, "--merge", str(first), str(second), "--so-far")
    assert code == 0
    assert "the first 3 of 5 games" in err
    assert text.startswith("rules classic, 3 fleets, seed 4:")
    code, three, _ = statki(capsys, *PLAN[:2], "--games", "3", *PLAN[4:], "--json")
    code, merged, _ = statki(capsys, "--merge", str(first), str(second), "--so-far", "--json")
    assert without_timings(json.loads(merged)) == without_timings(json.loads(three))


def test_results_are_continued_only_by_their_own_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "a.jsonl"
    statki(capsys, *PLAN, "--shard", "1/2", "--results", str(path))
    code, _, err = statki(capsys, *PLAN, "--shard", "2/2", "--results", str(path))
    assert code == 2 and "the results of another run or shard" in err
    code, _, err = statki(capsys, "--merge", str(path), "--results", str(path))
    assert code == 2 and "not both at once" in err
    code, _, err = statki(capsys, *PLAN, "--so-far")
    assert code == 2 and "--so-far is for --merge" in err
    code, _, err = statki(capsys, *PLAN, "--jobs", "2", "--results", str(path))
    assert code == 2 and "one by one" in err
    code, _, err = statki(capsys, *PLAN, "--results", str(tmp_path / "nowhere" / "a.jsonl"))
    assert code == 2 and "cannot be written" in err

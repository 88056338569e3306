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

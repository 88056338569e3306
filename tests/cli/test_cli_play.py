"""``statki play --plain`` end to end: a whole game fed to its line prompt.

The games run in this process; the end of input, which only a real pipe can
show, is a real subprocess.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Cli, Run

from statki_net.referee.verify import judge_log
from statki_net.store.history import History

EVERY_SQUARE = "".join(f"{column}{row}\n" for row in range(1, 11) for column in "ABCDEFGHIJ")


@pytest.mark.parametrize("rules", ["classic", "salvo"])
def test_a_whole_game_by_piping_every_square(cli: Cli, tmp_path: Path, rules: str) -> None:
    done = cli("play", "--plain", "--rules", rules, "--seed", "3", stdin="\n" + EVERY_SQUARE)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Your fleet" in out and "The rules" in out, "the set-up screen"
    assert "Opponent's sea" in out and "YOUR TURN" in out, "the battle screen"
    verdict = re.search(
        r"^ (You won: you sank the whole fleet|You lost: your fleet is sunk)", out, re.M
    )
    assert verdict, out[-2000:]
    assert "Their fleet" in out
    if rules == "classic":
        assert "known to be empty" in out, "squares beside a sunk ship are refused"
    # The whole path, broken after a folder when it is longer than the line.
    assert re.search(r"^Log: \S+(\n {5}\S+)*\.statki$", out, re.M)
    log = Path(done.stderr.removeprefix("statki: log saved at ").strip())
    assert judge_log(log.read_bytes()).valid
    (row,) = History.in_home(tmp_path / "home").games()
    assert row.result in ("won", "lost") and row.log_path == str(log)
    assert "Traceback" not in done.stderr


def test_the_end_of_input_resigns_and_exits(statki: Run, tmp_path: Path) -> None:
    done = statki("play", "--plain", "--seed", "4", stdin="\nA1\nzz\n")
    assert done.returncode == 0, done.stderr
    assert "is not" in done.stdout or "off the board" in done.stdout, "zz is refused"
    assert "You resigned" in done.stdout
    (row,) = History.in_home(tmp_path / "home").games()
    assert row.end_reason == "resigned" and row.result == "lost"


def test_an_unknown_strategy_is_one_line(cli: Cli) -> None:
    done = cli("play", "--plain", "--bot", "nonsense")
    assert done.returncode == 2
    assert done.stderr.startswith("statki: unknown strategy") and done.stderr.count("\n") == 1


def test_a_hard_placement_for_the_computer_is_legal(cli: Cli, tmp_path: Path) -> None:
    """--placement hard: the computer's fleet, revealed at the end, passes the referee."""
    done = cli("play", "--plain", "--placement", "hard", "--seed", "5", stdin="\n" + EVERY_SQUARE)
    assert done.returncode == 0, done.stderr
    log = Path(done.stderr.removeprefix("statki: log saved at ").strip())
    judgement = judge_log(log.read_bytes())
    assert judgement.valid, judgement.headline()
    refused = cli("play", "--plain", "--placement", "sneaky")
    assert refused.returncode == 2 and "invalid choice" in refused.stderr

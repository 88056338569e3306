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
    log = Path(done.stderr.split("statki: log saved at")[-1].strip())
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
    log = Path(done.stderr.split("statki: log saved at")[-1].strip())
    judgement = judge_log(log.read_bytes())
    assert judgement.valid, judgement.headline()
    refused = cli("play", "--plain", "--placement", "sneaky")
    assert refused.returncode == 2 and "invalid choice" in refused.stderr


FLEET = "B2-E2 G2-G4 A5-A7 C5-D5 F6-F7 H9-I9 J1 J4 D9 A10"


def _revealed_host_fleet(home: Path) -> tuple[tuple[int, ...], ...]:
    from statki_net.protocol.logformat import read_log
    from statki_net.protocol.wire import Role
    from statki_net.referee.verify import replay_log

    (row,) = History.in_home(home).games()
    transcript, _ = replay_log(read_log(Path(row.log_path).read_bytes()))
    fleet = transcript.sides[Role.HOST].fleet
    assert fleet is not None
    return fleet.ships


def _ships(text: str) -> tuple[tuple[int, ...], ...]:
    from statki_net.game.fleet import read_fleet_text
    from statki_net.game.rules import PRESETS

    fleet, problems = read_fleet_text(PRESETS["classic"], "\n".join(text.split()))
    assert not problems
    return fleet.ships


def test_the_line_prompt_tells_only_what_applies_and_takes_a_typed_fleet(
    cli: Cli, tmp_path: Path
) -> None:
    done = cli("play", "--plain", "--seed", "3", stdin=f"{FLEET}\n\n{EVERY_SQUARE}")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Your fleet is placed as typed" in out
    for full_screen_only in ("Tab picks", "Enter fires", "[ ] cursor", "picked ship", "[."):
        assert full_screen_only not in out, full_screen_only
    assert "YOUR TURN: type a square, like B4" in out
    assert _revealed_host_fleet(tmp_path / "home") == _ships(FLEET)


def test_play_takes_a_fleet_file(cli: Cli, tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.txt"
    fleet.write_text("\n".join(FLEET.split()) + "\n")
    done = cli("play", "--plain", "--seed", "3", "--fleet", str(fleet), stdin=f"\n{EVERY_SQUARE}")
    assert done.returncode == 0, done.stderr
    assert _revealed_host_fleet(tmp_path / "home") == _ships(FLEET)


def test_plays_help_names_the_strategies_bot_takes(cli: Cli) -> None:
    """``play --help`` said "--bot STRATEGY  the computer's strategy" and named none, nor
    its default."""
    from statki_net.ai.computer import STRATEGIES

    shown = " ".join(cli("play", "--help").stdout.split())
    assert f"({', '.join(STRATEGIES)}; default: none, the computer of --strength plays)" in shown


def test_a_rematch_at_the_line_prompt_is_placed_as_at_the_prompt(cli: Cli) -> None:
    """The rematch's placement tells what applies at a prompt, as the first game's does."""
    done = cli("play", "--plain", "--seed", "3", stdin="\n" + EVERY_SQUARE + "r\n")
    assert done.returncode == 0, done.stderr
    rematch = done.stdout.split("Rematch:", 1)[1]
    assert "Place your fleet" in rematch
    for full_screen_only in ("Tab picks", "picked ship", "[ ] cursor"):
        assert full_screen_only not in rematch, full_screen_only

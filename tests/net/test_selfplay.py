"""``statki selfplay``: two computer players over real loopback TCP, one process."""

from pathlib import Path

from conftest import Cli, Run

from statki_net.protocol.logformat import frames_of, read_log
from statki_net.referee.verify import judge_log


def test_selfplay_plays_whole_signed_games_and_logs_them(statki: Run, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    done = statki(
        "selfplay", "--rules", "five-ships", "--games", "2", "--seed", "4", "--log-dir", str(logs)
    )
    assert done.returncode == 0, done.stderr
    assert "games: 2" in done.stdout
    wins = next(line for line in done.stdout.splitlines() if line.startswith("wins:"))
    numbers = [int(word.strip(",")) for word in wins.split() if word.strip(",").isdigit()]
    assert sum(numbers) == 2
    files = sorted(logs.iterdir())
    assert len(files) == 4  # each side of each game keeps its own log
    for path in files:
        judgement = judge_log(path.read_bytes())
        assert judgement.valid, judgement.headline()
        assert judgement.rules == "five-ships"


def test_selfplay_refuses_nonsense(cli: Cli) -> None:
    """What the command says and returns (in this process: its start-up is tested in
    tests/cli/test_odd_inputs.py)."""
    done = cli("selfplay", "--games", "0")
    assert done.returncode == 2
    assert done.stderr.startswith("statki: ") and done.stderr[-1] == "\n"
    done = cli("selfplay", "--bot", "clairvoyant", "--games", "1")
    assert done.returncode == 2 and "unknown strategy" in done.stderr


def test_the_same_seed_plays_the_same_games(cli: Cli, tmp_path: Path) -> None:
    """``--seed`` repeats the games: the same messages and every shot at the same squares
    (the first shooter agreed from the seed: a toss hashes the hellos' times).  The
    clock's times differ, so the signed bytes do; the games do not.  Another seed plays
    other games."""

    def games(seed: str, where: str, many: int = 2) -> list[list[tuple[str, object]]]:
        logs = tmp_path / where
        done = cli(
            "selfplay",
            "--games",
            str(many),
            "--seed",
            seed,
            "--bot",
            "hunt",
            "--log-dir",
            str(logs),
        )
        assert done.returncode == 0, done.stderr
        return [
            [
                (f.message.TYPE, getattr(f.message, "squares", None))
                for f in frames_of(read_log(p.read_bytes()))
            ]
            for p in sorted(logs.glob("*-host-*.statki"), key=lambda p: p.stat().st_mtime_ns)
        ]

    first = games("5", "first")
    assert len(first) == 2 and all(len(game) > 20 for game in first)
    assert games("5", "again") == first
    assert games("6", "other", 1) != first[:1]

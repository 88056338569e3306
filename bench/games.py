"""Whole signed games per second between two peers over loopback, beside their floor.

    /tmp/venv/bin/python bench/games.py [--games N] [--rules NAME]

Plays N games with ``statki_net.net.selfplay`` (two sessions, real loopback TCP,
logs written and judged), then, in the same run, times the floor: for every
frame of those games, the same cryptography the run did: one Ed25519
signature, three signature checks (the receiver's, and each side's referee
check of its finished log), the SHA-256 message hashes, and each side's
Merkle fleet commitment.  The ratio
floor/actual is the share of the time spent on cryptography; the rest is the
protocol, the rules, the computer players' choices, asyncio and the files.

The computer players here fire at the first unknown square, so the figure is
the cost of the game machinery, not of a strategy's thinking.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.battle import Cell, Sea
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net.selfplay import selfplay
from statki_net.protocol.commitment import FleetCommitment
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.wire import SIGN_LABEL, message_hash, signature_valid


class FirstUnknown(ComputerPlayer):
    """Fires at the lowest unknown square: no thinking to speak of."""

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        area = view.rules.size**2
        unknown = [s for s in range(area) if view.cell(s) is Cell.UNKNOWN]
        return tuple((unknown + list(range(area)))[:count])


def floor_seconds(logs: list[Path], rules_name: str) -> float:
    """The same signatures, checks and hashes as the games, computed alone."""
    rules = ruleset_named(rules_name)
    frame_lists = [frames_of(read_log(path.read_bytes())) for path in logs]
    key = Ed25519PrivateKey.generate()
    rng = random.Random(0)
    fleets = [random_fleet(rules, rng) for _ in range(2)]
    started = time.perf_counter()
    for frames in frame_lists:
        public = {f.header.sender: f.message.key for f in frames[:2]}  # type: ignore[union-attr]
        for frame in frames:
            key.sign(SIGN_LABEL + frame.body)
            for _ in range(3):
                signature_valid(public[frame.header.sender], frame)
                message_hash(frame.body)
        for fleet in fleets:
            FleetCommitment(b"g" * 32, b"s" * 32, fleet.board, rules.size**2)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log_dir = Path(tmp)
        report = asyncio.run(
            selfplay(
                ruleset_named(args.rules), args.games, 1, log_dir=log_dir, make_player=FirstUnknown
            )
        )
        # Each game wrote two logs; the floor needs each game's frames once.
        logs = sorted(p for p in log_dir.iterdir() if "-host-" in p.name)
        floor = floor_seconds(logs, args.rules)
    games = report.games
    actual = report.seconds
    machine = f"{platform.machine()} {platform.system()}, Python {platform.python_version()}"
    print(f"machine: {machine}")
    print(f"rules: {args.rules}, games: {games}")
    print(f"whole signed games over loopback: {games / actual:8.1f} games/s ({actual:.2f} s)")
    print(f"floor (crypto alone):             {games / floor:8.1f} games/s ({floor:.2f} s)")
    print(f"ratio actual/floor: {floor / actual:.2f}")


if __name__ == "__main__":
    main()

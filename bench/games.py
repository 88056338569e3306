"""Whole signed games per second between two peers over loopback, beside their floor.

    python bench/games.py [--games N] [--rules NAME] [--profile]

Plays N games with ``statki_net.net.selfplay`` (two sessions, real loopback TCP,
logs written and judged), then, in the same run, times the floor: the
cryptography two peers cannot do without, for every frame of those games.
Each side signs what it sends (one Ed25519 signature a frame) and verifies
what it receives (one verification a frame); each side hashes every frame
into its chain (two SHA-256 message hashes a frame); each side builds its
fleet's Merkle tree, and checks the other's at the reveal (four trees a
game); every opening an answer carries is checked against its commitment,
and the coin commitments are made and opened.  All are CPU time
(``time.process_time``): the machine may be shared.  The games are played
twice: with each log synced before its side's words leave, as statki does,
and with the syncs left to the kernel (what they cost is
bench/durability.py's), so that the second shows the game machinery's own
cost.  Each is printed as a multiple of the floor: 1.0x would mean the game
costs nothing beyond its cryptography; the rest is the protocol, the rules,
the computer players' choices, asyncio and the files.  ``--profile`` prints where the games' time
goes (cProfile, the top functions by their own time).

The computer players here fire at the first unknown square, so the figure is
the cost of the game machinery, not of a strategy's thinking.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import platform
import pstats
import random
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.battle import Sea
from statki_net.game.board import bit
from statki_net.game.fleet import Fleet, random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.net.selfplay import selfplay
from statki_net.protocol.commitment import coin_commitment, commitment_root, salt
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.wire import (
    SIGN_LABEL,
    Coin,
    Commit,
    Reply,
    Reveal,
    game_id,
    message_hash,
    signature_valid,
)
from statki_net.store import logwriter

FLEETS: dict[Ruleset, tuple[Fleet, ...]] = {}
"""Fleets drawn before the clock starts (``draw_fleets``), for ``FirstUnknown`` to place."""


def draw_fleets(rules: Ruleset, count: int = 64) -> None:
    """Draw ``count`` random fleets for these rules now, off the clock: a random fleet is
    thousands of rejected draws (2-3 ms), and the machinery-only players' choices should
    cost nothing."""
    rng = random.Random(0)
    FLEETS[rules] = tuple(random_fleet(rules, rng) for _ in range(count))


class FirstUnknown(ComputerPlayer):
    """Fires at the lowest unknown square, and places one of the fleets drawn beforehand
    (``draw_fleets``): no thinking to speak of."""

    def fleet(self, rules: Ruleset) -> Fleet:
        drawn = FLEETS.get(rules)
        return super().fleet(rules) if drawn is None else self.rng.choice(drawn)

    def volley(self, view: Sea, count: int) -> tuple[int, ...]:
        area = view.rules.size**2
        # The squares whose cell is unknown, read from the bitboards at once (not cell by cell).
        known = view.shot | view.hit | view.sunk | view.marked
        unknown = [s for s in range(area) if not known >> s & 1]
        return tuple((unknown + list(range(area)))[:count])


def floor_seconds(logs: list[Path]) -> float:
    """The cryptography of these games (see the module docstring), computed alone."""
    games = [frames_of(read_log(path.read_bytes())) for path in logs]
    key = Ed25519PrivateKey.generate()  # signing costs the same with any key
    started = time.process_time()
    for frames in games:
        hellos = [frame.message for frame in frames[:2]]
        public = {f.header.sender: f.message.key for f in frames[:2]}  # type: ignore[union-attr]
        game = game_id(frames[0].body, frames[1].body)
        rules = Ruleset.from_map(hellos[0].rules)  # type: ignore[union-attr,arg-type]
        area = rules.size**2
        for frame in frames:
            key.sign(SIGN_LABEL + frame.body)
            signature_valid(public[frame.header.sender], frame)
            message_hash(frame.body)
            message_hash(frame.body)
            message = frame.message
            if isinstance(message, Commit | Coin):
                coin_commitment(game, frame.header.sender.value, b"c" * 32)
            if isinstance(message, Reply):
                for opening in message.proofs:
                    salt(b"s" * 32, game, opening.square)  # the defender's, to open it
                    opening.root(game)  # the shooter's check
            if isinstance(message, Reveal):
                board = 0
                for ship in message.fleet:
                    for square in ship:
                        board |= bit(square)
                # The revealer built this tree to commit; the other side builds it again.
                for _ in range(2):
                    commitment_root(game, message.secret, board, area)
    return time.process_time() - started


def profile(rules: str, games: int) -> None:
    """Where the time of a few games goes: the top functions by their own time."""
    profiler = cProfile.Profile(time.process_time)  # CPU: waiting on sockets is no cost
    draw_fleets(ruleset_named(rules))
    with tempfile.TemporaryDirectory() as tmp:
        profiler.enable()
        asyncio.run(
            selfplay(ruleset_named(rules), games, 1, log_dir=Path(tmp), make_player=FirstUnknown)
        )
        profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--profile", action="store_true", help="print where the time goes")
    args = parser.parse_args()
    if args.profile:
        profile(args.rules, args.games)
        return
    with tempfile.TemporaryDirectory() as tmp:
        synced = play_games(args.rules, args.games, Path(tmp, "synced"), durable=True)
        flushed = play_games(args.rules, args.games, Path(tmp, "flushed"), durable=False)
        # Each game wrote two logs; the floor needs each game's frames once.
        logs = sorted(p for p in Path(tmp, "synced").iterdir() if "-host-" in p.name)
        floor = floor_seconds(logs)
    games = args.games
    machine = f"{platform.machine()} {platform.system()}, Python {platform.python_version()}"
    print(f"machine: {machine}, {os.cpu_count()} cores")
    print(f"rules: {args.rules}, games: {games}, CPU time")
    for name, seconds in (
        ("whole games, logs synced as statki does", synced),
        ("whole games, logs flushed, not synced  ", flushed),
        ("floor (their cryptography alone)       ", floor),
    ):
        print(
            f"{name}: {games / seconds:6.1f} games/s, {seconds / games * 1000:6.1f} ms a game,"
            f" {seconds / floor:5.2f}x the floor"
        )


def play_games(rules: str, games: int, log_dir: Path, *, durable: bool) -> float:
    """CPU seconds of ``games`` games writing their logs to ``log_dir``; without
    ``durable`` the syncs are no-ops (what they cost is bench/durability.py's)."""
    log_dir.mkdir()
    draw_fleets(ruleset_named(rules))
    real = logwriter._datasync, os.fsync
    if not durable:
        logwriter._datasync = os.fsync = _no_sync
    try:
        started = time.process_time()
        asyncio.run(
            selfplay(ruleset_named(rules), games, 1, log_dir=log_dir, make_player=FirstUnknown)
        )
        return time.process_time() - started
    finally:
        logwriter._datasync, os.fsync = real


def _no_sync(fd: int) -> None:
    """A sync that leaves the data to the kernel."""


if __name__ == "__main__":
    main()

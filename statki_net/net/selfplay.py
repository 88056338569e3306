"""Two computer players in one process, over real loopback TCP.

Used by ``statki selfplay`` and the games benchmark: each game is a fresh
TCP connection to a listener on 127.0.0.1, a host session on the accepted
side and a guest session on the connecting side, each with a computer player
and (optionally) its own log.  Everything random is drawn from one seeded
generator, so a seed replays the same games.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import Ruleset
from statki_net.game.words import decimal
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.thinking import Thinking
from statki_net.protocol.bounds import MIN_MOVE_MS, MIN_REVEAL_MS
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Limits, Role
from statki_net.store.language import _, words

MOVE_LIMIT = Limits(move_ms=MIN_MOVE_MS, reveal_ms=MIN_REVEAL_MS)
"""The shortest limits SPEC allows: a game two bots stall in ends soonest."""


@dataclass
class SelfplayReport:
    games: int = 0
    wins: Counter[Role | None] = field(default_factory=Counter)
    """Games won by the host, by the guest, and ended with no winner (None)."""
    shots: Counter[str] = field(default_factory=Counter)
    """Shots fired in all games by each side."""
    seconds: float = 0.0
    outcomes: list[tuple[Outcome, Outcome]] = field(default_factory=list)
    """(host's, guest's) outcome of each game."""

    def summary(self) -> str:
        per_game = max(self.games, 1)
        rate = self.games / self.seconds if self.seconds > 0 else 0.0
        return "\n".join(
            [
                _("games: {n}").format(n=self.games),
                _("wins: host {host}, guest {guest}, no winner {none}").format(
                    host=self.wins[Role.HOST], guest=self.wins[Role.GUEST], none=self.wins[None]
                ),
                _("mean shots per game: host {host}, guest {guest}").format(
                    host=decimal(self.shots["host"] / per_game, 1, words()),
                    guest=decimal(self.shots["guest"] / per_game, 1, words()),
                ),
                _("games per second: {rate} ({seconds} s in all)").format(
                    rate=decimal(rate, 2, words()), seconds=decimal(self.seconds, 2, words())
                ),
            ]
        )


def seeded_entropy(rng: random.Random) -> Callable[[int], bytes]:
    """Secrets drawn from ``rng``: for repeatable self-play only, never against a person."""
    return rng.randbytes


def _key(rng: random.Random) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(rng.randbytes(32))


async def play_one(
    rules: Ruleset,
    rng: random.Random,
    port: int,
    accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    *,
    strategy: str = "random",
    log_dir: Path | None = None,
    limits: Limits = MOVE_LIMIT,
    make_player: Callable[[str, random.Random], ComputerPlayer] = ComputerPlayer,
    thinking: Thinking | None = None,
    first: Role | None = None,
) -> tuple[Outcome, Outcome]:
    """One game between two computer players over a fresh loopback connection.

    They think where ``thinking`` says (default: a thread, so that other games on
    the loop go on meanwhile).  ``first``: the first shooter, agreed in the host's
    hello; None: the coin is tossed.
    """
    host_player = make_player(strategy, random.Random(rng.getrandbits(64)))
    guest_player = make_player(strategy, random.Random(rng.getrandbits(64)))
    host = Session(
        Role.HOST,
        _key(rng),
        name="host",
        entropy=seeded_entropy(random.Random(rng.getrandbits(64))),
        rules=rules,
        limits=limits,
        fleet=host_player.fleet(rules),
        first=first,
    )
    guest = Session(
        Role.GUEST,
        _key(rng),
        name="guest",
        entropy=seeded_entropy(random.Random(rng.getrandbits(64))),
        limits=limits,
    )
    guest_reader, guest_writer = await asyncio.open_connection("127.0.0.1", port)
    host_reader, host_writer = await accepted.get()
    host_conn = GameConnection(host, host_reader, host_writer, log_dir=log_dir)
    guest_conn = GameConnection(
        guest, guest_reader, guest_writer, log_dir=log_dir, expect_key=public_key_bytes(host.key)
    )
    attach_computer(host_conn, host_player, thinking=thinking)
    # One owner chose the rules for both sides: the guest takes whatever they are.
    attach_computer(guest_conn, guest_player, custom_rules=True, thinking=thinking)
    host_outcome, guest_outcome = await asyncio.gather(host_conn.run(), guest_conn.run())
    return host_outcome, guest_outcome


async def selfplay(
    rules: Ruleset,
    games: int,
    seed: int,
    *,
    strategy: str = "random",
    log_dir: Path | None = None,
    make_player: Callable[[str, random.Random], ComputerPlayer] = ComputerPlayer,
) -> SelfplayReport:
    """Play ``games`` games one after another; see the module docstring."""
    rng = random.Random(seed)
    accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put((reader, writer))

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    report = SelfplayReport()
    started = time.perf_counter()
    try:
        for _ in range(games):
            # Agreed from the seed, not tossed: the toss hashes the game id, which hashes
            # the hellos and their times, so it would change from run to run and the same
            # seed would not play the same games.
            first = (Role.HOST, Role.GUEST)[rng.getrandbits(1)]
            host_outcome, guest_outcome = await play_one(
                rules,
                rng,
                port,
                accepted,
                strategy=strategy,
                log_dir=log_dir,
                make_player=make_player,
                # Both players are this process's, one game at a time: while one
                # thinks the other waits for its move, so they think on the loop,
                # without a thread's hand-over.
                thinking=Thinking.on_the_loop(),
                first=first,
            )
            report.games += 1
            report.outcomes.append((host_outcome, guest_outcome))
            report.wins[host_outcome.ending.winner] += 1
            report.shots["host"] += host_outcome.my_shots
            report.shots["guest"] += guest_outcome.my_shots
    finally:
        report.seconds = time.perf_counter() - started
        server.close()
        await server.wait_closed()
    return report

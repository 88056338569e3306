"""Tournaments played for testing the referee's desk: players, games, and their logs.

Each ``Entrant`` is a player with a key of its own (a home, as far as a log
can tell); ``play_game`` plays one game between two of them through real
sessions back to back (``peers``), with random-shooting bots on fixed seeds,
and can make it end by forfeit, cheat or a lost connection (a dispute);
``write_logs`` writes both sides' logs as a peer does.  Used by
tests/referee/test_tournament_*.py and bench/tournament.py.
"""

from __future__ import annotations

import datetime
import enum
import random
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import LiesAboutFirstHit, finish, log_of, play, seeded_entropy

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, Ruleset
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.errors import Code
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.report import fingerprint

DAY = datetime.datetime(2026, 11, 20, 9, 0, tzinfo=datetime.UTC)
"""When the test tournament begins."""
START_MS = round(DAY.timestamp() * 1000)
GAP_MS = 15 * 60 * 1000
"""Between the starts of two games of the tournament."""


@dataclass(frozen=True)
class Entrant:
    name: str
    key: Ed25519PrivateKey

    @property
    def fingerprint(self) -> str:
        return fingerprint(public_key_bytes(self.key))


def entrants(names: list[str], seed: int = 500) -> list[Entrant]:
    """Players with keys of their own, made from ``seed`` (the same every run)."""
    return [
        Entrant(name, Ed25519PrivateKey.from_private_bytes(random.Random(seed + n).randbytes(32)))
        for n, name in enumerate(names)
    ]


class Twist(enum.Enum):
    """How a game departs from one played to its end."""

    NONE = "none"
    FORFEIT = "forfeit"
    """The host quits after a few volleys: the guest wins by forfeit."""
    CHEAT = "cheat"
    """The guest says miss for the first hit it takes: the host wins, the guest cheated."""
    DISPUTE = "dispute"
    """The connection drops mid-battle; each side finishes alone and claims on time."""


def play_game(
    host: Entrant,
    guest: Entrant,
    seed: int,
    *,
    start: int,
    rules: Ruleset = PRESETS["classic"],
    limits: Limits | None = None,
    twist: Twist = Twist.NONE,
    aimed: float = 0.0,
) -> BackToBack:
    """One game between ``host`` and ``guest``, begun at ``start`` (ms), played out
    (``aimed``: the share of volleys fired at the opponent's ships, ``peers.play``)."""
    rng = random.Random(seed)
    cheat: Behaviour | None = LiesAboutFirstHit() if twist is Twist.CHEAT else None
    host_session = Session(
        Role.HOST,
        host.key,
        name=host.name,
        entropy=seeded_entropy(seed * 3),
        rules=rules,
        limits=limits,
        fleet=random_fleet(rules, rng),
    )
    guest_session = Session(
        Role.GUEST,
        guest.key,
        name=guest.name,
        entropy=seeded_entropy(seed * 3 + 1),
        behaviour=cheat,
    )
    pair = BackToBack(host_session, guest_session, now=start)
    if twist is Twist.FORFEIT or twist is Twist.DISPUTE:
        play(pair, seed=seed + 1, stop_after=6, aimed=aimed)
        if twist is Twist.FORFEIT:
            pair.record(Role.HOST, pair.host.abort(Code.CLOSED, "the player quit", pair.now))
            pair.pump()
        else:
            for side in (pair.host, pair.guest):
                pair.record(side.role, side.connection_lost(pair.now))
            finish(pair, random.Random(seed + 2))
    else:
        play(pair, seed=seed + 1, aimed=aimed)
    return pair


def winner(pair: BackToBack) -> Role | None:
    return pair.host.transcript.winner


def write_logs(pair: BackToBack, folder: Path, stem: str) -> tuple[Path, Path]:
    """Both sides' logs of the game, as ``stem``-host.statki and ``stem``-guest.statki."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for role in Role:
        path = folder / f"{stem}-{role}.statki"
        path.write_bytes(log_of(pair.events[role], role))
        paths.append(path)
    return paths[0], paths[1]

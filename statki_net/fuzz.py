"""The fuzzing harness: mutated real frames, fed to sessions in memory and to a live daemon.

    python -m statki_net.fuzz [--seed N] [--frames N] [--seconds S] [--live N]

In memory, honest games are played between two sessions back to back
(``BackToBack``'s way, one delivery at a time); before a delivery, the game
is copied and the copy is fed a mutation of the bytes instead: bits flipped,
bytes cut, inserted or repeated, frames swapped, or a field of the message
changed and the frame signed again with its sender's key (so the mutation
passes the signature and reaches the rules).  The copy then plays on until
quiet.  A *crash* is any exception out of a session: a session answers
whatever a peer sends with events, never by raising.

Live, a ``Daemon`` (``--bot random``) listens on loopback and ``--live N``
guests connect, play honestly for a few messages, then send a mutation;
a crash is an exception the event loop saw, a game the daemon contained
after an exception, or a game that ended with an internal error.  At the end
one honest guest must still play a whole game through it.

The part in memory stops after ``--frames`` mutations or ``--seconds``,
whichever comes first; then ``--live`` guests go to the daemon.  It prints
the frames tried (both parts) and the crashes, each with the seeds that
reproduce it, and exits 1 if there was any.  Everything is drawn from
``--seed``.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.battle import Cell
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.net.daemon import Daemon
from statki_net.net.selfplay import MOVE_LIMIT
from statki_net.protocol.errors import Code
from statki_net.protocol.events import RulesProposed
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import SIGN_LABEL, FrameReader, Role

EXIT_OK, EXIT_CRASHED = 0, 1
SETTLE_DELIVERIES = 40
"""Deliveries a mutated copy plays on for, at most, after the mutation."""
LIVE_READ_SECONDS = 0.2
"""How long a live guest listens for the daemon's answer to its mutation."""
LIVE_AT_ONCE = 8
"""Live guests connected at the same time: the daemon plays their games at once."""


@dataclass
class Tally:
    """Frames tried, and each crash with what reproduces it."""

    frames: int = 0
    crashes: list[str] = field(default_factory=list)

    def crash(self, where: str, error: BaseException | str) -> None:
        if isinstance(error, BaseException):
            last = traceback.extract_tb(error.__traceback__)[-1:]
            at = f" at {last[0].filename}:{last[0].lineno}" if last else ""
            error = f"{type(error).__name__}: {error}{at}"
        self.crashes.append(f"{where}: {error}")


# ---------------------------------------------------------------- mutations


def mutate(data: bytes, rng: random.Random, keys: dict[str, Ed25519PrivateKey]) -> bytes:
    """One mutation of ``data`` (one or more frames as sent), by a kind drawn from ``rng``."""
    kind = rng.choice(MUTATIONS)
    return kind(data, rng, keys) or _flip(data, rng, keys)


def _flip(data: bytes, rng: random.Random, _: dict[str, Ed25519PrivateKey]) -> bytes:
    out = bytearray(data)
    for _flips in range(rng.choice((1, 1, 2, 8))):
        position = rng.randrange(len(out))
        out[position] ^= 1 << rng.randrange(8)
    return bytes(out)


def _cut(data: bytes, rng: random.Random, _: dict[str, Ed25519PrivateKey]) -> bytes:
    start = rng.randrange(len(data))
    return data[:start] + data[start + rng.randint(1, 16) :]


def _insert(data: bytes, rng: random.Random, _: dict[str, Ed25519PrivateKey]) -> bytes:
    position = rng.randrange(len(data) + 1)
    if rng.random() < 0.5:
        extra = rng.randbytes(rng.randint(1, 32))
    else:
        start = rng.randrange(len(data))
        extra = data[start : start + rng.randint(1, 64)]
    return data[:position] + extra + data[position:]


def _unpacked(data: bytes) -> list[Any]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    try:
        return list(unpacker)
    except Exception:
        return []


def _repeat_or_swap(data: bytes, rng: random.Random, _: dict[str, Ed25519PrivateKey]) -> bytes:
    frames = [msgpack.packb(f, use_bin_type=True) for f in _unpacked(data)]
    if not frames:
        return b""
    if len(frames) > 1 and rng.random() < 0.5:
        i, j = rng.sample(range(len(frames)), 2)
        frames[i], frames[j] = frames[j], frames[i]
    else:
        i = rng.randrange(len(frames))
        frames.insert(i, frames[i])
    return b"".join(frames)


def _resigned_field(data: bytes, rng: random.Random, keys: dict[str, Ed25519PrivateKey]) -> bytes:
    """A field of one frame's message changed, the frame signed again by its sender."""
    frames = _unpacked(data)
    if not frames:
        return b""
    i = rng.randrange(len(frames))
    envelope = frames[i]
    if not (isinstance(envelope, list) and len(envelope) == 2 and isinstance(envelope[0], bytes)):
        return b""
    try:
        body = msgpack.unpackb(envelope[0], raw=False, strict_map_key=False)
    except Exception:
        return b""
    if not isinstance(body, dict) or not body:
        return b""
    name = rng.choice(sorted(body, key=str))
    body[name] = _odd_value(body[name], rng)
    if rng.random() < 0.1:
        body[rng.choice(("extra", "type", "seq", "game"))] = _odd_value(None, rng)
    new_body = msgpack.packb(body, use_bin_type=True)
    key = keys.get(str(body.get("from")))
    signature = key.sign(SIGN_LABEL + new_body) if key else envelope[1]
    frames[i] = [new_body, signature]
    return b"".join(msgpack.packb(f, use_bin_type=True) for f in frames)


def _odd_value(value: Any, rng: random.Random) -> Any:
    """A value of the same kind gone wrong, or of another kind."""
    choices: list[Callable[[], Any]] = [
        lambda: None,
        lambda: -1,
        lambda: 2**63 - 1,
        lambda: rng.randint(-5, 200),
        lambda: "",
        lambda: "x" * rng.choice((1, 300, 5000)),
        lambda: rng.randbytes(rng.choice((0, 31, 32, 33))),
        lambda: [],
        lambda: {},
        lambda: True,
        lambda: 1.5,
    ]
    if isinstance(value, bool):
        choices.append(lambda: not value)
    elif isinstance(value, int):
        choices += [lambda: value + 1, lambda: value - 1, lambda: -value]
    elif isinstance(value, bytes) and value:
        choices.append(lambda: _flip(value, rng, {}))
    elif isinstance(value, list):
        choices += [lambda: value + value[:1], lambda: value[1:], lambda: list(reversed(value))]
        if value:
            choices.append(lambda: [_odd_value(value[0], rng), *value[1:]])
    elif isinstance(value, dict) and value:
        choices.append(
            lambda: {**value, rng.choice(list(value)): _odd_value(None, rng)},
        )
    return rng.choice(choices)()


MUTATIONS = (_flip, _cut, _insert, _repeat_or_swap, _resigned_field, _resigned_field)


# ---------------------------------------------------------------- honest games, step by step


def new_pair(rules_name: str, rng: random.Random) -> tuple[Session, Session]:
    rules = ruleset_named(rules_name)
    host = Session(
        Role.HOST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="host",
        entropy=random.Random(rng.getrandbits(64)).randbytes,
        rules=rules,
        fleet=random_fleet(rules, rng),
    )
    guest = Session(
        Role.GUEST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="guest",
        entropy=random.Random(rng.getrandbits(64)).randbytes,
        host_key=public_key_bytes(host.key),
    )
    return host, guest


def act(session: Session, events: list[Any], rng: random.Random, now: int) -> None:
    """What an honest player does after ``events``: accept the rules, fire when it is due."""
    if any(isinstance(e, RulesProposed) for e in events) and session.rules is not None:
        session.accept(random_fleet(session.rules, rng), now)
    if session.my_turn:
        view = session.view
        assert view is not None
        area = view.rules.size**2
        unknown = [s for s in range(area) if view.cell(s) is Cell.UNKNOWN]
        due = session.shots_due
        shots = rng.sample(unknown, min(due, len(unknown)))
        shots += rng.sample(range(area), due - len(shots))
        session.shoot(tuple(shots), now)


@dataclass
class Game:
    """Two sessions back to back and the time, stepped one delivery at a time."""

    host: Session
    guest: Session
    now: int = 1_000_000

    def sessions(self) -> tuple[Session, Session]:
        return self.host, self.guest

    def other(self, session: Session) -> Session:
        return self.guest if session is self.host else self.host

    def pending(self) -> Iterator[tuple[Session, bytes]]:
        """Each (sender, bytes) about to be delivered, until both sides fall quiet."""
        while True:
            moved = False
            for sender in self.sessions():
                data = sender.data_to_send()
                if data:
                    moved = True
                    yield sender, data
            if not moved:
                return

    def deliver(self, sender: Session, data: bytes, rng: random.Random) -> None:
        receiver = self.other(sender)
        self.now += 1
        events = receiver.receive_data(data, self.now)
        if receiver.connected:
            act(receiver, events, rng, self.now)

    def settle(self, rng: random.Random, deliveries: int = SETTLE_DELIVERIES) -> None:
        for n, (sender, data) in enumerate(self.pending()):
            if n >= deliveries:
                return
            self.deliver(sender, data, rng)

    def snapshot(self) -> Game:
        """A copy to mutate; the frames and volleys are frozen, so the copy shares them."""
        frozen: dict[int, object] = {}
        for session in self.sessions():
            # The frame reader wraps a C unpacker that cannot be copied; between two whole
            # deliveries it holds nothing, so the copy gets a new one.
            frozen[id(session._reader)] = FrameReader()
            frozen.update(session.transcript.shared_parts())
        return copy.deepcopy(self, frozen)


def fuzz_in_memory(tally: Tally, rng: random.Random, stop: Callable[[], bool]) -> None:
    """Honest games one after another; before each delivery, a mutated copy (or a few)."""
    game_number = 0
    while not stop():
        game_number += 1
        rules_name = rng.choice(list(PRESETS))
        seed = rng.getrandbits(32)
        game_rng = random.Random(seed)
        game = Game(*new_pair(rules_name, game_rng))
        keys = {s.role.value: s.key for s in game.sessions()}
        game.host.start(game.now)
        delivery = 0
        while not stop():
            step = next(game.pending(), None)
            if step is None:
                break
            sender, data = step
            delivery += 1
            trial_seed = rng.getrandbits(32)
            trial_rng = random.Random(trial_seed)
            copy_of = game.snapshot()
            mutated = mutate(data, trial_rng, keys)
            tally.frames += 1
            where = (
                f"in memory: {rules_name}, game seed {seed}, delivery {delivery},"
                f" trial {trial_seed}"
            )
            try:
                twin = copy_of.sessions()[0 if sender is game.host else 1]
                copy_of.deliver(twin, mutated, trial_rng)
                copy_of.settle(trial_rng)
            except Exception as error:
                tally.crash(where, error)
            game.deliver(sender, data, game_rng)


# ---------------------------------------------------------------- a live daemon over loopback


async def fuzz_live(
    tally: Tally, rng: random.Random, guests: int, stop: Callable[[], bool]
) -> None:
    """``guests`` connections to a live daemon, each ending in a mutation; then one honest game."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _, context: tally.crash("live daemon", context["message"]))
    with tempfile.TemporaryDirectory(prefix="statki-fuzz-") as folder:
        home = Path(folder)
        home.chmod(0o700)
        daemon = Daemon(
            home,
            Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
            name="fuzzed daemon",
            listen_on=[("127.0.0.1", 0)],
            bot="random",
            rules=ruleset_named("classic"),
            limits=MOVE_LIMIT,
        )
        await daemon.start()
        port = daemon.addresses[0][1]
        try:
            for first in range(0, guests, LIVE_AT_ONCE):
                if stop():
                    break
                batch = range(first, min(guests, first + LIVE_AT_ONCE))
                seeds = [rng.getrandbits(32) for _ in batch]
                tally.frames += len(seeds)
                results = await asyncio.gather(
                    *(
                        _live_guest(port, random.Random(seed), daemon.key, mutate_after=True)
                        for seed in seeds
                    ),
                    return_exceptions=True,
                )
                for n, seed, result in zip(batch, seeds, results, strict=True):
                    if isinstance(result, BaseException):
                        tally.crash(f"live guest {n + 1}, trial {seed}", result)
            if not await _live_guest(port, random.Random(0), daemon.key, mutate_after=False):
                tally.crash("live daemon", "an honest guest could not finish a game after the fuzz")
        finally:
            daemon.stopped.set()
            await daemon.shutdown()
        for game in daemon.games.values():
            outcome = game.conn.outcome if game.conn else None
            if game.failure is not None:
                tally.crash(f"live daemon game {game.id}", str(game.failure))
            elif outcome and outcome.failure and outcome.failure.code is Code.INTERNAL:
                tally.crash(f"live daemon game {game.id}", outcome.failure_text or "internal")


async def _live_guest(
    port: int, rng: random.Random, host_key: Ed25519PrivateKey, *, mutate_after: bool
) -> bool:
    """A guest that plays honestly, and, with ``mutate_after``, sends a mutation after a few
    messages.  Returns whether its game ended (closed) while it listened."""
    guest = Session(
        Role.GUEST,
        Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)),
        name="fuzzer",
        entropy=random.Random(rng.getrandbits(64)).randbytes,
        host_key=public_key_bytes(host_key),
    )
    keys = {Role.GUEST.value: guest.key}
    honest_sends = rng.randint(0, 6) if mutate_after else 10**9
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    now = 1_000_000
    try:
        while True:
            try:
                async with asyncio.timeout(LIVE_READ_SECONDS if honest_sends < 0 else 10):
                    data = await reader.read(64 * 1024)
            except TimeoutError:
                return guest.closed
            if not data:
                return guest.closed
            now += 1
            events = guest.receive_data(data, now)
            if guest.connected:
                act(guest, events, rng, now)
            out = guest.data_to_send()
            if out:
                honest_sends -= 1
                writer.write(mutate(out, rng, keys) if honest_sends == -1 else out)
                await writer.drain()
            if guest.closed and not mutate_after:
                return True
    finally:
        writer.close()


# ---------------------------------------------------------------- the command


def run(seed: int, frames: int | None, seconds: float | None, live: int) -> Tally:
    """The in-memory fuzz until ``frames`` or ``seconds``, then ``live`` guests."""
    tally = Tally()
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds if seconds is not None else None

    def stop() -> bool:
        if frames is not None and tally.frames >= frames:
            return True
        return deadline is not None and time.monotonic() >= deadline

    fuzz_in_memory(tally, rng, stop)
    if live:
        asyncio.run(fuzz_live(tally, rng, live, lambda: False))
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m statki_net.fuzz", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=1, help="seed for everything (default 1)")
    parser.add_argument("--frames", type=int, default=None, help="stop after N mutated frames")
    parser.add_argument("--seconds", type=float, default=None, help="stop after S seconds")
    parser.add_argument(
        "--live", type=int, default=20, help="guests sent to a live daemon (default 20; 0: none)"
    )
    args = parser.parse_args(argv)
    if args.frames is None and args.seconds is None:
        args.seconds = 10.0
    started = time.monotonic()
    tally = run(args.seed, args.frames, args.seconds, args.live)
    print(
        f"frames tried: {tally.frames} in {time.monotonic() - started:.1f} s"
        f" (seed {args.seed}); crashes: {len(tally.crashes)}"
    )
    for crash in tally.crashes[:50]:
        print(f"crash: {crash}")
    return EXIT_CRASHED if tally.crashes else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

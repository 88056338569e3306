"""Two in-memory peers wired back to back, for tests of the protocol core.

``make_pair`` builds them as ``statki_net.protocol.backtoback.BackToBack``;
a cheating side is a ``Behaviour`` (``statki_net.protocol.behaviour``).
"""

from __future__ import annotations

import copy
import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.battle import Answer, Outcome, Sea
from statki_net.game.board import full_board, squares_of
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import Ruleset
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.events import Event, Evidence, FrameAdded, GameClosed, RulesProposed
from statki_net.protocol.logformat import (
    evidence_record,
    frame_record,
    header_record,
    log_file,
    talk_record,
)
from statki_net.protocol.phases import Phase
from statki_net.protocol.session import Entropy, Session
from statki_net.protocol.talk import TalkHeard, TalkSaid
from statki_net.protocol.wire import FrameReader, Role


def seeded_entropy(seed: int) -> Entropy:
    return random.Random(seed).randbytes


def key_from(seed: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(random.Random(seed).randbytes(32))


def make_pair(
    rules: Ruleset,
    seed: int = 1,
    *,
    host: Behaviour | None = None,
    guest: Behaviour | None = None,
    host_key: bytes | None = None,
) -> BackToBack:
    """A host (with a random fleet) and a guest, back to back; ``host``/``guest`` may cheat.

    ``host_key`` is the host key the guest's invite names (none: a bare address)."""
    rng = random.Random(seed)
    host_session = Session(
        Role.HOST,
        key_from(seed * 2),
        name="Ala",
        entropy=seeded_entropy(seed * 3),
        rules=rules,
        fleet=random_fleet(rules, rng),
        behaviour=host,
    )
    guest_session = Session(
        Role.GUEST,
        key_from(seed * 2 + 1),
        name="Olek",
        entropy=seeded_entropy(seed * 3 + 1),
        behaviour=guest,
        host_key=host_key,
    )
    return BackToBack(host_session, guest_session, now=1_000_000)


def play(
    pair: BackToBack,
    seed: int = 1,
    *,
    resign_at: int | None = None,
    stop_after: int | None = None,
    resigner: Role | None = None,
    aimed: float = 0.0,
) -> None:
    """Play a whole game: the guest accepts, both fire at random unknown squares.

    ``resign_at``: the mover of that volley resigns (with ``resigner``, the
    first volley from then on that this side fires).  ``aimed``: the share of
    volleys fired at the opponent's ships, read from its session, for games
    that end sooner (a tournament's many); 0 draws the same games as before.
    """
    rng = random.Random(seed)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    assert any(isinstance(e, RulesProposed) for e in pair.events[Role.GUEST])
    rules = pair.guest.rules
    assert rules is not None
    pair.record(Role.GUEST, pair.guest.accept(random_fleet(rules, rng), pair.now))
    pair.pump()
    volleys = 0
    while not (pair.host.closed and pair.guest.closed):
        mover = next((s for s in (pair.host, pair.guest) if s.my_turn), None)
        assert mover is not None, "nobody can move, yet the game is not closed"
        if stop_after is not None and volleys == stop_after:
            return
        volleys += 1
        if (
            resign_at is not None
            and volleys >= resign_at
            and (resigner is None or mover.role is resigner)
            and (resigner is not None or volleys == resign_at)
        ):
            pair.record(mover.role, mover.resign(pair.now))
        else:
            view = mover.view
            assert view is not None
            unknown = unknown_squares(view)
            if aimed and rng.random() < aimed:
                shots = _aimed(pair, mover, unknown)
            else:
                shots = tuple(rng.sample(unknown, min(mover.shots_due, len(unknown))))
            shots += tuple(rng.sample(range(rules.size**2), mover.shots_due - len(shots)))
            pair.record(mover.role, mover.shoot(shots, pair.now))
        pair.pump()
        assert volleys < 2000


def _aimed(pair: BackToBack, mover: Session, unknown: list[int]) -> tuple[int, ...]:
    """The mover's volley at the unknown squares of the opponent's ships first."""
    opponent = pair.guest if mover is pair.host else pair.host
    assert opponent.fleet is not None
    ships = opponent.fleet.board
    ahead = sorted(unknown, key=lambda square: not ships >> square & 1)
    return tuple(ahead[: mover.shots_due])


def snapshot(pair: BackToBack) -> BackToBack:
    """A copy of ``pair`` that plays on apart from it, without the events so far.

    Frames and their messages, volleys, the settled standings and the fleet's
    committed tree are never changed and keys cannot be copied, so the copy
    shares them; each side gets a fresh frame reader
    (between deliveries it holds no bytes), and a generator of its entropy in
    the same state (``setstate``: deepcopy takes the state apart number by
    number, which was most of a snapshot's time).  Copying stays cheap however
    long the game.
    """
    shared: dict[int, object] = {}
    for session in (pair.host, pair.guest):
        shared[id(session.key)] = session.key
        shared[id(session.commitment)] = session.commitment  # its tree never changes
        shared[id(session._reader)] = FrameReader()
        generator = getattr(session.entropy, "__self__", None)
        if isinstance(generator, random.Random):
            twin = random.Random()
            twin.setstate(generator.getstate())
            shared[id(generator)] = twin
        shared.update(session.transcript.shared_parts())
    shared[id(pair.events)] = {Role.HOST: [], Role.GUEST: []}
    return copy.deepcopy(pair, shared)


def deliver_one(pair: BackToBack) -> bool:
    """Deliver one side's pending bytes, the host's first; False when neither has any."""
    for sender in (pair.host, pair.guest):
        data = sender.data_to_send()
        if data:
            receiver = pair.session(sender.role.other)
            pair.now += 1
            pair.record(receiver.role, receiver.receive_data(data, pair.now))
            return True
    return False


def step(pair: BackToBack, rng: random.Random) -> bool:
    """One step of an honest game over a connection that holds: one delivery, or, with
    nothing in flight, one move of a player.  False once nothing is left to do."""
    if deliver_one(pair) or player_moves(pair, rng):
        return True
    if not pair.host.transcript.frames:
        pair.record(Role.HOST, pair.host.start(pair.now))
        return True
    return False


def unknown_squares(view: Sea) -> list[int]:
    """The squares a shooter knows nothing of (``Cell.UNKNOWN``), lowest first: from the
    bitboards, not square by square (a game's shots asked 100 squares each)."""
    return list(squares_of(full_board(view.rules.size) & ~view.known))


def fire(pair: BackToBack, mover: Session, rng: random.Random) -> None:
    """``mover``'s player fires at squares it knows nothing of, chosen at random."""
    rules = mover.rules
    view = mover.view
    assert rules is not None and view is not None
    unknown = unknown_squares(view)
    shots = tuple(rng.sample(unknown, min(mover.shots_due, len(unknown))))
    shots += tuple(rng.sample(range(rules.size**2), mover.shots_due - len(shots)))
    pair.record(mover.role, mover.shoot(shots, pair.now))


def finish(pair: BackToBack, rng: random.Random) -> None:
    """Play on until both sides have closed, whatever happened: each side's player moves
    when its own transcript says it is to (the guest accepts, shooters fire), and when no
    player can move the clock runs to the next deadline, as a waiting side's timer would.
    After a lost connection each side does so alone, in its own transcript."""
    for _ in range(5000):
        if pair.host.closed and pair.guest.closed:
            return
        if not player_moves(pair, rng) and not pair.wait_out():
            raise AssertionError("nobody can move, nobody waits, yet a side is still playing")
        pair.pump()
    raise AssertionError("the game does not end")


def player_moves(pair: BackToBack, rng: random.Random) -> bool:
    """One move of a player whose own transcript says it is to move (the guest accepts, a
    shooter fires); False when no player can move."""
    guest = pair.guest
    rules = guest.rules
    if (
        not guest.closed
        and guest.transcript.phase is Phase.DECISION
        and guest.transcript.speaker() is Role.GUEST
        and rules is not None
    ):
        pair.record(Role.GUEST, guest.accept(random_fleet(rules, rng), pair.now))
        return True
    if mover := next((s for s in (pair.host, pair.guest) if s.my_turn), None):
        fire(pair, mover, rng)
        return True
    return False


def closed(pair: BackToBack, role: Role) -> GameClosed:
    return next(e for e in pair.events[role] if isinstance(e, GameClosed))


def log_bytes(session: Session, *, role: str = "host") -> bytes:
    """The log file a peer would have written for its transcript (frames only)."""
    header = header_record(role, "statki test", 0)
    return log_file(header, (frame_record(f) for f in session.transcript.frames))


def log_of(events: list[Event], role: Role) -> bytes:
    """The log file a peer writes from its session's events: frames, evidence and talk, in
    order."""
    records = []
    for event in events:
        if isinstance(event, FrameAdded):
            records.append(frame_record(event.frame, event.got))
        elif isinstance(event, Evidence):
            records.append(evidence_record(event.frame, event.code, event.at))
        elif isinstance(event, TalkHeard | TalkSaid):
            records.append(talk_record(event.frame))
    return log_file(header_record(role.value, "statki test", 0), records)


class LiesAboutFirstHit(Behaviour):
    """Says miss for the first hit it takes."""

    lied = False

    def answer(self, session: Session, squares: tuple[int, ...], answer: Answer) -> Answer:
        if not self.lied and answer.outcomes and answer.outcomes[0] is not Outcome.MISS:
            self.lied = True
            return Answer((Outcome.MISS,), 0, 0)
        return answer


class FrameBytes:
    """A frame as far as the log cares: its exact body and signature."""

    def __init__(self, body: bytes, signature: bytes = bytes(64)) -> None:
        self.body = body
        self.signature = signature


LOG_HEADER = header_record("host", "statki test", 5)
"""A log header for tests that write or read logs record by record."""

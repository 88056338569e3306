"""Games and the logs each side keeps of them, and forks of them: for testing the referee.

``played`` plays an honest game between two in-memory sessions (``peers``);
``signed`` makes one more frame, signed by one side's real key and chained
after any prefix of the game, as a peer writing alone, a cheat or a crossed
message would; ``log_file`` writes the log a side would keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from peers import make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.logformat import (
    LogContents,
    evidence_record,
    frame_record,
    header_record,
    log_file,
    read_log,
)
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Frame, Header, Message, Role, Shot, TimeClaim, sign
from statki_net.referee.verify import NamedLog


@dataclass
class Played:
    """An honest game, whole, and the two keys it was signed with."""

    pair: BackToBack
    frames: list[Frame]

    def key(self, role: Role) -> Ed25519PrivateKey:
        return self.pair.session(role).key

    @property
    def move_ms(self) -> int:
        return self.pair.host.transcript.limits.move_ms

    def speaker_after(self, count: int) -> Role | None:
        """Who is to speak after the first ``count`` messages."""
        return replayed(self.frames[:count]).speaker()

    def shooting(self, role: Role, after: int = 8) -> int:
        """The length of a prefix, ``after`` messages or more, after which ``role`` is to shoot."""
        return next(
            n
            for n in range(after, len(self.frames))
            if isinstance(self.frames[n].message, Shot) and self.frames[n].header.sender is role
        )


def played(
    preset: str = "classic",
    seed: int = 71,
    *,
    resign_at: int | None = None,
    host: Behaviour | None = None,
    guest: Behaviour | None = None,
) -> Played:
    pair = make_pair(PRESETS[preset], seed=seed, host=host, guest=guest)
    play(pair, seed=seed + 1, resign_at=resign_at)
    return Played(pair, list(pair.host.transcript.frames))


def signed(
    game: Played, frames: Sequence[Frame], sender: Role, message: Message, *, at: int | None = None
) -> Frame:
    """``message`` from ``sender``, chained after ``frames`` and signed with its key."""
    last = frames[-1]
    game_id = game.pair.host.transcript.game if len(frames) >= 2 else b""
    header = Header(
        sender, len(frames), last.digest, game_id, last.header.at + 1 if at is None else at
    )
    return sign(game.key(sender), header, message)


def replayed(frames: Sequence[Frame]) -> Transcript:
    t = Transcript()
    for frame in frames:
        t.add(frame)
    return t


def claim(game: Played, frames: Sequence[Frame], claimant: Role, *, early_by: int = 0) -> Frame:
    """A time claim after ``frames``, made as late as the rules want (or ``early_by`` ms
    early): the limit of the phase, after the claimant's own last message."""
    wait = replayed(frames).limit()
    own = max((f.header.at for f in frames if f.header.sender is claimant), default=0)
    return signed(game, frames, claimant, TimeClaim(wait), at=own + wait - early_by)


def log_file_of(
    frames: Sequence[Frame],
    role: Role = Role.HOST,
    evidence: Sequence[Frame] = (),
    *,
    evidence_first: bool = False,
) -> bytes:
    """The log a side writes: its frames, then its evidence records, or, with
    ``evidence_first``, the evidence before its last frame (a refused frame's record
    comes before the error that answers it)."""
    records = [frame_record(f) for f in frames]
    kept = [evidence_record(f) for f in evidence]
    records = records[:-1] + kept + records[-1:] if evidence_first else records + kept
    return log_file(header_record(role.value, "statki test", 0), records)


def named(name: str, data: bytes) -> NamedLog:
    return NamedLog(name, read_log(data))


def contents(data: bytes) -> LogContents:
    return read_log(data)

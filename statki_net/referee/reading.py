"""Reading one log as a referee: what its writer's file can be trusted to hold.

SPEC.md section 16, "Reading the logs", step 3.  A log's frame records are
replayed in order through a ``Transcript``: each is appended, or is the
log's refused frame (the peer's word that breaks the protocol, usually the
writer's own last frame), or is tampering, after which nothing in the log
can be trusted to follow from it.  Its evidence records are checked as the
peer's word: readable, signed by the side they name, and placed under a
frame of the log's transcript so far.  What this gives, the frames of the
game tree, is the same whatever the log's writer claims in its header.

Signatures are checked as SPEC.md section 16 allows: the records are
replayed with every check but the signatures, and then only each side's last
signature in the transcript (and the refused frame's) is verified.  Each
signature covers the hash chain before it, so those vouch for every body
before them.  When one of them fails, the records are replayed again with
every signature checked, which finds the first that does not verify.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from statki_net.game.words import N_, Phrase, phrase
from statki_net.protocol.bounds import MAX_SAY_BODY, talk_problem
from statki_net.protocol.endings import role_term
from statki_net.protocol.errors import ProtocolError
from statki_net.protocol.logformat import (
    EvidenceRecord,
    FrameRecord,
    LogContents,
    Note,
    ResumeRecord,
    TalkRecord,
)
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import (
    AnyFrame,
    Envelope,
    Role,
    SayFrame,
    game_id,
    is_say,
    read_body,
    read_envelope,
    read_say,
    say_signature_valid,
    signature_valid,
)
from statki_net.referee.branches import Found, Refusal, at_stake, at_stake_before
from statki_net.referee.report import TalkLine
from statki_net.referee.violations import UNTRUSTED, Kind, Violation


@dataclass
class ReadLog:
    """One log, read: the frames it can be trusted to hold, and what is wrong with it."""

    name: str
    role: str | None
    """The writer's role, from the header: unsigned, for people."""
    transcript: Transcript = field(default_factory=Transcript)
    frames: list[AnyFrame] = field(default_factory=list)
    """The frames appended to its transcript, in order."""
    refusal: Refusal | None = None
    """The frame record the rules refused (steps 5 to 7): it stops the transcript."""
    found: list[Found] = field(default_factory=list)
    """The findings of its transcript, with the frame that made each."""
    evidence: list[Envelope] = field(default_factory=list)
    """Its valid evidence records: the peer's word, placed under a frame of the log."""
    violations: list[Violation] = field(default_factory=list)
    """Tampering and damage: no signature says who did them."""
    notes: list[Note] = field(default_factory=list)
    talk: list[Heard] = field(default_factory=list)
    """Its talk records that are their side's lines of this game, in the log's order."""
    stopped: bool = False
    """The transcript stopped: at the refused frame, or at a record that cannot be trusted."""


def game_id_of(contents: LogContents) -> bytes | None:
    """The log's game id, from the bodies of its first two frame records (SPEC.md
    section 16); None for a log with fewer than two."""
    first = [r.body for r in islice(_frame_records(contents), 2)]  # not every frame's pair
    if len(first) < 2:
        return None
    return game_id(first[0], first[1])


def _frame_records(contents: LogContents) -> Iterator[FrameRecord]:
    return (record for record in contents.records if isinstance(record, FrameRecord))


def read_records(name: str, contents: LogContents, *, every_signature: bool = False) -> ReadLog:
    """Replay one log's records; see the module docstring.  ``every_signature`` checks
    each frame record's signature as it comes, without relying on later ones."""
    if not every_signature:
        log = _replay(name, contents, signature_later=True)
        if _vouched(log):
            return log
    return _replay(name, contents, signature_later=False)


def read_as_played(name: str, contents: LogContents, played: Transcript) -> ReadLog | None:
    """The log as ``read_records`` reads it, from the transcript its writer played it
    with, without replaying it; None unless the log holds exactly that transcript.

    For a peer judging its own log at the end of a game: its transcript checked every
    frame of the other side as it came, by the same rules, and took its own answers
    and reveal as composed honestly (vouched: not looked over for lies).  The log must
    hold its frames, byte for byte and in order, and nothing else the referee weighs
    (no evidence, no damage); then the referee's replay would build that very
    transcript, unless this side's own prover erred (``verify.judge_own_log``).  Each side's last
    signature is checked, as a referee does (SPEC.md section 16): a frame this side
    signed itself is not checked as it is added.
    """
    frames, held = played.frames, contents.frames
    if contents.damage or contents.evidence or len(held) != len(frames):
        return None
    if any(h != (f.body, f.signature) for h, f in zip(held, frames, strict=True)):
        return None
    role = contents.header.get("role")
    log = ReadLog(name, role if isinstance(role, str) else None, played)
    log.frames = list(frames)  # read in full as they came: not read again
    log.notes = contents.notes
    _read_talk(log, contents)
    log.found = [
        Found(frames[at].digest, finding, at_stake_before(played, at))
        for finding, at in zip(played.findings, played.found_at, strict=True)
    ]
    return log if _vouched(log) else None


def _vouched(log: ReadLog) -> bool:
    """Whether each side's last frame in the transcript, and the refused frame, verify:
    then every frame the transcript holds is its side's word (SPEC.md section 16)."""
    last = {frame.header.sender: frame for frame in log.frames}
    frames = [*last.values(), *([log.refusal.frame] if log.refusal else [])]
    try:
        for frame in frames:
            log.transcript.verify(frame)
    except ProtocolError:
        return False
    return True


def _replay(name: str, contents: LogContents, *, signature_later: bool) -> ReadLog:
    role = contents.header.get("role")
    log = ReadLog(name, role if isinstance(role, str) else None)
    placed: list[Envelope] = []
    for record in contents.records:
        if isinstance(record, FrameRecord):
            if not log.stopped:
                _frame_record(log, record.body, record.signature, signature_later)
        elif isinstance(record, EvidenceRecord):
            # Placed under the frames before it: the transcript so far.
            envelope = _placed(log, record.body, record.signature)
            if envelope is not None:
                placed.append(envelope)
        elif isinstance(record, ResumeRecord | TalkRecord):
            continue  # no message of the game: a new connection, the players' talk
        else:
            log.notes.append(record)
    # Signed by its side's key in this game, which the whole transcript knows: a
    # record placed before a side's hello must not bring a key of its own.
    for envelope in placed:
        problem = _unsigned(log.transcript, envelope)
        if problem is None:
            log.evidence.append(envelope)
        else:
            said = phrase(N_("evidence: {problem}"), problem=problem)
            log.violations.append(Violation(Kind.BAD_EVIDENCE, said))
    _read_talk(log, contents)
    if contents.damage:
        log.violations.append(Violation(Kind.DAMAGED, contents.damage))
    return log


@dataclass(frozen=True)
class Heard:
    """A talk record that is its side's line of this game: its line, and its digest (the
    same line in both sides' logs is one line)."""

    digest: bytes
    line: TalkLine


def _read_talk(log: ReadLog, contents: LogContents) -> None:
    """Each talk record checked as a receiver checks a line (SPEC.md section 16): one that
    is not its side's line of this game is ``bad-talk``, which weighs nothing."""
    t = log.transcript
    last: dict[Role, int] = {}
    for index, record in enumerate(contents.talk):
        problem, frame = _talk_problem(t, record, last)
        if frame is None or problem is not None:
            said = phrase(N_("talk record {index}: {problem}"), index=index, problem=problem or "")
            log.violations.append(Violation(Kind.BAD_TALK, said))
            continue
        say = frame.say
        last[say.sender] = say.n
        line = TalkLine(say.sender, say.n, say.seen, say.at, say.text)
        log.talk.append(Heard(frame.digest, line))


def _talk_problem(
    t: Transcript, record: TalkRecord, last: dict[Role, int]
) -> tuple[Phrase | None, SayFrame | None]:
    """Why a talk record is not its side's line of this game (None: it is), and the line."""
    if len(record.body) > MAX_SAY_BODY:
        return phrase(N_("a say over {limit} bytes"), limit=MAX_SAY_BODY), None
    try:
        fields = read_body(record.body)
        if not is_say(fields):
            return phrase(N_("not a say")), None
        frame = read_say(record.body, record.signature, fields)
    except ProtocolError as error:
        return phrase(N_("cannot be read: {detail}"), detail=error.said), None
    say = frame.say
    key = t.key(say.sender)
    if len(t.frames) < 2 or say.game != t.game:
        return phrase(N_("a say of another game")), frame
    if key is None or not say_signature_valid(key, frame):
        return phrase(
            N_("the {sender}'s signature does not verify"), sender=role_term(say.sender)
        ), frame
    if say.n <= last.get(say.sender, -1):
        return phrase(
            N_("the {sender}'s say {n} again, or out of order"),
            sender=role_term(say.sender),
            n=say.n,
        ), frame
    problem = talk_problem(say.text)
    if problem is not None:
        return phrase(N_("a say with {problem}"), problem=problem), frame
    return None, frame


def _frame_record(log: ReadLog, body: bytes, signature: bytes, signature_later: bool) -> None:
    t = log.transcript
    index = len(t.frames)
    try:
        envelope = read_envelope([body, signature])
    except ProtocolError as error:
        said = phrase(
            N_("message {index} cannot be read: {detail}"), index=index, detail=error.said
        )
        _tampered(log, Kind.MALFORMED, said)
        return
    if t.complete:
        said = phrase(N_("message {index} comes after the end of the game"), index=index)
        _tampered(log, Kind.AFTER_THE_END, said)
        return
    before, move, accepted = len(t.findings), t.move, at_stake(t)
    try:
        frame = t.add(envelope, signature_later=signature_later)
    except ProtocolError as error:
        if error.refuses:
            log.refusal, log.stopped = Refusal(envelope, error.code, error.said, move), True
            return
        # Before the signature held (steps 1 to 4), it is nobody's word.
        kind = UNTRUSTED.get(error.code, Kind.MALFORMED)
        said = phrase(N_("message {index}: {detail}"), index=index, detail=error.said)
        _tampered(log, kind, said, move)
        return
    # The frame read in full, not its envelope: the transcript hashes it to place the next
    # one, and the game's tree asks the same hash again.
    log.frames.append(frame)
    log.found += [Found(frame.digest, f, accepted) for f in t.findings[before:]]


def _tampered(log: ReadLog, kind: Kind, detail: Phrase, move: int | None = None) -> None:
    log.violations.append(Violation(kind, detail, None, move))
    log.stopped = True


def _placed(log: ReadLog, body: bytes, signature: bytes) -> Envelope | None:
    """An evidence record read as a frame placed under a frame of the log's transcript so
    far (SPEC.md section 3, steps 1 to 3); one that is not is tampering."""
    t = log.transcript
    try:
        envelope = read_envelope([body, signature])
    except ProtocolError as error:
        said = phrase(N_("evidence: {problem}"), problem=error.said)
        log.violations.append(Violation(Kind.BAD_EVIDENCE, said))
        return None
    header = envelope.header
    if t.place_of(header) is None:
        detail = phrase(
            N_("evidence: message {seq} from the {sender} follows no message of the log"),
            seq=header.seq,
            sender=role_term(header.sender),
        )
        log.violations.append(Violation(Kind.BAD_EVIDENCE, detail))
        return None
    return envelope


def _unsigned(t: Transcript, envelope: Envelope) -> Phrase | None:
    """Why the evidence is not signed by its side (step 4), if it is not.

    The key is that side's in the log's transcript; a hello may bring its own only
    when the transcript holds none (a refused hello: the game never had that side).
    Unlike a frame of the transcript, no evidence is taken unsigned: the guest's
    error as message 0 proves nothing, and is kept as a note (SPEC.md section 5).
    """
    header = envelope.header
    key = t.key(header.sender) or envelope.hello_key
    if key is None:
        return phrase(
            N_("message {seq} from the {sender} is signed by no key"),
            seq=header.seq,
            sender=role_term(header.sender),
        )
    if not signature_valid(key, envelope):
        return phrase(
            N_("message {seq}: the {sender}'s signature does not verify"),
            seq=header.seq,
            sender=role_term(header.sender),
        )
    return None

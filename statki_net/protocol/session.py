"""A peer's side of one game, sans I/O: bytes and calls in, events and bytes out.

``Session`` wraps the shared ``Transcript`` with what only one side knows: its
signing key, its fleet and the secrets of its commitments.  It answers shots
from the committed fleet by itself (a person never answers), commits, tosses
the coin, reveals and states its verdict without being asked.  The caller
feeds received bytes to ``receive_data``, sends what ``data_to_send`` returns,
calls ``shoot``/``accept``/``refuse``/``resign`` for the player, ``check_time``
when ``deadline`` comes, and ``connection_lost`` when the transport closes;
every time is passed in as milliseconds, never read from a clock.  What is
said when, and who waits on whom, is ``phases``; what this side sends of its
own accord passes through its ``Behaviour``, honest unless a test builds a
cheat (``statki_net.protocol.behaviour``).
The events its calls return are ``statki_net.protocol.events``'s.

Only the peer's word is ever answered (SPEC.md section 3).  A frame that is
not (unreadable bytes, a frame that fits nowhere or is badly signed, one in
this side's own name) is never answered: the connection is lost.  The peer's
word that breaks the protocol is refused: an ``Evidence`` event, then an
``error`` at its place, which makes its sender forfeit.  A frame that crossed
this side's own is evidence too, never answered.

A lost connection does not end the game (SPEC.md section 12, "A lost
connection"): the session plays on alone.  It signs its own automatic
messages at once into its own transcript (``FrameAdded``, as if sent; nothing
goes to ``data_to_send`` any more), still asks its player for the player's
moves, keeps its deadline, and claims the game on time when the peer's limit
has run out, so its log never blames its own side.  With a resignation
pending it resigns at its next shot or answer, and at the deadline stops with
``error closed`` (its forfeit) instead of claiming.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from statki_net.game.battle import Answer, Defence, Sea, tells_cells
from statki_net.game.board import squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, fleet_from_lists, fleet_problems
from statki_net.game.rules import Ruleset
from statki_net.game.words import N_, SILENCE, Phrase, Term, as_is, joined, phrase
from statki_net.protocol.behaviour import Behaviour
from statki_net.protocol.bounds import (
    CLAIM_SLACK_MS,
    MAX_FINDINGS,
    RESUME_WINDOW_MS,
    proposal_problems,
)
from statki_net.protocol.commitment import (
    SECRET_SIZE,
    FleetCommitment,
    Opening,
    coin_commitment,
    ships_digest,
)
from statki_net.protocol.endings import End, Ending, role_term
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.events import (
    BattleOver,
    ConnectionLost,
    Event,
    Evidence,
    Failed,
    FrameAdded,
    GameClosed,
    GameStarted,
    PeerHello,
    Resumed,
    RulesProposed,
    VolleyDone,
    YourTurn,
)
from statki_net.protocol.phases import (
    HELLO_PHASES,
    PHASES,
    Deadline,
    Phase,
    deadline_kind,
    may_resign,
)
from statki_net.protocol.resume import (
    NotRestored,
    RestoreRefusal,
    Resume,
    ResumeError,
    ResumeFrame,
    ResumeRefusal,
    check_resume,
    sign_resume,
)
from statki_net.protocol.screening import wants_join
from statki_net.protocol.talk import Talk, TalkRefused, TalkSaid
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import (
    CAPS,
    MAX_FRAME,
    MAX_TEXT,
    PROTOCOL_VERSION,
    Accept,
    Admit,
    BadSay,
    Coin,
    Commit,
    Envelope,
    Error,
    Frame,
    FrameReader,
    Header,
    Hello,
    Join,
    Limits,
    Message,
    Refuse,
    Reply,
    Resign,
    Reveal,
    Role,
    SayFrame,
    Shot,
    TimeClaim,
    Verdict,
    game_tag,
    guest_proof,
    read_incoming,
    sign,
    sign_join,
    sign_say,
)
from statki_net.version import SOFTWARE

Entropy = Callable[[int], bytes]
"""Where secrets come from: ``secrets.token_bytes`` in real use, fixed bytes in tests."""


def public_key_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


NO_REASON = ""
"""A front end's reason for declining the rules when the player gave none: no words, so
that each reader's ending says "the guest declined the rules" in their own language (an
English "no reason given" on the wire stood in every Polish verdict)."""


@dataclass(frozen=True)
class SideSecrets:
    """What only this side knows and needs to play on after its program stopped: its fleet,
    the secret of its fleet commitment and its coin (the key is in the home already)."""

    fleet: tuple[tuple[int, ...], ...]
    """The ships as lists of squares, in the order of the rules' fleet."""
    secret: bytes
    """The secret of the fleet commitment; empty before this side commits."""
    coin: bytes


# ---------------------------------------------------------------- the session


class Session:
    """One side of one game; see the module docstring."""

    def __init__(
        self,
        role: Role,
        key: Ed25519PrivateKey,
        *,
        name: str,
        entropy: Entropy,
        software: str = SOFTWARE,
        rules: Ruleset | None = None,
        limits: Limits | None = None,
        fleet: Fleet | None = None,
        caps: tuple[str, ...] = CAPS,
        first: Role | None = None,
        behaviour: Behaviour | None = None,
        host_key: bytes | None = None,
        admit: Admit = Admit.OPEN,
        invite_secret: bytes | None = None,
        tag: bytes | None = None,
        invited_by: bytes | None = None,
    ) -> None:
        self.proposed_limits = limits or Limits()
        if role is Role.HOST:
            if rules is None:
                raise UsageError(phrase(N_("the host must propose rules")))
            problems = proposal_problems(rules, self.proposed_limits)
            if problems:
                # A host must not propose what every guest refuses (SPEC.md section 7).
                raise UsageError(
                    phrase(N_("out of bounds: {problems}"), problems=joined(problems, "; "))
                )
        self.role = role
        self.key = key
        self.name = name
        self.software = software
        self.entropy = entropy
        self.caps = caps
        self.proposed_rules = rules
        self.proposed_first = first
        """Host only: who starts, when agreed instead of tossed (a rematch)."""
        self.host_key = host_key
        """Guest only: the host key the invite names.  A host hello with another key (or one
        that cannot be read) is refused in silence, before anything else is checked."""
        self.admit = admit
        """Host only: what its hello says of whom it admits (the admission checks the proof)."""
        self.invite_secret = invite_secret
        """Guest only: the secret proved in its hello, never sent: the invite's, or a
        rematch's drawn from it."""
        self.invited_by = invited_by if invited_by is not None else invite_secret
        """Guest only: the invite's own secret, which every rematch's is drawn from (a
        rematch's session proves the rematch's, but keeps this one for the next)."""
        self.tag = tag
        """Host only: the game tag its hello carries (``game_tag`` of the invite's secret; the
        admission sets it, from the secret it admits by)."""
        self.joinable = False
        """Host only: its hello says other games wait on this port (``join``): the admission's."""
        self._joined: Frame | None = None
        """Guest only: the host's hello it answered with a ``join``; not in the transcript,
        which begins with the hello the host says next, that of the game named."""
        self.behaviour = behaviour or Behaviour()
        """Whether this side plays honestly; see ``statki_net.protocol.behaviour``."""
        self.transcript = Transcript()
        self.fleet: Fleet | None = None
        self.defence: Defence | None = None
        self.commitment: FleetCommitment | None = None
        self._secret = b""
        self._coin = entropy(32)
        self._reader = FrameReader()
        self._outbox = bytearray()
        self._events: list[Event] = []
        self.started = False
        """``start`` was called: the host's hello is said."""
        self.closed = False
        """The game is over for this side: nothing more will be said, read or written."""
        self.lost: ConnectionLost | None = None
        """Set once the connection is lost: the session plays on alone until it closes."""
        self.resigning = False
        """The player resigned in the peer's turn: resign at this side's next shot or answer."""
        self.failure: Failed | None = None
        """The error message that stopped the game, this side's or the peer's."""
        self._closing: Ending | None = None
        """How the game ended when it stopped before the transcript could say (``GameClosed``)."""
        self.last_heard = 0
        """When the peer last spoke (or the session started), in ms."""
        self.waiting_since = 0
        """When this side last spoke, in ms: the peer's turn began at the later of the two."""
        self.heard_at: int | None = None
        """A restored session's: when the peer's last frame came, by this side's clock."""
        self.talk = Talk(role)
        """The players' talk: outside the transcript, which it never touches."""
        if fleet is not None:
            self.set_fleet(fleet)

    # ------------------------------------------------------------ state

    @property
    def rules(self) -> Ruleset | None:
        return self.transcript.rules or self.proposed_rules

    @property
    def honest(self) -> bool:
        """Plays as every real game does: no hook of a behaviour changes what it says."""
        return type(self.behaviour) is Behaviour

    @property
    def peer(self) -> Role:
        return self.role.other

    @property
    def connected(self) -> bool:
        """Whether messages still go to the peer: not lost, not closed."""
        return self.lost is None and not self.closed

    @property
    def my_turn(self) -> bool:
        return (
            not self.closed
            and self.transcript.phase is Phase.SHOOT
            and self.transcript.speaker() is self.role
        )

    @property
    def shots_due(self) -> int:
        score = self.transcript.score
        return score.shots_due() if score and self.my_turn else 0

    @property
    def view(self) -> Sea | None:
        """My view of the peer's sea."""
        return self.transcript.sides[self.role].sea

    @property
    def ending(self) -> Ending | None:
        """How this side's game ended, as far as it is known; None while it goes on.

        The transcript's ending (known from the end of the battle on, though a
        reveal may still change it), or, when the game stopped before the
        transcript could end it, the ending ``GameClosed`` gave.
        """
        return self._closing or self.transcript.ending

    @property
    def secret(self) -> bytes:
        """The secret of this side's fleet commitment; empty until it commits."""
        return self._secret

    def anew(
        self, *, rules: Ruleset | None, first: Role | None, limits: Limits | None = None
    ) -> Session:
        """A new game's session for this side: same key, name, entropy, limits (unless
        ``limits`` are given), caps, behaviour and expected host key.

        For a host that changes its proposal before saying hello, or a rematch.
        """
        return Session(
            self.role,
            self.key,
            name=self.name,
            entropy=self.entropy,
            software=self.software,
            rules=rules,
            limits=limits or self.proposed_limits,
            caps=self.caps,
            first=first,
            behaviour=self.behaviour,
            host_key=self.host_key,
            admit=self.admit,
            invite_secret=self.invite_secret,
            tag=self.tag,
            invited_by=self.invited_by,
        )

    def set_fleet(self, fleet: Fleet) -> None:
        rules = self.rules
        if rules is None:
            raise UsageError(phrase(N_("the rules are not known yet")))
        if self.commitment is not None:
            raise UsageError(phrase(N_("the fleet is committed and cannot change")))
        fleet = self.behaviour.fleet(self, fleet)
        problems = fleet_problems(rules, fleet) if self.behaviour.checks_own_fleet else []
        if problems:
            said = joined([problem.said for problem in problems], "; ")
            raise UsageError(phrase(N_("illegal fleet: {problems}"), problems=said))
        self.fleet = fleet
        self.defence = Defence(rules, fleet)

    # ------------------------------------------------------------ I/O surface

    def start(self, now: int) -> list[Event]:
        """Begin: the host says hello; the guest waits for the host's.

        Once only: a host session the admission started (its hello said on a
        connection it was screening) goes on from there when the game runs.  A
        session ``restore``d from its log carries on instead: it says at once
        what needs no player, or asks its player, if it is to speak.
        """
        if self.started:
            return []
        self.started = True
        self.last_heard = now
        if self.transcript.frames:
            window = now + RESUME_WINDOW_MS - self.transcript.limit()
            if self.transcript.speaker() is self.role:
                # The peer has waited for this side since the last message, not since this
                # side came back: its turn's clock runs from then (SPEC.md, "Resume"), by
                # this side's clock where the log says when that message came.
                heard = self.heard_at or self.transcript.last_at(self.peer)
                self.last_heard = min(now, heard or now)
                self._speak(now)
            elif self.transcript.frames[-1].header.sender is self.role:
                # The peer's turn began with this side's last message, by this side's own
                # clock (its log holds it): the peer counts from then too, so both screens
                # show one clock.  Never less than RESUME_WINDOW_MS from now, for a move
                # the peer made while apart to arrive by the resume.
                self.last_heard = min(now, window)
            elif self.heard_at is not None:
                # The peer's turn began with its own last message, which reached this side
                # at ``heard_at`` by this side's clock (the log's ``got``): counted from
                # then, as the peer counts, with the same window.
                self.last_heard = max(min(now, self.heard_at), window)
        elif self.role is Role.HOST:
            self._speak(now)
        return self._take_events()

    def receive_data(self, data: bytes, now: int) -> list[Event]:
        """Bytes from the peer.  Nothing is read once the game is over or the connection
        lost, nor after the frame that ended either in the same bytes."""
        if not self.connected:
            return []
        try:
            for value in self._reader.values(data):
                try:
                    incoming = read_incoming(value)
                except BadSay as error:  # talk, however wrong, never touches the game
                    self._events.append(self.talk.unreadable(error, error.size, now))
                    continue
                if isinstance(incoming, SayFrame):
                    self._hear(incoming, now)
                else:
                    self._receive(incoming, now)
                if not self.connected:
                    break
        except ProtocolError as error:  # bytes that are not even a frame: nobody's word
            self._lose(error.code, error.detail, now, data)
        return self._take_events()

    def data_to_send(self) -> bytes:
        if not self._outbox:  # asked after every batch of events, most of which send nothing
            return b""
        data = bytes(self._outbox)
        self._outbox.clear()
        return data

    def connection_lost(self, now: int, detail: str = "the connection closed") -> list[Event]:
        """The transport closed or failed: play on alone (see the module docstring)."""
        self._lose(Code.LOST, detail, now)
        return self._take_events()

    # ------------------------------------------------------------ resuming

    @property
    def resumable(self) -> bool:
        """Whether a new connection can carry this game on: it has an id and is not over."""
        return not self.closed and len(self.transcript.frames) >= 2

    def resume_frame(self, nonce: bytes, now: int) -> ResumeFrame:
        """This side's ``resume`` for the connection whose host hello had ``nonce``."""
        if not self.resumable:
            raise UsageError(phrase(N_("there is no game to resume")))
        t = self.transcript
        resume = Resume(self.role, t.game, nonce, len(t.frames), t.last_digest, now)
        return sign_resume(self.key, resume)

    def check_resume(self, frame: ResumeFrame, nonce: bytes) -> None:
        """The peer's resume on the connection of ``nonce``: raises ``ResumeError`` if it is
        not the peer's, of this game, on this connection (SPEC.md, "Resume")."""
        if not self.resumable:
            raise ResumeError(ResumeRefusal.UNKNOWN_GAME, "the game is over")
        key = self.transcript.key(self.peer)
        assert key is not None, "a resumable game has both hellos"
        check_resume(frame, sender=self.peer, game=self.transcript.game, key=key, nonce=nonce)

    def resume(self, peer: Resume, now: int) -> list[Event]:
        """The game goes on over a new connection, after both resumes.

        This side sends again its messages from the peer's ``have`` on, in
        order, and reads the peer's again; every frame still goes through the
        ordinary checks, so transcripts that forked while apart part again at
        once, by the rules of a lost connection.
        """
        if not self.resumable:
            raise UsageError(phrase(N_("there is no game to resume")))
        if self.connected:
            raise UsageError(phrase(N_("the connection is not lost")))
        self.lost = None
        self._reader = FrameReader()
        self._outbox.clear()
        frames = self.transcript.frames[peer.have :]
        for frame in frames:
            self._outbox += frame.encode()
        self._events.append(Resumed(peer.have, len(frames)))
        return self._take_events()

    @classmethod
    def restore(
        cls,
        role: Role,
        key: Ed25519PrivateKey,
        frames: list[Frame],
        secrets: SideSecrets | None,
        *,
        name: str,
        entropy: Entropy,
        software: str = SOFTWARE,
        said: int = 0,
        heard_at: int | None = None,
    ) -> Session:
        """This side's session of a game its program stopped in, from the frames of its log
        and its secrets: apart from the peer, until a new connection resumes the game.
        ``said`` is the number of its next line of talk (``logformat.next_say``);
        ``heard_at``, when the log holds it, this side's clock when the peer's last frame
        came (its record's ``got``), which is where the peer's turn began.

        Every frame is checked again as it is replayed.  Raises ``UsageError`` when
        the frames are no game of this key's, or the secrets do not fit them.
        """
        t = Transcript()
        try:
            for frame in frames:
                t.add(frame)
        except ProtocolError as error:
            raise NotRestored(
                RestoreRefusal.DOES_NOT_REPLAY, f"the log does not replay: {error.detail}"
            ) from None
        if len(t.frames) < 2 or t.complete:
            refusal = RestoreRefusal.OVER if t.complete else RestoreRefusal.NO_GAME
            raise NotRestored(refusal, "the log holds no unfinished game")
        if t.key(role) != public_key_bytes(key):
            raise NotRestored(
                RestoreRefusal.WRONG_KEY, f"this key is not the {role}'s of that game"
            )
        proposal = t.sides[Role.HOST].hello
        assert proposal is not None and t.rules is not None
        session = cls(
            role,
            key,
            name=name,
            entropy=entropy,
            software=software,
            rules=t.rules if role is Role.HOST else None,
            limits=t.limits,
            first=proposal.first,
            host_key=t.key(Role.HOST) if role is Role.GUEST else None,
        )
        session.transcript = t
        session.talk = Talk(role, said=said)
        committed = t.sides[role].commit
        if secrets is not None:
            fleet = fleet_from_lists(t.rules, secrets.fleet)
            session._coin = secrets.coin
            session._secret = secrets.secret
            session.fleet = fleet
            session.defence = _replayed_defence(t, role, Defence(t.rules, fleet))
            if committed is not None:
                session.commitment = FleetCommitment(
                    t.game, secrets.secret, fleet.board, t.rules.size**2
                )
                if session.commitment.root != committed.fleet:
                    raise NotRestored(
                        RestoreRefusal.SECRETS_DO_NOT_FIT,
                        "the secrets kept do not open this side's commitment",
                    )
        elif committed is not None:
            raise NotRestored(
                RestoreRefusal.NO_SECRETS, "this side's secrets of that game are not kept"
            )
        session.waiting_since = t.last_at(role) or 0
        session.heard_at = heard_at
        session.lost = ConnectionLost(Code.LOST, "this side's program stopped")
        return session

    def follow(self, frames: Sequence[Frame], events: Sequence[Event], now: int) -> None:
        """Keep this session as the copy of a side another process plays (the daemon, for a
        front end that follows its game through the control socket): ``frames`` join the
        transcript as they joined the other's, checked again, and ``events`` (that session's,
        in order) set here what they set there.  Nothing is said, read or written.

        The turn's clock counts from ``now``, when the copy learnt of each frame.
        Raises ``ProtocolError`` for a frame that does not follow the transcript.
        """
        self.started = True
        for frame in frames:
            self.transcript.add(frame)
            if frame.header.sender is self.role:
                self.waiting_since = now
            else:
                self.last_heard = now
        rules = self.transcript.rules
        if frames and rules is not None and self.fleet is not None:
            self.defence = _replayed_defence(self.transcript, self.role, Defence(rules, self.fleet))
        for event in events:
            if isinstance(event, ConnectionLost):
                self.lost = event
            elif isinstance(event, Resumed):
                self.lost = None
            elif isinstance(event, Failed):
                self.failure = event
            elif isinstance(event, GameClosed):
                self.closed = True
                if self.transcript.ending != event.ending:
                    self._closing = event.ending

    @property
    def secrets(self) -> SideSecrets | None:
        """What this side must keep to play on after its program stops; None before its fleet
        is chosen."""
        if self.fleet is None:
            return None
        return SideSecrets(self.fleet.ships, self._secret, self._coin)

    # ------------------------------------------------------------ the player's actions

    def accept(self, fleet: Fleet, now: int) -> list[Event]:
        """The guest accepts the proposed rules and commits to ``fleet``."""
        self._expect(Phase.DECISION)
        self.set_fleet(fleet)
        self._send(Accept(), now)
        return self._take_events()

    def refuse(self, reason: str, now: int) -> list[Event]:
        self._expect(Phase.DECISION)
        self._send(Refuse(reason[:MAX_TEXT]), now)
        return self._take_events()

    def shoot(self, squares: tuple[int, ...], now: int) -> list[Event]:
        if not self.my_turn:
            raise UsageError(phrase(N_("it is not your turn to shoot")))
        self._send(Shot(tuple(squares)), now)
        return self._take_events()

    def resign(self, now: int) -> list[Event]:
        """Give up the battle.

        The protocol lets a side speak only in its turn, so while the peer is
        to speak the resignation waits: it is sent as this side's next message,
        in place of its next shot or answer (SPEC.md section 8, "Resigning").
        """
        t = self.transcript
        if not may_resign(t.phase) or self.closed:
            raise UsageError(phrase(N_("there is no battle to resign")))
        if t.speaker() is self.role:
            self._send(Resign(), now)
        else:
            self.resigning = True
        return self._take_events()

    def say(self, text: str, now: int) -> list[Event]:
        """Say a line to the peer (SPEC.md section 6, "say"), outside the game's transcript.

        Raises ``TalkRefused`` (its ``code`` says why) when the line breaks a bound
        or there is no one to say it to: before the game has an id, once it is over
        for this side, or while the connection is lost (talk is not kept for later).
        """
        if self.closed:
            raise TalkRefused(Code.OUT_OF_TURN, "the game is over")
        if self.lost is not None:
            raise TalkRefused(Code.LOST, "the connection is lost: nobody hears you")
        t = self.transcript
        game = t.game if len(t.frames) >= 2 else None
        said = self.talk.compose(text, game=game, seen=len(t.frames), now=now)
        frame = sign_say(self.key, said)
        self._outbox += frame.encode()
        self._events.append(TalkSaid(frame))
        return self._take_events()

    def _hear(self, frame: SayFrame, now: int) -> None:
        """The peer's line: heard or dropped, and the game exactly as it was."""
        t = self.transcript
        has_id = len(t.frames) >= 2
        self._events.append(
            self.talk.hear(
                frame,
                game=t.game if has_id else None,
                key=t.key(self.peer) if has_id else None,
                now=now,
            )
        )

    def deadline(self) -> int | None:
        """When the peer will have kept us waiting too long, in ms; None if we are not waiting."""
        speaker = self.transcript.speaker()
        kind = deadline_kind(self.transcript.phase)
        if self.closed or speaker is None or speaker is self.role or kind is None:
            return None
        if kind is Deadline.HELLO:  # the game's limits are not agreed yet: our own
            return self._turn_began() + self.proposed_limits.move_ms
        return self._turn_began() + self.transcript.limit()

    def turn_clock(self) -> tuple[Role, int] | None:
        """Who is to move in the battle or the reveal, and when their time runs out (ms,
        this side's clock): what a screen counts down.  None when no move is timed (the
        hellos, the end).  For the peer it is ``deadline``; for this side the peer counts
        from when it sent its message, a little before it arrived here."""
        speaker = self.transcript.speaker()
        kind = deadline_kind(self.transcript.phase)
        if self.closed or speaker is None or kind is None or kind is Deadline.HELLO:
            return None
        return speaker, self._turn_began() + self.transcript.limit()

    def check_time(self, now: int) -> list[Event]:
        """Act on the peer's silence once ``deadline`` has passed: claim the game on time,
        give up before a game exists, or, with a resignation pending, stop (a forfeit)."""
        due = self.deadline()
        if due is None or now < due:
            return []
        if PHASES[self.transcript.phase].claim is None:  # the hellos: no game to claim yet
            self._stop(Code.TIMEOUT, "no hello in time", now)
        elif self.resigning:
            # Claiming would win what the player gave up; stopping loses it, as chosen.
            self._stop(Code.CLOSED, "this side resigned and the other side did not move", now)
        else:
            self._send(TimeClaim(now - self._turn_began()), now)
        return self._take_events()

    def abort(self, code: Code, detail: str, now: int, *, said: Phrase = SILENCE) -> list[Event]:
        """Stop the game from this side (``closed``: the player quit; ``internal``: a
        local failure): an ``error`` message, from the guest's accept on a forfeit.
        ``detail`` goes on the wire; ``said``, when given, is it for this side's player
        (``Failed.detail_in``), in their language."""
        self._stop(code, detail, now, said=said)
        return self._take_events()

    # ------------------------------------------------------------ receiving

    def _receive(self, envelope: Envelope, now: int) -> None:
        """One frame read to its header: SPEC.md section 3's checks, and what each outcome does."""
        t, header = self.transcript, envelope.header
        if header.sender is self.role:
            # Nobody's word: a peer never has to accept its own messages back.
            detail = f"a frame in this side's own name ({self.role})"
            self._lose(Code.OUT_OF_TURN, detail, now, envelope.encode())
            return
        if self._joined is not None and not t.frames and header.seq != 0:
            self._join_answered(envelope, now)
            return
        if self._from_another_host(envelope):
            self._refuse_host(now)
            return
        place = t.crossed(header, self.role)
        if place is not None:
            self._crossed(envelope, place, now)
            return
        try:
            frame = t.check(envelope)
        except ProtocolError as error:
            if error.refuses:
                self._refuse(envelope, error, now)
                return
            if self._equivocates(envelope):
                self._events.append(Evidence(envelope, Code.BAD_CHAIN, now))
            self._lose(error.code, error.detail, now, envelope.encode())
            return
        if self._joins(frame):
            self._join(frame, now)
            return
        if self._uninvited(frame):
            self._refuse_uninvited()
            return
        if (
            isinstance(frame.message, TimeClaim)
            and t.early_claim(frame) is None
            and now < self._turn_began() + t.limit() - CLAIM_SLACK_MS
        ):
            # Nothing signed can settle whose clock is right: neither accepted nor
            # answered; kept, and this side finishes alone (SPEC.md section 12).
            self._events.append(Evidence(envelope, Code.OUT_OF_TURN, now))
            self._lose(Code.OUT_OF_TURN, "a time claim too early by this side's clock", now)
            return
        t.append(frame)
        # Only a whole accepted message counts as speaking: a peer that trickles
        # bytes never reaches one, and its time runs out.
        self.last_heard = now
        self._events.append(FrameAdded(frame, outgoing=False, got=now))
        self._after(frame, now)

    def _equivocates(self, envelope: Envelope) -> bool:
        """A second message the peer signed for a place where it already said another (SPEC.md
        section 3, "Where a frame fits"): its word twice, kept as evidence of it."""
        t, header = self.transcript, envelope.header
        place = t.place_of(header)
        if place is None or place == len(t.frames):
            return False
        said = t.frames[place]
        if said.header.sender is not header.sender or said.digest == envelope.digest:
            return False  # a frame sent again is no second word
        try:
            t.verify(envelope)
        except ProtocolError:
            return False
        return True

    def _from_another_host(self, envelope: Envelope) -> bool:
        """The guest's check of the host's key: right after reading the host's hello, before
        any other check, so it never answers a host it has not recognised."""
        t = self.transcript
        return (
            self.host_key is not None
            and self.role is Role.GUEST
            and not t.frames
            and t.place_of(envelope.header) == 0
            # A hello whose key cannot be read is no match either.
            and envelope.hello_key != self.host_key
        )

    def _refuse_host(self, now: int) -> None:
        """Not the host the invite names: say nothing, keep nothing; no game, nobody to blame."""
        detail = phrase(N_("the host's key is not the key in the invite: refusing to play"))
        self.failure = Failed(Code.WRONG_KEY, str(detail), by_peer=False, said=detail)
        self._events.append(self.failure)
        self._close(Ending(End.NO_GAME, reason=detail))

    def _joins(self, frame: Frame) -> bool:
        """The host's first hello is of another game than the invite's, and the host says
        others wait: name ours (SPEC.md, section 3, "Admission"), once a connection."""
        hello = frame.message
        return (
            self.role is Role.GUEST
            and isinstance(hello, Hello)
            and self._joined is None
            and wants_join(hello, self.tag_of_invite)
        )

    @property
    def tag_of_invite(self) -> bytes | None:
        """Guest only: the tag of the game its invite admits to; None without a secret."""
        return game_tag(self.invite_secret) if self.invite_secret is not None else None

    def _join(self, frame: Frame, now: int) -> None:
        """Answer the hello with a ``join``; the hello stays out of the transcript and the log,
        for this is no game: the host's next hello, of the game named, begins it."""
        self._joined = frame
        join = Join(public_key_bytes(self.key), frame.digest, self.tag_of_invite, now)
        self._outbox += sign_join(self.key, join).encode()
        self.last_heard = now

    def _join_answered(self, envelope: Envelope, now: int) -> None:
        """Not the named game's hello, but the host's word after the hello joined: its
        ``error`` (``not-invited``: no game here has that tag) ends it, with no game."""
        assert self._joined is not None
        scratch = Transcript()
        scratch.append(self._joined)
        try:
            frame = scratch.check(envelope)
        except ProtocolError as error:
            self._lose(error.code, error.detail, now, envelope.encode())
            return
        if not isinstance(frame.message, Error):
            self._lose(Code.BAD_CHAIN, "the host answered the join with no hello", now)
            return
        self.failure = Failed.reported(frame.message)
        self._events.append(self.failure)
        self._close(Ending(End.NO_GAME, reason=as_is(self.failure.detail)))

    def _uninvited(self, frame: Frame) -> bool:
        """The host's hello admits only the guest it invited, and this guest holds no secret."""
        hello = frame.message
        return (
            self.role is Role.GUEST
            and isinstance(hello, Hello)
            and hello.admit is Admit.INVITE
            and self.invite_secret is None
        )

    def _refuse_uninvited(self) -> None:
        """Nothing to prove with: say nothing, keep nothing; no game, nobody to blame."""
        detail = phrase(N_("this host admits only the guest it invited: ask for the invite line"))
        self.failure = Failed(Code.NO_INVITE, str(detail), by_peer=False, said=detail)
        self._events.append(self.failure)
        self._close(Ending(End.NO_GAME, reason=detail))

    def _refuse(self, envelope: Envelope, error: ProtocolError, now: int) -> None:
        """The peer's word breaking the protocol: keep it, answer it with an ``error`` at its
        place (the transcript then names its sender), and stop."""
        self._events.append(Evidence(envelope, error.code, now))
        self.failure = Failed(error.code, error.detail, by_peer=False, said=error.said)
        self._events.append(self.failure)
        self._send(Error(error.code.value, error.detail[:MAX_TEXT]), now, said=error.said)

    def _crossed(self, envelope: Envelope, place: int, now: int) -> None:
        """A frame the peer sent before it read this side's last messages (SPEC.md section 3).

        If its signature holds it is the peer's word: kept as evidence, never
        answered, never judged here.  An ``error`` ends the game; anything else
        leaves the two transcripts apart for good, so the connection is as lost.
        """
        t = self.transcript
        try:
            t.verify(envelope)
        except ProtocolError as error:
            self._lose(error.code, error.detail, now, envelope.encode())
            return
        unsigned = t.key(envelope.header.sender) is None  # the guest's error as message 0
        if not unsigned:
            self._events.append(Evidence(envelope, Code.BAD_CHAIN, now))
        if envelope.type != Error.TYPE:
            detail = f"the {self.peer}'s message {place} crossed this side's"
            self._lose(Code.BAD_CHAIN, detail, now)
            return
        try:
            message = envelope.open().message
            assert isinstance(message, Error)
            self.failure = Failed.reported(message)
        except ProtocolError as error:
            self.failure = Failed(None, error.detail, by_peer=True, unknown_code="unreadable")
        self._events.append(self.failure)
        what = phrase(
            N_(
                "the {peer} stopped the game at message {place}, crossing this side's"
                " ({code}: {detail})"
            ),
            peer=role_term(self.peer),
            place=place,
            code=self.failure.code_text,
            detail=self.failure.detail,
        )
        ending = t.ending_if_stopped(self.peer, place, what)
        if ending.end is End.NO_GAME and self.failure.code is Code.CLOSED:
            # Its stop before the rules were accepted is only the peer leaving (as in
            # ``Transcript``): no code, no detail for a player to read as damage.
            left = phrase(
                N_("the {sender} left before the game began"), sender=role_term(self.peer)
            )
            ending = dataclasses.replace(ending, reason=left)
        self._close(ending)

    def _lose(self, code: Code, detail: str, now: int, data: bytes = b"") -> None:
        """The connection is lost: from here on this side plays alone (or, before a game
        exists, there is no game to play)."""
        if not self.connected:
            return
        self.lost = ConnectionLost(code, detail, data[:MAX_FRAME])
        self._events.append(self.lost)
        if self.transcript.phase in HELLO_PHASES:
            reason = phrase(N_("the connection was lost: {detail}"), detail=detail)
            if code is Code.LOST:  # the peer closed (or the network failed): nothing to damage
                reason = phrase(
                    N_("the {sender} left before the game began"), sender=role_term(self.peer)
                )
            self._close(Ending(End.NO_GAME, reason=reason))

    # ------------------------------------------------------------ internals

    def _turn_began(self) -> int:
        """When the side now to speak began its turn: the later of our last message and
        the last one we accepted from the peer (or the start)."""
        return max(self.last_heard, self.waiting_since)

    def _expect(self, phase: Phase) -> None:
        if (
            self.closed
            or self.transcript.phase is not phase
            or self.transcript.speaker() is not self.role
        ):
            at = str(self.transcript.phase)  # the protocol's own name of a phase
            raise UsageError(phrase(N_("not now: the game is at {phase}"), phase=at))

    def _take_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def _hello(self) -> Hello:
        host = self.role is Role.HOST
        proof = None
        if not host and self.invite_secret is not None:
            host_hello = self.transcript.frames[0].body
            proof = guest_proof(self.invite_secret, host_hello, public_key_bytes(self.key))
        return Hello(
            protocol=PROTOCOL_VERSION,
            software=self.software[:MAX_TEXT],
            key=public_key_bytes(self.key),
            name=self.name[:MAX_TEXT],
            nonce=self.entropy(32),
            caps=self.caps,
            rules=self.proposed_rules.to_map() if host and self.proposed_rules else None,
            limits=self.proposed_limits.to_map() if host else None,
            first=self.proposed_first if host else None,
            admit=self.admit if host else None,
            proof=proof,
            tag=self.tag if host else None,
            join=self.joinable if host else False,
        )

    def _send(
        self, message: Message, now: int, *, vouched: bool = False, said: Phrase = SILENCE
    ) -> None:
        """Sign ``message`` into the transcript; send it, unless the connection is lost.

        ``vouched``: this side composed it honestly; ``said``: an error's detail in this
        side's words (both ``Transcript.append``)."""
        if self.closed:
            raise UsageError(phrase(N_("the game is over")))
        transcript = self.transcript
        header = Header(
            self.role, len(transcript.frames), transcript.last_digest, transcript.game, now
        )
        try:
            frame = transcript.add(
                sign(self.key, header, message), signed_here=True, vouched=vouched, said=said
            )
        except ProtocolError as error:
            said = phrase(
                N_("cannot send {message}: {detail}"),
                message=Term(message.TYPE, "message"),
                detail=error.said,
            )
            raise UsageError(said) from None
        if self.lost is None:
            self._outbox += frame.encode()
        self.waiting_since = now
        self._events.append(FrameAdded(frame, outgoing=True))
        self._after(frame, now)

    def _stop(self, code: Code, detail: str, now: int, *, said: Phrase = SILENCE) -> None:
        """This side stops the game with an ``error`` (written alone if the connection is lost)."""
        if self.closed:
            return
        self.failure = Failed(code, detail, by_peer=False, said=said)
        self._events.append(self.failure)
        self._send(Error(code.value, detail[:MAX_TEXT]), now, said=said)

    def _close(self, ending: Ending) -> None:
        self.closed = True
        if self.transcript.ending != ending:
            self._closing = ending
        self._events.append(GameClosed(ending, tuple(self.transcript.findings)))

    def _after(self, frame: Frame, now: int) -> None:
        """Announce what the frame changed, then say whatever this side must say next."""
        self._announce(frame)
        t = self.transcript
        if t.complete:
            ending = t.ending
            assert ending is not None, "every complete transcript has an ending"
            self._close(ending)
            return
        if t.speaker() is self.role:
            self._speak(now)

    def _announce(self, frame: Frame) -> None:
        for event in announced(frame, self.transcript, self.role):
            if isinstance(event, Failed):
                self.failure = event
            self._events.append(event)

    def _speak(self, now: int) -> None:
        """Say what the protocol makes this side say without the player, or ask the player."""
        phase = self.transcript.phase
        if self.resigning:
            self.resigning = may_resign(phase)
            if self.resigning:
                # The resignation asked for in the peer's turn: this side's next message.
                self.resigning = False
                message = self.behaviour.say(self, Resign())
                if message is not None:
                    self._send(message, now)
                return
        own_word = PHASES[phase].own_word
        if own_word is None:
            self._ask_player(phase)
            return
        composers: dict[type[Message], Callable[[], Message]] = {
            Hello: self._hello,
            Commit: self._commit,
            Coin: lambda: Coin(self._coin),
            Reply: self._reply,
            Reveal: self._reveal,
            Verdict: self._verdict,
        }
        composed = composers[own_word]()
        message = self.behaviour.say(self, composed)
        if message is not None:
            # An honest side's own answer and reveal need no look for lies (``Transcript.append``).
            self._send(message, now, vouched=message is composed and self.honest)

    def _ask_player(self, phase: Phase) -> None:
        t = self.transcript
        if phase is Phase.DECISION:
            assert t.rules is not None
            proposal = t.sides[Role.HOST].hello
            first = proposal.first if proposal is not None else None
            self._events.append(RulesProposed(t.rules, t.limits, first))
        elif phase is Phase.SHOOT:
            self._events.append(YourTurn(self.shots_due))

    def _commit(self) -> Commit:
        if self.fleet is None:
            raise UsageError(phrase(N_("set the fleet before the game starts")))
        rules = self.transcript.rules
        assert rules is not None
        # A session restored before its commit was logged keeps the secret it kept.
        self._secret = self._secret or self.entropy(SECRET_SIZE)
        self.commitment = FleetCommitment(
            self.transcript.game, self._secret, self.fleet.board, rules.size**2
        )
        game = self.transcript.game
        return Commit(
            self.commitment.root,
            ships_digest(game, self._secret, self.fleet.ships),
            coin_commitment(game, self.role.value, self._coin),
        )

    def _reply(self) -> Reply:
        pending = self.transcript.pending
        assert pending is not None and self.defence is not None
        squares = pending.squares
        answer, self.defence = self.defence.answer(squares)
        answer = self.behaviour.answer(self, squares, answer)
        proofs = self.behaviour.proofs(self, squares, tuple(self._proofs(squares, answer)))
        return Reply(answer, proofs)

    def _proofs(self, squares: tuple[int, ...], answer: Answer) -> list[Opening]:
        rules = self.transcript.rules
        sea = self.transcript.sides[self.peer].sea
        assert rules is not None and sea is not None and self.commitment is not None
        if not tells_cells(rules):
            return []
        try:
            marked = self.transcript.sea_after(sea, squares, answer).marked & ~sea.marked
        except UsageError:
            marked = 0
        opened = self.transcript.sides[self.role].opened
        wanted = dict.fromkeys([*squares, *squares_of(marked)])
        return [self.commitment.open(s) for s in wanted if s not in opened]

    def _reveal(self) -> Reveal:
        assert self.fleet is not None
        return Reveal(self.fleet.ships, self._secret)

    def _verdict(self) -> Verdict:
        t = self.transcript
        # A cheat's findings can be many and long; the verdict must stay decodable.
        findings = tuple(str(f.detail)[:MAX_TEXT] for f in t.findings_against(self.peer))[
            :MAX_FINDINGS
        ]
        assert t.end is not None, "the verdicts come after the end of the battle"
        return Verdict(t.winner, t.end.value, findings)


def announced(frame: Frame, t: Transcript, role: Role) -> list[Event]:
    """What ``frame``, just added to ``t``, tells ``role``'s player: the one place that
    decides it, for a frame as it comes (``Session``) and for one replayed from a log
    (``statki_net.protocol.replay``)."""
    message, sender, peer = frame.message, frame.header.sender, role.other
    events: list[Event] = []
    if isinstance(message, Hello) and sender is peer:
        events.append(PeerHello(sender, message))
    if isinstance(message, Coin) and t.phase is Phase.SHOOT and t.move == 0:
        assert t.score is not None
        events.append(GameStarted(Role.HOST if t.score.to_move == 0 else Role.GUEST))
    if isinstance(message, Reply):
        shooter = sender.other
        volley = t.sides[shooter].volleys[-1]
        events.append(VolleyDone(shooter, volley.move, volley.shots, volley.answer))
    ending = t.ending
    if isinstance(message, Reply | Resign | TimeClaim) and ending is not None:
        events.append(BattleOver(ending))
    if isinstance(message, Error) and sender is peer:
        events.append(Failed.reported(message))
    return events


def _replayed_defence(t: Transcript, role: Role, defence: Defence) -> Defence:
    """``role``'s sea after answering, truthfully, every volley of the peer it answered."""
    for volley in t.sides[role.other].volleys:
        _, defence = defence.answer(volley.shots)
    return defence

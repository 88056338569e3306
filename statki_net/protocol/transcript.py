"""The transcript: one game's messages in order, and the rules they must obey.

``Transcript`` is the protocol's state machine as both a peer and a referee
see it (SPEC.md section 8): it holds no secrets and no role of its own, and
takes frames one at a time.  ``add`` runs the checks of SPEC.md section 3 from
the fit on (the fit, the signature, the message, the turn, the content) and
either appends the frame or raises ``ProtocolError``, whose ``check`` tells
whether the frame was its sender's word at all.  Who may speak in each phase
and what each message leads to is the table in ``phases``.

A frame that is well formed but shows cheating (a false answer, a reveal that
does not open the commitment, an early time claim) is appended, because the
signed lie is the evidence, and recorded in ``findings``.  A frame that is its
sender's word but breaks the protocol is *refused*: it is not appended, but
the transcript remembers it (``refused``), since the ``error`` that answers
it at the same place makes its sender forfeit.

Every game ends in one of the ways of SPEC.md section 8 ("Endings"); the
transcript keeps the one its frames decide as ``ending``.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field

from statki_net.game.battle import (
    Answer,
    Outcome,
    Score,
    Sea,
    check_answer_shape,
    hits_of,
    tells_cells,
)
from statki_net.game.board import bit, square_name, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, fleet_from_lists
from statki_net.game.replay import Volley, replay
from statki_net.game.rules import RulesError, Ruleset, Touching
from statki_net.game.words import N_, SILENCE, Fact, Phrase, as_is, joined, phrase
from statki_net.protocol.bounds import proposal_problems
from statki_net.protocol.commitment import (
    Opening,
    coin_commitment,
    commitment_root,
    path_length,
    ships_digest,
    toss,
)
from statki_net.protocol.endings import End, Ending, message_term, role_term
from statki_net.protocol.errors import Check, Code, ProtocolError
from statki_net.protocol.phases import (
    OPENING_PHASES,
    PHASES,
    VERDICT_PHASES,
    Claim,
    Deadline,
    Phase,
    Speaker,
    deadline_kind,
    may_say,
    next_phase,
    phase_term,
    speaker_kind,
)
from statki_net.protocol.wire import (
    GENESIS,
    MAX_FRAME,
    Accept,
    Admit,
    AnyFrame,
    Coin,
    Commit,
    Envelope,
    Error,
    Frame,
    Header,
    Hello,
    Limits,
    Refuse,
    Reply,
    Resign,
    Reveal,
    Role,
    Shot,
    TimeClaim,
    Verdict,
    fail,
    game_id,
    read_envelope,
    read_limits,
    reads_back_as_built,
    signature_valid,
)

PLAYER = {Role.HOST: 0, Role.GUEST: 1}
ROLE = (Role.HOST, Role.GUEST)


class FindingKind(enum.StrEnum):
    """What a finding shows a side did."""

    FALSE_ANSWER = "false-answer"
    """An answer its proofs, its totals or the revealed fleet contradict."""
    BAD_REVEAL = "bad-reveal"
    """A reveal that does not open the commitment."""
    ILLEGAL_FLEET = "illegal-fleet"
    """A fleet the rules forbid, seen at the reveal or in a sunk ship's length."""
    EARLY_CLAIM = "early-claim"
    """A time claim its claimant's own signed numbers contradict (SPEC.md section 12)."""


@dataclass(frozen=True)
class Finding:
    """Something a side did wrong that the transcript proves."""

    culprit: Role
    kind: FindingKind
    detail: Phrase
    move: int | None = None
    square: int | None = None


@dataclass(frozen=True)
class Refusal:
    """The sender's word the transcript refused at its end, and why (SPEC.md section 3)."""

    frame: Envelope
    code: Code


@dataclass(frozen=True)
class Settled:
    """How the game stood, as far as its ending goes, before one of its frames."""

    phase: Phase
    end: End | None
    winner: Role | None
    culprits: frozenset[Role]
    reason: Phrase


@dataclass
class Side:
    """What the transcript knows of one side."""

    hello: Hello | None = None
    commit: Commit | None = None
    coin: bytes | None = None
    volleys: list[Volley] = field(default_factory=list)
    """The volleys this side fired, with the answers it got."""
    sea: Sea | None = None
    """This side's view of the opponent's sea."""
    opened: dict[int, bool] = field(default_factory=dict)
    """Squares of this side's board opened by proofs so far: True for a ship."""
    fleet: Fleet | None = None
    verdict: Verdict | None = None


class Transcript:
    """One game's frames in order, checked as they come; see the module docstring."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.phase = Phase.HOST_HELLO
        self.sides = {Role.HOST: Side(), Role.GUEST: Side()}
        self.game = b""
        self.rules: Ruleset | None = None
        self.limits = Limits()
        self.score: Score | None = None
        self.first: Role | None = None
        """Who shot first, once the battle began (agreed in the host's hello, or tossed)."""
        self.pending: Shot | None = None
        self.move = 0
        """Volleys fired so far; the current one's number while it is answered."""
        self.end: End | None = None
        self.winner: Role | None = None
        self.culprits: frozenset[Role] = frozenset()
        """The sides the ending blames (SPEC.md section 8, "Endings")."""
        self.reason = Phrase()
        self.undecided_at: int | None = None
        """The claim that voided the game while the guest decided on the rules (its
        message number): the reason then reads differently to the guest (``reason_to``)."""
        self.left_at: tuple[Role, int] | None = None
        """A side that stopped the game itself (``closed``) before the guest's accept, and
        its message: the other side reads that it left (``reason_to``), in its own words,
        not the sender's English detail."""
        self.first_revealer: Role | None = None
        self.findings: list[Finding] = []
        self.found_at: list[int] = []
        """For each finding, the index of the frame that made it."""
        self.cheaters: set[Role] = set()
        """The sides some finding names."""
        self.error: Error | None = None
        self.error_from: Role | None = None
        self.refused: Refusal | None = None
        """The sender's word refused at the end of the transcript, if any: an ``error``
        from the other side at the same place answers it."""
        self.settled: list[Settled] = []
        """How the game stood before each frame: what a stop at that place would decide."""
        self._after: tuple[Sea, tuple[int, ...], Answer, Sea] | None = None
        """The last view ``sea_after`` made, with what it was made of."""
        self._speaker = self._who_speaks()

    # ------------------------------------------------------------ copies

    def copy(self) -> Transcript:
        """A copy that takes frames apart from this one (a referee's fork, a test's)."""
        return copy.deepcopy(self, self.shared_parts())

    def shared_parts(self) -> dict[int, object]:
        """What a copy shares with this transcript, as ``copy.deepcopy``'s memo: the
        frames and their messages, the volleys and the settled standings are frozen,
        and walking them one by one was most of a copy's time, however long the game."""
        parts: list[object] = [*self.settled]
        for frame in self.frames:
            parts += (frame, frame.message)
        for side in self.sides.values():
            parts += side.volleys
        return {id(part): part for part in parts}

    # ------------------------------------------------------------ who speaks

    def speaker(self) -> Role | None:
        """Who must send the next message, or None when the game is complete."""
        # Asked some seven times a frame; what it depends on changes only in ``append``.
        return self._speaker

    def _who_speaks(self) -> Role | None:
        match speaker_kind(self.phase):
            case Speaker.HOST:
                return Role.HOST
            case Speaker.GUEST:
                return Role.GUEST
            case Speaker.NOBODY:
                return None
            case Speaker.FIRST | Speaker.SECOND as who:
                assert self.first_revealer is not None
                first = self.first_revealer
                return first if who is Speaker.FIRST else first.other
            case Speaker.SHOOTER | Speaker.DEFENDER as who:
                assert self.score is not None
                shooter = ROLE[self.score.to_move]
                return shooter if who is Speaker.SHOOTER else shooter.other

    @property
    def complete(self) -> bool:
        """Nothing more may be said: the last message of the game is in (phase ``done``)."""
        return self.phase is Phase.DONE

    @property
    def ended(self) -> bool:
        """The game's end is known.  Reveals (which may still change the winner) and
        verdicts may follow; see ``complete``."""
        return self.end is not None

    @property
    def accepted(self) -> bool:
        """The guest has accepted the rules: from here on, something is at stake."""
        return any(isinstance(frame.message, Accept) for frame in self.frames)

    @property
    def ending(self) -> Ending | None:
        """How the game ended, once it has; None while it goes on."""
        if self.end is None:
            return None
        return Ending(self.end, self.winner, self.culprits, self.reason)

    def reason_to(self, reader: Role) -> Phrase:
        """The ending's reason as ``reader``'s player reads it: the guest whose decision
        timed out is told "you did not decide", not of "the guest"; a side whose opponent
        stopped before the guest's accept, that it left, not the opponent's own English
        detail.  Logs, a referee and the other side keep ``reason``."""
        if self.undecided_at is not None and reader is Role.GUEST:
            return phrase(
                N_("you did not decide on the rules in time (message {seq})"),
                seq=self.undecided_at,
            )
        if self.left_at is not None and self.left_at[0] is not reader:
            sender, seq = self.left_at
            return phrase(
                N_("the {sender} left before the battle: no game began (message {seq})"),
                sender=role_term(sender),
                seq=seq,
            )
        return self.reason

    def limit(self, phase: Phase | None = None) -> int:
        """The limit a silence counts against in ``phase`` (now, by default), in ms: the
        move limit until the battle has ended, the reveal limit after (SPEC.md section 12)."""
        kind = deadline_kind(self.phase if phase is None else phase)
        return self.limits.reveal_ms if kind is Deadline.REVEAL else self.limits.move_ms

    @property
    def last_digest(self) -> bytes:
        return self.frames[-1].digest if self.frames else GENESIS

    def key(self, role: Role) -> bytes | None:
        hello = self.sides[role].hello
        return hello.key if hello else None

    def last_at(self, role: Role) -> int | None:
        """The ``at`` of ``role``'s last message, by its own clock; None before it spoke."""
        for frame in reversed(self.frames):
            if frame.header.sender is role:
                return frame.header.at
        return None

    # ------------------------------------------------------------ where a frame fits

    def place_of(self, header: Header) -> int | None:
        """Where a frame with this header fits the chain: its ``seq`` when its ``prev`` (and,
        from message 2 on, its ``game``) match the messages before that place; None when
        it fits nowhere.  At the end when it is ``len(frames)``."""
        place = header.seq
        if place > len(self.frames):
            return None
        parent = self.frames[place - 1].digest if place else GENESIS
        if header.prev != parent or (place >= 2 and header.game != self.game):
            return None
        return place

    def _misplaced(self, header: Header) -> Phrase:
        """Why a frame does not fit at the end, in one sentence (the referee names the frame)."""
        due = len(self.frames)
        if header.seq != due:
            return phrase(
                N_("it is numbered {seq} where message {due} was due"), seq=header.seq, due=due
            )
        if due == 0:
            return phrase(N_("it is numbered 0 but does not begin a game"))
        return phrase(
            N_("it is numbered {due} but does not follow message {before} in the chain"),
            due=due,
            before=due - 1,
        )

    def crossed(self, header: Header, own: Role) -> int | None:
        """The place of a frame that crossed ``own``'s last messages on the wire: one that
        fits before the end, where every message from there on is ``own``'s
        (SPEC.md section 3, "Where a frame fits"); None for any other frame."""
        if header.seq >= len(self.frames):  # at the end, or beyond it: no crossing
            return None
        place = self.place_of(header)
        if place is None:
            return None
        if any(frame.header.sender is not own for frame in self.frames[place:]):
            return None
        return place

    def verify(self, frame: AnyFrame, *, signature_later: bool = False) -> None:
        """Step 4: the signature verifies with the key of the side the frame names.

        That is the key of that side's hello, or, for the hello that brings it,
        the key the hello carries.  The one frame taken without a signature is
        the guest's ``error`` as message 0, sent before the guest had a key: it
        proves nothing of who sent it (SPEC.md section 5).  ``signature_later``
        checks that a key is there but leaves the signature itself to the
        caller, who checks a later one that covers it (SPEC.md section 16).
        """
        header = frame.header
        key = self.key(header.sender)
        if key is None and frame.type == Hello.TYPE:
            key = frame.hello_key
            if key is None:
                raise fail(
                    Code.BAD_FIELD, phrase(N_("a hello must carry a 32-byte key")), Check.SIGNATURE
                )
        if key is None:
            if header.sender is Role.GUEST and header.seq == 0 and frame.type == Error.TYPE:
                return
            raise fail(
                Code.BAD_SIGNATURE,
                phrase(N_("the {sender} has no key to sign with"), sender=role_term(header.sender)),
                Check.SIGNATURE,
            )
        if not signature_later and not signature_valid(key, frame):
            raise fail(
                Code.BAD_SIGNATURE,
                phrase(
                    N_("the {sender}'s signature does not verify"), sender=role_term(header.sender)
                ),
                Check.SIGNATURE,
            )

    # ------------------------------------------------------------ adding frames

    def check(
        self, item: Envelope | Frame, *, signed_here: bool = False, signature_later: bool = False
    ) -> Frame:
        """Every check of a frame at the end of the chain but those that make findings.

        Returns the frame read in full, ready for ``append``.  Raises
        ``ProtocolError`` and leaves the transcript as it was, except that a
        frame refused at steps 5-7 (its sender's word breaking the protocol) is
        kept as ``refused``.  ``signed_here`` is for a frame this side has just
        signed: its signature is not checked again, and it is never kept as
        refused (it is not sent).  ``signature_later`` is for a referee that
        checks a later signature of the frame's side instead (see ``verify``).
        """
        if self.complete:
            raise fail(Code.OUT_OF_TURN, "the game is over", Check.PLACE)
        if (
            signed_here
            and isinstance(item, Frame)
            and len(item.body) <= MAX_FRAME
            and reads_back_as_built(item.header, item.message)
        ):
            # This side's own shot or answer, of values its bytes are known to read back as
            # (``reads_back_as_built``): what reading them would give is what it holds.  The
            # size is the one refusal the values cannot say; no answer within the rules'
            # bounds comes near it, but the path must accept exactly what a read-back would.
            if self.place_of(item.header) != len(self.frames):
                raise fail(Code.BAD_CHAIN, self._misplaced(item.header), Check.PLACE)
            self._check_turn(item)
            self._check_content(item)
            return item
        envelope = (
            item if isinstance(item, Envelope) else read_envelope([item.body, item.signature])
        )
        if self.place_of(envelope.header) != len(self.frames):
            raise fail(Code.BAD_CHAIN, self._misplaced(envelope.header), Check.PLACE)
        if not signed_here:
            self.verify(envelope, signature_later=signature_later)
        try:
            frame = envelope.open()
            self._check_turn(frame)
            self._check_content(frame)
        except ProtocolError as error:
            if not signed_here:
                self.refused = Refusal(envelope, error.code)
            raise
        return frame

    def append(self, frame: Frame, *, vouched: bool = False, said: Phrase = SILENCE) -> None:
        """Append a frame ``check`` has passed: its findings, its ending, the next phase.

        ``said`` is an ``error`` this side sends, its detail as its own player reads it:
        the ending then quotes it in that player's words, not the wire's English.

        ``vouched`` is for a frame its own side composed honestly from what only it
        knows: an answer its fleet gave, with openings of its own tree; a reveal of the
        fleet and secret it committed with.  Nothing in such a frame can be a finding,
        so the look for lies in it is not made again: the openings' roots, the answer's
        totals, the reveal's tree (its side built that very tree to commit) and the
        replay of its answers (its fleet gave them).  The peer makes all of them of the
        frame, as a referee does; the state the frame leads to is the same.
        """
        self.settled.append(Settled(self.phase, self.end, self.winner, self.culprits, self.reason))
        self._apply(frame, vouched, said)
        self._speaker = self._who_speaks()
        self.frames.append(frame)
        self.refused = None

    def add(
        self,
        item: Envelope | Frame,
        *,
        signed_here: bool = False,
        signature_later: bool = False,
        vouched: bool = False,
        said: Phrase = SILENCE,
    ) -> Frame:
        """``check`` the frame, then ``append`` it; returns it as read."""
        frame = self.check(item, signed_here=signed_here, signature_later=signature_later)
        self.append(frame, vouched=vouched and signed_here, said=said if signed_here else SILENCE)
        return frame

    def _check_turn(self, frame: Frame) -> None:
        sender, message = frame.header.sender, frame.message
        if isinstance(message, Error):
            return
        speaker = self.speaker()
        if isinstance(message, TimeClaim):
            if PHASES[self.phase].claim is None or sender == speaker:
                raise fail(
                    Code.OUT_OF_TURN,
                    phrase(N_("only the side kept waiting may claim on time")),
                    Check.TURN,
                )
            return
        if sender != speaker:
            raise fail(
                Code.OUT_OF_TURN,
                phrase(
                    N_("{type} from the {sender}, but it is the {speaker}'s turn"),
                    type=message_term(message.TYPE),
                    sender=role_term(sender),
                    speaker=role_term(speaker) if speaker else str(speaker),
                ),
                Check.TURN,
            )
        if not may_say(self.phase, type(message)):
            raise fail(
                Code.OUT_OF_TURN,
                phrase(
                    N_("{type} is not allowed in phase {phase}"),
                    type=message_term(message.TYPE),
                    phase=phase_term(self.phase),
                ),
                Check.TURN,
            )

    def _check_content(self, frame: Frame) -> None:
        """Step 7's errors: a message of the right kind, in turn, that cannot stand here."""
        sender, message = frame.header.sender, frame.message
        match message:
            case Hello() if sender is Role.HOST:
                self._proposal(message)
                self._tag_fits(message)
            case Hello():
                if message.key == self.key(Role.HOST):
                    raise fail(
                        Code.BAD_FIELD, phrase(N_("both sides use the same key")), Check.CONTENT
                    )
            case Coin():
                commit = self.sides[sender].commit
                assert commit is not None
                if coin_commitment(self.game, sender.value, message.coin) != commit.coin:
                    raise fail(
                        Code.BAD_FIELD,
                        phrase(N_("the coin does not open the coin commitment")),
                        Check.CONTENT,
                    )
            case Shot():
                assert self.rules is not None and self.score is not None
                due = self.score.shots_due()
                if len(message.squares) != due:
                    raise fail(
                        Code.BAD_SHOT,
                        phrase(
                            N_("{shots} shot(s) where {due} are due"),
                            shots=len(message.squares),
                            due=due,
                        ),
                        Check.CONTENT,
                    )
                area = self.rules.size**2
                squares = message.squares  # as many as are due: at least one
                if min(squares) < 0 or max(squares) >= area:
                    raise fail(Code.BAD_SHOT, phrase(N_("a shot is off the board")), Check.CONTENT)
            case Reply():
                assert self.rules is not None and self.pending is not None
                try:
                    check_answer_shape(self.rules, self.pending.squares, message.answer)
                except UsageError as error:
                    raise fail(Code.BAD_ANSWER, str(error), Check.CONTENT) from None
            case _:
                pass

    @staticmethod
    def _proposal(hello: Hello) -> tuple[Ruleset, Limits]:
        """The host's rules and limits, read and bounded (SPEC.md sections 6 and 7)."""
        if hello.rules is None or hello.limits is None:
            raise fail(
                Code.BAD_FIELD,
                phrase(N_("the host's hello must propose rules and limits")),
                Check.CONTENT,
            )
        try:
            rules = Ruleset.from_map(hello.rules)
        except RulesError as error:
            raise fail(Code.BAD_FIELD, error.as_phrase(), Check.CONTENT) from None
        limits = read_limits(hello.limits)
        problems = proposal_problems(rules, limits)
        if problems:
            said = phrase(N_("out of bounds: {problems}"), problems=joined(problems, "; "))
            raise fail(Code.BAD_FIELD, said, Check.CONTENT)
        return rules, limits

    @staticmethod
    def _tag_fits(hello: Hello) -> None:
        """A host hello that admits by invite names its game by its tag, one open to anyone
        has none (SPEC.md section 6, ``tag``): another is a required key missing, or one
        where none may be."""
        if (hello.admit is Admit.INVITE) != (hello.tag is not None):
            raise fail(
                Code.BAD_FIELD,
                phrase(N_("a host's hello carries a tag exactly when it admits by invite")),
                Check.CONTENT,
            )

    def _apply(self, frame: Frame, vouched: bool, said: Phrase) -> None:
        sender, message = frame.header.sender, frame.message
        side = self.sides[sender]
        match message:
            case Hello():
                self._hello(frame, message)
            case Accept():
                pass
            case Refuse():
                self._settle(
                    End.REFUSED,
                    None,
                    frozenset(),
                    _declined(message.reason),
                )
            case Commit():
                side.commit = message
            case Coin():
                self._coin(sender, message)
            case Shot():
                self.pending = message
                self.move += 1
            case Reply():
                self._reply(sender, message, vouched)
            case Resign():
                self._finish_battle(
                    End.RESIGNED,
                    sender.other,
                    phrase(N_("the {sender} resigned"), sender=role_term(sender)),
                )
            case TimeClaim():
                self._time_claim(frame, message)
            case Reveal():
                self._reveal(sender, message, vouched)
            case Verdict():
                side.verdict = message
            case Error():
                self._error(frame, message, said)
        self.phase = next_phase(self.phase, type(message), self.end)

    # ------------------------------------------------------------ the handshake

    def _hello(self, frame: Frame, hello: Hello) -> None:
        sender = frame.header.sender
        if sender is Role.HOST:
            self.rules, self.limits = self._proposal(hello)
        self.sides[sender].hello = hello
        if sender is Role.GUEST:
            self.game = game_id(self.frames[0].body, frame.body)

    def _coin(self, sender: Role, message: Coin) -> None:
        self.sides[sender].coin = message.coin
        if sender is Role.GUEST:
            host_coin = self.sides[Role.HOST].coin
            assert host_coin is not None
            agreed = self.sides[Role.HOST].hello
            first = agreed.first if agreed is not None else None
            self._start(first or Role(toss(self.game, host_coin, message.coin)))

    def _start(self, first: Role) -> None:
        assert self.rules is not None
        self.first = first
        self.score = Score(self.rules, to_move=PLAYER[first])
        for side in self.sides.values():
            side.sea = Sea(self.rules)

    # ------------------------------------------------------------ play

    def _reply(self, defender: Role, reply: Reply, vouched: bool) -> None:
        assert self.rules is not None and self.score is not None and self.pending is not None
        shooter = defender.other
        squares = self.pending.squares
        side = self.sides[shooter]
        assert side.sea is not None
        before = side.sea
        answer = reply.answer
        after = self.sea_after(before, squares, answer, shaped=True)  # ``check``'s content
        lie = None
        if vouched:  # true openings of its own tree: taken as they are (see ``append``)
            opened = self.sides[defender].opened
            for opening in reply.proofs:
                opened[opening.square] = opening.ship
        else:
            lie = self._check_proofs(defender, squares, reply, before, after)
            if lie is None and (answer.hits or answer.sunk):
                # Without a hit or a sink the totals are those the last answer passed with.
                lie = self._check_tally(defender, after)
        side.sea = after
        side.volleys.append(Volley(self.move, squares, answer))
        self.score = self.score.after(answer)
        self.pending = None
        if lie is not None:
            self.findings.append(lie)
            self.found_at.append(len(self.frames))
            self.cheaters.add(defender)
            self._finish_battle(End.CHEATED, shooter, lie.detail)
        elif self.score.over:
            self._finish_battle(
                End.SUNK,
                shooter,
                phrase(N_("the {shooter} sank the whole fleet"), shooter=role_term(shooter)),
            )

    def sea_after(
        self, before: Sea, squares: tuple[int, ...], answer: Answer, *, shaped: bool = False
    ) -> Sea:
        """``before.apply(squares, answer)``, made once for the volley being answered: the
        defender asks for it to know what its proofs must open, then adds its answer.
        ``shaped``: the answer's shape is checked already (``check_answer_shape``)."""
        kept = self._after
        if kept is not None and kept[0] is before and kept[1] == squares and kept[2] == answer:
            return kept[3]
        after = before.applied(squares, answer) if shaped else before.apply(squares, answer)
        self._after = (before, squares, answer, after)
        return after

    def _check_tally(self, defender: Role, after: Sea) -> Finding | None:
        """Totals no honest fleet can give: they show a lie on the move, proofs or not."""
        rules = self.rules
        assert rules is not None

        def lie(kind: FindingKind, detail: Phrase) -> Finding:
            return Finding(defender, kind, detail, self.move)

        sunk = len(after.sunk_ships)
        if hits_of(after) > rules.ship_cells or sunk > len(rules.fleet):
            return lie(
                FindingKind.FALSE_ANSWER,
                phrase(
                    N_("more hits or sinks than the fleet has ({cells} squares)"),
                    cells=rules.ship_cells,
                ),
            )
        if hits_of(after) == rules.ship_cells and sunk < len(rules.fleet):
            return lie(
                FindingKind.FALSE_ANSWER,
                phrase(
                    N_(
                        "all {cells} ship squares are hit, yet only {sunk} of {ships} ships"
                        " were announced sunk"
                    ),
                    cells=rules.ship_cells,
                    sunk=sunk,
                    ships=len(rules.fleet),
                ),
            )
        if len(set(after.sunk_names)) != len(after.sunk_names):
            return lie(FindingKind.FALSE_ANSWER, phrase(N_("a ship was announced sunk twice")))
        known = [len(ship) for ship in after.sunk_ships if ship]
        if (
            rules.touching is not Touching.ANY
            and tells_cells(rules)
            and not _fits(known, rules.fleet)
        ):
            return lie(
                FindingKind.ILLEGAL_FLEET,
                phrase(N_("a sunk ship of {cells} squares is not in the fleet"), cells=known[-1]),
            )
        return None

    def _check_proofs(
        self, defender: Role, squares: tuple[int, ...], reply: Reply, before: Sea, after: Sea
    ) -> Finding | None:
        """The first claim of the answer its proofs do not back, as a finding."""
        assert self.rules is not None
        commit = self.sides[defender].commit
        assert commit is not None
        opened = self.sides[defender].opened
        size = self.rules.size

        def lie(detail: Phrase, square: int | None) -> Finding:
            return Finding(defender, FindingKind.FALSE_ANSWER, detail, self.move, square)

        given: dict[int, Opening] = {}
        area = size * size
        for opening in reply.proofs:
            if opening.square >= area or len(opening.path) != path_length(area):
                return lie(
                    phrase(
                        N_("the proof for square {square} has the wrong shape"),
                        square=opening.square,
                    ),
                    None,
                )
            if opening.root(self.game) != commit.fleet:
                return lie(
                    phrase(
                        N_("the proof for {square} does not open the commitment"),
                        square=_name(opening.square, size),
                    ),
                    opening.square,
                )
            given[opening.square] = opening
        for square, opening in given.items():
            opened[square] = opening.ship
        if not tells_cells(self.rules):
            return None
        claims: dict[int, bool] = {}
        seen = before.shot
        for square, outcome in zip(squares, reply.answer.outcomes, strict=True):
            if seen & bit(square):
                if outcome is not Outcome.MISS:
                    return lie(
                        phrase(
                            N_("{square} was shot before, so it counts as a miss"),
                            square=_name(square, size),
                        ),
                        square,
                    )
                continue
            seen |= bit(square)
            claims[square] = outcome is not Outcome.MISS
        for square in squares_of(after.marked & ~before.marked):
            claims[square] = False
        for square, ship in claims.items():
            if square not in opened:
                return lie(phrase(N_("no proof for {square}"), square=_name(square, size)), square)
            if opened[square] != ship:
                said, truth = (_held(held) for held in (ship, opened[square]))
                return lie(
                    phrase(
                        N_("{square}: answered {said}, the commitment holds {truth}"),
                        square=_name(square, size),
                        said=said,
                        truth=truth,
                    ),
                    square,
                )
        return None

    # ------------------------------------------------------------ time and stops

    def early_claim(self, frame: Frame) -> Finding | None:
        """The finding a time claim earns when its claimant's own signed numbers contradict
        it (SPEC.md section 12, "What a claim must say"); None for a claim that stands.

        Both numbers are the claimant's own clock, so no slack is allowed: it must
        say it waited the whole limit, and it must be dated the whole limit after
        its own last message.
        """
        claim = frame.message
        assert isinstance(claim, TimeClaim)
        claimant, at = frame.header.sender, frame.header.at
        limit = self.limit()
        seq = frame.header.seq

        def early(detail: Phrase) -> Finding:
            return Finding(
                claimant,
                FindingKind.EARLY_CLAIM,
                phrase(N_("message {seq}: {detail}"), seq=seq, detail=detail),
                self.move or None,
            )

        if claim.waited_ms < limit:
            return early(
                phrase(
                    N_("a time claim after {waited} ms, under the limit of {limit} ms"),
                    waited=claim.waited_ms,
                    limit=limit,
                )
            )
        last = self.last_at(claimant)
        if last is not None and at < last + limit:
            return early(
                phrase(
                    N_(
                        "a time claim dated {after} ms after the claimant's own last message,"
                        " under the limit of {limit} ms"
                    ),
                    after=at - last,
                    limit=limit,
                )
            )
        return None

    def _time_claim(self, frame: Frame, claim: TimeClaim) -> None:
        claimant = frame.header.sender
        seq = frame.header.seq
        finding = self.early_claim(frame)
        if finding is not None:
            self.findings.append(finding)
            self.found_at.append(len(self.frames))
            self.cheaters.add(claimant)
            if self.phase in OPENING_PHASES:
                self._settle(End.NO_GAME, None, frozenset({claimant}), finding.detail)
            else:
                self._cheated(finding.detail)
            return
        rule = PHASES[self.phase].claim
        if rule is Claim.CHANGES_NOTHING or self.end is End.CHEATED:
            # The game is decided: a silence now changes nothing, and a side caught
            # cheating cannot win the game back by running out the clock.
            return
        if rule is Claim.VOIDS_THE_GAME:
            reason = phrase(
                N_("the guest did not decide on the rules in time (message {seq})"), seq=seq
            )
            self.undecided_at = seq
            self._settle(End.NO_GAME, None, frozenset(), reason)
            return
        silent = claimant.other
        reason = phrase(
            N_(
                "the {silent} was silent for longer than the limit: the {claimant} claimed the"
                " game on time (message {seq})"
            ),
            silent=role_term(silent),
            claimant=role_term(claimant),
            seq=seq,
        )
        self._settle(End.TIME, claimant, frozenset({silent}), reason)

    def _error(self, frame: Frame, error: Error, said: Phrase) -> None:
        """An error decides by what it answers (SPEC.md section 8, "Errors")."""
        sender, seq = frame.header.sender, frame.header.seq
        # This side's own detail in its player's words; a peer's is quoted as it came.
        detail: Fact = said if said else error.detail
        self.error, self.error_from = error, sender
        refused = self.refused
        if refused is not None and refused.frame.header.sender is not sender:
            loser = refused.frame.header.sender
            # A hello of another version breaks nothing: it names no one.
            named = None if refused.code is Code.VERSION else loser
            what = phrase(
                N_("the {sender} refused the {loser}'s message {seq} ({code}: {detail})"),
                sender=role_term(sender),
                loser=role_term(loser),
                seq=seq,
                code=error.code,
                detail=detail,
            )
        else:
            loser, named = sender, None
            if self.phase in OPENING_PHASES and error.code == Code.CLOSED.value:
                self.left_at = sender, seq
            what = phrase(
                N_("the {sender} stopped the game at message {seq} ({code}: {detail})"),
                sender=role_term(sender),
                seq=seq,
                code=error.code,
                detail=detail,
            )
        self._stop(loser, named, what)

    def _stop(self, loser: Role, named: Role | None, what: Phrase) -> None:
        end, winner, culprits, reason = self._stopped(
            Settled(self.phase, self.end, self.winner, self.culprits, self.reason),
            loser,
            named,
            what,
        )
        self._settle(end, winner, culprits, reason)

    @staticmethod
    def _stopped(
        before: Settled, loser: Role, named: Role | None, what: Phrase
    ) -> tuple[End, Role | None, frozenset[Role], Phrase]:
        """The ending once ``loser`` stopped the game, as it stood ``before``."""
        if before.phase in OPENING_PHASES:
            return End.NO_GAME, None, frozenset({named} if named else ()), what
        if before.end is not None and (before.end is End.CHEATED or before.phase in VERDICT_PHASES):
            return before.end, before.winner, before.culprits, before.reason
        return End.FORFEIT, loser.other, frozenset({loser}), what

    def ending_if_stopped(self, by: Role, at: int, what: Phrase) -> Ending:
        """The ending had ``by`` stopped the game with an ``error`` at place ``at``, answering
        no refused frame: how a side whose messages from ``at`` on crossed such an error
        judges its game (SPEC.md section 8, "Errors")."""
        before = (
            self.settled[at]
            if at < len(self.settled)
            else (Settled(self.phase, self.end, self.winner, self.culprits, self.reason))
        )
        end, winner, culprits, reason = self._stopped(before, by, None, what)
        return Ending(end, winner, culprits, reason)

    def _finish_battle(self, end: End, winner: Role, reason: Phrase) -> None:
        culprits = frozenset(self.cheaters) if end is End.CHEATED else frozenset()
        self._settle(end, winner, culprits, reason)
        # The winner speaks first in the reveal: the loser sent the last message.
        self.first_revealer = winner

    def _settle(
        self, end: End, winner: Role | None, culprits: frozenset[Role], reason: Phrase
    ) -> None:
        self.end, self.winner, self.culprits, self.reason = end, winner, culprits, reason

    def _cheated(self, reason: Phrase) -> None:
        """A finding outranks every other ending: the other side wins, or nobody."""
        winner = None if len(self.cheaters) == 2 else next(iter(self.cheaters)).other
        if self.end is not End.CHEATED:
            self.reason = reason
        self._settle(End.CHEATED, winner, frozenset(self.cheaters), self.reason)

    # ------------------------------------------------------------ the end

    def _reveal(self, sender: Role, reveal: Reveal, vouched: bool) -> None:
        assert self.rules is not None
        side = self.sides[sender]
        try:
            fleet = fleet_from_lists(self.rules, reveal.fleet)
        except UsageError as error:
            self._found(
                Finding(
                    sender,
                    FindingKind.BAD_REVEAL,
                    phrase(
                        N_("the revealed fleet is unreadable: {error}"), error=as_is(str(error))
                    ),
                )
            )
            return
        side.fleet = fleet
        if vouched:  # the fleet and secret its side committed with (see ``append``)
            return
        assert side.commit is not None
        area = self.rules.size**2
        if commitment_root(self.game, reveal.secret, fleet.board, area) != side.commit.fleet:
            self._found(
                Finding(
                    sender,
                    FindingKind.BAD_REVEAL,
                    phrase(N_("the revealed fleet does not open its commitment")),
                )
            )
            return
        if ships_digest(self.game, reveal.secret, reveal.fleet) != side.commit.ships:
            detail = phrase(
                N_(
                    "the revealed ships are cut from the committed squares differently than"
                    " committed"
                )
            )
            self._found(Finding(sender, FindingKind.BAD_REVEAL, detail))
            return
        if len(fleet.ships) != len(self.rules.fleet):
            # Checked apart, and first: a thousand overlapping ships would
            # otherwise cost a pairwise check and a finding for every pair.
            detail = phrase(
                N_("{revealed} ships revealed, the rules have {ships}"),
                revealed=len(fleet.ships),
                ships=len(self.rules.fleet),
            )
            self._found(Finding(sender, FindingKind.ILLEGAL_FLEET, detail))
            return
        report = replay(self.rules, fleet, self.sides[sender.other].volleys)
        for problem in report.fleet_problems:
            self._found(Finding(sender, FindingKind.ILLEGAL_FLEET, problem.said))
        for wrong in report.contradictions:
            self._found(
                Finding(
                    sender,
                    FindingKind.FALSE_ANSWER,
                    wrong.describe(self.rules.size),
                    wrong.move,
                    wrong.square,
                )
            )

    def _found(self, finding: Finding) -> None:
        self.findings.append(finding)
        self.found_at.append(len(self.frames))
        self.cheaters.add(finding.culprit)
        self._cheated(finding.detail)

    # ------------------------------------------------------------ summaries

    def shots_by(self, role: Role) -> int:
        return sum(len(v.shots) for v in self.sides[role].volleys)

    def findings_against(self, role: Role) -> list[Finding]:
        return [f for f in self.findings if f.culprit is role]


def _fits(lengths: list[int], fleet: tuple[int, ...]) -> bool:
    """Whether these ship lengths can all be ships of the fleet.

    Checked at every answer: a list of ten lengths crossed off one by one, not two
    ``Counter`` maps (2% of a game's time)."""
    left = list(fleet)
    for length in lengths:
        if length not in left:
            return False
        left.remove(length)
    return True


def _declined(reason: str) -> Phrase:
    """Why the game ended refused: the guest's own words, when it gave some (``NO_REASON``,
    none, is said in the reader's words)."""
    if not reason.strip():
        return phrase(N_("the guest declined the rules"))
    return phrase(N_("the guest declined the rules: {reason}"), reason=reason)


def _held(ship: bool) -> Phrase:
    return phrase(N_("a ship")) if ship else phrase(N_("water"))


def _name(square: int, size: int) -> str:
    return square_name(square, size) if square < size * size else str(square)

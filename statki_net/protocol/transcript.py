"""The transcript: one game's messages in order, and the rules they must obey.

``Transcript`` is the protocol's state machine as both a peer and a referee
see it: it holds no secrets, takes frames one at a time, and either accepts a
frame (appending it) or raises ``ProtocolError``.  Who may speak in each phase
and what each message leads to is the table in ``phases``; the checks that need
more than the table (chain, signature, shot counts, proofs) are in
``Transcript.add``.  A frame that is well formed but shows cheating (a false
answer, a reveal that does not open the commitment) is accepted, because the
signed lie is the evidence, and is recorded in ``findings``.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field

from statki_net.game.battle import Outcome, Score, Sea, check_answer_shape, hits_of, tells_cells
from statki_net.game.board import bit, square_name, squares_of
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, fleet_from_lists
from statki_net.game.replay import Volley, replay
from statki_net.game.rules import Ruleset, Touching
from statki_net.protocol.commitment import (
    Opening,
    coin_commitment,
    commitment_root,
    path_length,
    ships_digest,
    toss,
)
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.phases import (
    PHASES,
    Claim,
    Phase,
    Speaker,
    may_say,
    next_phase,
    speaker_kind,
)
from statki_net.protocol.wire import (
    GENESIS,
    PROTOCOL_VERSION,
    Accept,
    Coin,
    Commit,
    Error,
    Frame,
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


@dataclass(frozen=True)
class Finding:
    """Something a side did wrong that the transcript proves."""

    culprit: Role
    kind: FindingKind
    detail: str
    move: int | None = None
    square: int | None = None


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
        self.pending: Shot | None = None
        self.move = 0
        """Volleys fired so far; the current one's number while it is answered."""
        self.end: End | None = None
        self.winner: Role | None = None
        self.first_revealer: Role | None = None
        self.findings: list[Finding] = []
        self.cheaters: set[Role] = set()
        """The sides some finding names."""
        self.error: Error | None = None
        self.error_from: Role | None = None

    # ------------------------------------------------------------ who speaks

    def speaker(self) -> Role | None:
        """Who must send the next message, or None when the game is complete."""
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
        """The game's end is known: no more shots.  The reveals, which may still
        change the winner, and the verdicts may follow; see ``complete``."""
        return self.end is not None

    @property
    def ending(self) -> Ending | None:
        """How the game ended, once it has; None while it goes on."""
        if self.end is None:
            return None
        culprits: frozenset[Role] = frozenset()
        if self.end is End.CHEATED:
            culprits = frozenset(self.cheaters)
        elif self.end is End.TIME and self.winner is not None:
            culprits = frozenset({self.winner.other})
        return Ending(self.end, self.winner, culprits, self._reason())

    def _reason(self) -> str:
        if self.end is End.CHEATED and self.findings:
            return self.findings[0].detail
        if self.end is End.FORFEIT and self.error is not None:
            return f"{self.error_from} stopped the game: {self.error.code}: {self.error.detail}"
        return {
            End.SUNK: "the whole fleet was sunk",
            End.RESIGNED: "a side resigned",
            End.TIME: "a side was silent too long",
            End.REFUSED: "the guest declined the rules",
        }.get(self.end or End.NO_GAME, "")

    @property
    def last_digest(self) -> bytes:
        return self.frames[-1].digest if self.frames else GENESIS

    def key(self, role: Role) -> bytes | None:
        hello = self.sides[role].hello
        return hello.key if hello else None

    # ------------------------------------------------------------ adding frames

    def add(self, frame: Frame, *, signed_here: bool = False) -> None:
        """Check ``frame`` against everything before it and append it.

        Raises ``ProtocolError`` (and leaves the transcript as it was) when the
        frame may not stand here at all.  ``signed_here`` skips checking a
        signature this process has just made.
        """
        header, message = frame.header, frame.message
        if self.complete:
            raise fail(Code.OUT_OF_TURN, "the game is over")
        if header.seq != len(self.frames) or header.prev != self.last_digest:
            raise fail(Code.BAD_CHAIN, f"expected message {len(self.frames)} after the last one")
        if header.game != self.game and not isinstance(message, Hello):
            raise fail(Code.BAD_CHAIN, "the message belongs to another game")
        key = message.key if isinstance(message, Hello) else self.key(header.sender)
        if signed_here or (key is None and isinstance(message, Error)):
            pass  # an error before the sender's hello has no key to be checked by
        elif key is None or not signature_valid(key, frame):
            raise fail(Code.BAD_SIGNATURE, f"{header.sender}'s signature does not verify")
        self._check_turn(frame)
        self._apply(frame)
        self.frames.append(frame)

    def _check_turn(self, frame: Frame) -> None:
        sender, message = frame.header.sender, frame.message
        if isinstance(message, Error):
            return
        speaker = self.speaker()
        if isinstance(message, TimeClaim):
            if PHASES[self.phase].claim is None or sender == speaker:
                raise fail(Code.OUT_OF_TURN, "only the side kept waiting may claim on time")
            return
        if sender != speaker:
            raise fail(
                Code.OUT_OF_TURN, f"{message.TYPE} from {sender}, but it is {speaker}'s turn"
            )
        if not may_say(self.phase, type(message)):
            raise fail(Code.OUT_OF_TURN, f"{message.TYPE} is not allowed in phase {self.phase}")

    def _apply(self, frame: Frame) -> None:
        sender, message = frame.header.sender, frame.message
        side = self.sides[sender]
        match message:
            case Hello():
                self._hello(frame, message)
            case Accept():
                pass
            case Refuse():
                self._finish(End.REFUSED, None)
            case Commit():
                side.commit = message
            case Coin():
                self._coin(sender, message)
            case Shot():
                self._shot(message)
            case Reply():
                self._reply(sender, message)
            case Resign():
                self._finish(End.RESIGNED, sender.other)
            case TimeClaim():
                self._time_claim(sender)
            case Reveal():
                self._reveal(sender, message)
            case Verdict():
                side.verdict = message
            case Error():
                self.error, self.error_from = message, sender
                if self.end is None:
                    self._finish(End.FORFEIT, None)
        self.phase = next_phase(self.phase, type(message), self.end)

    # ------------------------------------------------------------ the handshake

    def _hello(self, frame: Frame, hello: Hello) -> None:
        sender = frame.header.sender
        if hello.protocol != PROTOCOL_VERSION:
            raise fail(
                Code.VERSION,
                f"protocol {hello.protocol} is not supported (this is {PROTOCOL_VERSION})",
            )
        if sender is Role.HOST:
            if hello.rules is None or hello.limits is None:
                raise fail(Code.BAD_FIELD, "the host's hello must propose rules and limits")
            self.rules, self.limits = hello.rules, hello.limits
        elif hello.key == self.key(Role.HOST):
            raise fail(Code.BAD_FIELD, "both sides use the same key")
        self.sides[sender].hello = hello
        if sender is Role.GUEST:
            self.game = game_id(self.frames[0].body, frame.body)

    def _coin(self, sender: Role, message: Coin) -> None:
        side = self.sides[sender]
        assert side.commit is not None
        if coin_commitment(self.game, sender.value, message.coin) != side.commit.coin:
            raise fail(Code.BAD_FIELD, "the coin does not open the coin commitment")
        side.coin = message.coin
        if sender is Role.GUEST:
            host_coin = self.sides[Role.HOST].coin
            assert host_coin is not None
            agreed = self.sides[Role.HOST].hello
            first = agreed.first if agreed is not None else None
            self._start(first or Role(toss(self.game, host_coin, message.coin)))

    def _start(self, first: Role) -> None:
        assert self.rules is not None
        self.score = Score(self.rules, to_move=PLAYER[first])
        for side in self.sides.values():
            side.sea = Sea(self.rules)

    # ------------------------------------------------------------ play

    def _shot(self, shot: Shot) -> None:
        assert self.rules is not None and self.score is not None
        due = self.score.shots_due()
        if len(shot.squares) != due:
            raise fail(Code.BAD_SHOT, f"{len(shot.squares)} shot(s) where {due} are due")
        area = self.rules.size**2
        if any(not 0 <= square < area for square in shot.squares):
            raise fail(Code.BAD_SHOT, "a shot is off the board")
        self.pending = shot
        self.move += 1

    def _reply(self, defender: Role, reply: Reply) -> None:
        assert self.rules is not None and self.score is not None and self.pending is not None
        shooter = defender.other
        squares = self.pending.squares
        try:
            check_answer_shape(self.rules, squares, reply.answer)
        except UsageError as error:
            raise fail(Code.BAD_ANSWER, str(error)) from None
        side = self.sides[shooter]
        assert side.sea is not None
        before = side.sea
        after = before.apply(squares, reply.answer)
        lie = self._check_proofs(defender, squares, reply, before, after) or self._check_tally(
            defender, after
        )
        side.sea = after
        side.volleys.append(Volley(self.move, squares, reply.answer))
        self.score = self.score.after(reply.answer)
        self.pending = None
        if lie is not None:
            self.findings.append(lie)
            self.cheaters.add(defender)
            self._finish(End.CHEATED, shooter)
        elif self.score.over:
            self._finish(End.SUNK, shooter)

    def _check_tally(self, defender: Role, after: Sea) -> Finding | None:
        """Totals no honest fleet can give: they show a lie on the move, proofs or not."""
        rules = self.rules
        assert rules is not None

        def lie(kind: FindingKind, detail: str) -> Finding:
            return Finding(defender, kind, detail, self.move)

        sunk = len(after.sunk_ships)
        if hits_of(after) > rules.ship_cells or sunk > len(rules.fleet):
            return lie(
                FindingKind.FALSE_ANSWER,
                f"more hits or sinks than the fleet has ({rules.ship_cells} squares)",
            )
        if hits_of(after) == rules.ship_cells and sunk < len(rules.fleet):
            return lie(
                FindingKind.FALSE_ANSWER,
                f"all {rules.ship_cells} ship squares are hit, yet only {sunk} of "
                f"{len(rules.fleet)} ships were announced sunk",
            )
        if len(set(after.sunk_names)) != len(after.sunk_names):
            return lie(FindingKind.FALSE_ANSWER, "a ship was announced sunk twice")
        known = [len(ship) for ship in after.sunk_ships if ship]
        if (
            rules.touching is not Touching.ANY
            and tells_cells(rules)
            and not _fits(known, rules.fleet)
        ):
            return lie(
                FindingKind.ILLEGAL_FLEET, f"a sunk ship of {known[-1]} squares is not in the fleet"
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

        def lie(detail: str, square: int | None) -> Finding:
            return Finding(defender, FindingKind.FALSE_ANSWER, detail, self.move, square)

        given: dict[int, Opening] = {}
        area = size * size
        for opening in reply.proofs:
            if opening.square >= area or len(opening.path) != path_length(area):
                return lie(f"the proof for square {opening.square} has the wrong shape", None)
            if opening.root(self.game) != commit.fleet:
                return lie(
                    f"the proof for {_name(opening.square, size)} does not open the commitment",
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
                        f"{_name(square, size)} was shot before, so it counts as a miss", square
                    )
                continue
            seen |= bit(square)
            claims[square] = outcome is not Outcome.MISS
        for square in squares_of(after.marked & ~before.marked):
            claims[square] = False
        for square, ship in claims.items():
            if square not in opened:
                return lie(f"no proof for {_name(square, size)}", square)
            if opened[square] != ship:
                said = "a ship" if ship else "water"
                truth = "a ship" if opened[square] else "water"
                return lie(
                    f"{_name(square, size)}: answered {said}, the commitment holds {truth}", square
                )
        return None

    def _time_claim(self, claimant: Role) -> None:
        claim = PHASES[self.phase].claim
        if claim is Claim.CHANGES_NOTHING or self.end is End.CHEATED:
            # A side caught cheating cannot win the game back by running out the clock.
            return
        # Once play has begun, the side that falls silent forfeits, and so
        # does a side that leaves without revealing.
        if claim is Claim.WINS_THE_GAME:
            self.end, self.winner = End.TIME, claimant
        else:
            self.end, self.winner = End.NO_GAME, None

    def _finish(self, end: End, winner: Role | None) -> None:
        self.end, self.winner = end, winner
        # The winner speaks first in the reveal: the loser sent the last message.
        self.first_revealer = winner

    # ------------------------------------------------------------ the end

    def _reveal(self, sender: Role, reveal: Reveal) -> None:
        assert self.rules is not None
        side = self.sides[sender]
        try:
            fleet = fleet_from_lists(self.rules, reveal.fleet)
        except UsageError as error:
            self._found(
                Finding(
                    sender, FindingKind.BAD_REVEAL, f"the revealed fleet is unreadable: {error}"
                )
            )
            return
        side.fleet = fleet
        assert side.commit is not None
        area = self.rules.size**2
        if commitment_root(self.game, reveal.secret, fleet.board, area) != side.commit.fleet:
            self._found(
                Finding(
                    sender,
                    FindingKind.BAD_REVEAL,
                    "the revealed fleet does not open its commitment",
                )
            )
            return
        if ships_digest(self.game, reveal.secret, reveal.fleet) != side.commit.ships:
            detail = (
                "the revealed ships are cut from the committed squares differently than committed"
            )
            self._found(Finding(sender, FindingKind.BAD_REVEAL, detail))
            return
        if len(fleet.ships) != len(self.rules.fleet):
            # Checked apart, and first: a thousand overlapping ships would
            # otherwise cost a pairwise check and a finding for every pair.
            detail = f"{len(fleet.ships)} ships revealed, the rules have {len(self.rules.fleet)}"
            self._found(Finding(sender, FindingKind.ILLEGAL_FLEET, detail))
            return
        report = replay(self.rules, fleet, self.sides[sender.other].volleys)
        for problem in report.fleet_problems:
            self._found(Finding(sender, FindingKind.ILLEGAL_FLEET, problem.message))
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
        self.cheaters.add(finding.culprit)
        self.winner = None if len(self.cheaters) == 2 else finding.culprit.other
        self.end = End.CHEATED

    # ------------------------------------------------------------ summaries

    def shots_by(self, role: Role) -> int:
        return sum(len(v.shots) for v in self.sides[role].volleys)

    def findings_against(self, role: Role) -> list[Finding]:
        return [f for f in self.findings if f.culprit is role]


def _fits(lengths: list[int], fleet: tuple[int, ...]) -> bool:
    """Whether these ship lengths can all be ships of the fleet."""
    need, have = Counter(lengths), Counter(fleet)
    return all(have[length] >= count for length, count in need.items())


def _name(square: int, size: int) -> str:
    return square_name(square, size) if square < size * size else str(square)

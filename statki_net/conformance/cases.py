"""The table of cases: what the suite does to the implementation, and what SPEC.md requires of it.

A ``Case`` is a value: its id, the SPEC section it checks, the role the
implementation plays, the rules of the game, what the suite does and when
(``Deed`` at ``At``), and the ``Expectation``.  The cases are built here once,
in a fixed order, from small tables; the runner plays them, ``judging``
compares what it saw with the expectation.  Ids are
``GROUP.NAME@ROLE``, ``ROLE`` being the implementation's: ``malformed.bad-signature@host``
is a frame with a bad signature sent to an implementation that hosts.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from statki_net.game.rules import PRESETS, _combinations, preset_name
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.phases import Phase
from statki_net.protocol.wire import Role


class Deed(enum.StrEnum):
    """What the suite does at the case's moment."""

    PLAY = "play"
    """Play on to the end: honestly, or as the case's ``cheat`` lies."""
    SEND = "send"
    """Send the case's ``injection`` (bytes the wire module builds, then alters) instead
    of what the suite would have said."""
    SEND_AFTER = "send-after"
    """Say what the suite would have said, and the ``injection`` right behind it, in one
    write: a time claim by the side whose turn has just ended."""
    STOP = "stop"
    """Stop the game with an ``error`` (``code``) instead of speaking: a forfeit."""
    RESIGN = "resign"
    """Resign instead of speaking, then play on to the verdicts."""
    CUT = "cut"
    """Close the connection, then resume the game over a new one and play it out."""
    CUT_AFTER = "cut-after"
    """Say what the suite would have said, close the connection at once (the answer to
    it is lost in flight), then resume and play out."""
    WAIT = "wait"
    """Say nothing, for longer than the move limit: the implementation may claim."""


class Injection(enum.StrEnum):
    """Bytes sent in place of a message (``acts.injected`` builds each)."""

    # a well-formed, well-signed message of this type where the phase does not allow it
    HELLO = "hello"
    ACCEPT = "accept"
    REFUSE = "refuse"
    COMMIT = "commit"
    COIN = "coin"
    SHOT = "shot"
    ANSWER = "answer"
    RESIGN = "resign"
    TIMEOUT = "timeout"
    REVEAL = "reveal"
    VERDICT = "verdict"
    # frames that are nobody's word (SPEC.md section 3): never answered
    OVERSIZED = "oversized"
    TRUNCATED_BODY = "truncated-body"
    SHORT_SIGNATURE = "short-signature"
    NOT_A_FRAME = "not-a-frame"
    REPEATED_KEY = "repeated-key"
    EXT_VALUE = "ext-value"
    INT_KEY = "int-key"
    BAD_SIGNATURE = "bad-signature"
    BAD_PREV = "bad-prev"
    SEQ_AHEAD = "seq-ahead"
    WRONG_GAME = "wrong-game"
    NO_GAME = "no-game-key"
    OWN_NAME = "own-name"
    # the peer's word with a wrong field: refused
    SQUARES_AS_TEXT = "squares-as-text"
    FLOAT_SQUARE = "float-square"
    AT_AS_TEXT = "at-as-text"
    BIN_KEY = "bin-key"
    UNKNOWN_TYPE = "unknown-type"
    TYPE_AS_INT = "type-as-int"
    UNKNOWN_KEY = "unknown-key"
    """An honest message with one key more: accepted, the key ignored."""
    SHOT_OFF_BOARD = "shot-off-board"
    SHOT_TOO_MANY = "shot-too-many"
    ANSWER_TOO_MANY_HITS = "answer-too-many-hits"
    ANSWER_UNKNOWN_OUTCOME = "answer-unknown-outcome"
    COIN_NOT_OPENING = "coin-not-opening"
    # hellos
    VERSION_NEWER = "version-newer"
    VERSION_OLDER = "version-older"
    NO_PROOF = "no-proof"
    WRONG_PROOF = "wrong-proof"
    PROOF_WRONG_SIZE = "proof-wrong-size"
    WRONG_HOST_KEY = "wrong-host-key"
    BOARD_TOO_SMALL = "board-too-small"
    BOARD_TOO_LARGE = "board-too-large"
    TOO_MANY_SHIPS = "too-many-ships"
    HALF_THE_BOARD = "half-the-board"
    FLEET_NOT_SORTED = "fleet-not-sorted"
    MOVE_LIMIT_TOO_SHORT = "move-limit-too-short"
    REVEAL_LIMIT_TOO_SHORT = "reveal-limit-too-short"
    LIMIT_TOO_LONG = "limit-too-long"
    NO_RULES = "no-rules"
    NO_LIMITS = "no-limits"
    FIRST_INVALID = "first-invalid"
    ADMIT_INVALID = "admit-invalid"
    NO_TAG = "no-tag"
    TAG_WHEN_OPEN = "tag-when-open"
    # a guest names its game (protocol 5)
    JOIN_OWN_GAME = "join-own-game"
    """A join naming the invite's game, in place of the guest's hello: the game goes on
    from the hello that answers it."""
    JOIN_WRONG_TAG = "join-wrong-tag"
    JOIN_TWICE = "join-twice"
    """A join, then, after the hello that answers it, a second one bound to that hello."""
    JOIN_ANOTHER_HELLO = "join-another-hello"
    JOIN_BEFORE_HELLO = "join-before-hello"
    """A join the moment the connection opens, before the host has said anything."""
    ANOTHER_GAME = "another-game"
    """Suite as host: first the hello of another game, saying ``join``: the guest must name
    its own."""
    # time claims, dated by the suite's own clock
    EARLY_CLAIM = "early-claim"
    """``waited_ms`` under the limit: an early claim, a finding against the suite."""
    FORGED_CLAIM = "forged-claim"
    """``waited_ms`` at the limit, but an ``at`` that says it waited less: a finding."""
    CLAIM_TOO_EARLY_BY_CLOCK = "claim-too-early-by-clock"
    """A claim whose signed times agree with it, sent a moment into the implementation's
    turn: its own clock must refuse it (SPEC.md section 12, "The receiver's check")."""


class Cheat(enum.StrEnum):
    """How the suite's side lies while it plays (``acts.behaviour``)."""

    MISS_FOR_HIT = "miss-for-hit"
    HIT_FOR_MISS = "hit-for-miss"
    NO_PROOF = "no-proof"
    PROOF_NOT_OPENING = "proof-not-opening"
    SUNK_FOR_HIT = "sunk-for-hit"
    HIT_FOR_SINK = "hit-for-sink"
    SHIPS_OUT_OF_ORDER = "ships-out-of-order"
    TOUCHING_FLEET = "touching-fleet"
    ANOTHER_FLEET = "another-fleet"
    WRONG_SECRET = "wrong-secret"


class Kind(enum.StrEnum):
    """What the implementation must do."""

    REFUSES = "refuses"
    """Answer the frame with an ``error`` of ``code``, at the frame's place, and close."""
    IGNORES = "ignores"
    """Send nothing at all (not the peer's word: no ``error``), and close."""
    ENDS = "ends"
    """The suite's message ended the game: send nothing more, and close."""
    FINISHES = "finishes"
    """Play the game to its verdicts and state the expected one."""
    CLAIMS = "claims"
    """Claim the game on time (``timeout``, with a wait of at least the limit)."""


class Side(enum.StrEnum):
    """A side named from the case's point of view; ``judging`` makes it a role."""

    IMPLEMENTATION = "implementation"
    SUITE = "suite"
    NOBODY = "nobody"
    AS_PLAYED = "as played"
    """Whoever the game's own transcript names (an honest game)."""


@dataclass(frozen=True)
class Expectation:
    kind: Kind
    code: Code | None = None
    """``REFUSES``: the code the error must carry."""
    end: End | None = None
    """How the game must end: in the verdict the implementation signs (``FINISHES``) and in
    its log, when the driver gives one; None: the log is not judged (a lost connection)."""
    winner: Side = Side.AS_PLAYED


@dataclass(frozen=True)
class At:
    """When the suite acts: the first time it is to speak in ``phase`` (in the battle, once
    ``moves`` volleys have been fired)."""

    phase: Phase
    moves: int = 0
    after_a_hit: bool = False
    """In ``answer``: only when the answer tells a hit, so that under ``chain`` turns the
    implementation shoots again next (its own turn begins with the suite's answer)."""


class Aim(enum.StrEnum):
    """How the suite shoots while it plays."""

    SEEK = "seek"
    """At squares it knows nothing of: a game either side may win."""
    IDLE = "idle"
    """At one square again and again (a repeat is a miss): the implementation does all
    the hitting, so a lie about its shots is sure to come."""


@dataclass(frozen=True)
class Case:
    id: str
    section: str
    """The SPEC.md section it checks, as ``3`` or ``12, "Resume"``."""
    title: str
    """What the suite sends or does, in one line."""
    implementation: Role
    """The role the implementation under test plays; the suite plays the other."""
    expect: Expectation
    deed: Deed = Deed.PLAY
    at: At | None = None
    injection: Injection | None = None
    cheat: Cheat | None = None
    code: Code = Code.CLOSED
    """``STOP``: the code of the suite's error."""
    rules: str = "classic"
    """The rules, as a preset or a ``+`` combination of presets."""
    aim: Aim = Aim.SEEK
    long: bool = False
    """It waits out a limit (a minute or more): ``--quick`` skips it."""
    may: bool = False
    """SPEC leaves it open (a MAY): what is seen is information, never a failure."""

    @property
    def suite(self) -> Role:
        return self.implementation.other


def _id(group: str, name: str, implementation: Role) -> str:
    return f"{group}.{name}@{implementation.value}"


BOTH = (Role.HOST, Role.GUEST)
"""The implementation's roles, in the order the table lists them."""


# ---------------------------------------------------------------- honest games


def _rules_names() -> list[str]:
    """Every preset, then every combination of presets that is no preset, by name."""
    presets = list(PRESETS)
    combined = sorted(
        (name for rules, name in _combinations().items() if preset_name(rules) is None),
        key=lambda name: (name.count("+"), name),
    )
    return presets + combined


def honest_games() -> Iterator[Case]:
    for rules in _rules_names():
        for role in BOTH:
            yield Case(
                _id("honest", rules, role),
                "7, 8",
                f"an honest game under {rules}",
                role,
                Expectation(Kind.FINISHES, end=None, winner=Side.AS_PLAYED),
                rules=rules,
            )


# ---------------------------------------------------------------- out of place


OUT_OF_TURN = Expectation(Kind.REFUSES, Code.OUT_OF_TURN, End.FORFEIT, Side.IMPLEMENTATION)
OUT_OF_TURN_NO_GAME = Expectation(Kind.REFUSES, Code.OUT_OF_TURN, End.NO_GAME, Side.NOBODY)

_IN_THE_BATTLE = (
    Injection.HELLO,
    Injection.ACCEPT,
    Injection.REFUSE,
    Injection.COMMIT,
    Injection.COIN,
    Injection.ANSWER,
    Injection.TIMEOUT,
    Injection.REVEAL,
    Injection.VERDICT,
)
"""Sent instead of a shot: none is allowed in ``shoot``, a claim not from the speaker."""
_AT_THE_DECISION = (
    Injection.HELLO,
    Injection.COMMIT,
    Injection.COIN,
    Injection.SHOT,
    Injection.ANSWER,
    Injection.RESIGN,
    Injection.TIMEOUT,
    Injection.REVEAL,
    Injection.VERDICT,
)
"""Sent by the suite as guest instead of its decision."""


def out_of_place() -> Iterator[Case]:
    for role in BOTH:
        for injection in _IN_THE_BATTLE:
            yield Case(
                _id("turn", f"{injection.value}-in-shoot", role),
                "8",
                f"a {injection.value} instead of the suite's shot",
                role,
                OUT_OF_TURN,
                Deed.SEND,
                At(Phase.SHOOT, 1),
                injection,
            )
        yield Case(
            _id("turn", "shot-in-answer", role),
            "8",
            "a shot instead of the suite's answer",
            role,
            OUT_OF_TURN,
            Deed.SEND,
            At(Phase.ANSWER, 1),
            Injection.SHOT,
            aim=Aim.IDLE,
        )
        commit = Phase.HOST_COMMIT if role is Role.GUEST else Phase.GUEST_COMMIT
        yield Case(
            _id("turn", f"resign-in-{commit.value}", role),
            "8",
            "a resignation instead of the suite's commit: there is no battle to resign",
            role,
            OUT_OF_TURN,
            Deed.SEND,
            At(commit),
            Injection.RESIGN,
        )
        second = Phase.SECOND_REVEAL
        yield Case(
            _id("turn", "shot-after-the-battle", role),
            "8",
            "a shot instead of the suite's reveal, after it resigned",
            role,
            OUT_OF_TURN,
            Deed.SEND,
            At(second),
            Injection.SHOT,
        )
    for injection in _AT_THE_DECISION:
        yield Case(
            _id("turn", f"{injection.value}-in-decision", Role.HOST),
            "8",
            f"a {injection.value} instead of the guest's decision",
            Role.HOST,
            OUT_OF_TURN_NO_GAME,
            Deed.SEND,
            At(Phase.DECISION),
            injection,
        )


# ---------------------------------------------------------------- frames


IGNORED = Expectation(Kind.IGNORES)

_NOBODYS_WORD = (
    (Injection.OVERSIZED, "3", "a signed shot whose body is over MAX_FRAME bytes (too-large)"),
    (Injection.TRUNCATED_BODY, "3", "a shot whose body is cut short, signed (malformed)"),
    (Injection.SHORT_SIGNATURE, "3", "a shot with a 63-byte signature (malformed)"),
    (Injection.NOT_A_FRAME, "3", "a msgpack array of three bins (malformed)"),
    (Injection.REPEATED_KEY, "2", "a shot whose map has 'squares' twice (malformed)"),
    (Injection.EXT_VALUE, "2", "a shot with an ext value (malformed)"),
    (Injection.INT_KEY, "2", "a shot with an int map key (malformed)"),
    (Injection.BAD_SIGNATURE, "5", "a shot whose signature does not verify (bad-signature)"),
    (Injection.BAD_PREV, "4", "a shot whose prev is not the last message's hash (bad-chain)"),
    (Injection.SEQ_AHEAD, "4", "a shot numbered one too far (bad-chain)"),
    (Injection.WRONG_GAME, "4", "a shot of another game id (bad-chain)"),
    (Injection.NO_GAME, "4", "a shot without 'game' (bad-field at step 3: nobody's word)"),
    (Injection.OWN_NAME, "3", "a shot in the implementation's own name"),
)

_REFUSED_FIELDS = (
    (Injection.SQUARES_AS_TEXT, "6", "a shot whose squares are a str", Code.BAD_FIELD),
    (Injection.FLOAT_SQUARE, "2", "a shot at square 3.0, a float", Code.BAD_FIELD),
    (Injection.AT_AS_TEXT, "4", "a shot whose 'at' is a str", Code.BAD_FIELD),
    (
        Injection.BIN_KEY,
        "2",
        "a shot whose 'squares' key is a bin (so it is missing)",
        Code.BAD_FIELD,
    ),
    (Injection.UNKNOWN_TYPE, "3", "a message of a type no version defines", Code.UNKNOWN_TYPE),
    (Injection.TYPE_AS_INT, "3", "a message whose type is an int", Code.BAD_FIELD),
    (Injection.SHOT_OFF_BOARD, "6", "a shot at a square off the board", Code.BAD_SHOT),
    (Injection.SHOT_TOO_MANY, "8", "a volley of two shots where one is due", Code.BAD_SHOT),
)


def frames() -> Iterator[Case]:
    for role in BOTH:
        for injection, section, title in _NOBODYS_WORD:
            yield Case(
                _id("frame", injection.value, role),
                section,
                title,
                role,
                IGNORED,
                Deed.SEND,
                At(Phase.SHOOT, 1),
                injection,
            )
        for injection, section, title, code in _REFUSED_FIELDS:
            yield Case(
                _id("field", injection.value, role),
                section,
                title,
                role,
                Expectation(Kind.REFUSES, code, End.FORFEIT, Side.IMPLEMENTATION),
                Deed.SEND,
                At(Phase.SHOOT, 1),
                injection,
            )
        yield Case(
            _id("field", "unknown-key", role),
            "3, 14",
            "a shot that carries a key no version defines (ignored)",
            role,
            Expectation(Kind.FINISHES),
            Deed.SEND,
            At(Phase.SHOOT, 1),
            Injection.UNKNOWN_KEY,
        )
        yield Case(
            _id("field", "answer-too-many-hits", role),
            "8",
            "an answer telling two hits for one shot (its shape)",
            role,
            Expectation(Kind.REFUSES, Code.BAD_ANSWER, End.FORFEIT, Side.IMPLEMENTATION),
            Deed.SEND,
            At(Phase.ANSWER, 1),
            Injection.ANSWER_TOO_MANY_HITS,
            aim=Aim.IDLE,
        )
        yield Case(
            _id("field", "answer-unknown-outcome", role),
            "6",
            "an answer whose outcome is 'splash'",
            role,
            Expectation(Kind.REFUSES, Code.BAD_FIELD, End.FORFEIT, Side.IMPLEMENTATION),
            Deed.SEND,
            At(Phase.ANSWER, 1),
            Injection.ANSWER_UNKNOWN_OUTCOME,
            aim=Aim.IDLE,
        )
        coin = Phase.HOST_COIN if role is Role.GUEST else Phase.GUEST_COIN
        yield Case(
            _id("field", "coin-not-opening", role),
            "11",
            "a coin that does not open the suite's coin commitment",
            role,
            Expectation(Kind.REFUSES, Code.BAD_FIELD, End.FORFEIT, Side.IMPLEMENTATION),
            Deed.SEND,
            At(coin),
            Injection.COIN_NOT_OPENING,
        )


# ---------------------------------------------------------------- hellos


_HOST_HELLOS = (
    (Injection.VERSION_NEWER, "6, 14", "a host hello of the next protocol version", Code.VERSION),
    (Injection.VERSION_OLDER, "6, 14", "a host hello of the previous version", Code.VERSION),
    (Injection.BOARD_TOO_SMALL, "7", "rules with a 4 x 4 board", Code.BAD_FIELD),
    (Injection.BOARD_TOO_LARGE, "7", "rules with a 27 x 27 board", Code.BAD_FIELD),
    (Injection.TOO_MANY_SHIPS, "7", "rules with 13 ships", Code.BAD_FIELD),
    (Injection.HALF_THE_BOARD, "7", "ships covering more than half the board", Code.BAD_FIELD),
    (Injection.FLEET_NOT_SORTED, "7", "a fleet not longest first", Code.BAD_FIELD),
    (Injection.MOVE_LIMIT_TOO_SHORT, "7", "a move limit of 59.999 s", Code.BAD_FIELD),
    (Injection.REVEAL_LIMIT_TOO_SHORT, "7", "a reveal limit of 29.999 s", Code.BAD_FIELD),
    (Injection.LIMIT_TOO_LONG, "7", "a move limit over a day", Code.BAD_FIELD),
    (Injection.NO_RULES, "6", "a host hello without rules", Code.BAD_FIELD),
    (Injection.NO_LIMITS, "6", "a host hello without limits", Code.BAD_FIELD),
    (Injection.FIRST_INVALID, "6", "a host hello whose 'first' is 'both'", Code.BAD_FIELD),
    (Injection.ADMIT_INVALID, "6", "a host hello whose 'admit' is 'friends'", Code.BAD_FIELD),
    (Injection.NO_TAG, "6", "a host hello that admits by invite, without a tag", Code.BAD_FIELD),
    (Injection.TAG_WHEN_OPEN, "6", "a host hello open to anyone, with a tag", Code.BAD_FIELD),
)
_GUEST_HELLOS = (
    (Injection.VERSION_NEWER, "3, 14", "a guest hello of the next protocol version", Code.VERSION),
    (Injection.VERSION_OLDER, "3, 14", "a guest hello of the previous version", Code.VERSION),
    (Injection.NO_PROOF, '3, "Admission"', "a guest hello without a proof", Code.NOT_INVITED),
    (
        Injection.WRONG_PROOF,
        '3, "Admission"',
        "a guest hello proving a wrong secret",
        Code.NOT_INVITED,
    ),
    (
        Injection.PROOF_WRONG_SIZE,
        '3, "Admission"',
        "a guest hello whose proof is 16 bytes",
        Code.NOT_INVITED,
    ),
)


def hellos() -> Iterator[Case]:
    for injection, section, title, code in _HOST_HELLOS:
        yield Case(
            _id("hello", injection.value, Role.GUEST),
            section,
            title,
            Role.GUEST,
            Expectation(Kind.REFUSES, code, End.NO_GAME, Side.NOBODY),
            Deed.SEND,
            At(Phase.HOST_HELLO),
            injection,
        )
    yield Case(
        _id("hello", "wrong-host-key", Role.GUEST),
        '3, "Invites"',
        "a host hello signed by a key other than the invite's",
        Role.GUEST,
        IGNORED,
        Deed.SEND,
        At(Phase.HOST_HELLO),
        Injection.WRONG_HOST_KEY,
    )
    for injection, section, title, code in _GUEST_HELLOS:
        yield Case(
            _id("hello", injection.value, Role.HOST),
            section,
            title,
            Role.HOST,
            Expectation(Kind.REFUSES, code, End.NO_GAME, Side.NOBODY),
            Deed.SEND,
            At(Phase.GUEST_HELLO),
            injection,
        )


JOIN_SECTION = '3, "Admission"'


def joins() -> Iterator[Case]:
    """A guest names its game (SPEC.md section 3, "Naming the game"; section 6, "join")."""
    yield Case(
        _id("join", "names-its-game", Role.HOST),
        JOIN_SECTION,
        "a join naming the invite's game: answered by a fresh hello, the game played from it",
        Role.HOST,
        Expectation(Kind.FINISHES, end=None, winner=Side.AS_PLAYED),
        Deed.SEND,
        At(Phase.GUEST_HELLO),
        Injection.JOIN_OWN_GAME,
    )
    yield Case(
        _id("join", "wrong-tag", Role.HOST),
        JOIN_SECTION,
        "a join naming a game the host does not have",
        Role.HOST,
        Expectation(Kind.REFUSES, Code.NOT_INVITED, End.NO_GAME, Side.NOBODY),
        Deed.SEND,
        At(Phase.GUEST_HELLO),
        Injection.JOIN_WRONG_TAG,
    )
    yield Case(
        _id("join", "twice", Role.HOST),
        JOIN_SECTION,
        "a second join after the hello that answered the first",
        Role.HOST,
        IGNORED,
        Deed.SEND,
        At(Phase.GUEST_HELLO),
        Injection.JOIN_TWICE,
    )
    yield Case(
        _id("join", "another-hello", Role.HOST),
        JOIN_SECTION,
        "a join bound to another connection's hello (a replay)",
        Role.HOST,
        IGNORED,
        Deed.SEND,
        At(Phase.GUEST_HELLO),
        Injection.JOIN_ANOTHER_HELLO,
    )
    yield Case(
        _id("join", "before-the-hello", Role.HOST),
        JOIN_SECTION,
        "a join before the host's hello: the guest speaks first",
        Role.HOST,
        IGNORED,
        injection=Injection.JOIN_BEFORE_HELLO,
        may=True,  # the quiet moment is a MAY: a host that says its hello anyway is not wrong
    )
    yield Case(
        _id("join", "names-its-game", Role.GUEST),
        JOIN_SECTION,
        "first the hello of another game, saying join: the guest names its own",
        Role.GUEST,
        Expectation(Kind.FINISHES, end=None, winner=Side.AS_PLAYED),
        injection=Injection.ANOTHER_GAME,
    )


# ---------------------------------------------------------------- lies


_LIES = (
    (Cheat.MISS_FOR_HIT, "10", "says miss for a shot that hit: the proof shows a ship"),
    (Cheat.HIT_FOR_MISS, "10", "says hit for a shot in the water: the proof shows water"),
    (Cheat.NO_PROOF, "10", "answers a shot without the opening it needs"),
    (Cheat.PROOF_NOT_OPENING, "9, 10", "answers with an opening whose salt is wrong"),
    (Cheat.SUNK_FOR_HIT, "7, 10", "says sunk for a hit: the water marked around holds a ship"),
    (Cheat.HIT_FOR_SINK, "10", "says hit for a sinking shot: only the reveal can show it"),
    (Cheat.SHIPS_OUT_OF_ORDER, "7, 10", "commits to its ships shortest first (an illegal fleet)"),
    (Cheat.TOUCHING_FLEET, "7, 10", "plays a fleet whose ships touch at a corner (illegal)"),
    (Cheat.ANOTHER_FLEET, "10", "reveals another fleet than the one it committed to"),
    (Cheat.WRONG_SECRET, "9, 10", "reveals its fleet with a wrong secret"),
)


def lies() -> Iterator[Case]:
    for cheat, section, title in _LIES:
        for role in BOTH:
            yield Case(
                _id("lie", cheat.value, role),
                section,
                f"the suite {title}",
                role,
                Expectation(Kind.FINISHES, end=End.CHEATED, winner=Side.IMPLEMENTATION),
                cheat=cheat,
                aim=Aim.IDLE,
            )


# ---------------------------------------------------------------- time


def claims() -> Iterator[Case]:
    for role in BOTH:
        yield Case(
            _id("time", "early-claim", role),
            '12, "What a claim must say"',
            "a claim of one ms less than the limit, right after the suite answers a hit",
            role,
            Expectation(Kind.ENDS, end=End.CHEATED, winner=Side.IMPLEMENTATION),
            Deed.SEND_AFTER,
            At(Phase.ANSWER, 1, after_a_hit=True),
            Injection.EARLY_CLAIM,
            aim=Aim.IDLE,
        )
        yield Case(
            _id("time", "forged-claim", role),
            '12, "What a claim must say"',
            "a claim of the whole limit dated 1 ms too soon after the suite's last message",
            role,
            Expectation(Kind.ENDS, end=End.CHEATED, winner=Side.IMPLEMENTATION),
            Deed.SEND_AFTER,
            At(Phase.ANSWER, 1, after_a_hit=True),
            Injection.FORGED_CLAIM,
            aim=Aim.IDLE,
        )
        yield Case(
            _id("time", "claim-too-early-by-clock", role),
            '12, "The receiver\'s check"',
            "a claim whose signed times agree, a moment into the implementation's turn",
            role,
            IGNORED,
            Deed.SEND_AFTER,
            At(Phase.ANSWER, 1, after_a_hit=True),
            Injection.CLAIM_TOO_EARLY_BY_CLOCK,
            aim=Aim.IDLE,
        )
        yield Case(
            _id("time", "silent-shooter", role),
            "12",
            "the suite says nothing in its turn, for longer than the move limit",
            role,
            Expectation(Kind.CLAIMS, end=End.TIME, winner=Side.IMPLEMENTATION),
            Deed.WAIT,
            At(Phase.SHOOT, 1),
            long=True,
            may=True,
        )


# ---------------------------------------------------------------- endings


def resignations() -> Iterator[Case]:
    for role in BOTH:
        for phase, what in ((Phase.SHOOT, "its shot"), (Phase.ANSWER, "its answer")):
            yield Case(
                _id("resign", f"in-{phase.value}", role),
                '8, "Resigning"',
                f"the suite resigns instead of {what}",
                role,
                Expectation(Kind.FINISHES, end=End.RESIGNED, winner=Side.IMPLEMENTATION),
                Deed.RESIGN,
                At(phase, 1),
                aim=Aim.IDLE,
            )


def _stop_phases(implementation: Role) -> Iterable[tuple[Phase, End, Side]]:
    suite = implementation.other
    if suite is Role.GUEST:
        yield Phase.DECISION, End.NO_GAME, Side.NOBODY
    commit, coin = (
        (Phase.HOST_COMMIT, Phase.HOST_COIN)
        if suite is Role.HOST
        else (Phase.GUEST_COMMIT, Phase.GUEST_COIN)
    )
    yield commit, End.FORFEIT, Side.IMPLEMENTATION
    yield coin, End.FORFEIT, Side.IMPLEMENTATION
    yield Phase.SHOOT, End.FORFEIT, Side.IMPLEMENTATION
    yield Phase.ANSWER, End.FORFEIT, Side.IMPLEMENTATION
    yield Phase.SECOND_REVEAL, End.FORFEIT, Side.IMPLEMENTATION
    yield Phase.SECOND_VERDICT, End.RESIGNED, Side.IMPLEMENTATION


def stops() -> Iterator[Case]:
    for role in BOTH:
        for phase, end, winner in _stop_phases(role):
            after = " (after resigning)" if phase.value.startswith("second-") else ""
            yield Case(
                _id("stop", f"in-{phase.value}", role),
                '8, "Endings"',
                f"the suite stops with error closed in {phase.value}{after}",
                role,
                Expectation(Kind.ENDS, end=end, winner=winner),
                Deed.STOP,
                At(phase, 1 if phase in (Phase.SHOOT, Phase.ANSWER) else 0),
                aim=Aim.IDLE,
            )
        yield Case(
            _id("stop", "internal-in-shoot", role),
            "13",
            "the suite stops with error internal instead of its shot",
            role,
            Expectation(Kind.ENDS, end=End.FORFEIT, winner=Side.IMPLEMENTATION),
            Deed.STOP,
            At(Phase.SHOOT, 1),
            code=Code.INTERNAL,
        )


def resumes() -> Iterator[Case]:
    for role in BOTH:
        yield Case(
            _id("resume", "before-a-shot", role),
            '12, "Resume"',
            "the suite drops the connection in its turn, comes back, and plays on",
            role,
            Expectation(Kind.FINISHES),
            Deed.CUT,
            At(Phase.SHOOT, 2),
        )
        yield Case(
            _id("resume", "before-its-reveal", role),
            '12, "Resume"',
            "the suite resigns, drops the connection before its reveal, comes back, plays on",
            role,
            Expectation(Kind.FINISHES, end=End.RESIGNED, winner=Side.IMPLEMENTATION),
            Deed.CUT,
            At(Phase.SECOND_REVEAL),
        )
        yield Case(
            _id("resume", "answer-in-flight", role),
            '12, "Resume"',
            "the suite shoots and drops the connection at once; the answer is resent",
            role,
            Expectation(Kind.FINISHES),
            Deed.CUT_AFTER,
            At(Phase.SHOOT, 2),
        )


def all_cases() -> tuple[Case, ...]:
    """Every case, in the report's order: the handshake, frames, turns, the battle, endings."""
    cases = (
        *hellos(),
        *joins(),
        *frames(),
        *out_of_place(),
        *lies(),
        *claims(),
        *resignations(),
        *stops(),
        *resumes(),
        *honest_games(),
    )
    ids = [case.id for case in cases]
    assert len(ids) == len(set(ids)), "case ids are unique"
    return cases


def chosen(
    cases: Iterable[Case],
    *,
    quick: bool = False,
    only: Iterable[str] = (),
    role: Role | None = None,
) -> list[Case]:
    """The cases a run plays: ``quick`` leaves out the long ones; ``only`` keeps the cases
    whose id starts with one of its prefixes; ``role``, those where the implementation
    plays it."""
    prefixes = tuple(only)
    return [
        case
        for case in cases
        if not (quick and case.long)
        and (not prefixes or case.id.startswith(prefixes))
        and (role is None or case.implementation is role)
    ]

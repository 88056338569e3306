"""Each branch of a game tree judged as one transcript, by the rules the peers play by.

A branch is a path from ``GENESIS`` to a frame with no child (SPEC.md
section 16, "The game tree").  The walk replays the tree once, depth first,
with the same ``Transcript`` the peers use: a frame shared by several
branches is checked once, and the transcript is copied only where the tree
forks.  Where it forks, an ``error`` is judged after its siblings, since it
answers a refused frame when a sibling from the other side is one.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace

from statki_net.game.words import N_, Phrase, phrase
from statki_net.protocol.endings import End, Ending, role_term
from statki_net.protocol.errors import Code, ProtocolError
from statki_net.protocol.phases import PHASES, Period
from statki_net.protocol.transcript import Finding, Transcript
from statki_net.protocol.wire import AnyFrame, Error, Role
from statki_net.referee.tree import GameTree, Node


@dataclass(frozen=True)
class Refusal:
    """A frame the rules refuse where it stands: the peer's word that breaks the protocol."""

    frame: AnyFrame
    code: Code
    detail: Phrase
    move: int
    """Shots accepted before it."""

    @property
    def sender(self) -> Role:
        return self.frame.header.sender

    @property
    def seq(self) -> int:
        return self.frame.header.seq

    @property
    def type(self) -> str:
        return self.frame.type or "?"


@dataclass(frozen=True)
class Found:
    """A finding, with the frame whose checks produced it."""

    digest: bytes
    finding: Finding
    accepted: bool
    """Whether the guest's accept came before it: before it, no game was at stake."""


@dataclass
class Branch:
    """One branch, judged: the transcript as far as the rules let its frames in."""

    path: list[Node]
    transcript: Transcript
    refusal: Refusal | None = None
    """The frame of the path the rules refused: the branch ends there."""
    found: list[Found] = field(default_factory=list)

    @property
    def ending(self) -> Ending | None:
        """The branch's ending by SPEC.md section 8; None when it stops before one."""
        if self.refusal is not None:
            return refusal_ending(self.transcript, self.refusal)
        return self.transcript.ending if self.transcript.complete else None


def judge_branches(tree: GameTree, limit: int | None = None) -> list[Branch]:
    """The branches of ``tree``, judged, in the order the logs show them.

    ``limit`` bounds how many are judged: where the logs show a side signing two
    games, its forgeries could fork the tree at every message, and each fork
    costs a copy of the transcript.  Past the limit a fork is followed along its
    first frame only.
    """
    done: list[Branch] = []
    # Each item: a branch judged up to its last node, and the children to go on with.
    stack: list[tuple[Branch, list[Node]]] = [(Branch([], Transcript()), tree.roots)]
    while stack:
        branch, children = stack.pop()
        going_on = True
        while going_on and len(children) == 1:
            going_on = _step(branch, children[0], answers=None)
            children = children[0].children
        if not going_on or not children:
            done.append(branch)
        elif limit is None or len(done) + len(stack) + len(children) <= limit:
            stack += reversed(_fork(branch, children))
        else:
            stack.append((branch, children[:1]))
    return done


def _fork(branch: Branch, children: list[Node]) -> list[tuple[Branch, list[Node]]]:
    """One branch per child, each judged one frame further."""
    refused: dict[Role, Node] = {}
    outcome: dict[int, tuple[Branch, bool]] = {}
    answered: dict[int, Node | None] = {}

    def judge(i: int) -> None:
        child = children[i]
        copied = Branch(list(branch.path), branch.transcript.copy(), None, list(branch.found))
        answered[i] = refused.get(child.sender.other)
        going_on = _step(copied, child, answers=answered[i])
        if copied.refusal is not None:
            refused.setdefault(child.sender, child)
        outcome[i] = (copied, going_on)

    # Errors last: whether one answers a refused frame depends on its siblings.
    order = sorted(range(len(children)), key=lambda i: children[i].type == Error.TYPE)
    for i in order:
        judge(i)
    # A refused frame can itself be named an error (one whose keys are wrong): an error
    # of the other side judged before it is judged again, now that it answers something.
    for i in order:
        child = children[i]
        if (
            child.type == Error.TYPE
            and answered[i] is None
            and child.sender.other in refused
            and outcome[i][0].refusal is None
        ):
            judge(i)
    return [
        (copied, children[i].children if going_on else [])
        for i, (copied, going_on) in sorted(outcome.items())
    ]


def _step(branch: Branch, node: Node, answers: Node | None) -> bool:
    """Add ``node``'s frame to the branch; False when the branch ends with it.

    ``answers``: a sibling from the other side that the rules refuse; an error at
    its place answers it (SPEC.md section 16, "The game tree").
    """
    t = branch.transcript
    if t.complete:
        # Nothing is said after the end; a frame placed there changes nothing.
        return False
    before, move, accepted = len(t.findings), t.move, at_stake(t)
    if answers is not None and node.type == Error.TYPE:
        # Refused again here, so that the transcript knows what the error answers.
        with contextlib.suppress(ProtocolError):
            t.check(answers.frame, signature_later=True)
    branch.path.append(node)
    try:
        # Every frame of the tree is its side's word already: reading the logs saw to it.
        t.add(node.frame, signature_later=True)
    except ProtocolError as error:
        if not error.refuses:  # the logs were read so that this cannot be: nobody's word
            branch.path.pop()
            return False
        branch.refusal = Refusal(node.frame, error.code, error.said, move)
        return False
    branch.found += [Found(node.digest, f, accepted) for f in t.findings[before:]]
    return not t.complete


def at_stake(t: Transcript) -> bool:
    """Whether the guest has accepted the rules, so a game is at stake (asked before a
    frame is added: never of a transcript that is done)."""
    return PHASES[t.phase].period is not Period.OPENING


def at_stake_before(t: Transcript, index: int) -> bool:
    """``at_stake`` as it was before the transcript's frame ``index`` was added."""
    return PHASES[t.settled[index].phase].period is not Period.OPENING


def refusal_ending(t: Transcript, refusal: Refusal) -> Ending:
    """How a game ends when ``refusal``'s frame is refused where it stands (SPEC.md section
    8, "Endings"): as if the other side had answered it with an error, so its sender
    forfeits from the guest's accept on (unless the game was decided); before it there is
    no game, and the sender is named for information, unless its hello is of another
    version."""
    sender = refusal.sender
    said = phrase(
        N_("the {sender}'s message {seq} was refused ({code}: {detail})"),
        sender=role_term(sender),
        seq=refusal.seq,
        code=refusal.code,
        detail=refusal.detail,
    )
    ending = t.ending_if_stopped(sender, len(t.frames), said)
    if ending.end is End.NO_GAME and refusal.code is not Code.VERSION:
        ending = replace(ending, culprits=frozenset({sender}))
    return ending

"""The game tree: every signed frame the logs of one game hold, under its parent.

SPEC.md section 16, "The game tree".  A frame names its parent by ``prev``
(the parent's digest, or ``GENESIS``), and two frames with the same body are
one frame, so the frames of any number of logs of one game make a tree.  An
honest game whose connection held is a single path; a fork is two different
frames at one place.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from statki_net.protocol.wire import GENESIS, Accept, AnyFrame, Role, Shot


class Holding(enum.Enum):
    """How a log holds a frame of the tree."""

    TRANSCRIPT = "transcript"
    """Appended to the log's transcript."""
    REFUSED = "refused"
    """The log's refused frame: it stops the log's transcript."""
    EVIDENCE = "evidence"
    """A valid evidence record: the peer's word that did not join the transcript."""


@dataclass(eq=False)
class Node:
    """One frame of the tree, the logs that hold it, and the frames that follow it."""

    frame: AnyFrame
    """Its exact bytes and the header that places it; the message is read by judging it."""
    digest: bytes
    parent: Node | None
    """The frame it follows; None for message 0, which follows ``GENESIS``."""
    shots_before: int
    """Shots on the path from ``GENESIS`` to it, itself left out."""
    accepted_before: bool
    """Whether the guest's accept is on the path from ``GENESIS`` to it, itself left out."""
    children: list[Node] = field(default_factory=list)
    """In the order the logs first showed them."""
    holders: dict[int, Holding] = field(default_factory=dict)
    """The index of each log that holds this frame, and how."""

    @property
    def seq(self) -> int:
        return self.frame.header.seq

    @property
    def sender(self) -> Role:
        return self.frame.header.sender

    @property
    def type(self) -> str:
        """The type its body names (as written, for people), or "?" when it names none."""
        return self.frame.type or "?"

    @property
    def shots_after(self) -> int:
        """Shots on the path from ``GENESIS`` to it, itself included."""
        return self.shots_before + (self.type == Shot.TYPE)


class GameTree:
    """The frames of one game's logs, each under its parent; see the module docstring."""

    def __init__(self) -> None:
        self.roots: list[Node] = []
        """The frames whose parent is ``GENESIS``."""
        self.nodes: dict[bytes, Node] = {}
        """Every frame, by its digest, in the order added: a parent before its children."""
        self._trunk: list[Node] | None = None
        """The trunk as last found, until a frame is added (judging asks for it often)."""

    def add(self, frame: AnyFrame, log: int, holding: Holding) -> Node:
        """Place ``frame`` (whose parent the tree already holds) as held by log ``log``."""
        digest = frame.digest
        node = self.nodes.get(digest)
        if node is None:
            prev = frame.header.prev
            parent = None if prev == GENESIS else self.nodes[prev]
            if parent is None:
                node = Node(frame, digest, None, 0, False)
                self.roots.append(node)
            else:
                accepted = parent.accepted_before or parent.type == Accept.TYPE
                node = Node(frame, digest, parent, parent.shots_after, accepted)
                parent.children.append(node)
            self.nodes[digest] = node
            self._trunk = None
        # A log that holds a frame in its transcript and again as evidence
        # holds it first as the frame it is.
        node.holders.setdefault(log, holding)
        return node

    def trunk(self) -> list[Node]:
        """The path from ``GENESIS`` every frame agrees with: up to the first fork or leaf."""
        if self._trunk is None:
            path: list[Node] = []
            children = self.roots
            while len(children) == 1:
                path.append(children[0])
                children = children[0].children
            self._trunk = path
        return list(self._trunk)

    def fork(self) -> list[Node] | None:
        """The frames at the first fork, one per branch of it; None when the tree is a path."""
        trunk = self.trunk()
        children = trunk[-1].children if trunk else self.roots
        return children if len(children) > 1 else None

    def forks(self) -> list[list[Node]]:
        """The frames at every fork: each place that holds more than one frame."""
        places = [self.roots] + [node.children for node in self.nodes.values()]
        return [frames for frames in places if len(frames) > 1]

    def signers(self) -> dict[Node, frozenset[Role]]:
        """For each frame, the sides that signed it or a frame under it."""
        below: dict[Node, set[Role]] = {}
        # Children were added after their parents: going backwards, every child is
        # done before its parent.
        for node in reversed(self.nodes.values()):
            signed = below.setdefault(node, set())
            signed.add(node.sender)
            if node.parent is not None:
                below.setdefault(node.parent, set()).update(signed)
        return {node: frozenset(roles) for node, roles in below.items()}

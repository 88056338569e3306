"""Judging one game from every log given of it (SPEC.md section 16).

The logs are read one by one (``reading``), their trusted frames make the
game tree (``tree``), each branch of the tree is judged as a transcript
(``branches``), and then the result comes from the first of SPEC's rules that
applies: one signer on two branches, findings anywhere, one branch, a fork
before the guest's accept, a fork after it.  The standing follows from the
violations and the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from statki_net.game.rules import rules_label
from statki_net.game.words import N_, Fact, Phrase, Term, joined, phrase
from statki_net.protocol.endings import End, Ending, Standing, message_term, role_term
from statki_net.protocol.logformat import LogContents
from statki_net.protocol.phases import phase_term
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Accept, Role, Verdict
from statki_net.referee.branches import Branch, Found, judge_branches
from statki_net.referee.reading import ReadLog, game_id_of, read_records
from statki_net.referee.report import (
    BranchAtFork,
    Fork,
    Judgement,
    LogUsed,
    TalkLine,
    fingerprint,
)
from statki_net.referee.tree import GameTree, Holding
from statki_net.referee.violations import (
    BREACHES,
    FILE_FAULTS,
    Kind,
    Violation,
    finding_violation,
)


@dataclass(frozen=True)
class NamedLog:
    """A log to judge, named as the caller knows it (a path, say)."""

    name: str
    contents: LogContents


MAX_JUDGED = 16
"""Branches judged in full when the logs show equivocation (see ``judge_branches``)."""


@dataclass(frozen=True)
class Result:
    """What SPEC's rules make of the tree: an ending, or why there is none."""

    ending: Ending | None
    reason: Phrase
    disputed: bool = False


@dataclass(frozen=True)
class Judged:
    """A judgement, with the transcript its rules, players and shots were read from."""

    judgement: Judgement
    transcript: Transcript | None
    """The longest branch's (a tournament reads who shot first and the boards from it)."""


def judge_game(logs: Sequence[NamedLog], *, every_signature: bool = False) -> Judgement:
    """Judge the game these logs hold; they are taken to be of one game (see ``group``).

    ``every_signature`` checks every frame record's signature, where SPEC.md section 16
    lets a referee rely on each side's last one (see ``reading``)."""
    return judged_game(logs, every_signature=every_signature).judgement


def judged_game(logs: Sequence[NamedLog], *, every_signature: bool = False) -> Judged:
    """``judge_game``, keeping the transcript the report describes."""
    read = [read_records(log.name, log.contents, every_signature=every_signature) for log in logs]
    return judged_read(logs, read)


def judge_read(logs: Sequence[NamedLog], read: list[ReadLog]) -> Judgement:
    """``judge_game`` of logs already read (``read``: each of ``logs``, as ``reading``
    reads it)."""
    return judged_read(logs, read).judgement


def judged_read(logs: Sequence[NamedLog], read: list[ReadLog]) -> Judged:
    """``judge_read``, keeping the transcript the report describes."""
    tree = _tree(read)
    equivocations = _equivocations(tree)
    # Honest logs fork at most once, in two (one side's frames below each branch):
    # more is someone's forgery, and need not cost a judgement per branch.
    limit = MAX_JUDGED if equivocations else None
    branches = _replayed_already(tree, read) or judge_branches(tree, limit)
    if len(branches) > 1:  # in an order of their own, not the order the logs were given in
        branches.sort(key=lambda b: [node.digest for node in b.path])
    found = _findings(branches)
    result = _result(tree, branches, found, equivocations, read)
    whole = _proven_whole(read, branches, result)
    # Each file's faults, by its name: not in the order the logs were given.
    violations = [
        replace(v, log=log.name, set_aside=whole and v.violation_class in FILE_FAULTS)
        for log in sorted(read, key=lambda log: log.name)
        for v in log.violations
    ]
    violations += [finding_violation(f.finding) for f in found]
    violations += [e.violation for e in equivocations]
    violations += _breaches(branches) + _wrong_verdicts(branches)
    judgement = Judgement(
        logs=tuple(_used(log) for log in read),
        ending=result.ending,
        reason=result.ending.reason if result.ending else result.reason,
        messages=max((len(log.frames) for log in read), default=0),
    )
    judgement.game = next(filter(None, (game_id_of(log.contents) for log in logs)), None)
    _describe(judgement, branches, result)
    judgement.violations = [v.placed(judgement.size) for v in violations]
    judgement.fork = _fork(tree, branches)
    judgement.standing = _standing(judgement.violations, result)
    judgement.talk = _talk(read)
    longest = _longest(branches, result)
    return Judged(judgement, longest.transcript if longest else None)


def _tree(read: list[ReadLog]) -> GameTree:
    tree = GameTree()
    for index, log in enumerate(read):
        for frame in log.frames:
            tree.add(frame, index, Holding.TRANSCRIPT)
        if log.refusal is not None:
            tree.add(log.refusal.frame, index, Holding.REFUSED)
        for frame in log.evidence:
            tree.add(frame, index, Holding.EVIDENCE)
    return tree


def _replayed_already(tree: GameTree, read: list[ReadLog]) -> list[Branch] | None:
    """The one branch, when the tree is a single path that a log's replay covers whole:
    the usual case (one log, or both sides' logs of a game that ended well), judged
    without replaying its frames a second time."""
    if tree.fork() is not None:
        return None
    path = tree.trunk()
    for log in read:
        if path and len(log.frames) + (log.refusal is not None) == len(path):
            return [Branch(path, log.transcript, log.refusal, list(log.found))]
    return None


# ---------------------------------------------------------------- violations


def _findings(branches: list[Branch]) -> list[Found]:
    """Every finding on any branch, once (a finding in the trunk is on every branch)."""
    seen: dict[tuple[bytes, str, Phrase], Found] = {}
    for branch in branches:
        for found in branch.found:
            seen.setdefault((found.digest, found.finding.kind, found.finding.detail), found)
    return list(seen.values())


@dataclass(frozen=True)
class Equivocation:
    """A side that signed on two branches of a fork, and whether a game was at stake there."""

    violation: Violation
    accepted: bool


def _equivocations(tree: GameTree) -> list[Equivocation]:
    """A side that signed frames on two branches below a fork has signed two games."""
    found: list[Equivocation] = []
    forks = tree.forks()
    if not forks:  # a single path, as every honest game's logs make: nobody signed two
        return found
    signers = tree.signers()
    for children in forks:
        for role in Role:
            signed = [c for c in children if role in signers[c]]
            if len(signed) < 2:
                continue
            seq = children[0].seq
            if all(c.sender is role for c in signed):
                what = phrase(
                    N_("two different messages for message {seq}: {one} and {two}"),
                    seq=seq,
                    one=message_term(signed[0].type),
                    two=message_term(signed[1].type),
                )
            else:
                own = next((c for c in signed if c.sender is role), None)
                theirs = next(c for c in signed if c.sender is not role)
                mine = (
                    phrase(N_("its own {type} there"), type=message_term(own.type))
                    if own
                    else phrase(N_("after another message"))
                )
                what = phrase(
                    N_(
                        "on two branches of message {seq}: {mine}, and messages after the"
                        " {sender}'s {type}"
                    ),
                    seq=seq,
                    mine=mine,
                    sender=role_term(theirs.sender),
                    type=message_term(theirs.type),
                )
            first = children[0]
            violation = Violation(
                Kind.EQUIVOCATION,
                phrase(N_("the {sender} signed {what}"), sender=role_term(role), what=what),
                role,
                first.shots_before,
            )
            found.append(Equivocation(violation, first.accepted_before))
    return found


def _breaches(branches: list[Branch]) -> list[Violation]:
    """Each refused frame once, under its code, naming its sender."""
    seen: dict[bytes, Violation] = {}
    for branch in branches:
        refusal = branch.refusal
        if refusal is None or refusal.code not in BREACHES or refusal.frame.digest in seen:
            continue
        detail = phrase(
            N_("message {seq} ({type}): {detail}"),
            seq=refusal.seq,
            type=message_term(refusal.type),
            detail=refusal.detail,
        )
        seen[refusal.frame.digest] = Violation(
            BREACHES[refusal.code], detail, refusal.sender, refusal.move
        )
    return list(seen.values())


def _wrong_verdicts(branches: list[Branch]) -> list[Violation]:
    """A side whose signed verdict disagrees with what its transcript showed when it
    signed it.  (Not with the final result: a side whose opponent claims falsely after
    the first verdict, making the end cheated, stated the truth all the same.)"""
    seen: dict[Phrase, Violation] = {}
    for branch in branches:
        t = branch.transcript
        for seq, frame in enumerate(t.frames):
            verdict = frame.message
            if not isinstance(verdict, Verdict):
                continue
            stood = t.settled[seq]
            if stood.end is None:
                continue
            if verdict.winner != stood.winner or verdict.end != stood.end.value:
                role = frame.header.sender
                detail = phrase(
                    N_("message {seq}: the {sender} stated {said}; its transcript showed {truth}"),
                    seq=seq,
                    sender=role_term(role),
                    said=_won(verdict.winner, verdict.end),
                    truth=_won(stood.winner, stood.end.value),
                )
                seen.setdefault(detail, Violation(Kind.WRONG_VERDICT, detail, role))
    return list(seen.values())


# ---------------------------------------------------------------- the result


def _result(
    tree: GameTree,
    branches: list[Branch],
    found: list[Found],
    equivocations: list[Equivocation],
    read: list[ReadLog],
) -> Result:
    """The first of SPEC.md section 16's rules that applies ("The result")."""
    cheating = _cheated(found, equivocations)
    if cheating is not None:
        return Result(cheating, Phrase())
    trunk = tree.trunk()
    fork = tree.fork()
    if fork is None:
        branch = branches[0] if branches else None
        ending = branch.ending if branch else None
        if ending is not None:
            return Result(ending, Phrase())
        if read and all(r.role is None and not r.frames for r in read):
            # Not even a header: no log to say when it stopped (a file of anything else).
            reason = phrase(N_("nothing in the file reads as a statki log"))
            return Result(Ending(End.NO_GAME, reason=reason), Phrase())
        if branch is None or not any(n.type == Accept.TYPE for n in branch.path):
            reason = phrase(N_("the log stops before the guest's accept"))
            return Result(Ending(End.NO_GAME, reason=reason), Phrase())
        return Result(None, _unfinished_reason(branch, read))
    if not any(n.type == Accept.TYPE for n in trunk):
        # Named for information only: a refused frame that stopped a branch before the
        # accept.  A silence after an accept on one branch alone is no one's fault.
        blamed = frozenset(
            r
            for b in branches
            if b.ending is not None and b.ending.end is End.NO_GAME
            for r in b.ending.culprits
        )
        reason = phrase(
            N_("the logs fork at message {seq}, before the guest's accept"), seq=fork[0].seq
        )
        return Result(Ending(End.NO_GAME, None, blamed, reason), Phrase())
    ended = [(b, b.ending) for b in branches if b.ending is not None]
    endings = [ending for _, ending in ended]
    if not endings:
        reason = phrase(
            N_("the logs fork at message {seq} and stop before any ending"), seq=fork[0].seq
        )
        return Result(None, reason)
    if len({e.winner for e in endings}) == 1:
        # Someone's stop or refused frame, rather than a silence, says more; and a side's
        # own signed word (its error) more than a refusal read from the other's frame.
        _, said = min(ended, key=lambda end: (end[1].end is End.TIME, end[0].refusal is not None))
        return Result(said, Phrase())
    reason = phrase(
        N_("the logs fork at message {seq} into endings with different winners: {endings}"),
        seq=fork[0].seq,
        endings=joined([_ending_words(e) for e in endings], "; "),
    )
    return Result(None, reason, disputed=True)


def _cheated(found: list[Found], equivocations: list[Equivocation]) -> Ending | None:
    """Rules 1 and 2: every finding, on any branch, and every equivocation counts; before
    the guest's accept nothing was at stake, and the game is no game, naming them."""
    culprits = frozenset(f.finding.culprit for f in found) | frozenset(
        e.violation.culprit for e in equivocations if e.violation.culprit is not None
    )
    if not culprits:
        return None
    first = found[0].finding.detail if found else equivocations[0].violation.detail
    if not any(f.accepted for f in found) and not any(e.accepted for e in equivocations):
        return Ending(End.NO_GAME, None, culprits, first)
    winner = None if len(culprits) == 2 else next(iter(culprits)).other
    return Ending(End.CHEATED, winner, culprits, first)


def _unfinished_reason(branch: Branch, read: list[ReadLog]) -> Phrase:
    phase = phase_term(branch.transcript.phase)
    notes = [note for log in read for note in log.notes]
    if notes:
        # Unsigned, so it decides nothing; but it is what a writer saw, and often says why.
        # The latest by its writer's clock, not the last log's: the order given says nothing.
        last = max(notes, key=lambda note: (note.at, note.text))
        return phrase(
            N_("the logs stop at {phase}, before any ending (a log's writer noted: {note})"),
            phase=phase,
            note=last.text,
        )
    return phrase(N_("the logs stop at {phase}, before any ending"), phase=phase)


def _ending_words(ending: Ending) -> Phrase:
    if ending.winner is None:
        return phrase(N_("{end} (nobody wins)"), end=Term(ending.end.value))
    return phrase(
        N_("{end} ({winner} wins)"), end=Term(ending.end.value), winner=role_term(ending.winner)
    )


def _won(winner: str | None, end: str) -> Phrase:
    """A verdict's ``winner`` and ``end`` as they are on the wire, or as the transcript
    stood: a role's word and an end's, when they are ours."""
    said_end: Fact = Term(end) if end in END_WORDS else end
    if winner is None:
        return phrase(N_("nobody won ({end})"), end=said_end)
    said: Fact = Term(winner) if winner in ROLE_WORDS else winner
    return phrase(N_("{winner} won ({end})"), winner=said, end=said_end)


END_WORDS = frozenset(end.value for end in End)
ROLE_WORDS = frozenset(role.value for role in Role)


def _proven_whole(read: list[ReadLog], branches: list[Branch], result: Result) -> bool:
    """Whether one log read whole (no tampering or damage in it) holds, itself, every frame
    of a branch that ends with the result's winner: then the faults of the other files are
    set aside (SPEC.md section 16, "The standing").  Otherwise a player could void a game
    the other's log proves by handing in a damaged copy of their own.  The winner, not the
    very ending: of endings with one winner the result may be the one stated in the
    damaged copy's own frames (its writer's error), which no whole log holds."""
    if result.ending is None or result.disputed:
        return False
    whole = {
        index
        for index, log in enumerate(read)
        if not any(v.violation_class in FILE_FAULTS for v in log.violations)
    }
    for branch in branches:
        if not branch.path or branch.ending is None:
            continue
        if branch.ending.winner != result.ending.winner:
            continue
        holders = set(whole)
        for node in branch.path:
            holders &= node.holders.keys()
        if holders:
            return True
    return False


def _standing(violations: list[Violation], result: Result) -> Standing:
    if any(v.weighs for v in violations):  # cheating, tampering or damage, not set aside
        return Standing.INVALID
    if result.disputed:
        return Standing.DISPUTED
    if result.ending is None:
        return Standing.UNFINISHED
    return Standing.VALID


# ---------------------------------------------------------------- the rest of the report


def _talk(read: list[ReadLog]) -> list[TalkLine]:
    """Every log's talk, each line once: in the order it was said, as far as the logs show
    (by the messages its sender had seen, then as the first log holding it lists it)."""
    lines: dict[bytes, TalkLine] = {}
    for log in read:
        for heard in log.talk:
            lines.setdefault(heard.digest, heard.line)
    return sorted(lines.values(), key=lambda line: line.seen)


def _used(log: ReadLog) -> LogUsed:
    return LogUsed(log.name, log.role, len(log.frames), len(log.evidence))


def _longest(branches: list[Branch], result: Result) -> Branch | None:
    """The longest branch; of two as long, the one whose ending the result is, then the one
    whose last frame's digest is the least: never the order the logs were given in."""
    if not branches:
        return None
    return min(
        branches,
        key=lambda b: (
            -len(b.path),
            b.ending != result.ending,
            b.path[-1].digest if b.path else b"",
        ),
    )


def _describe(judgement: Judgement, branches: list[Branch], result: Result) -> None:
    """Rules, players and shots, from the hellos and the longest branch."""
    longest = _longest(branches, result)
    if longest is None:
        return
    t = longest.transcript
    if t.rules is not None:
        judgement.rules = rules_label(t.rules)
        judgement.size = t.rules.size
    for role in Role:
        hello = t.sides[role].hello
        if hello is not None:
            judgement.players[role] = {
                "name": hello.name,
                "key": fingerprint(hello.key),
                "software": hello.software,
            }
        judgement.shots[role] = t.shots_by(role)


def _fork(tree: GameTree, branches: list[Branch]) -> Fork | None:
    """What each branch holds at the first fork."""
    fork = tree.fork()
    if fork is None:
        return None
    seq = fork[0].seq
    at_fork = [
        BranchAtFork(
            b.path[seq].sender,
            b.path[seq].type,
            tuple(sorted(b.path[seq].holders)),
            len(b.path),
            b.ending,
        )
        for b in branches
        if len(b.path) > seq
    ]
    shots = fork[0].shots_before
    return Fork(seq, shots or None, tuple(at_fork))

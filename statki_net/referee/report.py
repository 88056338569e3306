"""A referee's judgement of one game, and how it reads: in words, and as SPEC's report.

``Judgement`` holds what SPEC.md section 16 reports per game: the logs used,
the result (an ``Ending``, or none when the logs are disputed or stop before
any), the standing, the fork if the logs fork, and the violations.  Its words
(``headline``, ``lines``) are what ``statki verify`` prints; ``to_json`` is
the map of "The report".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from statki_net.game.names import said_with_role
from statki_net.game.words import (
    ENGLISH,
    N_,
    SILENCE,
    Phrase,
    Term,
    Words,
    as_is,
    joined,
    listed,
    phrase,
    printable,
)
from statki_net.protocol.endings import End, Ending, Standing, message_term
from statki_net.protocol.wire import Role
from statki_net.referee.violations import Violation, ViolationClass

SAID_BY_THE_END = frozenset({End.FORFEIT, End.NO_GAME, End.REFUSED})
"""Ends whose reason is the heart of the result (who stopped, with what): shown always."""

UNNAMED = N_("unnamed")
"""A side that gave no name: said so, not by its role twice (``host (host)``)."""


STANDING_WORDS = (N_("valid"), N_("invalid"), N_("disputed"), N_("unfinished"))
"""Each ``Standing`` as the catalog has it: a report's words give ``_(standing.value)``."""


def said_side(name: str, key: str, role: Role) -> Phrase:
    """A side as a person reads it: its name (``said_name``: the computer's in the reader's
    words) and its role, ``Ala (host)``; ``unnamed (host)`` when its hello gave no name."""
    if not name:
        # Names and roles only: no words of its own for a catalog to hold.
        return phrase("{name} ({role})", name=Term(UNNAMED), role=Term(role.value))
    return said_with_role(name, key, Term(role.value))


def fingerprint(public_key: bytes) -> str:
    """A key as a person compares it: 20 hex digits of its SHA-256, in fives."""
    digest = hashlib.sha256(public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 5] for i in range(0, 20, 5))


@dataclass(frozen=True)
class LogUsed:
    """One log judged for a game, as the report lists it."""

    name: str
    """As the caller named it (a path, for the command line)."""
    role: str | None
    """From the log's header: unsigned, for people."""
    messages: int
    """Frames in its transcript."""
    evidence: int
    """Its valid evidence records."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "messages": self.messages,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class TalkLine:
    """A line of the players' talk a log holds, its signature checked (SPEC.md section 16):
    shown for people, never weighed in the result."""

    sender: Role
    n: int
    seen: int
    """How many messages its sender's transcript held when it spoke."""
    at: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.sender.value,
            "n": self.n,
            "seen": self.seen,
            "at": self.at,
            "text": self.text,
        }


@dataclass(frozen=True)
class BranchAtFork:
    """What one branch holds at the fork."""

    sender: Role
    type: str
    """The type of the branch's first message."""
    logs: tuple[int, ...]
    """The indices, in the judgement's logs, of the logs that hold that message."""
    messages: int
    """The branch's length, from message 0 to its last."""
    ending: Ending | None

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.sender.value,
            "type": self.type,
            "logs": list(self.logs),
            "messages": self.messages,
            "end": self.ending.end.value if self.ending else None,
            "winner": _role(self.ending.winner if self.ending else None),
        }


@dataclass(frozen=True)
class Fork:
    """Where the logs of a game part: two or more different messages at one place."""

    seq: int
    move: int | None
    """Shots accepted before the fork; None for none."""
    branches: tuple[BranchAtFork, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "move": self.move,
            "branches": [b.to_json() for b in self.branches],
        }


@dataclass
class Judgement:
    """A referee's judgement of one game, from every log it was given of it."""

    game: bytes | None = None
    """The game id; None for a log with fewer than two frame records."""
    logs: tuple[LogUsed, ...] = ()
    ending: Ending | None = None
    """The result; None when the logs are disputed, or stop before any ending."""
    standing: Standing = Standing.UNFINISHED
    reason: Phrase = SILENCE
    """The result's reason for people: the ending's, or why there is none."""
    fork: Fork | None = None
    size: int = 10
    rules: str | None = None
    """The preset, or the presets it combines (``A+B``), or "custom rules"; None without
    the host's hello."""
    players: dict[Role, dict[str, str]] = field(default_factory=dict)
    shots: dict[Role, int] = field(default_factory=dict)
    messages: int = 0
    """The length of the longest transcript among the logs."""
    violations: list[Violation] = field(default_factory=list)
    talk: list[TalkLine] = field(default_factory=list)
    """What the players said, from every log, each line once, in the order it was said."""

    # ------------------------------------------------------------ the result

    @property
    def valid(self) -> bool:
        return self.standing is Standing.VALID

    @property
    def status(self) -> str:
        """The standing, as a word (kept for the callers of version 1)."""
        return self.standing.value

    @property
    def end(self) -> End | None:
        return self.ending.end if self.ending else None

    @property
    def winner(self) -> Role | None:
        return self.ending.winner if self.ending else None

    @property
    def culprits(self) -> frozenset[Role]:
        return self.ending.culprits if self.ending else frozenset()

    @property
    def end_word(self) -> str:
        """How the game ended, in one word: an end of SPEC.md section 8, or ``disputed``
        or ``unfinished`` when there is none."""
        if self.ending is not None:
            return self.ending.end.value
        return "disputed" if self.standing is Standing.DISPUTED else "unfinished"

    @property
    def uncorroborated(self) -> bool:
        """The result rests on the claimant's word alone: a win on time."""
        return self.end is End.TIME

    # ------------------------------------------------------------ words

    def player(self, role: Role | None, words: Words = ENGLISH) -> str:
        return self.side(role).in_words(words)

    def side(self, role: Role | None) -> Phrase:
        """A side as a person reads it (``said_side``), or ``nobody``."""
        if role is None:
            return phrase(N_("nobody"))
        player = self.players.get(role, {})
        return said_side(player.get("name", ""), player.get("key", ""), role)

    def result_words(self, *, details: bool = True, words: Words = ENGLISH) -> str:
        """The result in one line: who won and how, or why nobody did (``result``, said)."""
        return self.result(details=details).in_words(words)

    def result(self, *, details: bool = True) -> Phrase:
        """The result as a phrase: who won and how, or why nobody did.

        ``details`` adds the reason where the words of the end do not say it
        all (a cheat's first finding, a dispute's two endings).
        """
        ending = self.ending
        if ending is None:
            what = phrase(
                N_("disputed, nobody won")
                if self.standing is Standing.DISPUTED
                else N_("unfinished")
            )
            if not self.reason:
                return what
            return phrase(N_("{what}: {reason}"), what=what, reason=self.reason)
        winner, blamed = ending.winner, [r for r in Role if ending.blames(r)]
        player, loser = self.side(winner), self.side(winner.other if winner else None)
        said: Phrase
        match ending.end:
            case End.SUNK | End.RESIGNED | End.TIME | End.FORFEIT if winner is None:
                said = phrase(N_("{end}, nobody won"), end=Term(ending.end.value))
            case End.SUNK:
                said = phrase(N_("{player} won: sank the whole fleet"), player=player)
            case End.RESIGNED:
                said = phrase(N_("{player} won: {loser} resigned"), player=player, loser=loser)
            case End.TIME:
                said = phrase(
                    N_(
                        "{player} won on time: {loser} was silent past the limit (the claimant's"
                        " word, uncorroborated)"
                    ),
                    player=player,
                    loser=loser,
                )
            case End.FORFEIT:
                said = phrase(N_("{player} won by forfeit"), player=player)
            case End.CHEATED if winner is not None:
                said = phrase(N_("{player} won: {loser} cheated"), player=player, loser=loser)
            case End.CHEATED:
                said = phrase(N_("nobody won: both sides cheated"))
            case End.REFUSED:
                said = phrase(
                    N_("no game") if self.reason else N_("no game: the guest refused the rules")
                )
            case End.NO_GAME if blamed:
                said = phrase(
                    N_("no game ({named} to blame, for information)"),
                    named=listed([self.side(r) for r in blamed]),
                )
            case End.NO_GAME:
                said = phrase(N_("no game"))
        if self.reason and (
            ending.end in SAID_BY_THE_END or (details and ending.end is End.CHEATED)
        ):
            return phrase(N_("{said}: {reason}"), said=said, reason=self.reason)
        return said

    def standing_words(self, words: Words = ENGLISH) -> str:
        classes = sorted(
            {v.violation_class for v in self.violations if v.weighs},
            key=list(ViolationClass).index,
        )
        standing = words.gettext(self.standing.value)
        named = ", ".join(words.gettext(c.value) for c in classes)
        return f"{standing} ({named})" if classes else standing

    def headline(self, words: Words = ENGLISH) -> str:
        """One line a person reads at a glance: the standing, then the result."""
        return self.headline_phrase().in_words(words)

    def headline_phrase(self) -> Phrase:
        """``headline`` as a phrase: what a history keeps, to say it in its reader's words."""
        parts = [
            phrase(
                N_("{standing}: {result}"),
                standing=Term(self.standing.value),
                result=self._result_after_standing(),
            )
        ]
        if self.rules is not None:
            parts.append(phrase(N_("; {rules}"), rules=Term(self.rules)))
        if self.shots:
            host, guest = self.shots.get(Role.HOST, 0), self.shots.get(Role.GUEST, 0)
            parts.append(phrase(N_("; shots host {host}, guest {guest}"), host=host, guest=guest))
        serious = [v for v in self.violations if v.weighs]
        if serious:
            parts.append(phrase("; {first}", first=self.violation_phrase(serious[0])))
            if len(serious) > 1:
                parts.append(phrase(N_(" (+{n} more)"), n=len(serious) - 1))
        return joined(parts, "")

    def _result_after_standing(self) -> Phrase:
        """The result, not saying again the "disputed" or "unfinished" the standing says."""
        if self.ending is not None:
            return self.result(details=False)
        if self.standing is Standing.DISPUTED:
            nobody = phrase(N_("nobody won"))
            return (
                phrase(N_("{what}: {reason}"), what=nobody, reason=self.reason)
                if self.reason
                else nobody
            )
        if self.standing is Standing.UNFINISHED and self.reason:
            return self.reason
        return self.result(details=False)

    def describe(self, violation: Violation, words: Words = ENGLISH) -> str:
        """One violation on one line: the player, the move and the square, then what."""
        return self.violation_phrase(violation).in_words(words)

    def violation_phrase(self, violation: Violation) -> Phrase:
        """``describe`` as a phrase."""
        where = [self.side(violation.culprit)] if violation.culprit else []
        if violation.move is not None:
            where.append(phrase(N_("move {move}"), move=violation.move))
        if violation.cell is not None:
            where.append(as_is(violation.cell))
        if violation.log is not None and len(self.logs) > 1:  # which file, where there are two
            where.append(phrase(N_("in {log}"), log=printable(violation.log)))  # no control char
        kind = Term(violation.kind.value)
        detail = violation.detail
        if not where:
            return phrase("{kind}: {detail}", kind=kind, detail=detail)
        at = joined(where, ", ")
        return phrase("{kind} ({where}): {detail}", kind=kind, where=at, detail=detail)

    def lines(self, words: Words = ENGLISH) -> list[str]:
        """The judgement as ``statki verify`` prints it: the game and its logs, the
        result and the standing on lines of their own, then the fork and the violations."""
        _, ngettext = words.gettext, words.ngettext
        title = _("game ") + (self.game.hex()[:16] if self.game else _("(no game id)"))
        if self.rules is not None:
            title += f", {_(self.rules)}"
        if self.players:
            title += _(": {host} v {guest}").format(
                host=self.player(Role.HOST, words), guest=self.player(Role.GUEST, words)
            )
        used = ", ".join(_log_words(log, words) for log in self.logs)
        # A cheat's finding is listed below with the violations: the result need not say it too.
        result = self.result_words(details=not self.violations, words=words)
        out = [
            title,
            _("  logs: {used}").format(used=used),
            _("  result: {result}").format(result=result),
        ]
        if self.shots and self.messages:
            host, guest = self.shots.get(Role.HOST, 0), self.shots.get(Role.GUEST, 0)
            out.append(
                _("  shots: host {host}, guest {guest}; {messages} messages").format(
                    host=host, guest=guest, messages=self.messages
                )
            )
        out.append(_("  standing: {standing}").format(standing=self.standing_words(words)))
        if self.fork is not None:
            shots = self.fork.move
            move = (
                ngettext(", after {shots} shot", ", after {shots} shots", shots).format(shots=shots)
                if shots
                else ""
            )
            out.append(_("  fork at message {seq}{move}:").format(seq=self.fork.seq, move=move))
            for branch in self.fork.branches:
                held = ", ".join(self.logs[i].name for i in branch.logs) or _("no log")
                out.append(
                    _("    {sender} {type} (in {held}; {messages} messages): ").format(
                        sender=_(branch.sender.value),
                        type=message_term(branch.type).in_words(words),
                        held=held,
                        messages=branch.messages,
                    )
                    + _branch_ending(self, branch.ending, words)
                )
        out += [f"  {self.describe(v, words)}" for v in self.violations]
        if self.talk:
            said = words.ngettext("talk: {n} line", "talk: {n} lines", len(self.talk))
            out.append("  " + said.format(n=len(self.talk)))
            out += [
                "    "
                + words.gettext("{player}, after message {seen}: {text}").format(
                    player=self.player(line.sender, words), seen=line.seen, text=line.text
                )
                for line in self.talk
            ]
        return out

    # ------------------------------------------------------------ the report

    def to_json(self) -> dict[str, Any]:
        """SPEC.md section 16, "The report"."""
        ending = self.ending
        return {
            "game": self.game.hex() if self.game else None,
            "logs": [log.to_json() for log in self.logs],
            "result": {
                "end": ending.end.value if ending else None,
                "winner": _role(ending.winner if ending else None),
                "culprits": [r.value for r in Role if ending and ending.blames(r)],
                "uncorroborated": self.uncorroborated,
                "reason": self.result_words(),
            },
            "standing": self.standing.value,
            "fork": self.fork.to_json() if self.fork else None,
            "headline": self.headline(),
            "rules": self.rules,
            "players": {role.value: info for role, info in self.players.items()},
            "shots": {role.value: n for role, n in self.shots.items()},
            "messages": self.messages,
            "violations": [
                {
                    "kind": v.kind.value,
                    "class": v.violation_class.value,
                    "detail": str(v.detail),
                    "culprit": _role(v.culprit),
                    "move": v.move,
                    "square": v.square,
                    "cell": v.cell,
                    "log": v.log,
                }
                for v in self.violations
            ],
            "talk": [line.to_json() for line in self.talk],
        }


def _role(role: Role | None) -> str | None:
    return role.value if role else None


def _log_words(log: LogUsed, words: Words = ENGLISH) -> str:
    _ = words.gettext
    held = _("{messages} messages").format(messages=log.messages)
    if log.evidence:
        held += _(", {evidence} evidence").format(evidence=log.evidence)
    return _("{name} ({role}, {held})").format(
        name=log.name, role=_(log.role) if log.role else _("no role"), held=held
    )


def _branch_ending(judgement: Judgement, ending: Ending | None, words: Words = ENGLISH) -> str:
    _ = words.gettext
    if ending is None:
        return _("no ending")
    if ending.winner is None:
        return _("{end}, nobody wins").format(end=_(ending.end.value))
    return _("{end}, {player} wins").format(
        end=_(ending.end.value), player=judgement.player(ending.winner, words)
    )

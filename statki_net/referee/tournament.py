"""A tournament judged from its logs: each game summed up, then counted or set apart.

A referee is handed a folder of logs; ``statki tournament`` groups them into
games and judges each (``judging``).  What a tournament keeps of a game is a
``GameSummary``, and not in memory: the command puts each on disk
(``store.summaries``) and every pass over the games (``Played``) reads them
again in the order played, so what is held is bounded by the players, not
the games.  ``TournamentRules`` say which games count: the
rules preset, the least move limit, the roster (a name for each key), the
dates, and how often a pair may meet.  ``sort_games`` sets apart, with its
reason, every game that does not count; ``standings`` (in ``standings``)
scores the rest.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from statki_net.game.battle import Defence
from statki_net.game.picture import defence_lines, sea_lines
from statki_net.game.rules import CUSTOM_RULES
from statki_net.game.words import N_, Fact, Phrase, Term, joined, phrase, seconds_said
from statki_net.protocol.endings import End, Standing, role_term
from statki_net.protocol.transcript import Transcript
from statki_net.protocol.wire import Role, Shot
from statki_net.referee.judging import Judged
from statki_net.referee.ratings import TAU

T = TypeVar("T")


class Flag(enum.StrEnum):
    """Something about a game a referee should see beside its result."""

    DISPUTED = "disputed"
    UNCORROBORATED = "uncorroborated time claim"
    CUSTOM_RULES = CUSTOM_RULES
    ONE_SIDE = "only one side's log"
    COPY = "a log given twice"


@dataclass(frozen=True)
class Board:
    """One side's sea at the end, as text: its fleet and the shots on it when revealed,
    else what its opponent learned of it."""

    title: Phrase
    """Whose board it is and what it shows, said in the reader's language."""
    lines: tuple[str, ...]


@dataclass(frozen=True)
class GameSummary:
    """What a tournament keeps of one judged game."""

    game: str
    """The game id in hex; for a log with no game id, the log's name."""
    logs: tuple[str, ...]
    log_roles: tuple[str | None, ...]
    keys: Mapping[Role, str]
    """Each side's key fingerprint, from its hello."""
    names: Mapping[Role, str]
    """Each side's name, from its hello (unsigned words a player chose)."""
    started: int | None
    """The host's clock in its hello, ms since 1970: when the game began, by the host."""
    rules: str | None
    move_ms: int
    first: Role | None
    """Who fired the first shot."""
    standing: Standing
    end: End | None
    winner: Role | None
    culprits: frozenset[Role]
    result: Phrase
    """The result, as ``statki verify`` says it (``str()``: the English of ``--json``)."""
    reason: Phrase
    """Why the game ended so, or why it has no result (the judgement's reason)."""
    shots: Mapping[Role, int]
    boards: tuple[Board, ...] = ()

    @property
    def flags(self) -> tuple[Flag, ...]:
        flags = []
        if self.standing is Standing.DISPUTED:
            flags.append(Flag.DISPUTED)
        if self.end is End.TIME:
            flags.append(Flag.UNCORROBORATED)
        if self.rules == CUSTOM_RULES:
            flags.append(Flag.CUSTOM_RULES)
        roles = [role for role in self.log_roles if role is not None]
        if len(set(roles)) < 2:
            flags.append(Flag.ONE_SIDE)
        if len(roles) > len(set(roles)):
            flags.append(Flag.COPY)
        return tuple(flags)

    @property
    def both_lost(self) -> bool:
        """Both sides cheated: the game counts as a loss for each."""
        return self.end is End.CHEATED and self.winner is None


def summarize(judged: Judged) -> GameSummary:
    """The summary of one judged game (run where the game was judged: the transcript
    stays there)."""
    j, t = judged.judgement, judged.transcript
    started = t.frames[0].header.at if t is not None and t.frames else None
    keys = {role: info["key"] for role, info in j.players.items()}
    return GameSummary(
        game=j.game.hex() if j.game else (j.logs[0].name if j.logs else "?"),
        logs=tuple(log.name for log in j.logs),
        log_roles=tuple(log.role for log in j.logs),
        keys=keys,
        names={role: info["name"] for role, info in j.players.items()},
        started=started,
        rules=j.rules,
        # The limits the host's hello proposed; none read (a file that is no game), none
        # told: not the defaults a transcript starts with.
        move_ms=t.limits.move_ms if t is not None and t.sides[Role.HOST].hello else 0,
        first=_first_shooter(t),
        standing=j.standing,
        end=j.end,
        winner=j.winner,
        culprits=j.culprits,
        result=j.result(),
        reason=j.reason,
        shots=dict(j.shots),
        boards=_boards(t, {role: info["name"] or role.value for role, info in j.players.items()}),
    )


def _first_shooter(t: Transcript | None) -> Role | None:
    if t is None:
        return None
    return next((f.header.sender for f in t.frames if isinstance(f.message, Shot)), None)


def _boards(t: Transcript | None, names: Mapping[Role, str]) -> tuple[Board, ...]:
    if t is None or t.rules is None:
        return ()
    boards = []
    for role in Role:
        side, opponent = t.sides[role], t.sides[role.other]
        name = names.get(role, role.value)
        if side.fleet is not None:
            shot = opponent.sea.shot if opponent.sea is not None else 0
            lines = defence_lines(Defence(t.rules, side.fleet, shot))
            title = phrase(N_("{name}'s fleet ({role}), revealed"), name=name, role=role_term(role))
            boards.append(Board(title, tuple(lines)))
        elif opponent.sea is not None:
            lines = sea_lines(opponent.sea)
            title = phrase(
                N_("{name}'s sea ({role}), as its opponent learned it"),
                name=name,
                role=role_term(role),
            )
            boards.append(Board(title, tuple(lines)))
    return tuple(boards)


# ---------------------------------------------------------------- the tournament's rules


@dataclass(frozen=True)
class Points:
    """What a game is worth to each side."""

    win: float = 1.0
    loss: float = 0.0
    forfeit: float = 0.0
    """A loss by forfeit."""
    cheated: float = 0.0
    """A loss by cheating."""

    def of(self, game: GameSummary, role: Role) -> float:
        if game.winner is role:
            return self.win
        if game.end is End.FORFEIT:
            return self.forfeit
        if game.end is End.CHEATED and role in game.culprits:
            return self.cheated
        return self.loss


@dataclass(frozen=True)
class TournamentRules:
    """Which games count (from the command's options or the referee's TOML file)."""

    preset: str | None = None
    """The rules every game must use (a preset, or presets joined by +); None: any rules
    some presets make, but not custom rules."""
    min_move_ms: int = 0
    """The least move limit a game may have."""
    roster: Mapping[str, str] = field(default_factory=dict)
    """Player name -> key fingerprint; empty: every key plays, under its hello's name."""
    since: int | None = None
    """The first moment a game may begin, ms since 1970 (by the host's clock)."""
    until: int | None = None
    """The moment after the last a game may begin."""
    games_per_pair: int = 1
    """How many games between the same two players count; later ones are set apart."""
    points: Points = field(default_factory=Points)
    tau: float = TAU
    """Glicko-2's system constant."""


class Apart(enum.StrEnum):
    """Why a game is not scored."""

    NO_RESULT = "no result"
    UNFINISHED = "unfinished"
    DISPUTED = "disputed"
    TAMPERED = "tampered or damaged"
    RULES = "other rules"
    MOVE_LIMIT = "move limit"
    STRANGER = "not on the roster"
    DATES = "outside the dates"
    REPLAYED = "played again"


@dataclass(frozen=True)
class SetApart:
    """A game not scored, and why."""

    game: GameSummary
    why: Apart
    detail: Phrase
    """Said in words where shown; ``str()`` for ``--json`` and ``--csv``."""


class Played(Protocol):
    """Every game of a tournament in the order played (``game_order``), read afresh at each
    pass: a list, or the summaries put away on disk (``store.summaries``), so that ten
    thousand games need not be in memory at once."""

    def __iter__(self) -> Iterator[GameSummary]: ...


@dataclass(frozen=True)
class Rereadable(Generic[T]):
    """Some of a tournament's games: how many, and a fresh pass over them each time they
    are iterated (nothing of them is held here)."""

    count: int
    items: Callable[[], Iterator[T]]

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[T]:
        return self.items()


@dataclass(frozen=True)
class Sorted:
    """The games of a tournament in order: those scored, and those set apart.

    It holds what is bounded by the players (their names, the counts), not the
    games: each pass over ``scored``, ``apart`` or ``in_order`` reads the games
    played again and sorts each anew, as ``sort_played`` first did.
    """

    played: Played
    rules: TournamentRules
    players: Mapping[str, str]
    """Every key of the roster and of a scored game -> the name it plays under."""
    counted: tuple[int, int]
    """How many games are scored, and how many set apart."""

    @property
    def scored(self) -> Rereadable[GameSummary]:
        every = self.in_order
        return Rereadable(self.counted[0], lambda: (g for _, g, a in every() if a is None))

    @property
    def apart(self) -> Rereadable[SetApart]:
        every = self.in_order
        return Rereadable(self.counted[1], lambda: (a for _, _, a in every() if a is not None))

    def name(self, key: str) -> str:
        return self.players.get(key, key)

    def in_order(self) -> Iterator[tuple[int, GameSummary, SetApart | None]]:
        """Every game in the order played, numbered from 1, with why it is set apart."""
        for n, (game, apart) in enumerate(_sorted(self.played, self.rules), 1):
            yield n, game, apart


def game_order(game: GameSummary) -> tuple[int, str]:
    """Games in the order they were played, by the host's clock, then by id."""
    return (game.started or 0, game.game)


def sort_games(games: Iterable[GameSummary], rules: TournamentRules) -> Sorted:
    """Each game scored or set apart (the first reason that applies), in playing order."""
    return sort_played(sorted(games, key=game_order), rules)


def sort_played(played: Played, rules: TournamentRules) -> Sorted:
    """``sort_games`` for games already in playing order, read in one pass here (to count
    them and name the players) and again at each pass over the result."""
    by_key = {key: name for name, key in rules.roster.items()}
    # Every entrant of a roster plays, scored games or none: a referee looks for each one
    # in the standings (with no game), and a game set apart names its players as the
    # roster does, as the scored ones do, not by their hellos.
    first: dict[str, str] = dict(by_key)
    scored = apart = 0
    for game, set_apart in _sorted(played, rules):
        if set_apart is not None:
            apart += 1
            continue
        scored += 1
        for role in Role:
            key = game.keys[role]
            first.setdefault(key, by_key.get(key) or game.names.get(role) or key[:11])
    return Sorted(played, rules, _told_apart(first), (scored, apart))


def _sorted(
    played: Played, rules: TournamentRules
) -> Iterator[tuple[GameSummary, SetApart | None]]:
    """Each game in order, with why it is set apart (None when it is scored)."""
    by_key = {key: name for name, key in rules.roster.items()}
    met = Meetings()
    for game in played:
        reason = _not_counted(game, rules, by_key)
        if reason is None and met.one_more(game) > rules.games_per_pair:
            host, guest = (_named(game, role, by_key) for role in Role)
            meet = (
                phrase(
                    N_("{host} and {guest} may meet once; this game is one more"),
                    host=host,
                    guest=guest,
                )
                if rules.games_per_pair == 1
                else phrase(
                    N_("{host} and {guest} may meet {n} times; this game is one more"),
                    host=host,
                    guest=guest,
                    n=rules.games_per_pair,
                )
            )
            reason = (Apart.REPLAYED, meet)
        yield game, None if reason is None else SetApart(game, *reason)


class Meetings:
    """How often each pair of players has met so far, in a pass over the games.

    The pairs are bounded by the players, not the games, but a hundred players
    make 4,950 of them, which a tournament meets one by one as it goes.  So a
    pair is counted under its players' numbers, one row a player: a few
    dozen bytes a pair (numbers and counts below 257 are Python's own, made
    once), where a set of its two keys held the strings of a game of each pair
    (150 bytes and more a pair)."""

    def __init__(self) -> None:
        self._players: dict[str, int] = {}
        self._met: dict[int, dict[int, int]] = {}

    def one_more(self, game: GameSummary) -> int:
        """Count the game's meeting; how often its two players have met, this game too."""
        # Its keys as a set, as a pair is (one key playing itself is a pair of its own).
        numbers = sorted({self._number(key) for key in game.keys.values()}) or [-1]
        row = self._met.setdefault(numbers[0], {})
        count = row.get(numbers[-1], 0) + 1
        row[numbers[-1]] = count
        return count

    def _number(self, key: str) -> int:
        return self._players.setdefault(key, len(self._players))


def _not_counted(
    game: GameSummary, rules: TournamentRules, by_key: Mapping[str, str]
) -> tuple[Apart, Phrase] | None:
    """Why the game does not count, before counting meetings; None when it does.  The
    referee's words of a game (its result, its reason) are its detail, said where shown."""
    if game.standing is Standing.DISPUTED:
        return Apart.DISPUTED, game.reason or game.result
    if game.standing is Standing.UNFINISHED:
        return Apart.UNFINISHED, game.reason or game.result
    if game.standing is Standing.INVALID and game.end is not End.CHEATED:
        return Apart.TAMPERED, game.result
    if game.end is None or (game.winner is None and not game.both_lost):
        return Apart.NO_RESULT, game.result
    wanted = rules.preset
    if game.rules != wanted and (wanted is not None or game.rules == CUSTOM_RULES):
        what: Fact = wanted or phrase(N_("rules some presets make"))
        played: Fact = Term(game.rules) if game.rules == CUSTOM_RULES else str(game.rules)
        return Apart.RULES, phrase(
            N_("played under {played}; the tournament plays {what}"), played=played, what=what
        )
    if game.move_ms < rules.min_move_ms:
        return (
            Apart.MOVE_LIMIT,
            phrase(
                N_("move limit {limit}, below the tournament's {least}"),
                limit=_seconds(game.move_ms),
                least=_seconds(rules.min_move_ms),
            ),
        )
    if by_key:
        strangers = [role for role in Role if game.keys.get(role) not in by_key]
        if strangers:
            who = [
                phrase(
                    N_("the {side}'s key {key} ({name})"),
                    side=role_term(role),
                    key=game.keys.get(role, "(none)"),
                    name=repr(game.names.get(role, "")),
                )
                for role in strangers
            ]
            return Apart.STRANGER, phrase(N_("{who}: not on the roster"), who=joined(who, " and "))
    if rules.since is not None and (game.started is None or game.started < rules.since):
        return Apart.DATES, phrase(N_("begun before the tournament's first day"))
    if rules.until is not None and (game.started is None or game.started >= rules.until):
        return Apart.DATES, phrase(N_("begun after the tournament's last day"))
    return None


def _named(game: GameSummary, role: Role, by_key: Mapping[str, str]) -> str:
    key = game.keys.get(role, "")
    return by_key.get(key) or game.names.get(role) or key


def _told_apart(first: Mapping[str, str]) -> dict[str, str]:
    """The name each key plays under (``first``: the roster's, else the name its hellos
    gave first), with the key's first digits where two keys would share one."""
    counts: dict[str, int] = {}
    for name in first.values():
        counts[name] = counts.get(name, 0) + 1
    return {key: name if counts[name] == 1 else f"{name} {key[:5]}" for key, name in first.items()}


def _seconds(ms: int) -> Phrase:
    return phrase("{seconds} s", seconds=seconds_said(ms / 1000))


def is_fingerprint(text: str) -> bool:
    """Whether ``text`` is written as ``fingerprint`` writes a key."""
    parts = text.split("-")
    return (
        len(parts) == 4
        and all(len(p) == 5 for p in parts)
        and all(c in "0123456789abcdef" for c in "".join(parts))
    )

"""The standings of a tournament's scored games: points, tie-breaks, crosstable, ratings.

A win is one point and a loss none, unless the tournament says otherwise
(``Points``: a league may give a played loss a point and a forfeited one
none); a game both sides cheated in is a loss by cheating for each.  Players
level on points are ordered by, in this order:

1. head-to-head: the points each scored in the games among the level players;
2. the number of wins;
3. Sonneborn-Berger: the sum of the points of every opponent a player beat;
4. the shots-to-win difference: over the games won by sinking the whole fleet,
   whoever won them, the shots the player's opponents needed to sink its fleet
   (in its losses), less the shots it needed to sink theirs (in its wins): so
   winning in fewer shots, and losing in more, both count for a player (README,
   "Referee's desk", says the same: what a referee reads is what is computed);

and then by name, so the order is always the same.  Players equal on all
of these share a place.  Ratings are Glicko-2 (``ratings``), from the games
in the order they were played, each game one rating period for its two
players; a game both sides cheated in has no place in them (Glicko-2 has no
result where both lose).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from statki_net.protocol.endings import End
from statki_net.protocol.wire import Role
from statki_net.referee.ratings import TAU, Outcome, Rating, rate
from statki_net.referee.tournament import GameSummary, Points, Sorted

HOW = (End.SUNK, End.RESIGNED, End.TIME, End.FORFEIT, End.CHEATED)
"""The ends a scored game can have, in the order the standings list them."""

WIN_ONLY = Points()
"""A win one point, every loss none: the default."""

TIE_BREAKS = ("head-to-head", "wins", "Sonneborn-Berger", "shots-to-win difference")


@dataclass
class Line:
    """One player's row of the standings."""

    key: str
    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    won_by: dict[End, int] = field(default_factory=lambda: dict.fromkeys(HOW, 0))
    lost_by: dict[End, int] = field(default_factory=lambda: dict.fromkeys(HOW, 0))
    points: float = 0.0
    head_to_head: float = 0.0
    sonneborn_berger: float = 0.0
    shots_to_win: int = 0
    rating: Rating = field(default_factory=Rating)
    rated_games: int = 0
    place: int = 0

    def order(self) -> tuple[float, float, int, float, int]:
        """What ranks the line, best first once negated: points, then the tie-breaks."""
        return (
            self.points,
            self.head_to_head,
            self.wins,
            self.sonneborn_berger,
            self.shots_to_win,
        )


@dataclass(frozen=True)
class Standings:
    """The table a referee publishes."""

    lines: tuple[Line, ...]
    """Best first."""
    crosstable: Mapping[str, Mapping[str, tuple[float, ...]]]
    """Row key -> column key -> the row player's points in each of their games, in order."""
    games: Sorted


def standings(games: Sorted, scheme: Points = WIN_ONLY, tau: float = TAU) -> Standings:
    lines = {key: Line(key, games.name(key)) for key in games.players}
    cross: dict[str, dict[str, tuple[float, ...]]] = {key: {} for key in lines}
    cells = Cells()
    for game in games.scored:
        for role in Role:
            me, them = lines[game.keys[role]], lines[game.keys[role.other]]
            end = game.end
            assert end is not None, "a scored game has an end"
            me.games += 1
            me.points += scheme.of(game, role)
            if game.winner is role:
                me.wins += 1
                me.won_by[end] += 1
            else:
                me.losses += 1
                me.lost_by[end] += 1
            row = cross[me.key]
            row[them.key] = cells.one_more(row.get(them.key, ()), scheme.of(game, role))
            if end is End.SUNK and game.winner is not None:
                needed = game.shots.get(game.winner, 0)
                me.shots_to_win += -needed if game.winner is role else needed
    for game in games.scored:
        if game.winner is not None:
            winner, loser = (lines[game.keys[r]] for r in (game.winner, game.winner.other))
            winner.sonneborn_berger += loser.points
    _head_to_head(list(lines.values()), cross)
    _rate(lines, games.scored, tau)
    ranked = sorted(lines.values(), key=lambda line: (_negated(line.order()), line.name, line.key))
    for index, line in enumerate(ranked):
        level = index > 0 and ranked[index - 1].order() == line.order()
        line.place = ranked[index - 1].place if level else index + 1
    return Standings(tuple(ranked), cross, games)


class Cells:
    """The crosstable's cells, each made once: a cell is the points of a pair's games
    in order, and a tournament's are a few sequences (1, 0, 1 0, ...), but a hundred
    players have 9,900 cells, which fill one by one as the pairs meet.  One tuple for
    each sequence (not a list and a tuple for each cell) keeps the main process's
    memory from growing with the games before every pair has met."""

    def __init__(self) -> None:
        self._made: dict[tuple[float, ...], tuple[float, ...]] = {}

    def one_more(self, cell: tuple[float, ...], points: float) -> tuple[float, ...]:
        """The cell with one more game's points."""
        longer = (*cell, points)
        return self._made.setdefault(longer, longer)


def _negated(order: tuple[float, float, int, float, int]) -> tuple[float, ...]:
    return tuple(-value for value in order)


def _head_to_head(
    lines: Sequence[Line], cross: Mapping[str, Mapping[str, tuple[float, ...]]]
) -> None:
    """Each player's points against the players level with it on points."""
    level: dict[float, list[Line]] = {}
    for line in lines:
        level.setdefault(line.points, []).append(line)
    for group in level.values():
        if len(group) < 2:
            continue
        keys = {line.key for line in group}
        for line in group:
            line.head_to_head = sum(
                sum(scores) for them, scores in cross[line.key].items() if them in keys
            )


def _rate(lines: Mapping[str, Line], scored: Iterable[GameSummary], tau: float) -> None:
    """Glicko-2, one rating period a game, in the order played."""
    for game in scored:
        if game.winner is None:
            continue
        host, guest = lines[game.keys[Role.HOST]], lines[game.keys[Role.GUEST]]
        before = {Role.HOST: host.rating, Role.GUEST: guest.rating}
        for role, line in ((Role.HOST, host), (Role.GUEST, guest)):
            outcome = Outcome(before[role.other], 1.0 if game.winner is role else 0.0)
            line.rating = rate(before[role], [outcome], tau)
            line.rated_games += 1

"""The tournament's games, kept in a temporary SQLite file while its outputs are written.

A game's summary (its keys, names, shots, logs and flags, about 2 KB) and its
two boards as text (another 2 to 3 KB) are all ``statki tournament`` keeps of
it; kept in memory, ten thousand games' would make the main process grow with
the folder.  So each summary goes to a file as it arrives from its worker,
and every pass over the games (the standings, the ratings, each table of the
games) reads them back from it in the order played, one at a time; the boards
are read only for the formats that show them (the JSON, the HTML page).  What
stays in memory is bounded by the players, not the games.  The file lives
only while the tournament's outputs are written: it is deleted when the store
is closed, also when the command fails half way.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterator

from statki_net.referee.tournament import Board, GameSummary
from statki_net.store.scratch import Scratch

PLAYED_FROM = 2**63
"""Added to a game's start (a msgpack integer, from -2**63 up to 2**64) so that nine bytes,
big-endian, sort as the numbers do."""


class SummaryStore(Scratch):
    """Each game's summary, and apart from it its boards, by the game's id and logs (which
    no other game shares)."""

    def __init__(self) -> None:
        super().__init__(
            "statki-tournament-",
            (
                "CREATE TABLE games (seq INTEGER PRIMARY KEY, played BLOB NOT NULL,"
                " game BLOB NOT NULL UNIQUE, summary BLOB NOT NULL, boards BLOB)",
                # Kept up as the games come (they come about in order): an index built
                # after the last one sorted them all, in memory that grew with them.
                "CREATE INDEX played ON games (played, seq)",
            ),
        )

    def keep(self, game: GameSummary) -> None:
        """Put the game away: its summary, and its boards apart from it."""
        summary = pickle.dumps(dataclasses.replace(game, boards=()))
        # Pickled as the summary is: a board's title is a phrase, said where it is shown.
        boards = pickle.dumps(game.boards) if game.boards else None
        self._db.execute(
            "INSERT INTO games (played, game, summary, boards) VALUES (?, ?, ?, ?)",
            (_played(game), _key(game), summary, boards),
        )

    def __iter__(self) -> Iterator[GameSummary]:
        """The games kept, without their boards, in the order played (``game_order``; those
        that tie, as they were kept): a fresh read each time (``referee.tournament.Played``)."""
        rows = self._db.execute("SELECT summary FROM games ORDER BY played, seq")
        for (summary,) in rows:
            game: GameSummary = pickle.loads(summary)
            yield game

    def __len__(self) -> int:
        (count,) = self._db.execute("SELECT count(*) FROM games").fetchone()
        return int(count)

    def boards(self, game: GameSummary) -> tuple[Board, ...]:
        """The boards ``keep`` put away for the game (none when it had none)."""
        row = self._db.execute("SELECT boards FROM games WHERE game = ?", (_key(game),)).fetchone()
        if row is None or row[0] is None:
            return ()
        boards: tuple[Board, ...] = pickle.loads(row[0])
        return boards


def _played(game: GameSummary) -> bytes:
    """``game_order``'s key as bytes SQLite sorts the same way (UTF-8 sorts by code point)."""
    start = (game.started or 0) + PLAYED_FROM
    return start.to_bytes(9, "big") + game.game.encode("utf-8", "surrogatepass")


def _key(game: GameSummary) -> bytes:
    # A game id alone may repeat (a log with none is named by its file); its logs do not:
    # each log file is in one game only.  A file's name may hold any bytes (surrogates).
    return "\0".join((game.game, *game.logs)).encode("utf-8", "surrogatepass")

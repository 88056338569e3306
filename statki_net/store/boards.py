"""The tournament's boards, kept in a temporary SQLite file while its outputs are written.

Each game's two boards as text are most of what ``statki tournament`` keeps of
it (about 3 KB of a game's summary); kept in memory, ten thousand games' would
make the main process grow with the folder.  So the boards go to a file as
each game's summary arrives, the summary stays in memory without them, and
the JSON and the HTML page read them back one game at a time.  The file lives
only while the tournament's outputs are written: it is deleted when the store
is closed, also when the command fails half way.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import tempfile
from pathlib import Path
from types import TracebackType

from statki_net.referee.tournament import Board, GameSummary


class BoardStore:
    """Each game's boards, by the game's id and logs (which no other game shares)."""

    def __init__(self) -> None:
        handle, name = tempfile.mkstemp(prefix="statki-tournament-", suffix=".sqlite")
        os.close(handle)
        self.path = Path(name)
        try:
            # The file is scratch: losing it to a crash loses nothing, so no syncs.
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA synchronous = OFF")
            self._db.execute("PRAGMA journal_mode = OFF")
            # Each game's boards are read back once, so a cache does not pay: SQLite's own
            # (2 MiB) would only make the process grow with the first thousand games.
            self._db.execute("PRAGMA cache_size = -128")
            self._db.execute("CREATE TABLE boards (game TEXT PRIMARY KEY, boards TEXT NOT NULL)")
        except BaseException:
            self.path.unlink(missing_ok=True)
            raise

    def keep(self, game: GameSummary) -> GameSummary:
        """Put the game's boards in the file; the summary without them, to keep in memory."""
        if not game.boards:
            return game
        boards = [[board.title, list(board.lines)] for board in game.boards]
        self._db.execute("INSERT INTO boards VALUES (?, ?)", (_key(game), json.dumps(boards)))
        return dataclasses.replace(game, boards=())

    def boards(self, game: GameSummary) -> tuple[Board, ...]:
        """The boards ``keep`` put away for the game (none when it had none)."""
        row = self._db.execute("SELECT boards FROM boards WHERE game = ?", (_key(game),)).fetchone()
        if row is None:
            return game.boards
        return tuple(Board(title, tuple(lines)) for title, lines in json.loads(row[0]))

    def close(self) -> None:
        self._db.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> BoardStore:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _key(game: GameSummary) -> str:
    # A game id alone may repeat (a log with none is named by its file); its logs do not:
    # each log file is in one game only.
    return "\0".join((game.game, *game.logs))

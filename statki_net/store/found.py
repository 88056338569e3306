"""The logs a tournament was given, and each one's game, in a temporary SQLite file.

``statki tournament`` finds the logs under its folders, reads each far enough
to know its game, then judges each game from all its logs (which may lie in
different folders).  The grouping needs every log's game before the first
game is judged; held in memory, ten thousand logs' paths and game ids would
make the main process grow with the folder.  So the walk puts each log here
as it finds it, the workers' answers (its game, by id or by its path) go
here too, and the games are read back a game at a time, in the order their
first log was found.  The file is deleted when the store is closed, also
when the command fails half way.
"""

from __future__ import annotations

from collections.abc import Iterator

from statki_net.store.scratch import Scratch

Log = tuple[str, bytes | None, bool]
"""A log found, as ``cli.verify.Source`` holds it: its path, and what it held if it was read
already (a FIFO, once; only the start of a file larger than any log when the flag is set)."""


class FoundLogs(Scratch):
    """The logs found, in the order found, and the game each belongs to."""

    def __init__(self) -> None:
        super().__init__(
            "statki-logs-",
            (
                "CREATE TABLE found (seq INTEGER PRIMARY KEY, path BLOB NOT NULL,"
                " data BLOB, too_large INTEGER NOT NULL)",
                # Each game by its first log's number, and its logs under that number in
                # the order found: ``games`` walks this key in order, with nothing to
                # sort (a sort's memory grew with the logs).
                "CREATE TABLE firsts (game BLOB PRIMARY KEY, first INTEGER NOT NULL) WITHOUT ROWID",
                "CREATE TABLE games (first INTEGER NOT NULL, seq INTEGER NOT NULL,"
                " PRIMARY KEY (first, seq)) WITHOUT ROWID",
            ),
        )
        self._count = 0

    def add(self, log: Log) -> None:
        """One more log found."""
        path, data, too_large = log
        self._count += 1
        self._db.execute(
            "INSERT INTO found VALUES (?, ?, ?, ?)", (self._count, _blob(path), data, too_large)
        )

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Log]:
        """The logs, in the order found."""
        rows = self._db.execute("SELECT path, data, too_large FROM found ORDER BY seq")
        for path, data, too_large in rows:
            yield _text(path), data, bool(too_large)

    def belongs(self, number: int, game: bytes | str) -> None:
        """The ``number``-th log found (from 1) is of ``game``: its id, or for a log that
        has none, its path (a game alone)."""
        key = b"i" + game if isinstance(game, bytes) else b"p" + _blob(game)
        self._db.execute("INSERT OR IGNORE INTO firsts VALUES (?, ?)", (key, number))
        self._db.execute(
            "INSERT INTO games SELECT first, ? FROM firsts WHERE game = ?", (number, key)
        )

    def game_count(self) -> int:
        (count,) = self._db.execute("SELECT count(*) FROM firsts").fetchone()
        return int(count)

    def games(self) -> Iterator[tuple[Log, ...]]:
        """The logs of each game, in the order the games' first logs were found; a file
        found twice in a game is one log (the first place it was found, the last reading)."""
        rows = self._db.execute(
            "SELECT g.first, f.path, f.data, f.too_large FROM games AS g"
            " JOIN found AS f ON f.seq = g.seq ORDER BY g.first, g.seq"
        )
        game: int | None = None
        logs: dict[str, Log] = {}
        for key, path, data, too_large in rows:
            if key != game and logs:
                yield tuple(logs.values())
                logs = {}
            game = key
            logs[_text(path)] = (_text(path), data, bool(too_large))
        if logs:
            yield tuple(logs.values())


def _blob(path: str) -> bytes:
    # A file's name may hold any bytes (the walk gives them as surrogates).
    return path.encode("utf-8", "surrogatepass")


def _text(blob: bytes) -> str:
    return blob.decode("utf-8", "surrogatepass")

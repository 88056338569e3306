"""Every game played, in a SQLite database in statki's home.

Each write is one transaction.  A game is recorded when it starts (so a crash
leaves a row saying it never finished) and updated when it ends.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, Words, phrase, phrase_from_map, phrase_map
from statki_net.protocol.endings import End, Result
from statki_net.store.failures import system_words
from statki_net.store.home import refuse_link

DB_FILE = "history.sqlite3"
SCHEMA_VERSION = 2
"""2: ``verdict_said``, the verdict as a phrase (version 1's rows have none: their English
``verdict`` is shown as it is)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id       TEXT PRIMARY KEY,   -- hex of the protocol's game id, or "log:" and the log's name
    started       INTEGER NOT NULL,   -- ms since 1970
    ended         INTEGER,            -- NULL while the game is on or if it never ended
    my_role       TEXT NOT NULL,      -- host or guest
    opponent_key  TEXT NOT NULL,      -- the opponent's key fingerprint
    opponent_name TEXT NOT NULL,
    rules         TEXT NOT NULL,      -- preset name or "custom rules"
    result        TEXT,               -- won, lost, none; NULL until the game ends
    end_reason    TEXT,               -- sunk, resigned, timeout, cheated, refused, error, closed
    my_shots      INTEGER NOT NULL DEFAULT 0,
    their_shots   INTEGER NOT NULL DEFAULT 0,
    verdict       TEXT,               -- the referee's one-line verdict on the log, English
    log_path      TEXT NOT NULL,
    verdict_said  TEXT                -- the verdict as a phrase's map (JSON), said when shown
);
"""


def _said(stored: str | None) -> Phrase | None:
    """A verdict's phrase as the row keeps it; None when it keeps none, or one this statki
    cannot read (its English is shown instead)."""
    if stored is None:
        return None
    try:
        return phrase_from_map(json.loads(stored))
    except (ValueError, KeyError, TypeError):
        return None


def local_minute(ms: int) -> str:
    """A moment of this player's games as their own clock reads it, to the minute: what the
    history, the history screen and the unfinished games show, alike.  (A record meant for
    others, a game's paper or a tournament's report, says its times in UTC, and says so.)"""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def _row(*columns: object) -> GameRow:
    *kept, said = columns
    return dataclasses.replace(GameRow(*kept), said=_said(said))  # type: ignore[arg-type]


class HistoryError(UsageError):
    """The history file cannot be used: not a database, unreadable, or locked too long."""


@contextmanager
def _database(path: Path) -> Iterator[None]:
    """Turn SQLite's failures into one line that names the file and what to do."""
    try:
        yield
    except sqlite3.ProgrammingError:  # statki's own mistake (a closed history): not the file's
        raise
    except sqlite3.DatabaseError as error:  # OperationalError included: unreadable, locked
        advice = (
            N_("move it away and statki starts a new one")
            if path.exists()
            else N_("check that its folder exists and may be written")
        )
        raise HistoryError(
            phrase(
                N_("the history {path} cannot be used ({error}); {advice}"),
                path=str(path),
                error=system_words(error),
                advice=phrase(advice),
            )
        ) from None


def _keep_private(path: Path) -> None:
    """The database and SQLite's files beside it are readable by their owner only."""
    for each in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if each.exists() and not each.is_symlink():
            os.chmod(each, 0o600)


@dataclass(frozen=True)
class GameRow:
    """One game as the history keeps it; ``result`` and ``end_reason`` hold a ``Result``'s and
    an ``End``'s values."""

    game_id: str
    started: int
    my_role: str
    opponent_key: str
    opponent_name: str
    rules: str
    log_path: str
    ended: int | None = None
    result: str | None = None
    end_reason: str | None = None
    my_shots: int = 0
    their_shots: int = 0
    verdict: str | None = None
    """The referee's line in English: what ``--json`` shows."""
    said: Phrase | None = None
    """The verdict as a phrase, said in the reader's language; None in a row written before
    schema 2 (its ``verdict`` is shown as it is)."""

    def in_words(self, words: Words) -> str | None:
        """The verdict in ``words``' language, where the row keeps it as a phrase."""
        return self.said.in_words(words) if self.said is not None else self.verdict

    def to_json(self) -> dict[str, object]:
        """The row as ``history --json`` prints it: its columns, the verdict in English."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "said"}


@dataclass(frozen=True)
class Tally:
    """Wins and losses against one opponent or under one ruleset."""

    label: str
    """The opponent's latest name, or the rules."""
    games: int
    won: int
    lost: int
    unfinished: int
    """Games nobody won: still on, broken off, refused, or both sides caught cheating."""
    key: str = ""
    """The opponent's fingerprint (empty for a tally per rules)."""


class History:
    def __init__(self, path: Path) -> None:
        self.path = path
        with _database(path):
            self._db = sqlite3.connect(refuse_link(path), timeout=10, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            with self._transaction() as db:
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise UsageError(
                        phrase(
                            N_("{path} was written by a newer statki (schema {version})"),
                            path=str(path),
                            version=version,
                        )
                    )
                db.execute(SCHEMA)
                columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
                if "verdict_said" not in columns:  # a version 1 file: its rows keep their text
                    db.execute("ALTER TABLE games ADD COLUMN verdict_said TEXT")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        _keep_private(path)

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @classmethod
    def in_home(cls, home: Path) -> History:
        return cls(home / DB_FILE)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with _database(self.path):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def started(self, row: GameRow) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO games (game_id, started, my_role, opponent_key,"
                " opponent_name, rules, log_path) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    row.game_id,
                    row.started,
                    row.my_role,
                    row.opponent_key,
                    row.opponent_name,
                    row.rules,
                    row.log_path,
                ),
            )

    def ended(
        self,
        game_id: str,
        *,
        ended: int,
        result: Result,
        end_reason: End,
        my_shots: int,
        their_shots: int,
        verdict: Phrase,
    ) -> None:
        """The game's end; ``verdict`` is kept as its English and as the phrase it is."""
        said = json.dumps(phrase_map(verdict))
        with self._transaction() as db:
            db.execute(
                "UPDATE games SET ended = ?, result = ?, end_reason = ?, my_shots = ?,"
                " their_shots = ?, verdict = ?, verdict_said = ? WHERE game_id = ?",
                (
                    ended,
                    result.value,
                    end_reason.value,
                    my_shots,
                    their_shots,
                    str(verdict),
                    said,
                    game_id,
                ),
            )

    def games(self, limit: int = 1000) -> list[GameRow]:
        with _database(self.path):
            cursor = self._db.execute(
                "SELECT game_id, started, my_role, opponent_key, opponent_name, rules, log_path,"
                " ended, result, end_reason, my_shots, their_shots, verdict, verdict_said"
                " FROM games ORDER BY started DESC, rowid DESC LIMIT ?",
                (limit,),
            )
            return [_row(*row) for row in cursor.fetchall()]

    def tally(self, by: str) -> list[Tally]:
        """Wins per opponent (``by="opponent"``) or per ruleset (``by="rules"``), most wins first.

        An opponent is their key: a new display name does not make a new opponent.
        """
        if by == "opponent":
            query = (
                "SELECT (SELECT opponent_name FROM games AS latest"
                "        WHERE latest.opponent_key = games.opponent_key"
                "        ORDER BY started DESC, rowid DESC LIMIT 1),"
                " COUNT(*), SUM(result = :won), SUM(result = :lost), opponent_key"
                " FROM games GROUP BY opponent_key ORDER BY 3 DESC, 2 DESC, 1"
            )
        elif by == "rules":
            query = (
                "SELECT rules, COUNT(*), SUM(result = :won), SUM(result = :lost), ''"
                " FROM games GROUP BY rules ORDER BY 3 DESC, 2 DESC, 1"
            )
        else:
            raise UsageError(phrase(N_("no tally by {by}: by opponent or by rules"), by=repr(by)))
        with _database(self.path):
            rows = self._db.execute(
                query, {"won": Result.WON.value, "lost": Result.LOST.value}
            ).fetchall()
        return [
            Tally(label, games, won or 0, lost or 0, games - (won or 0) - (lost or 0), key)
            for label, games, won, lost, key in rows
        ]

    def close(self) -> None:
        self._db.close()

"""A temporary SQLite file for what a command would otherwise hold in memory as it grows.

``statki tournament`` keeps the logs it found (``store.found``) and the games'
summaries (``store.summaries``) in such files, so that its main process does
not grow with the folder.  The file is scratch: losing it to a crash loses
nothing, so it is never synced; its rows are read in passes, each once, so
SQLite's own cache (2 MiB) would only make the process grow with the first
thousand rows, and it is kept to 128 KiB.  It is deleted when closed, also
when the command fails half way.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Self


class Scratch:
    """A temporary SQLite file with ``schema``'s tables, removed by ``close``."""

    def __init__(self, prefix: str, schema: Sequence[str]) -> None:
        handle, name = tempfile.mkstemp(prefix=prefix, suffix=".sqlite")
        os.close(handle)
        self.path = Path(name)
        try:
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA synchronous = OFF")
            self._db.execute("PRAGMA journal_mode = OFF")
            self._db.execute("PRAGMA cache_size = -128")
            for statement in schema:
                self._db.execute(statement)
        except BaseException:
            self.path.unlink(missing_ok=True)
            raise

    def close(self) -> None:
        self._db.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

"""The tournament's board store: what stays in memory of a game is small, the boards come
back as they were, and the temporary file is gone at the end, also after an error."""

from __future__ import annotations

import pickle
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from tournaments import START_MS, entrants, play_game, write_logs

from statki_net.cli.tournament import summarize_files
from statki_net.cli.verify import Source
from statki_net.referee.tournament import GameSummary
from statki_net.store.boards import BoardStore

KEPT_BYTES = 3000
"""What a game's summary may hold in memory once its boards are put away (measured: about
2.1 KB, most of it its maps of keys, names and shots and its logs' names, which grow with
the folder's path; the boards alone are another 2.6 KB)."""


def _summary(tmp_path: Path, n: int = 0) -> GameSummary:
    """A real game's summary: played through real sessions, its two logs judged."""
    host, guest = entrants(["Ala", "Ola"])
    pair = play_game(host, guest, seed=300 + n, start=START_MS + n)
    logs = write_logs(pair, tmp_path, f"g{n}")
    return summarize_files(tuple(Source(str(path)) for path in logs))


def _bytes_held(make: Callable[[], object]) -> int:
    """What building a value allocates and keeps (tracemalloc's own count)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        value = make()
        held = tracemalloc.get_traced_memory()[0] - before
        del value
        return held
    finally:
        tracemalloc.stop()


def test_a_game_kept_holds_no_boards_and_little_memory(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    assert len(game.boards) == 2
    with BoardStore() as store:
        kept = store.keep(game)
        assert kept.boards == ()
        assert store.boards(kept) == game.boards
        assert kept == replace(game, boards=())
        # The summary as the main process holds it, made anew from its parts so that
        # tracemalloc sees every allocation it keeps.
        fresh = _bytes_held(lambda: _rebuilt(kept))
        whole = _bytes_held(lambda: _rebuilt(game))
    assert fresh < KEPT_BYTES, f"{fresh} bytes kept a game"
    # Two boards of ten rows and their titles are over a kilobyte whatever the game (they
    # were 1,969 to 2,600 bytes in the games seen): kept, they would break the bound above.
    assert whole - fresh > 1000, "the boards were a large part of a summary"


def _rebuilt(game: GameSummary) -> GameSummary:
    """A deep copy of the summary, every string made anew (so none is shared)."""
    copy: GameSummary = pickle.loads(pickle.dumps(game))
    return copy


def test_each_game_gets_its_own_boards_back(tmp_path: Path) -> None:
    games = [_summary(tmp_path, n) for n in range(3)]
    assert len({game.boards for game in games}) == 3
    with BoardStore() as store:
        kept = [store.keep(game) for game in games]
        assert [store.boards(game) for game in reversed(kept)] == [g.boards for g in games[::-1]]


def test_the_file_is_deleted_at_the_end_and_after_an_error(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    with BoardStore() as store:
        store.keep(game)
        path = store.path
        assert path.stat().st_size > 0
    assert not path.exists()
    with pytest.raises(RuntimeError), BoardStore() as store:
        store.keep(game)
        path = store.path
        raise RuntimeError("the output could not be written")
    assert not path.exists()

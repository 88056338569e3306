"""The tournament's summary store: what stays in memory of the games does not grow with
them (Python's objects nor SQLite's pages), nor with the pairs that meet beyond a few bytes
a pair, every game and its boards come back as they were and in the order played, and the
temporary file is gone at the end, also after an error."""

from __future__ import annotations

import gc
import io
import pickle
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlite_memory import sqlite_peak
from tournaments import START_MS, entrants, play_game, write_logs

from statki_net.cli.tournament import shown_as, summarize_files
from statki_net.cli.verify import Source
from statki_net.protocol.wire import Role
from statki_net.referee.standings import standings
from statki_net.referee.tournament import GameSummary, TournamentRules, game_order, sort_played
from statki_net.store.summaries import SummaryStore

GAMES = 450
"""Games kept in the memory test: their summaries alone would be about 2 KB each in memory
(tests/store/test_summaries.py measured 2.1 KB, boards aside), 800 KB in all."""
FOLDER = "/a/folder/of/a/tournaments/logs"
"""Where the games' logs are said to be: their paths are part of each summary."""
FEW = 50
GROWTH_BYTES = 40_000
"""How much more the store, the standings and a pass over the games may hold for 400 games
than for 50: a twentieth of their summaries (100 bytes a game), far more than one game."""
SQLITE_GROWTH_BYTES = 15_000
"""How much more SQLite's own peak may be for 400 games than for 50: it walks an index kept
up as the games come (3 KB more); sorting them all at once to build it was 34 KB more."""
PLAYERS = 30
"""The players of the test of many pairs: 435 pairs, 15 games a round."""
PAIR_BYTES = 400
"""How much more a pair that has met may hold, in the standings and at a pass' peak: its
count of meetings and its two cells of the crosstable (80 bytes held, 240 at the peak; a
set of two keys and a list and a tuple for each cell were 150 and 535)."""


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


def _rebuilt(game: GameSummary) -> GameSummary:
    """A deep copy of the summary, every string made anew (so none is shared)."""
    copy: GameSummary = pickle.loads(pickle.dumps(game))
    return copy


def _many(game: GameSummary, count: int) -> Iterator[GameSummary]:
    """``count`` games like ``game`` between the same two players, each its own id, logs
    and start, every string made anew (none shared), newest first (the store sorts them)."""
    for n in reversed(range(count)):
        copy = _rebuilt(game)
        stem = f"{FOLDER}/g{n:05d}"
        yield replace(
            copy,
            game=f"{n:016x}",
            logs=(f"{stem}-host.statki", f"{stem}-guest.statki"),
            started=(game.started or 0) + n,
        )


def _round_robin(game: GameSummary, count: int) -> Iterator[GameSummary]:
    """``_many``'s games, but each between the next two of ``PLAYERS`` players to meet
    in a round robin (the circle method: every round, every player plays), so that the
    first round has them all and each game after it brings a pair that had not met."""
    keys = [f"{n:05x}-{n:05x}-{n:05x}-{n:05x}" for n in range(PLAYERS)]
    for made in _many(game, count):
        n = (made.started or 0) - (game.started or 0)
        played, table = divmod(n, PLAYERS // 2)
        host, guest = _seat(played, table), _seat(played, PLAYERS - 1 - table)
        yield replace(
            made,
            keys={Role.HOST: keys[host], Role.GUEST: keys[guest]},
            names={Role.HOST: f"P{host}", Role.GUEST: f"P{guest}"},
        )


def _seat(played: int, place: int) -> int:
    """Who sits at ``place`` in round ``played`` (from 0): the first player stays, the
    others move on a place each round; the places ``n`` and ``PLAYERS - 1 - n`` meet."""
    return 0 if place == 0 else 1 + (place - 1 - played) % (PLAYERS - 1)


def _held(
    game: GameSummary,
    count: int,
    games: Callable[[GameSummary, int], Iterator[GameSummary]] = _many,
    scored: int = 1,
) -> tuple[int, int, int, int]:
    """What keeping ``count`` games holds in memory, then what the standings and every
    format written from them hold, and the peak meanwhile (tracemalloc's count, bytes),
    and SQLite's own peak over it all (its pages; tracemalloc does not see them)."""
    tracemalloc.start()
    try:
        with SummaryStore() as store, sqlite_peak() as sqlite:
            before = tracemalloc.get_traced_memory()[0]
            for made in games(game, count):
                store.keep(made)
            kept = tracemalloc.get_traced_memory()[0] - before
            tracemalloc.reset_peak()
            # The standings and every format, as ``statki tournament --save`` writes them:
            # each a pass over the games; the first game scores, the rest meet again.
            rules = TournamentRules()
            table = standings(sort_played(store, rules), rules.points, rules.tau)
            for write in shown_as(table, rules, 2 * count, store.boards).values():
                write(Discarded())
            gc.collect()  # what a pass left in reference cycles is not held
            held = tracemalloc.get_traced_memory()[0] - before
            peak = tracemalloc.get_traced_memory()[1] - before
            assert (len(table.games.scored), len(table.games.apart)) == (scored, count - scored)
            del table
    finally:
        tracemalloc.stop()
    return kept, held, peak, sqlite.bytes


def test_the_games_are_on_disk_and_read_back_one_at_a_time(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    _held(game, 10)  # what the first run holds once for all (modules, the catalogue)
    few, many = _held(game, FEW), _held(game, GAMES)
    # Kept in memory, 2 KB a game would be 800 KB more.
    for what, grew, bound in zip(
        ("keeping them", "the standings", "a pass' peak", "SQLite's peak"),
        map(lambda a, b: b - a, few, many),
        (GROWTH_BYTES, GROWTH_BYTES, GROWTH_BYTES, SQLITE_GROWTH_BYTES),
        strict=True,
    ):
        assert grew < bound, f"{what}: {grew} bytes more for {GAMES - FEW} more games"


def test_the_pairs_that_meet_hold_a_few_bytes_each(tmp_path: Path) -> None:
    # The pairs are bounded by the players, not the games, but a hundred players have
    # 4,950, met one by one as the games go: 435 here, 50 of them in the first games.
    # About 2 s.
    game = _summary(tmp_path)
    _held(game, 10, _round_robin, scored=10)
    few = _held(game, FEW, _round_robin, scored=FEW)
    many = _held(game, GAMES, _round_robin, scored=PLAYERS * (PLAYERS - 1) // 2)
    pairs = PLAYERS * (PLAYERS - 1) // 2 - FEW
    for what, grew in zip(
        ("the standings", "a pass' peak"), (many[1] - few[1], many[2] - few[2]), strict=True
    ):
        assert grew < pairs * PAIR_BYTES, f"{what}: {grew} bytes more for {pairs} more pairs"


class Discarded(io.StringIO):
    """An output that keeps nothing, so that only what writing it holds is measured
    (``writelines`` calls ``write``)."""

    def write(self, text: str) -> int:
        return len(text)


def test_a_game_kept_comes_back_whole_and_its_boards_apart(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    assert len(game.boards) == 2
    with SummaryStore() as store:
        store.keep(game)
        [back] = store
        assert back == replace(game, boards=())
        assert store.boards(back) == game.boards
    # Two boards of ten rows and their titles are over a kilobyte whatever the game (they
    # were 1,969 to 2,600 bytes in the games seen): a pass that read them would show it.
    whole = _bytes_held(lambda: _rebuilt(game))
    bare = _bytes_held(lambda: _rebuilt(back))
    assert whole - bare > 1000, "the boards were a large part of a summary"


def test_the_games_come_back_in_the_order_played(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    odd = [
        replace(game, game="b", started=None, logs=("1",)),
        replace(game, game="a", started=None, logs=("2",)),
        replace(game, game="\udcff-named-by-a-file", started=2**64 - 1, logs=("3",)),
        replace(game, game="a", started=None, logs=("4",)),  # ties: in the order kept
        replace(game, game="z", started=-(2**63), logs=("5",)),
        replace(game, game="é", started=5, logs=("6",)),
        replace(game, game="e", started=5, logs=("7",)),
    ]
    with SummaryStore() as store:
        for made in odd:
            store.keep(made)
        assert [g.logs for g in store] == [g.logs for g in sorted(odd, key=game_order)]
        assert len(store) == len(odd)


def test_each_game_gets_its_own_boards_back(tmp_path: Path) -> None:
    games = [_summary(tmp_path, n) for n in range(3)]
    assert len({game.boards for game in games}) == 3
    with SummaryStore() as store:
        for game in games:
            store.keep(game)
        kept = list(store)
        assert [store.boards(game) for game in reversed(kept)] == [g.boards for g in games[::-1]]


def test_the_file_is_deleted_at_the_end_and_after_an_error(tmp_path: Path) -> None:
    game = _summary(tmp_path)
    with SummaryStore() as store:
        store.keep(game)
        path = store.path
        assert path.stat().st_size > 0
    assert not path.exists()
    with pytest.raises(RuntimeError), SummaryStore() as store:
        store.keep(game)
        path = store.path
        raise RuntimeError("the output could not be written")
    assert not path.exists()

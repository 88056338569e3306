"""The logs a tournament found, on disk: each game's logs come back together, in the order
their first log was found, a file found twice once, what SQLite holds meanwhile does not
grow with the logs, and the file is gone at the end."""

from __future__ import annotations

import hashlib

import pytest
from sqlite_memory import sqlite_peak

from statki_net.store.found import FoundLogs

A, B = b"\x01" * 16, b"\x02" * 16


def test_the_games_come_back_in_the_order_their_first_log_was_found() -> None:
    odd = "/logs/\udcff-no-utf-8.statki"  # a file name that is no UTF-8, as the walk gives it
    found: list[tuple[str, bytes | None, bool, bytes | str]] = [
        ("/a/1-host.statki", None, False, A),
        ("/b/2-host.statki", None, False, B),
        (odd, None, False, odd),  # no game id: a game alone, named by its path
        ("/a/1-guest.statki", b"read once", True, A),
        ("/b/2-host.statki", b"the second reading", False, B),  # found twice: one log
    ]
    with FoundLogs() as logs:
        for path, data, too_large, _game in found:
            logs.add((path, data, too_large))
        assert len(logs) == len(found)
        assert [log[0] for log in logs] == [path for path, *_ in found]
        for number, (*_, game) in enumerate(found, 1):
            logs.belongs(number, game)
        assert logs.game_count() == 3
        assert list(logs.games()) == [
            (("/a/1-host.statki", None, False), ("/a/1-guest.statki", b"read once", True)),
            (("/b/2-host.statki", b"the second reading", False),),
            ((odd, None, False),),
        ]


def test_a_log_that_is_no_log_belongs_to_no_game() -> None:
    with FoundLogs() as logs:
        logs.add(("/notes.txt", None, False))
        logs.add(("/1-host.statki", None, False))
        logs.belongs(2, A)
        assert list(logs.games()) == [(("/1-host.statki", None, False),)]


def _sqlite_peak_reading_back(count: int) -> int:
    """What SQLite holds at most, above what it held, while the games of ``count`` logs
    (two a game) are counted and read back (bytes)."""
    with FoundLogs() as logs:
        for n in range(count):
            logs.add(
                (f"/a/folder/of/logs/g{n // 2:05d}-{('guest', 'host')[n % 2]}.statki", None, False)
            )
        for number in range(1, count + 1):
            logs.belongs(number, hashlib.sha256(b"%d" % ((number - 1) // 2)).digest()[:16])
        with sqlite_peak() as peak:
            assert logs.game_count() == count // 2
            assert sum(1 for _ in logs.games()) == count // 2
    return peak.bytes


def test_reading_the_games_back_holds_no_more_for_more_logs() -> None:
    # A query that sorted or grouped the logs held them in SQLite's memory as it went
    # (0.35 MB more for 2,000 logs than for 200, 1.3 MiB of the main process at 10,000);
    # walking a key in order holds a page or two whatever the count.  About 0.3 s.
    few, many = _sqlite_peak_reading_back(200), _sqlite_peak_reading_back(2000)
    assert many - few < 50_000, f"SQLite held {many - few} bytes more for 1,800 more logs"


def test_the_file_is_deleted_at_the_end_and_after_an_error() -> None:
    with FoundLogs() as logs:
        logs.add(("/1-host.statki", None, False))
        path = logs.path
        assert path.stat().st_size > 0
    assert not path.exists()
    with pytest.raises(RuntimeError), FoundLogs() as logs:
        path = logs.path
        raise RuntimeError("the walk failed")
    assert not path.exists()

"""The logs a tournament found, on disk: each game's logs come back together, in the order
their first log was found, a file found twice once, and the file is gone at the end."""

from __future__ import annotations

import pytest

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

"""The recorder: a game's log file, its history row and the referee's verdict, on real files."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from peers import make_pair, play

from statki_net.game.rules import ruleset_named
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End, Result
from statki_net.protocol.logformat import read_log
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.history import History
from statki_net.store.recorder import GameRecorder, ending_of


def record(pair: BackToBack, role: Role, recorder: GameRecorder) -> None:
    """Open the log after the game: it starts with every frame the transcript holds."""
    session = pair.session(role)
    recorder.open(session, 1_000)
    recorder.started(session, 2_000)


def test_a_whole_game_is_logged_judged_and_in_the_history(tmp_path: Path) -> None:
    pair = make_pair(ruleset_named("classic"), seed=3)
    play(pair, seed=3, resign_at=5)
    history = History(tmp_path / "history.sqlite3")
    recorder = GameRecorder(tmp_path / "logs", history, peer="[::1]:50000")
    record(pair, Role.HOST, recorder)
    verdict = recorder.judge()
    ending = ending_of(pair.host)
    recorder.ended(pair.host, ending, verdict, 3_000)
    recorder.ended(pair.host, ending, verdict, 4_000)  # once only
    [row] = history.games()
    history.close()
    assert recorder.log_path is not None
    data = recorder.log_path.read_bytes()
    assert read_log(data).header["peer"] == "[::1]:50000"
    assert judge_log(data).valid and verdict is not None and verdict.valid
    assert verdict.headline == judge_log(data).headline()
    assert ending.end is End.RESIGNED and ending.result(Role.HOST) is not Result.NONE
    assert row.game_id == pair.host.transcript.game.hex() and row.started == 2_000
    assert (row.ended, row.result, row.end_reason) == (3_000, ending.result(Role.HOST), "resigned")
    assert row.opponent_name == "Olek" and row.rules == "classic" and row.my_role == "host"
    assert row.verdict == verdict.headline and row.log_path == str(recorder.log_path)


def test_a_game_cut_short_ends_closed_with_nobody_winning(tmp_path: Path) -> None:
    pair = make_pair(ruleset_named("classic"), seed=4)
    play(pair, seed=4, stop_after=2)
    pair.host.connection_lost(5_000)
    history = History(tmp_path / "history.sqlite3")
    recorder = GameRecorder(tmp_path / "logs", history)
    record(pair, Role.HOST, recorder)
    verdict = recorder.judge()
    ending = ending_of(pair.host)
    recorder.ended(pair.host, ending, verdict, 6_000)
    [row] = history.games()
    history.close()
    assert ending.end is End.NO_GAME and ending.winner is None
    assert verdict is not None and not verdict.valid and "unfinished" in verdict.headline.lower()
    assert (row.result, row.end_reason) == ("none", "no-game")


def test_without_a_log_directory_or_history_nothing_is_written(tmp_path: Path) -> None:
    pair = make_pair(ruleset_named("classic"), seed=5)
    play(pair, seed=5)
    recorder = GameRecorder(None, None)
    record(pair, Role.GUEST, recorder)
    assert recorder.log_path is None and recorder.judge() is None
    recorder.ended(pair.guest, ending_of(pair.guest), None, 1)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a filesystem of its own, 1 MiB, to be filled: a real full disk."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs takes root (CI is)")
    folder = tmp_path / "small"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> None:
    with contextlib.suppress(OSError), (folder / "filler").open("wb") as filler:
        while True:
            filler.write(b"\0" * 65536)
            filler.flush()


def test_a_history_on_a_full_disk_costs_its_rows_not_the_game_nor_the_log(
    tmp_path: Path, full_disk: Path
) -> None:
    pair = make_pair(ruleset_named("classic"), seed=6)
    play(pair, seed=6, resign_at=5)
    history = History(full_disk / "history.sqlite3")
    _fill(full_disk)
    said: list[str] = []
    recorder = GameRecorder(tmp_path / "logs", history, complain=lambda p: said.append(str(p)))
    record(pair, Role.HOST, recorder)  # the row cannot be written: the game goes on
    verdict = recorder.judge()
    recorder.ended(pair.host, ending_of(pair.host), verdict, 3_000)
    assert verdict is not None and verdict.valid, "the log, on another disk, is whole"
    assert recorder.log_path is not None and judge_log(recorder.log_path.read_bytes()).valid
    assert len(said) == 1 and said[0].startswith("the history does not hold the game in "), said
    assert str(recorder.log_path) in said[0] and "full" in said[0], said
    (full_disk / "filler").unlink()
    assert history.games() == [], "no row was half written"
    history.close()

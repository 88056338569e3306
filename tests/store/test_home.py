"""The home is its owner's alone: folders 0700, files 0600, no links followed inside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from statki_net.store.history import History
from statki_net.store.home import HomeError, home_dir
from statki_net.store.logwriter import LogWriter


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_new_home_and_what_is_made_in_it_are_private(tmp_path: Path) -> None:
    home = home_dir(str(tmp_path / "home"))
    History.in_home(home).close()
    LogWriter(home / "logs" / "a.statki", {"log": 1}).close()
    assert mode(home) == 0o700
    assert mode(home / "logs") == 0o700
    assert mode(home / "logs" / "a.statki") == 0o600
    assert mode(home / "history.sqlite3") == 0o600


def test_a_home_open_to_all_is_tightened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    os.chmod(home, 0o777)
    os.chmod(home / "logs", 0o755)
    (home / "history.sqlite3").touch(mode=0o644)
    os.chmod(home / "history.sqlite3", 0o644)
    History.in_home(home_dir(str(home))).close()
    LogWriter(home / "logs" / "a.statki", {"log": 1}).close()
    assert mode(home) == 0o700 and mode(home / "logs") == 0o700
    assert mode(home / "history.sqlite3") == 0o600


def test_links_in_the_home_are_not_followed(tmp_path: Path) -> None:
    home = home_dir(str(tmp_path / "home"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "logs").symlink_to(elsewhere)
    with pytest.raises(HomeError, match="is a link"):
        LogWriter(home / "logs" / "a.statki", {"log": 1})
    (home / "history.sqlite3").symlink_to(elsewhere / "planted.sqlite3")
    with pytest.raises(HomeError, match="is a link"):
        History.in_home(home)
    assert list(elsewhere.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a folder to another user")
def test_a_home_of_another_user_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, 65534, -1)
    with pytest.raises(HomeError, match="belongs to another user"):
        home_dir(str(home))

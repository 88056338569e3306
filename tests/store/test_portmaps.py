"""The port mappings a home keeps until they are removed: real files, real process ids."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from statki_net.store.portmaps import KeptMapping, forget, keep, kept


def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_a_mapping_is_kept_owner_only_until_forgotten(tmp_path: Path) -> None:
    mine = KeptMapping(
        "http://192.168.1.1:5000/rootDesc.xml", 47470, "192.168.1.2", 47470, os.getpid()
    )
    keep(tmp_path, mine)
    assert kept(tmp_path) == [mine]
    assert (tmp_path / "portmaps" / "47470.json").stat().st_mode & 0o077 == 0
    forget(tmp_path, mine)
    assert kept(tmp_path) == []
    forget(tmp_path, mine)  # twice: nothing to do


def test_only_a_mapping_whose_process_is_gone_was_left_behind(tmp_path: Path) -> None:
    assert not KeptMapping("natpmp://192.168.1.1", 1, "h", 1, os.getpid()).left_behind
    assert KeptMapping("natpmp://192.168.1.1", 1, "h", 1, _dead_pid()).left_behind
    assert KeptMapping("natpmp://192.168.1.1", 1, "h", 1, 0).left_behind  # no pid written


def test_a_record_that_does_not_read_is_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "portmaps"
    folder.mkdir()
    (folder / "47470.json").write_text("{not json")
    (folder / "47471.json").write_text('{"router": "x"}')
    assert kept(tmp_path) == []
    assert list(folder.iterdir()) == []

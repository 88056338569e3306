"""What a referee's folder may hold besides logs, and how ``verify`` and ``tournament`` take it:
folders a thousand deep, links to folders, files and folders that cannot be read, file
names that are no UTF-8 or carry a terminal's escapes, and settings that make no sense.

Real files in a temporary folder; the commands run in this process (``cli``) where what
they print is the point, and as real processes where only a process can show it (a
user without root's capabilities, a name of bytes written to a real stdout).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Cli
from test_cli_verify import honest_log


@pytest.fixture(autouse=True)
def _report_lines_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "1000")


@contextlib.contextmanager
def nested(top: Path, depth: int) -> Iterator[Path]:
    """``top/d/d/.../d``, ``depth`` folders below ``top``, made one at a time and removed
    from the bottom up after (``os.makedirs`` and ``shutil.rmtree``, which pytest cleans
    its folders with, recurse too: they would not make them, nor remove them)."""
    folders = [top]
    top.mkdir()
    try:
        for _ in range(depth):
            folders.append(folders[-1] / "d")
            folders[-1].mkdir()
        yield folders[-1]
    finally:
        for folder in reversed(folders):
            for entry in folder.iterdir():
                if not entry.is_dir():
                    entry.unlink()
            folder.rmdir()


def test_a_log_a_thousand_folders_deep_is_found_without_a_recursion_error(
    cli: Cli, tmp_path: Path
) -> None:
    with nested(tmp_path / "logs", 1000) as deep:
        (deep / "game.statki").write_bytes(honest_log(71))
        (tmp_path / "logs" / "top.statki").write_bytes(honest_log(72))
        done = cli("verify", str(tmp_path / "logs"))
        table = cli("tournament", str(tmp_path / "logs"), "--json")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1].startswith("2 games from 2 logs under ")
    # The folder's own files come before what is deeper, as os.walk gave them.
    assert done.stdout.index("top.statki") < done.stdout.index("game.statki")
    assert (table.returncode, table.stderr) == (0, "")
    # In the order played, which is not the walk's.
    assert sorted(game["logs"] for game in json.loads(table.stdout)["games"]) == sorted(
        [[str(tmp_path / "logs" / "top.statki")], [str(deep / "game.statki")]]
    )


def test_a_link_to_a_folder_is_passed_over_with_a_note(cli: Cli, tmp_path: Path) -> None:
    logs, elsewhere = tmp_path / "logs", tmp_path / "elsewhere"
    logs.mkdir()
    elsewhere.mkdir()
    (logs / "game.statki").write_bytes(honest_log(73))
    (elsewhere / "other.statki").write_bytes(honest_log(74))
    (logs / "linked").symlink_to(elsewhere, target_is_directory=True)
    done = cli("verify", str(logs))
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"statki: {logs / 'linked'}: not a regular file, passed over\n"
    assert done.stdout.splitlines()[-1] == f"1 game from 1 log under {logs}: 1 valid"

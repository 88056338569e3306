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
import os
import shutil
import subprocess
import sys
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


def as_a_user(tmp_path: Path) -> list[str]:
    """The command's prefix that runs it as a user the permissions bind: root's
    capabilities dropped (``setpriv``) where the tests run as root, as CI does, where a file
    of mode 000 could still be read; the test is skipped where they cannot be dropped."""
    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", "--"]
    if shutil.which("setpriv") is None:
        pytest.skip("root, and no setpriv to drop its capabilities")
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0)
    try:
        can_read = subprocess.run([*prefix, "cat", str(probe)], capture_output=True).returncode
    except OSError:
        pytest.skip("setpriv cannot run here")
    finally:
        probe.unlink()
    if can_read == 0:
        pytest.skip("a file of mode 000 is readable even without root's capabilities")
    return prefix


def statki_as(prefix: list[str], tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, STATKI_HOME=str(tmp_path / "home"), NO_COLOR="1", COLUMNS="1000")
    return subprocess.run(
        [*prefix, sys.executable, "-m", "statki_net", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_a_file_or_folder_that_cannot_be_read_is_named_and_exits_2(tmp_path: Path) -> None:
    prefix = as_a_user(tmp_path)
    logs = tmp_path / "logs"
    (logs / "round2").mkdir(parents=True)
    (logs / "good.statki").write_bytes(honest_log(75))
    (logs / "locked.statki").write_bytes(honest_log(76))
    (logs / "round2" / "inside.statki").write_bytes(honest_log(77))
    (logs / "locked.statki").chmod(0)
    (logs / "round2").chmod(0)
    try:
        done = statki_as(prefix, tmp_path, "verify", str(logs))
        polish = statki_as(prefix, tmp_path, "--lang", "pl", "verify", str(logs))
        table = statki_as(prefix, tmp_path, "tournament", str(logs))
        # Nothing under the folder could be read: no "no statki logs under" it.
        (logs / "good.statki").chmod(0)
        nothing = statki_as(prefix, tmp_path, "verify", str(logs))
    finally:
        (logs / "round2").chmod(0o700)
        for log in ("good.statki", "locked.statki"):
            (logs / log).chmod(0o600)
    said = [
        f"statki: {logs / 'locked.statki'}: cannot be read (permission denied)",
        f"statki: {logs / 'round2'}: folder cannot be read (permission denied):"
        " nothing in it was judged",
    ]
    # Not a clean "all valid": the folder was not all read (2, as for a log named that
    # cannot be read, which wins over what the games found).
    assert (done.returncode, done.stderr.splitlines()) == (2, said), done.stderr
    assert done.stdout.splitlines()[-1] == f"1 game from 1 log under {logs}: 1 valid"
    assert polish.returncode == 2
    assert polish.stderr.splitlines() == [
        f"statki: {logs / 'locked.statki'}: nie da się odczytać (brak uprawnień)",
        f"statki: {logs / 'round2'}: nie da się odczytać folderu (brak uprawnień):"
        " nic z niego nie oceniono",
    ]
    assert (table.returncode, table.stderr.splitlines()) == (2, said), table.stderr
    assert nothing.returncode == 2
    assert "no statki logs" not in nothing.stderr
    assert f"statki: {logs / 'good.statki'}: cannot be read" in nothing.stderr
    assert "Traceback" not in done.stderr + table.stderr + nothing.stderr


UNDECODABLE = os.fsdecode(b"bad\xff\xfe.statki")
"""A log's name that is no UTF-8: the system gives its last two bytes as lone surrogates."""
SAVED = {
    "tournament.txt",
    "tournament.json",
    "standings.csv",
    "games.csv",
    "crosstable.csv",
    "tournament.html",
}


def test_a_name_that_is_no_utf_8_is_written_with_its_bytes_escaped(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.statki").write_bytes(honest_log(78))
    (logs / UNDECODABLE).write_bytes(honest_log(79))
    saved = tmp_path / "published"
    done = statki_as([], tmp_path, "tournament", str(logs), "--save", str(saved))
    assert done.returncode == 0, done.stderr
    assert {path.name for path in saved.iterdir()} == SAVED
    escaped = str(logs / "bad\\xff\\xfe.statki")
    report = (saved / "tournament.json").read_text(encoding="utf-8")
    assert "\\udc" not in report  # no lone surrogate, which strict JSON readers refuse
    assert escaped in [log for game in json.loads(report)["games"] for log in game["logs"]]
    assert escaped in (saved / "games.csv").read_text(encoding="utf-8")
    verified = statki_as([], tmp_path, "verify", "--json", str(logs))
    assert verified.returncode == 0, verified.stderr
    names = [log["name"] for game in json.loads(verified.stdout) for log in game["logs"]]
    assert escaped in names and "\\udc" not in verified.stdout


def test_save_leaves_no_half_written_folder_when_a_format_fails(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.statki").write_bytes(honest_log(80))
    saved = tmp_path / "published"
    assert cli("tournament", str(logs), "--save", str(saved)).returncode == 0
    before = {path.name: path.read_bytes() for path in saved.iterdir()}
    (logs / "more.statki").write_bytes(honest_log(81))

    def disk_full(table: object, which: str, out: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("statki_net.cli.tournament.write_csv", disk_full)
    again = cli("tournament", str(logs), "--save", str(saved))
    assert again.returncode == 2
    assert "No space left on device" in again.stderr
    # The earlier judging stays whole: no file of this one beside its files.
    assert {path.name: path.read_bytes() for path in saved.iterdir()} == before
    fresh = tmp_path / "fresh"
    assert cli("tournament", str(logs), "--save", str(fresh)).returncode == 2
    assert not fresh.exists()
    assert not [path.name for path in tmp_path.iterdir() if path.name.startswith(".")]


def test_a_name_s_escapes_and_newlines_never_reach_the_terminal(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs\x1b]0;owned\x07"
    logs.mkdir()
    forged = "evil\x1b[2J\n  standing: valid\r.statki"
    (logs / forged).write_bytes(honest_log(82))
    os.mkfifo(logs / "wait\x1b[31m.statki")
    (logs / "junk\n.statki").write_bytes(b"not a log")
    done = cli("verify", str(logs))
    said = done.stdout + done.stderr
    assert "\x1b" not in said and "\r" not in said and "\x07" not in said
    # The game's own line, not the name's; the damaged log's name is one line too.
    assert done.stdout.splitlines().count("  standing: valid") == 1
    assert done.stdout.count("\n") == len(done.stdout.splitlines())
    clean = (
        str(logs)
        .replace("\x1b", "\N{REPLACEMENT CHARACTER}")
        .replace("\x07", "\N{REPLACEMENT CHARACTER}")
    )
    assert f"statki: {clean}/wait\N{REPLACEMENT CHARACTER}[31m.statki: not a regular file" in (
        done.stderr
    )
    assert done.stdout.splitlines()[-1].startswith(f"2 games from 2 logs under {clean}: ")
    # A tool is given the name exactly: JSON escapes it (\u001b), no terminal sees it.
    exact = cli("verify", "--json", str(logs))
    assert "\x1b" not in exact.stdout
    names = [log["name"] for game in json.loads(exact.stdout) for log in game["logs"]]
    assert sorted(names) == [str(logs / forged), str(logs / "junk\n.statki")]


@pytest.mark.parametrize(
    ("options", "config", "refusal"),
    [
        (
            ["--since", "2026-12-05", "--until", "2026-12-01"],
            None,
            "statki: since (2026-12-05) is not before until (2026-12-01): no game could count",
        ),
        (
            [],
            "since = 2026-12-01T10:00:00Z\nuntil = 2026-12-01T10:00:00Z\n",
            "statki: since (2026-12-01 10:00:00+00:00) is not before until"
            " (2026-12-01 10:00:00+00:00): no game could count",
        ),
        (
            [],
            "[points]\nwin = 0\nloss = 1\n",
            "statki: [points]: a loss is worth no more than a win (loss 1, win 0)",
        ),
        (
            [],
            "[points]\nwin = 2.5\ncheated = 3\n",
            "statki: [points]: a loss is worth no more than a win (cheated 3, win 2.5)",
        ),
        (
            [],
            "[points]\nforfeit = -5\n",
            "statki: [points]: forfeit is a number of 0 or more, not -5",
        ),
        ([], "[points]\nwin = nan\n", "statki: [points]: win is a number of 0 or more, not nan"),
        (
            ["--min-move-limit", "nan"],
            None,
            "statki: the minimum move limit is a number of seconds",
        ),
        (
            ["--min-move-limit", "inf"],
            None,
            "statki: the minimum move limit is a number of seconds",
        ),
        (
            ["--rules", "nosuch"],
            None,
            "statki: unknown rules nosuch; choose from classic, corners, alternate, five-ships,"
            " salvo, salvo-count",
        ),
    ],
)
def test_a_tournament_s_settings_that_make_no_sense_are_refused_in_one_line(
    cli: Cli, tmp_path: Path, options: list[str], config: str | None, refusal: str
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "game.statki").write_bytes(honest_log(83))
    if config is not None:
        (tmp_path / "rules.toml").write_text(config)
        options = [*options, "--config", str(tmp_path / "rules.toml")]
    done = cli("tournament", str(logs), *options)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", refusal + "\n")


@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_a_tournament_refuses_jobs_below_one(cli: Cli, tmp_path: Path, jobs: str) -> None:
    done = cli("tournament", "--jobs", jobs, str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"statki tournament: error: argument --jobs: '{jobs}' is not a whole number of 1 or more"
    )


def test_a_day_given_for_both_since_and_until_is_that_whole_day(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "game.statki").write_bytes(honest_log(84))
    done = cli("tournament", str(logs), "--since", "2026-11-20", "--until", "2026-11-20")
    assert done.returncode in (0, 1) and done.stderr == ""

"""``statki resume``: a process killed in the middle of a game is started again and plays it out.

Real processes: ``statki host --bot`` and ``statki join --bot``; one of them is
killed (SIGKILL: no chance to tidy up) once its log holds a given number of
messages, and ``statki resume GAME --bot`` picks the game up from that home.
The other process never stops: it finishes the game over the new connection,
and both logs are valid and hold one transcript.  What a home lists and shows
between the processes is read in this process (the ``cli`` fixture): only the
kill and the resume need processes of their own.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import Cli, Finished
from netproc import finish, line_starting, start, stop

from statki_net.protocol.logformat import is_log, read_log
from statki_net.referee.verify import judge_log


def only_log(home: Path) -> Path | None:
    logs = list((home / "logs").glob("*.statki")) if (home / "logs").is_dir() else []
    return logs[0] if len(logs) == 1 else None


def frames_in(home: Path) -> int:
    log = only_log(home)
    data = log.read_bytes() if log else b""
    return len(read_log(data).frames) if is_log(data) else 0  # a log just made may be empty


def kill_at(process: subprocess.Popen[str], home: Path, messages: int) -> None:
    deadline = time.monotonic() + 60
    while frames_in(home) < messages:
        assert process.poll() is None, "the game ended before the kill"
        assert time.monotonic() < deadline, f"no {messages} messages in {home}"
        time.sleep(0.005)
    process.kill()
    process.wait(timeout=30)


def in_home(cli: Cli, monkeypatch: pytest.MonkeyPatch, home: Path, *args: str) -> Finished:
    """``statki ARGS`` in this process, in ``home``, as the process would run there."""
    monkeypatch.setenv("STATKI_HOME", str(home))
    return cli(*args, stdin="q\n")


def loopback_only(invite: str) -> str:
    """The invite with its first address only (127.0.0.1): the test dials nothing else."""
    addresses, rest = invite.removeprefix("statki://").split("/", 1)
    return f"statki://{addresses.split(',')[0]}/{rest}"


@pytest.mark.parametrize(
    ("victim", "messages"), [("guest", 10), ("host", 12), ("guest", 41), ("host", 64)]
)
def test_a_killed_side_resumes_its_game_with_statki_resume(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, victim: str, messages: int
) -> None:
    homes = {"host": tmp_path / "host", "guest": tmp_path / "guest"}
    host = start(
        homes["host"], "host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random"
    )
    processes = {"host": host}
    try:
        invite = loopback_only(line_starting(host, "statki://", []))
        processes["guest"] = start(homes["guest"], "join", invite, "--bot", "random")
        kill_at(processes[victim], homes[victim], messages)
        kept = list((homes[victim] / "unfinished").glob("*.json"))
        assert len(kept) == 1, "the killed side's secrets are kept"
        assert kept[0].stat().st_mode & 0o077 == 0
        game = json.loads(kept[0].read_text())["game"]
        listed = in_home(cli, monkeypatch, homes[victim], "resume")
        assert listed.returncode == 0 and game[:16] in listed.stdout, listed.stdout
        processes[victim] = start(homes[victim], "resume", game[:12], "--bot", "random")
        results = {role: finish(process) for role, process in processes.items()}
    finally:
        for process in processes.values():
            stop(process)
    for role, (status, out, err) in results.items():
        assert status == 0, f"{role}: {out}\n{err}"
    logs = {role: only_log(home) for role, home in homes.items()}
    bodies = {}
    for role, log in logs.items():
        assert log is not None, role
        judgement = judge_log(log.read_bytes())
        assert judgement.valid, f"{role}: {judgement.headline()}"
        bodies[role] = read_log(log.read_bytes()).frames
    assert bodies["host"] == bodies["guest"]
    assert not list((homes[victim] / "unfinished").glob("*.json")), "removed at the end"
    assert in_home(cli, monkeypatch, homes[victim], "resume").stdout.strip() == (
        "no unfinished games"
    )


def test_statki_play_names_the_game_a_killed_guest_left_unfinished(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A guest killed mid-game (real processes); then ``statki play`` in its home says so,
    and ``statki resume`` lists the game by its opponent, rules and turn."""
    homes = {"host": tmp_path / "host", "guest": tmp_path / "guest"}
    hosting = ("host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random")
    host = start(homes["host"], *hosting, "--name", "Ala")
    try:
        invite = loopback_only(line_starting(host, "statki://", []))
        guest = start(homes["guest"], "join", invite, "--bot", "random", "--name", "Ola")
        kill_at(guest, homes["guest"], 10)
    finally:
        stop(host)
    played = in_home(cli, monkeypatch, homes["guest"], "play", "--plain")
    assert played.returncode == 0, played.stderr
    assert "Unfinished game vs Ala, classic, " in played.stdout, played.stdout
    assert "statki resume picks it up" in played.stdout
    listed = in_home(cli, monkeypatch, homes["guest"], "resume")
    assert listed.returncode == 0 and "  vs Ala, classic, " in listed.stdout, listed.stdout
    kept = next((homes["guest"] / "unfinished").glob("*.json"))
    kept.unlink()  # the game given up: the next start screen says nothing of it
    again = in_home(cli, monkeypatch, homes["guest"], "play", "--plain")
    assert again.returncode == 0 and "statki resume" not in again.stdout, again.stdout

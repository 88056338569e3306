"""``statki daemon``, ``doctor``, ``selfplay`` and ``analyze`` print their lines through
``cli/told.py`` as the other commands do (issue 14): wrapped between words at the
terminal's width (here ``COLUMNS``), a path whole on a line of its own, and into a pipe
without ``COLUMNS`` whole, so that the same words are said either way."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from conftest import Cli
from netproc import line_starting, start, stop
from peers import log_bytes, make_pair, play

from statki_net.game.rules import Ruleset
from statki_net.net.control import socket_path
from statki_net.store.identity import KEY_FILE

COLUMNS = 40
QUICK = ("--reference-fleets", "2", "--fleet-games", "1", "--seed", "3", "--jobs", "1")


def _wrapped_and_whole(cli: Cli, monkeypatch: pytest.MonkeyPatch, *args: str) -> list[str]:
    """The lines ``args`` prints at ``COLUMNS``, checked: none wider, some run on to the
    next line, and the words the ones the whole lines say."""
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = cli(*args)
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    wrapped = cli(*args)
    assert whole.returncode == wrapped.returncode, (whole.stderr, wrapped.stderr)
    lines = wrapped.stdout.splitlines()
    assert all(len(line) <= COLUMNS for line in lines), lines
    assert len(lines) > len(whole.stdout.splitlines()), lines
    # the figures aside: two selfplay runs of one seed may differ in a game's length
    assert _words(wrapped.stdout) == _words(whole.stdout)
    return lines


def _words(text: str) -> list[str]:
    return re.sub(r"\d+", "#", text).split()


@pytest.mark.parametrize("language", ["en", "pl"])
def test_doctor_wraps_its_lines_between_words(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    lines = _wrapped_and_whole(cli, monkeypatch, "--lang", language, "doctor", "--no-map")
    said = "verdict:" if language == "en" else "werdykt:"
    assert any(line.startswith(said) for line in lines), lines


def test_selfplay_wraps_its_summary_between_words(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One game between two computers over loopback (about a second, twice)."""
    args = ("--lang", "pl", "selfplay", "--games", "1", "--seed", "5", "--rules", "corners")
    lines = _wrapped_and_whole(cli, monkeypatch, *args)
    assert lines[0] == "zasady: corners", lines


def test_analyze_wraps_its_review_between_words(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pair = make_pair(Ruleset(size=6, fleet=(3, 2, 1)), seed=5)
    play(pair, seed=6)
    log = tmp_path / "small.statki"
    log.write_bytes(log_bytes(pair.host))
    lines = _wrapped_and_whole(cli, monkeypatch, "analyze", str(log), *QUICK)
    assert lines[0].startswith("Ala (host): ") and not lines[1].startswith(" "), lines
    assert lines[2].startswith("  move "), lines


def test_the_daemons_control_socket_is_whole_on_a_line_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real daemon process: its first lines, then stopped."""
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    # A short home: a Unix socket's path holds at most 107 bytes, and the suite's workers'
    # temporary folders are long already.
    home = tmp_path / "h"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0")
    seen: list[str] = []
    try:
        line_starting(daemon, "control socket", seen)
        path = line_starting(daemon, "/", seen)
    finally:
        stop(daemon)
    assert seen[-2] == "control socket", seen
    assert path == str(socket_path(home)), seen
    assert all(len(line) <= COLUMNS for line in seen[:-1]), seen


def test_id_tells_a_new_key_wrapped_on_a_terminal_its_path_whole(tmp_path: Path) -> None:
    """Standard error a 40-column terminal (a pty), standard output a pipe: the line that
    says where the new key is runs on to its path, whole; the fingerprint is one word."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    home = tmp_path / "a-home-of-a-rather-long-name"
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "statki_net", "id"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=dict(env, STATKI_HOME=str(home)),
            text=True,
            timeout=30,
        )
        os.close(slave)
        told = os.read(master, 65536).decode().replace("\r\n", "\n").splitlines()
    finally:
        os.close(master)
    assert done.returncode == 0
    assert len(done.stdout.split()) == 1, done.stdout
    assert told[0] == "statki: created a new identity key in", told
    assert told[1:] == [str(home / KEY_FILE)], told

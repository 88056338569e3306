"""Real ``statki`` processes for the network tests: start, read a line with a bound, stop."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

WAIT = 30.0
"""Longest wait for a process to print what a test expects (a bound, not a timing)."""


def env_for(home: Path) -> dict[str, str]:
    return dict(os.environ, STATKI_HOME=str(home), NO_COLOR="1")


def start(home: Path, *args: str, stdin: str | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "statki_net", *args],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(home),
    )


def run(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "statki_net", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env_for(home),
    )


_unread: dict[int, bytes] = {}
"""Output read past the line a test waited for, per process id, handed back by ``finish``."""


def line_starting(process: subprocess.Popen[str], prefix: str, seen: list[str]) -> str:
    """Read the process's output until a line starts with ``prefix``; the lines go to ``seen``."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    buffer = _unread.pop(process.pid, b"")
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            seen.append(line.decode())
            if line.decode().startswith(prefix):
                _unread[process.pid] = buffer
                return line.decode().strip()
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
        elif process.poll() is not None:
            break
    stop(process)
    raise AssertionError(f"no line starting {prefix!r}; got {seen!r}")


def finish(process: subprocess.Popen[str], stdin: str | None = None) -> tuple[int, str, str]:
    """Wait (bounded) for the process to end; its exit status and remaining output."""
    try:
        out, err = process.communicate(stdin, timeout=120)
    except subprocess.TimeoutExpired:
        stop(process)
        raise
    return process.returncode, _unread.pop(process.pid, b"").decode() + out, err


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=30)

"""``statki host --plain`` at a terminal: the person places the fleet at the prompt
before the game is offered, as ``play --plain`` does; then the invite is printed.  The
real command in a subprocess, its terminal a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

WAIT = 20.0


def read_until(fd: int, text: bytes, seen: bytearray) -> None:
    deadline = time.monotonic() + WAIT
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never {text!r}: {seen.decode(errors='replace')}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the terminal's other side closed
                chunk = b""
            assert chunk, f"the command ended before {text!r}: {seen.decode(errors='replace')}"
            seen += chunk


def test_a_host_at_a_terminal_places_its_fleet_before_the_invite(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    env = dict(os.environ, STATKI_HOME=str(tmp_path / "home"), NO_COLOR="1", LANGUAGE="en")
    process = subprocess.Popen(
        [sys.executable, "-m", "statki_net", "host", "--plain", "--port", "0", "--name", "Ala"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        prompt = b"fleet (Enter starts, new, your ships, q)> "
        read_until(master, prompt, seen)
        assert b"statki://" not in seen, "placed before the game is offered"
        os.write(master, b"new\n")
        read_until(master, prompt * 1 + b"new", seen)
        os.write(master, b"\n")
        read_until(master, b"statki://", seen)
    finally:
        process.kill()
        process.wait(timeout=WAIT)
        os.close(master)
    said = seen.decode(errors="replace")
    assert said.count("fleet (Enter starts") == 2, said
    assert said.index("Your fleet is drawn at random") < said.index("statki://")

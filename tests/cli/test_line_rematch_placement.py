"""A host at the line prompt places its rematch's fleet at the prompt, as its first game's.

``statki host --plain`` in a subprocess whose terminal is a real pseudo-terminal (a
person), with or without its daemon; the guest, ``statki join --plain`` with its input a
pipe (a script), draws its fleet.  After the first game both ask for a rematch: the host
is offered the placement again, types its ships, and the rematch is played with them, as
the host's log of the rematch shows.  The guest at a terminal places its rematch's fleet
at the prompt too, once the rules come (``PromptPlayer._decide``): the same placement.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from netproc import env_for, finish, line_starting, start, stop

from statki_net.game.fleet import Fleet, typed_fleet
from statki_net.game.rules import ruleset_named
from statki_net.protocol.logformat import read_log
from statki_net.protocol.wire import Reveal, Role, decode_body

WAIT = 30.0
PLACING = b"fleet (Enter starts, new, your ships, q)> "
SHIPS = "A1-D1 F1-H1 J1-J3 A3-B3 D3-E3 G3-H3 A5 C5 E5 G5"
"""The host's ships for the rematch, typed on one line: the classic fleet, none touching."""


class Terminal:
    """A ``statki`` process on a pseudo-terminal: what it printed, and lines typed into it."""

    def __init__(self, home: Path, *args: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        self.fd = master
        self.seen = bytearray()
        self.read = 0
        """How much of ``seen`` the test has looked past."""
        self.process = subprocess.Popen(
            [sys.executable, "-m", "statki_net", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=dict(env_for(home), LANGUAGE="en"),
            close_fds=True,
        )
        os.close(slave)

    def until(self, text: bytes) -> bytes:
        """What was printed up to and including the next ``text``."""
        deadline = time.monotonic() + WAIT
        while (found := self.seen.find(text, self.read)) < 0:
            left = deadline - time.monotonic()
            assert left > 0, f"never {text!r}: {self.seen.decode(errors='replace')}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the terminal's other side closed
                    chunk = b""
                assert chunk, f"ended before {text!r}: {self.seen.decode(errors='replace')}"
                self.seen += chunk
        start, self.read = self.read, found + len(text)
        return bytes(self.seen[start : self.read])

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def close(self) -> None:
        self.process.kill()
        self.process.wait(timeout=WAIT)
        os.close(self.fd)


def first_shooter_resigns(host: Terminal, guest: subprocess.Popen[str], seen: list[str]) -> None:
    """Whoever shoots first resigns at its first turn; both sides' games end."""
    said = host.until(b"shoot")  # "you shoot first", "your opponent shoots first"
    if said.endswith(b"you shoot"):
        host.until(b"your shot (1), or resign: ")
        host.type("resign")
    else:
        assert guest.stdin is not None
        guest.stdin.write("resign\n")
        guest.stdin.flush()
    host.until(b"\nlog:")
    line_starting(guest, "log: ", seen)


def revealed_fleet(log: Path, role: Role) -> Fleet:
    """The fleet ``role`` revealed, as the log holds it."""
    for body, _signature in read_log(log.read_bytes()).frames:
        header, message = decode_body(body)
        if header.sender is role and isinstance(message, Reveal):
            return Fleet(tuple(tuple(ship) for ship in message.fleet))
    raise AssertionError(f"no reveal by the {role} in {log}")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("through", ["in process", "its daemon"])
def test_a_host_places_its_rematch_fleet_at_the_prompt(
    tmp_path: Path, through: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guest reads its lines from a pipe, whole: a COLUMNS the test run inherited (the
    # suite's workers may have one) would wrap its "log: PATH" line.
    monkeypatch.delenv("COLUMNS", raising=False)
    placed = typed_fleet(ruleset_named("classic"), SHIPS)
    assert isinstance(placed, Fleet), placed
    daemon = None
    if through == "its daemon":
        daemon = start(tmp_path / "host", "daemon", "--listen", "127.0.0.1:0")
        line_starting(daemon, "control socket", [])
    host = Terminal(
        tmp_path / "host",
        "host",
        "--plain",
        "--port",
        "0",
        "--advertise",
        "127.0.0.1",
        "--name",
        "Ala",
    )
    guest: subprocess.Popen[str] | None = None
    seen: list[str] = []
    try:
        host.until(PLACING)
        host.type("")  # the first game's fleet: drawn at random, as shown
        host.until(b"statki://")
        invite = "statki://" + host.until(b"\n").decode().split()[0]
        guest = start(tmp_path / "guest", "join", invite, "--plain", "--name", "Ola", stdin="")
        assert guest.stdin is not None
        guest.stdin.write("y\n")
        guest.stdin.flush()
        first_shooter_resigns(host, guest, seen)
        host.until(b"rematch (r, the other side shoots first), or quit (q): ")
        host.type("r")
        guest.stdin.write("r\n")
        guest.stdin.flush()
        host.until(b"rematch: ")
        offered = host.until(PLACING)
        assert b"Your fleet is drawn at random" in offered, offered
        host.type(SHIPS)
        host.until(b"Your fleet is placed as typed")
        host.until(PLACING)
        host.type("")
        line_starting(guest, "who shoots first: ", seen)
        guest.stdin.write("y\n")
        guest.stdin.flush()
        first_shooter_resigns(host, guest, seen)
        host.until(b"rematch (r, the other side shoots first), or quit (q): ")
        host.type("q")
        assert host.process.wait(timeout=WAIT) == 0, host.seen.decode(errors="replace")
        guest.stdin.write("q\n")
        guest.stdin.flush()
        status, _out, err = finish(guest)
        assert status == 0, err
    finally:
        host.close()
        if guest is not None:
            stop(guest)
        if daemon is not None:
            stop(daemon)
    logs = sorted((tmp_path / "host" / "logs").iterdir())
    assert len(logs) == 2, logs  # the game and its rematch
    # Named by the second they began, both may share it: the first game's fleet was drawn.
    fleets = [revealed_fleet(log, Role.HOST) for log in logs]
    assert fleets.count(placed) == 1, "the rematch is played with the fleet typed"

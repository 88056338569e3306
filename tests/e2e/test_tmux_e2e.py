"""Two real full-screen clients in tmux play a game over loopback, driven by keys.

Each player runs ``statki host`` / ``statki join`` in its own 80x24 session
of a private tmux server, with its own STATKI_HOME and NO_COLOR; the test
types what a person would and reads what a person would see
(``capture-pane``) at set-up, in battle and at the end.
"""

from __future__ import annotations

import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from statki_net.net.invite import parse_invite
from statki_net.referee.verify import fingerprint, judge_log

WAIT = 15.0
"""Longest wait for a screen to show what a step expects (a bound, not a timing)."""
POLL = 0.05
LEFT, RIGHT = 3, 34
"""Column of square A in the left and right boards of the battle and end screens."""
FIRST_ROW = 3
"""Screen line of row 1 in the battle and end screens (title, board titles, letters)."""
GLYPH_OF_ANSWER = {"miss": "o", "hit": "x", "sunk": "@"}
SHIP_GLYPHS = "#x@"


class Tmux:
    """A private tmux server; every session in it is 80x24."""

    def __init__(self) -> None:
        self.server = f"statki-test-{secrets.token_hex(4)}"

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.server, *args], capture_output=True, text=True, timeout=10
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self, name: str, home: Path, *args: str) -> None:
        """Run ``statki ARGS`` in a new session; its exit status stays on screen afterwards."""
        command = shlex.join(
            ["env", f"STATKI_HOME={home}", "NO_COLOR=1", sys.executable, "-m", "statki_net", *args]
        )
        shell = f"{command}; echo statki-exit-$?; sleep 600"
        self.run("new-session", "-d", "-x", "80", "-y", "24", "-s", name, shell)

    def screen(self, name: str, *, joined: bool = False) -> str:
        return self.run("capture-pane", "-p", *(["-J"] if joined else []), "-t", name)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def wait(self, name: str, seen: str | Callable[[str], bool], *, joined: bool = False) -> str:
        """Poll the screen until it shows ``seen`` (text, or a test of the whole screen).

        The screen must also be the same twice running, so a half-drawn one is not read.
        """
        test = seen if callable(seen) else (lambda text: seen in text)
        deadline = time.monotonic() + WAIT
        text = previous = ""
        while time.monotonic() < deadline:
            text = self.screen(name, joined=joined)
            if text == previous and test(text):
                return text
            previous = text
            time.sleep(POLL)
        raise AssertionError(f"{name}'s screen never showed {seen!r}; it shows:\n{text}")

    def kill(self) -> None:
        """Stop the server and everything in it, and remove its socket (tmux leaves it)."""
        where = ["tmux", "-L", self.server]
        found = subprocess.run(
            [*where, "display-message", "-p", "#{socket_path}"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        subprocess.run([*where, "kill-server"], capture_output=True, timeout=10)
        if found.returncode == 0 and found.stdout.strip():
            Path(found.stdout.strip()).unlink(missing_ok=True)


def square(screen: str, column: int, square_name: str) -> str:
    """The glyph of ``square_name`` (like ``C3``) on the board whose A column is ``column``."""
    letter, row = square_name[0].upper(), int(square_name[1:])
    line = screen.splitlines()[FIRST_ROW + row - 1]
    return line[column + 2 * (ord(letter) - ord("A"))]


def ship_squares(screen: str, column: int) -> int:
    """Squares of a board drawn as ship, hit or sunk."""
    rows = screen.splitlines()[FIRST_ROW : FIRST_ROW + 10]
    return sum(line[column + 2 * c] in SHIP_GLYPHS for line in rows for c in range(10))


def invite_on(screen: str) -> str:
    """The invite as the host's screen shows it: from ``statki://`` to the next line that is
    blank or holds words (the key bar), since an invite holds no spaces."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("statki://"))
    invite = ""
    for line in lines[start:]:
        if not line.strip() or " " in line.strip():
            break
        invite += line.strip()
    return invite


def showing(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """A test of a screen: whether ``pattern`` is found in it."""
    return lambda text: pattern.search(text) is not None


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_two_players_play_a_game_on_the_full_screen(tmp_path: Path) -> None:
    tmux = Tmux()
    try:
        _play(tmux, tmp_path)
    finally:
        tmux.kill()


def _play(tmux: Tmux, tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    host_args = ["host", "--port", "0", "--advertise", "127.0.0.1"]
    tmux.start("host", alice, *host_args, "--name", "Alice")

    # No --rules: the host picks them on screen (classic preselected; two down is alternate).
    tmux.wait("host", "> classic      10 ships, no touching, a hit earns another shot")
    tmux.keys("host", "Down", "Down", "Enter")

    # Setting up: the fleet placed at random, the rules, and the invite to pass on.
    setup = tmux.wait(
        "host", lambda text: "Invite for your opponent" in text and "Your fleet" in text
    )
    assert "Your fleet" in setup and "The rules" in setup and "10x10, fleet 4,3,3,2" in setup
    assert "4-mast ship" in setup and "one shot a turn" in setup
    board_rows = setup.splitlines()[3:13]
    assert sum(row[3:23].count("#") + row[3:23].count("*") for row in board_rows) == 20
    invite = invite_on(setup)
    assert re.fullmatch(r"statki://127\.0\.0\.1:\d+.*/[0-9a-f]{64}/[0-9a-f]{32}", invite), invite
    tmux.keys("host", "Enter")
    tmux.wait("host", "Fleet committed; the game starts when a guest joins")

    # The guest sees who hosts (name and the invite's key) and the rules, and accepts.
    tmux.start("guest", bob, "join", invite, "--name", "Bob")
    host_key = fingerprint(parse_invite(invite).key or b"")
    offer = tmux.wait("guest", "Alice proposes these rules")
    assert f"vs Alice, key {host_key}" in offer
    assert "one shot a turn" in offer and "d decline" in offer and "Your fleet" in offer
    tmux.keys("guest", "Enter")

    # Battle: one side's turn at a time; every answer marked on both screens.
    screens = {name: tmux.wait(name, "afloat") for name in ("host", "guest")}
    shots = {"host": ["a1", "c3"], "guest": ["j10", "h8"]}
    other = {"host": "guest", "guest": "host"}
    for _ in range(4):
        shooter = next(name for name in ("host", "guest") if "YOUR TURN" in screens[name])
        target = shots[shooter].pop(0)
        assert "turn; silent" in screens[other[shooter]], "the other side waits for its turn"
        tmux.keys(shooter, *target, "Enter")
        name = target.upper()
        # A hit earns another shot: the line then tells the whole turn, this shot last.
        said = re.compile(rf"Your last (?:shot|turn) +(?:.*, )?{name}: (\w+)")
        after = tmux.wait(shooter, showing(said))
        answer = said.search(after)
        assert answer is not None
        mark = GLYPH_OF_ANSWER[answer.group(1)]
        assert square(after, RIGHT, name) == mark, after
        told = re.compile(rf"Their last (?:shot|turn) +(?:.*, )?{name}: {answer.group(1)}")
        seen = tmux.wait(other[shooter], showing(told))
        assert square(seen, LEFT, name) == mark, seen
        screens[shooter] = after
        screens[other[shooter]] = tmux.wait(other[shooter], "YOUR TURN")

    # Quitting asks first, then resigns properly.
    quitter = next(name for name in ("host", "guest") if "YOUR TURN" in screens[name])
    winner = other[quitter]
    tmux.keys(quitter, "q")
    tmux.wait(quitter, "Resign now? The opponent wins; the end screen then shows both fleets")
    tmux.keys(quitter, "y")
    resigned = tmux.wait(quitter, "You resigned: the opponent wins")
    assert "never revealed" not in resigned, "the resignation's end screen shows the reveal"

    # The end: the verdict, both fleets revealed whole, and the log.
    end = tmux.wait(winner, "You won: the opponent resigned")
    assert "Their fleet" in end and "never revealed" not in end
    assert ship_squares(end, LEFT) == 20 and ship_squares(end, RIGHT) == 20, end
    assert "Checked: every answer on both sides matches the revealed fleets" in end
    assert "Shots: you 2, opponent 2" in end
    # The path is shown whole, broken after a folder where it is longer than a line.
    lines = end.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Log: "))
    log_line = lines[start]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * len("Log: ")):  # the path's next piece is indented
            break
        log_line += line.strip()
    tmux.keys(quitter, "q")  # q leaves the end screen at once
    left = tmux.wait(quitter, "statki-exit-0", joined=True)
    assert "verdict: valid" in left and "resigned" in left, left
    tmux.keys(winner, "q")
    tmux.wait(winner, "statki-exit-0", joined=True)
    for home, name in ((alice, "host"), (bob, "guest")):
        (log,) = (home / "logs").iterdir()
        assert judge_log(log.read_bytes()).valid
        if name == winner:
            assert log_line.endswith(log.name), (log_line, log)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_an_early_guest_is_told_and_a_declined_game_offers_no_rematch(tmp_path: Path) -> None:
    """The host's screen kept its invite and "waiting for the opponent" while its guest
    waited for the rules; the guest declined them: no game, so neither screen counts its
    shots or offers a rematch of it (a guest asking for the rematch first is
    tests/client/test_client_rematch.py's, a game needing too many keys here)."""
    tmux = Tmux()
    try:
        _early_guest(tmux, tmp_path)
    finally:
        tmux.kill()


def _early_guest(tmux: Tmux, tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    tmux.start("host", alice, "host", "--port", "0", "--advertise", "127.0.0.1", "--name", "Alice")
    invite = invite_on(tmux.wait("host", "Invite for your opponent"))
    tmux.start("guest", bob, "join", invite, "--name", "Bob")
    waiting = tmux.wait("guest", "waiting for the host's rules")
    assert "waiting for the opponent" not in waiting
    come = tmux.wait("host", "A guest has connected and waits for your rules")
    assert "statki://" not in come and "a guest waits for your rules" in come.splitlines()[0]
    tmux.keys("host", "Enter")  # the rules
    tmux.wait("host", "A guest has connected and waits for your rules: place your fleet")
    tmux.keys("host", "Enter")  # the fleet: the hello goes out
    tmux.wait("guest", "Alice proposes these rules")
    tmux.keys("guest", "d")  # declined: no game, so nothing to play again
    for name in ("host", "guest"):
        end = tmux.wait(name, "No game: the rules were declined")
        assert "r rematch" not in end and "Shots:" not in end, end

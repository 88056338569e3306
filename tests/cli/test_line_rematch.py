"""A rematch at the line prompt (``statki host --plain``, ``statki join --plain``), issue 14.

Two real processes over loopback TCP, each in its own home, as two people on
one machine: at a game's end either player types the rematch word (English
``rematch``/``r``, Polish ``rewanż``), the prompt says who starts (the side
that did not shoot first), and the new game begins once the other agrees, as
on the full screen; with or without a daemon on either side.  A rematch the
opponent declines, or one they are gone for, is said in the player's words.
"""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from netproc import finish, line_starting, start, stop

from statki_net.cli.lineplay import LineInput
from statki_net.cli.netplay import Player, _host_game
from statki_net.game.rules import ruleset_named
from statki_net.net.clock import ScaledClock
from statki_net.net.control import ControlClient
from statki_net.referee.verify import judge_log
from statki_net.store.language import speak

LINES = 400
"""Lines read at most while waiting for one (two boards a volley: far more than needed)."""


@dataclass
class Prompt:
    """A ``statki`` process at the line prompt: what it printed, and lines typed into it."""

    process: subprocess.Popen[str]
    seen: list[str] = field(default_factory=list)

    def type(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def line_with(self, *texts: str) -> str:
        """The next line holding one of ``texts`` (a prompt may come before it on the line)."""
        for _line in range(LINES):
            line = line_starting(self.process, "", self.seen)
            if any(text in line for text in texts):
                return line
        raise AssertionError(f"no line with {texts!r}; got {self.seen!r}")

    def finish(self) -> tuple[int, str, str]:
        status, out, err = finish(self.process)
        return status, "\n".join([*self.seen, out]), err


def _host(home: Path, *options: str) -> tuple[Prompt, str]:
    host = Prompt(
        start(
            home, "host", "--plain", "--port", "0", "--advertise", "127.0.0.1", *options, stdin=""
        )
    )
    return host, line_starting(host.process, "statki://", host.seen)


def _guest(home: Path, invite: str, *options: str) -> Prompt:
    return Prompt(start(home, *options, "join", invite, "--plain", "--name", "Ola", stdin=""))


def _daemon(home: Path) -> subprocess.Popen[str]:
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0")
    line_starting(daemon, "control socket", [])
    return daemon


async def _daemon_statuses(home: Path) -> list[str]:
    """The status of each game the daemon running in ``home`` knows of."""
    client = await ControlClient.connect(home)
    assert client is not None
    try:
        return [str(game["status"]) for game in (await client.request("games"))["games"]]
    finally:
        await client.close()


def _battle_resigned(host: Prompt, guest: Prompt, *, polish_guest: bool) -> bool:
    """The game's first shooter resigns at once; whether the host shot first."""
    host_first = "you shoot first" in host.line_with("you shoot first", "your opponent shoots")
    guest.line_with("zaczynasz ty", "zaczyna przeciwnik", "you shoot first", "your opponent")
    if host_first:
        host.type("resign")
    else:
        guest.type("poddaj" if polish_guest else "resign")
    host.line_with("log:")
    guest.line_with("zapis:" if polish_guest else "log:")
    return host_first


@pytest.mark.timeout(120)
def test_both_players_ask_for_a_rematch_and_the_other_side_starts(tmp_path: Path) -> None:
    """No daemon either side; the host reads English, the guest Polish.  After the rematch
    the host leaves, and the guest asking for another is told, in Polish, it is gone."""
    host, invite = _host(tmp_path / "host", "--name", "Ala")
    guest = _guest(tmp_path / "guest", invite, "--lang", "pl")
    try:
        guest.type("t")
        host_first = _battle_resigned(host, guest, polish_guest=True)
        host.type("r")
        guest.type("rewanż")
        said = host.line_with("rematch: ")
        assert said.endswith(
            "rematch: Ola starts; waiting for Ola to ask for it too"
            if host_first
            else "rematch: you start; waiting for Ola to ask for it too"
        ), said
        said = guest.line_with("rewanż: ")
        assert said.endswith(
            "rewanż: zaczynasz ty; ponownie łączę się z przeciwnikiem (Ala)"
            if host_first
            else "rewanż: Ala zaczyna; ponownie łączę się z przeciwnikiem (Ala)"
        ), said
        agreed = guest.line_with("kto zaczyna: ")
        assert agreed.endswith("(ustalone, bez rzutu monetą)"), agreed
        guest.type("tak")
        assert _battle_resigned(host, guest, polish_guest=True) is not host_first
        host.type("q")
        guest.type("r")
        gone = guest.line_with("! Ala")
        assert gone.startswith("! Ala nie czeka na rewanż: "), gone  # the host has gone
        host_status, _, host_err = host.finish()
        guest_status, _, guest_err = guest.finish()
    finally:
        stop(host.process)
        stop(guest.process)
    assert (host_status, guest_status) == (0, 0), (host_err, guest_err)
    assert "Traceback" not in host_err + guest_err
    for home in (tmp_path / "host", tmp_path / "guest"):
        logs = sorted((home / "logs").iterdir())
        assert len(logs) == 2, logs  # the game and its rematch, each its own log
        assert all(judge_log(log.read_bytes()).valid for log in logs)


@pytest.mark.timeout(120)
def test_a_rematch_declined_through_the_hosts_daemon_is_said(tmp_path: Path) -> None:
    """The host plays through its daemon (the control request ``rematch``, then ``propose``);
    the guest, in process, asks too and then declines the rematch's rules."""
    daemon = _daemon(tmp_path / "host")
    try:
        host, invite = _host(tmp_path / "host", "--name", "Ala")
        guest = _guest(tmp_path / "guest", invite)
        try:
            guest.type("y")
            host_first = _battle_resigned(host, guest, polish_guest=False)
            host.type("rematch")
            starter = "you start" if not host_first else "Ola starts"
            said = host.line_with("rematch: ")
            assert said.endswith(f"rematch: {starter}; waiting for Ola to ask for it too"), said
            guest.type("r")
            guest.line_with("who shoots first: ")
            guest.type("n")
            declined = host.line_with("declined the rematch")
            assert declined.endswith("Ola declined the rematch"), declined
            host.type("q")
            guest.type("q")
            host_status, host_out, host_err = host.finish()
            guest_status, _, guest_err = guest.finish()
        finally:
            stop(host.process)
            stop(guest.process)
    finally:
        stop(daemon)
    assert (host_status, guest_status) == (0, 0), (host_err, guest_err)
    assert "no winner (refused)" in host_out and "Traceback" not in host_err + guest_err


@pytest.mark.timeout(120)
def test_a_guest_through_its_daemon_plays_the_rematch(tmp_path: Path) -> None:
    """The guest plays through its daemon, which dials the same host again; the host, in
    process, asks first and waits for it."""
    daemon = _daemon(tmp_path / "guest")
    try:
        host, invite = _host(tmp_path / "host", "--name", "Ala")
        guest = _guest(tmp_path / "guest", invite)
        try:
            guest.type("y")
            host_first = _battle_resigned(host, guest, polish_guest=False)
            host.type("r")
            host.line_with("rematch: ")
            guest.type("r")
            said = guest.line_with("rematch: ")
            assert said.endswith(
                "rematch: you start; connecting to Ala again"
                if host_first
                else "rematch: Ala starts; connecting to Ala again"
            ), said
            guest.line_with("who shoots first: ")
            guest.type("y")
            assert _battle_resigned(host, guest, polish_guest=False) is not host_first
            host.type("q")
            guest.type("q")
            host_status, _, host_err = host.finish()
            guest_status, _, guest_err = guest.finish()
        finally:
            stop(host.process)
            stop(guest.process)
    finally:
        stop(daemon)
    assert (host_status, guest_status) == (0, 0), (host_err, guest_err)
    assert len(list((tmp_path / "host" / "logs").iterdir())) == 2


def test_a_host_whose_guest_never_comes_back_is_told_in_its_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``statki host --plain`` in this process, on a clock 20 times fast (its wait for the
    guest, a move, is 6 s), reading Polish: its guest, the computer in a process of its
    own, leaves after the game; the host asks for a rematch and is told, in Polish, who
    did not come back, then leaves with the first game's status."""

    async def script() -> LineInput:
        typed = asyncio.StreamReader()  # made in the game's event loop
        typed.feed_data("poddaj\nrewanż\n".encode())  # resign at the first turn, then ask
        typed.feed_eof()
        return LineInput(typed)

    monkeypatch.setattr(LineInput, "from_stdin", script)
    (tmp_path / "host").mkdir()
    ala = Player(tmp_path / "host", "Ala", None, None, None, clock=ScaledClock(20))
    printed: list[str] = []

    async def scenario() -> int:
        hosting = asyncio.ensure_future(
            _host_game(ala, ruleset_named("classic"), None, 0, ["127.0.0.1"])
        )
        for _attempt in range(3000):
            printed.append(capsys.readouterr().out)
            invites = [w for w in "".join(printed).split() if w.startswith("statki://")]
            if invites or hosting.done():
                break
            await asyncio.sleep(0.01)
        if not invites:
            return await hosting  # what stopped it, said
        guest = start(tmp_path / "guest", "join", invites[0], "--bot", "random", "--name", "Ola")
        try:
            async with asyncio.timeout(60):
                return await hosting
        finally:
            stop(guest)

    speak("pl")
    try:
        status = asyncio.run(scenario())
    finally:
        speak("en")
    out = "".join([*printed, capsys.readouterr().out])
    assert status == 0, out
    starter = "Ola zaczyna" if "\nzaczynasz ty\n" in out else "zaczynasz ty"  # the other side
    assert f"rewanż: {starter}; czekam, aż Ola też poprosi o rewanż" in out, out
    assert "! Ola: brak powrotu na rewanż w ciągu 120 s" in out, out


@pytest.mark.timeout(90)
@pytest.mark.parametrize("through", ["in process", "its daemon"])
def test_a_host_waiting_for_the_rematch_leaves_when_it_types_quit(
    tmp_path: Path, through: str
) -> None:
    """The guest leaves instead; the host, which asked, waits a move (120 s) for it unless it
    types ``q``: then it leaves at once (and its daemon waits no more), without a word on the
    guest who never came."""
    daemon = _daemon(tmp_path / "host") if through == "its daemon" else None
    try:
        host, invite = _host(tmp_path / "host", "--name", "Ala")
        guest = _guest(tmp_path / "guest", invite)
        try:
            guest.type("y")
            _battle_resigned(host, guest, polish_guest=False)
            guest.type("q")
            assert finish(guest.process)[0] == 0
            host.type("r")
            host.line_with("rematch: ")
            host.type("q")
            out, err = host.process.communicate(timeout=30)  # not the move's 120 s
        finally:
            stop(host.process)
            stop(guest.process)
        if daemon is not None:
            statuses = asyncio.run(_daemon_statuses(tmp_path / "host"))
            assert "waiting" not in statuses and len(statuses) == 2, statuses
    finally:
        if daemon is not None:
            stop(daemon)
    assert host.process.returncode == 0, err
    assert "did not come back" not in out and "Traceback" not in err, out + err


@pytest.mark.timeout(90)
def test_a_guest_through_its_daemon_leaves_a_rematch_never_offered_when_it_types_quit(
    tmp_path: Path,
) -> None:
    """The host leaves instead, its daemon still listening (it closes each connection
    without a word: no rematch offered); the guest's daemon dials it again for a move
    (120 s) unless the guest types ``q``: then it leaves at once, and its daemon dials
    no more."""
    daemons = [_daemon(tmp_path / "host"), _daemon(tmp_path / "guest")]
    try:
        host, invite = _host(tmp_path / "host", "--name", "Ala")
        guest = _guest(tmp_path / "guest", invite)
        try:
            guest.type("y")
            _battle_resigned(host, guest, polish_guest=False)
            host.type("q")
            assert finish(host.process)[0] == 0
            guest.type("r")
            guest.line_with("rematch: ")
            guest.type("q")
            out, err = guest.process.communicate(timeout=30)  # not the move's 120 s
        finally:
            stop(host.process)
            stop(guest.process)
        statuses = asyncio.run(_daemon_statuses(tmp_path / "guest"))
    finally:
        for daemon in daemons:
            stop(daemon)
    assert guest.process.returncode == 0, err
    assert "waiting" not in statuses and len(statuses) == 2, statuses
    assert "Traceback" not in err, out + err

"""The lines printed for a person once the full screen is gone (issue 14): wrapped between
words to the terminal's width, a log's path whole on a line of its own where it would not
fit, and a command's one-line error one line where a script reads it.  In process, a few ms.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from conftest import Cli

from statki_net.cli.netplay import _exit_status as exit_status
from statki_net.cli.netplay import _tell_closed as tell_closed
from statki_net.cli.netplay import told_outcomes
from statki_net.cli.told import StatusLine, tell_copyable, tell_error
from statki_net.cli.tournament import Progress
from statki_net.net import notices
from statki_net.net.connection import Outcome
from statki_net.protocol.endings import End, Result
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.language import speak
from statki_net.store.recorder import LogVerdict

SAMPLE = Path(__file__).parents[2] / "protocol" / "logs" / "honest-classic.statki"
DEEP = Path(
    "/home/ala/.local/share/statki-of-a-long-name/logs/20261202-131415-host-0a1b2c3d.statki"
)


def _printed(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_log_path_longer_than_the_line_is_whole_on_a_line_of_its_own(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    """It was "log: /home/ala/…/20261202-131415-ho" and "st-0a1b2c3d.statki" on the next:
    copied, half a path."""
    monkeypatch.setenv("COLUMNS", "60")
    judgement = judge_log(SAMPLE.read_bytes())
    assert judgement.ending is not None
    outcome = Outcome(judgement.ending, Role.HOST, 0, 0, LogVerdict.of(judgement), DEEP, "game")
    speak(language)
    try:
        told_outcomes([outcome])
    finally:
        speak("en")
    printed = _printed(capsys)
    assert printed[-1] == str(DEEP), printed
    assert printed[-2] == ("log:" if language == "en" else "zapis:"), printed
    assert all(len(line) <= 60 for line in printed[:-1]), printed


def test_a_short_path_stays_on_its_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    tell_copyable("log: {path}", "/tmp/a.statki")
    assert _printed(capsys) == ["log: /tmp/a.statki"]


def test_a_followed_games_verdict_is_wrapped_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game the daemon played printed its verdict in one line, which the terminal cut."""
    monkeypatch.setenv("COLUMNS", "50")
    judgement = judge_log(SAMPLE.read_bytes())
    said = judgement.headline_phrase()
    closed = notices.Closed(
        Result.WON, End.SUNK, str(said), None, DEEP, said=said, standing=judgement.standing
    )
    tell_closed(closed)
    printed = _printed(capsys)
    assert len(printed) > 3 and printed[-1] == str(DEEP), printed
    assert all(len(line) <= 50 for line in printed[:-1]), printed
    assert " ".join(printed[:-2]) == "verdict: " + str(said), printed


def test_a_commands_error_is_one_line_in_a_pipe_and_wrapped_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # as pytest-xdist's workers have it: no terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    long = "statki: the game did not finish: " + "the opponent went away " * 5
    tell_error(long)
    assert capsys.readouterr().err == long + "\n"
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    tell_error(long)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) > 2 and all(len(line) <= 40 for line in lines), lines


def test_the_game_did_not_finish_is_wrapped_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    why = "Ala is not there for the rematch: cannot connect to 127.0.0.1:50123"
    assert exit_status(End.NO_GAME, None, why) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) > 1 and all(len(line) <= 40 for line in lines), lines
    assert " ".join(lines) == f"statki: the game did not finish: {why}"


def test_a_commands_error_is_wrapped_on_a_terminal_and_one_line_in_a_pipe(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error ``main`` says for every command, as ``tell_error`` says it."""
    monkeypatch.setenv("COLUMNS", "40")
    refused = cli("join", "statki://not an address at all, nor an invite of any kind")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    shown = cli("join", "statki://not an address at all, nor an invite of any kind")
    lines = shown.stderr.splitlines()
    assert len(lines) > 1 and all(len(line) <= 40 for line in lines), lines
    assert " ".join(lines) == refused.stderr.strip()


def test_into_a_pipe_lines_go_whole_unless_columns_asks(tmp_path: Path) -> None:
    """A script reading ``statki … | grep '^log: '`` found the path on the next line: in a
    pipe, with no ``COLUMNS``, a line and a log's path go whole; ``COLUMNS`` still asks for
    a width (as the tests at 80 columns do)."""
    import os
    import subprocess

    script = (
        "from statki_net.cli.told import tell, tell_copyable\n"
        f"tell({('word ' * 40).strip()!r})\n"
        f"tell_copyable('log: {{path}}', {str(DEEP)!r})\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    piped = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=30
    )
    assert piped.stdout.splitlines() == [("word " * 40).rstrip(), f"log: {DEEP}"]
    asked = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "40"},
        timeout=30,
    )
    lines = asked.stdout.splitlines()
    assert all(len(line) <= 40 for line in lines[:-1]) and lines[-2:] == ["log:", str(DEEP)]


def test_a_battle_the_daemon_left_unfinished_is_told_so_not_no_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A guest whose daemon was killed mid-battle read "end: no game" as the screen closed,
    though ``statki resume`` picked the game up."""
    from peers import make_pair, play

    from statki_net.game.rules import PRESETS

    pair = make_pair(PRESETS["classic"], seed=12)
    play(pair, seed=13, stop_after=4)
    closed = notices.Closed.without_game("the daemon went away")
    tell_closed(closed, pair.guest)
    assert _printed(capsys) == ["The game stopped unfinished: statki resume picks it up"]
    tell_closed(closed)  # a game that never began stays no game
    assert _printed(capsys) == ["end: no-game"]


def _rows(drawn: str) -> list[str]:
    """What a terminal shows of in-place output: each carriage return goes back to the
    start of the row and overwrites it; a newline would start another row."""
    assert "\n" not in drawn, "an in-place line never adds a row"
    row: list[str] = []
    column = 0
    for char in drawn:
        if char == "\r":
            column = 0
            continue
        if column < len(row):
            row[column] = char
        else:
            row.append(char)
        column += 1
    return ["".join(row).rstrip()]


def test_an_in_place_progress_line_keeps_to_one_row_of_a_narrow_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``analyze``'s percent and the tournament's bar were written whole: on a terminal
    narrower than the line each update ran onto a second row and left it behind.  Now the
    label is cut first, the figures stay whole, and a shorter update blanks the rest."""
    monkeypatch.setenv("COLUMNS", "24")
    stream = io.StringIO()
    line = StatusLine(stream)
    line.show("analysing the fleet of the host: 100%", shortened="the fleet of the host")
    first = stream.getvalue()
    assert first.endswith(": 100%") and len(first) - 1 <= 23, first
    line.show("analysing: 7%")
    assert _rows(stream.getvalue()) == ["analysing: 7%"], "the longer line's end is blanked"
    line.clear()
    assert _rows(stream.getvalue()) == [""] and stream.getvalue().endswith("\r")

    bars = io.StringIO()
    progress = Progress(
        1000, "judging games", stream=bars, clock=lambda: 5.0, shown=True, began=0.0
    )
    for done in (1, 500, 1000):
        progress.update(done)
        shown = _rows(bars.getvalue())[0]
        assert len(shown) <= 23 and shown.endswith(f"] {done}/1000"), shown
    progress.finish()
    assert _rows(bars.getvalue()) == [""]

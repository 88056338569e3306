"""The line front end on a narrow terminal: every line it says is wrapped between words to
the terminal's width (the legend, the rules, the verdict), the boards' rows never; in a
pipe its lines stay whole."""

from __future__ import annotations

import asyncio
import io
import random
from pathlib import Path

import pytest
from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import LineInput, LocalHandle, PromptPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.protocol.wire import Role
from statki_net.store.language import speak


class Terminal(io.StringIO):
    """What the player's terminal is shown (a terminal, as the prompt tells it)."""

    def isatty(self) -> bool:
        return True


def played(out: io.StringIO, tmp_path: Path) -> str:
    """A guest at the Polish prompt accepts, fires once, then resigns."""
    host, guest = sessions(ruleset_named("classic"), 41, first=Role.GUEST)

    async def game() -> None:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            reader = asyncio.StreamReader()
            reader.feed_data(b"t\nJ10\npoddaj\n")
            reader.feed_eof()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(reader), out)
            await asyncio.gather(host_conn.run(), guest_conn.run(), front.play())

    speak("pl")
    try:
        asyncio.run(game())
    finally:
        speak("en")
    return out.getvalue()


def test_a_narrow_terminal_is_told_every_line_between_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    printed = played(Terminal(), tmp_path)
    # The answers typed are not echoed here: a terminal's Enter ends the prompt's line.
    for prompt in ("twój strzał (1) albo poddaj: ", "grać według tych zasad? [t/n] "):
        printed = printed.replace(prompt, prompt + "\n")
    too_wide = [line for line in printed.splitlines() if len(line) > 60 and " " in line]
    assert not too_wide, printed
    said = " ".join(printed.split())
    assert "? strzał bez wyniku" in said and "po trafieniu kolejny strzał" in said
    assert "strzały: gospodarz" in said
    rows = [line for line in printed.splitlines() if line.startswith("10  ")]
    assert rows and all(line.count("10") == 2 for line in rows), "a board's row stays whole"


def test_a_pipe_is_told_each_line_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    printed = played(io.StringIO(), tmp_path)
    assert any(
        len(line) > 60 and "po trafieniu kolejny strzał" in line for line in printed.split("\n")
    )

"""The line front end's talk, as a guest over real loopback TCP: ``say TEXT``, ``mute`` and
``unmute``, none of which is ever taken for a square, against a host that echoes."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import Callable
from pathlib import Path

from netgames import connected, sessions

from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.lineplay import TALK_HINT, LineInput, LocalHandle, PromptPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.net.connection import GameConnection
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.language import _, speak


def echoing(conn: GameConnection) -> list[str]:
    """The host's player answers every line it hears with ``echo: LINE``."""
    loop = asyncio.get_running_loop()
    heard: list[str] = []

    def on_notice(notice: Notice) -> None:
        if isinstance(notice, notices.Talk) and not notice.mine:
            heard.append(notice.text)
            loop.call_soon(conn.say, f"echo: {notice.text}")

    conn.listeners.append(on_notice)
    return heard


async def until(test: Callable[[], bool], what: str) -> None:
    for _attempt in range(1000):
        if test():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


def test_say_mute_and_unmute_at_the_prompt(tmp_path: Path) -> None:
    host, guest = sessions(ruleset_named("classic"), 21, first=Role.GUEST)
    out = io.StringIO()

    async def game() -> End:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            echoed = echoing(host_conn)
            told: list[Notice] = []
            guest_conn.listeners.append(told.append)
            reader = asyncio.StreamReader()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(reader), out)

            def heard(text: str) -> bool:
                return any(isinstance(n, notices.Talk) and n.text == text for n in told)

            async def typing() -> None:
                steps: list[tuple[str, Callable[[], bool]]] = [
                    ("y", lambda: "you shoot first" in out.getvalue()),
                    ("say A1", lambda: heard("echo: A1")),
                    ("say x\ty", lambda: "! cannot say that" in out.getvalue()),
                    ("MUTE", lambda: "talk is hidden" in out.getvalue()),
                    ("say cicho", lambda: heard("echo: cicho")),
                    ("unmute", lambda: "talk is shown again" in out.getvalue()),
                    ("say głośno", lambda: heard("echo: głośno")),
                ]
                for typed, then in steps:
                    reader.feed_data(f"{typed}\n".encode())
                    await until(then, f"after {typed!r}: {out.getvalue()}")
                reader.feed_data(b"resign\n")
                reader.feed_eof()
                assert echoed == ["A1", "cicho", "głośno"], "a bad line is never sent"

            _, outcome, _, _ = await asyncio.gather(
                host_conn.run(), guest_conn.run(), front.play(), typing()
            )
            return outcome.ending.end

    end = asyncio.run(game())
    printed = out.getvalue()
    assert end is End.RESIGNED
    assert "talk: say TEXT; mute / unmute the opponent" in printed
    assert "you said: A1" in printed and "Ala says: echo: A1" in printed
    assert "you fired" not in printed, "say A1 is talk, never a shot at A1"
    assert "! cannot say that: a control character (U+0009)" in printed
    assert "echo: cicho" not in printed.replace("you said: cicho", ""), "muted: not shown"
    assert "Ala says: echo: głośno" in printed
    # Muted is only not shown: the log keeps every line, the muted one too.
    log = judge_log(next(tmp_path.glob("*.statki")).read_bytes())
    assert [line.text for line in log.talk if line.sender is Role.HOST] == [
        "echo: A1",
        "echo: cicho",
        "echo: głośno",
    ]


def test_the_polish_words_talk_mute_and_resign(tmp_path: Path) -> None:
    """At the Polish prompt only "say", "mute" and "resign" were taken (and shown)."""
    host, guest = sessions(ruleset_named("classic"), 22, first=Role.GUEST)
    out = io.StringIO()

    async def game() -> End:
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, None)) as (
            host_conn,
            guest_conn,
            _,
        ):
            attach_computer(host_conn, ComputerPlayer("random", random.Random(1)))
            echoed = echoing(host_conn)
            reader = asyncio.StreamReader()
            front = PromptPlayer(LocalHandle(guest_conn), LineInput(reader), out)

            async def typing() -> None:
                steps: list[tuple[str, Callable[[], bool]]] = [
                    ("tak", lambda: "zaczynasz ty" in out.getvalue()),
                    ("powiedz A1", lambda: "echo: A1" in out.getvalue()),
                    ("wycisz", lambda: "ukryty" in out.getvalue()),
                    ("odcisz", lambda: "znów widoczny" in out.getvalue()),
                ]
                for typed, then in steps:
                    reader.feed_data(f"{typed}\n".encode())
                    await until(then, f"after {typed!r}: {out.getvalue()}")
                reader.feed_data(b"poddaj\n")
                reader.feed_eof()
                assert echoed == ["A1"]

            _, outcome, _, _ = await asyncio.gather(
                host_conn.run(), guest_conn.run(), front.play(), typing()
            )
            return outcome.ending.end

    speak("pl")
    try:
        end = asyncio.run(game())
        hint = _(TALK_HINT)
    finally:
        speak("en")
    assert end is End.RESIGNED
    assert hint in out.getvalue() and "powiedz" in hint and "wycisz" in hint

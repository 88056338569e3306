"""A peer's own words (its name, its error's detail) reach no screen with control characters.

They are signed as the peer wrote them, and shown with each control character
(SPEC.md section 2, "Text") replaced, so that no escape sequence, carriage
return or bidirectional override can redraw, forge or reorder a line of the
line prompt, ``statki verify`` or ``statki record``.
"""

from __future__ import annotations

from pathlib import Path

from conftest import Cli
from peers import log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.game.words import CONTROL_CHARACTERS, ENGLISH, SHOWN_INSTEAD, printable
from statki_net.protocol.errors import Code
from statki_net.protocol.wire import Role, read_body

HOSTILE = "m\x1b[2J\x1b]0;PWNED\x07\r\n  result: forged\u202eevil"


def shows_a_control_character(text: str) -> bool:
    return any(ord(char) in CONTROL_CHARACTERS for char in text.replace("\n", ""))


def test_printable_replaces_each_control_character_and_keeps_the_rest() -> None:
    assert printable("Łucja 🚢 A1") == "Łucja 🚢 A1"
    shown = printable(HOSTILE)
    assert not shows_a_control_character(shown) and "\n" not in shown
    assert shown.count(SHOWN_INSTEAD) == 6
    assert shown.replace(SHOWN_INSTEAD, "") == "m[2J]0;PWNED  result: forgedevil"


def test_a_peers_name_is_read_printable_and_its_signed_bytes_as_written(
    cli: Cli, tmp_path: Path
) -> None:
    pair = make_pair(PRESETS["classic"], seed=71)
    pair.guest.name = HOSTILE
    play(pair, seed=72, resign_at=5)
    hello = pair.host.transcript.sides[Role.GUEST].hello
    assert hello is not None and hello.name == printable(HOSTILE)
    signed = pair.host.transcript.frames[1]
    assert read_body(signed.body)["name"] == HOSTILE  # the evidence keeps what was said
    log = tmp_path / "game.statki"
    log.write_bytes(log_bytes(pair.host))
    for command in (("verify", str(log)), ("record", str(log)), ("verify", "--json", str(log))):
        done = cli(*command)
        assert done.returncode == 0, done.stderr
        told = done.stdout + done.stderr
        assert not shows_a_control_character(told), (command, told)
        assert "forged" in told and "\x1b" not in told
    assert f"m{SHOWN_INSTEAD}[2J" in cli("verify", str(log)).stdout


def test_an_errors_detail_is_read_printable() -> None:
    pair = make_pair(PRESETS["classic"], seed=73)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    pair.record(Role.GUEST, pair.guest.abort(Code.CLOSED, HOSTILE, pair.now))
    pair.pump()
    failure = pair.host.failure
    assert failure is not None and failure.by_peer
    assert failure.detail == printable(HOSTILE)
    assert not shows_a_control_character(failure.plainly().in_words(ENGLISH))

"""The chat line of the full-screen client, in rendered screens at 80x24: typing a line
through the real application, the talk beside the boards, muting."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_client_model
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from statki_client.keys import press
from statki_client.layout import HEIGHT, WIDTH, plain, screen
from statki_client.model import Model, Stage
from test_client_keys import run_keys
from test_client_model import game

from statki_net.game.rules import Ruleset
from statki_net.protocol.logformat import read_log
from statki_net.protocol.talk import TalkHeard
from statki_net.protocol.wire import Role, Say, sign_say
from statki_net.referee.verify import judge_log
from statki_net.store.language import speak


def fits(shown: str) -> None:
    lines = shown.split("\n")
    assert len(lines) == HEIGHT, len(lines)
    assert all(len(line) <= WIDTH for line in lines), [line for line in lines if len(line) > 80]


def heard(model: Model, text: str) -> None:
    """The opponent says ``text``, as the session tells the model."""
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    say = Say(Role.GUEST, model.session.transcript.game, 0, 3, 0, text)
    model.handle([TalkHeard(sign_say(key, say))])


def test_a_line_typed_on_the_chat_line_is_said_shown_and_logged(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    # Enter starts the battle; t opens the chat line; q and the square letters type there.
    screens = run_keys(model, "\rtquick b4, zażółć!\r")
    typed = [i for i, shown in enumerate(screens) if "Say: quick b4, zażółć!_" in shown]
    assert typed, screens[-1]
    typing, said = screens[typed[-1]], screens[typed[-1] + 1]
    assert "Enter say  Esc close" in typing
    fits(typing)
    fits(said)
    assert "Talk" in said.split("\n")[2], "the talk's heading beside the boards"
    assert "you: quick b4," in said and "Say:" not in said
    assert model.shots_fired(True) == 0, "b4 on the chat line is talk, never a shot"
    assert model.stage is Stage.OVER, "then q y left the game"
    log = model.link.log_path
    assert log is not None
    assert [t.text for t in judge_log(log.read_bytes()).talk] == ["quick b4, zażółć!"]
    assert read_log(log.read_bytes()).talk, "kept as a talk record"


def test_the_chat_line_edits_closes_and_keeps_to_the_bounds(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    press(model, "t")
    for key in "abc":
        press(model, key)
    press(model, "backspace")
    assert model.draft == "ab"
    press(model, "escape")
    assert model.draft is None and not model.talk, "Esc closes without saying"
    press(model, "t")
    for _ in range(250):
        press(model, "x")
    assert model.draft is not None and len(model.draft) == 200, "no more than a line holds"
    shown = plain(screen(model))
    fits(shown)
    assert "200/200" in shown and shown.count("x") >= 70, "the end of a long line is shown"
    press(model, "enter")
    assert model.talk[-1].text == "x" * 200


def test_muting_hides_the_opponents_lines_but_not_ones_own(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    model.link.say("my line")
    heard(model, "their first line")
    shown = plain(screen(model))
    fits(shown)
    assert "their first line" in shown and "my line" in shown
    press(model, "m")
    heard(model, "their muted line")
    shown = plain(screen(model))
    fits(shown)
    assert "Talk (muted)" in shown and "is muted" in shown
    assert "their first line" not in shown and "their muted line" not in shown
    assert "you: my line" in shown
    press(model, "m")
    shown = plain(screen(model))
    assert "their muted line" in shown, "kept while muted: shown once unmuted"
    assert "can be heard again" in shown


def test_many_lines_show_the_last_that_fit_beside_the_boards(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    for n in range(30):
        heard(model, f"line number {n} of a long and winding conversation")
    shown = plain(screen(model))
    fits(shown)
    assert "conversation" in shown and "line number 29" in shown
    assert "line number 20 " not in shown, "only the last lines fit"
    rows = shown.split("\n")
    assert rows[2].startswith("   A B C D E F G H I J"), "the boards are where they were"


def test_polish_talk_shows_both_sides_beside_the_boards(tmp_path: Path) -> None:
    # Polish titles reach further than the boards: the talk stood beside them and found no
    # room, so nothing one said was ever shown (and a line heard only on the notice).
    speak("pl")
    model, _ = game(tmp_path)
    model.ready()
    model.link.say("moja linia")
    heard(model, "pierwsza linia")
    shown = plain(screen(model))
    fits(shown)
    rows = shown.split("\n")
    assert "Czat" in rows[2], "the talk's heading beside the boards' letters"
    assert "ty: moja linia" in shown and "pierwsza linia" in shown
    press(model, "m")
    heard(model, "wyciszona linia")
    shown = plain(screen(model))
    assert "Czat (wyciszony)" in shown and "ty: moja linia" in shown
    assert "wyciszona linia" not in shown and "pierwsza linia" not in shown


def test_ones_own_line_is_the_notice_where_no_talk_fits_beside_the_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 12-square board leaves too few columns for the talk: the last line, one's own
    # included, is still on the screen, as the notice.
    monkeypatch.setattr(test_client_model, "ruleset_named", lambda _: Ruleset(size=12))
    model, _ = game(tmp_path)
    model.ready()
    model.link.say("my own line")
    shown = plain(screen(model))
    fits(shown)
    assert "Talk" not in shown, "no room beside a 12-square board"
    assert "You: my own line" in shown
    heard(model, "their line")
    assert "their line" in plain(screen(model))

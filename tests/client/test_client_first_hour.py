"""What a new player ran into in their first hour, each shown on the real model's screen."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from statki_client.keys import press
from statki_client.layout import cut_short, plain, screen
from statki_client.model import Model, Overlay, Stage
from statki_client.remote import ConnectionLink
from test_client_model import game
from test_client_netscreen import GUEST_KEY, HOST_KEY

from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.net.invite import parse_invite
from statki_net.protocol.events import PeerHello, RulesProposed
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Hello, Limits, Role
from statki_net.store.language import speak

SECRET = "d545c50a38ad24e3eb93e619db296475"
REAL_INVITE = f"statki://192.0.2.2:47991,[fd00::2]:47991/{'a2' * 32}/{SECRET}"
"""An invite as ``statki host`` prints it on a machine with two addresses: three lines."""


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_rules_screen_shows_the_whole_invite_secret_included(language: str) -> None:
    """At 80x24 the host's rules screen hid the invite's last line, its secret, under the
    key bar: a guest given what the screen showed could not join."""
    session = Session(
        Role.HOST,
        HOST_KEY,
        name="Ala",
        entropy=random.Random(1).randbytes,
        rules=ruleset_named("classic"),
    )
    speak(language)
    try:
        model = Model(
            ConnectionLink(session),
            random.Random(2),
            invite=REAL_INVITE,
            rule_choices=tuple(PRESETS),
        )
        text, cut = plain(screen(model)), cut_short(model)
    finally:
        speak("en")
    assert cut == []
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("statki://"))
    assert lines[start + 2] == f"/{SECRET}"
    assert parse_invite("\n".join(lines[start : start + 3])) == parse_invite(REAL_INVITE)


def test_the_guest_is_asked_in_a_sentence_that_starts_with_a_capital() -> None:
    """Both named Ala, the guest read "your opponent Ala proposes these rules"."""
    session = Session(Role.GUEST, GUEST_KEY, name="Ala", entropy=random.Random(1).randbytes)
    model = Model(ConnectionLink(session), random.Random(2))
    hello = Hello(1, "statki", public_key_bytes(HOST_KEY), "Ala", bytes(32))
    model.handle([PeerHello(Role.HOST, hello), RulesProposed(PRESETS["classic"], Limits())])
    assert model.notice.startswith("Your opponent Ala proposes these rules"), model.notice


def test_ctrl_d_asks_before_leaving_as_q_does(tmp_path: Path) -> None:
    """Ctrl-D, which ends most terminal programs, did nothing on the full screen."""
    model, _history = game(tmp_path)
    model.ready()
    press(model, "c-d")
    assert model.overlay is Overlay.QUIT
    press(model, "n")
    assert model.overlay is None and model.stage is Stage.BATTLE

"""The clock a player sees, from the session's deadline and a ``now`` passed in.

Real sessions back to back (``tests/peers``), in the battle, behind the link
the full screen uses over a network; no terminal, no clock read.
"""

from __future__ import annotations

import random
from pathlib import Path

from peers import make_pair, play
from statki_client.clock import clock_words
from statki_client.keys import press
from statki_client.layout import keys_line, plain, screen
from statki_client.model import Model, Stage
from statki_client.remote import ConnectionLink
from test_client_model import game
from test_client_netscreen import host_model

from statki_net.game.rules import PRESETS
from statki_net.protocol.events import YourTurn
from statki_net.protocol.wire import Role


def battle() -> tuple[Model, Model, int]:
    """Both sides' models at the first move of a battle, and the time it began."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, stop_after=0)
    models = []
    for session in (pair.host, pair.guest):
        model = Model(ConnectionLink(session), random.Random(1))
        model.opponent_name = "Olek" if session.role is Role.HOST else "Ala"
        model.rules = session.rules  # the guest's model was told them before the battle
        model.handle([])  # follow the protocol into the battle
        assert model.stage is Stage.BATTLE
        models.append(model)
    mover = next(m for m in models if m.my_turn)
    waiter = next(m for m in models if not m.my_turn)
    return mover, waiter, pair.now


def test_the_side_to_move_sees_its_seconds_run_down_with_two_warnings() -> None:
    mover, _, began = battle()
    said = clock_words(mover, began)
    assert said is not None and (said.text, said.urgent) == (
        "You have 120 s left for your move.",
        False,
    )
    hurry = clock_words(mover, began + 91_000)
    assert hurry is not None and hurry.urgent and hurry.text == "29 s left for your move: hurry."
    last = clock_words(mover, began + 110_500)
    assert last is not None and last.urgent
    assert last.text == "Only 10 s left: move now, or you lose on time!"
    assert "Only 10 s left" in plain(screen(mover, now=began + 110_500))
    assert "left for your move" not in plain(screen(mover)), "no clock without now"


def test_the_waiting_side_sees_the_others_time() -> None:
    _, waiter, began = battle()
    who = waiter.opponent_label()
    said = clock_words(waiter, began + 20_000)
    assert said is not None and not said.urgent
    assert said.text == f"{who} has 100 s left to move."
    assert f"{who} has 100 s left to move." in plain(screen(waiter, now=began + 20_000))
    gone = clock_words(waiter, began + 200_000)
    assert gone is not None and gone.text == f"{who}'s time is up: the game is claimed on time."


def test_against_the_computer_there_is_no_clock(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    assert model.stage is Stage.BATTLE
    assert clock_words(model, 10**13) is None
    assert "s left" not in plain(screen(model, now=10**13))
    model.handle([YourTurn(1)])
    assert not model.bell_due, "no bell in an untimed game"


def test_the_bell_rings_when_a_turn_begins_unless_turned_off() -> None:
    mover, waiter, _ = battle()
    waiter.handle([YourTurn(1)])
    assert waiter.bell_due
    mover.bell = False
    mover.handle([YourTurn(1)])
    assert not mover.bell_due


def test_the_host_picks_the_move_limit_on_the_rules_screen() -> None:
    model = host_model()
    model.rule_choices = tuple(PRESETS)
    model.revisit_rules()
    assert model.stage is Stage.RULES
    assert "Time for a move: 120 s (+ and - change it)" in plain(screen(model))
    assert "+/- time a move" in keys_line(model)
    press(model, "+")
    assert model.session.proposed_limits.move_ms == 300_000
    assert "Time for a move: 300 s" in plain(screen(model))
    for _ in range(5):
        press(model, "-")
    assert model.session.proposed_limits.move_ms == 60_000, "not below the protocol's minute"
    press(model, "enter")
    assert "60 s a move" in plain(screen(model)), "the rules panel while placing"


def test_the_rules_screen_keeps_room_for_the_whole_invite() -> None:
    from test_client_netscreen import INVITE

    model = host_model(invite=INVITE)
    model.rule_choices = tuple(PRESETS)
    model.revisit_rules()
    lines = plain(screen(model)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("statki://"))
    assert "".join(lines[start : start + 2]) == INVITE
    assert "Time for a move: 120 s" in "\n".join(lines)

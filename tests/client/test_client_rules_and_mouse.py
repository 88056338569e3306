"""The host's rules screen and the mouse, without a terminal and through the real application.

The model drives real sessions (``LocalGame`` against the computer, a
``ConnectionLink`` host before its guest); clicks are tested as the one
function that maps a board's (row, column) to an action, and end to end
as xterm SGR mouse sequences through prompt_toolkit's pipe input.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app, click, press
from statki_client.layout import keys_line, plain, screen, terminal_screen
from statki_client.local import LocalGame, simple_chooser
from statki_client.model import Model, Placed, Stage
from statki_client.remote import ConnectionLink
from test_client_model import CLASSIC_FLEET, clock, place, stage_now

from statki_net.cli.main import build_parser
from statki_net.game.board import parse_square
from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Hello, Role

CHOICES = tuple(PRESETS)
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


PLAYER_STARTS = 101
"""A ``coin`` with which the player wins the toss under ``alternate`` (seed 5's fleets)."""


def chooser_game(
    tmp_path: Path, rules: str = "classic", seed: int = 5, coin: int | None = None
) -> Model:
    """Against the computer, opening on the rules screen with ``rules`` preselected.

    ``coin`` seeds the sessions' secrets apart from the fleets (``seed``): it decides
    the toss, so a test can have the player start with the fleets it expects.
    """
    rng = random.Random(seed)
    link = LocalGame(
        ruleset_named(rules),
        KEY,
        name="Ala",
        strategy="random",
        chooser=simple_chooser(random.Random(seed + 1)),
        rng=rng,
        home=tmp_path,
        clock=clock(),
        entropy=random.Random(seed + 100 if coin is None else coin).randbytes,
    )
    return Model(link, rng, rule_choices=CHOICES)


def pick(model: Model, name: str) -> None:
    """Arrows down to ``name`` on the rules screen, then Enter."""
    assert model.stage is Stage.RULES
    while model.rule_choices[model.rules_cursor] != name:
        press(model, "down")
    press(model, "enter")


# ---------------------------------------------------------------- the rules screen


def test_the_rules_screen_lists_the_presets_with_the_given_one_preselected(
    tmp_path: Path,
) -> None:
    model = chooser_game(tmp_path, "alternate")
    assert model.stage is Stage.RULES and model.rule_choices[model.rules_cursor] == "alternate"
    text = plain(screen(model))
    for name in PRESETS:
        assert name in text
    assert "classic      10 ships, no touching, a hit earns another shot" in text
    assert "> alternate    10 ships, no touching, one shot a turn" in text
    assert "5 named ships, ships may touch, one shot a turn" in text
    assert len(text.splitlines()) == 24 and all(len(line) < 80 for line in text.splitlines())
    assert "statki  choosing the rules  Ala (host)" in text
    assert "Enter confirm" in keys_line(model)
    press(model, "up")
    press(model, "up")
    assert model.rule_choices[model.rules_cursor] == "classic"
    press(model, "up")
    assert model.rule_choices[model.rules_cursor] == CHOICES[-1], "the list wraps around"
    press(model, "tab")  # placing keys mean nothing here
    assert model.stage is Stage.RULES and not model.ships


def test_choosing_places_a_fleet_for_the_chosen_rules_and_revisiting_redraws_it(
    tmp_path: Path,
) -> None:
    model = chooser_game(tmp_path)
    pick(model, "five-ships")
    assert model.stage is Stage.PLACING
    assert model.rules == PRESETS["five-ships"] == model.session.rules
    assert [ship.length for ship in model.ships] == [5, 4, 3, 3, 2]
    assert model.problems() == []
    assert "R rules" in keys_line(model)
    press(model, "R")
    assert stage_now(model) is Stage.RULES
    assert model.rule_choices[model.rules_cursor] == "five-ships", "the current rules preselected"
    pick(model, "alternate")
    assert model.rules == PRESETS["alternate"] == model.session.rules
    assert len(model.ships) == 10 and model.problems() == [], "a new fleet for a new fleet"


def test_rules_with_the_same_fleet_keep_the_placement(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    pick(model, "classic")
    place(model, CLASSIC_FLEET)
    before = model.fleet
    press(model, "R")
    pick(model, "salvo")
    assert model.rules == PRESETS["salvo"] and model.fleet == before
    assert "kept" in model.notice


def test_the_rules_are_settled_once_the_battle_starts(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    pick(model, "salvo")
    assert model.ready() and model.stage is Stage.BATTLE
    assert model.session.transcript.rules == PRESETS["salvo"], "the hello carried the choice"
    assert model.shots_due == 10
    press(model, "R")
    assert model.stage is Stage.BATTLE and not model.revisit_rules()


def test_without_a_rules_screen_placing_starts_at_once(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    fresh = Model(model.link, random.Random(1))
    assert fresh.stage is Stage.PLACING
    press(fresh, "R")
    assert fresh.stage is Stage.PLACING, "R does nothing when the rules were given"


def test_rules_given_on_the_command_line_skip_the_screen() -> None:
    for command in (["play"], ["host"]):
        parser = build_parser(command)
        assert parser.parse_args(command).rules is None, "not given: chosen on screen"
        given = parser.parse_args([*command, "--rules", "classic"])
        assert given.rules == "classic", "given, even as the default: no rules screen"


def test_the_host_over_the_network_sends_the_chosen_rules_in_its_hello() -> None:
    session = Session(
        Role.HOST, KEY, name="Ala", entropy=random.Random(1).randbytes, rules=PRESETS["classic"]
    )
    link = ConnectionLink(session)
    model = Model(link, random.Random(2), rule_choices=CHOICES)
    assert model.stage is Stage.RULES and not link.fleet_ready.is_set()
    pick(model, "corners")
    assert link.session is not session and link.session.rules == PRESETS["corners"]
    press(model, "enter")
    assert stage_now(model) is Stage.WAITING and link.fleet_ready.is_set()
    assert link.session.fleet == model.fleet
    assert not model.revisit_rules()
    link.session.start(1_000)
    frames = link.session.transcript.frames
    assert isinstance(frames[0].message, Hello)
    assert link.session.transcript.rules == PRESETS["corners"]


# ---------------------------------------------------------------- the mouse, as a function


def test_clicks_in_placement_pick_a_ship_and_move_it(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    pick(model, "classic")
    place(model, CLASSIC_FLEET)
    click(model, "mine", 0, 8)  # I1, the two-mast I1-J1
    assert model.selected == 3 and "Selected the 2-mast ship at I1-J1" in model.notice
    click(model, "mine", 9, 0)  # A10, empty: the bow goes there
    assert model.ships[3] == Placed(9, 0, True, 2) and model.problems() == []
    click(model, "mine", 9, 9)  # J10: the ship would leave the board
    assert model.ships[3] == Placed(9, 0, True, 2) and "leave the board" in model.notice
    click(model, "mine", 7, 3)  # D8-E8 touches C7 at a corner
    assert model.ships[3] == Placed(7, 3, True, 2)
    assert model.trouble and "Not legal" in model.notice and model.bad_squares()
    click(model, "theirs", 0, 0)  # the opponent's sea means nothing while placing
    click(model, "mine", 10, 0)  # off the board
    assert model.ships[3] == Placed(7, 3, True, 2)


def test_a_click_aims_and_a_second_click_on_the_same_square_fires(tmp_path: Path) -> None:
    model = chooser_game(tmp_path, coin=PLAYER_STARTS)
    pick(model, "alternate")
    model.ready()
    assert model.my_turn
    click(model, "theirs", 3, 1)  # B4
    assert model.cursor == parse_square("B4") and model.shots_fired(True) == 0
    assert "click it again" in model.notice
    click(model, "theirs", 3, 2)  # C4: aiming elsewhere fires nothing
    click(model, "mine", 3, 2)  # my own sea: nothing
    assert model.cursor == parse_square("C4") and model.shots_fired(True) == 0
    click(model, "theirs", 3, 2)
    assert model.shots_fired(True) == 1
    assert model.volleys[0].squares == (parse_square("C4"),)
    assert model.my_turn, "alternate: the computer answered and shot back"
    click(model, "theirs", 3, 2)  # the same square, now shot: aimed, with the rule
    assert model.trouble and "shot already" in model.notice
    press(model, "right")  # the keys take the aim: a click on D4 only aims
    click(model, "theirs", 3, 3)
    assert model.shots_fired(True) == 1


def test_clicks_mark_and_unmark_a_salvo_and_enter_fires(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    pick(model, "salvo")
    model.ready()
    for column in range(10):
        click(model, "theirs", 0, column)
    assert len(model.marks) == 10 and model.shots_fired(True) == 0
    click(model, "theirs", 0, 4)
    assert len(model.marks) == 9, "a click on a marked square unmarks it"
    click(model, "theirs", 1, 4)
    press(model, "enter")
    assert model.shots_fired(True) == 10


# ---------------------------------------------------------------- the mouse, end to end


def sgr_click(x: int, y: int) -> str:
    """An xterm SGR left click (press and release) at screen column ``x``, line ``y`` from 0."""
    return f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m"


def where(text: str, square: str, *, right: bool) -> tuple[int, int]:
    """The screen position of ``square`` on the left or right board of the drawn ``text``."""
    lines = text.splitlines()
    headers = [i for i, line in enumerate(lines) if line.lstrip().startswith("A B C")]
    header = lines[headers[0]]
    column_a = header.rindex(" A B C") + 1 if right else header.index(" A B C") + 1
    letter, row = square[0], int(square[1:])
    return column_a + 2 * (ord(letter) - ord("A")), headers[0] + row


def on_terminal(app: Application[None], model: Model) -> str:
    """The screen as the application draws it, on its output's size (centred on a bigger one)."""
    size = app.output.get_size()
    return plain(terminal_screen(model, size.columns, size.rows))


async def until(test: Callable[[], bool]) -> None:
    """Let the application run until ``test`` holds (bounded: a step takes a few turns)."""
    for _ in range(2000):
        if test():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the application never got there")


async def drawn(app: Application[None], test: Callable[[], bool]) -> None:
    """Once ``test`` holds, wait for a fresh drawing: clicks land where the screen was drawn."""
    await until(test)
    before = app.render_counter
    app.invalidate()
    await until(lambda: app.render_counter > before)


def test_clicks_through_the_application_choose_place_and_fire(tmp_path: Path) -> None:
    model = chooser_game(tmp_path, coin=PLAYER_STARTS)
    notices: list[str] = []

    async def drive() -> None:
        with create_pipe_input() as pipe:
            app = build_app(
                model, input=pipe, output=DummyOutput(), on_key=lambda: notices.append(model.notice)
            )
            running = asyncio.ensure_future(app.run_async())
            pipe.send_text("\x1b[B\x1b[B\r")  # down, down: alternate; Enter
            await until(lambda: model.stage is Stage.PLACING)
            place(model, CLASSIC_FLEET)
            await drawn(app, lambda: True)
            text = on_terminal(app, model)
            pipe.send_text(sgr_click(*where(text, "J1", right=False)))
            await until(lambda: model.selected == 3)
            pipe.send_text(sgr_click(*where(text, "A10", right=False)))
            await until(lambda: model.ships[3] == Placed(9, 0, True, 2))
            pipe.send_text("\r")
            await drawn(app, lambda: model.my_turn)
            e5 = sgr_click(*where(on_terminal(app, model), "E5", right=True))
            pipe.send_text(e5)
            await until(lambda: "Aiming at E5" in model.notice)
            assert model.shots_fired(True) == 0
            pipe.send_text(e5)
            await until(lambda: model.shots_fired(True) == 1)
            pipe.send_text("qyq")  # resign onto the end screen, then leave it
            await running

    asyncio.run(drive())
    assert model.rules == PRESETS["alternate"]
    assert model.volleys[0].squares == (parse_square("E5"),)
    assert any("Selected the 2-mast ship at I1-J1" in notice for notice in notices)
    assert model.end_screen is not None and "resigned" in model.end_screen.verdict


def test_against_the_computer_the_rules_screen_chooses_its_strength(tmp_path: Path) -> None:
    model = chooser_game(tmp_path)
    link = model.link
    assert isinstance(link, LocalGame)
    model.strength_choices, model.strength_cursor = ("easy", "medium", "hard"), 1
    model.on_strength = lambda name: link.use_computer(name, simple_chooser(random.Random(1)))
    text = plain(screen(model))
    assert "< medium >" in text and "left/right computer" in keys_line(model)
    assert len(text.splitlines()) == 24 and all(len(line) < 80 for line in text.splitlines())
    press(model, "right")
    press(model, "right")
    assert model.strength == "easy", "the choice wraps around"
    press(model, "left")
    assert model.strength == "hard"
    pick(model, "classic")
    assert link.strategy == "hard" and model.stage is Stage.PLACING

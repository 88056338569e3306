"""Keys through the real prompt_toolkit application: pipe input, dummy output."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app
from statki_client.layout import Key, plain, screen
from statki_client.model import Model, Overlay, Stage
from test_client_model import CLASSIC_FLEET, game, place

from statki_net.store.language import _, speak

RIGHT, DOWN, UP = "\x1b[C", "\x1b[B", "\x1b[A"


def run_keys(model: Model, keys: str) -> list[str]:
    """Feed ``keys`` to the application; return the screen after each key."""
    screens: list[str] = []
    with create_pipe_input() as pipe:
        app = build_app(
            model,
            input=pipe,
            output=DummyOutput(),
            on_key=lambda: screens.append(plain(screen(model))),
        )
        pipe.send_text(keys)
        pipe.send_text("qyq")  # leave, whatever state the keys left (a battle: resign, then q)
        app.run()
    return screens


def test_keys_place_the_fleet_then_fire_and_quit_resigns(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    screens = run_keys(model, f"\t\t\t{DOWN}r{UP}" + "?" + "?" + "\r" + "j10\r")
    ship = model.fleet.ships[3]
    assert model.stage is Stage.OVER
    assert ship == (8, 18), "Tab picked I1-J1, down moved it, r turned it, up moved it"
    assert any("Keys" in s and "rotate" in s for s in screens), "? opens the help"
    assert model.shots_fired(True) >= 1
    assert model.session.transcript.sides[model.session.role].volleys[0].shots == (99,)
    assert model.end_screen is not None
    assert model.end_screen.verdict == "You resigned: the opponent wins"
    assert "You resigned" in screens[-1] and "Their fleet" in screens[-1]


def test_enter_is_refused_while_the_fleet_is_illegal(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    model.selected = 9  # C7
    screens = run_keys(model, UP + "\r")
    assert any("! " in s and "cannot start" in s for s in screens)
    assert model.stage is Stage.PLACING


def test_quit_asks_first_and_n_stays(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    with create_pipe_input() as pipe:
        app = build_app(model, input=pipe, output=DummyOutput())
        pipe.send_text("qn")
        pipe.send_text("p")
        pipe.send_text("p")
        pipe.send_text("sqyq")  # resign onto the end screen, then leave it
        app.run()
    assert model.hints
    assert model.overlay is None
    assert model.end_screen is not None and "resigned" in model.end_screen.verdict


def test_a_polish_player_answers_the_quit_question_with_t(tmp_path: Path) -> None:
    """The Polish question says (t/n), tak or nie, as the line prompt takes them."""
    model, _ = game(tmp_path)
    model.ready()
    with create_pipe_input() as pipe:
        app = build_app(model, input=pipe, output=DummyOutput())
        pipe.send_text("qtq")  # tak: resigned onto the end screen; q leaves it
        app.run()
    assert model.end_screen is not None and "resigned" in model.end_screen.verdict


def test_the_history_overlay_shows_past_games(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    model.ready()
    model.confirm_quit()
    model.quitting = False
    screens = run_keys(model, "p")
    assert any("Past games" in s and "computer (random)" in s for s in screens)
    assert model.overlay is None or model.overlay is Overlay.HISTORY


def test_escape_clears_a_half_typed_square_and_puts_the_cursor_back(tmp_path: Path) -> None:
    from statki_client.keys import press

    model, _ = game(tmp_path)
    model.ready()
    assert model.stage is Stage.BATTLE
    model.cursor = 55
    for key in "b1":
        press(model, key)
    assert (model.typed, model.cursor) == ("B1", 1)
    press(model, "escape")
    assert (model.typed, model.cursor) == ("", 55)
    assert "typing B1" not in plain(screen(model))
    press(model, "0")  # no longer B10: nothing is being typed
    assert model.cursor == 55


def test_every_key_in_the_help_is_apart_from_its_words(tmp_path: Path) -> None:
    from statki_client.layout import help_lines

    model, _ = game(tmp_path)
    texts = ["".join(fragment[1] for fragment in line) for line in help_lines(model)]
    assert "  r / a at the end  a rematch (the other side starts) / analyse the game" in texts
    assert all(len(text) <= 80 for text in texts)
    model.toggle_overlay(Overlay.HELP)
    assert texts[-1] in plain(screen(model)), "the help fits on an 80x24 screen"


def test_a_bigger_terminal_has_the_screen_in_its_middle_and_the_keys_at_the_bottom(
    tmp_path: Path,
) -> None:
    from statki_client.layout import keys_line, terminal_screen

    model, _ = game(tmp_path)
    lines = plain(terminal_screen(model, 120, 40)).split("\n")
    assert len(lines) == 40
    assert lines[-1] == keys_line(model, 120).center(120).rstrip()
    title = next(line for line in lines if "statki" in line)
    assert lines.index(title) == 8 and title.startswith(" " * 20 + " statki  ")
    assert plain(terminal_screen(model, 80, 24)) == plain(screen(model))


def test_a_terminal_too_small_says_so(tmp_path: Path) -> None:
    from statki_client.layout import terminal_screen

    model, _ = game(tmp_path)
    text = plain(terminal_screen(model, 60, 20))
    assert "The terminal is too small: statki needs 80 columns and 24 rows" in " ".join(
        text.split()
    )
    assert all(len(line) <= 60 for line in text.split("\n"))


def test_enter_on_a_typed_square_off_the_board_fires_nowhere(tmp_path: Path) -> None:
    """A new player typed b11 and Enter: it fired at B1, where the cursor had stopped."""
    from statki_client.keys import press

    model, _ = game(tmp_path)
    model.ready()
    for key in ["b", "1", "1", "enter"]:
        press(model, key)
    assert model.shots_fired(True) == 0
    assert "B11 is not a square of this board" in plain(screen(model))
    press(model, "escape")
    for key in ["b", "1", "0", "enter"]:
        press(model, key)
    assert model.shots_fired(True) >= 1


def test_enter_on_a_typed_column_off_the_board_fires_nowhere(tmp_path: Path) -> None:
    """A column off the board typed alone, then Enter: it fired wherever the cursor was
    (found by a review after the B11 fix, which looked only at a column and a row).  The
    keys bind A-J, so the model is handed K as a smaller board's keys would hand it I."""
    from statki_client.keys import press

    model, _ = game(tmp_path)
    model.ready()
    model.type_key("k")
    press(model, "enter")
    assert model.shots_fired(True) == 0
    assert "K is not a square of this board" in plain(screen(model))
    for key in ["escape", "c", "enter"]:  # a column on the board alone: its row still to come
        press(model, key)
    assert model.shots_fired(True) <= 1


def _stages(tmp_path: Path) -> list[Model]:
    """A screen of each kind: placing, the battle, a salvo, the chat line open."""
    for folder in "abcd":
        (tmp_path / folder).mkdir()
    placing, _ = game(tmp_path / "a")
    battle, _ = game(tmp_path / "b")
    battle.ready()
    salvo, _ = game(tmp_path / "c", "salvo")
    salvo.ready()
    talking, _ = game(tmp_path / "d")
    talking.ready()
    talking.open_chat()
    return [placing, battle, salvo, talking]


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_key_bar_uses_the_width_it_has_and_never_cuts_a_key(
    tmp_path: Path, language: str
) -> None:
    """At 120 columns the Polish battle bar was cut as at 80 ("t czat" and more left out)."""
    from statki_client.layout import bar_keys, keys_line, terminal_screen

    speak(language)
    try:
        for model in _stages(tmp_path):
            keys = bar_keys(model)
            for width in (50, 80, 120):
                bar = keys_line(model, width)
                assert len(bar) <= width and _parts(bar, keys)
            wide = plain(terminal_screen(model, 120, 40)).split("\n")[-1]
            assert len(_parts(wide.strip(), keys)) == len(keys), "no key left out at 120"
            assert len(wide.strip()) >= len(keys_line(model, 80).strip())
            left, right = len(wide) - len(wide.lstrip()), 120 - len(wide)
            assert abs(left - right) <= 1, "centered, as the screen above it is"
    finally:
        speak("en")


@pytest.mark.parametrize("language", ["en", "pl"])
def test_talk_keys_are_shown_where_a_person_hears_and_kept_at_80_columns(
    tmp_path: Path, language: str
) -> None:
    """Against the computer t and m were shown and did nothing useful; over a network the
    Polish battle bar at 80 columns left out "t czat" and "m wycisz", the keys that matter."""
    from statki_client.layout import keys_line
    from test_client_clock import battle

    speak(language)
    try:
        talk, mute = _("t talk"), _("m mute")
        computer, _link = game(tmp_path)
        computer.ready()
        assert talk not in keys_line(computer, 120) and mute not in keys_line(computer, 120)
        computer.toggle_overlay(Overlay.HELP)
        assert "t / m" not in plain(screen(computer))
        for person in battle()[:2]:
            bar = keys_line(person, 80)
            assert talk in bar and mute in bar, bar
            person.toggle_overlay(Overlay.HELP)
            assert "t / m" in plain(screen(person))
    finally:
        speak("en")


def _parts(bar: str, keys: list[Key]) -> list[str]:
    """The bar's entries: the texts of ``keys`` it is made of, found from its start."""
    rest, parts = bar.strip(), []
    texts = sorted({t for key in keys for t in (key.said, key.brief) if t}, key=len, reverse=True)
    while rest:
        found = next((t for t in texts if rest.startswith(t)), None)
        assert found is not None, f"a key cut short: {rest!r} in {bar!r}"
        parts.append(found)
        rest = rest[len(found) :].removeprefix("  ")
    return parts


def test_a_player_who_quit_leaves_once_the_resignation_is_made(tmp_path: Path) -> None:
    """Quitting in the opponent's turn resigns once their shot is answered; the screen then
    stayed, as if the player had not asked to leave, until another key was pressed."""
    import asyncio

    model, _ = game(tmp_path)
    model.ready()
    model.quitting = True  # asked in their turn; the resignation, pending, is now made

    async def run() -> None:
        with create_pipe_input() as pipe:
            app = build_app(model, input=pipe, output=DummyOutput())
            await asyncio.wait_for(app.run_async(), 10)

    asyncio.run(run())
    assert model.done

"""The title bar with a long name (a tester's: "…rywal: komputer (trudny), klucz 80fe7-",
the key cut and "statki" gone): the name is shortened, the key whole; the title flush with
the body on a bigger terminal (it sat one column off)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from statki_client.layout import WIDTH, plain, screen, terminal_screen, title_line
from test_client_model import CLASSIC_FLEET, game, place

from statki_net.store.language import speak

LONG = "Małgorzata Brzęczyszczykiewicz"
KEY = "80fe7-1a2b3-4c5d6-7e8f9"


@pytest.fixture(params=["en", "pl"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    speak(request.param)
    yield request.param
    speak("en")


@pytest.mark.parametrize("opponent", ["Zosia", "Bartłomiej Szczebrzeszyński-Wąsowicz"])
def test_a_long_name_is_shortened_and_the_key_and_statki_stay(
    tmp_path: Path, language: str, opponent: str
) -> None:
    model, _ = game(tmp_path)
    model.session.name = LONG
    model.opponent_name, model.opponent_key = opponent, KEY
    text = "".join(fragment[1] for fragment in title_line(model, WIDTH))
    shown = text.rstrip()
    assert len(shown) <= WIDTH and shown.startswith("statki  classic  "), shown
    assert shown.endswith(KEY), shown
    assert "…" in shown, shown
    assert plain(screen(model)).split("\n")[0].endswith(KEY)


def test_a_short_name_is_whole_with_its_role(tmp_path: Path, language: str) -> None:
    model, _ = game(tmp_path)
    model.opponent_name, model.opponent_key = "Zosia", KEY
    text = "".join(fragment[1] for fragment in title_line(model, WIDTH))
    role = "host" if language == "en" else "gospodarz"
    assert text.startswith(f"statki  classic  Ala ({role})  ") and "…" not in text, text


def test_the_title_is_flush_with_the_body_on_a_bigger_terminal(tmp_path: Path) -> None:
    model, _ = game(tmp_path)
    place(model, CLASSIC_FLEET)
    lines = plain(terminal_screen(model, 120, 40)).split("\n")
    title = next(line for line in lines if "statki" in line)
    body = next(line for line in lines if "Your fleet" in line)
    indent = len(body) - len(body.lstrip())
    assert len(title) - len(title.lstrip()) == indent == (120 - WIDTH) // 2, (title, body)


def test_past_games_keep_their_columns_apart_in_the_readers_words(
    tmp_path: Path, language: str
) -> None:
    """Polish ran them together: "wygrana    zatopienieclassic 66:65"."""
    from statki_client.model import Overlay

    from statki_net.game.words import as_is
    from statki_net.protocol.endings import End, Result
    from statki_net.store.history import GameRow, History

    ends = [
        ("won", End.SUNK, "classic"),
        ("lost", End.RESIGNED, "salvo"),
        ("won", End.FORFEIT, "classic"),
        (None, None, "salvo"),
    ]
    with History.in_home(tmp_path) as history:
        for number, (result, end, rules) in enumerate(ends):
            game_id = f"{number:064x}"
            history.started(GameRow(game_id, 1 + number, "host", KEY, "Zosia", rules, "/l"))
            if result is not None and end is not None:
                history.ended(
                    game_id,
                    ended=2 + number,
                    result=Result(result),
                    end_reason=end,
                    my_shots=66,
                    their_shots=65,
                    verdict=as_is("valid"),
                )
        model, _ = game(tmp_path)
        model.history = (history.games(), history.tally("opponent"))
    model.overlay = Overlay.HISTORY
    rows = [line for line in plain(screen(model)).split("\n") if "Zosia" in line][: len(ends)]
    assert len(rows) == len(ends), rows
    starts = {row.index(" classic") if " classic" in row else row.index(" salvo") for row in rows}
    assert len(starts) == 1, rows  # the rules in one column, after a space in every row
    shots = {row.index("66:65") for row in rows if "66:65" in row}
    assert len(shots) == 1 and all(len(row) <= WIDTH for row in rows), rows


def test_the_help_on_the_rules_screen_tells_that_screens_keys(
    tmp_path: Path, language: str
) -> None:
    """``?`` there listed placing's and battle's keys, not its own (+/-, left/right)."""
    from statki_client.keys import press
    from statki_client.layout import cut_short
    from statki_client.model import Overlay
    from test_client_languages import rules_screen
    from test_client_netscreen import host_model

    from statki_net.game.rules import PRESETS

    computer = rules_screen(tmp_path)
    press(computer, "?")
    assert computer.overlay is Overlay.HELP
    said = plain(screen(computer))
    assert ("left / right" if language == "en" else "lewo / prawo") in said, said
    assert ("up / down" if language == "en" else "góra / dół") in said, said
    assert "Tab / Shift-Tab" not in said, "placing's keys do not work here"
    assert not cut_short(computer)
    host = host_model()
    host.rule_choices = tuple(PRESETS)
    host.revisit_rules()
    host.toggle_overlay(Overlay.HELP)
    said = plain(screen(host))
    assert "+ / -" in said and "left / right" not in said and not cut_short(host), said


def test_the_typed_square_cleared_goes_once_the_next_square_is_typed(
    tmp_path: Path, language: str
) -> None:
    """ "Wpisywane pole wyczyszczone" stayed on screen while the next square was typed."""
    from statki_client.keys import press
    from test_client_languages import battle

    model = battle(tmp_path)
    cleared = "The square you were typing is cleared"
    said = cleared if language == "en" else "Wpisywane pole wyczyszczone"
    for key in ("b", "escape"):
        press(model, key)
    assert said in plain(screen(model))
    press(model, "c")
    assert said not in plain(screen(model)), plain(screen(model))
    for key in ("k", "d"):  # off the board: said, then gone with the next square begun
        press(model, key)
    assert "K " not in model.notice, model.notice

"""What the last new player found and nobody fixed, each shown on the real model."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from statki_client.keys import press
from statki_client.layout import plain, screen
from statki_client.local import LocalGame, simple_chooser
from statki_client.model import Model, Stage
from statki_client.plain import run_plain
from statki_client.run import picked_up_model
from test_client_keys import run_keys
from test_client_model import game
from test_client_resumed import kept_game

from statki_net.cli.netplay import MuteKept
from statki_net.game.answers import yes_or_no
from statki_net.game.fleet import Fleet
from statki_net.game.rules import ruleset_named
from statki_net.protocol.replay import told_so_far
from statki_net.store.unfinished import forget, restore


def test_a_yes_no_question_takes_both_languages_words_and_nothing_else() -> None:
    assert [yes_or_no(w) for w in ("y", "Yes", " t ", "TAK")] == [True] * 4
    assert [yes_or_no(w) for w in ("n", "no", "Nie")] == [False] * 3
    assert [yes_or_no(w) for w in ("", "ye", "maybe", "q")] == [None] * 4


def test_the_line_prompts_quit_question_asks_again_on_an_answer_that_is_neither(
    tmp_path: Path,
) -> None:
    """ "Quit? (y/n)" took any answer other than yes as no: a typo went back to the game,
    and a Polish "tak" did not quit.  Costs one game against the computer, in-process."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    asked: list[str] = []
    lines = iter(["", "q", "maybe", "nie", "q", "ok", "tak"])

    def read(prompt: str) -> str | None:
        asked.append(prompt)
        return next(lines, None)

    out: list[str] = []
    run_plain(model, read, out.append)
    assert out.count("answer y or n") == 2, out[-6:]
    quits = [prompt for prompt in asked if "Resign now?" in prompt]
    assert len(quits) == 4, "asked, asked again: no; asked, asked again: yes"
    assert model.stage is Stage.OVER and len(asked) == 8, "tak resigned: then the end's prompt"
    assert "q quit" in asked[-1], asked[-1]


def test_a_battle_key_that_is_no_command_says_what_the_keys_are(tmp_path: Path) -> None:
    """k-z did nothing at all in battle (no binding took them): a new player thought the
    game stuck.  Through the real application, pipe input: one game in-process, ~0.3 s."""
    model, _history = game(tmp_path)
    model.ready()
    assert model.stage is Stage.BATTLE
    screens = run_keys(model, "%")
    assert "The key % does nothing here; ? lists the keys" in screens[0], screens[0]
    assert model.shots_fired(True) == 0


def test_a_square_typed_wrong_fires_nothing_until_it_is_put_right(tmp_path: Path) -> None:
    """A new player's first hour: k11 Enter fired at the cursor (the k did nothing, the
    digits were dropped), d Space fired at D and the cursor's row, and Backspace erased
    nothing.  The keys as the screen's bindings hand them on (``press``); k11 Enter
    through the real application too."""
    model, _history = game(tmp_path)
    model.ready()
    assert model.stage is Stage.BATTLE and model.my_turn
    screens = run_keys(model, "k11\r")
    assert "K11 is not a square of this board" in screens[3], screens[3]
    assert model.shots_fired(True) == 0
    (tmp_path / "again").mkdir()
    model, _history = game(tmp_path / "again")
    model.ready()
    for key in ("1", "enter"):
        press(model, key)
    assert "1 is not a square of this board" in model.notice
    for key in ("escape", "d", " "):
        press(model, key)
    assert "Space marks the squares of a salvo; Enter fires" in model.notice
    assert model.shots_fired(True) == 0, "nothing typed wrong, nor Space, fired"
    for key in ("escape", "b", "1", "1", "backspace", "enter"):  # B11, Backspace: B1
        press(model, key)
    mine = [volley.squares for volley in model.volleys if volley.mine]
    assert mine == [(1,)], model.notice


def test_a_muted_opponent_stays_muted_when_the_game_is_picked_up(tmp_path: Path) -> None:
    """Mute was the screen's alone: the opponent's talk came back when a muted game was
    picked up.  A game kept in-process, restored twice from its log: ~0.5 s."""
    game_id = kept_game(tmp_path)

    def picked_up() -> Model:
        restored = restore(tmp_path, game_id)
        session = restored.session
        model, _link = picked_up_model(
            session, told_so_far(session, restored.contents), home=tmp_path
        )
        return model

    first = picked_up()
    assert not first.muted and "powodzenia" in plain(screen(first))
    press(first, "m")
    muted = picked_up()
    assert muted.muted and "powodzenia" not in plain(screen(muted)), "Ala's line, muted"
    assert "nawzajem" in plain(screen(muted)), "this side's own line is shown"
    press(muted, "m")
    assert not picked_up().muted, "unmuting is kept too"
    press(muted, "m")
    forget(tmp_path, game_id)
    assert not list((tmp_path / "unfinished").iterdir()), "nothing left once the game ends"


def test_the_hard_computers_fleet_is_placed_while_the_player_places_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hard placement (1-3 s of CPU) ran at Enter, the screen frozen with nothing on it.
    Now it is planned as soon as the computer and the rules are known: once that is done,
    Enter places nothing.  One hard placement in a thread: 1-3 s."""
    rng = random.Random(5)
    link = LocalGame(
        ruleset_named("classic"),
        Ed25519PrivateKey.from_private_bytes(bytes(range(32))),
        name="Ala",
        strategy="hard",
        chooser=simple_chooser(random.Random(6)),
        rng=rng,
    )
    model = Model(link, rng, None)
    assert link._planned is not None, "planned at once"
    link._planned[2].result(timeout=50)

    def placed_at_enter(*_args: object) -> Fleet:
        raise AssertionError("the computer placed its fleet at Enter")

    monkeypatch.setattr("statki_client.local.place_fleet", placed_at_enter)
    assert model.ready()
    assert model.stage is Stage.BATTLE


def test_the_line_prompts_mute_is_kept_for_the_resumed_game_too(tmp_path: Path) -> None:
    """``mute`` at the line prompt is kept as the full screen's ``m`` is, read back when the
    game is picked up there.  A game kept in-process, restored twice: ~0.3 s."""
    game_id = kept_game(tmp_path)
    first = MuteKept.of_session(tmp_path, restore(tmp_path, game_id).session)
    assert not first.muted()
    first.remember(True)
    assert MuteKept.of_session(tmp_path, restore(tmp_path, game_id).session).muted()
    assert picked_up_model_muted(tmp_path, game_id), "and the full screen reads it too"
    first.remember(False)
    assert not MuteKept.of_session(tmp_path, restore(tmp_path, game_id).session).muted()


def picked_up_model_muted(home: Path, game_id: str) -> bool:
    restored = restore(home, game_id)
    session = restored.session
    model, _link = picked_up_model(session, told_so_far(session, restored.contents), home=home)
    return model.muted


def test_the_line_prompt_reads_a_square_typed_with_a_space_and_names_a_word_as_typed(
    tmp_path: Path,
) -> None:
    """A new player's first hour: "a 1" said "1 is not a square of this board" (two words),
    and "hello" came back as "HELLO".  One game against the computer, in-process."""
    model, _history = game(tmp_path)
    model.at_prompt = True
    lines = iter(["", "hello", "b 4"])
    notices: list[str] = []

    def read(prompt: str) -> str | None:
        notices.append(model.notice)
        return next(lines, None)

    run_plain(model, read, lambda line: None)
    assert "hello is not a square of this board" in notices, notices
    mine = [volley.squares for volley in model.volleys if volley.mine]
    assert mine[:1] == [(31,)], mine  # B4: row 4, column B

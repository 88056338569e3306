"""What the last new player found and nobody fixed, each shown on the real model."""

from __future__ import annotations

from pathlib import Path

from statki_client.model import Stage
from statki_client.plain import run_plain
from test_client_model import game

from statki_net.game.answers import yes_or_no


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
    quits = [prompt for prompt in asked if "Quit" in prompt]
    assert len(quits) == 4, "asked, asked again: no; asked, asked again: yes"
    assert model.stage is Stage.OVER and len(asked) == 7, "tak quit: nothing read after"

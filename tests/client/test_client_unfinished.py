"""The past games panel points an unfinished game to ``statki resume``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from statki_client.layout import history_lines
from statki_client.model import Model

from statki_net.store.history import GameRow


def row(result: str | None) -> GameRow:
    return GameRow("ab" * 32, 0, "guest", "key", "Ala", "classic", "/log", result=result)


def text(rows: list[GameRow]) -> str:
    model = cast(Model, SimpleNamespace(history=(rows, [])))
    return "\n".join("".join(piece[1] for piece in line) for line in history_lines(model, 80))


def test_an_unfinished_game_is_pointed_to_statki_resume() -> None:
    assert "statki resume" in text([row(None), row("won")])
    assert "statki resume" not in text([row("won")])

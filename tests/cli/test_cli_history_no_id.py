"""A guest's game that ended before both hellos gave it an id is in its history (issue 14).

The guest's log begins when it has dialled; a host that closes (or says nothing) before its
hello left the guest a log, a verdict ("no game") and a line "log: …", and no row in
``statki history``: the history row was written only once the game had its id.  Every game
with a log has its row now, named by the log.  Real TCP on loopback, in this process.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from conftest import Cli
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.net.invite import format_invite
from statki_net.protocol.session import public_key_bytes
from statki_net.store.history import History
from statki_net.store.recorder import NO_ID


def _host_that_withdraws() -> str:
    """An invite to a host that closes its guest's connection before its hello."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def withdraw() -> None:
        with server:
            server.settimeout(30)
            guest, _ = server.accept()
            guest.close()

    threading.Thread(target=withdraw, daemon=True).start()
    key = public_key_bytes(Ed25519PrivateKey.generate())
    return format_invite((("127.0.0.1", port),), key, b"s" * 16)


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_guest_whose_host_withdrew_before_its_hello_finds_the_game_in_its_history(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    joined = cli("join", _host_that_withdraws(), "--bot", "random")
    assert joined.returncode == 1, joined
    [log] = list((tmp_path / "home" / "logs").iterdir())
    with History.in_home(tmp_path / "home") as history:
        [row] = history.games()
    assert row.game_id == NO_ID + log.stem and row.log_path == str(log)
    assert row.my_role == "guest" and row.result == "none" and row.end_reason == "no-game"
    assert row.verdict is not None and row.verdict.startswith("valid: no game"), row
    assert row.ended is not None and row.started <= row.ended

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LANGUAGE", language)
    listed = cli("history", "--lang", language) if language == "pl" else cli("history")
    assert listed.returncode == 0, listed
    text = listed.stdout
    assert str(log) in text or log.name in text, text
    if language == "en":
        assert "  no game  rules not known, you as guest" in text, text
        assert "against someone not known" in text and "[]" not in text, text
    else:
        assert "gry nie było" in text and "zasady nieznane" in text, text
        assert "Project-Id-Version" not in text, text
    assert "1 game" in text or "1 gra" in text, text
    as_json = json.loads(cli("history", "--json").stdout)
    assert [game["game_id"] for game in as_json] == [row.game_id]


def test_its_stats_name_no_opponent_and_no_rules(cli: Cli) -> None:
    assert cli("join", _host_that_withdraws(), "--bot", "random").returncode == 1
    stats = cli("stats")
    assert stats.returncode == 0, stats
    assert "  someone not known: " in stats.stdout and "  rules not known: " in stats.stdout
    assert "[]" not in stats.stdout, stats.stdout

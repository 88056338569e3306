"""The verdict the line prompt prints when a daemon played its game is wrapped between
words, as it is without a daemon (a tester's finding: "…zatopiona; cla" / "ssic" at the
terminal's edge), and the log's path is whole.  Real daemon, real TCP on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest
from netproc import finish, line_starting, start, stop

COLUMNS = 60


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_daemons_verdict_at_the_line_prompt_is_wrapped_between_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    alice, bob = tmp_path / "a", tmp_path / "b"
    daemon = start(alice, "daemon", "--listen", "127.0.0.1:0")
    line_starting(daemon, "control socket", [])
    try:
        host = start(
            alice, "--lang", language, "host", "--plain", "--advertise", "127.0.0.1", stdin=""
        )
        invite = line_starting(host, "statki://", [])
        guest = start(bob, "join", invite, "--bot", "random")
        status, out, err = finish(host, "A1\nB2\nC3\n")
        finish(guest)
        assert status == 0, err
    finally:
        stop(daemon)
    lines = out.splitlines()
    said = "verdict: " if language == "en" else "werdykt: "
    at = next(i for i, line in enumerate(lines) if line.startswith(said))
    log = next(i for i, line in enumerate(lines) if i > at and line.endswith(".statki"))
    told = lines[at:log]
    assert all(len(line) <= COLUMNS for line in told), told
    assert len(told) > 1 and all(line.split() for line in told), told
    logs = list((alice / "logs").iterdir())
    assert lines[log] == str(logs[0]) or lines[log].endswith(str(logs[0])), lines[log]

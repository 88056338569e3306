"""``statki host`` and ``statki join`` as separate processes over loopback TCP.

Each player has its own STATKI_HOME, as two people on one machine would.  An
invite refused before any connection is the command's own output, so that test
runs ``main`` in this process; so do the guests a real host turns away (what
they print and return is the point, ``joined_here``), and the guests that play
a game are processes of their own.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import Cli, Finished
from netproc import finish, line_starting, run, start, stop

from statki_net.net.invite import format_invite, parse_invite
from statki_net.protocol.logformat import read_log
from statki_net.referee.verify import judge_log
from statki_net.store.history import History


def _host(home: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    process = start(home, "host", "--port", "0", "--advertise", "127.0.0.1", *args)
    invite = line_starting(process, "statki://", [])
    return process, invite


def joined_here(cli: Cli, monkeypatch: pytest.MonkeyPatch, home: Path, *args: str) -> Finished:
    """``statki join ARGS`` in this process, in ``home``: a guest the host process turns away."""
    monkeypatch.setenv("STATKI_HOME", str(home))
    return cli("join", *args)


def _only_log(home: Path) -> Path:
    logs = list((home / "logs").iterdir())
    assert len(logs) == 1, logs
    return logs[0]


def test_two_bots_play_a_whole_game_between_two_processes(tmp_path: Path) -> None:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    host = start(
        alice,
        "host",
        "--port",
        "0",
        "--advertise",
        "127.0.0.1",
        "--bot",
        "random",
        "--rules",
        "salvo",
        "--name",
        "Alice",
    )
    invite = line_starting(host, "statki://", [])
    joined = run(bob, "join", invite, "--bot", "random", "--name", "Bob")
    status, out, err = finish(host)
    assert joined.returncode == 0, joined.stderr
    assert status == 0, err
    assert "opponent: Alice" in joined.stdout and "opponent: Bob" in out
    results = {
        line
        for text in (out, joined.stdout)
        for line in text.splitlines()
        if line.startswith(("you won", "you lost"))
    }
    assert results == {"you won (sunk)", "you lost (sunk)"}
    for home in (alice, bob):
        judgement = judge_log(_only_log(home).read_bytes())
        assert judgement.valid and judgement.rules == "salvo", judgement.headline()
        history = History.in_home(home)
        [row] = history.games()
        history.close()
        assert row.result in ("won", "lost") and row.end_reason == "sunk"
        assert row.verdict is not None and row.verdict.startswith("valid")
        assert row.my_shots > 0 and row.their_shots > 0


def test_a_person_at_the_line_prompt_plays_a_bot(tmp_path: Path) -> None:
    """Bad input gets one line and a new prompt; every square in turn ends the game."""
    host, invite = _host(tmp_path / "host", "--bot", "random", "--rules", "alternate")
    squares = [f"{column}{row}" for row in range(1, 11) for column in "ABCDEFGHIJ"]
    script = "\n".join(["maybe", "y", "Z99", "A1 A2", "", *squares]) + "\n"
    joined = run(tmp_path / "guest", "join", invite, "--plain", stdin=script)
    finish(host)
    assert joined.returncode == 0, joined.stderr
    out = joined.stdout
    assert "answer y or n" in out
    assert "! 'Z99': column Z is off the board (A-J)" in out
    assert "! fire exactly 1 shot, not 2" in out
    assert "you fired A1: " in out
    assert "your fleet" in out and "their sea" in out
    assert ("you won (sunk)" in out) != ("you lost (sunk)" in out)
    assert "verdict: valid" in out


def test_join_refuses_a_host_whose_key_is_not_the_invites(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    host, invite = _host(tmp_path / "host", "--bot", "random")
    real = parse_invite(invite)
    assert real.secret is not None
    forged = format_invite(real.addresses, b"\xab" * 32, real.secret)
    joined = joined_here(cli, monkeypatch, tmp_path / "guest", forged, "--bot", "random")
    assert joined.returncode == 1
    assert joined.stderr.count("\n") == 1
    assert "is not the key in the invite" in joined.stderr and "refusing to play" in joined.stderr
    # Not even the host's hello: refused for its key, it is nobody's word in this game.
    assert read_log(_only_log(tmp_path / "guest").read_bytes()).frames == []
    # The host is not disturbed: its guest, who left before saying a word, was never a game.
    played = run(tmp_path / "guest2", "join", invite, "--bot", "random")
    status, _, err = finish(host)
    assert played.returncode == 0 and status == 0, (played.stderr, err)
    assert judge_log(_only_log(tmp_path / "host").read_bytes()).valid


def test_a_wrong_secret_is_turned_away_and_the_invited_guest_then_plays(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    host, invite = _host(tmp_path / "host", "--bot", "random", "--rules", "five-ships")
    wrong = invite[:-32] + "0" * 32
    turned = joined_here(cli, monkeypatch, tmp_path / "mallory", wrong, "--bot", "random")
    assert turned.returncode == 1 and turned.stderr.count("\n") == 1, turned.stderr
    assert "the host turned this guest away: check" in turned.stderr
    assert host.poll() is None, "a guest with a wrong invite does not end the hosting"
    played = run(tmp_path / "guest", "join", invite, "--bot", "random")
    status, _, err = finish(host)
    assert played.returncode == 0 and status == 0, (played.stderr, err)
    assert judge_log(_only_log(tmp_path / "host").read_bytes()).valid, "one game, one log"


def test_a_person_with_a_wrong_secret_is_told_one_line_in_their_words(tmp_path: Path) -> None:
    """At the line prompt, in Polish: no code, no English detail, no verdict of a game that
    never was, and no rematch of it; the one line says the host turned this guest away."""
    host, invite = _host(tmp_path / "host", "--bot", "random")
    wrong = invite[:-32] + "0" * 32
    # Nothing typed (stdin open, silent): the refusal ends the prompt by itself.
    guest = start(tmp_path / "mallory", "join", wrong, "--plain", "--lang", "pl", stdin="")
    try:
        guest.wait(timeout=60)
    finally:
        status, out, err = finish(guest)
        stop(host)
    said = out + err
    assert status == 1, said
    assert err.startswith("statki: gospodarz nie wpuścił tego gościa"), said
    assert "not-invited" not in said and "this host" not in said, said
    assert "werdykt" not in out and "rewanż" not in out, said
    assert "czekam na zasady gospodarza" in out, "the wait for the host is said"


def test_a_bare_address_gets_one_clear_line_unless_the_host_is_open(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    host, invite = _host(tmp_path / "host", "--bot", "random", "--rules", "five-ships")
    address = invite.removeprefix("statki://").split(",")[0].split("/")[0]
    refused = joined_here(cli, monkeypatch, tmp_path / "guest", address, "--bot", "random")
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.splitlines()[-1] == (
        "statki: this host admits only the guest it invited: ask for the invite line"
    )
    assert host.poll() is None, "the bare address said nothing; the hosting goes on"
    host.kill()
    finish(host)
    assert not (tmp_path / "host" / "logs").exists(), "no game, no log"
    host, invite = _host(tmp_path / "open", "--bot", "random", "--rules", "five-ships", "--open")
    assert parse_invite(invite).secret is None, "an open host's invite carries no secret"
    address = invite.removeprefix("statki://").split(",")[0].split("/")[0]
    joined = run(tmp_path / "guest", "join", address, "--bot", "random")
    finish(host)
    assert joined.returncode == 0, joined.stderr
    assert "cannot be authenticated" in joined.stderr


def test_bad_invites_get_one_line(cli: Cli) -> None:
    for invite, words in [
        ("statki://127.0.0.1:1/abcd", "64 hex digits"),
        ("http://example.org", "must begin statki://"),
        ("127.0.0.1:99999", "port must be"),
    ]:
        done = cli("join", invite)
        assert done.returncode == 2
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_guests_fleet_file_is_the_fleet_it_plays(tmp_path: Path) -> None:
    from statki_net.game.fleet import read_fleet_text
    from statki_net.game.rules import PRESETS
    from statki_net.protocol.logformat import read_log
    from statki_net.protocol.wire import Role
    from statki_net.referee.verify import replay_log

    text = "B2-E2\nG2-G4\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10\n"
    fleet_file = tmp_path / "fleet.txt"
    fleet_file.write_text(text)
    host, invite = _host(tmp_path / "host", "--bot", "random", "--rules", "alternate")
    squares = [f"{column}{row}" for row in range(1, 11) for column in "ABCDEFGHIJ"]
    script = "\n".join(["y", *squares]) + "\n"
    joined = run(
        tmp_path / "guest", "join", invite, "--plain", "--fleet", str(fleet_file), stdin=script
    )
    finish(host)
    assert joined.returncode == 0, joined.stderr
    transcript, _ = replay_log(read_log(_only_log(tmp_path / "guest").read_bytes()))
    revealed = transcript.sides[Role.GUEST].fleet
    expected, _ = read_fleet_text(PRESETS["alternate"], text)
    assert revealed is not None and revealed.ships == expected.ships


def test_a_port_scan_does_not_take_the_hosted_game(tmp_path: Path) -> None:
    """Connections that close at once or talk first are turned away; the guest still plays."""
    import socket

    host, invite = _host(tmp_path / "host", "--bot", "random", "--rules", "alternate")
    address = invite.removeprefix("statki://").split(",")[0].split("/")[0]
    port = int(address.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # a connect scan: open, then close at once
    with socket.create_connection(("127.0.0.1", port), timeout=5) as browser:
        browser.sendall(b"GET / HTTP/1.0\r\n\r\n")  # a client of another protocol
    joined = run(tmp_path / "guest", "join", invite, "--bot", "random")
    status, _, err = finish(host)
    assert joined.returncode == 0, joined.stderr
    assert status == 0, err
    assert judge_log(_only_log(tmp_path / "host").read_bytes()).valid


def test_move_limits_outside_specs_bounds_get_one_line(cli: Cli) -> None:
    """A minute to a day (SPEC.md, section 7): checked before a port is opened."""
    for command in (["host", "--port", "0"], ["join", "127.0.0.1:1"], ["daemon"]):
        for seconds in ("5", "0.1", "86401"):
            done = cli(*command, "--move-timeout", seconds)
            assert done.returncode == 2, (command, seconds, done)
            assert done.stderr == ("statki: --move-time must be between 60 and 86400 seconds\n"), (
                done.stderr
            )


def test_an_advertised_address_that_is_none_is_refused_before_listening(cli: Cli) -> None:
    done = cli("host", "--port", "0", "--plain", "--advertise", "not an address!!")
    assert done.returncode == 2
    assert "neither an IP address nor a host name" in done.stderr
    assert "statki://" not in done.stdout


def test_move_time_is_the_move_limit_and_the_bell_can_be_turned_off(cli: Cli) -> None:
    from statki_net.cli.main import build_parser

    argv = ["host", "--move-time", "300", "--no-bell"]
    args = build_parser(argv).parse_args(argv)
    assert (args.move_timeout, args.bell) == (300.0, False)
    done = cli("join", "127.0.0.1:1", "--move-time", "5")
    assert done.returncode == 2 and "must be between 60 and 86400 seconds" in done.stderr


def test_a_game_hosted_through_a_daemon_gives_the_players_name(tmp_path: Path) -> None:
    """With a daemon running, ``host --name`` is the name the guest sees, as without one."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    daemon = start(alice, "daemon", "--listen", "127.0.0.1:0")
    try:
        port = line_starting(daemon, "listening on 127.0.0.1:", []).rsplit(":", 1)[1]
        line_starting(daemon, "control socket", [])
        host = start(alice, "host", "--bot", "random", "--name", "Alice")
        invite = line_starting(host, "statki://", [])
        key_and_secret = invite.removeprefix("statki://").split("/", 1)[1]
        joined = run(bob, "join", f"statki://127.0.0.1:{port}/{key_and_secret}", "--bot", "random")
        status, _, err = finish(host)
        assert joined.returncode == 0 and status == 0, joined.stderr + err
        assert "opponent: Alice" in joined.stdout, joined.stdout
    finally:
        stop(daemon)

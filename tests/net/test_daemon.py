"""A real ``statki daemon`` process: honest games at once, hostile peers, a peer killed mid-game."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netproc import finish, line_starting, run, start, stop

from statki_net.ai.computer import ComputerPlayer
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient, socket_path
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    MAX_FRAME,
    PROTOCOL_VERSION,
    Error,
    FrameReader,
    Header,
    Hello,
    Role,
    Shot,
    decode_frame,
    game_id,
    message_hash,
    sign,
)
from statki_net.referee.verify import judge_log


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Path, int, subprocess.Popen[str]]]:
    home = tmp_path / "d"
    process = start(
        home,
        "daemon",
        "--listen",
        "127.0.0.1:0",
        "--bot",
        "random",
        "--rules",
        "alternate",
    )
    line = line_starting(process, "listening on 127.0.0.1:", [])
    line_starting(process, "control socket", [])
    yield home, int(line.rsplit(":", 1)[1]), process
    stop(process)


async def _honest_guest(port: int, seed: int) -> Outcome:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(seed)
    session = Session(
        Role.GUEST, Ed25519PrivateKey.generate(), name=f"guest{seed}", entropy=rng.randbytes
    )
    conn = GameConnection(session, reader, writer, log_dir=None)
    attach_computer(conn, ComputerPlayer("random", rng))
    return await conn.run()


def _guest_hello(key: Ed25519PrivateKey, host_body: bytes, *, signer: Ed25519PrivateKey) -> bytes:
    hello = Hello(PROTOCOL_VERSION, "hostile", public_key_bytes(key), "mallory", bytes(32))
    frame = sign(signer, Header(Role.GUEST, 1, message_hash(host_body)), hello)
    return frame.encode()


async def _hostile(port: int, kind: str) -> tuple[str, list[object]]:
    """Connect, take the daemon's hello, misbehave in one way; the frames the daemon sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    frames = FrameReader()
    received = list(frames.feed(await reader.read(MAX_FRAME)))
    host_hello = received[0]
    key = Ed25519PrivateKey.generate()
    if kind == "garbage":
        writer.write(b"\xc1" * 16)
    elif kind == "oversized":
        # Just past what the reader buffers, so the daemon has read it all when it hangs up.
        writer.write(b"\x92\xc6" + (MAX_FRAME * 2).to_bytes(4, "big") + bytes(MAX_FRAME + 1100))
    elif kind == "bad-signature":
        writer.write(_guest_hello(key, host_hello.body, signer=Ed25519PrivateKey.generate()))
    elif kind == "out-of-turn":
        hello = _guest_hello(key, host_hello.body, signer=key)
        guest_hello = decode_frame(msgpack.unpackb(hello))
        game = game_id(host_hello.body, guest_hello.body)
        shot = sign(key, Header(Role.GUEST, 2, guest_hello.digest, game), Shot((0,)))
        writer.write(hello + shot.encode())
    try:
        while data := await asyncio.wait_for(reader.read(MAX_FRAME), 30):
            received += list(frames.feed(data))
    except ConnectionError:
        pass  # the daemon hung up; what it said before that is in ``received``
    writer.close()
    return kind, [f.open().message for f in received]


def test_daemon_serves_honest_games_while_hostile_peers_are_cut_off(
    daemon: tuple[Path, int, subprocess.Popen[str]],
) -> None:
    """Bytes that are nobody's word get silence; a signed frame out of turn gets its error.

    Nothing waits on a limit here: a silent peer is ``test_daemon_games``'s, on a fast clock.
    """
    home, port, process = daemon
    kinds = ["garbage", "oversized", "bad-signature", "out-of-turn"]

    async def scenario() -> tuple[
        list[Outcome], list[tuple[str, list[object]]], list[dict[str, object]], dict[str, object]
    ]:
        honest = [_honest_guest(port, seed) for seed in range(3)]
        hostile = [_hostile(port, kind) for kind in kinds]
        results = await asyncio.gather(*honest, *hostile)
        client = await ControlClient.connect(home)
        assert client is not None
        # Our side of each game may end a moment before the daemon's side has
        # written its log and history: wait (bounded) until it says all are over.
        for _ in range(300):
            games = (await client.request("games"))["games"]
            if {g["status"] for g in games} == {"over"}:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"the daemon's games never all ended: {games}")
        status = await client.request("status")
        await client.request("stop")
        await client.close()
        return results[:3], results[3:], games, status  # type: ignore[return-value]

    outcomes, hostile, games, status = asyncio.run(scenario())
    exit_status, _, err = finish(process)
    assert exit_status == 0, err
    assert not socket_path(home).exists()
    for outcome in outcomes:
        assert outcome.ending.end is End.SUNK and outcome.failure is None
    for kind, messages in hostile:
        if kind == "out-of-turn":  # the peer's word, refused: answered with its code
            last = messages[-1]
            assert isinstance(last, Error) and last.code == Code.OUT_OF_TURN.value, messages
        else:  # nobody's word: never answered (SPEC.md, section 3)
            assert [type(m) for m in messages] == [Hello], (kind, messages)
    # Only a guest's signed hello makes a game (this bot is open to anyone): the other
    # hostile peers never became games, and left no log, only a count.
    assert len(games) == 4 and {g["status"] for g in games} == {"over"}
    ends = sorted(str(g["end"]) for g in games)
    assert ends == sorted(["sunk"] * 3 + ["no-game"]), games
    assert status["turned_away"] == {"garbage": 2, "not-a-guest": 1}, status
    evidence = []
    verdicts = []
    for log in (home / "logs").iterdir():
        data = log.read_bytes()
        evidence += [e.code for e in read_log(data).evidence]
        verdicts.append(judge_log(data))
    assert evidence == [Code.OUT_OF_TURN.value], "the refused shot, kept as the guest's word"
    # The refused shot's game stopped before the accept: valid, and no game.
    assert sorted(j.end_word for j in verdicts if j.valid) == ["no-game"] + ["sunk"] * 3


def test_a_peer_killed_mid_game_is_reported_lost_and_the_daemon_plays_on(
    daemon: tuple[Path, int, subprocess.Popen[str]], tmp_path: Path
) -> None:
    """The daemon waits out the guest's limit alone (a minute: ``test_daemon_games`` waits it
    out on a fast clock); told to stop meanwhile, it forfeits, as a stop does."""
    home, port, process = daemon
    guest = start(tmp_path / "g", "join", f"127.0.0.1:{port}", "--plain", stdin="")
    assert guest.stdin is not None
    guest.stdin.write("y\n")
    guest.stdin.flush()
    seen: list[str] = []
    line_starting(guest, "#", seen)  # the legend under the boards: the game has begun

    async def kill_and_watch() -> tuple[list[str], dict[str, object]]:
        client = await ControlClient.connect(home)
        assert client is not None
        try:
            reply = await client.request("subscribe", game=1)
            assert reply["state"]["status"] == "playing"
            guest.kill()
            events = []
            async with asyncio.timeout(30):
                while (event := await client.events.get()) is not None:
                    events.append(event["event"])
                    if event["event"] == "lost":
                        break
            state = (await client.request("state", game=1))["state"]
            await client.request("stop")
            return events, state
        finally:
            await client.close()

    events, state = asyncio.run(kill_and_watch())
    guest.communicate(timeout=30)
    status, _, err = finish(process)
    assert status == 0, err
    assert events[-1] == "lost" and "closed" not in events
    assert state["status"] == "playing" and state["closed"] is False, state
    [log] = list((home / "logs").iterdir())
    contents = read_log(log.read_bytes())
    assert any("connection" in n.text for n in contents.notes)  # closed or reset, as seen
    last = frames_of(contents)[-1].message
    assert isinstance(last, Error) and last.code == Code.CLOSED.value  # the stop: a forfeit


def test_host_and_join_use_a_running_daemon(tmp_path: Path) -> None:
    alice, bob = tmp_path / "a", tmp_path / "b"
    daemon = start(alice, "daemon", "--listen", "127.0.0.1:0")
    line_starting(daemon, "control socket", [])
    try:
        host = start(
            alice, "host", "--bot", "random", "--rules", "corners", "--advertise", "x.invalid"
        )
        invite = line_starting(host, "statki://", [])
        assert invite.startswith("statki://x.invalid:")  # the advertised address comes first
        joined = run(bob, "join", invite.replace("x.invalid", "127.0.0.1", 1), "--bot", "random")
        status, out, err = finish(host)
        assert joined.returncode == 0, joined.stderr
        assert status == 0, err
        assert "verdict: valid" in out and "corners" in out
        assert len(list((alice / "logs").iterdir())) == 1  # the daemon kept the host's log
    finally:
        stop(daemon)


def test_a_polish_line_front_end_through_a_daemon_is_told_in_polish(tmp_path: Path) -> None:
    """The daemon speaks English; the front end's ``lang`` gets it the boards titled in Polish,
    and each volley's answer and the verdict come as what they are, said in Polish here."""
    alice, bob = tmp_path / "a", tmp_path / "b"
    daemon = start(alice, "daemon", "--listen", "127.0.0.1:0")
    line_starting(daemon, "control socket", [])
    try:
        host = start(alice, "--lang", "pl", "host", "--plain", "--advertise", "127.0.0.1", stdin="")
        invite = line_starting(host, "statki://", [])
        guest = start(bob, "join", invite, "--bot", "random")
        status, out, err = finish(host, "A1\nB2\nC3\nD4\nE5\nF6\nG7\nH8\nI9\nJ10\n")
        finish(guest)
        assert status == 0, err  # it resigned at the end of its input, and its daemon's log is kept
        assert "twoja flota" in out and "morze przeciwnika" in out, out
        fired = [line for line in out.splitlines() if "twój strzał A1:" in line]
        assert fired and not any(word in fired[0] for word in ("miss", "hit", "sunk")), fired
        # The daemon's verdict crosses as a phrase: said in Polish, not the daemon's English.
        [verdict] = [line for line in out.splitlines() if line.startswith("werdykt: ")]
        assert not re.search(r"\b(valid|won|resigned|host|guest|shots)\b", verdict), verdict
    finally:
        stop(daemon)

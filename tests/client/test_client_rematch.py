"""A rematch over the network: two real clients' models over loopback TCP.

Each side runs ``statki_client.remote.run_games`` with the command line's own
``HostReunion`` / ``GuestReunion`` (``statki host`` / ``statki join``), and
the test presses keys on each model as a player would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from statki_client.keys import press
from statki_client.layout import cut_short, keys_line, plain, screen
from statki_client.model import ABSENT, Model, Stage
from statki_client.remote import ConnectionLink, run_games

from statki_net.cli.netplay import Door, GuestReunion, HostReunion, Player
from statki_net.game.errors import UsageError
from statki_net.game.rules import ruleset_named
from statki_net.net import rematch
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.net.invite import Invite
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.protocol.rematch import Rematch
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Admit, Hello, Limits, Role, game_tag
from statki_net.referee.verify import judge_log
from statki_net.store.history import History
from statki_net.store.language import _, speak
from statki_net.store.unfinished import unfinished_games

LIMITS = Limits(move_ms=60_000, reveal_ms=30_000)
WAIT = 20.0
"""Longest wait for a model to reach what a step expects (a bound, not a timing)."""
HOST_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
GUEST_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))


def player(home: Path, name: str) -> Player:
    return Player(home=home, name=name, bot=None, fleet_file=None, limits=LIMITS)


async def until(test: Callable[[], bool], what: str) -> None:
    async def poll() -> None:
        while not test():
            await asyncio.sleep(0.005)

    try:
        await asyncio.wait_for(poll(), WAIT)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


def shooter(host: Model, guest: Model) -> Model | None:
    return next((model for model in (host, guest) if model.my_turn), None)


def answered(model: Model, fired: int) -> Callable[[], bool]:
    return lambda: len(model.volleys) > fired


async def short_game(
    host: Model, guest: Model, *, shots: int, starts: str = "", kept_in: tuple[Path, ...] = ()
) -> Role:
    """Commit both fleets, fire ``shots`` shot(s), and let whoever is to shoot next resign.

    ``starts``: what the guest's screen must say about who starts as it decides; each home
    of ``kept_in`` must keep the game, while it is played, for ``statki resume``.
    """
    await until(lambda: host.stage is Stage.PLACING, "the host places its fleet")
    press(host, "enter")
    await until(lambda: guest.must_decide, "the guest sees the rules")
    if starts:
        assert guest.starter_words() == starts and starts in plain(screen(guest))
    press(guest, "enter")
    # The side that opens the toss last knows who starts before the other has
    # read its coin: wait until both sides have seen the battle start.
    await until(
        lambda: None not in (host.first, guest.first, shooter(host, guest)),
        "both sides see the battle start",
    )
    first: Role | None = host.first
    assert first is not None
    assert guest.first == first, "both sides agree who starts"
    for home in kept_in:
        assert [kept.game for kept in unfinished_games(home)] == [
            host.session.transcript.game.hex()
        ], f"{home.name} keeps the game it plays, for statki resume"
    for shot in range(shots):
        model = shooter(host, guest)
        assert model is not None
        fired = len(model.volleys)
        model.choose(shot)
        await until(answered(model, fired), "the shot is answered")
        await until(lambda: shooter(host, guest) is not None, "the next turn")
    resigner = shooter(host, guest)
    assert resigner is not None
    resigner.link.resign()
    await until(lambda: host.stage is guest.stage is Stage.OVER, "both see the end")
    return first


async def two_sides(
    tmp_path: Path, *, open_to_anyone: bool = False
) -> tuple[HostReunion, GuestReunion, Session, Session, tuple[History, History]]:
    """Ala's reunion listening (its port the rematch's too), Ola's, and each side's session."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    alice.mkdir()
    bob.mkdir()
    histories = History.in_home(alice), History.in_home(bob)
    # The rematch admits the guest by a secret drawn from the game (both list the capability).
    door = Door.of(open_to_anyone=open_to_anyone)
    host_reunion = HostReunion(player(alice, "Ala"), [("127.0.0.1", 0)], histories[0], door=door)
    await host_reunion.reopen()
    port = host_reunion.servers[0].sockets[0].getsockname()[1]
    host_reunion.addresses = [("127.0.0.1", port)]  # a rematch listens on the same port
    invite = Invite((("127.0.0.1", port),), public_key_bytes(HOST_KEY), door.secret)
    guest_reunion = GuestReunion(player(bob, "Ola"), invite, ("127.0.0.1", port), histories[1])
    rules = ruleset_named("classic")
    host_session = Session(
        Role.HOST,
        HOST_KEY,
        name="Ala",
        entropy=random.Random(1).randbytes,
        rules=rules,
        limits=LIMITS,
        admit=door.admit,
    )
    guest_session = Session(
        Role.GUEST,
        GUEST_KEY,
        name="Ola",
        entropy=random.Random(2).randbytes,
        limits=LIMITS,
        invite_secret=door.secret,
    )
    return host_reunion, guest_reunion, host_session, guest_session, histories


async def two_games(
    tmp_path: Path, *, open_to_anyone: bool = False
) -> tuple[Model, Model, Role, Role]:
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    host_reunion, guest_reunion, host_session, guest_session, histories = await two_sides(
        tmp_path, open_to_anyone=open_to_anyone
    )
    rules = host_session.rules
    host_link = ConnectionLink(host_session, reunion=host_reunion)
    guest_link = ConnectionLink(guest_session, reunion=guest_reunion)
    host, guest = Model(host_link, random.Random(3)), Model(guest_link, random.Random(4))
    games = [
        asyncio.ensure_future(run_games(host, host_link, lambda s: host_reunion.connect(s, "Ola"))),
        asyncio.ensure_future(
            run_games(guest, guest_link, lambda s: guest_reunion.connect(s, "Ala"))
        ),
    ]
    try:
        first = await short_game(host, guest, shots=1)
        for model in (host, guest):
            assert model.can_rematch and "r rematch" in keys_line(model)
        # The guest asks first: it dials until the host listens again.
        press(guest, "r")
        assert guest.stage is Stage.CONNECTING and "connecting to Ala again" in guest.notice
        await asyncio.sleep(0.3)
        press(host, "r")
        assert host.stage is Stage.PLACING and host.rules == rules, "the host keeps its rules"
        await until(lambda: "Waiting for Ola to accept the rematch" in host.notice, "host waits")
        starts = "you start" if first is Role.HOST else "Ala starts"
        # A rematch is kept as the first game is: a program that stops picks it up again.
        second = await short_game(host, guest, shots=0, starts=starts, kept_in=(alice, bob))
        return host, guest, first, second
    finally:
        for task in games:
            task.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        host_reunion.close()
        for history in histories:
            history.close()


async def rematch_door(tmp_path: Path) -> tuple[int, str]:
    """The guest asks for the rematch first; then the host: how many its rematch screen
    hears of at the door, and that screen (80x24)."""
    host_reunion, guest_reunion, host_session, guest_session, histories = await two_sides(tmp_path)
    host_link = ConnectionLink(host_session, reunion=host_reunion)
    guest_link = ConnectionLink(guest_session, reunion=guest_reunion)
    host, guest = Model(host_link, random.Random(3)), Model(guest_link, random.Random(4))
    games = [
        asyncio.ensure_future(run_games(host, host_link, lambda s: host_reunion.connect(s, "Ola"))),
        asyncio.ensure_future(
            run_games(guest, guest_link, lambda s: guest_reunion.connect(s, "Ala"))
        ),
    ]
    try:
        await short_game(host, guest, shots=0)
        press(guest, "r")
        await asyncio.sleep(0.1)
        press(host, "r")
        await until(lambda: host_reunion.admission.at_the_door > 0, "the guest is at the door")
        await until(lambda: host.at_the_door > 0, "the host's screen hears of it")
        assert not cut_short(host)
        return host.at_the_door, plain(screen(host))
    finally:
        for task in games:
            task.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        host_reunion.close()
        for history in histories:
            history.close()


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_hosts_rematch_screen_says_the_guest_is_at_the_door(
    tmp_path: Path, language: str
) -> None:
    """Without a daemon only the first game's admission told the screen of a guest waiting
    for the rules: one who asked for the rematch first went unheard on the host's screen.
    Then the screen heard of it but said nothing: the door's words were a first game's,
    hidden once the opponent is known, as it is on a rematch."""
    speak(language)
    try:
        waiting, text = asyncio.run(rematch_door(tmp_path))
        said = " ".join(text.split())
        door = _(
            "Someone has connected for the rematch (only {Who} is admitted):"
            " place your fleet, Enter starts"
        )
        assert waiting == 1
        assert door.format(Who="Ola") in said, text
    finally:
        speak("en")


@pytest.mark.parametrize("open_to_anyone", [False, True])
def test_a_rematch_over_tcp_gives_the_first_shot_to_the_other_side(
    tmp_path: Path, open_to_anyone: bool
) -> None:
    host, guest, first, second = asyncio.run(two_games(tmp_path, open_to_anyone=open_to_anyone))
    assert second is first.other
    assert host.is_rematch and guest.is_rematch
    rematch = host.session.transcript.frames[0].message
    assert isinstance(rematch, Hello) and rematch.admit is Admit.INVITE, "by its own secret"
    proved = guest.session.invite_secret
    assert proved is not None and rematch.tag == game_tag(proved), "a tag both sides know"
    for home in ("alice", "bob"):
        logs = sorted((tmp_path / home / "logs").iterdir())
        assert len(logs) == 2
        assert all(judge_log(log.read_bytes()).valid for log in logs)
        assert len(History.in_home(tmp_path / home).games()) == 2


def test_a_host_waits_for_its_guest_at_most_the_move_limit(tmp_path: Path) -> None:
    async def wait() -> str:
        # SPEC's shortest move limit, a minute, on a clock 1000 times fast: 60 ms.
        ala = dataclasses.replace(player(tmp_path, "Ala"), clock=ScaledClock(1000))
        reunion = HostReunion(
            ala, [("127.0.0.1", 0)], History.in_home(tmp_path), door=Door.of(open_to_anyone=True)
        )
        started = time.monotonic()
        await reunion.reopen()
        session = Session(
            Role.HOST,
            HOST_KEY,
            name="Ala",
            entropy=random.Random(1).randbytes,
            rules=ruleset_named("classic"),
            limits=Limits(move_ms=60_000, reveal_ms=30_000),
        )
        try:
            await reunion.connect(session, "Ola")
        except UsageError as error:
            assert not reunion.servers, "no longer listening"
            assert 0.06 <= time.monotonic() - started < 10
            return str(error)
        raise AssertionError("a guest came from nowhere")

    assert asyncio.run(wait()) == "Ola did not come back for the rematch within 60 s"


def test_an_in_process_rematch_admits_only_the_last_games_opponent(tmp_path: Path) -> None:
    """``statki host --open`` meets Ola again: Ewa, who comes first, is refused (a hosted
    rematch is with the last game's opponent only, as through the daemon), and the host,
    whom Ola never rejoins, is told so when the move limit (0.6 s here) is over."""

    async def scenario() -> tuple[Failed | None, str]:
        ala = dataclasses.replace(player(tmp_path, "Ala"), clock=ScaledClock(100))
        door = Door.of(open_to_anyone=True)
        reunion = HostReunion(ala, [("127.0.0.1", 0)], History.in_home(tmp_path), door=door)
        await reunion.reopen()
        port = reunion.servers[0].sockets[0].getsockname()[1]
        session = Session(
            Role.HOST,
            HOST_KEY,
            name="Ala",
            entropy=random.Random(1).randbytes,
            rules=ruleset_named("classic"),
            limits=Limits(move_ms=60_000, reveal_ms=30_000),
        )
        waiting = asyncio.ensure_future(
            reunion.connect(
                session, "Ola", Rematch("Ola", public_key_bytes(GUEST_KEY), None, LIMITS)
            )
        )
        ewa = Session(
            Role.GUEST, Ed25519PrivateKey.generate(), name="Ewa", entropy=random.Random(3).randbytes
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        outcome = await GameConnection(ewa, reader, writer, log_dir=None).run()
        try:
            await waiting
        except UsageError as error:
            return outcome.failure, str(error)
        raise AssertionError("the rematch was played with someone else")

    refused, told = asyncio.run(scenario())
    assert refused is not None and refused.code is Code.NOT_INVITED, refused
    assert told == "Ola did not come back for the rematch within 60 s"


def test_a_guest_whose_host_is_gone_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rematch, "REDIAL_SECONDS", 0.3)

    async def dial() -> str:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()  # nobody listens there any more
        invite = Invite((("127.0.0.1", port),), public_key_bytes(HOST_KEY))
        reunion = GuestReunion(
            player(tmp_path, "Ola"), invite, ("127.0.0.1", port), History.in_home(tmp_path)
        )
        session = Session(Role.GUEST, GUEST_KEY, name="Ola", entropy=random.Random(2).randbytes)
        try:
            await reunion.connect(session, "Ala")
        except UsageError as error:
            return str(error)
        raise AssertionError("connected to nobody")

    words = asyncio.run(dial())
    assert words.startswith("Ala is not there for the rematch: cannot connect"), words


def test_a_rematch_nobody_came_to_ends_with_the_reason_and_no_further_rematch(
    tmp_path: Path,
) -> None:
    session = Session(
        Role.HOST,
        HOST_KEY,
        name="Ala",
        entropy=random.Random(1).randbytes,
        rules=ruleset_named("classic"),
    )
    link = ConnectionLink(
        session,
        reunion=HostReunion(
            player(tmp_path, "Ala"), [], History.in_home(tmp_path), door=Door.of(True)
        ),
    )
    model = Model(link, random.Random(2), is_rematch=True, opponent_name="Ola")
    press(model, "enter")
    assert "waiting for Ola to accept the rematch" in model.notice
    link.connection_ended(
        Failed(ABSENT, "Ola did not come back for the rematch within 120 s", False)
    )
    assert model.stage is Stage.OVER and model.end_screen is not None
    assert model.end_screen.verdict == "No rematch"
    text = plain(screen(model))
    assert "Ola did not come back for the rematch within 120 s" in text
    assert not model.can_rematch and "rematch" not in keys_line(model)
    press(model, "r")
    assert model.stage is Stage.OVER and model.trouble

"""A rematch between two daemons, over loopback TCP and their control sockets.

Every game a daemon hosts says hello with the daemon's key: a guest dialling
for its rematch before the host's player asked for it must not land in
another game the host daemon has waiting (SPEC.md, "The control socket",
[rematch]).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.game.errors import UsageError
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.net import dialer, rematch
from statki_net.net.clock import ScaledClock
from statki_net.net.control import ControlClient, ControlError, Message
from statki_net.net.daemon import Daemon
from statki_net.net.invite import format_invite, parse_invite
from statki_net.protocol.rematch import Rematch
from statki_net.protocol.wire import Limits, rematch_secret

WAIT = 20.0
FLEET = random_fleet(ruleset_named("classic"), random.Random(1)).to_lists()


@contextlib.asynccontextmanager
async def daemon_here(home: Path, speed: float = 100) -> AsyncIterator[ControlClient]:
    """A daemon in this process on loopback, its clock ``speed`` times fast (a minute's
    move limit is 0.6 s), and a control connection to it."""
    home.mkdir(mode=0o700)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.generate(),
        name=home.name,
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("classic"),
        limits=Limits(60_000, 60_000),
        clock=ScaledClock(speed),
    )
    await daemon.start()
    control = await ControlClient.connect(home)
    assert control is not None
    try:
        yield control
    finally:
        await control.close()
        await daemon.shutdown()


async def event_of(control: ControlClient, number: int, event: str) -> Message:
    """The next event ``event`` of game ``number`` on ``control``."""
    async with asyncio.timeout(WAIT):
        while True:
            message = await control.events.get()
            assert message is not None, "the daemon went away"
            if message.get("game") == number and message["event"] == event:
                return message


async def a_resigned_game(
    ala: ControlClient, bob: ControlClient, *, open_to_anyone: bool = False
) -> tuple[int, int]:
    """Ala hosts, Bob joins through his daemon, accepts and resigns: a game over (one
    declined has no rematch), whose numbers on Ala's daemon and on Bob's are returned."""
    hosted = await ala.request("host", subscribe=True, name="Ala", open=open_to_anyone)
    joined = await bob.request("connect", invite=hosted["invite"], subscribe=True, name="Bob")
    ours, theirs = int(hosted["game"]), int(joined["game"])
    await event_of(bob, theirs, "rules")
    await bob.request("accept", game=theirs, fleet=FLEET)
    await event_of(bob, theirs, "started")
    await bob.request("resign", game=theirs)
    await event_of(bob, theirs, "closed")
    await event_of(ala, ours, "closed")
    return ours, theirs


async def status_of(control: ControlClient, number: int) -> str:
    games = (await control.request("games"))["games"]
    return str(next(g["status"] for g in games if g["id"] == number))


async def rematch_past(
    ala: ControlClient, bob: ControlClient, *, open_other: bool, open_first: bool = False
) -> str:
    """Bob asks for the rematch while Ala's daemon hosts another game for someone else;
    Ala asks for hers a moment later.  Returns the other game's status once Bob plays
    Ala's rematch."""
    (status,) = await rematch_past_others(ala, bob, others=[open_other], open_first=open_first)
    return status


async def rematch_past_others(
    ala: ControlClient, bob: ControlClient, *, others: list[bool], open_first: bool = False
) -> list[str]:
    """``rematch_past`` with a game for someone else for each of ``others`` (open to
    anyone or not): the other games' statuses."""
    ours, theirs = await a_resigned_game(ala, bob, open_to_anyone=open_first)
    hosted = [await ala.request("host", open=each, subscribe=True, name="Ala") for each in others]
    bobs = await bob.request("rematch", game=theirs, subscribe=True)
    await asyncio.sleep(0.5)  # Bob's daemon dials meanwhile, more than once
    alas = await ala.request("rematch", game=ours, subscribe=True)
    await ala.request("propose", game=int(alas["game"]), rules="classic", fleet=FLEET)
    await event_of(bob, int(bobs["game"]), "rules")
    async with asyncio.timeout(WAIT):  # Ala's rematch admits Bob's hello
        while await status_of(ala, int(alas["game"])) != "playing":
            await asyncio.sleep(0.01)
    assert await status_of(bob, int(bobs["game"])) == "playing"
    return [await status_of(ala, int(other["game"])) for other in hosted]


def test_a_rematch_redial_does_not_land_in_another_open_game(tmp_path: Path) -> None:
    async def scenario() -> str:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            return await rematch_past(ala, bob, open_other=True)

    assert asyncio.run(scenario()) == "waiting"


def test_a_rematch_redial_is_not_refused_by_another_invite_game(tmp_path: Path) -> None:
    async def scenario() -> str:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            return await rematch_past(ala, bob, open_other=False)

    assert asyncio.run(scenario()) == "waiting"


def test_an_open_games_rematch_does_not_land_in_another_open_game(tmp_path: Path) -> None:
    """A game open to anyone has no tag: its rematch's hello had none either, so Bob's
    redial took the hello of Ala's other open game for his rematch's and played it."""

    async def scenario() -> str:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            return await rematch_past(ala, bob, open_other=True, open_first=True)

    assert asyncio.run(scenario()) == "waiting"


def test_a_rematch_redial_dials_again_past_two_other_games(tmp_path: Path) -> None:
    """With two other games ready, Ala's daemon says ``join``: Bob's redial joined by his
    tag before Ala had asked for the rematch, was refused (``not-invited``) and gave up."""

    async def scenario() -> list[str]:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            return await rematch_past_others(ala, bob, others=[False, True])

    assert asyncio.run(scenario()) == ["waiting", "waiting"]


def test_an_open_games_rematch_dials_again_past_two_other_games(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            return await rematch_past_others(ala, bob, others=[True, False], open_first=True)

    assert asyncio.run(scenario()) == ["waiting", "waiting"]


@pytest.mark.parametrize("others", [[False, True], []])
def test_a_rematch_never_offered_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, others: list[bool]
) -> None:
    """Ala's daemon is there, with two other games or none (it closes a connection without
    a word then); Ala never asks for the rematch: the redial dials again until its
    deadline (a move, past ``seconds``), then says so in a player's words."""
    dials: list[object] = []
    real_dial = dialer.dial

    async def counted(*args: Any, **kwargs: Any) -> Any:
        dials.append(args)
        return await real_dial(*args, **kwargs)

    monkeypatch.setattr(rematch, "dial", counted)

    async def scenario() -> tuple[str, list[str]]:
        async with daemon_here(tmp_path / "ala") as ala:
            hosted = [await ala.request("host", open=each, name="Ala") for each in others]
            host, port = str((await ala.request("status"))["listening"][0]).rsplit(":", 1)
            try:
                await rematch.redial(
                    [(host, int(port))],
                    "Ala",
                    secret=secrets.token_bytes(16),
                    key=Ed25519PrivateKey.generate(),
                    clock=ScaledClock(1),
                    hello_within=1.5,
                    seconds=0.1,
                )
            except UsageError as error:
                said = str(error)
            else:
                raise AssertionError("a rematch nobody offered was met")
            return said, [await status_of(ala, int(game["game"])) for game in hosted]

    said, statuses = asyncio.run(scenario())
    assert said == "Ala did not offer the rematch within 1.5 s"
    assert len(dials) > 2, "dialled again while the deadline lasted"
    assert statuses == ["waiting"] * len(others)


def test_a_hosted_rematch_admits_only_the_last_games_opponent(tmp_path: Path) -> None:
    """Ewa holds the invite too (it was shared, or overheard): she is refused, Bob is not.
    Her proof is of the invite's secret, not the rematch's (drawn from the game Bob
    played), and her key is not Bob's: either refuses her."""

    async def scenario() -> tuple[Message, str]:
        async with (
            daemon_here(tmp_path / "ala", speed=10) as ala,  # Bob has 6 s to come back
            daemon_here(tmp_path / "bob") as bob,
            daemon_here(tmp_path / "ewa") as ewa,
        ):
            ours, theirs = await a_resigned_game(ala, bob)
            alas = await ala.request("rematch", game=ours, subscribe=True)
            await ala.request("propose", game=int(alas["game"]), rules="classic", fleet=FLEET)
            ewas = await ewa.request("connect", invite=alas["invite"], subscribe=True)
            refused = await event_of(ewa, int(ewas["game"]), "failed")
            bobs = await bob.request("rematch", game=theirs, subscribe=True)
            await event_of(bob, int(bobs["game"]), "rules")
            return refused, await status_of(ala, int(alas["game"]))

    refused, status = asyncio.run(scenario())
    assert refused["code"] == "not-invited", refused
    assert refused["detail"] == REFUSED, refused
    assert status == "playing"


REFUSED = "this game is a rematch: it admits only the last game's opponent"
"""The one detail of every guest a rematch turns away, whatever it got wrong: a stranger
learns nothing of whether the secret it tried was the right one."""


@pytest.mark.parametrize("keyed", [True, False], ids=["by-the-invite", "by-the-id-alone"])
def test_a_rematch_refuses_a_stranger_with_its_secret_or_the_id_alone_in_one_way(
    tmp_path: Path, keyed: bool
) -> None:
    """Ewa holds the invite, so she can draw the rematch's secret (SPEC.md section 17):
    she proves it under her own key and is refused, as any other guest is; an observer of
    the hellos alone (the id, without the invite) cannot draw it at all.  Bob is not."""

    async def scenario() -> tuple[Message, str]:
        async with (
            daemon_here(tmp_path / "ala", speed=10) as ala,
            daemon_here(tmp_path / "bob") as bob,
            daemon_here(tmp_path / "ewa") as ewa,
        ):
            ours, theirs = await a_resigned_game(ala, bob)
            games = (await ala.request("games"))["games"]
            played = bytes.fromhex(next(str(g["game"]) for g in games if g["id"] == ours))
            alas = await ala.request("rematch", game=ours, subscribe=True)
            await ala.request("propose", game=int(alas["game"]), rules="classic", fleet=FLEET)
            invite = parse_invite(str(alas["invite"]))
            assert invite.key is not None
            drawn = rematch_secret(played, invite.secret if keyed else None)
            tried = format_invite(invite.addresses, invite.key, drawn)
            ewas = await ewa.request("connect", invite=tried, subscribe=True)
            refused = await event_of(ewa, int(ewas["game"]), "failed")
            bobs = await bob.request("rematch", game=theirs, subscribe=True)
            await event_of(bob, int(bobs["game"]), "rules")
            return refused, await status_of(ala, int(alas["game"]))

    refused, status = asyncio.run(scenario())
    assert refused["code"] == "not-invited", refused
    assert refused["detail"] == REFUSED, refused
    assert status == "playing"


def test_a_rematch_of_an_invite_game_is_keyed_by_the_invite_not_the_id_alone() -> None:
    """The secret of an invite game's rematch is one an observer of its hellos cannot
    compute: the id alone gives another (SPEC.md section 14)."""
    game, invite = bytes(range(32)), bytes(range(16))
    terms = Rematch("Bob", bytes(32), None, Limits(), drawn_from=game)
    assert terms.admitting(invite) == rematch_secret(game, invite)
    assert terms.admitting(invite) != rematch_secret(game, None)
    assert terms.admitting(None) == rematch_secret(game, None)
    assert Rematch("Bob", bytes(32), None, Limits()).admitting(invite) == invite


def test_a_rematch_never_proposed_is_withdrawn_after_a_move(tmp_path: Path) -> None:
    """Ala's front end goes away between asking for the rematch and proposing it."""

    async def scenario() -> Message:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            ours, _ = await a_resigned_game(ala, bob)
            alas = await ala.request("rematch", game=ours, subscribe=True)
            return await event_of(ala, int(alas["game"]), "closed")

    closed = asyncio.run(scenario())
    assert closed["end"] == "no-game", closed
    assert closed["failure"] == "the rematch was not proposed within 60 s", closed


def test_both_sides_are_told_who_starts_the_rematch_and_a_game_played_has_none_yet(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[str, str, str, str | None, str | None]:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            hosted = await ala.request("host", subscribe=True, name="Ala")
            joined = await bob.request("connect", invite=hosted["invite"], subscribe=True)
            ours, theirs = int(hosted["game"]), int(joined["game"])
            await event_of(bob, theirs, "rules")
            await bob.request("accept", game=theirs, fleet=FLEET)
            started = await event_of(bob, theirs, "started")
            try:
                await bob.request("rematch", game=theirs)
            except ControlError as error:
                still = str(error)
            await bob.request("resign", game=theirs)
            await event_of(ala, ours, "closed")
            await event_of(bob, theirs, "closed")
            alas = await ala.request("rematch", game=ours)
            bobs = await bob.request("rematch", game=theirs)
            return still, str(started["first"]), str(theirs), alas["first"], bobs["first"]

    still, first, theirs, host_told, guest_told = asyncio.run(scenario())
    assert still == f"game {theirs} is not over yet"
    assert host_told == guest_told == {"host": "guest", "guest": "host"}[first]


def test_a_rematch_hosted_for_a_bot_places_at_once_and_takes_its_guest_back(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[str | None, str]:
        async with daemon_here(tmp_path / "ala") as ala, daemon_here(tmp_path / "bob") as bob:
            hosted = await ala.request("host", bot="random", subscribe=True)
            joined = await bob.request("connect", invite=hosted["invite"], subscribe=True)
            ours, theirs = int(hosted["game"]), int(joined["game"])
            await event_of(bob, theirs, "rules")
            await bob.request("accept", game=theirs, fleet=FLEET)
            await event_of(bob, theirs, "started")
            await bob.request("resign", game=theirs)
            await event_of(ala, ours, "closed")
            alas = await ala.request("rematch", game=ours)  # no propose: the bot placed
            bobs = await bob.request("rematch", game=theirs, subscribe=True)
            await event_of(bob, int(bobs["game"]), "rules")
            await bob.request("accept", game=int(bobs["game"]), fleet=FLEET)
            await event_of(bob, int(bobs["game"]), "started")
            return alas["invite"], await status_of(ala, int(alas["game"]))

    invite, status = asyncio.run(scenario())
    assert invite is not None and status == "playing"

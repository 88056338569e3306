"""The last words of a game that never began, as a player reads them (issue 14).

A guest's rematch whose host never began it, and a daemon's game withdrawn or
stopped, were said in the protocol's words ("the host closed the connection
before its hello") or in English whatever the player's language.  Each is a
phrase now, said in the player's words; the precise reason stays, in English,
where a machine reads it (the game state's and the closed event's ``failure``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_daemon_rematch import daemon_here, event_of

from statki_net.game.words import phrase_from_map
from statki_net.net import rematch
from statki_net.net.clock import ScaledClock
from statki_net.net.rematch import RematchMissed, redial
from statki_net.store.language import catalog

POLISH = catalog("pl")
WAIT = 20.0


async def _missed_at(answer: bytes | None) -> RematchMissed:
    """The error of a guest redialling a host on loopback that closes each connection at
    once after ``answer`` (None: keeps it open and silent)."""

    async def host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if answer is None:
            await reader.read()  # silent until the guest gives up
        else:
            writer.write(answer)
        writer.close()

    server = await asyncio.start_server(host, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with asyncio.timeout(WAIT):
            await redial(
                [("127.0.0.1", port)],
                "Ala",
                secret=None,
                key=Ed25519PrivateKey.generate(),
                clock=ScaledClock(1),
                hello_within=0.2,
                seconds=0.3,
            )
    except RematchMissed as error:
        return error
    finally:
        server.close()
    raise AssertionError("a host that never said hello began a rematch")


def test_a_host_that_closes_before_its_hello_did_not_offer_the_rematch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host that closes before a word is there (a daemon closes a connection no game waits
    for so), dialled again until the deadline, then said in the player's words."""
    monkeypatch.setattr(rematch, "REDIAL_PAUSE", 0.05)
    missed = asyncio.run(_missed_at(b""))
    assert str(missed) == "Ala did not offer the rematch within 0.3 s"
    assert missed.in_words(POLISH) == "Ala: brak propozycji rewanżu w ciągu 0,3 s"
    assert "hello" not in missed.in_words(POLISH)
    # What a machine records keeps the precise reason.
    expected = "Ala is not there for the rematch: the host has not hosted the rematch yet"
    assert str(missed.detail) == expected


def test_a_host_silent_all_along_never_placed_its_fleet() -> None:
    # Waited to the redial's one deadline, the longer of its two spans (0.3 s), and said so.
    missed = asyncio.run(_missed_at(None))
    assert str(missed) == "Ala did not place a fleet for the rematch within 0.3 s"
    assert "floty" in missed.in_words(POLISH) and "0,3 s" in missed.in_words(POLISH)
    assert (
        str(missed.detail) == "Ala is not there for the rematch: the host said nothing within 0.3 s"
    )


def test_a_game_withdrawn_before_a_guest_came_is_said_in_the_players_words(
    tmp_path: Path,
) -> None:
    """The daemon's closed event carried "withdrawn before a guest came" in English only:
    a Polish front end showed it as it came."""

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        async with daemon_here(tmp_path / "ala") as ala:
            hosted = await ala.request("host", subscribe=True, name="Ala")
            number = int(hosted["game"])
            await ala.request("cancel", game=number)
            closed = await event_of(ala, number, "closed")
            state = (await ala.request("state", game=number))["state"]
            return closed, state

    closed, state = asyncio.run(scenario())
    expected = "withdrawn: the player left before the game began"
    assert closed["failure"] == state["failure"] == expected, closed
    said = phrase_from_map(closed["failure_said"])
    assert said.in_words(POLISH) == "wycofana: gracz opuścił grę, zanim się zaczęła"

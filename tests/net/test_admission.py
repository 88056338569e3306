"""Admission over real loopback TCP: only the invited guest takes the game; the rest are counted.

The same component admits guests for ``statki host`` and for the daemon; the
hostile-traffic tests against both processes are in ``test_hostile_traffic``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.rules import ruleset_named
from statki_net.net import notices as notices_module
from statki_net.net.admission import (
    Admission,
    Admitted,
    Hosting,
    OnDemand,
    Refusal,
    Resuming,
    TurnedAway,
)
from statki_net.net.bot import attach_computer
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient
from statki_net.net.daemon import Daemon
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.events import PeerHello, RulesProposed
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import (
    INVITE_SECRET_SIZE,
    PROTOCOL_VERSION,
    Admit,
    Error,
    FrameReader,
    Header,
    Hello,
    Limits,
    Role,
    decode_frame,
    game_tag,
    guest_proof,
    sign,
)

Decision = Admitted[str] | Resuming | TurnedAway
Client = Callable[[int], Awaitable[object]]
HOST_KEY = Ed25519PrivateKey.generate()
SECRET = secrets.token_bytes(INVITE_SECRET_SIZE)
RULES = ruleset_named("classic")
CROWD = ("127.0.0.9", 0)
"""Another source address on loopback (Linux answers for all of 127/8)."""


def hosting(secret: bytes | None = SECRET) -> Hosting:
    admit = Admit.INVITE if secret is not None else Admit.OPEN
    return Hosting(
        lambda: Session(
            Role.HOST, HOST_KEY, name="Ala", entropy=secrets.token_bytes, rules=RULES, admit=admit
        ),
        secret,
    )


async def port_scan(port: int) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()  # a connect scan: open, then close at once


async def browser(port: int) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET / HTTP/1.0\r\n\r\n")  # a client of another protocol speaks first


async def silent(port: int) -> bytes:
    """Waits through the hello and says nothing: what the host said, until it closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await reader.read()
    finally:
        writer.close()


async def garbage(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await reader.read(1)  # the hello has come
    writer.write(b"\xc1 not msgpack")
    await reader.read()


async def guest_hello(port: int, secret: bytes | None) -> tuple[Hello, list[object]]:
    """A guest's hello proving ``secret`` (None: a hello with no proof at all, as a guest of
    an older version sends); the host's hello, and what the host said after it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    frames = FrameReader()
    try:
        data = await reader.read(65536)
        [value] = frames.values(data)
        host_hello = decode_frame(value)
        key = Ed25519PrivateKey.generate()
        proof = guest_proof(secret, host_hello.body, public_key_bytes(key)) if secret else None
        hello = Hello(PROTOCOL_VERSION, "t", public_key_bytes(key), "Ola", bytes(32), proof=proof)
        writer.write(sign(key, Header(Role.GUEST, 1, host_hello.digest), hello).encode())
        said: list[object] = []
        while data := await reader.read(65536):
            said += [decode_frame(v).message for v in frames.values(data)]
    finally:
        writer.close()
    assert isinstance(host_hello.message, Hello)
    return host_hello.message, said


def heard(got: object) -> tuple[Hello, list[object]]:
    """What ``guest_hello`` returned."""
    assert isinstance(got, tuple)
    hello, said = got
    assert isinstance(hello, Hello) and isinstance(said, list)
    return hello, said


async def decide(admission: Admission[str], client: Client) -> tuple[Decision, object]:
    """How ``admission`` decides on one connection made by ``client``, and what it got."""
    decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decision = await admission.admit(reader, writer)
        decided.set_result(decision)
        if not isinstance(decision, TurnedAway):
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    connecting = asyncio.ensure_future(client(server.sockets[0].getsockname()[1]))
    try:
        async with asyncio.timeout(10):
            decision = await decided
            got = await connecting
        return decision, got
    finally:
        connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        server.close()
        await server.wait_closed()


def test_only_the_guest_that_proves_the_secret_takes_the_game() -> None:
    async def scenario() -> list[tuple[Decision, object]]:
        admission: Admission[str] = Admission(wait_seconds=0.5)
        admission.offer("the game", "GAME", hosting())
        clients: list[Client] = [
            port_scan,
            browser,
            silent,
            garbage,
            lambda port: guest_hello(port, None),
            lambda port: guest_hello(port, bytes(INVITE_SECRET_SIZE)),
            lambda port: guest_hello(port, SECRET),
            silent,
        ]
        decisions = [await decide(admission, client) for client in clients]
        assert admission.turned_away == {
            Refusal.CLOSED: 1,
            Refusal.SPOKE_FIRST: 1,
            Refusal.SILENT: 1,
            Refusal.GARBAGE: 1,
            Refusal.NOT_INVITED: 2,
            Refusal.NO_GAME: 1,
        }
        return decisions

    scan, spoke, quiet, junk, bare, wrong, guest, late = asyncio.run(scenario())
    assert scan[0] == TurnedAway(Refusal.CLOSED) and spoke[0] == TurnedAway(Refusal.SPOKE_FIRST)
    assert quiet[0] == TurnedAway(Refusal.SILENT)
    assert isinstance(quiet[1], bytes) and quiet[1], "a silent connection got a hello"
    assert junk[0] == TurnedAway(Refusal.GARBAGE)
    for turned in (bare, wrong):
        assert turned[0] == TurnedAway(Refusal.NOT_INVITED)
        hello, said = heard(turned[1])
        assert hello.admit is Admit.INVITE
        [error] = said
        assert isinstance(error, Error) and error.code == Code.NOT_INVITED.value
    decision = guest[0]
    hello, said = heard(guest[1])
    assert isinstance(decision, Admitted) and (decision.name, decision.game) == ("the game", "GAME")
    assert said == [], "the admitted guest hears nothing more from the admission itself"
    first = decision.session.transcript.frames[0].message
    assert isinstance(first, Hello) and first.nonce == hello.nonce, "the game goes on from it"
    received = decode_frame(msgpack.unpackb(decision.received)).message
    assert isinstance(received, Hello) and received.proof is not None
    assert late[0] == TurnedAway(Refusal.NO_GAME), "the game is taken: the next has none"


def test_every_connection_gets_a_hello_of_its_own() -> None:
    async def scenario() -> list[bytes]:
        admission: Admission[str] = Admission(wait_seconds=2)
        admission.offer("the game", "GAME", hosting())

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await admission.admit(reader, writer)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            said = await asyncio.gather(*(silent(port) for _ in range(5)))
        finally:
            server.close()
        nonces = []
        for data in said:
            [value] = FrameReader().values(data)
            hello = decode_frame(value).message
            assert isinstance(hello, Hello)
            nonces.append(hello.nonce)
        return nonces

    nonces = asyncio.run(scenario())
    assert len(set(nonces)) == 5, "a fresh nonce on every connection"


def test_an_open_game_admits_a_guest_without_a_secret_and_one_is_made_on_demand() -> None:
    made: list[str] = []

    def make() -> tuple[str, str]:
        made.append("made")
        return "new", "NEW"

    async def scenario() -> list[Decision]:
        on_demand = OnDemand(hosting(None), make)
        admission: Admission[str] = Admission(on_demand=on_demand, wait_seconds=0.5)
        admission.offer("first", "A", hosting(None))
        admission.offer("second", "B", hosting(None))
        admission.offer("third", "C", hosting(None))
        assert admission.withdraw("second") == "B" and admission.pending == ["first", "third"]
        decisions = [(await decide(admission, lambda p: guest_hello(p, None)))[0] for _ in "abc"]
        decisions.append((await decide(admission, silent))[0])
        return decisions

    *guests, quiet = asyncio.run(scenario())
    assert [(g.name, g.game) for g in guests if isinstance(g, Admitted)] == [
        ("first", "A"), ("third", "C"), ("new", "NEW"),
    ]  # fmt: skip
    assert quiet == TurnedAway(Refusal.SILENT) and made == ["made"], "no game for silence"


def test_a_game_not_ready_to_say_hello_keeps_its_guest_waiting() -> None:
    """...and says so: the host's screen showed its invite as if nobody had come."""
    told: list[int] = []

    async def scenario() -> Decision:
        admission: Admission[str] = Admission(quiet_seconds=0.1)
        admission.door_watchers.append(told.append)
        admission.offer("the game", "GAME")  # the host still chooses its rules
        decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            decided.set_result(await admission.admit(reader, writer))

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        guest = asyncio.ensure_future(guest_hello(port, SECRET))
        await asyncio.sleep(1.0)
        assert not decided.done(), "no hello, no decision, while the host is not ready"
        assert admission.at_the_door == 1 and told == [1]
        admission.ready("the game", hosting())
        try:
            async with asyncio.timeout(10):
                return await decided
        finally:
            guest.cancel()
            await asyncio.gather(guest, return_exceptions=True)
            server.close()

    decision = asyncio.run(scenario())
    assert isinstance(decision, Admitted) and decision.game == "GAME"
    assert told == [1, 0], "the hello said, nobody waits at the door"


def test_a_connection_that_leaves_the_door_is_no_longer_counted() -> None:
    told: list[int] = []

    async def scenario() -> None:
        admission: Admission[str] = Admission(quiet_seconds=0.1)
        admission.door_watchers.append(told.append)
        admission.offer("the game", "GAME")
        decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            decided.set_result(await admission.admit(reader, writer))

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        _, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        for _attempt in range(100):
            if told:
                break
            await asyncio.sleep(0.02)
        writer.close()  # the guest gave up waiting
        async with asyncio.timeout(10):
            assert await decided == TurnedAway(Refusal.CLOSED)
        server.close()

    asyncio.run(scenario())
    assert told == [1, 0]


def resume_frame(game: bytes, nonce: bytes) -> bytes:
    """A stand-in for branch ``resume``'s message: only ``type`` and ``game`` route it."""
    body = msgpack.packb({"type": "resume", "game": game, "nonce": nonce, "have": 7})
    return bytes(msgpack.packb([body, bytes(64)]))


def test_the_hello_said_only_for_a_resume_carries_the_games_tag() -> None:
    """A host whose one game is under way says that game's hello on a new connection, for
    a resume: one that admits by invite carries its tag (SPEC.md section 6, ``tag``), as
    the game's first hello did.  Found by a peer written from SPEC.md alone."""
    tag = game_tag(SECRET)
    game = Session(
        Role.HOST,
        HOST_KEY,
        name="Ala",
        entropy=secrets.token_bytes,
        rules=RULES,
        admit=Admit.INVITE,
        tag=tag,
    )

    async def hello_of(port: int) -> Hello:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        data = await reader.read(65536)
        writer.close()
        [value] = FrameReader().values(data)
        hello = decode_frame(value).message
        assert isinstance(hello, Hello)
        return hello

    async def scenario() -> tuple[Decision, object]:
        admission: Admission[str] = Admission()
        admission.expect_resume(
            bytes(range(32)), lambda _: None, lambda: game.anew(rules=RULES, first=None)
        )
        return await decide(admission, hello_of)

    decision, hello = asyncio.run(scenario())
    assert decision == TurnedAway(Refusal.CLOSED)
    assert isinstance(hello, Hello)
    assert hello.admit is Admit.INVITE and hello.tag == tag and not hello.join


def test_a_resume_goes_to_the_game_registered_for_it_and_nowhere_else() -> None:
    game_id = bytes(range(32))
    handed: list[Resuming] = []

    async def resumer(port: int, game: bytes) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        data = await reader.read(65536)
        [value] = FrameReader().values(data)
        hello = decode_frame(value).message
        assert isinstance(hello, Hello)
        writer.write(resume_frame(game, hello.nonce) + b"after")
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.close()
        return hello.nonce

    async def scenario() -> tuple[list[tuple[Decision, object]], dict[Refusal, int]]:
        admission: Admission[str] = Admission()
        admission.offer("the game", "GAME", hosting())
        admission.expect_resume(game_id, handed.append)
        decisions = [
            await decide(admission, lambda port: resumer(port, game_id)),
            await decide(admission, lambda port: resumer(port, bytes(32))),
        ]
        admission.forget_resume(game_id)
        decisions.append(await decide(admission, lambda port: resumer(port, game_id)))
        assert admission.pending == ["the game"], "a resume takes no hosted game"
        return decisions, dict(admission.turned_away)

    (routed, unknown, forgotten), counted = asyncio.run(scenario())
    [resuming] = handed
    assert routed[0] is resuming and resuming.game_id == game_id
    assert resuming.challenge == routed[1], "the challenge is this connection's hello nonce"
    assert resuming.frame == resume_frame(game_id, resuming.challenge)
    assert resuming.rest == b"after"
    assert unknown[0] == forgotten[0] == TurnedAway(Refusal.NO_RESUME)
    assert counted == {Refusal.NO_RESUME: 2}


def test_one_address_has_at_most_its_share_of_connections_screened() -> None:
    async def scenario() -> tuple[int, float, Decision]:
        admission: Admission[str] = Admission(wait_seconds=5)
        admission.offer("the game", "GAME", hosting())
        decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            decision = await admission.admit(reader, writer)
            if isinstance(decision, Admitted):
                decided.set_result(decision)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        crowd = []
        for _ in range(12):  # one address, more connections than its share
            crowd.append(await asyncio.open_connection("127.0.0.1", port, local_addr=CROWD))
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.sleep(0.1)
        refused = admission.turned_away[Refusal.TOO_MANY]
        guest = asyncio.ensure_future(guest_hello(port, SECRET))
        try:
            async with asyncio.timeout(10):
                decision = await decided
            return refused, loop.time() - started, decision
        finally:
            guest.cancel()
            for _, writer in crowd:
                writer.close()
            await asyncio.gather(guest, return_exceptions=True)
            server.close()

    refused, _, decision = asyncio.run(scenario())
    assert refused == 4, "the 9th to 12th from one address are closed at once"
    assert isinstance(decision, Admitted), "another address still gets in"


def test_a_crowd_from_many_addresses_gives_way_to_the_invited_guest() -> None:
    """More silent connections than the bound in all, from many addresses each within its
    share: each newcomer closes the oldest of the address screened most, so the invited
    guest, come last, is screened and admitted (SPEC.md section 3, "Admission")."""

    async def scenario() -> tuple[int, int, Decision]:
        admission: Admission[str] = Admission(wait_seconds=5, at_most=16)
        admission.offer("the game", "GAME", hosting())
        decided: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            decision = await admission.admit(reader, writer)
            if isinstance(decision, Admitted):
                decided.set_result(decision)

        server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        crowd = []
        for n in range(24):  # eight addresses, three each: within each share, over the whole
            source = (f"127.0.1.{n % 8 + 1}", 0)
            crowd.append(await asyncio.open_connection("127.0.0.1", port, local_addr=source))
        await asyncio.sleep(0.1)
        refused, screened = admission.turned_away[Refusal.TOO_MANY], admission.screening
        guest = asyncio.ensure_future(guest_hello(port, SECRET))
        try:
            async with asyncio.timeout(5):
                decision = await decided
            return refused, screened, decision
        finally:
            guest.cancel()
            for _, writer in crowd:
                writer.close()
            await asyncio.gather(guest, return_exceptions=True)
            server.close()

    refused, screened, decision = asyncio.run(scenario())
    assert (refused, screened) == (8, 16), "the 17th to 24th each closed the oldest"
    assert isinstance(decision, Admitted), "the invited guest, come last, gets in"


async def honest_guest(port: int, secret: bytes | None = None) -> Outcome:
    outcome, __, __ = await told_guest(port, secret, seed=3)
    return outcome


@contextlib.asynccontextmanager
async def hosting_daemon(home: Path) -> AsyncIterator[tuple[Daemon, ControlClient, int]]:
    """A daemon in ``home`` and its control connection, and the port it listens on."""
    home.mkdir(mode=0o700)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.generate(),
        name="d",
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("classic"),
        limits=Limits(60_000, 30_000),
    )
    await daemon.start()
    client = await ControlClient.connect(home)
    assert client is not None
    try:
        yield daemon, client, daemon.addresses[0][1]
    finally:
        await client.close()
        await daemon.shutdown()


async def hosted(client: ControlClient) -> tuple[dict[str, Any], bytes]:
    """A five-ships game the daemon's computer hosts by invite: the reply, and its secret."""
    reply = await client.request("host", rules="five-ships", bot="random")
    return reply, bytes.fromhex(reply["invite"].rsplit("/", 1)[1])


def test_a_daemon_admits_its_hosted_games_guest_and_counts_the_rest(tmp_path: Path) -> None:
    """The daemon admits as ``statki host`` does; a finished game keeps its summary only."""

    async def scenario() -> tuple[Outcome, Outcome, bytes, dict[str, object], dict[str, object]]:
        async with hosting_daemon(tmp_path / "daemon") as (daemon, client, port):
            reply, secret = await hosted(client)
            await port_scan(port)
            uninvited = await honest_guest(port)
            outcome = await honest_guest(port, secret)
            reader, _ = await asyncio.open_connection("127.0.0.1", port)
            async with asyncio.timeout(10):
                told_late = await reader.read()  # no bot and no game waiting: nothing
            state = (await client.request("state", game=reply["game"]))["state"]
            status = await client.request("status")
            conn = daemon.games[reply["game"]].conn
            assert conn is None, "a finished game keeps no connection, session or transcript"
            return uninvited, outcome, told_late, state, status

    uninvited, outcome, told_late, state, status = asyncio.run(scenario())
    assert uninvited.failure is not None and uninvited.failure.code is Code.NO_INVITE
    assert told_late == b""
    assert outcome.ending.end is End.SUNK and outcome.failure is None
    assert state["rules"] == "five-ships" and state["opponent"]["name"] == "Ola"  # type: ignore[index]
    assert state["result"] and state["log"]
    assert status["turned_away"] == {"closed": 2, "no-game": 1}, "the scan and the uninvited"
    assert len(list((tmp_path / "daemon" / "logs").iterdir())) == 1, "one game, one log"


async def told_guest(
    port: int, secret: bytes | None, *, failing: bool = False, seed: int = 4
) -> tuple[Outcome, list[object], list[object]]:
    """A computer guest's game as its front ends are told it: outcome, events, notices;
    ``failing``: a front end that fails on the rules."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(seed)
    session = Session(
        Role.GUEST,
        Ed25519PrivateKey.generate(),
        name="Ola",
        entropy=rng.randbytes,
        invite_secret=secret,
    )
    conn = GameConnection(session, reader, writer, log_dir=None)
    events: list[object] = []
    notices: list[object] = []
    conn.event_listeners.append(events.extend)
    conn.listeners.append(notices.append)
    if failing:
        conn.listeners.append(fail_on_the_rules)
    attach_computer(conn, ComputerPlayer("random", rng))
    return await conn.run(), events, notices


def fail_on_the_rules(notice: object) -> None:
    if isinstance(notice, notices_module.Rules):
        raise RuntimeError("a front end's bug")


def test_a_guest_turned_away_is_never_asked_the_rules_and_an_admitted_one_is(
    tmp_path: Path,
) -> None:
    """The host's hello, with its rules, comes before the guest proves its invite, and
    the refusal a round trip later: the refused guest's screen showed the rules question
    for that moment (issue 14).  Its front ends now hear the rules only once the host has
    had the time to refuse, and never when it did."""
    Told = tuple[Outcome, list[object], list[object]]

    async def scenario() -> tuple[Told, Told, Told]:
        async with hosting_daemon(tmp_path / "daemon") as (_daemon, client, port):
            __, secret = await hosted(client)
            async with asyncio.timeout(20):
                refused = await told_guest(port, bytes(INVITE_SECRET_SIZE))
                failing = await told_guest(port, secret, failing=True)
                __, secret = await hosted(client)
                admitted = await told_guest(port, secret)
            return refused, failing, admitted

    refused, failing, admitted = asyncio.run(scenario())
    outcome, events, notices = refused
    played, events_played, notices_played = admitted
    stopped = failing[0].failure
    assert stopped is not None and stopped.code is Code.INTERNAL, "a bug told, once the rules are"
    assert "a front end's bug" in stopped.detail
    assert outcome.failure is not None and outcome.failure.code is Code.NOT_INVITED, outcome
    assert any(isinstance(event, PeerHello) for event in events), "the host's hello is told"
    assert not any(isinstance(event, RulesProposed) for event in events), events
    assert not any(isinstance(notice, notices_module.Rules) for notice in notices), notices
    assert isinstance(notices[-1], notices_module.Closed), "the end is told, as any end"
    assert played.ending.end is End.SUNK, played
    assert sum(isinstance(event, RulesProposed) for event in events_played) == 1
    [rules] = [notice for notice in notices_played if isinstance(notice, notices_module.Rules)]
    assert rules.due is not None and rules.due.mine, "the guest's decision, with its deadline"

"""``statki host`` and ``statki join`` through a running daemon get the full screen.

A real ``statki daemon`` process runs in the player's home; the command's own
``_host_game`` / ``_join_game`` run in this process, their full screen driven
with prompt_toolkit's pipe input (keys as a player types them) and a dummy
output.  The opponent plays over loopback TCP in this process and resigns at
its fourth turn (a whole game, and a short one).  The test follows the game
on the daemon's control socket as the screen does (``follow``), to know when
it is the player's turn.  Each test costs one daemon start and a short game;
the host's also runs ``statki host --plain`` and ``statki join --bot`` once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netproc import finish, line_starting, start, stop
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from statki_net.cli import netplay
from statki_net.cli.netplay import Player
from statki_net.cli.resume import resume_game
from statki_net.game.battle import Sea
from statki_net.game.board import square_name
from statki_net.game.errors import UsageError
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.net import notices
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient, Message
from statki_net.net.dialer import dial
from statki_net.net.event_maps import event_from_map
from statki_net.net.invite import parse_invite
from statki_net.protocol.endings import End
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.session import Session, VolleyDone, YourTurn
from statki_net.protocol.wire import Limits, Reveal, Role
from statki_net.referee.verify import judge_log

FLEET = "A1-D1\nA3-C3\nE3-G3\nI1-J1\nA5-B5\nD5-E5\nG5\nI5\nA7\nC7\n"
"""The player's own fleet: the placement starts from its file, and Enter commits it."""
FLEET_SHIPS = ((0, 1, 2, 3), (20, 21, 22), (24, 25, 26), (8, 9), (40, 41), (43, 44))
WAIT = 30.0
"""Longest wait for a step of the game (a bound, not a timing)."""
RESIGN_AT = 4
"""The opponent's turn at which it resigns."""
RETYPE = 1.0
"""Seconds before a shot typed is typed again: the screen may have heard of its turn a
moment after the test did (typing early is refused, and Escape clears it)."""


@contextlib.contextmanager
def daemon_in(home: Path) -> Iterator[Path]:
    process = start(home, "daemon", "--listen", "127.0.0.1:0")
    try:
        line_starting(process, "control socket", [])
        yield home
    finally:
        stop(process)


class Opponent:
    """The other side, in this process: it takes any rules, fires at random squares it does
    not know yet, and resigns at its ``RESIGN_AT``-th turn: a whole game, and a short one."""

    def __init__(self, conn: GameConnection, seed: int) -> None:
        self.conn = conn
        self.rng = random.Random(seed)
        self.turns = 0
        conn.listeners.append(self.heard)

    def heard(self, notice: notices.Notice) -> None:
        # Acted on outside the connection's own handling of its events, as a front end does.
        asyncio.get_running_loop().call_soon(self.act, notice)

    def act(self, notice: notices.Notice) -> None:
        with contextlib.suppress(UsageError):  # the game may have ended meanwhile
            if isinstance(notice, notices.Rules):
                self.conn.accept(random_fleet(notice.rules, self.rng))
            elif isinstance(notice, notices.Turn):
                self.turns += 1
                if self.turns >= RESIGN_AT:
                    self.conn.resign()
                    return
                view = self.conn.session.view
                assert view is not None
                unknown = [s for s in range(view.rules.size**2) if not view.known >> s & 1]
                self.conn.shoot(tuple(self.rng.sample(unknown, notice.shots)))


async def guest_opponent(invite_text: str) -> Outcome:
    """A guest that joins with ``invite_text`` and plays as ``Opponent``."""
    invite = parse_invite(invite_text)
    reader, writer, _ = await dial(invite.addresses)
    session = Session(
        Role.GUEST,
        Ed25519PrivateKey.generate(),
        name="Ola",
        entropy=random.Random(1).randbytes,
        invite_secret=invite.secret,
    )
    conn = GameConnection(session, reader, writer, log_dir=None, expect_key=invite.key)
    Opponent(conn, 1)
    return await conn.run()


async def host_opponent(rules: Ruleset) -> tuple[int, asyncio.Future[Outcome]]:
    """A host listening on a port of its own (the first to connect is its guest) that plays
    as ``Opponent``; its port, and its game to await."""
    arrived: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_guest(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await arrived.put((reader, writer))

    server = await asyncio.start_server(on_guest, "127.0.0.1", 0)

    async def game() -> Outcome:
        try:
            reader, writer = await arrived.get()
        finally:
            server.close()
        rng = random.Random(2)
        session = Session(
            Role.HOST,
            Ed25519PrivateKey.generate(),
            name="Bob",
            entropy=rng.randbytes,
            rules=rules,
            fleet=random_fleet(rules, rng),
        )
        conn = GameConnection(session, reader, writer, log_dir=None)
        Opponent(conn, 2)
        return await conn.run()

    return server.sockets[0].getsockname()[1], asyncio.ensure_future(game())


def player(home: Path, tmp_path: Path) -> Player:
    fleet = tmp_path / "fleet.txt"
    fleet.write_text(FLEET)
    return Player(
        home=home,
        name="Ala",
        bot=None,
        fleet_file=str(fleet),
        limits=Limits(move_ms=60_000, reveal_ms=60_000),
        on_screen=True,
        bell=False,
    )


async def game_of(control: ControlClient) -> int:
    """The one game the daemon lists, once it does; followed from now on."""
    async with asyncio.timeout(WAIT):
        while not (games := (await control.request("games"))["games"]):
            await asyncio.sleep(0.02)
    number = int(games[0]["id"])
    await control.request("subscribe", game=number, follow=True)
    return number


async def play_on_screen(
    control: ControlClient,
    number: int,
    keys: PipeInput,
    me: Role,
    rules: Ruleset,
    *,
    sea: Sea | None = None,
    aimed: str | None = None,
) -> list[str]:
    """Type as a player would: a line of talk, then whenever it is this side's turn a shot
    at the first square its view of the sea (``sea``: none known) does not know yet, to the
    end; ``aimed``, a square typed already.

    Returns the kinds of the session events the test followed.
    """
    kinds: list[str] = []
    sea = sea if sea is not None else Sea(rules)
    talked = False
    while True:
        try:
            async with asyncio.timeout(RETYPE if aimed else WAIT):
                message = await control.events.get()
        except TimeoutError:
            assert aimed is not None, "the game stopped moving"
            keys.send_text("\x1b")  # Escape: the square typed too early is forgotten
            await asyncio.sleep(0.05)
            keys.send_text(aimed.lower() + "\r")
            continue
        assert message is not None, "the daemon went away"
        if message.get("game") != number:
            continue
        if message["event"] == "closed":
            return kinds
        if message["event"] != "session":
            continue
        for value in message["events"]:
            kinds.append(value["kind"])
            event = event_from_map(value)
            if isinstance(event, VolleyDone) and event.shooter is me:
                sea, aimed = sea.apply(event.squares, event.answer), None
            if isinstance(event, YourTurn):
                if not talked:
                    keys.send_text("thej\r")  # t opens the chat line; Enter says it
                    talked = True
                square = next(s for s in range(rules.size**2) if not sea.known >> s & 1)
                aimed = square_name(square, rules.size)
                keys.send_text(aimed.lower() + "\r")


async def leave_the_end_screen(run: asyncio.Future[int], keys: PipeInput) -> int:
    """q leaves the end screen at once (anywhere else it asks first): the exit status."""
    keys.send_text("q")
    try:
        async with asyncio.timeout(5.0):
            return await asyncio.shield(run)
    except TimeoutError:
        keys.send_text("y")
        await run
        raise AssertionError("q did not leave: the screen never came to its end") from None


def first_moves(kinds: list[str]) -> bool:
    return "game-started" in kinds and "game-closed" in kinds


def check_log(home: Path, me: Role, rules: str) -> None:
    """The game is the daemon's, in its log: the rules and the fleet the player chose, and
    the line the player said."""
    [log] = list((home / "logs").iterdir())
    judged = judge_log(log.read_bytes())
    assert judged.ending is not None and judged.rules == rules, judged
    assert [line.text for line in judged.talk] == ["hej"]
    frames = frames_of(read_log(log.read_bytes()))
    [reveal] = [
        f.message for f in frames if f.header.sender is me and isinstance(f.message, Reveal)
    ]
    assert reveal.fleet[:6] == FLEET_SHIPS  # the placed fleet, not a random one


def test_a_host_through_the_daemon_chooses_rules_places_and_plays_on_the_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def scenario(home: Path) -> tuple[int, list[str]]:
        me = player(home, tmp_path)
        me.choose_rules = True
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(
                netplay._host_game(me, ruleset_named("classic"), None, 0, [])
            )
            control = await ControlClient.connect(home)
            assert control is not None
            try:
                number = await game_of(control)
                invite = (await control.request("state", game=number))["state"]["invite"]
                keys.send_text("\x1b[B\r\r")  # down to the second preset, Enter, Enter
                guest = asyncio.ensure_future(guest_opponent(invite))
                corners = ruleset_named("corners")
                kinds = await play_on_screen(control, number, keys, Role.HOST, corners)
                assert (await guest).ending.end is End.RESIGNED
                return await leave_the_end_screen(run, keys), kinds
            finally:
                await control.close()

    with daemon_in(tmp_path / "host") as home:
        status, kinds = asyncio.run(scenario(home))
        out = capsys.readouterr().out
        assert status == 0, out
        assert "the daemon hosts the game" in out and "verdict: valid" in out, out
        assert first_moves(kinds)
        check_log(home, Role.HOST, "corners")
        plain = the_line_prompt_through(home, tmp_path)
    assert "opponent: " in plain and "you lost: you resigned" in plain, plain


def the_line_prompt_through(home: Path, tmp_path: Path) -> str:
    """``--plain`` with the daemon running: the line prompt, where the player mutes the
    opponent once the game has begun (kept beside the daemon's game, as without a daemon:
    for ``statki resume``), then resigns at the end of its input; what it printed."""
    host = start(home, "host", "--plain", "--name", "Ala", stdin="")
    assert host.stdin is not None
    seen: list[str] = []
    try:
        invite = line_starting(host, "statki://", seen)
        joined = start(tmp_path / "guest", "join", invite, "--bot", "random", "--name", "Ola")
        line_starting(host, "opponent: ", seen)
        line_starting(host, "you", seen)  # "you shoot first" or not: its id is known
        host.stdin.write("mute\n")
        host.stdin.flush()
        for _line in range(100):  # said after the prompt when it is this side's move
            if any("Ola's talk is hidden" in line for line in seen):
                break
            line_starting(host, "", seen)
        assert any("Ola's talk is hidden" in line for line in seen), seen
        muted = list((home / "unfinished").glob("*.muted"))
        kept = [path.stem for path in (home / "unfinished").glob("*.json")]
        assert [path.stem for path in muted] == kept and len(kept) == 1, (muted, kept)
        _, out, _ = finish(host)  # its input ends: the line prompt resigns
        assert finish(joined)[0] == 0
    finally:
        stop(host)
    assert not list((home / "unfinished").glob("*.muted")), "forgotten with the game"
    return "\n".join([*seen, out])


def test_statki_resume_opens_a_new_screen_on_a_game_the_daemon_plays_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The screen on a daemon's game closed (its control connection gone) after a volley
    each; ``statki resume GAME`` on the full screen opens a new one where the game stands:
    it is this side's move (the screen knows it from the log and the daemon's frames: a
    shot typed at once goes out), and the game goes on there to its end.  Costs one daemon
    start and a short game: 3-8 s."""

    async def scenario(home: Path) -> tuple[int, str]:
        control = await ControlClient.connect(home)
        assert control is not None
        reply = await control.request("host", rules="classic", move_ms=60_000, follow=True)
        number = int(reply["game"])
        guest = asyncio.ensure_future(guest_opponent(reply["invite"]))
        sea, turns = Sea(ruleset_named("classic")), 0
        async with asyncio.timeout(WAIT):
            while turns < 2:  # a volley of this side's, then its turn again
                message = await control.events.get()
                assert message is not None and message.get("game") == number
                for event in map(event_from_map, message.get("events", [])):
                    if isinstance(event, VolleyDone) and event.shooter is Role.HOST:
                        sea = sea.apply(event.squares, event.answer)
                    if isinstance(event, YourTurn):
                        turns += 1
                        if turns == 1:
                            await control.request("shoot", game=number, squares=[0])
        game = str((await control.request("state", game=number))["state"]["game"])
        await control.close()  # the screen is gone; the daemon plays on, on this side's move
        watching = await ControlClient.connect(home)
        assert watching is not None
        await watching.request("subscribe", game=number, follow=True)
        me = player(home, tmp_path)
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(asyncio.to_thread(resume_game, me, game))
            square = next(s for s in range(100) if not sea.known >> s & 1)
            aimed = square_name(square, 10)
            await asyncio.sleep(0.5)  # the screen opening: retyped until the shot goes out
            keys.send_text(aimed.lower() + "\r")
            try:
                await play_on_screen(
                    watching,
                    number,
                    keys,
                    Role.HOST,
                    ruleset_named("classic"),
                    sea=sea,
                    aimed=aimed,
                )
                assert (await guest).ending.end is End.RESIGNED
                await asyncio.sleep(1.0)  # the screen's own link hears the end after the test
                return await leave_the_end_screen(run, keys), game
            finally:
                await watching.close()

    with daemon_in(tmp_path / "host") as home:
        status, game = asyncio.run(scenario(home))
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"following game {game[:16]}, which the daemon plays" in out, out
    assert "verdict: valid" in out and "resigned" in out, out
    [log] = list((home / "logs").iterdir())
    judged = judge_log(log.read_bytes())
    assert judged.valid and judged.ending is not None
    assert not (home / "unfinished" / f"{game}.json").exists(), "over: kept no more"


def test_a_guest_through_the_daemon_decides_places_and_plays_on_the_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alternate = ruleset_named("alternate")

    async def scenario(home: Path) -> tuple[int, list[str]]:
        port, host = await host_opponent(alternate)
        me = player(home, tmp_path)
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(netplay._join_game(me, parse_invite(f"127.0.0.1:{port}")))
            control = await ControlClient.connect(home)
            assert control is not None
            try:
                number = await game_of(control)
                await accept_the_rules(control, number, keys)
                kinds = await play_on_screen(control, number, keys, Role.GUEST, alternate)
                assert (await host).ending.end is End.RESIGNED
                return await leave_the_end_screen(run, keys), kinds
            finally:
                await control.close()

    with daemon_in(tmp_path / "guest") as home:
        status, kinds = asyncio.run(scenario(home))
    out = capsys.readouterr().out
    assert status == 0, out
    assert "verdict: valid" in out and "won" in out, out
    assert first_moves(kinds)
    check_log(home, Role.GUEST, "alternate")


async def accept_the_rules(control: ControlClient, number: int, keys: PipeInput) -> None:
    """Enter, once the screen has the host's rules, takes them with the placed fleet.

    The game's state says when the daemon has them; the screen may hear a moment later,
    and an Enter before that is lost, so it is pressed again until the guest accepted.
    """
    async with asyncio.timeout(WAIT):
        while True:
            phase = (await control.request("state", game=number))["state"].get("phase")
            if phase not in (None, "host-hello", "guest-hello", "decision"):
                return
            if phase == "decision":
                keys.send_text("\r")
            await asyncio.sleep(0.5)


def test_a_host_who_leaves_before_a_guest_came_withdraws_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No guest is admitted later to a game nobody plays (one daemon start, no game)."""

    async def scenario(home: Path) -> tuple[int, Message]:
        me = player(home, tmp_path)
        me.choose_rules = True
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(
                netplay._host_game(me, ruleset_named("classic"), None, 0, [])
            )
            control = await ControlClient.connect(home)
            assert control is not None
            try:
                number = await game_of(control)
                keys.send_text("qy")  # quit, yes: no game has started
                async with asyncio.timeout(WAIT):
                    status = await run
                state = (await control.request("state", game=number))["state"]
                return status, state
            finally:
                await control.close()

    with daemon_in(tmp_path / "host") as home:
        status, state = asyncio.run(scenario(home))
    assert status == 1 and "you left before the game began" in capsys.readouterr().err
    assert state["status"] == "over" and "withdrawn" in state["failure"], state


def test_a_host_through_the_daemon_is_told_of_a_guest_waiting_for_its_rules(
    tmp_path: Path,
) -> None:
    """Through a daemon the host's screen kept its invite and "waiting for the opponent"
    while a guest waited, connected, for the rules (one daemon start, no game played)."""
    from statki_client.daemon_link import DaemonLink
    from statki_client.layout import plain, screen
    from statki_client.model import Model

    async def scenario(home: Path) -> tuple[str, int]:
        control = await ControlClient.connect(home)
        assert control is not None
        try:
            reply = await control.request("host", rules="classic", deferred=True, follow=True)
            status = await control.request("status")
            session = Session(
                Role.HOST,
                Ed25519PrivateKey.generate(),
                name="Ala",
                entropy=random.Random(2).randbytes,
                rules=ruleset_named("classic"),
            )
            link = DaemonLink(session, control, reply["game"])
            model = Model(link, random.Random(1), invite=reply["invite"])
            following = asyncio.ensure_future(link.follow())
            host, port = status["listening"][0].rsplit(":", 1)
            _, writer = await asyncio.open_connection(host.strip("[]"), int(port))
            try:
                async with asyncio.timeout(WAIT):
                    while not model.at_the_door:
                        await asyncio.sleep(0.02)
                come = plain(screen(model))
                writer.close()  # the guest gives up: nobody waits any more
                async with asyncio.timeout(WAIT):
                    while model.at_the_door:
                        await asyncio.sleep(0.02)
                return come, model.at_the_door
            finally:
                following.cancel()
                writer.close()
        finally:
            await control.close()

    with daemon_in(tmp_path / "host") as home:
        come, after = asyncio.run(scenario(home))
    assert "A guest has connected and waits for your rules" in " ".join(come.split()), come
    assert "statki://" not in come and after == 0

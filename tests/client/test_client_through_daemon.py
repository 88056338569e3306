"""``statki host`` and ``statki join`` through a running daemon get the full screen.

A real ``statki daemon`` process runs in the player's home; the command's own
``_host_game`` / ``_join_game`` run in this process, their full screen driven
with prompt_toolkit's pipe input (keys as a player types them) and a dummy
output.  The opponent plays over loopback TCP in this process and resigns at
its fourth turn (a whole game, and a short one).  The test follows the game
on the daemon's control socket as the screen does (``follow``), to know when
it is the player's turn.  Each test costs one daemon start and a short game;
the host's also runs ``statki host --plain`` and ``statki join --bot`` once.
The rematch tests play two games, one side through the daemon and the other
in this process (``run_games`` with ``statki host``/``join``'s reunions); those
where nobody comes back run the daemon in this process, its clock hurried.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from netproc import finish, line_starting, run, start, stop
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.daemon_link import DaemonLink, follow_games
from statki_client.keys import press
from statki_client.layout import keys_line, plain, screen
from statki_client.model import Model, Stage
from statki_client.remote import CLOSE_GRACE, ConnectionLink, run_games

from statki_net.cli import netplay
from statki_net.cli.netplay import Door, GuestReunion, HostReunion, Player
from statki_net.cli.resume import resume_game
from statki_net.game.battle import Sea
from statki_net.game.board import square_name
from statki_net.game.errors import UsageError
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import Ruleset, ruleset_named
from statki_net.game.words import phrase
from statki_net.net import notices, rematch
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import ControlClient, ControlError, Message, notice_from_map
from statki_net.net.daemon import Daemon
from statki_net.net.dialer import dial
from statki_net.net.event_maps import event_from_map
from statki_net.net.invite import Invite, parse_invite
from statki_net.protocol.endings import End
from statki_net.protocol.events import STOPPED, Failed, VolleyDone, YourTurn
from statki_net.protocol.logformat import frames_of, read_log
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Admit, Limits, Reveal, Role
from statki_net.referee.verify import judge_log
from statki_net.store.history import History
from statki_net.store.language import catalog

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


@contextlib.asynccontextmanager
async def host_on_screen_and_guest(
    home: Path, tmp_path: Path, bob: Path
) -> AsyncIterator[tuple[asyncio.Future[int], PipeInput, ControlClient, int, Model]]:
    """``statki host`` on the full screen through the daemon in ``home`` (its keys typed
    into ``keys``) and a guest Ola without a daemon (home ``bob``), playing game after game
    as ``statki join`` does: the host's run, its keys, the control client, the game's
    number and the guest's model."""
    me = player(home, tmp_path)
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        run = asyncio.ensure_future(netplay._host_game(me, ruleset_named("classic"), None, 0, []))
        control = await ControlClient.connect(home)
        assert control is not None
        history = History.in_home(bob)
        games: list[asyncio.Future[None]] = []
        try:
            number = await game_of(control)
            invite = parse_invite((await control.request("state", game=number))["state"]["invite"])
            ola = Player(home=bob, name="Ola", bot=None, fleet_file=None, limits=me.limits)
            reunion = GuestReunion(ola, invite, invite.addresses[0], history)
            session = Session(
                Role.GUEST,
                Ed25519PrivateKey.generate(),
                name="Ola",
                entropy=random.Random(4).randbytes,
                invite_secret=invite.secret,
            )
            link = ConnectionLink(session, reunion=reunion)
            guest = Model(link, random.Random(5))
            games.append(
                asyncio.ensure_future(run_games(guest, link, lambda s: reunion.connect(s, "Ala")))
            )
            yield run, keys, control, number, guest
        finally:
            for game in games:
                game.cancel()
            await asyncio.gather(*games, return_exceptions=True)
            history.close()
            await control.close()


def test_a_host_who_leaves_a_committed_fleet_before_the_battle_ends_it_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Played through a daemon: the host committed, the guest was deciding, the host quit.
    The terminal stayed blank for the whole close grace (30 s), then said the daemon played
    on, while the guest waited a move limit to claim a game nobody would play: now the
    screen's ``leave`` ends it at once, no game, and the guest is told the host left."""
    bob = tmp_path / "guest"
    bob.mkdir()

    async def scenario(home: Path) -> tuple[int, Model]:
        hosting = host_on_screen_and_guest(home, tmp_path, bob)
        async with hosting as (run, keys, control, number, guest):
            keys.send_text("\r")  # the host commits its fleet
            async with asyncio.timeout(WAIT):
                while not guest.must_decide:
                    await asyncio.sleep(0.01)
                # Admitted (its hello in): before that, leaving withdraws the game instead.
                while (await control.request("state", game=number))["state"].get(
                    "phase"
                ) != "decision":
                    await asyncio.sleep(0.01)
            keys.send_text("qy")
            async with asyncio.timeout(CLOSE_GRACE / 3):  # not the grace of a resignation
                status = await run
                while guest.stage is not Stage.OVER:  # not the guest's move limit either
                    await asyncio.sleep(0.01)
            return status, guest

    with daemon_in(tmp_path / "host") as home:
        status, guest = asyncio.run(scenario(home))
    out, err = capsys.readouterr()
    assert "the daemon plays on" not in err, err
    assert "verdict: valid: no game" in out, (status, out, err)
    end = guest.end_screen
    assert end is not None and end.ending.end is End.NO_GAME
    assert guest.notice == "Ala left before the battle: there is no game", guest.notice
    assert end.why_unfinished.startswith("the host left before the battle"), end
    assert status == 1, (status, out, err)


async def resign_at_its_first_turn(guest: Model) -> None:
    """The guest without a daemon resigns as soon as it may shoot: a whole game, short."""
    async with asyncio.timeout(WAIT):
        while not guest.my_turn and guest.stage is not Stage.OVER:
            await asyncio.sleep(0.01)
    if guest.my_turn:
        guest.link.resign()


async def one_game(
    control: ControlClient, number: int, keys: PipeInput, guest: Model
) -> tuple[Role, str]:
    """Enter commits the host's fleet on its screen, the guest accepts, the host shoots at
    its turns (on the screen), the guest resigns at its first: who shot first, and what the
    guest was told of it as it decided."""
    keys.send_text("\r")
    async with asyncio.timeout(WAIT):
        while not guest.must_decide:
            await asyncio.sleep(0.01)
    starts = guest.starter_words()
    press(guest, "enter")
    resigning = asyncio.ensure_future(resign_at_its_first_turn(guest))
    await play_on_screen(control, number, keys, Role.HOST, ruleset_named("classic"))
    await resigning
    assert guest.first is not None
    return guest.first, starts


async def the_rematch_of(control: ControlClient, number: int, keys: PipeInput) -> int:
    """``r`` on the host's end screen, typed again until the daemon hosts the rematch (the
    screen may hear of the end a moment after the test did); its number, followed."""
    async with asyncio.timeout(WAIT):
        while True:
            keys.send_text("r")
            for _attempt in range(20):
                await asyncio.sleep(0.1)
                games = (await control.request("games"))["games"]
                if newer := [g for g in games if g["id"] > number]:
                    again = int(newer[0]["id"])
                    await control.request("subscribe", game=again, follow=True)
                    return again


def test_a_host_through_the_daemon_and_a_guest_without_one_play_a_rematch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both ask for a rematch at the end, the guest first (it dials the daemon until the
    rematch is hosted there); the second game is played to its end on the same screens,
    the side that did not shoot first now shooting first.  One daemon start, two short
    games, ``statki verify`` on each side's logs: 5-10 s."""
    bob = tmp_path / "guest"
    bob.mkdir()

    async def scenario(home: Path) -> tuple[int, list[tuple[Role, str]], Model]:
        async with host_on_screen_and_guest(home, tmp_path, bob) as (
            run,
            keys,
            control,
            number,
            guest,
        ):
            played = [await one_game(control, number, keys, guest)]
            assert guest.stage is Stage.OVER and guest.can_rematch
            press(guest, "r")  # first: nothing waits at the daemon's port yet
            again = await the_rematch_of(control, number, keys)
            played.append(await one_game(control, again, keys, guest))
            return await leave_the_end_screen(run, keys), played, guest

    with daemon_in(tmp_path / "host") as home:
        status, played, guest = asyncio.run(scenario(home))
    out = capsys.readouterr().out
    assert status == 0, out
    (first, _), (second, starts) = played
    assert second is first.other, "the side that did not shoot first now does"
    assert starts == ("Ala starts" if second is Role.HOST else "you start")
    assert guest.is_rematch
    assert out.count("verdict: valid") == 2, out
    logs = [sorted((side / "logs").iterdir()) for side in (home, bob)]
    assert [len(each) for each in logs] == [2, 2], logs
    verified = run(bob, "verify", *(str(log) for each in logs for log in each))
    assert verified.returncode == 0, verified.stdout + verified.stderr


async def leaving_guest(invite_text: str) -> Outcome:
    """A guest that joins, accepts the rules and stops once the battle begins: a game played
    (one declined has no rematch), over in a moment."""
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

    def heard(notice: notices.Notice) -> None:
        loop = asyncio.get_running_loop()
        if isinstance(notice, notices.Rules):
            loop.call_soon(conn.accept, random_fleet(notice.rules, random.Random(4)))
        if isinstance(notice, notices.Started):
            loop.call_soon(conn.stop, phrase(STOPPED))

    conn.listeners.append(heard)
    return await conn.run()


def test_a_rematch_the_guest_never_comes_to_ends_in_one_line_and_no_further_rematch(
    tmp_path: Path,
) -> None:
    """The host through the daemon asks for a rematch and commits its fleet; the guest does
    not come back within the move limit (a minute, on a daemon's clock a hundred times
    fast: 0.6 s): the screen says so in one line, and offers no rematch of that."""

    async def scenario(home: Path) -> Model:
        async with daemon_here(home) as (daemon, control):
            reply = await control.request("host", deferred=True, follow=True, name="Ala")
            session = Session(
                Role.HOST,
                Ed25519PrivateKey.generate(),
                name="Ala",
                entropy=random.Random(2).randbytes,
                rules=ruleset_named("classic"),
                limits=Limits(60_000, 60_000),
                admit=Admit.INVITE,
            )
            link = DaemonLink(session, control, reply["game"], clock=daemon.clock)
            model = Model(link, random.Random(3))
            following = asyncio.ensure_future(follow_games(link))
            try:
                guest = asyncio.ensure_future(leaving_guest(reply["invite"]))
                press(model, "enter")  # the host's fleet: its hello goes out
                assert (await guest).ending.end is End.FORFEIT
                await until(lambda: model.can_rematch, "the end, with a rematch offered")
                press(model, "r")
                press(model, "enter")  # a new fleet for the rematch; nobody comes for it
                await until(lambda: model.end_screen is not None, "the rematch given up")
                return model
            finally:
                following.cancel()
                await asyncio.gather(following, return_exceptions=True)

    model = asyncio.run(scenario(tmp_path / "host"))
    assert model.end_screen is not None and model.end_screen.verdict == "No rematch"
    text = plain(screen(model))
    assert "Ola did not come back for the rematch within 60 s" in text, text
    assert not model.can_rematch and "rematch" not in keys_line(model)


@contextlib.asynccontextmanager
async def daemon_here(home: Path) -> AsyncIterator[tuple[Daemon, ControlClient]]:
    """A daemon in this process, on loopback, its clock a hundred times fast (a minute's
    move limit is 0.6 s), and a control connection to it."""
    home.mkdir(mode=0o700)
    daemon = Daemon(
        home,
        Ed25519PrivateKey.generate(),
        name="d",
        listen_on=[("127.0.0.1", 0)],
        rules=ruleset_named("classic"),
        limits=Limits(60_000, 60_000),
        clock=ScaledClock(100),
    )
    await daemon.start()
    control = await ControlClient.connect(home)
    assert control is not None
    try:
        yield daemon, control
    finally:
        await control.close()
        await daemon.shutdown()


async def until(test: Callable[[], bool], what: str) -> None:
    """Wait (``WAIT`` at most) for ``test``: something the screen or the daemon does."""
    try:
        async with asyncio.timeout(WAIT):
            while not test():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"never happened: {what}") from None


def test_a_guest_through_the_daemon_and_a_host_without_one_play_a_rematch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other way round: the guest's daemon dials the host again (refused while the host
    has not asked yet, so dialled again) and its screen follows the second game, which the
    side that did not shoot first now opens.  One daemon start, two short games: 5-10 s."""
    ala = tmp_path / "host"
    ala.mkdir()

    async def scenario(home: Path) -> tuple[int, list[Role], Model]:
        me = player(home, tmp_path)
        history = History.in_home(ala)
        door = Door.of(open_to_anyone=False)
        bob = Player(home=ala, name="Bob", bot=None, fleet_file=None, limits=me.limits)
        reunion = HostReunion(bob, [("127.0.0.1", 0)], history, door=door)
        await reunion.reopen()
        port = reunion.servers[0].sockets[0].getsockname()[1]
        reunion.addresses = [("127.0.0.1", port)]  # a rematch listens on the same port
        key = Ed25519PrivateKey.generate()
        invite = Invite((("127.0.0.1", port),), public_key_bytes(key), door.secret)
        session = Session(
            Role.HOST,
            key,
            name="Bob",
            entropy=random.Random(6).randbytes,
            rules=ruleset_named("classic"),
            limits=me.limits,
            admit=door.admit,
        )
        link = ConnectionLink(session, reunion=reunion)
        host = Model(link, random.Random(7))
        games = [asyncio.ensure_future(run_games(host, link, lambda s: reunion.connect(s, "Ala")))]
        with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
            run = asyncio.ensure_future(netplay._join_game(me, invite))
            control = await ControlClient.connect(home)
            assert control is not None
            try:
                number = await game_of(control)
                played = [await guest_game(control, number, keys, host)]
                again = await the_rematch_of(control, number, keys)  # first: nobody listens
                await asyncio.sleep(0.3)
                press(host, "r")
                played.append(await guest_game(control, again, keys, host))
                return await leave_the_end_screen(run, keys), played, host
            finally:
                for game in games:
                    game.cancel()
                await asyncio.gather(*games, return_exceptions=True)
                reunion.close()
                history.close()
                await control.close()

    with daemon_in(tmp_path / "guest") as home:
        status, (first, second), host = asyncio.run(scenario(home))
    out = capsys.readouterr().out
    assert status == 0, out
    assert second is first.other and host.is_rematch
    assert out.count("verdict: valid") == 2, out
    logs = [sorted((side / "logs").iterdir()) for side in (home, ala)]
    assert [len(each) for each in logs] == [2, 2], logs
    verified = run(ala, "verify", *(str(log) for each in logs for log in each))
    assert verified.returncode == 0, verified.stdout + verified.stderr


async def guest_game(control: ControlClient, number: int, keys: PipeInput, host: Model) -> Role:
    """The host without a daemon commits its fleet, the guest accepts on its screen and
    shoots at its turns there, the host resigns at its first: who shot first."""
    await until(lambda: host.stage is Stage.PLACING, "the host places its fleet")
    press(host, "enter")
    await accept_the_rules(control, number, keys)
    resigning = asyncio.ensure_future(resign_at_its_first_turn(host))
    await play_on_screen(control, number, keys, Role.GUEST, ruleset_named("classic"))
    await resigning
    assert host.first is not None
    return host.first


def test_a_rematch_whose_host_is_not_there_ends_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon's guest dials the host again for the rematch, nobody listens there: the
    rematch ends with the line why, as a phrase the player reads in their language; the
    game had its rematch, and the rematch, which met nobody, has none."""
    monkeypatch.setattr(rematch, "REDIAL_SECONDS", 0.3)

    async def scenario(home: Path) -> tuple[Message, str, str]:
        async with daemon_here(home) as (_, control):
            port, host = await host_opponent(ruleset_named("classic"))
            reply = await control.request("connect", invite=f"127.0.0.1:{port}", subscribe=True)
            number = int(reply["game"])
            await event_of(control, number, "rules")
            fleet = random_fleet(ruleset_named("classic"), random.Random(1)).to_lists()
            await control.request("accept", game=number, fleet=fleet)
            await event_of(control, number, "started")
            await control.request("resign", game=number)  # a game played: it has a rematch
            await event_of(control, number, "closed")
            assert (await host).ending.end is End.RESIGNED
            again = await control.request("rematch", game=number, subscribe=True)
            closed = await event_of(control, int(again["game"]), "closed")
            refusals = []
            for game in (number, again["game"]):
                with pytest.raises(ControlError) as refused:
                    await control.request("rematch", game=game)
                refusals.append(str(refused.value))
            return closed, refusals[0], refusals[1]

    closed, twice, nobody = asyncio.run(scenario(tmp_path / "guest"))
    assert closed["end"] == "no-game", closed
    assert closed["failure"].startswith("Bob is not there for the rematch: cannot connect")
    shown = notice_from_map(closed)
    assert shown is not None and isinstance(shown.notice, notices.Closed)
    polish = shown.notice.failure_in(catalog("pl"))
    assert polish is not None and polish.startswith("Bob nie czeka na rewanż: "), polish
    assert twice == "game 1 has had its rematch"
    assert nobody == "game 2 has no opponent to meet again"


async def event_of(control: ControlClient, number: int, event: str) -> Message:
    """The next event ``event`` of game ``number`` on ``control``."""
    async with asyncio.timeout(WAIT):
        while True:
            message = await control.events.get()
            assert message is not None, "the daemon went away"
            if message.get("game") == number and message["event"] == event:
                return message


def test_a_mute_on_the_first_screen_is_found_by_the_screen_opened_again_which_talks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The player mutes the opponent on the first full screen of a daemon's game (``statki
    host``), kept in the home; that screen goes (its task cancelled, as a closed terminal
    takes it: the daemon plays on).  ``statki resume`` opens a new screen on the game, which
    finds the opponent muted (``m`` there unmutes, and the kept mute goes), and a line typed
    there is said: it is in the log.  One daemon start and a short game: 4-10 s."""

    async def scenario(home: Path) -> str:
        me = player(home, tmp_path)
        me.choose_rules = True
        control = await ControlClient.connect(home)
        assert control is not None
        try:
            with create_pipe_input() as keys, create_app_session(keys, DummyOutput()):
                first = asyncio.ensure_future(
                    netplay._host_game(me, ruleset_named("classic"), None, 0, [])
                )
                number = await game_of(control)
                invite = (await control.request("state", game=number))["state"]["invite"]
                keys.send_text("\r\r")  # the first preset, Enter; the placed fleet, Enter
                guest = asyncio.ensure_future(guest_opponent(invite))
                async with asyncio.timeout(WAIT):
                    while "game-started" not in [
                        value["kind"]
                        for message in [await control.events.get()]
                        if message is not None and message.get("event") == "session"
                        for value in message["events"]
                    ]:
                        pass
                game = str((await control.request("state", game=number))["state"]["game"])
                muted = home / "unfinished" / f"{game}.muted"
                keys.send_text("m")
                await until(muted.exists, "the mute on the first screen is kept in the home")
                first.cancel()  # the screen is gone; the daemon plays on
                await asyncio.gather(first, return_exceptions=True)
            with create_pipe_input() as keys, create_app_session(keys, DummyOutput()):
                again = asyncio.ensure_future(asyncio.to_thread(resume_game, me, game))
                keys.send_text("m")  # the new screen found the opponent muted: m unmutes
                await until(lambda: not muted.exists(), "the new screen starts muted")
                await play_on_screen(
                    control, number, keys, Role.HOST, ruleset_named("classic"), aimed="A1"
                )
                assert (await guest).ending.end is End.RESIGNED
                await asyncio.sleep(1.0)  # the screen's own link hears the end after the test
                assert await leave_the_end_screen(again, keys) == 0
            return game
        finally:
            await control.close()

    with daemon_in(tmp_path / "host") as home:
        game = asyncio.run(scenario(home))
    out = capsys.readouterr().out
    assert f"following game {game[:16]}, which the daemon plays" in out, out
    [log] = list((home / "logs").iterdir())
    judged = judge_log(log.read_bytes())
    assert judged.valid and [line.text for line in judged.talk] == ["hej"], judged.talk


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


def test_a_daemon_gone_is_told_in_the_players_words_at_the_prompt_and_on_the_screen(
    tmp_path: Path,
) -> None:
    """The line prompt following a daemon's game (``statki host --plain``) told a Polish
    player "the daemon went away" in English; the full screen's line had no test."""
    from statki_net.net.control import RemoteHandle

    polish = catalog("pl")

    async def scenario(home: Path, daemon: subprocess.Popen[str]) -> tuple[str, str, str]:
        prompt, watcher = await ControlClient.connect(home), await ControlClient.connect(home)
        assert prompt is not None and watcher is not None
        try:
            reply = await prompt.request("host", rules="classic", subscribe=True)
            number = int(reply["game"])
            await watcher.request("subscribe", game=number, follow=True)
            key, entropy = Ed25519PrivateKey.generate(), random.Random(1).randbytes
            rules = ruleset_named("classic")
            session = Session(Role.HOST, key, name="Ala", entropy=entropy, rules=rules)
            link = DaemonLink(session, watcher, number)
            told: list[object] = []
            link.listen(told.extend)
            stop(daemon)
            async with asyncio.timeout(WAIT):
                await link.follow()
                handle = RemoteHandle(prompt, number)
                while (shown := await handle.next_notice()) is not None:
                    last = shown.notice
            await asyncio.sleep(0)  # the link's last events reach its listener
        finally:
            await prompt.close()
            await watcher.close()
        assert isinstance(last, notices.Closed) and link.closed is not None
        [failed] = [event for event in told if isinstance(event, Failed)]
        return last.failure_in(polish) or "", link.closed.failure_in(polish) or "", str(failed)

    home = tmp_path / "host"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0")
    try:
        line_starting(daemon, "control socket", [])
        at_prompt, on_screen, in_english = asyncio.run(scenario(home, daemon))
    finally:
        stop(daemon)
    assert at_prompt == on_screen == "demon się rozłączył"
    assert "the daemon went away" in in_english, "the log's words stay English"


def test_a_host_through_the_daemon_who_leaves_as_the_battle_begins_resigns(
    tmp_path: Path,
) -> None:
    """q y before the battle reaches the daemon once the battle has begun (the race of the
    toss): the daemon refuses ``leave`` there, so the link resigns instead, rather than
    leave the game to run out of time."""

    async def scenario(home: Path) -> Outcome:
        async with daemon_here(home) as (daemon, control):
            reply = await control.request(
                "host", rules="alternate", follow=True, name="Ala", move_ms=600_000
            )
            session = Session(
                Role.HOST,
                Ed25519PrivateKey.generate(),
                name="Ala",
                entropy=random.Random(2).randbytes,
                rules=ruleset_named("alternate"),
                limits=Limits(600_000, 600_000),
                admit=Admit.INVITE,
            )
            link = DaemonLink(session, control, reply["game"], clock=daemon.clock)
            following = asyncio.ensure_future(follow_games(link))
            try:
                guest = asyncio.ensure_future(guest_opponent(reply["invite"]))

                async def phase() -> object:
                    state = await control.request("state", game=reply["game"])
                    return state["state"].get("phase")

                async with asyncio.timeout(WAIT):
                    while await phase() not in ("shoot", "answer"):
                        if guest.done():
                            break
                        await asyncio.sleep(0.01)
                link.leave()
                async with asyncio.timeout(WAIT):  # not the ten minutes of a move
                    return await guest
            finally:
                following.cancel()
                await asyncio.gather(following, return_exceptions=True)

    outcome = asyncio.run(scenario(tmp_path / "host"))
    assert outcome.ending.end is End.RESIGNED, outcome.ending
    assert outcome.ending.winner is Role.GUEST, outcome.ending

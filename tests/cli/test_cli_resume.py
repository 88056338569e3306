"""``statki resume``: a process killed in the middle of a game is started again and plays it out.

Real processes: ``statki host --bot`` and ``statki join --bot``; one of them is
killed (SIGKILL: no chance to tidy up) once its log holds a given number of
messages, and ``statki resume GAME --bot`` picks the game up from that home.
The other process never stops: it finishes the game over the new connection,
and both logs are valid and hold one transcript.  What a home lists and shows
between the processes is read in this process (the ``cli`` fixture): only the
kill and the resume need processes of their own.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import Cli, Finished
from netproc import env_for, finish, line_starting, start, stop
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app
from statki_client.layout import plain, screen
from statki_client.model import Model, Stage
from statki_client.remote import ConnectionLink, play_over_connection
from statki_client.run import (
    kept_games,
    left_to_resume,
    pick_up_in,
    picked_up_model,
    unfinished_line,
)

from statki_net.cli.netplay import Player
from statki_net.cli.resume import resumed_connection
from statki_net.net.connection import GameConnection
from statki_net.net.control import games_the_daemon_plays
from statki_net.net.invite import parse_invite
from statki_net.net.resume import Redial
from statki_net.protocol.logformat import is_log, read_log
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session
from statki_net.protocol.wire import Role
from statki_net.referee.verify import judge_log
from statki_net.store.claim import GameTaken, claim, is_free
from statki_net.store.history import History
from statki_net.store.identity import load_identity
from statki_net.store.language import speak
from statki_net.store.picked import ChosenToResume
from statki_net.store.unfinished import restore, unfinished_games, why_not_resumed


def only_log(home: Path) -> Path | None:
    logs = list((home / "logs").glob("*.statki")) if (home / "logs").is_dir() else []
    return logs[0] if len(logs) == 1 else None


def frames_in(home: Path) -> int:
    log = only_log(home)
    data = log.read_bytes() if log else b""
    return len(read_log(data).frames) if is_log(data) else 0  # a log just made may be empty


JOINS_ONCE_INVITED = (
    "import sys\n"
    "from statki_net.cli import netplay  # noqa: F401  (imported while the host starts)\n"
    "from statki_net.cli.main import main\n"
    "invite = sys.stdin.readline().strip()\n"
    "sys.stdin.close()\n"
    "sys.exit(main(['join', invite, *sys.argv[1:]]))\n"
)


def join_beside(host: subprocess.Popen[str], home: Path, *args: str) -> subprocess.Popen[str]:
    """``statki join INVITE ARGS`` in a process started beside ``host``'s, told the invite on
    its stdin once the host gives it: the two start-ups overlap, where one after the other
    they were most of a test's time on a loaded machine (at a load of 20, 12 s the host's,
    18 s the guest's)."""
    guest = subprocess.Popen(
        [sys.executable, "-c", JOINS_ONCE_INVITED, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(home),
    )
    try:
        invite = loopback_only(line_starting(host, "statki://", []))
        assert guest.stdin is not None
        guest.stdin.write(invite + "\n")
        guest.stdin.flush()  # left open: communicate() closes it (stop, finish)
    except BaseException:
        stop(guest)
        raise
    return guest


def kill_at(process: subprocess.Popen[str], home: Path, messages: int) -> None:
    deadline = time.monotonic() + 60
    while frames_in(home) < messages:
        assert process.poll() is None, "the game ended before the kill"
        assert time.monotonic() < deadline, f"no {messages} messages in {home}"
        time.sleep(0.005)
    process.kill()
    process.wait(timeout=30)


def in_home(cli: Cli, monkeypatch: pytest.MonkeyPatch, home: Path, *args: str) -> Finished:
    """``statki ARGS`` in this process, in ``home``, as the process would run there."""
    monkeypatch.setenv("STATKI_HOME", str(home))
    return cli(*args, stdin="q\n")


def loopback_only(invite: str) -> str:
    """The invite with its first address only (127.0.0.1): the test dials nothing else."""
    addresses, rest = invite.removeprefix("statki://").split("/", 1)
    return f"statki://{addresses.split(',')[0]}/{rest}"


@pytest.mark.parametrize(
    ("victim", "messages"), [("guest", 10), ("host", 12), ("guest", 41), ("host", 64)]
)
def test_a_killed_side_resumes_its_game_with_statki_resume(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, victim: str, messages: int
) -> None:
    homes = {"host": tmp_path / "host", "guest": tmp_path / "guest"}
    host = start(
        homes["host"], "host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random"
    )
    processes = {"host": host}
    try:
        processes["guest"] = join_beside(host, homes["guest"], "--bot", "random")
        kill_at(processes[victim], homes[victim], messages)
        kept = list((homes[victim] / "unfinished").glob("*.json"))
        assert len(kept) == 1, "the killed side's secrets are kept"
        assert kept[0].stat().st_mode & 0o077 == 0
        game = json.loads(kept[0].read_text())["game"]
        listed = in_home(cli, monkeypatch, homes[victim], "resume")
        assert listed.returncode == 0 and game[:16] in listed.stdout, listed.stdout
        processes[victim] = start(homes[victim], "resume", game[:12], "--bot", "random")
        results = {role: finish(process) for role, process in processes.items()}
    finally:
        for process in processes.values():
            stop(process)
    for role, (status, out, err) in results.items():
        assert status == 0, f"{role}: {out}\n{err}"
    logs = {role: only_log(home) for role, home in homes.items()}
    bodies = {}
    for role, log in logs.items():
        assert log is not None, role
        judgement = judge_log(log.read_bytes())
        assert judgement.valid, f"{role}: {judgement.headline()}"
        bodies[role] = read_log(log.read_bytes()).frames
    assert bodies["host"] == bodies["guest"]
    assert not list((homes[victim] / "unfinished").glob("*.json")), "removed at the end"
    assert in_home(cli, monkeypatch, homes[victim], "resume").stdout.strip() == (
        "no unfinished games"
    )


def test_statki_play_names_the_game_a_killed_guest_left_unfinished(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A guest killed mid-game (real processes); then ``statki play`` in its home says so,
    and ``statki resume`` lists the game by its opponent, rules and turn."""
    homes = {"host": tmp_path / "host", "guest": tmp_path / "guest"}
    hosting = ("host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random")
    host = start(homes["host"], *hosting, "--name", "Ala")
    try:
        guest = join_beside(host, homes["guest"], "--bot", "random", "--name", "Ola")
        kill_at(guest, homes["guest"], 10)
    finally:
        stop(host)
    played = in_home(cli, monkeypatch, homes["guest"], "play", "--plain")
    assert played.returncode == 0, played.stderr
    assert "Unfinished game vs Ala, classic, " in played.stdout, played.stdout
    assert "statki resume picks it up" in played.stdout
    listed = in_home(cli, monkeypatch, homes["guest"], "resume")
    assert listed.returncode == 0 and "  vs Ala, classic, " in listed.stdout, listed.stdout
    assert "statki resume GAME picks one up" in listed.stderr, "and says what to type next"
    first = listed.stdout.splitlines()[0]
    assert len(first) < 80 and "  log:" in listed.stdout, "the log on a line of its own"
    kept = next((homes["guest"] / "unfinished").glob("*.json"))
    kept.unlink()  # the game given up: the next start screen says nothing of it
    again = in_home(cli, monkeypatch, homes["guest"], "play", "--plain")
    assert again.returncode == 0 and "statki resume" not in again.stdout, again.stdout


def test_a_killed_guest_is_picked_up_with_u_and_played_out_on_the_full_screen(
    tmp_path: Path,
) -> None:
    """Real processes for the two sides until the guest is killed mid-battle; then, in this
    process, a first screen in the guest's home, where ``u`` picks the game up, and the full
    screen that resumes it: the shots made before are on it from the start, the game goes
    on to its end against the host still running, and both logs are valid and the same.
    Costs two process starts and a classic game between bots, its last half on the
    screen: 10-20 s on a loaded machine, like the other tests here that kill a process."""
    homes = {"host": tmp_path / "host", "guest": tmp_path / "guest"}
    hosting = ("host", "--port", "0", "--advertise", "127.0.0.1", "--bot", "random")
    host = start(homes["host"], *hosting, "--name", "Ala")
    try:
        guest = join_beside(host, homes["guest"], "--bot", "random", "--name", "Ola")
        kill_at(guest, homes["guest"], 100)  # well into the battle: less to play on screen
        chosen = chosen_on_the_first_screen(homes["guest"])
        model = asyncio.run(played_out_on_screen(homes["guest"], chosen))
        status, out, err = finish(host)
    finally:
        stop(host)
    assert status == 0, f"{out}\n{err}"
    assert model.end_screen is not None
    assert model.end_screen.verdict.startswith(("You won", "You lost"))
    logs = {role: only_log(home) for role, home in homes.items()}
    frames = {}
    for role, log in logs.items():
        assert log is not None, role
        assert judge_log(log.read_bytes()).valid, role
        frames[role] = read_log(log.read_bytes()).frames
    assert frames["host"] == frames["guest"]
    assert not unfinished_games(homes["guest"]), "over: listed no more"


def chosen_on_the_first_screen(home: Path) -> str:
    """A first screen in ``home`` (a guest's, before any game), ``u`` pressed: the game it
    leaves for, as the command line is told (``ChosenToResume``)."""
    speak("en")
    session = Session(Role.GUEST, load_identity(home), name="Ola", entropy=secrets.token_bytes)
    model = Model(
        ConnectionLink(session), random.Random(1), kept=kept_games(home), pick_up=pick_up_in(home)
    )
    assert "Unfinished game vs Ala, classic, " in plain(screen(model))
    with create_pipe_input() as pipe:
        app = build_app(model, input=pipe, output=DummyOutput())
        pipe.send_text("u")
        app.run()
    with pytest.raises(ChosenToResume) as chosen:
        left_to_resume(model)
    return chosen.value.game


async def played_out_on_screen(home: Path, game: str) -> Model:
    """``game`` picked up on the full screen and played to its end: the player fires at the
    first square not shot at whenever it is its turn, and leaves at the end screen."""
    restored = restore(home, game)
    session = restored.session
    history = History.in_home(home)
    player = Player(home, "Ola", None, None, None, on_screen=True)
    rejoin = Redial(parse_invite(restored.kept.invite).addresses)
    conn = resumed_connection(player, restored, rejoin, history)
    told = told_so_far(session, restored.contents)
    model, link = picked_up_model(session, told, connection=conn)
    before = sum(len(session.transcript.sides[role].volleys) for role in Role)
    assert before and len(model.volleys) == before, "the shots made before, on the screen"
    assert model.stage is Stage.BATTLE

    async def connect(_session: Session) -> GameConnection:
        return conn

    with create_pipe_input() as pipe:

        async def play() -> None:
            while model.end_screen is None or not model.end_screen.referee:
                if model.my_turn:
                    model.choose(next(s for s in range(100) if model.refusal(s) is None))
                await asyncio.sleep(0.005)
            pipe.send_text("q")

        # The player runs first, as it would on a screen that shows its move at once;
        # a player that fails is the test's failure at once, not a game left waiting.
        playing = asyncio.ensure_future(play())
        screen_runs = asyncio.ensure_future(
            play_over_connection(model, link, connect, input=pipe, output=DummyOutput())
        )
        try:
            async with asyncio.timeout(45):
                await asyncio.wait({playing, screen_runs}, return_when=asyncio.FIRST_EXCEPTION)
                if playing.done():
                    playing.result()
                await screen_runs
        finally:
            for task in (playing, screen_runs):
                task.cancel()
            await asyncio.gather(playing, screen_runs, return_exceptions=True)
            history.close()
    return model


def test_a_kept_game_is_played_by_one_program_at_a_time(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A new player's front end on a daemon's game was killed; ``statki resume`` listed the
    game and picked it up, a second host for one game beside the daemon still playing it.
    The daemon holds the game's lock; once it is gone (killed: the OS lets the lock go) a
    second ``statki resume`` beside a first is refused in one line, in the player's language.
    Costs one daemon start and a game left waiting for the guest's first move: 2-4 s."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from statki_net.game.fleet import random_fleet
    from statki_net.net import notices
    from statki_net.net.control import ControlClient
    from statki_net.net.dialer import dial

    home = tmp_path / "host"
    playing: list[asyncio.Future[object]] = []  # the guest's game, held while it runs
    loop = asyncio.new_event_loop()

    async def guest_that_never_shoots() -> str:
        """Hosts a game with the daemon's computer and joins it; returns the game's id."""
        control = await ControlClient.connect(home)
        assert control is not None
        reply = await control.request("host", rules="classic", bot="random", move_ms=600_000)
        invite = parse_invite(reply["invite"])
        reader, writer, _ = await dial(invite.addresses)
        session = Session(
            Role.GUEST,
            Ed25519PrivateKey.generate(),
            name="Ola",
            entropy=secrets.token_bytes,
            invite_secret=invite.secret,
        )
        conn = GameConnection(session, reader, writer, log_dir=None, expect_key=invite.key)

        def heard(notice: notices.Notice) -> None:
            if isinstance(notice, notices.Rules):
                conn.accept(random_fleet(notice.rules, random.Random(1)))

        conn.listeners.append(heard)
        playing.append(asyncio.ensure_future(conn.run()))
        async with asyncio.timeout(30):
            while (
                not (state := (await control.request("state", game=reply["game"]))["state"]).get(
                    "game"
                )
                or not (home / "unfinished").exists()
            ):
                await asyncio.sleep(0.05)
        await control.close()
        return str(state["game"])

    daemon = start(home, "daemon", "--listen", "127.0.0.1:0")
    try:
        line_starting(daemon, "control socket", [])
        game = loop.run_until_complete(guest_that_never_shoots())
        runner = threading.Thread(target=loop.run_forever, daemon=True)
        runner.start()  # the guest stays connected while the command runs
        try:
            refused = in_home(cli, monkeypatch, home, "resume", game[:8])
            # The start screens' ``u`` does not offer it either: the same one check, before.
            offered = [kept.game for kept in kept_games(home)]
            listed = [kept.game for kept in unfinished_games(home)]
            named = unfinished_line(home), why_not_resumed(home, game)
            # Told the daemon's games, ``u`` offers it: a new screen follows it there.
            daemon_plays = asyncio.run(games_the_daemon_plays(home))
            followed = [kept.game for kept in kept_games(home, daemon_plays)]
            followed_now = pick_up_in(home, daemon_plays)(game)
            with pytest.raises(GameTaken):
                claim(home, game)  # the daemon holds its game's lock
        finally:
            # The daemon dies first: a guest cancelled while it lives would end the game
            # (its error is the daemon's win), and the game would be forgotten, not kept.
            daemon.kill()
            daemon.wait(30)
            loop.call_soon_threadsafe(loop.stop)
            runner.join(10)
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.close()
    finally:
        stop(daemon)  # killed: the OS lets its lock go, and the game stays kept
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "cannot be resumed: another statki program in this home plays it now" in (
        refused.stderr
    ), "one phrase, the command's and the start screen's"
    assert "resuming game" not in refused.stdout
    assert game in listed and game not in offered
    assert named[0] == "" and named[1] is not None and "another statki program" in named[1]
    assert followed == [game] and followed_now is None
    assert is_free(home, game) and game in [kept.game for kept in kept_games(home)]
    held = claim(home, game)  # a first ``statki resume`` of it, still running
    try:
        second = in_home(cli, monkeypatch, home, "--lang", "pl", "resume", game[:8])
        assert not is_free(home, game) and not kept_games(home)
    finally:
        held.release()
    assert second.returncode == 2 and "resuming" not in second.stdout, second.stdout
    assert "Gry " in second.stderr and "rozgrywa ją teraz inny program statki" in second.stderr, (
        second.stderr
    )
    assert len(second.stderr.strip().splitlines()) == 1, "one line"


def test_a_kept_game_that_cannot_be_read_is_named_not_passed_over(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A damaged file among the kept games (cut short, not JSON, not a kept game): ``statki
    resume`` names each on a line of its own and leaves it; the list goes on as usual."""
    home = tmp_path / "home"
    kept = home / "unfinished"
    kept.mkdir(parents=True)
    (kept / "abc.json").write_text('{"game": "ab', encoding="utf-8")
    (kept / "def.json").write_text("[1, 2]", encoding="utf-8")
    done = in_home(cli, monkeypatch, home, "resume")
    assert done.returncode == 0
    assert done.stdout.strip() == "no unfinished games"
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    for line, name in zip(lines, ("abc.json", "def.json"), strict=True):
        assert line.startswith(f"statki: {kept / name}: a kept game that cannot be read (")
        assert line.endswith("); it is left as it is")
    assert (kept / "abc.json").exists()

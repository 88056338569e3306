"""A game picked up from its log on the full screen, and the first screen's ``u`` that picks it.

In-process and cheap: the game is played back to back (``peers``) up to a
point, its log and this side's secrets written into a home as a game
interrupted there leaves them, and the model starts from the session
``statki_net.store.unfinished.restore`` gives.  Where a connection is needed it
is real (loopback); the clock is hurried where a move limit must run out.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
from pathlib import Path

import pytest
from peers import key_from, log_of, play, seeded_entropy, unknown_squares
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app, press
from statki_client.layout import keys_line, plain, screen
from statki_client.model import Model, Overlay, Stage
from statki_client.remote import play_over_connection
from statki_client.run import kept_games, left_to_resume, pick_up_in, picked_up_model
from test_client_model import game

from statki_net.cli.main import main
from statki_net.cli.netplay import HostReunion, Player
from statki_net.cli.resume import resume_game, resumed_connection, reunion_of
from statki_net.game.fleet import random_fleet
from statki_net.game.rules import ruleset_named
from statki_net.game.words import as_is
from statki_net.net.admission import Admission
from statki_net.net.clock import ScaledClock
from statki_net.net.connection import GameConnection
from statki_net.net.invite import format_invite, parse_address, parse_invite
from statki_net.net.resume import Redial, Rejoin, TakeBack
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.logformat import heard_at
from statki_net.protocol.replay import told_so_far
from statki_net.protocol.session import Session, public_key_bytes
from statki_net.protocol.wire import Admit, Limits, Role, game_tag
from statki_net.referee.verify import judge_log
from statki_net.store.history import History
from statki_net.store.identity import load_identity
from statki_net.store.language import speak
from statki_net.store.picked import ChosenToResume
from statki_net.store.unfinished import Unfinished, keep, restore, unfinished_games

START = 1_764_000_000_000
"""When the kept game's first message was said (ms since 1970)."""
LIMITS = Limits(move_ms=60_000, reveal_ms=60_000)


def dead_port() -> int:
    """A loopback port nobody listens on (bound, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def kept_game(
    home: Path,
    *,
    volleys: int = 12,
    mover: Role = Role.GUEST,
    seed: int = 7,
    played_out: bool = False,
    side: Role = Role.GUEST,
    admit: Admit = Admit.OPEN,
) -> str:
    """A classic game played back to back until ``volleys`` were fired and then until
    ``mover`` is to shoot (``played_out``: to its end), with a line of talk each way; the
    guest's log and secrets kept in ``home`` as its program left them when it stopped
    (before it could remove them, for a game played out); ``side``: the host's kept instead,
    its invite and port with it; ``admit``: whom the host admitted.  The game's id."""
    rules = ruleset_named("classic")
    home.mkdir(parents=True, exist_ok=True)
    mine, theirs = load_identity(home), key_from(seed * 2)
    host = Session(
        Role.HOST,
        mine if side is Role.HOST else theirs,
        name="Ala",
        entropy=seeded_entropy(seed * 3),
        rules=rules,
        limits=LIMITS,
        fleet=random_fleet(rules, random.Random(seed)),
        admit=admit,
        tag=game_tag(bytes(16)) if admit is Admit.INVITE else None,
    )
    guest = Session(
        Role.GUEST,
        theirs if side is Role.HOST else mine,
        name="Olek",
        entropy=seeded_entropy(seed * 3 + 1),
        invite_secret=bytes(16) if admit is Admit.INVITE else None,
    )
    pair = BackToBack(host, guest, now=START)
    play(pair, seed, stop_after=2)
    pair.record(Role.HOST, host.say("powodzenia", pair.now))
    pair.record(Role.GUEST, guest.say("nawzajem", pair.now))
    pair.pump()
    shots = 2
    while shots < volleys or not pair.session(mover).my_turn:
        shots += 1
        play_one(pair)
    while played_out and not guest.closed:
        play_one(pair)
    kept = pair.session(side)
    assert kept.closed is played_out and kept.secrets is not None
    game = kept.transcript.game.hex()
    log = home / "logs" / f"{game[:16]}.statki"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(log_of(pair.events[side], side))
    port = dead_port()
    invite = format_invite(
        [parse_address(f"127.0.0.1:{port}", 0)], public_key_bytes(host.key), bytes(16)
    )
    name = "Ala" if side is Role.HOST else "Olek"
    keep(home, Unfinished(game, side, name, log, kept.secrets, invite=invite, port=port))
    return game


def play_one(pair: BackToBack) -> None:
    """One volley by whoever is to shoot, at the first squares it knows nothing of."""
    mover = next(s for s in (pair.host, pair.guest) if s.my_turn)
    view = mover.view
    assert view is not None
    unknown = unknown_squares(view)
    pair.record(mover.role, mover.shoot(tuple(unknown[: mover.shots_due]), pair.now))
    pair.now += 1000
    pair.pump()


def picked_up(home: Path, game: str) -> Model:
    restored = restore(home, game)
    model, _link = picked_up_model(
        restored.session, told_so_far(restored.session, restored.contents)
    )
    return model


def test_a_game_picked_up_from_its_log_shows_it_where_it_stood(tmp_path: Path) -> None:
    """Every shot and answer on both seas, whose move, the talk, and the clock counted from
    the last message (not from when this side came back)."""
    speak("en")
    game = kept_game(tmp_path)
    restored = restore(tmp_path, game)
    session = restored.session
    model, _link = picked_up_model(session, told_so_far(session, restored.contents))
    # The host's last message came to this side's log at `got` (its own clock): the
    # connection starts the session when it runs, 20 s after that.
    last = heard_at(restored.contents, session.transcript.frames, Role.GUEST)
    assert last is not None
    model.handle(session.start(last + 20_000))
    t = session.transcript
    assert model.stage is Stage.BATTLE and model.my_turn
    assert [(v.mine, v.squares) for v in model.volleys] == [
        (volley_side is Role.GUEST, volley.shots)
        for volley_side, volley in sorted(
            ((role, v) for role in Role for v in t.sides[role].volleys),
            key=lambda pair: pair[1].move,
        )
    ], "every volley so far, in order, as the screen's last shots tell them"
    assert model.opponent_name == "Ala" and model.first is not None
    text = plain(screen(model, now=last + 20_000))
    assert "YOUR TURN" in text
    assert "You have 40 s left for your move." in text, text
    assert "powodzenia" in text and "nawzajem" in text, "the talk so far"
    hit_or_miss = [line for line in text.splitlines() if ": miss" in line or ": hit" in line]
    assert hit_or_miss, "the last shots are told"
    assert model.defence is not None and model.defence.shot, "this side's sea, shot at"


def test_the_first_screens_u_picks_the_one_kept_game_up(tmp_path: Path) -> None:
    speak("en")
    kept = kept_game(tmp_path / "home")
    model, _history = game(tmp_path)  # statki play's first screen: placing the fleet
    model.kept, model.pick_up = kept_games(tmp_path / "home"), pick_up_in(tmp_path / "home")
    text = plain(screen(model))
    assert "Unfinished game vs Ala, classic, your move: u picks it up" in text, text
    assert "u resume" in keys_line(model)
    with create_pipe_input() as pipe:
        app = build_app(model, input=pipe, output=DummyOutput())
        pipe.send_text("u")
        app.run()  # the screen closes: the player left it for the game
    assert model.picked == kept and model.done
    try:
        left_to_resume(model)
    except ChosenToResume as chosen:
        assert chosen.game == kept
    else:
        raise AssertionError("the command is not told to resume the game")


def test_of_several_kept_games_u_lists_them_and_a_digit_picks_one(tmp_path: Path) -> None:
    speak("en")
    home = tmp_path / "home"
    first, second = kept_game(home, seed=7), kept_game(home, seed=8, mover=Role.HOST)
    model, _history = game(tmp_path)
    model.kept, model.pick_up = kept_games(home), pick_up_in(home)
    assert "Unfinished games: 2; u picks one up" in plain(screen(model))
    press(model, "u")
    assert model.overlay is Overlay.PICK and model.picked is None
    listed = plain(screen(model))
    assert "1. vs Ala, classic, " in listed and "2. vs Ala, classic, " in listed
    press(model, "down")
    press(model, "escape")
    assert model.overlay is None and model.picked is None
    press(model, "u")
    press(model, "2")
    assert model.picked == [g.game for g in model.kept][1] and model.picked in (first, second)


def test_a_game_that_cannot_be_picked_up_says_why_in_one_line(tmp_path: Path) -> None:
    """A damaged log, secrets gone, a game over already: one line, and the game leaves the
    list (one that is over leaves the home's list too)."""
    speak("en")
    home = tmp_path / "home"
    damaged, gone = kept_game(home, seed=7), kept_game(home, seed=8)
    over = kept_game(home, seed=9, played_out=True)  # killed before it removed its secrets
    next(g for g in unfinished_games(home) if g.game == damaged).log.write_bytes(b"not a log")
    model, _history = game(tmp_path)
    model.kept, model.pick_up = kept_games(home), pick_up_in(home)
    (home / "unfinished" / f"{gone}.json").unlink()  # gone since the screen listed it
    for game_id, why in [
        (damaged, "its log is damaged"),
        (gone, "its secrets are gone"),
        (over, "it is over already"),
    ]:
        model.pick(next(i for i, k in enumerate(model.kept) if k.game == game_id))
        assert model.picked is None and model.trouble
        assert model.notice == f"Game {game_id[:8]} cannot be resumed: {why}"
        assert model.notice in plain(screen(model)), "one line on the screen"
        assert game_id not in [k.game for k in model.kept]
    kept_now = [g.game for g in unfinished_games(home)]
    assert over not in kept_now, "over: listed no more"
    assert damaged in kept_now, "damaged: still the player's to look into"
    assert not model.kept and "u picks" not in plain(screen(model))


def test_statki_resume_of_a_game_over_leaves_no_lock_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``statki resume`` locks the game before reading it; one found over is forgotten, and
    its lock file goes with it (in process, no connection: about 0.5 s)."""
    speak("en")
    home = tmp_path / "home"
    over = kept_game(home, played_out=True)
    assert main(["--home", str(home), "resume", over[:8]]) != 0
    assert "it is over already" in capsys.readouterr().err
    assert not list((home / "unfinished").iterdir()), "nothing of the game is left"


def test_a_move_made_the_moment_a_picked_up_game_shows_is_carried(tmp_path: Path) -> None:
    """The screen of a game picked up shows this side's move from the start, before the
    screen's games have had a turn of the loop: a move made then (a player scheduled
    first) is the link's to carry, signed into the log while apart, and the game goes on
    from it.  (The link once had no connection until ``run_games`` attached it: the move
    raised "not connected yet", the player's task died, and the game waited for a shot.)
    In-process, no connection is made (the invite's address is dead): about 0.1 s."""
    speak("en")
    home = tmp_path / "home"
    restored = restore(home, kept_game(home))
    session = restored.session
    player = Player(home, "Olek", None, None, None, on_screen=True)
    before = len(session.transcript.frames)
    history = History.in_home(home)

    async def main() -> None:
        rejoin = Redial(parse_invite(restored.kept.invite).addresses)
        conn = resumed_connection(player, restored, rejoin, history)
        told = told_so_far(session, restored.contents)
        model, _link = picked_up_model(session, told, connection=conn)
        assert model.my_turn
        assert model.choose(next(s for s in range(100) if model.refusal(s) is None))
        assert len(session.transcript.frames) == before + 1, "the shot, signed while apart"
        running = asyncio.ensure_future(conn.run())
        await asyncio.sleep(0.05)  # the connection starts after the move, and redials
        assert not running.done() and not model.my_turn, "the host's turn now: it waits"
        conn.stop(as_is("the test is over"))
        await running

    try:
        asyncio.run(main())
    finally:
        history.close()
    assert judge_log(restored.kept.log.read_bytes()).valid, "the move and what came after"


def test_a_picked_up_game_whose_opponent_does_not_come_back_is_won_on_time(
    tmp_path: Path,
) -> None:
    """The host is to move and never comes back (its address is dead): a move limit from
    when this side came back, the guest claims the game on time, and the screen says so.
    A clock 400 times fast makes the minute 0.15 s."""
    speak("en")
    home = tmp_path / "home"
    game_id = kept_game(home, mover=Role.HOST)
    clock = ScaledClock(400)
    player = Player(home, "Olek", None, None, None, on_screen=True, clock=clock)
    restored = restore(home, game_id)
    session = restored.session
    model, link = picked_up_model(session, told_so_far(session, restored.contents))
    assert model.stage is Stage.BATTLE and not model.my_turn
    kept = restored.kept
    history = History.in_home(home)

    async def main() -> None:
        rejoin = Redial(parse_invite(kept.invite).addresses)

        async def connect(_session: Session) -> GameConnection:
            return resumed_connection(player, restored, rejoin, history)

        with create_pipe_input() as pipe:

            async def leave_at_the_end() -> None:
                while model.end_screen is None or not model.end_screen.referee:
                    await asyncio.sleep(0.01)
                pipe.send_text("q")

            leaving = asyncio.ensure_future(leave_at_the_end())
            await asyncio.wait_for(
                play_over_connection(model, link, connect, input=pipe, output=DummyOutput()),
                timeout=30,
            )
            await leaving

    try:
        asyncio.run(main())
    finally:
        history.close()
    end = model.end_screen
    assert end is not None
    assert end.verdict == "You won on time: the opponent ran out of time"
    assert "You won on time" in plain(screen(model))
    assert judge_log(kept.log.read_bytes()).valid
    assert not unfinished_games(home), "the game is over: listed no more"


@pytest.mark.parametrize("side", [Role.HOST, Role.GUEST])
def test_a_game_picked_up_offers_a_rematch_at_its_end_on_either_side(
    tmp_path: Path, side: Role
) -> None:
    """Picked up with u, the host's end screen offered no rematch while the guest's did: each
    side now meets the other again as the game begun on its screen would (its reunion).
    The opponent never comes back: this side wins on time (a clock 400 times fast)."""
    speak("en")
    home = tmp_path / "home"
    game_id = kept_game(home, mover=side.other, side=side)
    clock = ScaledClock(400)
    player = Player(home, "Ala", None, None, None, on_screen=True, clock=clock)
    restored = restore(home, game_id)
    session, kept = restored.session, restored.kept
    history = History.in_home(home)
    reunion = reunion_of(player, kept, history, before=lambda: None, session=session)
    model, link = picked_up_model(session, told_so_far(session, restored.contents), reunion=reunion)
    rejoin: Rejoin = (
        TakeBack(Admission(clock=clock))
        if side is Role.HOST
        else Redial(parse_invite(kept.invite).addresses)
    )

    async def main() -> None:
        async def connect(_session: Session) -> GameConnection:
            return resumed_connection(player, restored, rejoin, history)

        with create_pipe_input() as pipe:

            async def leave_at_the_end() -> None:
                while model.end_screen is None or not model.end_screen.referee:
                    await asyncio.sleep(0.01)
                offered.append(model.can_rematch and "r rematch" in keys_line(model))
                pipe.send_text("q")

            offered: list[bool] = []
            leaving = asyncio.ensure_future(leave_at_the_end())
            await asyncio.wait_for(
                play_over_connection(model, link, connect, input=pipe, output=DummyOutput()),
                timeout=30,
            )
            await leaving
            assert offered == [True], "r rematch at the end"

    try:
        asyncio.run(main())
    finally:
        if isinstance(reunion, HostReunion):
            reunion.close()
        history.close()
    end = model.end_screen
    assert end is not None
    assert end.verdict.startswith("You won on time"), end.verdict


# ---------------------------------------------------------------- screens, in both languages
# (``test_client_languages.SCREENS``)


def picked_up_battle(tmp_path: Path) -> Model:
    """The battle picked up from its log, the guest to move."""
    home = tmp_path / "home"
    return picked_up(home, kept_game(home))


def first_screen_kept(tmp_path: Path, count: int = 1) -> Model:
    """``statki play``'s first screen in a home keeping ``count`` games ``u`` picks up."""
    home = tmp_path / "home"
    for seed in range(count):
        kept_game(home, seed=7 + seed, mover=Role.HOST if seed else Role.GUEST)
    model, _history = game(tmp_path)
    model.kept, model.pick_up = kept_games(home), pick_up_in(home)
    return model


def kept_list(tmp_path: Path) -> Model:
    model = first_screen_kept(tmp_path, 2)
    press(model, "u")
    return model


def kept_refused(tmp_path: Path) -> Model:
    """``u`` on a game whose log is damaged: the one line why it cannot be resumed."""
    model = first_screen_kept(tmp_path, 1)
    next(iter(unfinished_games(tmp_path / "home"))).log.write_bytes(b"not a log")
    press(model, "u")
    return model


def test_statki_resume_plays_a_kept_game_on_the_full_screen_to_its_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``resume_game`` as ``statki resume GAME`` runs it for a person at a terminal (the
    terminal is a pipe and a dummy output here): the full screen opens, the host never
    comes back, the game is won on time (a clock 400 times fast), the player leaves the end
    screen with q, and the command says how it ended, as ``statki join`` does."""
    speak("en")
    home = tmp_path / "home"
    game_id = kept_game(home, mover=Role.HOST)
    player = Player(home, "Olek", None, None, None, on_screen=True, clock=ScaledClock(400))
    returned = threading.Event()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):

        def leave() -> None:  # q until the screen closes: at the end screen q leaves
            while not returned.wait(0.05):
                pipe.send_text("q")

        leaving = threading.Thread(target=leave, daemon=True)
        leaving.start()
        try:
            status = resume_game(player, game_id)
        finally:
            returned.set()
            leaving.join(timeout=5)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "resuming game" in out and "verdict: " in out and "on time" in out, out
    assert not unfinished_games(home)

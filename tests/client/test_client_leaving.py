"""Leaving a game, and the lines around the start of a battle (issue 14).

Screens are drawn at 80x24 in English and in Polish from the real model: a
local game against the computer, and a guest's and a host's model over a
``ConnectionLink`` fed the session's own events.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from netgames import connected, sessions
from peers import deliver_one, make_pair
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from statki_client.keys import build_app
from statki_client.layout import cut_short, plain, screen
from statki_client.model import Model, Overlay, Stage
from statki_client.remote import ConnectionLink
from test_client_model import game
from test_client_netscreen import guest_arrives, host_model

from statki_net.game.fleet import random_fleet
from statki_net.game.rules import PRESETS, ruleset_named
from statki_net.net.clock import WALL_CLOCK, ScaledClock
from statki_net.net.connection import LEFT_BEFORE_THE_BATTLE, Outcome
from statki_net.protocol.backtoback import BackToBack
from statki_net.protocol.endings import End
from statki_net.protocol.errors import Code
from statki_net.protocol.phases import PHASES, Period, Phase
from statki_net.protocol.wire import Role
from statki_net.store.language import catalog, speak

LANGUAGES = ("en", "pl")


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    speak(request.param)
    try:
        yield request.param
    finally:
        speak("en")


def drawn(model: Model) -> str:
    """The screen at 80x24, checked to cut nothing."""
    assert not cut_short(model)
    return plain(screen(model))


def toss_words(language: str) -> tuple[str, str]:
    """The two lines of a toss as the language says them, each without the name."""
    said = catalog(language)
    theirs = said.gettext("{Them} won the toss and shoots first").replace("{Them}", "")
    return said.gettext("You won the toss: you shoot first"), theirs.strip()


COMPUTER_FIRST = 7
"""A game seed (``test_client_model.game``) whose toss the computer wins."""
PLAYER_FIRST = 5
"""One whose toss the player wins."""


def homes(tmp_path: Path, *names: str) -> list[Path]:
    for name in names:
        (tmp_path / name).mkdir()
    return [tmp_path / name for name in names]


def test_who_won_the_toss_is_said_until_the_first_volley_only(
    tmp_path: Path, language: str
) -> None:
    """The line "Ala won the toss and shoots first" stayed on the screen after the shots began: the
    computer shot first, and the line was still there on the player's turn."""
    mine, theirs = toss_words(language)
    computer_first, player_first = homes(tmp_path, "theirs", "mine")
    model, history = game(computer_first, seed=COMPUTER_FIRST)
    model.ready()  # the computer wins the toss and fires at once
    assert model.first is Role.GUEST and model.volleys and not model.volleys[0].mine
    assert model.my_turn
    assert theirs not in drawn(model)
    history.close()

    model, history = game(player_first, seed=PLAYER_FIRST)
    model.ready()
    assert model.first is Role.HOST and not model.volleys
    assert mine in drawn(model), "the start of the battle says it"
    history.close()


def decision_timed_out() -> BackToBack:
    """A classic game whose guest never decides on the host's rules: the host claims."""
    pair = make_pair(PRESETS["classic"], seed=14)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    assert pair.guest.transcript.phase is Phase.DECISION
    while pair.wait_out():
        pass
    assert pair.host.closed and pair.guest.closed
    return pair


def end_screen_of(pair: BackToBack, role: Role) -> str:
    session = pair.session(role)
    model = Model(ConnectionLink(session), random.Random(3))
    model.handle(pair.events[role])
    assert model.stage is Stage.OVER
    return drawn(model)


def test_a_rules_decision_that_timed_out_is_worded_for_its_reader(language: str) -> None:
    """The guest read "gość nie zdecydował na czas o zasadach", told of itself as "the
    guest"; the host reads of the guest, the guest of itself."""
    said = catalog(language)
    pair = decision_timed_out()
    seq = len(pair.host.transcript.frames) - 1
    guest_words = said.gettext("you did not decide on the rules in time (message {seq})")
    host_words = said.gettext("the guest did not decide on the rules in time (message {seq})")
    guest_screen = " ".join(end_screen_of(pair, Role.GUEST).split())
    host_screen = " ".join(end_screen_of(pair, Role.HOST).split())
    assert guest_words.format(seq=seq) in guest_screen, guest_screen
    assert host_words.format(seq=seq) not in guest_screen
    assert host_words.format(seq=seq) in host_screen, host_screen
    # The log and a referee keep the third person.
    ending = pair.guest.transcript.ending
    assert ending is not None and str(ending.reason).startswith("the guest did not decide")


WAIT = 30.0
"""Longest wait for a step of a game over loopback (a bound, not a timing)."""


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT):
        while not condition():
            await asyncio.sleep(0.005)


async def resign_with_q_y(tmp_path: Path, first: Role) -> tuple[str, bool]:
    """The guest's screen over loopback TCP; the host, driven here, shoots first when
    ``first`` says so.  q y on the guest's screen in the battle (its own turn when it shoots
    first, else the host's, which then shoots): the end screen, and whether the screen was
    still running on it."""
    host, guest = sessions(ruleset_named("alternate"), 14, first=first)
    async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
        host_conn,
        guest_conn,
        _,
    ):
        link = ConnectionLink(guest)
        model = Model(link, random.Random(3))
        link.attach(guest_conn)
        games = asyncio.gather(host_conn.run(), guest_conn.run())
        with create_pipe_input() as keys:
            app = build_app(model, input=keys, output=DummyOutput())
            link.on_change = app.invalidate
            running = asyncio.ensure_future(app.run_async())
            try:
                await until(lambda: model.must_decide)
                keys.send_text("\r")  # Enter accepts the rules with the fleet placed
                await until(lambda: model.stage is Stage.BATTLE and model.first is not None)
                await until(lambda: model.my_turn is (first is Role.GUEST))
                keys.send_text("q")
                await until(lambda: model.overlay is Overlay.QUIT)
                keys.send_text("y")
                if first is Role.HOST:  # the resignation waits for the guest's turn
                    await until(lambda: model.resign_pending or running.done())
                    host_conn.shoot((0,))
                await until(lambda: model.end_screen is not None and bool(model.end_screen.referee))
                await asyncio.sleep(0.2)  # a screen that leaves by itself has left by now
                shown, stayed = drawn(model), not running.done()
                keys.send_text("q")  # q leaves the end screen at once
                async with asyncio.timeout(WAIT):
                    await running
            finally:
                if not running.done():
                    app.exit()
                await games
    return shown, stayed


@pytest.mark.parametrize("first", [Role.GUEST, Role.HOST], ids=["own-turn", "their-turn"])
def test_a_resignation_shows_the_end_screen_in_either_turn(
    tmp_path: Path, language: str, first: Role
) -> None:
    """q y in one's own turn left at once, without the end screen; in the opponent's it
    stayed on it: both now resign onto the end screen, its verdict and the reveal shown."""
    said = catalog(language)
    shown, stayed = asyncio.run(resign_with_q_y(tmp_path, first))
    assert stayed, "the screen left before its end screen was read"
    assert said.gettext("You resigned: the opponent wins") in shown, shown
    assert said.gettext(" (never revealed)").strip() not in shown, "the reveal is shown"


def quit_question(model: Model) -> str:
    """The question q asks, as the 80x24 screen draws it, on one line."""
    model.ask_quit()
    assert model.overlay is Overlay.QUIT
    return " ".join(drawn(model).split())


def test_the_hosts_quit_question_says_what_leaving_does_once_a_guest_came(
    language: str,
) -> None:
    """Through a daemon, with a guest already come, q asked "Quit? No game has started."
    while the daemon played on and the guest waited to claim the game on time."""
    said = catalog(language)
    model = host_model()
    model.ready()
    assert said.gettext("Quit? No game has started. (y/n)") in quit_question(model)
    model.cancel_quit()
    guest_arrives(model)
    here = said.gettext(
        "Quit? The opponent has come, but no game began: it ends, nobody wins (y/n)"
    )
    assert here in quit_question(model)


def in_setup() -> BackToBack:
    """A classic game whose guest has accepted, its coin toss still to come."""
    pair = make_pair(PRESETS["classic"], seed=14)
    pair.record(Role.HOST, pair.host.start(pair.now))
    rules = PRESETS["classic"]
    while PHASES[pair.host.transcript.phase].period is not Period.SETUP:
        if pair.guest.transcript.phase is Phase.DECISION:
            fleet = random_fleet(rules, random.Random(1))
            pair.record(Role.GUEST, pair.guest.accept(fleet, pair.now))
        assert deliver_one(pair), "the game stopped before its coin toss"
    return pair


def test_leaving_once_the_guest_accepted_is_said_to_forfeit(language: str) -> None:
    said = catalog(language)
    pair = in_setup()
    model = Model(ConnectionLink(pair.host), random.Random(3))
    model.handle(pair.events[Role.HOST])
    assert said.gettext("Quit now and you forfeit: the opponent wins. Quit? (y/n)") in (
        quit_question(model)
    )


def left_in_the_decision() -> BackToBack:
    """The host's player left while the guest decided: the host's error, at once."""
    pair = make_pair(PRESETS["classic"], seed=14)
    pair.record(Role.HOST, pair.host.start(pair.now))
    pair.pump()
    assert pair.guest.transcript.phase is Phase.DECISION
    left = LEFT_BEFORE_THE_BATTLE
    pair.record(Role.HOST, pair.host.abort(Code.CLOSED, str(left), pair.now, said=left))
    pair.pump()
    assert pair.guest.closed
    return pair


def test_a_guest_whose_host_left_before_the_battle_is_told_so_in_its_words(
    language: str,
) -> None:
    """The guest read "The opponent stopped the game: the player left before the battle",
    the host's English detail on a Polish screen."""
    said = catalog(language)
    pair = left_in_the_decision()
    shown = " ".join(end_screen_of(pair, Role.GUEST).split())
    left = said.gettext("{Them} left before the battle: there is no game").format(Them="Ala")
    why = said.gettext("the {sender} left before the battle: no game began (message {seq})")
    host = said.gettext("host")
    assert left in shown, shown
    seq = len(pair.guest.transcript.frames) - 1  # the host's error
    assert why.format(sender=host, seq=seq) in shown, shown
    assert "the player left before the battle" not in shown or language == "en"


def test_a_host_who_quits_while_the_guest_decides_ends_the_game_at_once(
    tmp_path: Path,
) -> None:
    """In-process over loopback: q y on the host's screen stops the game there (no game);
    the guest no longer waits a move limit for its claim."""

    async def scenario() -> Outcome:
        host, guest = sessions(ruleset_named("alternate"), 15)
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(tmp_path, None)) as (
            host_conn,
            guest_conn,
            _,
        ):
            link = ConnectionLink(host)
            model = Model(link, random.Random(3))
            link.attach(host_conn)
            games = asyncio.gather(host_conn.run(), guest_conn.run())
            await until(lambda: guest.transcript.phase is Phase.DECISION)
            await until(lambda: bool(model.opponent_key))
            model.ask_quit()
            model.confirm_quit()
            async with asyncio.timeout(WAIT):
                _, outcome = await games
            return outcome

    outcome = asyncio.run(scenario())
    assert outcome.ending.end is End.NO_GAME and outcome.failure is not None
    assert outcome.failure.by_peer


def test_the_referees_line_on_a_timed_out_decision_is_worded_for_its_reader(
    tmp_path: Path, language: str
) -> None:
    """Over loopback on a clock 200 times fast, the guest never decides and the host claims:
    the guest's end screen, the referee's line on its own log included, tells it of itself
    ("you did not decide"), never as "the guest"."""
    said = catalog(language)
    logs = tmp_path / "host", tmp_path / "guest"

    async def scenario() -> str:
        host, guest = sessions(ruleset_named("alternate"), 16)
        async with connected(host, guest, clock=ScaledClock(200), log_dirs=logs) as (
            host_conn,
            guest_conn,
            _,
        ):
            link = ConnectionLink(guest)
            model = Model(link, random.Random(3))
            link.attach(guest_conn)
            async with asyncio.timeout(WAIT):
                await asyncio.gather(host_conn.run(), guest_conn.run())
            await until(lambda: model.end_screen is not None and bool(model.end_screen.referee))
            return " ".join(drawn(model).split())

    shown = asyncio.run(scenario())
    mine = said.gettext("you did not decide on the rules in time (message {seq})")
    theirs = said.gettext("the guest did not decide on the rules in time (message {seq})")
    assert mine.format(seq=2) in shown, shown
    assert theirs.format(seq=2) not in shown, shown
    assert shown.count(mine.format(seq=2)) == 2, "the referee's line and the reason"


def test_leaving_once_the_battle_began_meanwhile_resigns(tmp_path: Path) -> None:
    """q y pressed before the battle reaches the link only once it has begun (the race of
    the toss): ``leave`` is refused there, so the player resigns instead of playing on."""

    async def scenario() -> Outcome:
        host, guest = sessions(ruleset_named("alternate"), 14, first=Role.GUEST)
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _,
        ):
            link = ConnectionLink(guest)
            Model(link, random.Random(3))
            link.attach(guest_conn)
            games = asyncio.gather(host_conn.run(), guest_conn.run())
            await until(lambda: guest.transcript.phase is Phase.DECISION)
            guest_conn.accept(random_fleet(ruleset_named("alternate"), random.Random(4)))
            await until(lambda: PHASES[guest.transcript.phase].period is Period.BATTLE)
            await until(lambda: guest.transcript.speaker() is Role.GUEST)
            link.leave()
            async with asyncio.timeout(WAIT):
                _, outcome = await games
            return outcome

    outcome = asyncio.run(scenario())
    assert outcome.ending.end is End.RESIGNED, outcome.ending
    assert outcome.ending.winner is Role.HOST


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_second_q_y_while_the_resignation_waits_leaves_and_it_still_goes_out(
    tmp_path: Path, language: str
) -> None:
    """q y in the opponent's turn held the player on the screen until its turn came, a
    second q only repeating that it resigns then: now a second q y leaves at once, and
    the resignation goes out as this side's next word all the same."""
    speak(language)
    said = catalog(language)

    async def scenario() -> tuple[str, Outcome]:
        host, guest = sessions(ruleset_named("alternate"), 14, first=Role.HOST)
        async with connected(host, guest, clock=WALL_CLOCK, log_dirs=(None, tmp_path)) as (
            host_conn,
            guest_conn,
            _,
        ):
            link = ConnectionLink(guest)
            model = Model(link, random.Random(3))
            link.attach(guest_conn)
            games = asyncio.gather(host_conn.run(), guest_conn.run())
            with create_pipe_input() as keys:
                app = build_app(model, input=keys, output=DummyOutput())
                link.on_change = app.invalidate
                running = asyncio.ensure_future(app.run_async())
                try:
                    await until(lambda: model.must_decide)
                    keys.send_text("\r")
                    await until(lambda: model.stage is Stage.BATTLE and model.first is not None)
                    keys.send_text("q")
                    await until(lambda: model.overlay is Overlay.QUIT)
                    keys.send_text("y")
                    await until(lambda: model.resign_pending)
                    keys.send_text("q")
                    await until(lambda: model.overlay is Overlay.QUIT)
                    question = drawn(model)
                    keys.send_text("y")
                    async with asyncio.timeout(WAIT):  # it leaves before its turn comes
                        await running
                    host_conn.shoot((0,))
                    async with asyncio.timeout(WAIT):
                        _, outcome = await games
                finally:
                    if not running.done():
                        app.exit()
                    games.cancel()
                    await asyncio.gather(games, return_exceptions=True)
        return question, outcome

    try:
        question, outcome = asyncio.run(scenario())
    finally:
        speak("en")
    leave = said.gettext("Leave now? Your resignation still goes out when your turn comes (y/n)")
    assert leave in " ".join(question.split()), question
    assert outcome.ending.end is End.RESIGNED and outcome.ending.winner is Role.HOST

"""Entry points the command line calls: the thin layer with files, stdin and the terminal."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from statki_net.ai.computer import ComputerPlayer, check_strategy
from statki_net.ai.strength import Strength
from statki_net.game.rules import PRESETS, Ruleset
from statki_net.net.connection import GameConnection, Outcome
from statki_net.net.control import games_the_daemon_plays
from statki_net.net.notices import Closed
from statki_net.net.thinking import unpredictable
from statki_net.protocol.session import Session
from statki_net.store.claim import is_free
from statki_net.store.history import History
from statki_net.store.identity import load_identity
from statki_net.store.picked import ChosenToResume
from statki_net.store.unfinished import (
    glance,
    keep_muted,
    kept_muted,
    unfinished_games,
    why_not_resumed,
)

from .daemon_link import DaemonLink, follow_games, last_link
from .keys import build_app
from .kinds import Link, Told
from .local import Chooser, LocalGame
from .model import BEFORE_THE_BATTLE, HistorySource, Model, Stage
from .pickup import KeptGame, PickUp, unfinished_words
from .plain import run_plain
from .remote import CLOSE_GRACE, ConnectionLink, Reunion, play_over_connection
from .talk import RememberMute

HISTORY_ROWS = 50


def computer_chooser(player: str, rng: random.Random) -> Chooser:
    """The computer player named ``player`` (a strategy or a strength) with ``rng`` bound."""
    return ComputerPlayer(check_strategy(player), rng).volley


def unfinished_line(home: Path, daemon_plays: frozenset[str] = frozenset()) -> str:
    """The start screen's line on the games ``statki resume`` can pick up now (free, or
    followed anew where the daemon plays them: ``daemon_plays``); empty: none."""
    return unfinished_words([kept.glance for kept in kept_games(home, daemon_plays)])


def kept_games(home: Path, daemon_plays: frozenset[str] = frozenset()) -> tuple[KeptGame, ...]:
    """The games kept in ``home`` for resuming, oldest first, each as far as its log tells:
    those no program plays now (``statki_net.store.claim.is_free``), and those the daemon
    running there plays (``daemon_plays``, ``games_the_daemon_plays``: a new screen follows
    them); not those another ``statki resume`` plays, which would be refused after the
    screen."""
    return tuple(
        KeptGame(kept.game, glance(kept))
        for kept in unfinished_games(home)
        if kept.game in daemon_plays or is_free(home, kept.game)
    )


def pick_up_in(home: Path, daemon_plays: frozenset[str] = frozenset()) -> PickUp:
    """The check ``u`` makes on the first screen before it leaves for a game kept in
    ``home``: None when it can be resumed (or, the daemon's, followed), else the line why
    not."""
    return lambda game: None if game in daemon_plays else why_not_resumed(home, game)


def left_to_resume(model: Model) -> None:
    """After the screen closed: raise ``ChosenToResume`` when the player left it for a kept
    game (the command goes on with that game: ``statki_net.cli.resume``)."""
    if model.picked is not None:
        raise ChosenToResume(model.picked)


def history_source(history: History) -> HistorySource:
    return lambda: (history.games(HISTORY_ROWS), history.tally("opponent"))


def wants_plain(plain: bool) -> bool:
    """The line prompt when asked for, or when there is no terminal to draw on."""
    if plain or os.environ.get("TERM") == "dumb":
        return True
    return not (_terminal(sys.stdin) and _terminal(sys.stdout))


def _terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal; a closed one (None: Python found no fd) is not."""
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def read_line(prompt: str) -> str | None:
    """A line typed at ``prompt``; None at the end of the input, or of a standard input
    that is closed or cannot be read (the game in progress resigns, as at the end)."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    try:
        line = sys.stdin.readline() if sys.stdin is not None else ""
    except (OSError, ValueError):
        line = ""
    if not line:
        sys.stdout.write("\n")
        return None
    return line.rstrip("\r\n")


def write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def play_computer(
    rules: Ruleset,
    *,
    home: Path,
    strategy: str,
    placement: str | None = None,
    name: str,
    plain: bool,
    seed: int | None = None,
    choose_rules: bool = False,
    fleet_text: str = "",
    choose_strength: bool = False,
) -> Path | None:
    """``statki play``: the player hosts, the computer joins, in this process.

    With ``choose_rules`` the full screen opens on the rules screen, ``rules``
    preselected; the line prompt plays ``rules`` as given.  With
    ``choose_strength`` (and a rules screen) the screen offers the computer's
    strengths too, ``strategy`` preselected where it is one.  Returns the game's log (None
    without one), for the command line to say where it is.
    """
    rng: random.Random = random.Random(seed) if seed is not None else unpredictable()
    chooser = computer_chooser(strategy, rng)
    key = load_identity(home)
    history = History.in_home(home)
    try:
        link = LocalGame(
            rules,
            key,
            name=name,
            strategy=strategy,
            placement=placement,
            chooser=chooser,
            rng=rng,
            home=home,
            history=history,
        )
        on_screen = not wants_plain(plain)
        daemon_plays = asyncio.run(games_the_daemon_plays(home))
        kept = kept_games(home, daemon_plays)
        choices = tuple(PRESETS) if choose_rules and on_screen else ()
        strengths = tuple(s.value for s in Strength) if choices and choose_strength else ()
        model = Model(
            link,
            rng,
            history_source(history),
            rule_choices=choices,
            fleet_text=fleet_text,
            at_prompt=not on_screen,
            strength_choices=strengths,
            strength_cursor=strengths.index(strategy) if strategy in strengths else 0,
            on_strength=lambda name: link.use_computer(name, computer_chooser(name, rng)),
            unfinished=unfinished_words([game.glance for game in kept]),
            kept=kept,
            pick_up=pick_up_in(home, daemon_plays),
        )
        try:
            if not on_screen:
                run_plain(model, read_line, write_line)
            else:
                build_app(model).run()
        except KeyboardInterrupt:
            model.resign_now()
            raise
        left_to_resume(model)
    finally:
        history.close()
    # Said by the command line, where every line after the full screen is printed.
    return model.end_screen.log_path if model.end_screen is not None else None


async def play_connection_on_screen(
    session: Session,
    connect: Callable[[Session], Awaitable[GameConnection]],
    *,
    history: History,
    invite: str = "",
    fleet_text: str = "",
    choose_rules: bool = False,
    custom_rules: bool = False,
    reunion: Reunion | None = None,
    bell: bool = True,
    unfinished: str = "",
    home: Path | None = None,
    door_watchers: list[Callable[[int], None]] | None = None,
) -> list[Outcome]:
    """``statki host`` / ``statki join`` on the full screen; the outcome of each game that began.

    ``connect`` waits for the guest (host) or returns the connection to the
    host (guest) for the session it is given: the host's may be made anew
    when the host chooses the rules on screen (``choose_rules``).  The host's
    screen shows ``invite`` until the guest arrives.  With ``reunion`` the end
    screen offers a rematch with the same opponent.  ``unfinished`` is the line on
    the games ``statki resume`` can pick up (``unfinished_line``); with ``home`` the
    first screen names them itself and ``u`` picks one up (``ChosenToResume``).
    A host's ``door_watchers`` (its admission's) are where it hears of a guest that came
    before its rules were said.
    """
    link = ConnectionLink(session, reunion=reunion)
    if door_watchers is not None:
        door_watchers.append(link.guests_at_the_door)
    playing = await games_the_daemon_plays(home) if home is not None else frozenset()
    model = _game_model(
        link,
        history,
        invite,
        fleet_text,
        choose_rules,
        custom_rules,
        bell,
        unfinished,
        home,
        playing,
    )
    await play_over_connection(model, link, connect)
    left_to_resume(model)
    return outcomes_of(link)


def _game_model(
    link: Link,
    history: History,
    invite: str,
    fleet_text: str,
    choose_rules: bool,
    custom_rules: bool,
    bell: bool,
    unfinished: str,
    home: Path | None,
    daemon_plays: frozenset[str] = frozenset(),
) -> Model:
    """The model of ``statki host`` / ``join``'s screen, in-process or through the daemon; with
    ``home`` its first screen names the kept games itself (those free, and those the daemon
    running there plays, ``daemon_plays``) and ``u`` picks one up."""
    kept = kept_games(home, daemon_plays) if home is not None else ()
    return Model(
        link,
        unpredictable(),
        history_source(history),
        invite=invite,
        fleet_text=fleet_text,
        rule_choices=tuple(PRESETS) if choose_rules else (),
        custom_rules=custom_rules,
        bell=bell,
        # With the home, the kept games it offers (maybe none: all the daemon's) are named.
        unfinished=unfinished_words([game.glance for game in kept])
        if home is not None
        else unfinished,
        kept=kept,
        pick_up=pick_up_in(home, daemon_plays) if home is not None else None,
        remember_mute=muting_in(home) if home is not None else None,
    )


def muting_in(home: Path) -> RememberMute:
    """Mute kept with the game in ``home``, for after the program stops (``keep_muted``)."""
    return lambda game, muted: keep_muted(home, game, muted)


async def play_picked_up_on_screen(
    connection: GameConnection,
    told: Sequence[Told],
    *,
    history: History,
    bell: bool = True,
    home: Path | None = None,
    reunion: Reunion | None = None,
) -> list[Outcome]:
    """``statki resume GAME`` on the full screen: the game restored from its log, where it
    stood (``told``: what its session told so far, ``statki_net.protocol.replay``), and on to
    its end over ``connection`` (the one that resumes it); muted as it was in ``home``; a
    rematch by ``reunion``, as for a game begun on this screen."""
    model, link = picked_up_model(
        connection.session,
        told,
        connection=connection,
        history=history,
        bell=bell,
        home=home,
        reunion=reunion,
    )
    await play_over_connection(model, link, lambda _session: _ready_made(connection))
    return outcomes_of(link)


async def _ready_made(connection: GameConnection) -> GameConnection:
    return connection


def picked_up_model(
    session: Session,
    told: Sequence[Told],
    *,
    connection: GameConnection | None = None,
    history: History | None = None,
    bell: bool = True,
    home: Path | None = None,
    reunion: Reunion | None = None,
) -> tuple[Model, ConnectionLink]:
    """The model of a game restored from its log, where it stood, and its link.

    The model is in the battle from the start, on this side's move when the log
    says so: a move may come before ``run_games`` has had its first turn (the
    player, or anything else that acts on the model, scheduled first).  With
    ``connection`` (the one that resumes the game; its session is ``session``) the
    link carries such a move at once, recorded while the game is apart; without it
    the link has nothing to carry a move (a screen only looked at) until attached.
    """
    link = ConnectionLink(session, reunion=reunion)
    link.fleet_ready.set()  # committed before the program stopped
    if connection is not None:
        link.attach(connection)
    return _replayed_model(link, told, history=history, bell=bell, home=home), link


def _replayed_model(
    link: Link,
    told: Sequence[Told],
    *,
    history: History | None,
    bell: bool,
    home: Path | None,
) -> Model:
    """The model of a game where it stood (``told``), over ``link``: in-process or the
    daemon's; muted as it was in ``home``."""
    source = history_source(history) if history is not None else None
    game = link.session.transcript.game.hex()
    return Model(
        link,
        unpredictable(),
        source,
        bell=bell,
        replayed=tuple(told),
        followed=isinstance(link, DaemonLink),
        muted=home is not None and kept_muted(home, game),
        remember_mute=muting_in(home) if home is not None else None,
    )


def outcomes_of(link: ConnectionLink) -> list[Outcome]:
    """The outcome of each game played over ``link`` and its rematches that began."""
    outcomes: list[Outcome] = []
    current: ConnectionLink | None = link
    while current is not None:
        if current.conn is not None and current.conn.outcome is not None:
            outcomes.append(current.conn.outcome)
        current = current.successor
    return outcomes


async def play_followed_on_screen(
    link: DaemonLink,
    *,
    history: History,
    invite: str = "",
    fleet_text: str = "",
    choose_rules: bool = False,
    custom_rules: bool = False,
    bell: bool = True,
    unfinished: str = "",
    mutes_in: Path | None = None,
    **app_options: Any,
) -> Closed | None:
    """``statki host`` / ``statki join`` on the full screen, the game played by the daemon.

    The same screen as ``play_connection_on_screen`` (the options mean the
    same), over a ``DaemonLink``; the game's last notice, None when it never
    came (the player left first).  A player who leaves before the battle ends the game
    (``leave``: withdrawn without a guest, else no game, or a forfeit once the guest
    accepted); a player who quits the battle resigns, and the reveal
    and the verdict are waited for as in-process.  ``r`` at the end asks the daemon for a
    rematch, followed on the same screen (the link's ``successor``).  A mute is kept in
    ``mutes_in`` (the home), as a screen opened on the game again (``statki resume``)
    finds it; with it the first screen names the games kept there, and ``u`` picks one up
    (``ChosenToResume``, raised once the screen is closed), as in-process.
    """
    playing = await games_the_daemon_plays(mutes_in) if mutes_in is not None else frozenset()
    model = _game_model(
        link,
        history,
        invite,
        fleet_text,
        choose_rules,
        custom_rules,
        bell,
        unfinished,
        mutes_in,
        playing,
    )
    closed = await _followed(model, link, **app_options)
    left_to_resume(model)
    return closed


async def play_attached_on_screen(
    link: DaemonLink,
    told: Sequence[Told],
    *,
    history: History,
    bell: bool = True,
    home: Path | None = None,
    **app_options: Any,
) -> Closed | None:
    """``statki resume GAME`` for a game the daemon plays on (its screen was closed): a new
    screen on it where it stands (``told``, as for a game picked up from its log), then as
    ``play_followed_on_screen`` to its end."""
    model = _replayed_model(link, told, history=history, bell=bell, home=home)
    return await _followed(model, link, **app_options)


async def _followed(model: Model, link: DaemonLink, **app_options: Any) -> Closed | None:
    """The screen of ``model``, following the daemon's game over ``link`` to its end, then
    each rematch the player asks for (``follow_games``); the first game's last notice (the
    rematches' are their links', ``link.successor`` on)."""
    app = build_app(model, **app_options)
    link.on_change = app.invalidate

    def trouble(text: str) -> None:
        model.say(text, trouble=True)

    link.on_trouble = trouble
    following = asyncio.ensure_future(follow_games(link))
    try:
        await app.run_async()
        current = last_link(link)
        if model.stage in BEFORE_THE_BATTLE:  # q y, or u for a kept game: the game ends
            current.leave()
        await current.settled()
        # A game left before its battle, a battle left (a resignation), a reveal, or a game
        # just over (its verdict, printed after the screen, follows its last frame) settles
        # soon: its last notice is waited for (a game the daemon played on alone, once,
        # left the terminal blank for the whole grace).
        settling = model.stage in (Stage.BATTLE, Stage.FINISHING, Stage.OVER)
        played = settling and bool(current.session.transcript.frames)
        if (played or current.leaving) and not current.over.is_set():
            over = asyncio.ensure_future(current.over.wait())
            await asyncio.wait(
                {following, over}, timeout=CLOSE_GRACE, return_when=asyncio.FIRST_COMPLETED
            )
            over.cancel()
    finally:
        following.cancel()
        await asyncio.gather(following, return_exceptions=True)
    return link.closed

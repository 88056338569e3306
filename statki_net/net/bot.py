"""The computer at the helm of a ``GameConnection``: it accepts the rules and fires.

Its thinking (a placement, a volley) runs off the event loop (``thinking``: a
thread, or the daemon's worker processes), so the event loop and every other
game on it go on meanwhile.  Rules are a weapon when a host may
propose anything (a tiny board crowded with ships, where the first shooter
wins), so as a guest it accepts only the presets and their ``+`` combinations
unless its owner admits custom rules (SPEC.md, section 7, "Bounds").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from statki_net.ai.computer import ComputerPlayer
from statki_net.game.errors import UsageError
from statki_net.game.rules import CUSTOM_RULES_REFUSED, declined_as_custom
from statki_net.net.connection import GameConnection
from statki_net.net.thinking import Thinking
from statki_net.protocol.events import Event, RulesProposed, YourTurn


def attach_computer(
    conn: GameConnection,
    player: ComputerPlayer,
    *,
    custom_rules: bool = False,
    thinking: Thinking | None = None,
) -> None:
    """Let ``player`` decide for this side: accept the rules, and fire when it is its turn.

    Rules that are no preset nor a combination of presets are declined unless
    ``custom_rules`` admits them.  It thinks where ``thinking`` says (default: a thread).
    """
    loop = asyncio.get_running_loop()
    where = thinking or Thinking()

    def act(action: Callable[[], None]) -> None:
        with contextlib.suppress(UsageError):  # the game may have ended meanwhile
            action()

    running: set[asyncio.Task[None]] = set()

    async def fire() -> None:
        session = conn.session
        if not session.my_turn or session.view is None:
            return
        # A strong strategy may think for a second or two; it does so off the
        # event loop, so the loop (and every other game on it) never waits.
        shots = await where.volley(player, session.view, session.shots_due)
        act(lambda: conn.shoot(shots))

    async def place() -> None:
        rules = conn.session.rules
        assert rules is not None
        if declined_as_custom(rules, custom_rules):
            act(lambda: conn.refuse(CUSTOM_RULES_REFUSED))
            return
        # A hard placement plays hundreds of fleets, and the rules came from
        # the peer: off the event loop, like the aiming.
        try:
            fleet = await where.fleet(player, rules)
        except UsageError as error:  # rules no fleet fits: decline them
            reason = str(error)
            act(lambda: conn.refuse(reason))
            return
        act(lambda: conn.accept(fleet))

    def start_placing() -> None:
        task = loop.create_task(place())
        running.add(task)
        task.add_done_callback(running.discard)

    def start_thinking() -> None:
        if where.here:  # thinking in place: no task to wait in (one a move, and its callbacks)
            fire_here()
            return
        task = loop.create_task(fire())
        running.add(task)
        task.add_done_callback(running.discard)

    def fire_here() -> None:
        session = conn.session
        if session.my_turn and session.view is not None:
            shots = player.volley(session.view, session.shots_due)
            act(lambda: conn.shoot(shots))

    def on_events(events: list[Event]) -> None:
        # The session's own events, not the notices made of them: a game between bots has
        # nobody to tell, so no notice is made for it at all (``GameConnection._handle``).
        for event in events:
            if isinstance(event, RulesProposed):
                loop.call_soon(start_placing)
            elif isinstance(event, YourTurn):
                loop.call_soon(start_thinking)

    conn.event_listeners.append(on_events)

"""Keys and clicks acting on the model, and the full-screen prompt_toolkit application.

``press(model, key)`` is the whole meaning of every key, and ``click(model,
board, row, column)`` of every mouse click on a board, as plain functions of
the model; ``build_app`` binds prompt_toolkit's keys and mouse to them.  Input and
output are passed in, so tests drive the real application with a pipe input
and a dummy output.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style

from statki_net.game.answers import yes_or_no
from statki_net.net.clock import WALL_CLOCK
from statki_net.store.language import _

from .layout import STYLES, BoardName, terminal_screen
from .model import Model, Overlay, Stage
from .pickup import PICK_KEY
from .review import AnalysisJob, Report, Runner, Update
from .talk import MUTE_KEY, OPEN_KEY

REDRAW_SECONDS = 0.5
ARROWS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
COORDINATE_KEYS = "abcdefghijABCDEFGHIJ0123456789"
"""Typed squares in battle: columns A-J (lower or upper case) and row digits."""
COMMAND_KEYS = [
    *["?", "f1", "escape", "q", "c-c", "c-d", "y", "n", "r", "R", "d", "s", "p", "tab", "s-tab"],
    *["+", "=", "-", OPEN_KEY, MUTE_KEY, PICK_KEY, "backspace"],
]
QUIT_KEYS = ("q", "c-c", "c-d")
"""Keys that ask before leaving: Ctrl-D too, which ends a terminal program's input."""
LIMIT_KEYS = {"+": 1, "=": 1, "-": -1}
"""On the rules screen: a longer or a shorter time for a move (``=`` is ``+`` unshifted)."""
TALK_STAGES = (Stage.PLACING, Stage.WAITING, Stage.BATTLE, Stage.FINISHING)
"""Where the chat line can be opened: the game may have an id (``Talking.can_talk`` says)."""
CLOSING_KEYS = ("escape", "?", "f1", "p", "enter")
"""Keys that close any overlay but the question before quitting; ``a`` closes the analysis."""


def press(model: Model, key: str) -> None:
    """What ``key`` (prompt_toolkit's name for it) does to ``model`` now."""
    if model.draft is not None and model.overlay is None and key != "c-c":
        model.chat_key(key)  # the chat line takes every key, until Enter or Esc
        return
    if model.overlay is Overlay.QUIT:
        answer = yes_or_no(key)  # t (tak) as well as y, as the line prompt takes them
        if answer:
            model.confirm_quit()
        elif answer is False or key in ("escape", "q"):
            model.cancel_quit()
        return
    if model.overlay is Overlay.PICK:
        _picking(model, key)
        return
    if model.overlay is not None:
        if key == "q":
            model.overlay = None
            model.ask_quit()
        elif key in CLOSING_KEYS or (key == "a" and model.overlay is Overlay.ANALYSIS):
            model.overlay = None
        return
    if key in ("?", "f1"):
        model.toggle_overlay(Overlay.HELP)
    elif key == "p":
        model.toggle_overlay(Overlay.HISTORY)
    elif key in QUIT_KEYS:
        model.ask_quit()
    elif key == OPEN_KEY and model.stage in TALK_STAGES:
        model.open_chat()
    elif key == MUTE_KEY and model.stage in TALK_STAGES:
        model.toggle_mute()
    elif key == PICK_KEY and model.can_pick_up:
        model.ask_pick_up()
    elif model.stage is Stage.RULES:
        if key in ("up", "down"):
            model.move_rules_cursor(ARROWS[key][0])
        elif key in LIMIT_KEYS:
            model.change_move_limit(LIMIT_KEYS[key])
        elif key in ("left", "right"):
            model.move_strength_cursor(ARROWS[key][1])
        elif key == "enter":
            model.choose_rules()
    elif model.stage is Stage.PLACING:
        _placing(model, key)
    elif model.stage is Stage.OVER:
        if key == "r":
            model.rematch()
        elif key == "a":
            model.analyse()
    elif model.stage in (Stage.BATTLE, Stage.WAITING, Stage.FINISHING):
        _battle(model, key)


def _placing(model: Model, key: str) -> None:
    if key in ARROWS:
        model.move_ship(*ARROWS[key])
    elif key == "tab":
        model.select(1)
    elif key == "s-tab":
        model.select(-1)
    elif key in ("r", " "):
        model.rotate()
    elif key == "n":
        model.reroll()
    elif key == "enter":
        model.ready()
    elif key == "d":
        model.decline()
    elif key == "R":
        model.revisit_rules()


def _picking(model: Model, key: str) -> None:
    """The list of unfinished games: up/down and Enter, or a game's digit; Esc goes back."""
    if key in ("up", "down"):
        model.move_pick_cursor(ARROWS[key][0])
    elif key == "enter":
        model.pick()
    elif len(key) == 1 and key in "123456789":
        model.pick(int(key) - 1)
    elif key in ("escape", "q", PICK_KEY):
        model.overlay = None


def click(model: Model, board: BoardName, row: int, column: int) -> None:
    """What a click on ``board`` at (``row``, ``column``) does to ``model`` now.

    Placing: a ship is picked, an empty square takes the picked ship's bow.
    Battle: a square of the opponent's sea is aimed at (marked, in a salvo);
    a second click on it fires.
    """
    if model.overlay is not None or not 0 <= min(row, column) <= max(row, column) < model.size:
        return
    square = row * model.size + column
    if model.stage is Stage.PLACING and board == "mine":
        if not model.select_at(square):
            model.move_ship_to(square)
    elif model.stage is Stage.BATTLE and board == "theirs":
        model.aim_click(square)


def _battle(model: Model, key: str) -> None:
    if key in ARROWS:
        model.typed = ""
        model.move_cursor(*ARROWS[key])
    elif len(key) == 1 and key in COORDINATE_KEYS:
        model.type_key(key)
    elif key == "enter":
        model.choose()
    elif key == " ":
        model.toggle_mark()
    elif key == "s":
        model.toggle_hints()
    elif key == "escape":
        model.clear_typing()
    elif key == "backspace":
        model.erase_typed()
    elif len(key) == 1 and key.isalnum():
        # A letter past the board's columns is a coordinate typed wrong, not a key that
        # does nothing: Enter must not then fire at the cursor (k11 fired at A1).
        model.type_key(key)
    elif len(key) == 1 and key.isprintable():
        # A key that does nothing at all: a new player took the game for stuck.
        model.say(_("The key {key} does nothing here; ? lists the keys").format(key=key))


def in_a_thread(app: Application[None]) -> Runner:
    """Run analysis jobs in a thread, handing each report to the model on the screen's loop.

    The model is only ever changed on the loop that draws it; the thread
    posts its reports there and the screen is redrawn after each one.
    """

    def start(job: AnalysisJob, report: Report) -> None:
        loop = asyncio.get_running_loop()  # a key's handler runs on the screen's loop

        def on_loop(update: Update) -> None:
            report(update)
            app.invalidate()

        def from_thread(update: Update) -> None:
            try:
                loop.call_soon_threadsafe(on_loop, update)
            except RuntimeError:  # the loop is closed: nobody is left to show it to
                job.cancel()

        threading.Thread(
            target=job.run, args=(from_thread,), name="statki-analysis", daemon=True
        ).start()

    return start


def no_color() -> bool:
    """Whether the person asked for no colour (https://no-color.org)."""
    return bool(os.environ.get("NO_COLOR"))


def build_app(
    model: Model,
    *,
    input: Input | None = None,
    output: Output | None = None,
    on_key: Callable[[], None] | None = None,
    clock: Callable[[], int] = WALL_CLOCK.now,
) -> Application[None]:
    """The full-screen client for ``model``; it exits once the player has quit."""
    bindings = KeyBindings()

    def bind(key: str, name: str) -> None:
        @bindings.add(key)
        def _(event: KeyPressEvent) -> None:
            press(model, name)
            if on_key is not None:
                on_key()
            if model.done:
                model.cancel_analysis()
                event.app.exit()

    for key in dict.fromkeys([*ARROWS, *COMMAND_KEYS, *COORDINATE_KEYS, "Y", "N"]):
        bind(key, key)
    bind("enter", "enter")
    bind("space", " ")

    @bindings.add(Keys.Any, filter=Condition(lambda: model.draft is None))
    def _unbound(event: KeyPressEvent) -> None:
        # A character no binding names (k-z in battle): the model says what it does.
        for pressed in event.key_sequence:
            if len(pressed.data) == 1 and pressed.data.isprintable():
                press(model, pressed.data)
        if on_key is not None:
            on_key()

    @bindings.add(Keys.Any, filter=Condition(lambda: model.draft is not None))
    def _typed(event: KeyPressEvent) -> None:
        # Any other character, while the chat line is open (bound keys type there too).
        for pressed in event.key_sequence:
            if pressed.data.isprintable():
                press(model, pressed.data)
        if on_key is not None:
            on_key()

    def on_click(board: BoardName, row: int, column: int) -> None:
        click(model, board, row, column)
        if on_key is not None:
            on_key()

    def drawn() -> StyleAndTextTuples:
        size = app.output.get_size()
        return terminal_screen(model, size.columns, size.rows, click=on_click, now=clock())

    def ring(_: object) -> None:
        if model.bell_due:  # this side's turn began: once, after it is drawn
            model.bell_due = False
            app.output.bell()
            app.output.flush()
        if model.done and app.is_running and not app.is_done:
            # A resignation asked for in the opponent's turn is made once their shot is
            # answered: the player, who chose to quit, leaves then, with no key to press.
            model.cancel_analysis()
            app.exit()

    control = FormattedTextControl(drawn, focusable=True, show_cursor=False)
    app: Application[None] = Application(
        layout=Layout(Window(control)),
        key_bindings=bindings,
        style=Style.from_dict(STYLES),
        full_screen=True,
        mouse_support=True,
        input=input,
        output=output,
        color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
        # Redrawn each half second, so the clock counts down between moves.
        refresh_interval=REDRAW_SECONDS,
    )
    app.after_render += ring
    model.background = in_a_thread(app)
    return app

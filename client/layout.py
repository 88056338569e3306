"""The screen drawn from the model: two seas side by side, as on squared paper.

``screen(model)`` returns styled text (prompt_toolkit's ``(style, text)``
pairs) that fits 80x24; ``plain(screen(model))`` is the same without styles,
for the line prompt and for tests.  Every square's state is told by its
character (``statki_net.game.picture.GLYPHS`` and a few more below), so nothing
depends on colour; the styles only add it where the terminal has it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

if TYPE_CHECKING:  # defined for type checkers only
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

from statki_net.ai.strength import STRENGTHS, Strength
from statki_net.game.battle import Cell, Defence, Sea
from statki_net.game.board import bit, square_name
from statki_net.game.fleet import Fleet
from statki_net.game.picture import GLYPHS, defence_glyph
from statki_net.game.rules import PRESETS, Ruleset
from statki_net.game.rules_words import describe
from statki_net.game.words import N_
from statki_net.protocol.bounds import MAX_SAY_CHARS
from statki_net.store.history import GameRow, local_minute
from statki_net.store.language import _, words

from .clock import clock_words
from .computer import shown_name
from .kinds import Volley
from .model import EndScreen, Model, Overlay, Stage
from .pickup import LISTED
from .review import AnalysisStatus

WIDTH, HEIGHT = 80, 24
SELECTED = "*"
"""A square of the ship picked for moving."""
BAD = "!"
"""A square of a ship that breaks the rules where it stands."""
MARKED = "+"
"""A square marked for the salvo being aimed."""
NO_FIT = "~"
"""A hint: no ship still afloat fits on this square."""
BEFORE_BATTLE = (Stage.CONNECTING, Stage.RULES, Stage.PLACING, Stage.WAITING)
"""The stages whose screens name the unfinished games: the first screens a player sees."""
LEGEND = N_("# ship  o miss  x hit  @ sunk  - empty  + marked  ~ no ship fits  [ ] cursor")
PLACING_LEGEND = N_("# ship  * picked ship  ! ship breaking the rules")
PROMPT_LEGEND = N_("# ship  o miss  x hit  @ sunk  - empty  + marked  ~ no ship fits")
"""The legend at the line prompt: no cursor, nothing marked with keys."""
PROMPT_PLACING_LEGEND = N_("# ship  ! ship breaking the rules")
"""The legends are translated where they are shown: ``_(LEGEND)``."""

STYLE_OF = {
    GLYPHS["ship"]: "class:ship",
    GLYPHS[Cell.MISS]: "class:miss",
    GLYPHS[Cell.HIT]: "class:hit",
    GLYPHS[Cell.SUNK]: "class:sunk",
    GLYPHS[Cell.EMPTY]: "class:empty",
    GLYPHS[Cell.SHOT]: "class:hit",
    SELECTED: "class:selected",
    BAD: "class:bad",
    MARKED: "class:mark",
    NO_FIT: "class:hint",
}

STYLES = {
    "title": "reverse bold",
    "ship": "fg:ansicyan bold",
    "selected": "fg:ansiyellow bold reverse",
    "bad": "fg:ansired bold reverse",
    "hit": "fg:ansired bold",
    "sunk": "fg:ansired",
    "miss": "fg:ansiblue",
    "empty": "fg:ansibrightblack",
    "mark": "fg:ansiyellow bold",
    "hint": "fg:ansibrightblack",
    "cursor": "bold",
    "trouble": "fg:ansired bold",
    "keys": "reverse",
    "box": "bold",
}
"""Style classes for prompt_toolkit; under NO_COLOR only bold and reverse remain."""

SHOWN_AS_NAMED = (
    (N_("host"), N_("guest")),
    (N_("won"), N_("lost"), N_("none"), N_("unfinished")),
    (N_("sunk"), N_("resigned"), N_("time"), N_("forfeit"), N_("cheated"), N_("refused")),
    (N_("no-game"), N_("timeout"), N_("error"), N_("closed")),
    (N_("easy"), N_("medium"), N_("hard")),
)
"""Values the screen shows as the code names them (a role, a result, an end, a strength),
translated where shown (``_(row.result)``); listed here so that the catalog has them."""

Line = list[OneStyleAndTextTuple]
Glyph = Callable[[int], str]
BoardName = Literal["mine", "theirs"]
"""The player's own sea (left) or the opponent's (right)."""
Click = Callable[[BoardName, int, int], None]
"""A click on a board's square: (board, row, column), rows and columns from 0."""
SquareClick = Callable[[int, int], None]


# ---------------------------------------------------------------- boards


def board(
    size: int, glyph: Glyph, cursor: int | None = None, click: SquareClick | None = None
) -> list[Line]:
    """A sea: letters over the columns, numbers beside the rows, the cursor in brackets.

    With ``click``, a mouse click on a square (its character or the gap
    before it) calls ``click(row, column)``.
    """
    lines: list[Line] = [[("", "  " + "".join(f" {chr(ord('A') + c)}" for c in range(size)) + " ")]]
    for row in range(size):
        line: Line = [("", f"{row + 1:>2}")]
        for column in range(size + 1):
            square = row * size + column
            if cursor is not None and column < size and cursor == square:
                gap = ("class:cursor", "[")
            elif cursor is not None and column > 0 and cursor == square - 1:
                gap = ("class:cursor", "]")
            else:
                gap = ("", " ")
            if column == size:
                line.append(gap)
                break
            char = glyph(square)
            fragments = [gap, (STYLE_OF.get(char, ""), char)]
            if click is None:
                line += fragments
            else:
                handler = _on_release(click, row, column)
                line += [(style, text, handler) for style, text in fragments]
        lines.append(line)
    return lines


def _on_release(
    click: SquareClick, row: int, column: int
) -> Callable[[MouseEvent], NotImplementedOrNone]:
    """A mouse handler acting when the button is released (a click), as buttons do."""

    def handler(event: MouseEvent) -> NotImplementedOrNone:
        if event.event_type is not MouseEventType.MOUSE_UP:
            return NotImplemented
        if event.button not in (MouseButton.LEFT, MouseButton.UNKNOWN):
            return NotImplemented
        click(row, column)
        return None

    return handler


def sea_glyph(sea: Sea, marks: list[int], hints: int, revealed: Fleet | None = None) -> Glyph:
    """The opponent's sea as I know it, with my marks, hints, and their fleet once revealed."""
    ships = revealed.board if revealed else 0

    def glyph(square: int) -> str:
        if square in marks:
            return MARKED
        cell = sea.cell(square)
        if cell is Cell.UNKNOWN:
            if ships & bit(square):
                return GLYPHS["ship"]
            if hints & bit(square):
                return NO_FIT
        return GLYPHS[cell]

    return glyph


def placing_glyph(model: Model) -> Glyph:
    fleet = model.fleet
    ships, bad = fleet.board, model.bad_squares()
    chosen = 0
    if model.ships and model.stage is Stage.PLACING and not model.at_prompt:
        for square in fleet.ships[model.selected]:
            chosen |= bit(square)

    def glyph(square: int) -> str:
        mask = bit(square)
        if bad & mask:
            return BAD
        if chosen & mask:
            return SELECTED
        return GLYPHS["ship"] if ships & mask else GLYPHS["water"]

    return glyph


def side_by_side(left: list[Line], right: list[Line], gap: int = 8) -> list[Line]:
    width = max(_width(line) for line in left)
    rows = max(len(left), len(right))
    left = left + [[]] * (rows - len(left))
    right = right + [[]] * (rows - len(right))
    return [
        [*a, ("", " " * (width - _width(a) + gap)), *b] for a, b in zip(left, right, strict=True)
    ]


def _width(line: Line) -> int:
    return sum(len(fragment[1]) for fragment in line)


# ---------------------------------------------------------------- the screen


def screen(
    model: Model,
    width: int = WIDTH,
    height: int = HEIGHT,
    click: Click | None = None,
    now: int | None = None,
) -> StyleAndTextTuples:
    """The whole screen for ``model``, at most ``width`` x ``height``.

    ``click`` receives clicks on the board squares that mean something now
    (the fleet while placing, the opponent's sea in battle); none under an overlay.
    ``now`` (ms, the front end's clock) shows the time left to move; None shows no clock.
    """
    lines, keys = _body_and_keys(model, width, height, click, now)
    lines = [_clip(line, width) for line in lines[: height - 1]]
    lines += [[]] * (height - 1 - len(lines))
    if model.draft is not None and model.overlay is None:
        lines[-1] = chat_line(model.draft, width)
    lines.append(_clip(keys, width))
    return _joined(lines)


def cut_short(
    model: Model, width: int = WIDTH, height: int = HEIGHT, now: int | None = None
) -> list[str]:
    """What ``screen`` would cut off: each line wider than ``width``, each line below
    ``height`` (none, when every text fits, in every language)."""
    lines, keys = _body_and_keys(model, width, height, None, now)
    texts = ["".join(fragment[1] for fragment in line) for line in [*lines, keys]]
    wide = [text for text in texts if len(text.rstrip()) > width]
    return wide + texts[height - 1 : -1]


def _body_and_keys(
    model: Model, width: int, height: int, click: Click | None, now: int | None
) -> tuple[list[Line], Line]:
    """The screen's lines above the key bar, uncut, and the key bar."""
    if model.overlay is not None:
        click = None
    if model.overlay is Overlay.HELP:
        lines = help_lines(model)
    elif model.overlay is Overlay.PICK:
        lines = pick_lines(model)
    elif model.overlay is Overlay.HISTORY:
        lines = history_lines(model, width)
    elif model.overlay is Overlay.ANALYSIS:
        lines = analysis_lines(model, width)
    elif model.stage is Stage.OVER and model.end_screen is not None:
        lines = end_lines(model, model.end_screen, width)
    elif model.stage is Stage.RULES:
        lines = rules_screen_lines(model)
    elif model.stage in (Stage.CONNECTING, Stage.PLACING) or (
        model.stage is Stage.WAITING and model.view is None
    ):
        lines = placing_lines(model, width, click)
    else:
        lines = battle_lines(model, click, now)
    lines = [title_line(model, width), *with_unfinished(model, lines)]
    if model.overlay is Overlay.QUIT:
        lines = [*lines[: height - 3], [], [("class:trouble", model.quit_consequence())]]
    return lines, [("class:keys", keys_line(model, width))]


def terminal_screen(
    model: Model, columns: int, rows: int, click: Click | None = None, now: int | None = None
) -> StyleAndTextTuples:
    """The screen for a terminal of ``columns`` x ``rows``: the 80x24 screen in its middle,
    with the key bar on the terminal's last row, using its whole width (centered, as the
    screen is); or, on a smaller one, why nothing else is."""
    if columns < WIDTH or rows < HEIGHT:
        said_words = _(
            "The terminal is too small: statki needs {width} columns and {height} rows,"
            " and this one has {columns} columns and {rows} rows."
        ).format(width=WIDTH, height=HEIGHT, columns=columns, rows=rows)
        room = max(columns, 1)
        said = wrapped(said_words, room, "class:trouble")
        said += wrapped(
            _(
                "Make the terminal larger, or press q and then y to leave; with --plain"
                " statki plays at a line prompt, on a terminal of any size."
            ),
            room,
        )
        return _joined([_clip(line, columns) for line in said[:rows]])
    body = _lines_of(screen(model, click=click, now=now))
    margin: Line = [("", " " * ((columns - WIDTH) // 2))]
    top = (rows - HEIGHT) // 2
    lines: list[Line] = [[]] * top + [[*margin, *line] for line in body[:-1]]
    lines += [[]] * (rows - 1 - len(lines))
    keys = body[-1]
    if columns > WIDTH:
        bar = keys_line(model, columns)
        keys = [("class:keys", bar.center(columns).rstrip())]
    return _joined([*lines, keys])


def _joined(lines: list[Line]) -> StyleAndTextTuples:
    fragments: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            fragments.append(("", "\n"))
        fragments.extend(line)
    return fragments


def _lines_of(fragments: StyleAndTextTuples) -> list[Line]:
    """``_joined`` undone: the fragments between newlines, a line each."""
    lines: list[Line] = [[]]
    for fragment in fragments:
        if fragment[1] == "\n":
            lines.append([])
        else:
            lines[-1].append(fragment)
    return lines


def plain(fragments: StyleAndTextTuples) -> str:
    """The screen's text alone, trailing spaces trimmed."""
    text = "".join(fragment[1] for fragment in fragments)
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n")


def _clip(line: Line, width: int) -> Line:
    out: Line = []
    room = width
    for fragment in line:
        if room <= 0:
            break
        text = fragment[1][:room]
        out.append((fragment[0], text, *fragment[2:]))
        room -= len(text)
    return out


def with_unfinished(model: Model, lines: list[Line]) -> list[Line]:
    """The line on unfinished games under the title, before the battle, in place of a
    blank line (the first): the screen grows no longer, so a long invite still fits."""
    said = model.unfinished_line()
    if not said or model.overlay is not None or model.stage not in BEFORE_BATTLE:
        return lines
    line: Line = [("class:trouble", said)]
    blank = next((index for index, each in enumerate(lines) if not each), None)
    return [line, *(lines if blank is None else lines[:blank] + lines[blank + 1 :])]


SHORTEST_NAME = 8
"""Characters a name in the title keeps, at the least, when it is shortened to fit."""


def title_line(model: Model, width: int) -> Line:
    """statki, the rules, this side and the opponent with its key, flush with the body.

    The opponent's key is what the title is for, and is never cut: a long name is
    shortened ("Małgorzata Brzęcz…") first, this side's and then the opponent's; only
    then does this side's role go."""
    role = _(model.session.role.value)
    rules, me = model.rules_name(), model.session.name or _("you")
    them = model.opponent_shown() or "?"

    def opponent(name: str) -> str:
        if model.opponent_key:
            return _("  vs {name}, key {key}").format(name=name, key=model.opponent_key)
        if model.invite or model.stage is Stage.CONNECTING:
            return "  " + model.waiting_words()
        return ""

    for with_role in (True, False):
        head = f"statki  {rules}  {{me}} ({role})" if with_role else f"statki  {rules}  {{me}}"
        room = width - len(head.format(me="")) - len(opponent(them))
        if room >= min(len(me), SHORTEST_NAME):
            text = head.format(me=_shortened(me, room)) + opponent(them)
            break
    else:
        head = f"statki  {rules}  {_shortened(me, SHORTEST_NAME)}"
        room = width - len(head) - len(opponent(""))
        text = head + opponent(_shortened(them, max(room, SHORTEST_NAME)))
    return [("class:title", text.ljust(width))]  # cut by the screen, where cut_short sees it


def _shortened(name: str, room: int) -> str:
    """``name`` in ``room`` characters: whole if it fits, else cut with an ellipsis."""
    return name if len(name) <= room else name[: max(room - 1, 1)].rstrip() + "…"


def placing_lines(model: Model, width: int = WIDTH, click: Click | None = None) -> list[Line]:
    rules = model.rules
    if rules is None or not model.ships:
        said = model.notice or model.connecting_words()
        return [[], [("", said)]]
    on_fleet: SquareClick | None = None
    if click is not None and model.stage is Stage.PLACING:
        on_fleet = lambda row, column: click("mine", row, column)  # noqa: E731
    left: list[Line] = [
        [("class:box", _("Your fleet"))],
        *board(rules.size, placing_glyph(model), None, on_fleet),
    ]
    right: list[Line] = [[("class:box", _("The rules"))]]
    right += [[("", text)] for text in rules_lines(rules, model.move_seconds)]
    room = max(20, width - max(_width(line) for line in left) - 6)
    for text in model.departure_lines():  # before the ships: a guest reads these first
        right += wrapped(text, room, "class:trouble")
    showing_invite = bool(model.invite) and not model.opponent_key and not model.at_the_door
    if not showing_invite:  # the invite needs the room, and nobody has accepted yet
        right.append([("", model.starter_words())])
    if model.stage is Stage.PLACING:
        right += [[], [("", _("Ships:"))]]
        for index in range(len(rules.fleet)):
            mark = ">" if index == model.selected and not model.at_prompt else " "
            right.append([("", f" {mark} {rules.ship_label(index, words())}")])
    block = side_by_side(left, right, gap=6)[: 1 + rules.size + 6]
    if showing_invite:  # room for an invite of three lines
        return [*block, *notice_lines(model, width), [], *invite_lines(model.invite, width)]
    if model.door_open and model.stage is Stage.PLACING:
        door = wrapped(model.door_words(), width, "class:box")
        return [[], *block, [], *door, *notice_lines(model, width)]
    legend = PROMPT_PLACING_LEGEND if model.at_prompt else PLACING_LEGEND
    return [[], *block, [], *notice_lines(model, width), [], [("", _(legend))]]


def invite_lines(invite: str, width: int) -> list[Line]:
    """The invite to pass on, cut into full lines (the terminal above holds it on one line)."""
    lines: list[Line] = [
        [("class:box", _("Invite for your opponent: statki join takes it over several lines too"))]
    ]
    # Broken after an address or before the key: a copy of these lines, breaks and all,
    # reads back whole (parse_invite ignores white space).
    lines += [[("", line)] for line in broken_lines(invite, width, after=",", before="/")]
    return lines


def rules_screen_lines(model: Model) -> list[Line]:
    """The host's choice of rules: every preset in a line, the highlighted one in full."""
    lines: list[Line] = [[], [("class:box", _("Choose the rules for this game"))], []]
    for index, name in enumerate(model.rule_choices):
        chosen = index == model.rules_cursor
        text = f" {'>' if chosen else ' '} {name:<12} {describe(PRESETS[name], words()).summary}"
        lines.append([("class:selected" if chosen else "", text)])
    if model.rule_choices:
        highlighted = PRESETS[model.rule_choices[model.rules_cursor]]
        lines += [[], [("class:box", _("In full:"))]]
        lines += [[("", "  " + text)] for text in rules_lines(highlighted)]
    if model.move_seconds is not None:
        seconds = model.move_seconds
        # Within "In full", no line of its own: the invite below needs the room.
        lines.append(
            [("", _("  Time for a move: {seconds} s (+ and - change it)").format(seconds=seconds))]
        )
    if model.strength is not None:
        lines += [[], [("class:box", _("The computer (left/right):"))]]
        lines.append(
            [
                ("class:selected", f"  < {_(model.strength)} >  "),
                ("", _(STRENGTHS[Strength(model.strength)].description)),
            ]
        )
    lines += [
        [],
        *notice_lines(model),
        [("", _("R in placement comes back here until the battle starts"))],
    ]
    if model.door_open:
        lines += wrapped(model.door_words(), WIDTH, "class:box")
    elif model.invite and not model.opponent_key:
        # No blank line above it: an invite of three lines (addresses, key, secret) would
        # lose its secret under the key bar at 80x24.
        lines += invite_lines(model.invite, WIDTH)
    return lines


def rules_lines(rules: Ruleset, seconds: int | None = None) -> list[str]:
    """The rules in full, a line each, with the time a move may take when it is known."""
    board, touching, turns = describe(rules, words()).lines
    if seconds is not None:
        turns += _("; {seconds} s a move").format(seconds=seconds)
    return [board, touching, turns]


def battle_lines(model: Model, click: Click | None = None, now: int | None = None) -> list[Line]:
    rules, view, defence = model.rules, model.view, model.defence
    assert rules is not None
    size = rules.size
    sea = view or Sea(rules)
    hints = model.hint_squares() if model.hints else 0
    cursor = model.cursor if model.stage is Stage.BATTLE and not model.at_prompt else None
    on_sea: SquareClick | None = None
    if click is not None and model.stage is Stage.BATTLE:
        on_sea = lambda row, column: click("theirs", row, column)  # noqa: E731
    mine = board(size, defence_glyph(defence), None) if defence else board(size, lambda s: ".")
    theirs = board(size, sea_glyph(sea, model.marks, hints), cursor, on_sea)
    titles: Line = [
        (
            "class:box",
            _("Your sea: {n} afloat").format(n=model.ships_left(True)).ljust(_width(mine[0]) + 8),
        ),
        ("class:box", _("Opponent's sea: {n} afloat").format(n=model.ships_left(False))),
    ]
    lines = with_talk(model, [titles, *side_by_side(mine, theirs)])
    lines += [[], [("", turn_words(model))]]
    said = clock_words(model, now) if now is not None else None
    if said is not None:
        lines.append([("class:trouble" if said.urgent else "", said.text)])
    lines += last_lines(model)
    lines.append(
        [
            (
                "",
                _("Shots: you {mine}, opponent {theirs}   Hints: {hints}").format(
                    mine=model.shots_fired(True),
                    theirs=model.shots_fired(False),
                    hints=_("on") if model.hints else _("off"),
                ),
            )
        ]
    )
    lines += notice_lines(model)
    lines += [[("", _(PROMPT_LEGEND if model.at_prompt else LEGEND))]]
    return lines


TALK_GAP = 2
MIN_TALK_WIDTH = 16
"""Columns the talk needs beside the boards; with fewer (a large board) it is not shown."""
CHAT_PROMPT = N_("Say: ")
"""Translated where it is drawn: ``_(CHAT_PROMPT)``."""


def with_talk(model: Model, boards: list[Line], width: int = WIDTH) -> list[Line]:
    """The boards with the last lines of talk beside them, where there is room.

    The talk stands beside the boards' rows, not their titles: titles in Polish
    reach further than the boards do, and must not squeeze the talk off the screen.
    """
    titles, rows = boards[0], boards[1:]
    room = width - max(_width(line) for line in rows) - TALK_GAP - 1
    if room < MIN_TALK_WIDTH or not (model.talk or model.muted):
        return boards
    return [titles, *side_by_side(rows, talk_lines(model, room, len(rows)), TALK_GAP)]


def talk_lines(model: Model, width: int, height: int) -> list[Line]:
    """The talk as the screen shows it: a heading, then the last lines that fit, wrapped."""
    heading = _("Talk (muted)") if model.muted else _("Talk")
    rows: list[Line] = []
    them = model.opponent_shown() or _("them")
    for line in model.lines_shown():
        who = _("you") if line.mine else them
        said = _("{who}: {text}").format(who=who, text=line.text)
        text = textwrap.wrap(said, width, break_long_words=True) or [""]
        rows += [[("class:box" if line.mine else "", row)] for row in text]
    return [[("class:box", heading)], *rows[-(height - 1) :]]


def chat_line(draft: str, width: int) -> Line:
    """The chat line being typed: its end, when it is longer than the screen is wide."""
    prompt = _(CHAT_PROMPT)
    room = width - len(prompt) - 1
    return [("class:box", prompt), ("", draft[-room:] + "_")]


def turn_words(model: Model) -> str:
    size = model.size
    if model.stage is Stage.WAITING:
        them = model.opponent_label()
        if model.agreed_first() is None:
            return _("Waiting for {them} to commit their fleet, then for the coin toss").format(
                them=them
            )
        return _("Waiting for {them} to commit their fleet").format(them=them)
    if model.stage is Stage.FINISHING:
        return _("The battle is over: revealing and checking both fleets")
    if model.my_turn and model.at_prompt:
        due = model.shots_due
        if due > 1:
            return _("YOUR TURN: a salvo of {due}; type its squares, like A1 B2 C3").format(due=due)
        return _("YOUR TURN: type a square, like B4")
    if model.my_turn:
        due = model.shots_due
        typed = _("  typing {typed}").format(typed=model.typed) if model.typed else ""
        aim = square_name(model.cursor, size)
        if due > 1:
            return (
                _("YOUR TURN: salvo of {due}, {marked} marked; cursor {aim}").format(
                    due=due, marked=len(model.marks), aim=aim
                )
                + typed
            )
        return _("YOUR TURN: cursor on {aim}, Enter fires").format(aim=aim) + typed
    seconds = model.move_seconds
    who = model.opponent_label()
    if seconds is None:
        return _("{Who}'s turn").format(Who=who[:1].upper() + who[1:])
    return _("{Who}'s turn; silent {seconds} s and you win on time").format(
        Who=who[:1].upper() + who[1:], seconds=seconds
    )


TurnKind = Literal["shot", "turn", "salvo"]
"""What one side's last turn was, as its label names it."""

LAST_TURN_LABELS: dict[tuple[bool, TurnKind], str] = {
    (True, "shot"): N_("Your last shot"),
    (True, "turn"): N_("Your last turn"),
    (True, "salvo"): N_("Your last salvo"),
    (False, "shot"): N_("Their last shot"),
    (False, "turn"): N_("Their last turn"),
    (False, "salvo"): N_("Their last salvo"),
}
"""Keyed by (mine, what the turn was: one shot, several volleys, a salvo of several
squares); padded to one width where shown, so the answers line up in either language."""


def turn_kind(turn: Sequence[Volley]) -> TurnKind:
    """What a turn was, as its label says it: a salvo is one volley of several squares
    (not "a shot"), a hit that earned more shots makes a turn of several volleys."""
    if any(len(volley.squares) > 1 for volley in turn):
        return "salvo"
    return "turn" if len(turn) > 1 else "shot"


def last_lines(model: Model, width: int = WIDTH) -> list[Line]:
    """Each side's last turn, every volley of it: a hit earns another shot, so one turn
    can be several (``B4: hit, B5: sunk, C7: miss``); a salvo square by square."""
    lines: list[Line] = []
    for mine in (True, False):
        turn = last_turn(model.volleys, mine=mine)
        words = ", ".join(volley.words(model.size) for volley in turn) or "-"
        label = _(LAST_TURN_LABELS[mine, turn_kind(turn)])
        label = label.ljust(max(len(_(text)) for text in LAST_TURN_LABELS.values()) + 1)
        for index, text in enumerate(textwrap.wrap(words, width - len(label))):
            lines.append([("", (label if index == 0 else " " * len(label)) + text)])
    return lines


def last_turn(volleys: Sequence[Volley], *, mine: bool) -> list[Volley]:
    """The volleys of one side's latest turn: its last run of volleys, in order."""
    turn: list[Volley] = []
    for volley in reversed(volleys):
        if volley.mine is mine:
            turn.append(volley)
        elif turn:
            break
    return turn[::-1]


def notice_lines(model: Model, width: int = WIDTH) -> list[Line]:
    """The notice, wrapped: a reason is never cut at the screen's edge."""
    return wrapped(model.notice, width, "class:trouble" if model.trouble else "")


def broken_lines(text: str, width: int, after: str = "/", before: str = "") -> list[str]:
    """``text`` without spaces (a path, an invite) over lines, broken after ``after``'s
    characters or before ``before``'s where it can be, so each line is a whole piece of it."""
    pieces, piece = [], ""
    for char in text:
        if char in before:
            pieces.append(piece)
            piece = ""
        piece += char
        if char in after:
            pieces.append(piece)
            piece = ""
    pieces.append(piece)
    width = max(width, 1)
    lines: list[str] = []
    line = ""
    for piece in filter(None, pieces):
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        while len(piece) > width:  # no break in it: cut where a line ends
            lines.append(piece[:width])
            piece = piece[width:]
        line += piece
    return [*lines, line] if line else lines


def end_lines(model: Model, end: EndScreen, width: int) -> list[Line]:
    lines: list[Line] = [[]]
    if model.rules is not None and model.view is not None:  # no boards if no battle began
        lines = end_boards(model, end)
    lines.append([("class:title", f" {end.verdict} ")])
    if end.referee:
        lines += wrapped(_("Referee: {verdict}").format(verdict=end.referee), width)
    if end.why_unfinished:
        lines += wrapped(end.why_unfinished, width, "class:trouble")
    if end.their_fleet is not None and not end.findings:
        lines.append([("", _("Checked: every answer on both sides matches the revealed fleets"))])
    for finding in end.findings[:2]:
        lines += wrapped(
            _("Cheating found: {finding}").format(finding=finding), width, "class:trouble"
        )
    if len(end.findings) > 2:
        more = len(end.findings) - 2
        lines.append([("class:trouble", _("... and {n} more in the log").format(n=more))])
    if end.ending.end.played or end.unfinished:  # none were shot; after a declined game,
        # or a rematch nobody came to, "Shots: you 0, opponent 0" read as a game played
        shots = _("Shots: you {mine}, opponent {theirs}")
        lines.append([("", shots.format(mine=end.my_shots, theirs=end.their_shots))])
    if end.log_path is not None:
        label = _("Log: ")
        path = broken_lines(str(end.log_path), width - len(label))
        lines += [
            [("", (label if index == 0 else " " * len(label)) + part)]
            for index, part in enumerate(path)
        ]
    if model.why_no_analysis() is None and not _analysis_unoffered(model):
        failed = model.analysis.status is AnalysisStatus.FAILED
        lines += wrapped(model.analysis.summary(), width, "class:trouble" if failed else "")
    if model.notice and model.notice != end.why_unfinished:
        lines += wrapped(model.notice, width, "class:trouble" if model.trouble else "")
    return lines


def _analysis_unoffered(model: Model) -> bool:
    """The end screen's "a analyses the game" would mislead: the line prompt offers ``a`` in
    its own prompt, and a player who resigned by quitting has left before it."""
    return model.at_prompt and model.analysis.status is AnalysisStatus.NOT_ASKED


def end_boards(model: Model, end: EndScreen) -> list[Line]:
    """Both fleets revealed side by side, with every shot on them."""
    rules = model.rules
    assert rules is not None
    size = rules.size
    defence = model.defence
    if defence is None and end.my_fleet is not None:
        defence = Defence(rules, end.my_fleet)
    mine = board(size, defence_glyph(defence)) if defence else board(size, lambda s: ".")
    sea = model.view or Sea(rules)
    theirs = board(size, sea_glyph(sea, [], 0, end.their_fleet))
    hidden = "" if end.their_fleet else _(" (never revealed)")
    titles: Line = [
        ("class:box", _("Your fleet").ljust(_width(mine[0]) + 8)),
        ("class:box", _("Their fleet") + hidden),
    ]
    return [titles, *side_by_side(mine, theirs), []]


def wrapped(text: str, width: int, style: str = "") -> list[Line]:
    """``text`` over as many lines as it needs, broken between words."""
    return [[(style, line)] for line in textwrap.wrap(text, width) or [""]]


def analysis_lines(model: Model, width: int) -> list[Line]:
    """The analysis: the player's shots beside the best ones, how hard each fleet was."""
    lines: list[Line] = [[("class:box", _("Analysis of this game"))], []]
    opponent = model.opponent_label()
    for text in model.analysis.lines(model.size, opponent[:1].upper() + opponent[1:]):
        indent = len(text) - len(text.lstrip())
        for line in textwrap.wrap(text, width, subsequent_indent=" " * (indent + 2)) or [""]:
            lines.append([("", line)])
    return lines


def help_lines(model: Model) -> list[Line]:
    """The keys, by where they work: the screen's own first.  The rules screen has keys of
    its own and the battle's cannot be pressed there: its help tells its own instead."""
    keys = _rules_screen_keys(model) if model.stage is Stage.RULES else _play_keys()
    keys += [
        (_("Anywhere"), ""),
        ("  p", _("past games and wins per opponent")),
        (_("  ? or F1"), _("this help;  Esc closes it")),
        ("  q", _("quit (asks first; in battle it resigns)")),
    ]
    if model.stage is not Stage.RULES:
        keys.append(
            (_("  r / a at the end"), _("a rematch (the other side starts) / analyse the game"))
        )
    if model.link.person:  # the computer reads no talk
        talk = ("  t / m", _("talk (Enter says it, Esc closes) / mute the opponent's talk"))
        keys.insert(len(keys) - 1, talk)
    lines: list[Line] = [[("class:box", _("Keys"))]]
    for key, said in keys:
        # A space always parts the key from its words, however long the key.
        lines.append([("class:box" if not said else "", f"{key:<19} {said}")])
    return lines


def _rules_screen_keys(model: Model) -> list[tuple[str, str]]:
    keys = [
        (_("Choosing the rules"), ""),
        (_("  up / down"), _("pick the rules")),
        ("  Enter", _("confirm them and place the fleet")),
    ]
    if model.link.timed:
        keys.append(("  + / -", _("a longer / shorter time for a move")))
    if model.strength_choices:
        keys.append((_("  left / right"), _("how well the computer plays")))
    return keys


def _play_keys() -> list[tuple[str, str]]:
    return [
        (_("Setting up"), ""),
        ("  Tab / Shift-Tab", _("pick the next / previous ship (or click it)")),
        (_("  arrows"), _("move the picked ship")),
        (_("  r or Space"), _("rotate the picked ship")),
        ("  n", _("a new random fleet")),
        ("  Enter", _("start the battle (accept the rules, as the guest)")),
        ("  d", _("decline the host's rules (guest)")),
        ("  R / u", _("choose the rules again (host) / resume an unfinished game")),
        (_("Battle"), ""),
        (_("  arrows"), _("move the cursor on the opponent's sea")),
        (_("  a-j then 1-10"), _("type a square, like b4 or j10; Backspace or Esc undoes it")),
        ("  Enter", _("fire at the cursor (salvo: mark it; all marked: fire)")),
        (_("  Space"), _("mark or unmark a square of the salvo")),
        (_("  mouse"), _("click a ship, then a square; in battle click twice to fire")),
        ("  s", _("shade squares where no ship left fits (hints)")),
    ]


def pick_lines(model: Model) -> list[Line]:
    """The unfinished games to pick one up from, a digit each, the highlighted one marked."""
    lines: list[Line] = [[("class:box", _("Unfinished games: which one goes on?"))], []]
    for index, kept in enumerate(model.kept[:LISTED]):
        chosen = index == model.pick_cursor
        marker = ("class:cursor" if chosen else "", f"{'>' if chosen else ' '} {index + 1}. ")
        lines.append([marker, ("", kept.words())])
    if len(model.kept) > LISTED:
        more = len(model.kept) - LISTED
        lines.append([("", _("  and {n} more: statki resume lists them all").format(n=more))])
    return lines


def history_lines(model: Model, width: int) -> list[Line]:
    games, tallies = model.history
    lines: list[Line] = [[("class:box", _("Past games, newest first (result, end, rules, shots)"))]]
    if not games:
        lines.append([("", _("  no games yet"))])
    lines += [[("", text)] for text in _past_game_rows(games[:9])]
    if any(row.result is None for row in games[:9]):
        # The screen cannot pick a game up itself: the command line can.
        lines.append([("", _("  an unfinished game may be resumed: statki resume lists them"))])
    lines += [[], [("class:box", _("Wins per opponent"))]]
    for tally in tallies[:6]:
        text = _("  {label}: {won} won, {lost} lost of {games}").format(
            label=shown_name(tally.label, tally.key) or _("someone"),
            won=tally.won,
            lost=tally.lost,
            games=tally.games,
        )
        lines.append([("", text)])
    return lines


def _past_game_rows(games: Sequence[GameRow]) -> list[str]:
    """The past games in columns, each as wide as its widest entry in the reader's words
    and a space at least between two (fixed widths ran Polish words together:
    "zatopienieclassic"); the opponent last, where the screen may cut a long name."""
    cells = [
        (
            local_minute(row.started),
            _(row.result or "unfinished"),
            _(row.end_reason) if row.end_reason else "",
            row.rules,
            f"{row.my_shots}:{row.their_shots}",
        )
        for row in games
    ]
    widths = [max((len(cell[at]) for cell in cells), default=0) for at in range(5)]
    rows = []
    for row, (when, *told) in zip(games, cells, strict=True):
        columns = " ".join(text.ljust(width) for text, width in zip(told, widths[1:], strict=True))
        them = shown_name(row.opponent_name, row.opponent_key)
        rows.append(f"  {when}  {columns}  {them}".rstrip())
    return rows


@dataclass(frozen=True)
class Key:
    """One entry of the key bar: a key and what it does, in the player's words."""

    said: str
    brief: str = ""
    """Fewer words for a bar short of room ("" : the same as ``said``)."""
    needed: bool = False
    """Kept however short the bar: without it the screen cannot be left or moved on."""


KEY_GAP = "  "


def keys_line(model: Model, width: int = WIDTH) -> str:
    """The key bar in at most ``width`` columns: every key in full words where they fit,
    else in fewer words, else without the keys least needed; never a key cut in two."""
    return fitted(bar_keys(model), width)


def fitted(keys: Sequence[Key], width: int) -> str:
    """``keys`` in at most ``width`` columns: told more briefly from the end of the bar
    until they fit; if they do not, the least needed are left out, from the end."""

    def line(shown: Sequence[Key], brief: int = len(keys)) -> str:
        """The bar with its last ``brief`` keys told briefly."""
        start = len(shown) - brief
        told = (key.brief or key.said if i >= start else key.said for i, key in enumerate(shown))
        return " " + KEY_GAP.join(told)

    for brief in range(len(keys) + 1):
        if len(said := line(keys, brief)) <= width:
            return said
    kept = list(keys)
    for needed in (False, True):
        for key in reversed(list(kept)):
            if len(said := line(kept)) <= width:
                return said
            if key.needed is needed:
                kept.remove(key)
    return line(kept)


def talk_keys(model: Model) -> list[Key]:
    """t and m where there is a person to talk to, once there is a game to talk in; kept at
    any width there, as the only way to the opponent (hints and past games can wait)."""
    if not model.link.person or model.stage is Stage.CONNECTING:
        return []
    mute = _("m unmute") if model.muted else _("m mute")
    return [Key(_("t talk"), needed=True), Key(mute, needed=True)]


def bar_keys(model: Model) -> list[Key]:
    """The key bar's entries for what the screen shows now, in the order they are shown."""
    help_key, quit_key = Key(_("? help"), needed=True), Key(_("q quit"), needed=True)
    resume = [Key(_("u resume"))] if model.can_pick_up and model.overlay is None else []
    if model.draft is not None and model.overlay is None:
        count = f"{len(model.draft)}/{MAX_SAY_CHARS}"
        return [
            Key(_("Enter say"), needed=True),
            Key(_("Esc close"), needed=True),
            Key(_("Backspace erase")),
            Key(" " + count, needed=True),
        ]
    if model.overlay is Overlay.QUIT:
        yes = _("y resign") if model.stage is Stage.BATTLE else _("y quit")
        return [Key(yes, needed=True), Key(_("n stay"), needed=True)]
    if model.overlay is Overlay.ANALYSIS:
        return [Key(_("a or Esc back"), needed=True), quit_key]
    if model.overlay is Overlay.PICK:
        return [
            Key(_("up/down choose")),
            Key(_("Enter or 1-9 resume it"), needed=True),
            Key(_("Esc back"), needed=True),
        ]
    if model.overlay is not None:
        return [Key(_("Esc back"), needed=True), quit_key]
    if model.stage is Stage.RULES:
        keys = [Key(_("up/down choose the rules"), _("up/down rules"))]
        if model.strength_choices:
            keys.append(Key(_("left/right computer")))
        elif model.move_seconds is not None:
            keys.append(Key(_("+/- time a move"), _("+/- time")))
        return [*keys, Key(_("Enter confirm"), needed=True), *resume, help_key, quit_key]
    if model.stage is Stage.PLACING:
        moving = Key(_("Tab ship  arrows move  r rotate"), _("Tab/arrows/r place"))
        new = Key(_("n new fleet"), _("n new"))
        if model.must_decide:
            keys = [moving, new, Key(_("Enter accept"), needed=True)]
            keys.append(Key(_("d decline"), needed=True))
        elif model.can_choose_rules:
            keys = [moving, new, Key(_("R rules")), Key(_("Enter start"), needed=True)]
        else:
            keys = [moving, new, Key(_("Enter start"), needed=True)]
        return [*keys, *resume, help_key, quit_key]
    past = Key(_("p past games"), _("p past"))
    talk = talk_keys(model)
    if model.stage in (Stage.CONNECTING, Stage.WAITING):
        waiting = Key(model.waiting_words() + " ", needed=True)
        return [waiting, *resume, past, *talk, help_key, quit_key]
    if model.stage is Stage.OVER:
        keys = [Key(_("r rematch"), needed=True)] if model.can_rematch else []
        if model.why_no_analysis() is None:
            keys.append(Key(_("a analyse"), needed=True))
        return [*keys, past, quit_key, help_key]
    if model.salvo:
        aim = Key(_("arrows/a1 aim"))
        keys = [aim, Key(_("Enter mark/fire"), needed=True), Key(_("Space unmark"))]
    else:
        keys = [Key(_("arrows or b4 aim")), Key(_("Enter fire"), needed=True)]
    return [*keys, Key(_("s hints"), _("s hint")), past, *talk, help_key, quit_key]

"""The line-prompt front end (``--plain``): notices in, typed shots out.

It talks to a game through a ``GameHandle``: ``LocalHandle`` wraps a
``GameConnection`` in this process, ``control.RemoteHandle`` a game the
daemon plays.  Either hands it typed notices (``statki_net.net.notices``)
with the boards drawn as text when they were told (``boards.Shown``): both
boards are printed after every volley.  A shot is typed
as its square (``C7``), a salvo as several on one line (``A1 B2 C3``), and
``resign`` (or ``quit``) gives up.  Bad input gets one line and a new prompt.

The players may talk (``say TEXT``), whenever a line is read, in either
side's turn; ``mute`` hides the opponent's lines (they are still kept in the
log) and ``unmute`` shows them again.  None of these words is a square.

At a game's end the prompt offers a rematch with the same opponent, as the
full screen's ``r`` does: ``rematch`` (``rewanż``, ``r``) asks for it, ``quit``
(``q``) or the end of the input leaves (``asks_for_rematch``; the meeting
itself is the command line's, ``netplay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import stat
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TextIO, TypeVar

from statki_client.clock import WARNINGS, their_time_words, your_time_words

from statki_net.cli.common import stdin_is_terminal
from statki_net.cli.told import tell, tell_copyable, width, wrapped
from statki_net.game.answers import Command, typed_as, yes_or_no
from statki_net.game.battle import Cell, Score
from statki_net.game.board import parse_square, square_name, square_words
from statki_net.game.errors import UsageError
from statki_net.game.fleet import Fleet, FleetProblem, random_fleet, typed_fleet
from statki_net.game.picture import fleet_picture
from statki_net.game.rules import CUSTOM_RULES_REFUSED, Ruleset, declined_as_custom
from statki_net.game.rules_words import describe
from statki_net.game.words import N_, phrase
from statki_net.net import notices
from statki_net.net.boards import Shown, shown
from statki_net.net.clock import WALL_CLOCK, Clock
from statki_net.net.connection import GameConnection, GameOverError
from statki_net.net.notices import Notice
from statki_net.protocol.endings import End, Result, end_term
from statki_net.protocol.events import Failed
from statki_net.protocol.session import NO_REASON
from statki_net.protocol.wire import Role
from statki_net.store.language import _, ngettext, words

TALK_HINT = N_("talk: say TEXT; mute / unmute the opponent")
PLACEMENT_PROMPT = N_("fleet (Enter starts, new, your ships, q)> ")
"""The placement's prompt, as ``play --plain`` asks it."""
REMATCH_PROMPT = N_("rematch (r, the other side shoots first), or quit (q): ")
MAX_LINE = 1000
MAX_INPUT = 1024 * 1024
"""Bytes of a standard input that is a file read at most: far more than a game's shots."""
TYPED_AHEAD_WAIT = 0.01
"""Seconds to wait for a line already typed: a whole line in the buffer comes at once."""


T = TypeVar("T")


class Interrupted:
    """The game moved on while a question was asked (the peer left, say)."""


INTERRUPTED = Interrupted()


class GameHandle(Protocol):
    """What a front end needs of a game, wherever it is played."""

    async def next_notice(self) -> Shown | None:
        """The next notice, with the boards as they stood; None after ``Closed``."""
        ...

    async def accept(self, fleet: Fleet) -> None: ...

    async def refuse(self, reason: str) -> None: ...

    async def shoot(self, squares: tuple[int, ...]) -> None: ...

    async def resign(self) -> None: ...

    async def say(self, text: str) -> None:
        """Say a line to the opponent; raises ``UsageError`` when it cannot be said."""
        ...


class LocalHandle:
    """A game played by a ``GameConnection`` in this process."""

    def __init__(self, conn: GameConnection, *, draw_boards: bool = True) -> None:
        self.conn = conn
        self.draw_boards = draw_boards
        """Draw the boards with each notice that shows them (a computer player needs none)."""
        self.queue: asyncio.Queue[Shown] = asyncio.Queue()
        self.finished = False
        conn.listeners.append(self._told)

    def _told(self, notice: Notice) -> None:
        # Drawn now, as the notice is told: by the time it is read the game may be further on.
        told = shown(notice, self.conn.session, words()) if self.draw_boards else Shown(notice)
        self.queue.put_nowait(told)

    async def next_notice(self) -> Shown | None:
        if self.finished:
            return None
        told = await self.queue.get()
        self.finished = isinstance(told.notice, notices.Closed)
        return told

    async def accept(self, fleet: Fleet) -> None:
        self.conn.accept(fleet)

    async def refuse(self, reason: str) -> None:
        self.conn.refuse(reason)

    async def shoot(self, squares: tuple[int, ...]) -> None:
        self.conn.shoot(squares)

    async def resign(self) -> None:
        self.conn.resign()

    async def say(self, text: str) -> None:
        self.conn.say(text)


class LineInput:
    """Lines from standard input without blocking the event loop."""

    def __init__(self, reader: asyncio.StreamReader, *, interactive: bool = False) -> None:
        self.reader = reader
        self.interactive = interactive
        """A person types these lines (a terminal): what they type out of turn is dropped."""
        self._pending: asyncio.Task[str | None] | None = None

    async def discard_typed(self) -> list[str]:
        """Drop the lines typed and not yet read, and return them; a script's are all meant.

        A half-typed line stays: it is finished, and read, once its turn has come.
        """
        if not self.interactive:
            return []
        dropped: list[str] = []
        pending = self._pending
        if pending is not None:
            if not pending.done() or pending.cancelled() or pending.result() is None:
                return dropped  # still waiting for a line, or the input has ended
            dropped.append(pending.result() or "")
            self._pending = None
        while True:
            task = asyncio.ensure_future(self._read())
            done, _ = await asyncio.wait({task}, timeout=TYPED_AHEAD_WAIT)
            if not done:
                task.cancel()  # a line not finished yet: the reader keeps what it has
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                return dropped
            line = task.result()
            if line is None:
                self._pending = task  # the end of the input: told at the next question
                return dropped
            dropped.append(line)

    @classmethod
    async def from_stdin(cls) -> LineInput:
        """Standard input, whatever it is; closed or unreadable, it is an input at its end.

        A pipe, a socket or a terminal is read as lines come; anything else (a
        regular file, ``/dev/null``, which the event loop cannot wait on) is read
        at once, up to ``MAX_INPUT`` bytes, since it cannot block.
        """
        reader = asyncio.StreamReader(limit=MAX_LINE * 4)
        stream = _stdin_stream()
        if stream is not None:
            loop = asyncio.get_running_loop()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
        else:
            reader.feed_data(_stdin_at_once())
            reader.feed_eof()
        return cls(reader, interactive=stdin_is_terminal())

    def next_line(self) -> asyncio.Task[str | None]:
        """The task reading the next line (the same one until it is ``take``n, so a line read
        while nobody asked waits for the next question); None at the end."""
        if self._pending is None or self._pending.cancelled():
            self._pending = asyncio.ensure_future(self._read())
        return self._pending

    def take(self) -> None:
        self._pending = None

    async def asked(self, prompt: str, out: TextIO) -> str | None:
        """The line typed at ``prompt``, when nothing else can cut the question short (no game
        under way); None at the end of the input."""
        print(prompt, end="", file=out, flush=True)
        line = await self.next_line()
        self.take()
        return line

    async def _read(self) -> str | None:
        try:
            line = await self.reader.readline()
        except (ValueError, asyncio.LimitOverrunError):
            return "\x00too long"
        if not line:
            return None
        return line.decode("utf-8", errors="replace").strip()

    def close(self) -> None:
        """Stop waiting for a line: a line read and not taken stays for the next question (a
        rematch's), and the reader keeps what is not read yet."""
        if self._pending is not None and not self._pending.done():
            self._pending.cancel()
            self._pending = None  # cancelling, not cancelled yet: next_line reads anew


def _is_terminal(out: TextIO) -> bool:
    try:
        return out.isatty()
    except (OSError, ValueError):  # closed
        return False


def _stdin_stream() -> TextIO | None:
    """Standard input when the event loop can wait on it (a pipe, socket or terminal)."""
    stdin = sys.stdin
    try:
        if stdin is None:  # fd 0 was closed when Python started
            return None
        mode = os.fstat(stdin.fileno()).st_mode
        waitable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(stdin.fileno())
    except (OSError, ValueError):
        return None
    return stdin if waitable else None


def _stdin_at_once() -> bytes:
    """What standard input holds, read at once (it cannot block); nothing if it cannot."""
    try:
        return sys.stdin.buffer.read(MAX_INPUT) if sys.stdin is not None else b""
    except (OSError, ValueError):  # opened for writing only, say
        return b""


async def placed_at_prompt(
    rules: Ruleset,
    rng: random.Random,
    ask: Callable[[str], Awaitable[str | Interrupted | None]],
    say: Callable[[str], None],
) -> Fleet | Interrupted | None:
    """The player's fleet placed at the line prompt, as ``play --plain`` places it: drawn at
    random and shown; Enter (or ``ok``) plays it, ``new`` draws another, ships typed on one
    line (``B2-E2 G2-G4 ... J1``) are placed as typed; ``q``, a resigning word or the end
    of the input gives up (None).  ``INTERRUPTED`` when the game moved on meanwhile."""
    fleet = random_fleet(rules, rng)
    say(
        _(
            "Your fleet is drawn at random: Enter starts, 'new' draws another,"
            " or type your ships, like B2-E2 G2-G4 J1"
        )
    )
    while True:
        say(_("your fleet") + "\n" + fleet_picture(rules.size, fleet))
        answer = await ask(_(PLACEMENT_PROMPT))
        if isinstance(answer, Interrupted) or answer is None:
            return answer
        if typed_as(answer, Command.QUIT) or typed_as(answer, Command.RESIGN):
            return None
        if typed_as(answer, Command.START):
            return fleet
        if typed_as(answer, Command.NEW):
            fleet = random_fleet(rules, rng)
            continue
        typed = typed_fleet(rules, answer, words())
        if isinstance(typed, FleetProblem):
            say(_("That fleet does not fit: {message}").format(message=typed.message))
            continue
        fleet = typed
        say(_("Your fleet is placed as typed: Enter starts the battle"))


def parse_volley(text: str, size: int, due: int) -> tuple[int, ...]:
    """``"A1 b2,C3"`` as squares; exactly ``due`` of them."""
    squares = tuple(parse_square(word, size) for word in square_words(text))
    if len(squares) != due:
        raise UsageError(
            ngettext(
                "fire exactly {due} shot, not {count}", "fire exactly {due} shots, not {count}", due
            ).format(due=due, count=len(squares))
            + (_(": squares separated by spaces, like A1 B2") if due > 1 else _(": like C7"))
        )
    if len(set(squares)) != len(squares):
        raise UsageError(_("the same square twice in one salvo"))
    return squares


def describe_rules(notice: notices.Rules, me: Role = Role.GUEST) -> list[str]:
    """The host's proposal as the guest reads it before it decides, a line each.

    The rules by name (a preset, a combination, or custom rules with every way
    they depart from the nearest preset), the limits, and who shoots first.
    """
    rules = notice.rules
    fleet = ",".join(str(length) for length in rules.fleet)
    limits = notice.limits
    said = describe(rules, words())  # the players' words for the options, not their values
    lines = [
        _(
            "rules: {name} (fleet {fleet}; {touching}; {turns}); {move} s a move,"
            " {reveal} s for the reveal"
        ).format(
            name=notice.name,
            fleet=fleet,
            touching=said.touching_brief,
            turns=said.turns,
            move=limits.move_ms // 1000,
            reveal=limits.reveal_ms // 1000,
        )
    ]
    match = notice.presets
    if match.custom:
        lines.append(
            _("these rules are no preset; they depart from {nearest} in:").format(
                nearest=match.nearest
            )
        )
        lines += [f"  {difference}" for difference in match.differences()]
    first = notice.first
    if first is None:
        lines.append(_("who shoots first: a coin toss decides"))
    else:
        who = (
            _("you shoot")
            if first is me
            else _("the host shoots")
            if first is Role.HOST
            else _("the guest shoots")
        )
        lines.append(_("who shoots first: {who} first (agreed, no coin toss)").format(who=who))
    return lines


CUSTOM_RULES_DECLINED = (
    "declining: statki accepts only presets and their combinations"
    " unless --custom-rules admits others"
)

RESULT_WORDS = {
    Result.WON: N_("you won"),
    Result.LOST: N_("you lost"),
    Result.NONE: N_("no winner"),
}

REVEALED_NEXT = {
    (End.SUNK, Result.WON): N_("you sank every ship"),
    (End.SUNK, Result.LOST): N_("your last ship sank"),
    (End.RESIGNED, Result.WON): N_("the opponent resigned"),
    (End.RESIGNED, Result.LOST): N_("you resigned"),
}
"""How a battle ended that the reveals may still turn (a finding makes it ``cheated``)."""


def battle_over_words(result: Result, end: End) -> str:
    """The battle's end as it stands, never as the game's result: that comes from the log."""
    how = REVEALED_NEXT.get((end, result))
    if how is None:
        return _("the battle is over ({end})").format(end=end_term(end).in_words(words()))
    return _("the battle is over: {how}; the fleets are revealed and checked").format(how=_(how))


RESULT_SENTENCES = {
    (End.RESIGNED, Result.WON): N_("you won: the opponent resigned"),
    (End.RESIGNED, Result.LOST): N_("you lost: you resigned"),
}
"""Results that ``you won (resigned)`` would tell the wrong way round (who resigned?)."""


def result_words(closed: notices.Closed) -> str:
    """The game's result as the referee finds it in this side's log: ``you won (sunk)``."""
    if closed.end is None:
        standing = closed.standing.value if closed.standing else "no log"
        return _("no result ({standing})").format(standing=standing)
    sentence = RESULT_SENTENCES.get((closed.end, closed.result))
    if sentence is not None:
        return _(sentence)
    return f"{_(RESULT_WORDS[closed.result])} ({_(closed.end.value)})"


class PromptPlayer:
    """Plays one game at the line prompt; ``play`` returns the ``Closed`` notice."""

    def __init__(
        self,
        handle: GameHandle,
        lines: LineInput | None,
        out: TextIO,
        *,
        fleet: Fleet | None = None,
        fleet_for: Callable[[Ruleset], Fleet | None] | None = None,
        rng: random.Random | None = None,
        quiet: bool = False,
        custom_rules: bool = False,
        muted: bool = False,
        remember_mute: Callable[[bool], None] | None = None,
        leave: Callable[[], Awaitable[None]] | None = None,
        move_ms: int | None = None,
        bell: bool = True,
        rules: Ruleset | None = None,
    ) -> None:
        self.handle = handle
        self.lines = lines
        self.out = out
        self.fleet = fleet
        self.fleet_for = fleet_for
        """The player's own fleet once the rules are known (a guest's --fleet file)."""
        self.rng = rng or random.SystemRandom()
        self.quiet = quiet
        """Print only the game's start and end (a computer plays this side)."""
        self.custom_rules = custom_rules
        """Ask the player about rules that are no preset, instead of declining them."""
        self.size = 10
        self.closed: notices.Closed | None = None
        self.failure: Failed | None = None
        """Why the game stopped early, as the last ``Failed`` notice said."""
        self._notice: asyncio.Task[Shown | None] | None = None
        self._owed: int | None = None
        """The shots of a turn not yet fired (asked again if the question is cut short)."""
        self.fired: set[int] = set()
        """The squares this side fired at: a shot there again is a miss, so it is asked twice."""
        self._warned: tuple[int, ...] | None = None
        """The volley last warned of; typed again, it is fired."""
        self._their_turn_was_last = True
        """The opponent moved last (or nobody has): lines typed meanwhile were out of turn."""
        self._held_back: list[str] = []
        """A person's lines typed in the opponent's turn that were no command: not fired."""
        self._in_battle = False
        """The battle is on (started, not over): ``resign`` typed any time gives it up."""
        self.muted = muted
        """The player muted the opponent's talk: not shown (it is still in the log)."""
        self.remember_mute = remember_mute
        """Keeps ``muted`` with the game's kept state, for when it is picked up."""
        self.opponent = _("opponent")
        """How the opponent's lines are introduced: its name, once it said hello."""
        self.met = False
        """The opponent said hello: there is somebody to offer a rematch with."""
        self.leave = leave
        """Gives up a rematch its opponent has not come to (``quit`` typed meanwhile)."""
        self._wraps = _is_terminal(out)
        self.move_ms = move_ms
        """This side's time for a move (the rules' limit), when the game's session is not
        here to say when its move is due (a daemon's game; the guest learns it from the
        rules)."""
        self.bell = bell
        """Ring the terminal's bell when this side's turn begins (``--no-bell``: not)."""
        self._clock: Clock = handle.conn.clock if isinstance(handle, LocalHandle) else WALL_CLOCK
        self._deadline: int | None = None
        """When the move counted down is due (ms on ``_clock``): this side's in its turn,
        the opponent's in theirs."""
        self._told_due: notices.Due | None = None
        """The deadline of the move to be made, as the daemon's last notice of a move said."""
        self._counting_mine = True
        """The clock counts this side's move down (else the opponent's)."""
        self._warnings: list[int] = []
        """The warnings (seconds left) still to be given of the move counted down."""
        self.rules = rules
        """The game's rules, once known (the host's own; a guest's from the host's hello)."""
        self._score: Score | None = None
        """Who moves next and whether the battle is over, from the answers told so far
        (player 0 is this side): when the opponent's move begins."""

    def say(self, text: str) -> None:
        """Print a line for the player: on a terminal wrapped between words to its width, as
        ``told`` wraps the command line's (a cut word is lost to a screen reader); whole in
        a pipe or a file, where a script reads it as the one line it is."""
        columns = width(self.out) if self._wraps else None
        print(wrapped(text, columns=columns), file=self.out, flush=True)

    def _draw(self, boards: str) -> None:
        """The boards as drawn (a row is never wrapped), their legend below them wrapped as
        any line is."""
        grid, _newline, legend = boards.rpartition("\n")
        if grid:
            print(grid, file=self.out, flush=True)
        self.say(legend)

    async def play(self) -> notices.Closed:
        try:
            while (told := await self._between_turns()) is not None:
                self._notice = None
                await self._on(told.notice, told.boards)
        finally:
            if self.lines:
                self.lines.close()
            if self._notice is not None:
                self._notice.cancel()
        if self.closed is None:
            raise UsageError(phrase(N_("the game ended without a word")))
        return self.closed

    async def _on(self, notice: Notice, boards: str) -> None:
        if isinstance(notice, notices.Rules | notices.Started | notices.Turn | notices.Volley):
            self._told_due = notice.due
        elif isinstance(notice, notices.Over):
            self._told_due = None  # no more moves
        if isinstance(notice, notices.Volley):
            self._their_turn_was_last = not notice.mine
            if notice.mine:
                self.fired.update(parse_square(name, self.size) for name in notice.squares)
            if self._score is not None and not self._score.over:
                self._score = self._score.after(notice.answer)
        match notice:
            case notices.Hello(name=name, key=key, address=address):
                said = (
                    _("opponent: {name} [{key}] from {address}")
                    if address
                    else _("opponent: {name} [{key}]")
                )
                self.say(said.format(name=name or _("(no name)"), key=key, address=address))
                self.opponent = name or self.opponent
                self.met = True
            case notices.Talk(mine=mine, text=text) if self._shows(notice):
                if mine:
                    self.say(_("you said: {text}").format(text=text))
                else:
                    self.say(_("{name} says: {text}").format(name=self.opponent, text=text))
            case notices.Rules():
                self.move_ms = notice.limits.move_ms
                self.rules = notice.rules
                for line in describe_rules(notice):
                    self.say(line)
                if self.lines is None:
                    pass  # the computer decides for this side
                elif declined_as_custom(notice.rules, self.custom_rules):
                    self.say(CUSTOM_RULES_DECLINED)
                    await self._quietly(self.handle.refuse(CUSTOM_RULES_REFUSED))
                else:
                    await self._decide(notice)
            case notices.Started(you_first=you_first, size=size):
                self.size = size
                self._in_battle = True
                if self.muted and self.remember_mute is not None:
                    self.remember_mute(True)  # a rematch's: kept with it, as the last game's
                self.say(_("you shoot first") if you_first else _("your opponent shoots first"))
                if self.lines is not None and not self.quiet:
                    self.say(_(TALK_HINT))
                if not self.quiet:
                    self._draw(boards)
                self._score = self._first_score(you_first)
                self._their_move_begins()
            case notices.Turn(shots=shots) if self.lines is not None:
                self._owed = shots
                if self._their_turn_was_last:
                    await self._discard_typed_out_of_turn()
                await self._clocked_turn(shots)
            case notices.Volley(mine=mine, squares=squares) if not self.quiet:
                self.say(
                    (
                        _("you fired {squares}: {answer}")
                        if mine
                        else _("they fired {squares}: {answer}")
                    ).format(squares=" ".join(squares), answer=notice.words_in(words()))
                )
                self._draw(boards)
                self._their_move_begins()
            case notices.Lost(wait_ms=wait_ms):
                self._deadline = None  # the opponent's move: the wait said is the clock now
                self.say(_("connection lost: {detail}").format(detail=notice.words_in(words())))
                if wait_ms is None and self._owed is not None and self.lines is not None:
                    # The question was cut short: asked again, with the time left.
                    await self._clocked_turn(self._owed, ring=False)
            case notices.Reconnecting():
                self.say(notice.words_in(words()))
            case notices.Reconnected():
                self.say(notice.words_in(words()))
                # The game goes on where it stood: this side's turn (cut short by the loss)
                # asked again, or the opponent's counted down, with the time left of it.
                if self._owed is not None and self.lines is not None:
                    await self._clocked_turn(self._owed, ring=False)
                else:
                    self._their_move_begins()
            case notices.Over(result=result, end=end):
                self._in_battle = False
                self._deadline = None
                # Not a result yet: a finding at the reveal may still change it.
                self.say(battle_over_words(result, end))
            case Failed():
                self.failure = notice
                if not notice.turned_away:  # said once, as the command's one line
                    said = notice.plainly().in_words(words())
                    self.say(_("the game stopped: {why}").format(why=said[:1].lower() + said[1:]))
            case notices.Closed() if self.failure is not None and self.failure.turned_away:
                self.closed = notice  # no game to tell of: the command's one line says why
            case notices.Closed(log=log):
                self._in_battle = False
                self.closed = notice
                self.say(result_words(notice))
                verdict = notice.verdict_in(words())
                # Told as the game without a daemon is: the verdict wrapped between words,
                # the log's path whole (the terminal cut "zatopiona; cla" / "ssic").
                if verdict:
                    tell(_("verdict: {verdict}").format(verdict=verdict), to=self.out)
                if log:
                    tell_copyable(_("log: {path}"), str(log), to=self.out)
                if notice.failure_said:  # a game that never began: the daemon said why
                    self.say(f"! {notice.failure_said.in_words(words())}")

    async def asks_for_rematch(self) -> bool:
        """At the game's end: whether the player asks for a rematch (the rematch word, in
        either language); a leaving word, a no or the end of the input is not one, and
        anything else is asked again, as every question at the prompt is."""
        assert self.lines is not None
        await self.lines.discard_typed()  # a person's shot typed as the game ended: not an answer
        while True:
            print(_(REMATCH_PROMPT), end="", file=self.out, flush=True)
            line = await self.lines.next_line()
            self.lines.take()
            if line is None:
                print(file=self.out, flush=True)
                return False
            if typed_as(line, Command.REMATCH):
                return True
            if typed_as(line, Command.QUIT) or yes_or_no(line) is False:
                return False
            self.say(_("! the game is over: r asks for a rematch, q leaves"))

    async def unless_left(self, waiting: Awaitable[T]) -> T | None:
        """What ``waiting`` (a rematch's meeting) gives, or None once the player typed a
        leaving word meanwhile: the wait is given up.  Any other line typed stays for the
        next question (a script's answer to the rematch's rules, say)."""
        assert self.lines is not None
        task = asyncio.ensure_future(waiting)
        line = self.lines.next_line()
        await asyncio.wait({task, line}, return_when=asyncio.FIRST_COMPLETED)
        typed = line.result() if line.done() and not task.done() else None
        if typed is not None and typed_as(typed, Command.QUIT):
            self.lines.take()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return None
        return await task

    async def _between_turns(self) -> Shown | None:
        """The next notice; a command typed meanwhile (talk, resigning) is carried out at once.

        A shot typed now is no command: a script's waits for the next question, as
        before; a person's is held back, and said as not fired when the turn comes,
        while the lines typed after it are still read (a ``mute`` acts at once).
        """
        notice = self._upcoming()
        reading = self.lines is not None
        while not notice.done():
            line = self.lines.next_line() if self.lines is not None and reading else None
            if line is not None and line.done():
                assert self.lines is not None
                typed = line.result()
                if await self._carried_out(typed):
                    self.lines.take()
                elif self.lines.interactive and self._in_battle and typed is not None:
                    self.lines.take()
                    self._held_back.append(typed)
                else:
                    reading = False  # a line for the next question: it waits for it
                continue
            waits = {notice} if line is None else {line, notice}
            await asyncio.wait(
                waits, timeout=self._until_warning(), return_when=asyncio.FIRST_COMPLETED
            )
            if not any(waited.done() for waited in waits):
                self._warn()  # the opponent's move: its time is running low
        return await notice

    async def _carried_out(self, line: str | None) -> bool:
        """Carry out ``line`` if it is a command for any moment (talk, resigning the battle,
        or leaving a rematch not met yet)."""
        return (
            await self._talked(line)
            or await self._left_before_meeting(line)
            or await self._resigned_out_of_turn(line)
        )

    async def _resigned_out_of_turn(self, line: str | None) -> bool:
        """Carry out ``line`` if it resigns the battle while the opponent is to move: the
        resignation goes in place of this side's next message (SPEC.md section 8).  A
        script's lines are meant in order: its ``resign`` waits for the next question."""
        if line is None or not self._in_battle or not typed_as(line, Command.RESIGN):
            return False
        if self.lines is None or not self.lines.interactive:
            return False
        self._owed = None
        self.say(_("resigning: it is sent in place of your answer to the opponent's next shot"))
        await self._quietly(self.handle.resign())
        return True

    async def _left_before_meeting(self, line: str | None) -> bool:
        """Carry out ``line`` if it leaves a rematch its opponent has not come to yet."""
        if self.leave is None or self.met or line is None or not typed_as(line, Command.QUIT):
            return False
        await self._quietly(self.leave())
        return True

    async def _talked(self, line: str | None) -> bool:
        """Carry out ``line`` if it is a talk command (``say``, ``mute``, ``unmute``)."""
        if line is None:
            return False
        word, _space, text = line.partition(" ")
        if typed_as(word, Command.SAY):
            if not text.strip():
                self.say(f"! {_(TALK_HINT)}")
                return True
            try:
                await self.handle.say(text.strip())
            except UsageError as error:
                self.say(f"! {error.in_words(words())}")
            return True
        muting = typed_as(word, Command.MUTE)
        if (muting or typed_as(word, Command.UNMUTE)) and not text.strip():
            self.muted = muting
            if self.remember_mute is not None:
                self.remember_mute(self.muted)
            self.say(
                _("{name}'s talk is hidden (still kept in the log)").format(name=self.opponent)
                if self.muted
                else _("{name}'s talk is shown again").format(name=self.opponent)
            )
            return True
        return False

    def _upcoming(self) -> asyncio.Task[Shown | None]:
        if self._notice is None:
            self._notice = asyncio.ensure_future(self.handle.next_notice())
        return self._notice

    async def _ask(self, prompt: str) -> str | Interrupted | None:
        """A line typed at ``prompt``, or ``INTERRUPTED`` if the game moved on meanwhile."""
        assert self.lines is not None
        print(prompt, end="", file=self.out, flush=True)
        while True:
            line = self.lines.next_line()
            # Once the game is over (a rematch's fleet placed) no notice cuts a question short.
            notice: asyncio.Future[Shown | None] = (
                self._upcoming()
                if self.closed is None
                else asyncio.get_running_loop().create_future()
            )
            waits: set[asyncio.Future[Any]] = {line, notice}
            waiting = self._until_warning()
            await asyncio.wait(waits, timeout=waiting, return_when=asyncio.FIRST_COMPLETED)
            if not (line.done() or notice.done()):
                # A warning is due: said on its own line, and the same question asked again
                # (what the player has typed so far stays in the terminal's line).
                print(file=self.out, flush=True)
                self._warn()
                print(prompt, end="", file=self.out, flush=True)
                continue
            if line.done():
                self.lines.take()
                return line.result()
            told = notice.result()
            if told is None or not isinstance(told.notice, notices.Talk):
                print(file=self.out, flush=True)
                return INTERRUPTED
            # Talk moves no game on: shown (unless muted), and the same question still asked.
            self._notice = None
            if self._shows(told.notice):
                print(file=self.out, flush=True)
                await self._on(told.notice, told.boards)
                print(prompt, end="", file=self.out, flush=True)

    def _start_clock(self, *, ring: bool = True) -> None:
        """This side's turn begins: its time left said (and the bell rung), the warnings
        to come set.  The deadline is the session's (``turn_clock``, what the full screen
        counts down) where it is played here, else the move limit from now."""
        if self._count_down(mine=True):
            if ring and self.bell and self._wraps:
                print("\a", end="", file=self.out, flush=True)  # a terminal's bell, not a script's
            self.say(self._warning())

    def _their_move_begins(self) -> None:
        """The opponent is to move, by the answers so far: the time it has said, and its
        warnings to come set, as this side's own are (no bell: that is for one's own turn)."""
        score = self._score
        if self.quiet or self.lines is None or score is None or score.over or score.to_move == 0:
            return
        if self._count_down(mine=False):
            self.say(self._warning())

    def _count_down(self, *, mine: bool, deadline: int | None = None) -> bool:
        """Count down this side's move (``mine``) or the opponent's, due at ``deadline``
        (by default the game's, ``_move_deadline``); False when no time limit is known for
        it (nothing is counted)."""
        self._deadline, self._warnings, self._counting_mine = None, [], mine
        deadline = deadline or self._move_deadline(mine=mine)
        if deadline is None:
            return False
        self._deadline = deadline
        left = self._seconds_left()
        self._warnings = [warning for warning in WARNINGS if left > warning]
        return True

    def _first_score(self, you_first: bool) -> Score | None:
        """The battle's score as it begins, where the rules are known."""
        rules = self.rules
        if rules is None and isinstance(self.handle, LocalHandle):
            rules = self.handle.conn.session.rules
        return Score(rules, 0 if you_first else 1) if rules is not None else None

    async def _clocked_turn(self, shots: int, *, ring: bool = True) -> None:
        """This side's turn asked for, its time left said first."""
        self._start_clock(ring=ring)
        try:
            await self._turn(shots)
        finally:
            self._deadline = None  # the turn is over: no warning is due

    def _move_deadline(self, *, mine: bool) -> int | None:
        """When the move (this side's, or the opponent's) is due, None if that side is not
        the one to move: the session's clock where the game is played here, else the one
        the daemon's last notice of a move (or of the rules) said, the session's there,
        else (a daemon before it said one) the move limit from now."""
        if isinstance(self.handle, LocalHandle):
            session = self.handle.conn.session
            clock = session.turn_clock()
            if clock is None or (clock[0] is session.role) is not mine:
                return None
            return clock[1]
        if self._told_due is not None:
            return self._told_due.at if self._told_due.mine is mine else None
        return self._clock.now() + self.move_ms if self.move_ms else None

    def _seconds_left(self) -> int:
        assert self._deadline is not None
        return max(0, -(-(self._deadline - self._clock.now()) // 1000))  # rounded up

    def _until_warning(self) -> float | None:
        """Seconds (of the event loop) until the next warning of the move counted is due."""
        if self._deadline is None or not self._warnings:
            return None
        return self._clock.delay(self._deadline - self._warnings[0] * 1000)

    def _warning(self, due: int | None = None) -> str:
        """The time left, in the full screen's words (``statki_client.clock``); the warning
        ``due``'s words when it is given (the loop may wake a moment early)."""
        left = self._seconds_left()
        if self._counting_mine:
            return your_time_words(left, due).text
        return their_time_words(self.opponent, left, due).text

    def _warn(self) -> None:
        """The next warning of the move counted down, said now that it is due."""
        due = self._warnings.pop(0)
        self.say(self._warning(due))

    def _shows(self, talk: notices.Talk) -> bool:
        """Whether a line of talk is printed: this side's always, the opponent's unless muted
        (or a computer plays this side)."""
        return talk.mine or not (self.muted or self.quiet)

    async def _decide(self, notice: notices.Rules) -> None:
        rules = notice.rules
        while True:
            answer = await self._ask(_("play by these rules? [y/n] "))
            if isinstance(answer, Interrupted):
                return
            if await self._talked(answer):
                continue
            agreed = yes_or_no(answer) if answer is not None else False
            if agreed is False or (answer is not None and typed_as(answer, Command.RESIGN)):
                await self._quietly(self.handle.refuse(NO_REASON))
                return
            if agreed:
                try:
                    chosen = self.fleet or (self.fleet_for(rules) if self.fleet_for else None)
                except UsageError as error:
                    said = error.in_words(words())
                    self.say(_("your fleet does not fit these rules: {error}").format(error=said))
                    await self._quietly(self.handle.refuse("the guest's fleet does not fit"))
                    return
                if chosen is None and self.lines is not None and self.lines.interactive:
                    placed = await self._placed(rules)  # a person places it, as play --plain
                    if isinstance(placed, Interrupted):
                        return
                    if placed is None:
                        await self._quietly(self.handle.refuse(NO_REASON))
                        return
                    chosen = placed
                await self._quietly(self.handle.accept(chosen or random_fleet(rules, self.rng)))
                return
            self.say(_("answer y or n"))

    async def _placed(self, rules: Ruleset) -> Fleet | Interrupted | None:
        """The fleet placed at the prompt before it is committed, in the time the rules give
        for it (told and warned of as a move's); None if the player gives up."""
        self._start_clock(ring=False)
        try:
            return await placed_at_prompt(rules, self.rng, self._ask_talking, self.say)
        finally:
            self._deadline = None

    async def placed_again(self, rules: Ruleset, move_ms: int) -> Fleet | None:
        """The fleet of a rematch this side hosts, placed at the prompt once this game is over,
        as the first game's was, in the move (``move_ms``) its opponent waits for the rules
        (told and warned of as a move's); None if the player gives up instead."""
        assert self.closed is not None, "placed between games: no notice cuts it short"
        if self._count_down(mine=True, deadline=self._clock.now() + move_ms):
            self.say(self._warning())
        try:
            placed = await placed_at_prompt(rules, self.rng, self._ask, self.say)
        finally:
            self._deadline = None
        return placed if isinstance(placed, Fleet) else None

    async def _ask_talking(self, prompt: str) -> str | Interrupted | None:
        """``_ask``, a talk command typed at the question carried out and the question asked
        again."""
        while isinstance(answer := await self._ask(prompt), str) and await self._talked(answer):
            pass
        return answer

    async def _turn(self, due: int) -> None:
        """Ask for a volley until one is fired; give up asking if the game moves on."""
        while True:
            line = await self._ask(
                ngettext(
                    "your shot ({due}), or resign: ", "your shots ({due}), or resign: ", due
                ).format(due=due)
            )
            if isinstance(line, Interrupted):
                return
            if line is None:
                self.say(_("no more input: resigning"))
                self._owed = None
                await self._quietly(self.handle.resign())
                return
            if typed_as(line, Command.RESIGN):
                self._owed = None
                await self._quietly(self.handle.resign())
                return
            if not line or await self._talked(line):
                continue
            try:
                volley = parse_volley(line, self.size, due)
                if self._warn_of_repeats(volley):
                    continue
                await self.handle.shoot(volley)
            except UsageError as error:
                self.say(f"! {error.in_words(words())}")
                if isinstance(error, GameOverError):
                    self._owed = None
                    return
                continue
            self._owed = None
            return

    async def _discard_typed_out_of_turn(self) -> None:
        """What was typed during the opponent's turn is not fired now: it is dropped and said."""
        assert self.lines is not None
        typed = self._held_back + await self.lines.discard_typed()
        self._held_back = []
        dropped = [line for line in typed if line and not await self._carried_out(line)]
        if dropped:
            self.say(
                _(
                    "! Not fired: {join}, typed during the opponent's turn; type your shot now."
                ).format(join=" / ".join(dropped))
            )

    def _warn_of_repeats(self, volley: tuple[int, ...]) -> bool:
        """Whether to ask again before firing at squares that cannot hit (the first time):
        fired at before, or known to be empty beside a sunk ship."""
        again = [square for square in volley if square in self.fired]
        empty = [square for square in volley if square in self._known_empty()]
        if not (again or empty) or volley == self._warned:
            self._warned = None
            return False
        self._warned = volley
        if again:
            names = ", ".join(square_name(square, self.size) for square in again)
            self.say(
                _(
                    "! You have fired at {names} before, and a shot there again counts as a miss;"
                    " type the same again to fire anyway."
                ).format(names=names)
            )
        if empty:
            names = ", ".join(square_name(square, self.size) for square in empty)
            self.say(
                _(
                    "! {names}: no ship can be there, beside a ship already sunk; type the same"
                    " again to fire anyway."
                ).format(names=names)
            )
        return True

    def _known_empty(self) -> set[int]:
        """Squares the answers so far show to be empty, where this process plays the game
        (a daemon's game tells the boards as text only: nothing is known here)."""
        if not isinstance(self.handle, LocalHandle):
            return set()
        view = self.handle.conn.session.view
        if view is None:
            return set()
        return {s for s in range(self.size * self.size) if view.cell(s) is Cell.EMPTY}

    async def _quietly(self, action: Any) -> None:
        """An action the game may have made moot (it ended meanwhile): report, go on."""
        with contextlib.suppress(asyncio.CancelledError):
            try:
                await action
            except UsageError as error:
                self.say(f"! {error.in_words(words())}")

"""The line prompt: the same model, boards printed after each move, squares typed.

For scripts, screen readers and terminals that cannot do more.  Every line
read is one command; piping squares into standard input plays a whole game
(``A1`` to ``J10``, one a line, sinks every fleet).  The end of the input
resigns a game in progress and leaves.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from statki_net.game.answers import Command, typed_as, yes_or_no
from statki_net.game.board import parse_square, square_words
from statki_net.game.errors import UsageError
from statki_net.game.words import N_
from statki_net.store.language import _

from .layout import WIDTH, plain, screen
from .model import Model, Overlay, Stage
from .review import AnalysisJob, AnalysisStatus, Report, ShotsReviewed, Update, accuracy_words

ReadLine = Callable[[str], str | None]
"""Show a prompt, return the line read (without its newline), None at the end of input."""
Write = Callable[[str], None]

HELP = N_(
    """\
Setting up:  Enter or "ok" starts with the fleet shown; "new" draws another;
             or type your ships on one line, like B2-E2 G2-G4 A5-A7 ... J1;
             "d" declines the host's rules (guest).
Battle:      type squares, like b4 or J10 (a salvo: several on a line, or one a
             line until the salvo is full: it fires then); "hints" toggles the
             shading of squares where no ship left fits.
Anywhere:    "history" lists past games; "q" quits (in battle it resigns).
At the end:  "a" analyses the game (your shots beside the best ones, how hard
             each fleet was to find); "r" for a rematch in which the other side
             shoots first; "q" leaves."""
)
"""The line prompt's help, translated where it is written."""


def run_plain(model: Model, read_line: ReadLine, write: Write) -> None:
    """Play until the player leaves or the input ends (``model`` made with ``at_prompt``)."""
    _show(model, write)
    over_shown = model.stage is Stage.OVER
    while not model.done:
        stage, volleys = model.stage, len(model.volleys)
        line = read_line(_prompt(model))
        if line is None:
            _end_of_input(model)
            break
        _command(model, line.strip(), read_line, write)
        if model.overlay is Overlay.HISTORY or model.overlay is Overlay.HELP:
            write(plain(screen(model)))
            model.overlay = None
        elif model.stage is not stage or len(model.volleys) != volleys:
            _show(model, write)
            over_shown = model.stage is Stage.OVER
        elif model.notice:
            write(textwrap.fill(model.notice, WIDTH))  # as the screen wraps it: never cut
    if model.stage is Stage.OVER and model.end_screen is not None and not over_shown:
        write(f"{model.end_screen.verdict}")  # the input ended: the result, said once


def _prompt(model: Model) -> str:
    if model.stage is Stage.PLACING:
        return _("fleet (Enter starts, new, your ships, q)> ")
    if model.stage is Stage.OVER:
        analyse = _("a analyse, ") if model.why_no_analysis() is None else ""
        return _("{analyse}r rematch, q quit> ").format(analyse=analyse)
    if model.salvo and model.my_turn:
        return _("salvo, {n} to mark> ").format(n=model.shots_due - len(model.marks))
    return _("shot> ")


def _show(model: Model, write: Write) -> None:
    """The screen without its key line (the prompt says what to type) or blank runs."""
    lines = plain(screen(model)).split("\n")[:-1]
    kept = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    write("\n".join(kept).rstrip())


def _command(model: Model, line: str, read_line: ReadLine, write: Write) -> None:
    word = line.lower()
    if typed_as(word, Command.QUIT):
        model.ask_quit()
        if model.overlay is Overlay.QUIT:
            if _asked_yes(model.quit_consequence() + " ", read_line, write):
                model.confirm_quit()
            else:
                model.cancel_quit()
        return
    if typed_as(word, Command.HELP):
        write(_(HELP))
        model.notice = ""  # said before the help: not to be said again under it
        return
    if typed_as(word, Command.HISTORY):
        model.toggle_overlay(Overlay.HISTORY)
        return
    if model.stage is Stage.PLACING:
        if typed_as(word, Command.START):
            model.ready()
        elif typed_as(word, Command.NEW):
            model.reroll()
        elif typed_as(word, Command.DECLINE):
            model.decline()
        else:
            model.place_typed(line)
        return
    if model.stage is Stage.OVER:
        if typed_as(word, Command.REMATCH):
            model.rematch()
        elif typed_as(word, Command.ANALYSE):
            _analyse(model, write)
        else:
            model.say(_("The game is over: a analyses it, r starts a rematch, q leaves"))
        return
    if typed_as(word, Command.HINTS):
        model.toggle_hints()
        return
    for text in square_words(line):
        _shoot(model, text)


def _asked_yes(question: str, read_line: ReadLine, write: Write) -> bool:
    """Whether the player says yes to ``question``; asked again until the answer is yes or
    no.  The end of the input is a yes: nobody is left to play on."""
    while (answer := read_line(question)) is not None:
        said = yes_or_no(answer)
        if said is not None:
            return said
        write(_("answer y or n"))
    return True


def _shoot(model: Model, text: str) -> None:
    if model.stage is not Stage.BATTLE:
        return
    try:
        model.cursor = parse_square(text, model.size)
    except UsageError:  # the core's reason is English; the screen says it in the player's words
        model.say(_("{typed} is not a square of this board").format(typed=text), trouble=True)
        return
    model.choose()
    if model.salvo and model.my_turn and len(model.marks) == model.shots_due:
        model.fire()


def _analyse(model: Model, write: Write) -> None:
    """The analysis, at once, in words; a word as the shots are reviewed, then all of it."""
    reason = model.why_no_analysis()
    if reason:
        write(reason)
        return
    if model.analysis.status is AnalysisStatus.DONE:
        _write_analysis(model, write)
        return

    def tell_as_it_goes(job: AnalysisJob, report: Report) -> None:
        def on_update(update: Update) -> None:
            report(update)
            if isinstance(update, ShotsReviewed):
                write(_("Your shots: {accuracy}").format(accuracy=accuracy_words(update.mine)))
                write(_("Estimating how hard the fleets were to find..."))

        job.run(on_update)

    runner, model.background = model.background, tell_as_it_goes
    write(_("Analysing the game: reviewing the shots..."))
    try:
        model.analyse()
    finally:
        model.background = runner
        model.overlay = None
    _write_analysis(model, write)
    model.say("")


def _write_analysis(model: Model, write: Write) -> None:
    opponent = model.opponent_label()
    lines = model.analysis.lines(model.size, opponent[:1].upper() + opponent[1:])
    write("\n".join(_between_words(line) for line in lines).rstrip())


def _between_words(line: str) -> str:
    """``line`` wrapped between words to the screen's width, as the screen wraps its notices
    (a terminal cuts it mid-word), its indent kept and its continuation indented further."""
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.fill(
        line,
        WIDTH,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _end_of_input(model: Model) -> None:
    """No more lines: resign a battle in progress (so nothing hangs), then leave."""
    if model.stage is Stage.OVER:
        model.quitting = True
        return
    model.ask_quit()
    if model.overlay is Overlay.QUIT:
        model.confirm_quit()
    model.quitting = True  # nobody is left to read the end: leave once it is made

"""The ``statki`` command line: one parser, each command a module of ``statki_net.cli``."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_READER_GONE = 130, 143, 141
"""The shell's numbers for a command stopped by SIGINT (Ctrl-C), by SIGTERM, and by SIGPIPE
(what reads its output stopped: ``statki record LOG | head -1``)."""

try:
    # Ctrl-C in the first second lands in these imports: one line, not a traceback.
    import argparse
    from collections.abc import Callable, Sequence
    from types import FrameType

    from statki_net.cli.commands import BY_NAME, COMMANDS, adder
    from statki_net.cli.common import EXIT_BAD_INPUT, Metavar, home_argument
    from statki_net.game.english import N_
    from statki_net.game.errors import StatkiError
    from statki_net.store import language
    from statki_net.store.language import _, ngettext
    from statki_net.store.picked import ChosenToResume
    from statki_net.version import SOFTWARE
except KeyboardInterrupt:
    print("statki: interrupted", file=sys.stderr)
    raise SystemExit(EXIT_INTERRUPTED) from None


Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None
"""What ``signal.signal`` takes and returns."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be so that it stops a command the same way."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names; its exit status.

    A reader of the output that stops early (``| head -1``) ends the command quietly, as
    SIGPIPE ends a C program: Python ignores SIGPIPE, so the write raises instead, here or
    in the flush at exit (another pipe or socket broken is told: ``_reader_gone``).
    Flushed here, so that it is raised where it can be caught; then standard output goes
    to ``os.devnull``, so that the flush at exit finds nothing to complain of (the recipe
    of Python's ``signal`` documentation).
    """
    try:
        try:
            return _command(sys.argv[1:] if argv is None else list(argv))
        finally:
            sys.stdout.flush()  # SystemExit too: ``--help | head -1``
    except BrokenPipeError:
        _output_to_nowhere()
        return EXIT_READER_GONE


def _reader_gone() -> bool:
    """Whether it is standard output whose reader has gone, not some other pipe or socket
    (the control socket, a peer's) that broke: that one is a failure to be told.

    The write that failed may be anywhere in the command, so standard output itself is
    asked: a pipe whose reading end is closed polls as an error, a socket whose peer
    left as hung up (both reported whatever was asked for)."""
    import select

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a test's capture: no descriptor
        return False
    poller = select.poll()
    poller.register(fd, 0)
    return any(events & (select.POLLERR | select.POLLHUP) for _fd, events in poller.poll(0))


def _output_to_nowhere() -> None:
    """What is left for standard output written to ``os.devnull`` (not a file: a test's
    capture, which has no descriptor, keeps it)."""
    with contextlib.suppress(OSError, ValueError):
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, sys.stdout.fileno())
        os.close(nowhere)


def _command(argv: list[str]) -> int:
    before = _on_sigterm_as_on_ctrl_c()
    # The one place the language is chosen: before the parser, whose help is translated.
    language.speak(_language_asked(argv) or language.from_locale(os.environ))
    _argparse_speaks()
    try:
        args = _parsed(build_parser(argv), argv)
        if getattr(args, "home", None) is None:
            # --home given before the command: the command's own --home defaults to None,
            # and argparse lets a subcommand's default overwrite what came before it.
            args.home = args.home_before
        try:
            return int(args.run(args))
        except ChosenToResume as chosen:  # left a first screen for a kept game: play it on
            from statki_net.cli.resume import resume_chosen

            return resume_chosen(args, chosen.game)
    except KeyboardInterrupt:  # Terminated too
        if _terminated:
            print(_("statki: terminated"), file=sys.stderr)
            return EXIT_TERMINATED
        print(_("statki: interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    except StatkiError as error:
        from statki_net.cli.told import tell_error  # where an error is said, not at start-up

        tell_error(f"statki: {error.in_words(language.words())}")
        return EXIT_BAD_INPUT
    except UnicodeDecodeError as error:
        print(_("statki: not a text file: {reason}").format(reason=error.reason), file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:  # what no shell said with what it was doing
        if isinstance(error, BrokenPipeError) and _reader_gone():
            raise  # nothing to say, nowhere to say it (``main``)
        from statki_net.store.failures import failed

        said = failed(N_("the command"), error).in_words(language.words())
        print(f"statki: {said}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if before is not None:  # main called in a process that is not only statki (tests)
            signal.signal(signal.SIGTERM, before)


def _on_sigterm_as_on_ctrl_c() -> Handler | None:
    """SIGTERM stops a command as Ctrl-C does: a game forfeits by its ``error`` and its log
    is finished, instead of the process vanishing mid-write.

    Under ``asyncio.run`` its runner's SIGINT handler takes it (the main task is
    cancelled, at an ``await``); anywhere else ``Terminated`` is raised (a
    full-screen client's own SIGINT handling is a key press, which SIGTERM is
    not).  The daemon sets handlers of its own.  Only in the main thread, the
    one signals are delivered to; it returns the handler it replaced, for
    ``main`` to put back (None off the main thread).
    """
    try:
        # signal.signal itself says whether this is the main thread (ValueError if not):
        # asking threading would cost every command its import.
        before = signal.signal(signal.SIGTERM, _terminate)
    except ValueError:
        return None
    _terminated.clear()
    return before


_terminated: list[int] = []
"""SIGTERM was handed to asyncio's SIGINT handler: the KeyboardInterrupt that follows is a
termination."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    _terminated.append(signum)
    handler = signal.getsignal(signal.SIGINT)
    if _asyncio_runners(handler):
        assert callable(handler)
        handler(signal.SIGINT, frame)
        return
    raise Terminated


def _asyncio_runners(handler: Handler) -> bool:
    """Whether ``handler`` is the one ``asyncio.run`` installs (a bound ``Runner`` method)."""
    asyncio = sys.modules.get("asyncio")
    owner = getattr(getattr(handler, "func", None), "__self__", None)
    return asyncio is not None and isinstance(owner, asyncio.Runner)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``argv``: the named command in full, every other one by name and help.

    Only the command being run loads its module (and what that imports).
    """
    parser = argparse.ArgumentParser(
        prog="statki", description=_("Battleship of Polish school notebooks, peer to peer.")
    )
    # argparse fills in its version action's help once, at import, before --lang is known
    parser.add_argument(
        "--version",
        action="version",
        version=SOFTWARE,
        help=_("show program's version number and exit"),
    )
    _lang_argument(parser)
    home_argument(parser, dest="home_before")
    commands = parser.add_subparsers(dest="command", required=True, metavar=_(Metavar.COMMAND))
    chosen = _command_word(argv)
    if chosen in BY_NAME:
        adder(BY_NAME[chosen])(commands)
        for command_parser in commands.choices.values():
            _lang_after_the_command(command_parser)
        if _only_the_command_is_read(argv, chosen):
            return parser
    for command in COMMANDS:
        if command.name not in commands.choices:
            commands.add_parser(command.name, help=_(command.help))
    return parser


def _only_the_command_is_read(argv: Sequence[str], chosen: str) -> bool:
    """Whether nothing in ``argv`` can show the other commands: only ``--home`` and ``--lang``
    come before the command's name (``-h`` there, or an option argparse would take as a
    prefix of ``--help``, lists them all).  The others' name-only parsers are then left out:
    17 parsers, a few ms of every quick command (bench/startup.py)."""
    words = iter(argv)
    for word in words:
        if word == chosen:
            return True
        if word in ("--home", "--lang"):
            next(words, None)
        elif not word.startswith(("--home=", "--lang=")):
            return False
    return False


def _parsed(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed; words nobody takes are refused with the usage of the command they
    followed (argparse would show the top level's, naming no option of ``statki daemon``)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        _blamed(parser, args, argv, extra[0]).error(
            _("unrecognized arguments: %s") % " ".join(extra)
        )
    return args


def _blamed(
    parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str], word: str
) -> argparse.ArgumentParser:
    """The innermost command named before ``word`` (``statki fleet check --bogus``: ``fleet
    check``; ``statki --bogus play``: the top level, whose option it was meant to be)."""
    position = argv.index(word) if word in argv else len(argv)
    said = list(argv[:position])
    blamed = parser
    while True:
        chosen = next(
            (
                action.choices.get(getattr(args, action.dest, None) or "")
                for action in blamed._actions
                if isinstance(action, argparse._SubParsersAction)
            ),
            None,
        )
        name = chosen.prog.rsplit(" ", 1)[-1] if chosen is not None else None
        if chosen is None or name not in said:
            return blamed
        said = said[said.index(name) + 1 :]
        blamed = chosen


def _lang_argument(parser: argparse.ArgumentParser, dest: str = "lang") -> None:
    parser.add_argument(
        "--lang",
        choices=language.LANGUAGES,
        dest=dest,
        help=_("the language to speak (default: from LC_ALL, LC_MESSAGES or LANG; else en)"),
    )


def _lang_after_the_command(parser: argparse.ArgumentParser) -> None:
    """``--lang`` after the command too, as ``--home`` is: on the command's parser and on
    those of its own commands (``history list``).  ``main`` reads the language from the
    words before the parser runs, so the parsed value only has to be accepted."""
    _lang_argument(parser, dest="lang_after")
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for inner in action.choices.values():
                _lang_after_the_command(inner)


ARGPARSE_WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
)
"""argparse's own words that a person meets (its usage, its errors), in statki's catalog."""


def _argparse_speaks() -> None:
    """argparse says its words through gettext's global domain, which knows nothing of
    ``--lang``: it is given statki's instead (its module-level ``_`` and ``ngettext``)."""
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def _language_asked(argv: Sequence[str]) -> str | None:
    """The language of the last ``--lang``, before the command or after it, when it names
    one statki speaks (any other value is left to the parser, which says what it takes).
    Words after ``--`` are arguments, not options."""
    asked: str | None = None
    words = iter(argv)
    for word in words:
        if word == "--":
            break
        if word == "--lang":
            asked = next(words, None)
        elif word.startswith("--lang="):
            asked = word.removeprefix("--lang=")
    return asked if asked in language.LANGUAGES else None


def _command_word(argv: Sequence[str]) -> str | None:
    """The command's name: the first word that is no option nor the value of ``--home``
    or ``--lang``."""
    words = iter(argv)
    for word in words:
        if word in ("--home", "--lang"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None

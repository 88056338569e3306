"""The lines the command line prints for a person on the terminal, before the full screen
opens and after it closes: the one place they are printed.

The terminal cuts a line at its width, mid-word ("ships G8-J8 and H7 touch … at H7, G"),
and a path or an invite broken across two lines cannot be copied whole.  So every line
is wrapped between words to the terminal's width, and what a person copies (a log's path,
an invite) stays whole, on a line of its own when the line it is part of would not fit.
Into a pipe or a file, where a script reads the lines (``statki … | grep '^log: '``), they
go whole, unless ``COLUMNS`` asks for a width.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import IO, TextIO

FALLBACK = (80, 24)
"""A terminal's size when it cannot be known (a pipe, a file)."""
NARROWEST = 20
"""Columns below which wrapping helps nobody: a terminal that small is taken for this."""


def width(stream: IO[str] | None = None) -> int | None:
    """The columns to wrap lines for ``stream`` (stdout) at: ``COLUMNS`` where it is set, as
    the standard library reads it, else the terminal's own width; None for a pipe or a
    file, whose lines go whole."""
    stream = sys.stdout if stream is None else stream
    if "COLUMNS" in os.environ:
        return max(shutil.get_terminal_size(FALLBACK).columns, NARROWEST)
    try:
        if not stream.isatty():
            return None
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError):  # no descriptor (a StringIO), or one closed
        return None
    # A terminal that says 0 does not know its width (a pseudo-terminal nobody sized), as
    # the standard library takes it: not one of NARROWEST columns, which cut every line.
    return max(columns, NARROWEST) if columns else FALLBACK[0]


def wrapped(text: str, *, indent: str = "", columns: int | None = None) -> str:
    """``text`` wrapped at word boundaries to ``columns`` (None: only ``indent`` added), each
    of its own lines apart; a word longer than the width (a path) is left whole.  An item
    of a list is ``indent``-ed (or indented already), and the lines it runs on to a little
    more, so that it reads as one."""
    if columns is None:
        return "\n".join(indent + line for line in text.split("\n"))
    return "\n".join(_wrapped_line(line, columns, indent) for line in text.split("\n"))


def _wrapped_line(line: str, columns: int, indent: str) -> str:
    """One line wrapped; its own indentation kept (a report's ``  result: …``), and what
    runs on indented two more, so that an item reads as one."""
    words = line.lstrip(" ")
    lead = indent + line[: len(line) - len(words)]
    return textwrap.fill(
        words,
        width=columns,
        initial_indent=lead,
        subsequent_indent=lead + "  " if lead else "",
        break_on_hyphens=False,
        break_long_words=False,
    )


def tell(text: str = "", *, to: TextIO | None = None, indent: str = "") -> None:
    """Print a line a person reads, wrapped between words (stdout, or ``to``); an empty one
    is a blank line."""
    stream = sys.stdout if to is None else to
    print(wrapped(text, indent=indent, columns=width(stream)), file=stream, flush=True)


def tell_error(text: str) -> None:
    """Print a command's one-line error (or warning) on stderr: wrapped between words on a
    terminal, whole in a pipe or a file, where a script reads it as the one line it is."""
    if sys.stderr.isatty():
        tell(text, to=sys.stderr)
    else:
        print(text, file=sys.stderr, flush=True)


def tell_copyable(
    template: str, copied: str, *, key: str = "path", to: TextIO | None = None, **facts: str
) -> None:
    """Print ``template`` (a translated line ending in ``{path}``, or in ``{key}``:
    ``_("log: {path}")``) with ``copied`` in it, and ``facts`` for its other fields: on one
    line where it fits, else the words first and ``copied`` alone on the next line, whole,
    so that it can be copied."""
    line = template.format(**facts, **{key: copied})
    columns = width(to)
    if columns is None or len(line) <= columns:
        tell(line, to=to)
        return
    tell(template.format(**facts, **{key: ""}).rstrip(), to=to)
    print(copied, file=sys.stdout if to is None else to, flush=True)


class StatusLine:
    """One line a terminal rewrites in place (how far a long run has got), kept to one row.

    A line longer than the terminal runs onto a second row, and the carriage return that
    rewrites it goes back only to the start of that row: every update would then leave
    a row behind.  So the line is fitted to the width (the part of it that may be
    shortened, a label, cut first, so that the figures that change stay whole), and
    what the last update drew is blanked where the new one is shorter, and at the end.
    """

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream: IO[str] = sys.stderr if stream is None else stream
        self.drawn = 0
        """Columns the line on the screen takes now."""

    def room(self) -> int:
        """The columns a line may take: one fewer than the terminal's, whose last column
        moves some terminals' cursor to the next row."""
        return (width(self.stream) or FALLBACK[0]) - 1

    def show(self, text: str, *, shortened: str = "") -> None:
        room = self.room()
        excess = len(text) - room
        if excess > 0 and shortened and shortened in text:
            text = text.replace(shortened, fitted(shortened, len(shortened) - excess), 1)
        line = fitted(text, room)
        # Never past the row: after the terminal narrowed, blanks would wrap it themselves.
        blank = " " * (min(self.drawn, room) - len(line))
        # Back to the line's end after blanking, where the cursor is expected.
        print("\r" + line + blank + ("\r" + line if blank else ""), end="", file=self.stream)
        self.stream.flush()
        self.drawn = len(line)

    def clear(self) -> None:
        if self.drawn:
            print("\r" + " " * self.drawn + "\r", end="", file=self.stream, flush=True)
            self.drawn = 0


def fitted(text: str, columns: int) -> str:
    """``text`` in ``columns``: cut with an ellipsis where it does not fit."""
    if len(text) <= columns:
        return text
    return text[: columns - 1] + "…" if columns > 0 else ""

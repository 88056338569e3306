"""Reading a file the user named on the command line: bounded in size, and in time.

Every command that reads a file it is given (``verify``, ``analyze``,
``fleet check``, ``--fleet``) reads it here, so each odd file gets one line
naming it: missing, unreadable, a folder, larger than the command's bound.
A regular file is read up to that bound.  Anything else that can be opened
(a FIFO, a terminal, a device) is read only because the user named it, and
then for at most ``STREAM_SECONDS``: a FIFO nobody writes to does not hang
the command.  (Folders searched for files pass over what is not a regular
file: ``is_regular``.)
"""

from __future__ import annotations

import os
import stat
import sys
import time

from statki_net.game.errors import UsageError
from statki_net.game.words import N_, Phrase, Term, as_is, phrase, seconds_said

STREAM_SECONDS = 10.0
"""The longest a named FIFO or device is read before the command gives up on it."""
CHUNK = 64 * 1024
STANDARD_INPUT = N_("standard input")
"""The name a refusal gives standard input (``-``): a word of the catalog, not a path."""


class InputFileError(UsageError):
    """A file the user named cannot be read; the message names it and says why."""

    def __init__(self, path: str, reason: Phrase) -> None:
        named = Term(path) if path == STANDARD_INPUT else path
        super().__init__(phrase(N_("{path}: {reason}"), path=named, reason=reason))
        self.path = path
        self.reason = reason


class TooLarge(InputFileError):
    """The file holds more than the command reads; ``start`` is what was read of it."""

    def __init__(self, path: str, reason: Phrase, start: bytes) -> None:
        super().__init__(path, reason)
        self.start = start


def is_regular(path: str) -> bool:
    """Whether ``path`` (a link followed) is a regular file, which reading cannot block on."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_user_file(
    path: str, *, limit: int, what: str = N_("file"), seconds: float | None = None
) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them; raises ``InputFileError``.

    ``what`` names the file in the refusal ("statki log", "fleet": marked ``N_``); ``seconds``
    bounds the reading of what is no regular file (default ``STREAM_SECONDS``).
    """
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise InputFileError(path, phrase(N_("is a folder, not a {what}"), what=Term(what)))
        if stat.S_ISREG(mode):
            with open(path, "rb") as file:
                data = file.read(limit + 1)
        else:
            data = _read_stream(path, limit, STREAM_SECONDS if seconds is None else seconds)
    except OSError as error:
        raise InputFileError(path, reason_of(error)) from None
    if len(data) > limit:
        raise TooLarge(path, _larger_than_any(what, limit), data[:CHUNK])
    return data


def read_user_text(path: str, *, limit: int, what: str = N_("file")) -> str:
    """``read_user_file`` as UTF-8 text; a file that is not gets one line too."""
    data = read_user_file(path, limit=limit, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(
            path,
            phrase(
                N_("not a text file (byte {byte} is not UTF-8), so not a {what}"),
                byte=error.start,
                what=Term(what),
            ),
        ) from None


def read_stdin_text(*, limit: int, what: str = N_("file")) -> str:
    """Standard input as UTF-8 text (``-`` for a file), bounded as a named file is."""
    stdin = sys.stdin
    if stdin is None:  # fd 0 was closed when Python started
        raise InputFileError(STANDARD_INPUT, as_is("closed"))  # fd 0 shut: nobody reads it
    try:
        text = stdin.read(limit + 1)
    except UnicodeDecodeError:
        raise InputFileError(
            STANDARD_INPUT,
            phrase(N_("not a text file (not UTF-8), so not a {what}"), what=Term(what)),
        ) from None
    except (OSError, ValueError) as error:
        # Here, not at the top: the failures' module brings sqlite3 (2 ms of a verify's
        # start-up), and only a failure needs it.
        from statki_net.store.failures import system_words

        reason = system_words(error) if isinstance(error, OSError) else as_is(str(error))
        raise InputFileError(
            STANDARD_INPUT, phrase(N_("cannot be read ({reason})"), reason=reason)
        ) from None
    if len(text) > limit:
        raise InputFileError(STANDARD_INPUT, _larger_than_any(what, limit))
    return text


def _read_stream(path: str, limit: int, seconds: float) -> bytes:
    """A FIFO or device, until its end, ``limit`` + 1 bytes, or ``seconds``, which raises.

    Opened without blocking (a FIFO's open would wait for a writer), then
    waited on: Linux reports a FIFO readable only once a writer has come.
    """
    import select  # here: a regular file, what verify reads, needs none of it

    deadline = time.monotonic() + seconds
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                raise InputFileError(
                    path,
                    phrase(
                        N_(
                            "nothing more came in {seconds} s"
                            " (it is not a regular file; statki waited for its end)"
                        ),
                        seconds=seconds_said(seconds),
                    ),
                )
            try:
                chunk = os.read(fd, CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


class OutputFileError(UsageError):
    """A file the user named for output cannot be written; the message names it and says why."""


def write_user_file(path: str, data: bytes) -> None:
    """Write ``data`` to the file the user named; raises ``OutputFileError``.

    Only a regular file (new or existing) is written: a FIFO nobody reads
    would block the command, and a device is never what a PDF is meant for.
    """
    if os.path.exists(path) and not is_regular(path):
        raise OutputFileError(phrase(N_("{path}: not a regular file, not written"), path=path))
    try:
        with open(path, "wb") as file:
            file.write(data)
    except OSError as error:
        raise OutputFileError(
            phrase(N_("{path}: cannot be written ({reason})"), path=path, reason=reason_of(error))
        ) from None


def reason_of(error: OSError) -> Phrase:
    """Why a file could not be read or written, in the reader's words where statki has them."""
    if isinstance(error, FileNotFoundError):
        return phrase(N_("no such file"))
    if isinstance(error, PermissionError):
        return phrase(N_("cannot be read (permission denied)"))
    return as_is(error.strerror or type(error).__name__)  # the system's words, no file named


def _larger_than_any(what: str, limit: int) -> Phrase:
    return phrase(N_("larger than any {what} ({size})"), what=Term(what), size=_size(limit))


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 1024} KiB"

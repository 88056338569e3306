"""``statki verify LOG...|DIR``: the referee's judgement of the games some logs hold.

The logs are grouped by game id, so both sides' logs of a game, or two copies
of one log, are judged together as one game and counted once.  For each game
it prints the logs it used, then the result (who won, and how) and the
standing of the logs (valid, invalid, disputed, unfinished) on lines of their
own; ``--json`` prints SPEC.md's report, a list of one map per game.

Exit status: 0 when every game's standing is valid (a forfeit, a resignation,
a win on time, a refused game and a game that never began are valid results);
1 when any game shows cheating, tampering or damage, is disputed, or is
unfinished; 2 when a file is missing, cannot be read (a file or a folder under a
directory given too) or is not a statki log (2 wins over 1, so a script notices it
was not shown everything).  Judging is pure
(``statki_net.referee``); this module finds the files, reads them and spreads
the work over the machine's cores: first each file's game id, then each game.
"""

from __future__ import annotations

import argparse
import collections
import functools
import itertools
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from statki_net.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    Metavar,
    Subcommands,
    positive,
)
from statki_net.cli.paths import shown, written
from statki_net.cli.told import tell
from statki_net.game.words import N_, SILENCE, Phrase, as_is, phrase
from statki_net.protocol.endings import Standing
from statki_net.protocol.logformat import MAGIC, LogContents, NotALog, read_log
from statki_net.referee.verify import Judgement, NamedLog, game_id_of, judge_game
from statki_net.store.language import _, ngettext, words
from statki_net.store.userfile import (
    InputFileError,
    TooLarge,
    is_regular,
    read_user_file,
    reason_of,
)

LOG_SUFFIX = ".statki"
"""The name statki gives its logs: such a file is a log, however damaged its start."""
DAMAGED_START = phrase(
    N_("the log's header is damaged: the file does not begin with a statki log's magic value")
)
MAX_LOG_BYTES = 256 * 1024 * 1024
"""Larger than any game's log can grow (frames are bounded, and so are the moves)."""
LOG = N_("statki log")

T = TypeVar("T")
R = TypeVar("R")


def add(commands: Subcommands) -> None:
    parser = commands.add_parser("verify")
    parser.add_argument(
        "paths",
        nargs="+",
        metavar=_(Metavar.LOG),
        help=_("a log file, or a directory to search for logs"),
    )
    parser.add_argument("--json", action="store_true", help=_("print one JSON document for tools"))
    parser.add_argument(
        "--jobs",
        type=positive,
        default=None,
        metavar="N",
        help=_("processes to use (default: all cores)"),
    )
    parser.add_argument(
        "--every-signature",
        action="store_true",
        help=_("check every signature, not only each side's last (SPEC.md section 16)"),
    )
    parser.set_defaults(run=_verify)


@dataclass(frozen=True)
class Source:
    """A log to read: its path, and what it held if it was read already (a FIFO, once)."""

    path: str
    data: bytes | None = None
    too_large: bool = False
    """``data`` is only the start of a file larger than any log."""


@dataclass(frozen=True)
class Identified:
    """One file, read far enough to know its game; or why it could not be."""

    source: Source
    game: bytes | None = None
    error: Phrase | None = None

    @property
    def path(self) -> str:
        return self.source.path


@dataclass
class Found:
    """The logs named or found under the paths given, and the paths that are no log."""

    named: list[Source]
    unreadable: list[Identified]
    searched: list[tuple[str, int]]
    """Each directory searched, with how many logs it held; a file or folder in it that
    could not be read counts among them (it may hold logs, and has been named already:
    "no statki logs under" it would not be true)."""


def find_logs(paths: Sequence[str]) -> Found:
    """Every path given that is a file, and every log under each one that is a directory.

    A FIFO or a device named is read here, once and with a time bound."""
    found = Found([], [], [])
    found.named = list(each_log(paths, found))
    return found


def each_log(paths: Sequence[str], found: Found) -> Iterator[Source]:
    """``find_logs``'s logs one at a time, as the walk finds them (none goes to
    ``found.named``); the paths that hold no log, and each directory's count, go to
    ``found``."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            count = 0

            def unreadable(where: str, why: Phrase) -> None:
                nonlocal count
                count += 1
                found.unreadable.append(Identified(Source(where), error=why))

            for log in logs_under(path, unreadable):
                count += 1
                yield Source(log)
            found.searched.append((given, count))
        elif not path.exists():
            found.unreadable.append(Identified(Source(given), error=phrase(N_("no such file"))))
        elif is_regular(given):
            yield Source(given)
        else:
            try:
                yield _read_now(given)
            except InputFileError as error:
                found.unreadable.append(Identified(Source(given), error=error.reason))


def identified_games(
    found: Found, jobs: int, watch: Callable[[Iterator[Identified]], Iterator[Identified]] = iter
) -> list[tuple[Source, ...]]:
    """The files of each game; a file that is not a log joins ``found.unreadable``.
    ``watch`` sees each file as it is read (a progress bar)."""
    identified = list(watch(spread(identify, found.named, jobs)))
    found.unreadable += [i for i in identified if i.error is not None]
    return games_of([i for i in identified if i.error is None])


def bad_input(found: Found) -> bool:
    """Say on stderr which paths held no log; True when any did (exit status 2)."""
    for problem in found.unreadable:
        print(
            f"statki: {shown(problem.path)}: {(problem.error or SILENCE).in_words(words())}",
            file=sys.stderr,
        )
    for directory, count in found.searched:
        if count == 0:
            print(
                _("statki: no statki logs under {directory}").format(directory=shown(directory)),
                file=sys.stderr,
            )
    return bool(found.unreadable) or any(count == 0 for _, count in found.searched)


def _verify(args: argparse.Namespace) -> int:
    found = find_logs(args.paths)
    jobs = args.jobs or os.cpu_count() or 1
    games = identified_games(found, jobs)
    # The names a person reads are cleaned of control characters; --json gives a tool
    # each name as it is (``paths.shown``, ``paths.written``).
    name = written if args.json else shown
    judge = functools.partial(judge_files, every_signature=args.every_signature, name=name)
    judgements = list(spread(judge, games, jobs))
    if args.json:
        import json  # here: the usual verify prints text, and need not load the JSON encoder

        print(json.dumps([j.to_json() for j in judgements], indent=2))
    else:
        searched = found.searched
        _print_people(judgements, searched, tally=len(args.paths) > 1 or bool(searched))
    if bad_input(found):
        return EXIT_BAD_INPUT
    return EXIT_OK if all(j.valid for j in judgements) else EXIT_FOUND


def _read_now(path: str) -> Source:
    """A FIFO or a device, named: read here, once and with a time bound (it cannot be read
    again by the workers)."""
    try:
        return Source(path, read_user_file(path, limit=MAX_LOG_BYTES, what=LOG))
    except TooLarge as error:
        return Source(path, error.start, too_large=True)


def logs_under(directory: Path, unreadable: Callable[[str, Phrase], None]) -> Iterator[str]:
    """Every statki log below ``directory``, by its magic value or its name; other files are
    passed over (a ``.statki`` file whose start is damaged is a damaged log, not another file).

    What is not a regular file (a FIFO, a socket, a device) is passed over
    unopened, with a note: reading it could wait forever.  A file or a folder
    that cannot be read goes to ``unreadable`` with why: it may hold a log, so
    a judgement of the folder without it is not the whole folder's (exit status 2,
    as for a log named that cannot be read).
    """
    for path, name in _files_under(str(directory), unreadable):
        if not is_regular(path):
            if os.path.exists(path):  # not a link to nowhere: a FIFO, a socket, a device
                print(
                    _("statki: {path}: not a regular file, passed over").format(path=shown(path)),
                    file=sys.stderr,
                )
            continue
        try:
            with open(path, "rb") as file:
                start = file.read(len(MAGIC))
        except OSError as error:
            unreadable(path, reason_of(error))
            continue
        if start == MAGIC or name.endswith(LOG_SUFFIX):
            yield path


def _files_under(top: str, unreadable: Callable[[str, Phrase], None]) -> Iterator[tuple[str, str]]:
    """Each entry below ``top`` that is no folder, as ``(path, name)``: a folder's entries by
    name, then each of its folders in turn, depth first (``os.walk``'s order).

    Walked with a stack of the folders still to search, not by recursion as
    ``os.walk`` does (Python 3.11's): a thousand folders one inside another
    would otherwise end the walk in a RecursionError.  The stack holds the folders
    not yet searched, so it is bounded by the folders, not their depth's frames;
    links to folders are not followed, so no loop of links makes it endless.  A folder
    that cannot be listed goes to ``unreadable``.
    """
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            unreadable(folder, _folder_unreadable(error))
            continue
        folders = []
        for entry in entries:
            try:
                inside = entry.is_dir(follow_symlinks=False)
            except OSError:
                inside = False
            if inside:
                folders.append(entry.path)
            else:
                yield entry.path, entry.name
        pending.extend(reversed(folders))  # the first by name is searched first


def _folder_unreadable(error: OSError) -> Phrase:
    reason = (
        phrase(N_("permission denied"))
        if isinstance(error, PermissionError)
        else as_is(error.strerror or type(error).__name__)  # the system's words
    )
    return phrase(N_("folder cannot be read ({reason}): nothing in it was judged"), reason=reason)


def games_of(identified: list[Identified]) -> list[tuple[Source, ...]]:
    """The files of each game, in the order given; a file with no game id is a game alone."""
    games: dict[bytes | str, list[Source]] = {}
    for item in identified:
        games.setdefault(item.game or item.path, []).append(item.source)
    # A file named twice is one log, judged once.
    return [tuple({s.path: s for s in sources}.values()) for sources in games.values()]


AHEAD = 4
"""Chunks of work handed to each worker ahead of the results read: enough to keep it busy,
few enough that what waits in memory does not grow with the items."""


def spread(
    work: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    count: int | None = None,
    *,
    in_flight: int | None = None,
) -> Generator[R, None, None]:
    """``work`` over ``items``, in order, over up to ``jobs`` processes, each result as
    it comes (so a caller can keep only what it needs of each, and show progress).

    The items are read as the work goes, a few chunks ahead of the results, so
    they may come from a walk or a file; ``count`` says how many there are when
    ``items`` is no sequence.  ``in_flight`` bounds the items handed out and not
    yet given back (smaller chunks): the results of those done wait in this
    process until read, and a caller starved of the CPU (a loaded machine) may
    find them all done."""
    if count is None:
        assert isinstance(items, Sized), "items that are no sequence need their count"
        count = len(items)
    workers = min(jobs, count)
    if workers <= 1:
        yield from map(work, items)
        return
    # Imported here: multiprocessing costs a one-log verify a third of its start-up.
    from concurrent.futures import Future, ProcessPoolExecutor

    # Many small items: hand them out in chunks so the pool's messages stay few.
    size = max(1, min(64, count // (workers * 8)))
    if in_flight is not None:
        # The chunks ahead, and the one whose results are being given.
        size = max(1, min(size, in_flight // (AHEAD * workers + 1)))
    chunks = _chunks(items, size)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: collections.deque[Future[list[R]]] = collections.deque(
            pool.submit(_each, work, chunk) for chunk in itertools.islice(chunks, AHEAD * workers)
        )
        try:
            while pending:
                done = pending.popleft().result()
                pending.extend(pool.submit(_each, work, c) for c in itertools.islice(chunks, 1))
                yield from done
        finally:
            for future in pending:  # a caller that stops early: the rest need not run
                future.cancel()


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def _each(work: Callable[[T], R], chunk: list[T]) -> list[R]:
    """``work`` on each item of one chunk (runs in a worker process)."""
    return [work(item) for item in chunk]


def _unreadable_now(reason: Phrase) -> Phrase:
    return phrase(N_("unreadable now: {reason}"), reason=reason)


def read_named_log(path: str) -> LogContents:
    """The one log a command was named (``record``, ``analyze``); a file that is none is
    refused naming it, as a file that cannot be read is ("statki: not a statki log" said
    nothing of which file, where a shell script names many)."""
    try:
        return read_log(read_user_file(path, limit=MAX_LOG_BYTES, what=LOG))
    except NotALog as error:
        raise InputFileError(path, error.as_phrase()) from None


def read_file(source: Source) -> LogContents:
    """A log's records; raises NotALog, or InputFileError when it cannot be read."""
    data, too_large = source.data, source.too_large
    if data is None:
        try:
            data = read_user_file(source.path, limit=MAX_LOG_BYTES, what=LOG)
        except TooLarge as error:
            data, too_large = error.start, True
    if source.data is None and not data.startswith(MAGIC) and source.path.endswith(LOG_SUFFIX):
        return LogContents(header={}, damage=DAMAGED_START)
    if too_large:
        if not data.startswith(MAGIC):
            raise NotALog(phrase(N_("not a statki log (no magic value at the start)")))
        too_big = phrase(
            N_("the file is larger than any statki log ({mib} MiB)"), mib=MAX_LOG_BYTES // 2**20
        )
        return LogContents(header={}, damage=too_big)
    return read_log(data)


def identify(source: Source) -> Identified:
    """Read one file far enough to know its game (runs in a worker process)."""
    try:
        return Identified(source, game_id_of(read_file(source)))
    except InputFileError as error:
        return Identified(source, error=error.reason)
    except NotALog as error:
        return Identified(source, error=error.as_phrase())


def judge_files(
    sources: tuple[Source, ...],
    *,
    every_signature: bool = False,
    name: Callable[[str], str] = written,
) -> Judgement:
    """Read and judge the logs of one game (runs in a worker process); ``name`` says how the
    judgement writes each log's path."""
    return judge_game(named_logs(sources, name), every_signature=every_signature)


def named_logs(sources: tuple[Source, ...], name: Callable[[str], str] = written) -> list[NamedLog]:
    """The logs of one game, read again (in a worker process), each named by ``name`` of its
    path (``written``: text any file can hold).

    The files were read once already; one that has changed or gone since is
    judged as what it now holds, or as an empty log.
    """
    logs = []
    for source in sources:
        try:
            contents = read_file(source)
        except InputFileError as error:
            contents = LogContents(header={}, damage=_unreadable_now(error.reason))
        except NotALog as error:
            contents = LogContents(header={}, damage=_unreadable_now(error.as_phrase()))
        logs.append(NamedLog(name(source.path), contents))
    return logs


def _counted(standing: Standing, n: int) -> str:
    """``n`` games of ``standing``, as the language counts them (``5 ważnych``, not
    ``5 ważna``)."""
    match standing:
        case Standing.VALID:
            said = ngettext("{n} valid", "{n} valid", n)
        case Standing.INVALID:
            said = ngettext("{n} invalid", "{n} invalid", n)
        case Standing.DISPUTED:
            said = ngettext("{n} disputed", "{n} disputed", n)
        case Standing.UNFINISHED:
            said = ngettext("{n} unfinished", "{n} unfinished", n)
    return said.format(n=n)


def _print_people(
    judgements: list[Judgement], searched: list[tuple[str, int]], *, tally: bool
) -> None:
    """Each game, then, for more than one path or a directory, how many of each standing."""
    for judgement in judgements:
        tell("\n".join(judgement.lines(words())))  # wrapped between words, each item apart
    logs = sum(len(j.logs) for j in judgements)
    if tally:
        counts = {standing: 0 for standing in Standing}
        for judgement in judgements:
            counts[judgement.standing] += 1
        folders = ", ".join(shown(folder) for folder, _count in searched)
        where = _(" under {folders}").format(folders=folders) if searched else ""
        standings = ", ".join(
            _counted(standing, n)
            for standing, n in counts.items()
            if n or standing is Standing.VALID
        )
        games = ngettext("{n} game", "{n} games", len(judgements)).format(n=len(judgements))
        tell(
            ngettext(
                "{games} from {n} log{where}: {standings}",
                "{games} from {n} logs{where}: {standings}",
                logs,
            ).format(games=games, n=logs, where=where, standings=standings)
        )

"""``statki tournament DIR...``: a tournament's table, judged from the folder of its logs.

The logs are found, grouped into games and judged as ``statki verify`` does
(its ``each_log``, ``identify``, ``spread``), but what grows with the folder
is kept on disk, not in memory: the logs found and each one's game go to a
temporary SQLite file as the walk and the workers give them (``store.found``),
which gives the games back one at a time; each game is judged in
a worker process and only its summary comes back, to go straight to a
temporary SQLite file (``store.summaries``); the standings and every format
read the games back from it a game at a time, in the order played, so the
main process keeps nothing of a game but what is bounded by the players (the
standings, the crosstable's cells).  The tournament's rules come from
a TOML file (``--config``) and the options, which win over it.  The standings, the
crosstable, the games and the ratings are computed purely
(``statki_net.referee.tournament``, ``standings``); ``tournament_report``
writes them as a terminal table, ``--json`` or ``--csv``, and
``tournament_page`` as ``--html``.

Exit status: 0 when every game was scored (each judged valid and within the
tournament's rules); 1 when any game is set apart (disputed, unfinished,
cheated beyond a result, under other rules, by a stranger, ...): something
to look at; 2 when a file is missing, cannot be read (one under a folder given
too) or is no log, or the rules file is wrong.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import shutil
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from statki_net.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    Metavar,
    Subcommands,
    positive,
)
from statki_net.cli.told import StatusLine
from statki_net.cli.tournament_report import (
    CSV_TABLES,
    BoardsOf,
    no_boards,
    own_boards,
    report_games,
    report_head,
    text,
    write_csv,
    write_json,
)
from statki_net.cli.verify import (
    Found,
    Source,
    bad_input,
    each_log,
    identify,
    named_logs,
    spread,
)
from statki_net.game.errors import UsageError
from statki_net.game.rules import combination_name, ruleset_named
from statki_net.game.words import N_, decimal_phrase, phrase
from statki_net.referee.judging import judged_game
from statki_net.referee.ratings import TAU
from statki_net.referee.standings import Standings, standings
from statki_net.referee.tournament import (
    GameSummary,
    Points,
    TournamentRules,
    is_fingerprint,
    sort_played,
    summarize,
)
from statki_net.store.found import FoundLogs
from statki_net.store.language import _, words
from statki_net.store.summaries import SummaryStore
from statki_net.store.userfile import read_user_text

T = TypeVar("T")


def add(commands: Subcommands) -> None:
    parser = commands.add_parser(
        "tournament",
        description=_(
            "The standings, crosstable, games and ratings of a tournament, "
            "judged from its players' logs."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar=_(Metavar.LOG),
        help=_("a log file, or a directory to search for logs"),
    )
    parser.add_argument(
        "--config", metavar=_(Metavar.FILE), help=_("the tournament's rules, as TOML (see README)")
    )
    parser.add_argument(
        "--rules",
        metavar=_(Metavar.NAME),
        help=_("the rules every game must use: a preset, or presets+joined"),
    )
    parser.add_argument(
        "--min-move-limit",
        type=float,
        metavar=_(Metavar.SECONDS),
        help=_("the least move limit a game may have"),
    )
    parser.add_argument(
        "--since", metavar=_(Metavar.DATE), help=_("the first day games may begin (UTC)")
    )
    parser.add_argument(
        "--until", metavar=_(Metavar.DATE), help=_("the last day games may begin (UTC)")
    )
    parser.add_argument(
        "--games-per-pair",
        type=int,
        metavar="N",
        help=_("games between two players that count (1)"),
    )
    parser.add_argument(
        "--tau", type=float, metavar="T", help=_("Glicko-2's tau (default {TAU})").format(TAU=TAU)
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help=_("print one JSON document for tools"))
    shown.add_argument(
        "--csv",
        nargs="?",
        const="standings",
        choices=CSV_TABLES,
        metavar=_(Metavar.TABLE),
        help=_("print one table as CSV: {join} (default standings)").format(
            join=", ".join(CSV_TABLES)
        ),
    )
    shown.add_argument("--html", action="store_true", help=_("print a self-contained HTML page"))
    parser.add_argument(
        "--save",
        metavar=_(Metavar.DIR),
        help=_(
            "also write every format into DIR: tournament.txt, tournament.json, {join},"
            " tournament.html"
        ).format(join=", ".join(f"{t}.csv" for t in CSV_TABLES)),
    )
    parser.add_argument(
        "--jobs",
        type=positive,  # as verify's: 0 or -3 processes is no number to run
        default=None,
        metavar="N",
        help=_("processes to use (default: all cores)"),
    )
    parser.set_defaults(run=_tournament)


# ---------------------------------------------------------------- the tournament's rules


OPTIONS = ("rules", "min_move_limit", "since", "until", "games_per_pair", "tau")
"""The settings of the TOML file an option of the same name may give instead."""
FILE_ONLY = ("roster", "points")
MAX_CONFIG_BYTES = 1024 * 1024
"""Far more than any roster: a tournament's rules file is read up to this."""


def settings(args: argparse.Namespace) -> TournamentRules:
    """The tournament's rules: the TOML file's, with the options over them."""
    given: dict[str, Any] = {}
    if args.config is not None:
        text = read_user_text(args.config, limit=MAX_CONFIG_BYTES, what=N_("tournament rules file"))
        try:
            given = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(
                phrase(N_("{path}: {error}"), path=args.config, error=str(error))
            ) from error
    unknown = sorted(set(given) - {*OPTIONS, *FILE_ONLY})
    if unknown:
        raise UsageError(
            phrase(
                N_("{path}: unknown setting(s): {names}"),
                path=args.config,
                names=", ".join(unknown),
            )
        )
    for name in OPTIONS:
        if getattr(args, name) is not None:
            given[name] = getattr(args, name)
    preset = given.get("rules")
    if preset is not None:
        preset = _preset(preset)
    roster = given.get("roster", {})
    if not isinstance(roster, dict) or not all(
        isinstance(key, str) and is_fingerprint(key) for key in roster.values()
    ):
        raise UsageError(
            phrase(N_("the roster maps each player's name to a key fingerprint (xxxxx-...)"))
        )
    if len(set(roster.values())) < len(roster):
        raise UsageError(phrase(N_("the roster names one key twice")))
    min_move = given.get("min_move_limit", 0)
    per_pair = given.get("games_per_pair", 1)
    tau = given.get("tau", TAU)
    if not _number_like(min_move) or not 0 <= min_move < math.inf:  # not NaN, not inf
        raise UsageError(phrase(N_("the minimum move limit is a number of seconds")))
    if not isinstance(per_pair, int) or isinstance(per_pair, bool) or per_pair < 1:
        raise UsageError(phrase(N_("games per pair is a whole number, at least 1")))
    if not _number_like(tau) or not 0 < tau <= 5:
        raise UsageError(phrase(N_("tau is a number above 0 (Glickman suggests 0.3 to 1.2)")))
    since, until = _moment(given.get("since"), "since"), _moment(given.get("until"), "until")
    if since is not None and until is not None and since >= until:
        # A game counts from since to before until: every game would be set apart.
        raise UsageError(
            phrase(
                N_("since ({since}) is not before until ({until}): no game could count"),
                since=str(given["since"]),
                until=str(given["until"]),
            )
        )
    return TournamentRules(
        preset=preset,
        min_move_ms=round(min_move * 1000),
        roster=dict(roster),
        since=since,
        until=until,
        games_per_pair=per_pair,
        points=_points(given.get("points", {})),
        tau=float(tau),
    )


def _points(given: object) -> Points:
    """``[points]``: win, loss, forfeit (a loss by forfeit), cheated (a loss by cheating)."""
    fields = {"win", "loss", "forfeit", "cheated"}
    if (
        not isinstance(given, dict)
        or not set(given) <= fields
        or not all(_number_like(v) for v in given.values())
    ):
        raise UsageError(
            phrase(N_("[points] gives numbers for {fields}"), fields=", ".join(sorted(fields)))
        )
    points = Points(**{name: float(value) for name, value in given.items()})
    for name in sorted(fields):
        value = getattr(points, name)
        if not 0 <= value < math.inf:  # NaN and inf are TOML floats too
            raise UsageError(
                phrase(
                    N_("[points]: {name} is a number of 0 or more, not {value}"),
                    name=name,
                    value=str(given[name]),
                )
            )
    for name in ("loss", "forfeit", "cheated"):
        # Every loss (by forfeit, by cheating) worth more than a win would rank the
        # players who lose first.
        if getattr(points, name) > points.win:
            raise UsageError(
                phrase(
                    N_("[points]: a loss is worth no more than a win ({name} {value}, win {win})"),
                    name=name,
                    value=decimal_phrase(getattr(points, name), 2, trimmed=True),
                    win=decimal_phrase(points.win, 2, trimmed=True),
                )
            )
    return points


def _number_like(value: object) -> bool:
    """An int or a float, as TOML gives them (its true and false are not numbers here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _preset(name: object) -> str:
    """The rules' name as the judgement writes it (``combination_name``)."""
    if not isinstance(name, str):
        raise UsageError(phrase(N_("the rules are a preset's name, or presets joined by +")))
    named = combination_name(ruleset_named(name))  # its refusal lists the presets already
    assert named is not None
    return named


def _moment(value: object, which: str) -> int | None:
    """A day or moment, as ms since 1970; a day given for ``until`` counts whole."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError as error:
            raise UsageError(
                phrase(
                    N_("{which}: not a date (YYYY-MM-DD): {value}"), which=which, value=str(value)
                )
            ) from error
        if value.time() == datetime.time() and value.tzinfo is None:
            value = value.date()
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
        return round(moment.timestamp() * 1000)
    if isinstance(value, datetime.date):
        day = value + datetime.timedelta(days=1) if which == "until" else value
        midnight = datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
        return round(midnight.timestamp() * 1000)
    raise UsageError(phrase(N_("{which}: not a date: {value}"), which=which, value=repr(value)))


# ---------------------------------------------------------------- judging


def summarize_files(sources: tuple[Source, ...]) -> GameSummary:
    """Read, judge and sum up the logs of one game (runs in a worker process)."""
    return summarize(judged_game(named_logs(sources)))


class Progress:
    """A bar on stderr, shown only to a person (a terminal) and only once the work has
    taken a second: a quick run prints nothing."""

    BAR = 30
    """The bar's columns where the terminal has room for them."""

    def __init__(
        self,
        total: int,
        label: str | None = None,
        *,
        stream: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        shown: bool | None = None,
        began: float | None = None,
    ) -> None:
        self.total, self.clock = total, clock
        self.label = _("judging games") if label is None else label
        self.line = StatusLine(stream or sys.stderr)
        self.shown = self.line.stream.isatty() if shown is None else shown
        self.began = clock() if began is None else began
        """From when the second counts: the command's start, for a second bar."""

    def over(self, items: Iterable[T]) -> Iterator[T]:
        for done, item in enumerate(items, 1):
            self.update(done)
            yield item
        self.finish()

    def update(self, done: int) -> None:
        if not self.shown or self.clock() - self.began < 1.0:
            return
        count = f"{done}/{self.total}"
        # A narrow terminal shortens the bar before the label; the count stays whole.
        columns = max(min(self.BAR, self.line.room() - len(self.label) - len(count) - 4), 5)
        bar = columns * done // max(self.total, 1)
        line = f"{self.label} [{'#' * bar}{'.' * (columns - bar)}] {count}"
        self.line.show(line, shortened=self.label)

    def finish(self) -> None:
        self.line.clear()


def _tournament(args: argparse.Namespace) -> int:
    rules = settings(args)
    jobs = args.jobs or os.cpu_count() or 1
    began = time.monotonic()
    found = Found([], [], [])
    with FoundLogs() as logs, SummaryStore() as store:
        for source in each_log(args.paths, found):
            logs.add((source.path, source.data, source.too_large))
        _identify(logs, found, jobs, Progress(len(logs), _("reading logs"), began=began))
        judging = Progress(logs.game_count(), _("judging games"), began=began)
        judged = _judge(logs, store, jobs, judging)
        table = standings(sort_played(store, rules), rules.points, rules.tau)
        formats = shown_as(table, rules, judged, store.boards)
        formats[_chosen_format(args)](sys.stdout)
        if args.save is not None:
            save(Path(args.save), formats)
    if bad_input(found):
        return EXIT_BAD_INPUT
    return EXIT_FOUND if table.games.apart else EXIT_OK


def save(folder: Path, formats: dict[str, Writer]) -> None:
    """Every format into ``folder``, as one judging or not at all.

    A referee publishes the folder: one that holds this judging's standings
    beside an earlier judging's games, or four files of six, would be read as
    the tournament's.  So every file is written first into a new folder beside
    it (the same file system), and only once all are written is that folder
    renamed to ``folder`` (which then appears whole, at once) or, where
    ``folder`` is there already, each file moved in over its old one; on any
    failure while writing, the new folder is removed and ``folder`` is as it was.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    # mkdir, not tempfile.mkdtemp: the folder published has the umask's mode, not 0700.
    draft = folder.parent / f".{folder.name or 'tournament'}.{os.getpid()}.{os.urandom(4).hex()}"
    draft.mkdir()
    try:
        for name, write in formats.items():
            with open(draft / name, "w", encoding="utf-8", newline="") as file:
                write(file)
        try:
            draft.rename(folder)
        except OSError:  # there already, not empty (an earlier --save's, or more)
            for name in formats:
                os.replace(draft / name, folder / name)
    finally:
        shutil.rmtree(draft, ignore_errors=True)


def _identify(logs: FoundLogs, found: Found, jobs: int, progress: Progress) -> None:
    """Each log's game, read in the workers, into ``logs``; a file that is no log joins
    ``found.unreadable``."""
    sources = (Source(*log) for log in logs)
    for number, item in enumerate(progress.over(spread(identify, sources, jobs, len(logs))), 1):
        if item.error is None:
            logs.belongs(number, item.game or item.path)
        else:
            found.unreadable.append(item)


def _judge(logs: FoundLogs, store: SummaryStore, jobs: int, progress: Progress) -> int:
    """Each game judged in the workers, its summary into ``store``; how many logs the
    games were judged from."""
    games = (tuple(Source(*log) for log in game) for game in logs.games())
    given = LogTally()
    count = progress.total
    judged = spread(summarize_files, given.of(games), jobs, count, in_flight=SUMMARIES_IN_FLIGHT)
    for summary in progress.over(judged):
        store.keep(summary)
    return given.logs


SUMMARIES_IN_FLIGHT = 64
"""Games handed to the workers and not yet kept: a summary with its boards is about 5 KB in
memory, and the 64 of one chunk a worker four chunks ahead (512) were 2.4 MB, which the
main process held when the machine's load let the workers run ahead of it."""


class LogTally:
    """How many logs the games judged were judged from, counted as they go to the workers."""

    def __init__(self) -> None:
        self.logs = 0

    def of(self, games: Iterable[tuple[Source, ...]]) -> Iterator[tuple[Source, ...]]:
        for game in games:
            self.logs += len(game)
            yield game


Writer = Callable[[IO[str]], None]


def shown_as(
    table: Standings, rules: TournamentRules, logs: int, boards: BoardsOf = own_boards
) -> dict[str, Writer]:
    """A writer for every format, under the name ``--save`` gives its file; ``boards``
    finds each game's boards (put away on disk: ``SummaryStore``)."""

    def as_csv(which: str) -> Writer:
        return lambda out: write_csv(table, which, out)

    def as_html(out: IO[str]) -> None:
        from statki_net.cli.tournament_page import write_page

        head = report_head(table, rules, logs)
        said = words()
        games, with_boards = report_games(table, no_boards, said), report_games(table, boards, said)
        write_page(head, games, with_boards, out)

    return {
        "tournament.txt": lambda out: out.writelines(
            f"{line}\n" for line in text(table, rules, logs)
        ),
        "tournament.json": lambda out: write_json(table, rules, logs, out, boards),
        **{f"{which}.csv": as_csv(which) for which in CSV_TABLES},
        "tournament.html": as_html,
    }


def _chosen_format(args: argparse.Namespace) -> str:
    if args.json:
        return "tournament.json"
    if args.csv:
        return f"{args.csv}.csv"
    return "tournament.html" if args.html else "tournament.txt"

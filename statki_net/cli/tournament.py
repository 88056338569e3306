"""``statki tournament DIR...``: a tournament's table, judged from the folder of its logs.

The logs are found, grouped into games and judged as ``statki verify`` does
(its ``find_logs``, ``identified_games``, ``spread``); each game is judged in
a worker process and only its summary comes back, so memory stays flat
however many logs there are.  The tournament's rules come from a TOML file
(``--config``) and the options, which win over it.  The standings, the
crosstable, the games and the ratings are computed purely
(``statki_net.referee.tournament``, ``standings``); this module prints them
as a terminal table, ``--json``, ``--csv`` or ``--html`` (``tournament_page``).

Exit status: 0 when every game was scored (each judged valid and within the
tournament's rules); 1 when any game is set apart (disputed, unfinished,
cheated beyond a result, under other rules, by a stranger, ...): something
to look at; 2 when a file is missing or no log, or the rules file is wrong.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import os
import sys
import textwrap
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, Subcommands
from statki_net.cli.verify import bad_input, find_logs, identified_games, read_file, spread
from statki_net.game.errors import UsageError
from statki_net.game.rules import PRESETS, combination_name, ruleset_named
from statki_net.protocol.logformat import LogContents, NotALog
from statki_net.protocol.wire import Role
from statki_net.referee.judging import NamedLog, judged_game
from statki_net.referee.ratings import TAU
from statki_net.referee.standings import HOW, TIE_BREAKS, Line, Points, Standings, standings
from statki_net.referee.tournament import (
    Flag,
    GameSummary,
    TournamentRules,
    is_fingerprint,
    sort_games,
    summarize,
)

T = TypeVar("T")

WIDTH = 80
CSV_TABLES = ("standings", "games", "crosstable")


def add(commands: Subcommands) -> None:
    parser = commands.add_parser(
        "tournament",
        description="The standings, crosstable, games and ratings of a tournament, "
        "judged from its players' logs.",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="LOG", help="a log file, or a directory to search for logs"
    )
    parser.add_argument(
        "--config", metavar="FILE", help="the tournament's rules, as TOML (see README)"
    )
    parser.add_argument(
        "--rules", metavar="NAME", help="the rules every game must use: a preset, or presets+joined"
    )
    parser.add_argument(
        "--min-move-limit",
        type=float,
        metavar="SECONDS",
        help="the least move limit a game may have",
    )
    parser.add_argument("--since", metavar="DATE", help="the first day games may begin (UTC)")
    parser.add_argument("--until", metavar="DATE", help="the last day games may begin (UTC)")
    parser.add_argument(
        "--games-per-pair", type=int, metavar="N", help="games between two players that count (1)"
    )
    parser.add_argument("--tau", type=float, metavar="T", help=f"Glicko-2's tau (default {TAU})")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print one JSON document for tools")
    shown.add_argument(
        "--csv",
        nargs="?",
        const="standings",
        choices=CSV_TABLES,
        metavar="TABLE",
        help=f"print one table as CSV: {', '.join(CSV_TABLES)} (default standings)",
    )
    shown.add_argument("--html", action="store_true", help="print a self-contained HTML page")
    parser.add_argument(
        "--save",
        metavar="DIR",
        help="also write every format into DIR: tournament.txt, tournament.json, "
        f"{', '.join(f'{t}.csv' for t in CSV_TABLES)}, tournament.html",
    )
    parser.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="processes to use (default: all cores)"
    )
    parser.set_defaults(run=_tournament)


# ---------------------------------------------------------------- the tournament's rules


OPTIONS = ("rules", "min_move_limit", "since", "until", "games_per_pair", "tau")
"""The settings of the TOML file an option of the same name may give instead."""
FILE_ONLY = ("roster", "points")


@dataclass(frozen=True)
class Settings:
    """The tournament's rules, its points, and Glicko-2's tau."""

    rules: TournamentRules
    points: Points
    tau: float


def settings(args: argparse.Namespace) -> Settings:
    """The tournament's rules: the TOML file's, with the options over them."""
    given: dict[str, Any] = {}
    if args.config is not None:
        with open(args.config, "rb") as file:
            try:
                given = tomllib.load(file)
            except tomllib.TOMLDecodeError as error:
                raise UsageError(f"{args.config}: {error}") from error
    unknown = sorted(set(given) - {*OPTIONS, *FILE_ONLY})
    if unknown:
        raise UsageError(f"{args.config}: unknown setting(s): {', '.join(unknown)}")
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
        raise UsageError("the roster maps each player's name to a key fingerprint (xxxxx-...)")
    if len(set(roster.values())) < len(roster):
        raise UsageError("the roster names one key twice")
    min_move = given.get("min_move_limit", 0)
    per_pair = given.get("games_per_pair", 1)
    tau = given.get("tau", TAU)
    if not _number_like(min_move) or min_move < 0:
        raise UsageError("the minimum move limit is a number of seconds")
    if not isinstance(per_pair, int) or isinstance(per_pair, bool) or per_pair < 1:
        raise UsageError("games per pair is a whole number, at least 1")
    if not _number_like(tau) or not 0 < tau <= 5:
        raise UsageError("tau is a number above 0 (Glickman suggests 0.3 to 1.2)")
    rules = TournamentRules(
        preset=preset,
        min_move_ms=round(min_move * 1000),
        roster=dict(roster),
        since=_moment(given.get("since"), "since"),
        until=_moment(given.get("until"), "until"),
        games_per_pair=per_pair,
    )
    return Settings(rules, _points(given.get("points", {})), float(tau))


def _points(given: object) -> Points:
    """``[points]``: win, loss, forfeit (a loss by forfeit), cheated (a loss by cheating)."""
    fields = {"win", "loss", "forfeit", "cheated"}
    if (
        not isinstance(given, dict)
        or not set(given) <= fields
        or not all(_number_like(v) for v in given.values())
    ):
        raise UsageError(f"[points] gives numbers for {', '.join(sorted(fields))}")
    return Points(**{name: float(value) for name, value in given.items()})


def _number_like(value: object) -> bool:
    """An int or a float, as TOML gives them (its true and false are not numbers here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _preset(name: object) -> str:
    """The rules' name as the judgement writes it (``combination_name``)."""
    if not isinstance(name, str):
        raise UsageError("the rules are a preset's name, or presets joined by +")
    try:
        named = combination_name(ruleset_named(name))
    except UsageError as error:
        raise UsageError(f"{error} (presets: {', '.join(PRESETS)})") from error
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
            raise UsageError(f"{which}: not a date (YYYY-MM-DD): {value}") from error
        if value.time() == datetime.time() and value.tzinfo is None:
            value = value.date()
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
        return round(moment.timestamp() * 1000)
    if isinstance(value, datetime.date):
        day = value + datetime.timedelta(days=1) if which == "until" else value
        midnight = datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
        return round(midnight.timestamp() * 1000)
    raise UsageError(f"{which}: not a date: {value!r}")


# ---------------------------------------------------------------- judging


def summarize_files(paths: tuple[str, ...]) -> GameSummary:
    """Read, judge and sum up the logs of one game (runs in a worker process)."""
    logs = []
    for path in paths:
        try:
            contents = read_file(path)
        except (OSError, NotALog) as error:
            contents = LogContents(header={}, damage=f"unreadable now: {error}")
        logs.append(NamedLog(path, contents))
    return summarize(judged_game(logs))


class Progress:
    """A bar on stderr, shown only to a person (a terminal) and only once the work has
    taken a second: a quick run prints nothing."""

    def __init__(
        self,
        total: int,
        label: str = "judging games",
        *,
        stream: IO[str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        shown: bool | None = None,
        began: float | None = None,
    ) -> None:
        self.total, self.label, self.stream, self.clock = total, label, stream or sys.stderr, clock
        self.shown = self.stream.isatty() if shown is None else shown
        self.began = clock() if began is None else began
        """From when the second counts: the command's start, for a second bar."""
        self.drawn = False

    def over(self, items: Iterable[T]) -> Iterator[T]:
        for done, item in enumerate(items, 1):
            self.update(done)
            yield item
        self.finish()

    def update(self, done: int) -> None:
        if not self.shown or self.clock() - self.began < 1.0:
            return
        bar = 30 * done // max(self.total, 1)
        line = f"\r{self.label} [{'#' * bar}{'.' * (30 - bar)}] {done}/{self.total}"
        print(line, end="", file=self.stream, flush=True)
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            print("\r" + " " * 60 + "\r", end="", file=self.stream, flush=True)


def _tournament(args: argparse.Namespace) -> int:
    chosen = settings(args)
    found = find_logs(args.paths)
    jobs = args.jobs or os.cpu_count() or 1
    began = time.monotonic()
    reading = Progress(len(found.named), "reading logs", began=began)
    games = identified_games(found, jobs, reading.over)
    judging = Progress(len(games), "judging games", began=began)
    summaries = list(judging.over(spread(summarize_files, games, jobs)))
    table = standings(sort_games(summaries, chosen.rules), chosen.points, chosen.tau)
    logs = sum(len(paths) for paths in games)
    formats = shown_as(table, chosen, logs)
    sys.stdout.write(formats[_chosen_format(args)]())
    if args.save is not None:
        folder = Path(args.save)
        folder.mkdir(parents=True, exist_ok=True)
        for name, make in formats.items():
            (folder / name).write_text(make(), encoding="utf-8")
    if bad_input(found):
        return EXIT_BAD_INPUT
    return EXIT_FOUND if table.games.apart else EXIT_OK


def shown_as(table: Standings, chosen: Settings, logs: int) -> dict[str, Callable[[], str]]:
    """Every format, under the name ``--save`` gives its file, made only when asked for."""

    def as_csv(which: str) -> Callable[[], str]:
        def made() -> str:
            out = io.StringIO()
            write_csv(table, which, out)
            return out.getvalue()

        return made

    def as_html() -> str:
        from statki_net.cli.tournament_page import page

        return page(report(table, chosen, logs))

    return {
        "tournament.txt": lambda: "\n".join(text(table, chosen, logs)) + "\n",
        "tournament.json": lambda: json.dumps(report(table, chosen, logs), indent=2) + "\n",
        **{f"{which}.csv": as_csv(which) for which in CSV_TABLES},
        "tournament.html": as_html,
    }


def _chosen_format(args: argparse.Namespace) -> str:
    if args.json:
        return "tournament.json"
    if args.csv:
        return f"{args.csv}.csv"
    return "tournament.html" if args.html else "tournament.txt"


# ---------------------------------------------------------------- the report (JSON)


def numbered(table: Standings) -> list[tuple[int, GameSummary, str | None, str | None]]:
    """Every game in the order played: its number, and why it is set apart (or None)."""
    apart = {id(a.game): a for a in table.games.apart}
    every = sorted([*table.games.scored, *(a.game for a in table.games.apart)], key=_order)
    out = []
    for number, game in enumerate(every, 1):
        why = apart.get(id(game))
        out.append((number, game, why.why.value if why else None, why.detail if why else None))
    return out


def _order(game: GameSummary) -> tuple[int, str]:
    return (game.started or 0, game.game)


def report(table: Standings, chosen: Settings, logs: int) -> dict[str, Any]:
    rules = chosen.rules
    keys = [line.key for line in table.lines]
    return {
        "tournament": {
            "rules": rules.preset,
            "min_move_limit_ms": rules.min_move_ms,
            "roster": dict(rules.roster),
            "since": rules.since,
            "until": rules.until,
            "games_per_pair": rules.games_per_pair,
            "tau": chosen.tau,
            "points": asdict(chosen.points),
        },
        "logs": logs,
        "games_judged": len(table.games.scored) + len(table.games.apart),
        "games_scored": len(table.games.scored),
        "tie_breaks": list(TIE_BREAKS),
        "standings": [_line_json(line) for line in table.lines],
        "crosstable": {
            "players": keys,
            "rows": [[list(table.crosstable[row].get(col, ())) for col in keys] for row in keys],
        },
        "games": [_game_json(table, *item) for item in numbered(table)],
    }


def _line_json(line: Line) -> dict[str, Any]:
    return {
        "place": line.place,
        "name": line.name,
        "key": line.key,
        "games": line.games,
        "wins": line.wins,
        "losses": line.losses,
        "won_by": {end.value: line.won_by[end] for end in HOW},
        "lost_by": {end.value: line.lost_by[end] for end in HOW},
        "points": line.points,
        "head_to_head": line.head_to_head,
        "sonneborn_berger": line.sonneborn_berger,
        "shots_to_win": line.shots_to_win,
        "rating": round(line.rating.rating, 2),
        "deviation": round(line.rating.deviation, 2),
        "volatility": round(line.rating.volatility, 6),
        "rated_games": line.rated_games,
    }


def _game_json(
    table: Standings, number: int, game: GameSummary, why: str | None, detail: str | None
) -> dict[str, Any]:
    def side(role: Role) -> dict[str, Any]:
        key = game.keys.get(role)
        return {
            "key": key,
            "name": table.games.players.get(key or "", game.names.get(role)),
            "hello_name": game.names.get(role),
            "shots": game.shots.get(role, 0),
        }

    return {
        "number": number,
        "game": game.game,
        "started": game.started,
        "host": side(Role.HOST),
        "guest": side(Role.GUEST),
        "first": game.first.value if game.first else None,
        "rules": game.rules,
        "move_limit_ms": game.move_ms,
        "standing": game.standing.value,
        "end": game.end.value if game.end else None,
        "winner": game.winner.value if game.winner else None,
        "result": game.result,
        "logs": list(game.logs),
        "flags": [flag.value for flag in game.flags],
        "scored": why is None,
        "apart": None if why is None else {"why": why, "detail": detail},
        "boards": [{"title": b.title, "lines": list(b.lines)} for b in game.boards],
    }


# ---------------------------------------------------------------- CSV


def write_csv(table: Standings, which: str, out: IO[str]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    if which == "standings":
        how = [f"{word} {end.value}" for word in ("won", "lost") for end in HOW]
        head = ["place", "name", "key", "games", "wins", "losses", *how, "points"]
        writer.writerow(
            [*head, "head_to_head", "sonneborn_berger", "shots_to_win", "rating", "deviation"]
        )
        for line in table.lines:
            counts = [line.won_by[end] for end in HOW] + [line.lost_by[end] for end in HOW]
            ties = [_number(line.head_to_head), _number(line.sonneborn_berger), line.shots_to_win]
            rating = [f"{line.rating.rating:.2f}", f"{line.rating.deviation:.2f}"]
            who = [line.place, line.name, line.key, line.games, line.wins, line.losses]
            writer.writerow([*who, *counts, _number(line.points), *ties, *rating])
    elif which == "games":
        head = ["number", "game", "host", "guest", "first", "winner", "how", "standing"]
        writer.writerow(
            [*head, "host shots", "guest shots", "rules", "scored", "set apart", "flags", "logs"]
        )
        for number, game, why, detail in numbered(table):
            players = [_player(table, game, Role.HOST), _player(table, game, Role.GUEST)]
            result = [game.first or "", _winner(table, game), game.end or "", game.standing]
            shots = [game.shots.get(Role.HOST, 0), game.shots.get(Role.GUEST, 0)]
            scored = ["yes" if why is None else "no", f"{why}: {detail}" if why else ""]
            logs = ["; ".join(game.flags), " ".join(game.logs)]
            writer.writerow(
                [number, game.game, *players, *result, *shots, game.rules or "", *scored, *logs]
            )
    else:
        keys = [line.key for line in table.lines]
        writer.writerow(["player", *(table.games.name(key) for key in keys)])
        for row in keys:
            cells = [_scores(table.crosstable[row].get(col)) for col in keys]
            writer.writerow([table.games.name(row), *cells])


def _number(value: float) -> str:
    return f"{value:g}"


def _scores(scores: tuple[float, ...] | None) -> str:
    return "".join(_number(s) for s in scores) if scores else ""


def _player(table: Standings, game: GameSummary, role: Role) -> str:
    key = game.keys.get(role)
    if key is not None and key in table.games.players:
        return table.games.name(key)
    return game.names.get(role) or (key or role.value)


def _winner(table: Standings, game: GameSummary) -> str:
    return _player(table, game, game.winner) if game.winner else "nobody"


# ---------------------------------------------------------------- the terminal table


def shown(text: str, width: int) -> str:
    """A name as a terminal shows it safely: no control characters, cut to ``width``."""
    clean = "".join(c if c.isprintable() else "?" for c in text)
    return clean if len(clean) <= width else clean[: width - 1] + "~"


FLAG_MARKS = {
    Flag.DISPUTED: "D",
    Flag.UNCORROBORATED: "T",
    Flag.CUSTOM_RULES: "C",
    Flag.ONE_SIDE: "1",
    Flag.COPY: "2",
}
HOW_WORDS = {
    "sunk": "sunk",
    "resigned": "res",
    "time": "time",
    "forfeit": "forf",
    "cheated": "chtd",
}


def text(table: Standings, chosen: Settings, logs: int) -> list[str]:
    """The tournament as a terminal shows it, in 80 columns, without colour."""
    games = table.games
    out = [
        f"Tournament: {len(games.scored) + len(games.apart)} game(s) from {logs} log(s); "
        f"{len(games.scored)} scored, {len(games.apart)} set apart",
        _wrap("Rules: " + _rules_words(chosen)),
        "",
        "Standings (ties: " + ", ".join(TIE_BREAKS) + ")",
        f"{'#':>3}  {'Player':<14} {'G':>3} {'W':>3} {'L':>3} {'Pts':>4}  "
        + " ".join(f"{w:>4}" for w in HOW_WORDS.values())
        + f" {'H2H':>4} {'SB':>5} {'Shots':>6}",
    ]
    for line in table.lines:
        how = " ".join(f"{f'{line.won_by[end]}-{line.lost_by[end]}':>4}" for end in HOW)
        out.append(
            f"{line.place:>3}  {shown(line.name, 14):<14} {line.games:>3} {line.wins:>3}"
            f" {line.losses:>3} {_number(line.points):>4}  {how}"
            f" {_number(line.head_to_head):>4} {_number(line.sonneborn_berger):>5}"
            f" {line.shots_to_win:>+6}"
        )
    out += ["", "Ratings (Glicko-2, game by game in the order played)"]
    out.append(f"{'#':>3}  {'Player':<16} {'Rating':>7} {'RD':>6}  {'Volatility':>10}  Games")
    for line in sorted(table.lines, key=lambda line: (-line.rating.rating, line.name)):
        r = line.rating
        out.append(
            f"{line.place:>3}  {shown(line.name, 16):<16} {r.rating:>7.1f} {r.deviation:>6.1f}"
            f"  {r.volatility:>10.6f}  {line.rated_games:>5}"
        )
    out += ["", *_crosstable_text(table), "", *_games_text(table)]
    return out


def _rules_words(chosen: Settings) -> str:
    rules = chosen.rules
    words = [rules.preset or "any preset or combination of presets"]
    if rules.min_move_ms:
        words.append(f"move limit at least {rules.min_move_ms / 1000:g} s")
    if rules.roster:
        words.append(f"a roster of {len(rules.roster)}")
    if rules.since is not None or rules.until is not None:
        words.append("games begun " + _dates(rules.since, rules.until))
    pair = rules.games_per_pair
    words.append("one game per pair" if pair == 1 else f"{pair} games per pair")
    if chosen.points != Points():
        p = chosen.points
        words.append(
            f"points: win {p.win:g}, loss {p.loss:g}, by forfeit {p.forfeit:g},"
            f" by cheating {p.cheated:g}"
        )
    return "; ".join(words)


def _dates(since: int | None, until: int | None) -> str:
    def moment(ms: int) -> str:
        return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M")

    parts = []
    if since is not None:
        parts.append(f"from {moment(since)}")
    if until is not None:
        parts.append(f"before {moment(until)}")
    return " ".join(parts) + " UTC"


def _crosstable_text(table: Standings) -> list[str]:
    keys = [line.key for line in table.lines]
    widest = (len(_scores(s)) for row in table.crosstable.values() for s in row.values())
    cell = max([3, *(n + 1 for n in widest)])
    if 25 + cell * len(keys) > WIDTH:
        return [
            f"Crosstable: {len(keys)} players are too many for {WIDTH} columns"
            " (see --csv crosstable, --json or --html)"
        ]
    out = ["Crosstable (the row's points against the column's, game by game)"]
    numbers = "".join(f"{n:>{cell}}" for n in range(1, len(keys) + 1))
    out.append(f"{'#':>3}  {'Player':<16}{numbers}")
    for number, row in enumerate(keys, 1):
        cells = "".join(
            f"{'x' if col == row else (_scores(table.crosstable[row].get(col)) or '.'):>{cell}}"
            for col in keys
        )
        out.append(f"{number:>3}  {shown(table.games.name(row), 16):<16}{cells}")
    return out


def _games_text(table: Standings) -> list[str]:
    out = ["Games, in the order played (1st: who shot first; shots: host-guest)"]
    out.append(
        f"{'#':>3}  {'Host':<13} {'Guest':<13} 1st  {'Winner':<13} How  {'Shots':>7}  Logs  Flags"
    )
    apart: list[str] = []
    for number, game, why, detail in numbered(table):
        if why is not None:
            host, guest = _player(table, game, Role.HOST), _player(table, game, Role.GUEST)
            marks = "".join(FLAG_MARKS[flag] for flag in game.flags)
            words = f"{number:>3}  {game.game[:16]} {host} v {guest}: {why}: {detail}"
            apart.append(shown(words + (f" [{marks}]" if marks else ""), 10**6))
            continue
        shots = f"{game.shots.get(Role.HOST, 0)}-{game.shots.get(Role.GUEST, 0)}"
        roles = " ".join(_log_marks(game))
        out.append(
            f"{number:>3}  {shown(_player(table, game, Role.HOST), 13):<13}"
            f" {shown(_player(table, game, Role.GUEST), 13):<13}"
            f" {(game.first or '-')[0].upper():<3}  {shown(_winner(table, game), 13):<13}"
            f" {HOW_WORDS.get(game.end or '', '-'):<4} {shots:>7}  {shown(roles, 5):<5}"
            f" {''.join(FLAG_MARKS[flag] for flag in game.flags)}"
        )
    out.append(
        "Logs: H the host's, G the guest's.  Flags: "
        + ", ".join(f"{mark} {flag}" for flag, mark in FLAG_MARKS.items())
    )
    if apart:
        out += ["", "Set apart, not scored"]
        for line in apart:
            out += textwrap.wrap(line, WIDTH, subsequent_indent="       ")
    return [_wrap(line) if len(line) > WIDTH else line.rstrip() for line in out]


def _log_marks(game: GameSummary) -> list[str]:
    """H for a host's log, G for a guest's (the host's first), ? for one naming no role."""
    marks = {"host": "H", "guest": "G"}
    return sorted((marks.get(role or "", "?") for role in game.log_roles), key="HG?".index)


def _wrap(line: str) -> str:
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="  ")) or line

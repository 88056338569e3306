"""``statki tournament``: a test tournament played through real sessions, then judged.

Eight players, each with a key of its own, play a round robin of bot games
(both sides' logs of each kept), and then one game of each kind the endings
brought: a forfeit, a cheat, a dispute, a duplicate log, a custom-rules game,
a stranger's key; and one each outside the tournament's other rules (another
preset, a short move limit, the wrong dates, a third meeting), and one game
whose host kept no log.  What the test expects is worked out here from the
sessions themselves (who won, how), not from the referee.  The tournament is
played and judged once for the module; every format is read from that.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import itertools
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from browser import rendered
from tournaments import (
    GAP_MS,
    START_MS,
    Entrant,
    Twist,
    entrants,
    play_game,
    write_logs,
)

from statki_net.cli.main import main
from statki_net.cli.tournament import Progress
from statki_net.cli.tournament_report import report, write_json
from statki_net.game.rules import PRESETS
from statki_net.protocol.endings import End
from statki_net.protocol.wire import Limits, Role
from statki_net.referee.ratings import Outcome, Rating, rate
from statki_net.referee.standings import standings
from statki_net.referee.tournament import Apart, TournamentRules, sort_games

NAMES = ["Ala", "Bartek", "Celina", "Darek", "Ewa", "Franek", "Gosia", "Henryk"]
OCTOBER = START_MS - 50 * 24 * 3600 * 1000
AIMED = 0.9
"""The share of volleys fired at the opponent's ships: a game has a fifth of random
shooting's messages, so the fixture's 38 games, played and judged, cost 2.5 s of CPU
(9 s with random shots, which was over 60 s at a load of 20 on two cores)."""


@dataclass(frozen=True)
class Played:
    """One game as its own sessions ended it."""

    host: Entrant
    guest: Entrant
    winner: Role | None
    end: End | None
    started: int
    apart: Apart | None = None
    flag: str | None = None
    """The flag the game must carry, if any."""

    def entrant(self, role: Role) -> Entrant:
        return self.host if role is Role.HOST else self.guest


@dataclass(frozen=True)
class Run:
    status: int
    out: str
    err: str


@dataclass
class Desk:
    folder: Path
    players: list[Entrant]
    stranger: Entrant
    played: list[Played]
    roster: dict[str, str]
    """Fingerprint -> the name the roster gives it."""
    run: Run
    """The one run of the command: the terminal table, every format saved (--save)."""
    saved: Path

    def file(self, name: str) -> str:
        return (self.saved / name).read_text(encoding="utf-8")

    @property
    def report(self) -> dict[str, Any]:
        return json.loads(self.file("tournament.json"))  # type: ignore[no-any-return]


def roster_name(entrant: Entrant) -> str:
    return f"{entrant.name} {entrant.name[0]}."


def statki(*args: str) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return Run(status, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Desk]:
    folder = tmp_path_factory.mktemp("tournament")
    logs = folder / "logs"
    players = entrants(NAMES)
    [stranger] = entrants(["Obcy"], seed=900)
    played: list[Played] = []
    clock = itertools.count()

    def game(
        host: Entrant,
        guest: Entrant,
        *,
        apart: Apart | None = None,
        flag: str | None = None,
        start: int | None = None,
        only_guest_log: bool = False,
        **how: Any,
    ) -> None:
        n = next(clock)
        began = START_MS + n * GAP_MS if start is None else start
        pair = play_game(host, guest, seed=3000 + 7 * n, start=began, aimed=AIMED, **how)
        host_log, _ = write_logs(pair, logs, f"game{n:02d}")
        if only_guest_log:
            host_log.unlink()
        ending = pair.guest.transcript.ending if only_guest_log else pair.host.transcript.ending
        winner, end = (ending.winner, ending.end) if ending else (None, None)
        played.append(Played(host, guest, winner, end, began, apart, flag))

    for i, j in itertools.combinations(range(8), 2):
        host, guest = (players[i], players[j]) if (i + j) % 2 else (players[j], players[i])
        game(host, guest)
    p = players
    game(p[0], p[1], twist=Twist.FORFEIT)
    game(p[2], p[3], twist=Twist.CHEAT)
    game(p[4], p[5], twist=Twist.DISPUTE, apart=Apart.DISPUTED, flag="disputed")
    custom = replace(PRESETS["classic"], size=12)
    game(p[6], p[7], rules=custom, apart=Apart.RULES, flag="custom rules")
    game(p[1], p[3], rules=PRESETS["salvo"], apart=Apart.RULES)
    game(stranger, p[0], apart=Apart.STRANGER)
    game(p[0], p[1], apart=Apart.REPLAYED)
    game(p[2], p[4], start=OCTOBER, apart=Apart.DATES)
    game(p[3], p[5], limits=Limits(move_ms=60_000, reveal_ms=60_000), apart=Apart.MOVE_LIMIT)
    game(p[7], p[6], only_guest_log=True, flag="only one side's log")
    # The duplicate: the first game's host log handed in a second time, under another name.
    (folder / "logs" / "again").mkdir()
    shutil.copy(logs / "game00-host.statki", logs / "again" / "game00-copy.statki")
    played[0] = replace(played[0], flag="a log given twice")
    (logs / "notes.txt").write_text("not a log: passed over\n")
    roster = {e.fingerprint: roster_name(e) for e in players}
    config = folder / "tournament.toml"
    lines = [
        'rules = "classic"',
        "min_move_limit = 90",
        "games_per_pair = 2",
        "since = 2026-11-01",
        "until = 2026-11-30",
        "",
        "[roster]",
    ] + [f'"{name}" = "{key}"' for key, name in roster.items()]
    config.write_text("\n".join(lines) + "\n")
    saved = folder / "published"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NO_COLOR", "1")
        run = statki("tournament", str(logs), "--config", str(config), "--save", str(saved))
    yield Desk(folder, players, stranger, played, roster, run, saved)


# ---------------------------------------------------------------- what the sessions say


def scored(desk: Desk) -> list[Played]:
    return sorted((g for g in desk.played if g.apart is None), key=lambda g: g.started)


def expected_table(desk: Desk) -> dict[str, dict[str, Any]]:
    """Games, wins, losses, points, how, head-to-head and Sonneborn-Berger per player,
    from the games' own sessions (a win one point, every loss none)."""
    rows: dict[str, dict[str, Any]] = {
        e.fingerprint: {"games": 0, "wins": 0, "losses": 0, "won_by": {}, "lost_by": {}}
        for e in desk.players
    }
    for g in scored(desk):
        assert g.winner is not None and g.end is not None
        win, lose = g.entrant(g.winner).fingerprint, g.entrant(g.winner.other).fingerprint
        for key in (win, lose):
            rows[key]["games"] += 1
        rows[win]["wins"] += 1
        rows[lose]["losses"] += 1
        rows[win]["won_by"][g.end.value] = rows[win]["won_by"].get(g.end.value, 0) + 1
        rows[lose]["lost_by"][g.end.value] = rows[lose]["lost_by"].get(g.end.value, 0) + 1
    for g in scored(desk):
        assert g.winner is not None
        win, lose = g.entrant(g.winner).fingerprint, g.entrant(g.winner.other).fingerprint
        rows[win]["sb"] = rows[win].get("sb", 0) + rows[lose]["wins"]
    for key, row in rows.items():
        level = {k for k, r in rows.items() if r["wins"] == row["wins"]}
        row["h2h"] = sum(
            1
            for g in scored(desk)
            if g.winner is not None
            and g.entrant(g.winner).fingerprint == key
            and g.entrant(g.winner.other).fingerprint in level
        )
    return rows


# ---------------------------------------------------------------- the tests


def test_every_player_s_record_is_what_the_games_ended_in(desk: Desk) -> None:
    report = desk.report
    expected = expected_table(desk)
    assert len(report["standings"]) == 8
    for line in report["standings"]:
        row = expected[line["key"]]
        assert line["name"] == desk.roster[line["key"]]
        assert (line["games"], line["wins"], line["losses"]) == (
            row["games"],
            row["wins"],
            row["losses"],
        )
        assert line["points"] == row["wins"]
        assert {end: n for end, n in line["won_by"].items() if n} == row["won_by"]
        assert {end: n for end, n in line["lost_by"].items() if n} == row["lost_by"]
        assert line["sonneborn_berger"] == row.get("sb", 0)
        assert line["head_to_head"] == (row["h2h"] if _level(report, line) else 0)
    # Seven round-robin games each, and second meetings: a forfeit, a cheat, one log alone.
    assert sum(line["games"] for line in report["standings"]) == 2 * (28 + 3)
    ends = {end for line in report["standings"] for end, n in line["won_by"].items() if n}
    assert {"sunk", "forfeit", "cheated"} <= ends


def _level(report: dict[str, Any], line: dict[str, Any]) -> bool:
    return sum(other["points"] == line["points"] for other in report["standings"]) > 1  # type: ignore[no-any-return]


def test_the_standings_are_in_order_of_points_then_the_tie_breaks(desk: Desk) -> None:
    lines = desk.report["standings"]
    order = ("points", "head_to_head", "wins", "sonneborn_berger", "shots_to_win")
    keys = [tuple(line[what] for what in order) for line in lines]
    assert keys == sorted(keys, reverse=True)
    assert lines[0]["place"] == 1
    assert desk.report["tie_breaks"] == [
        "head-to-head",
        "wins",
        "Sonneborn-Berger",
        "shots-to-win difference",
    ]


def test_the_ratings_are_glicko_2_game_by_game_in_the_order_played(desk: Desk) -> None:
    ratings = {e.fingerprint: Rating() for e in desk.players}
    for g in scored(desk):
        assert g.winner is not None
        win, lose = g.entrant(g.winner).fingerprint, g.entrant(g.winner.other).fingerprint
        before_win, before_lose = ratings[win], ratings[lose]
        ratings[win] = rate(before_win, [Outcome(before_lose, 1.0)])
        ratings[lose] = rate(before_lose, [Outcome(before_win, 0.0)])
    for line in desk.report["standings"]:
        expected = ratings[line["key"]]
        assert line["rating"] == round(expected.rating, 2)
        assert line["deviation"] == round(expected.deviation, 2)


def test_each_game_is_counted_once_or_set_apart_with_its_reason(desk: Desk) -> None:
    report = desk.report
    games = report["games"]
    assert report["games_judged"] == len(games) == len(desk.played)
    assert report["logs"] == 2 * len(desk.played) - 1 + 1  # one log missing, one given twice
    by_start = sorted(desk.played, key=lambda g: g.started)
    for played, game in zip(by_start, games, strict=True):
        assert game["started"] == played.started
        assert (game["host"]["hello_name"], game["guest"]["hello_name"]) == (
            played.host.name,
            played.guest.name,
        )
        assert game["scored"] is (played.apart is None)
        assert (game["apart"] or {}).get("why") == (played.apart.value if played.apart else None)
        if played.flag is not None:
            assert played.flag in game["flags"]
        if played.apart is None:
            assert played.winner is not None and game["winner"] == played.winner.value
            assert game["end"] == (played.end.value if played.end else None)
            assert len(game["boards"]) == 2
    copy = next(g for g in games if "a log given twice" in g["flags"])
    assert len(copy["logs"]) == 3 and copy["scored"]
    stranger = next(g for g in games if (g["apart"] or {}).get("why") == "not on the roster")
    assert desk.stranger.fingerprint in stranger["apart"]["detail"]


def test_the_terminal_table_fits_80_columns_without_colour(desk: Desk) -> None:
    run = desk.run
    assert run.status == 1, "games set apart are something to look at"
    assert run.out == desk.file("tournament.txt")
    lines = run.out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "\x1b" not in run.out
    standings = lines[lines.index(next(x for x in lines if x.startswith("Standings"))) + 2 :][:8]
    assert [line[5:19].rstrip() for line in standings] == [
        line["name"] for line in desk.report["standings"]
    ]
    for why in ("disputed", "other rules", "not on the roster", "played again", "move limit"):
        assert f": {why}: " in run.out
    assert "Crosstable" in run.out and "Ratings (Glicko-2" in run.out
    assert run.err == ""


def test_the_csv_tables_hold_what_the_json_holds(desk: Desk) -> None:
    report = desk.report
    rows = list(csv.DictReader(io.StringIO(desk.file("standings.csv"))))
    assert [(r["name"], float(r["points"]), int(r["wins"])) for r in rows] == [
        (line["name"], line["points"], line["wins"]) for line in report["standings"]
    ]
    assert [float(r["rating"]) for r in rows] == [line["rating"] for line in report["standings"]]
    games = list(csv.DictReader(io.StringIO(desk.file("games.csv"))))
    assert [g["game"] for g in games] == [g["game"] for g in report["games"]]
    assert [g["scored"] == "yes" for g in games] == [g["scored"] for g in report["games"]]
    # Each log a line of its cell, whole: a name may hold a space (a referee's check).
    assert [g["logs"].split("\n") for g in games] == [g["logs"] for g in report["games"]]
    # Pairs may meet twice: a column for each meeting, each game's points a number.
    cross = list(csv.reader(io.StringIO(desk.file("crosstable.csv"))))
    names = [line["name"] for line in report["standings"]]
    assert cross[0][1:] == [f"{name} ({n})" for name in names for n in (1, 2)]
    assert [row[1:] for row in cross[1:]] == [
        [f"{cell[n]:g}" if n < len(cell) else "" for cell in row for n in (0, 1)]
        for row in report["crosstable"]["rows"]
    ]


# ---------------------------------------------------------------- the page, in a browser


class Tables(HTMLParser):
    """The text of every table cell, by table id, and the boards' <pre> blocks."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.boards: list[str] = []
        self.table: str | None = None
        self.cell: list[str] | None = None
        self.pre: list[str] | None = None
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "table":
            self.table = dict(attrs).get("id")
            self.tables[self.table or ""] = []
        elif tag == "tr" and self.table is not None:
            self.tables[self.table].append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "pre":
            self.pre = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.table is not None:
            self.tables[self.table][-1].append("".join(self.cell))
            self.cell = None
        elif tag == "table":
            self.table = None
        elif tag == "pre" and self.pre is not None:
            self.boards.append("".join(self.pre))
            self.pre = None

    def handle_data(self, data: str) -> None:
        for open_text in (self.cell, self.pre):
            if open_text is not None:
                open_text.append(data)


def test_the_html_page_renders_in_a_browser_and_holds_what_the_json_holds(desk: Desk) -> None:
    html = desk.file("tournament.html")
    assert "<script" not in html and "http" not in html
    page = desk.saved / "tournament.html"
    dom = Tables()
    dom.feed(rendered(page))
    report = desk.report
    assert "script" not in dom.tags and {"style", "table", "pre"} <= dom.tags
    standings = dom.tables["standings"]
    head = standings[0]
    rows = [dict(zip(head, row, strict=True)) for row in standings[1:]]
    assert [(r["Player"], float(r["Pts"]), int(r["W"]), float(r["Rating"])) for r in rows] == [
        (line["name"], line["points"], line["wins"], line["rating"]) for line in report["standings"]
    ]
    assert [r["forfeit won-lost"] for r in rows] == [
        f"{line['won_by']['forfeit']}-{line['lost_by']['forfeit']}" for line in report["standings"]
    ]
    games = dom.tables["games"]
    assert len(games) - 1 == len(report["games"])
    assert [row[0] for row in games[1:]] == [str(g["number"]) for g in report["games"]]
    apart = {row[0]: row[games[0].index("Set apart")] for row in games[1:]}
    for game in report["games"]:
        why = game["apart"]
        assert apart[str(game["number"])] == (f"{why['why']}: {why['detail']}" if why else "")
    cross = dom.tables["crosstable"]
    assert [row[1] for row in cross[1:]] == [line["name"] for line in report["standings"]]
    boards = [b for g in report["games"] for b in g["boards"]]
    assert dom.boards == ["\n".join(b["lines"]) for b in boards]
    assert len(boards) >= 2 * 31


def test_the_html_page_in_polish_says_each_result_and_board_in_polish(desk: Desk) -> None:
    """The page's own words, a game's result, its boards' titles and why it is set apart
    are said in the reader's language (the JSON keeps the English).  Five games' logs
    judged again in-process: about 0.5 s."""
    twists = ("game28", "game29", "game30", "game31")  # a forfeit, a cheat, a dispute, a 12x12
    logs = sorted(p for p in (desk.folder / "logs").glob("*.statki") if p.stem[:6] in twists)
    run = statki("--lang", "pl", "tournament", *map(str, logs), "--html")
    assert run.status in (0, 1), run.err
    headings = re.findall(r"<h3>(.*?)</h3>", run.out)
    titles = re.findall(r"<figcaption>(.*?)</figcaption>", run.out)
    apart = [row[9] for row in _cells(run.out, "games") if row[9]]
    assert len(headings) == 4 and len(titles) == 8 and len(apart) == 2
    english = re.compile(r"\b(won|sank|fleet|sea|revealed|learned|cheated|forfeit|nobody|played)\b")
    for said in headings + titles + apart:
        assert not english.search(html.unescape(said)), said
    assert all(html.unescape(t).startswith(("Flota gracza ", "Morze gracza ")) for t in titles)
    assert all(h.startswith("Partia ") for h in headings)


def _cells(page: str, table: str) -> list[list[str]]:
    dom = Tables()
    dom.feed(page)
    return dom.tables[table][1:]


# ---------------------------------------------------------------- exit codes, progress


def test_a_clean_tournament_exits_0_and_bad_input_2(desk: Desk, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    for name in ("game00-host", "game00-guest", "game01-host", "game01-guest"):
        shutil.copy(desk.folder / "logs" / f"{name}.statki", clean)
    saved = tmp_path / "saved"
    run = statki("tournament", str(clean), "--rules", "classic", "--save", str(saved))
    assert run.status == 0, run.out
    assert "2 game(s) from 4 log(s); 2 scored, 0 set apart" in run.out
    # Each format on stdout is what --save writes.
    for option, name in (
        ("--json", "tournament.json"),
        ("--csv", "standings.csv"),
        ("--html", "tournament.html"),
    ):
        shown = statki("tournament", str(clean), "--rules", "classic", option)
        assert (shown.status, shown.out) == (0, (saved / name).read_text())
    games = statki("tournament", str(clean), "--rules", "classic", "--csv", "games")
    assert games.out == (saved / "games.csv").read_text()
    # The JSON is written a game at a time, exactly as json.dumps writes the whole.
    whole = (saved / "tournament.json").read_text()
    assert whole == json.dumps(json.loads(whole), indent=2) + "\n"
    # The games began on 2026-11-20 (UTC): a day given for --until counts whole.
    on_the_day = statki("tournament", str(clean), "--since", "2026-11-20", "--until", "2026-11-20")
    assert on_the_day.status == 0
    later = statki("tournament", str(clean), "--since", "2026-11-21", "--json")
    assert later.status == 1
    assert [g["apart"]["why"] for g in json.loads(later.out)["games"]] == ["outside the dates"] * 2
    missing = statki("tournament", str(clean), str(tmp_path / "nothing.statki"))
    assert missing.status == 2 and "no such file" in missing.err
    bad = tmp_path / "bad.toml"
    bad.write_text('rules = "no-such-rules"\n')
    assert statki("tournament", str(clean), "--config", str(bad)).status == 2
    bad.write_text('[roster]\nAla = "not a fingerprint"\n')
    wrong = statki("tournament", str(clean), "--config", str(bad))
    assert wrong.status == 2 and "fingerprint" in wrong.err


def test_a_tournament_of_no_games_is_still_a_report() -> None:
    rules = TournamentRules()
    table = standings(sort_games([], rules))
    out = io.StringIO()
    write_json(table, rules, 0, out)
    assert out.getvalue() == json.dumps(report(table, rules, 0), indent=2) + "\n"
    assert json.loads(out.getvalue())["games"] == []


def test_progress_shows_only_after_a_second_and_clears_itself() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(4, stream=stream, clock=lambda: now[0], shown=True)
    progress.update(1)
    assert stream.getvalue() == ""
    now[0] = 1.5
    progress.update(2)
    assert "2/4" in stream.getvalue() and "#" * 15 in stream.getvalue()
    progress.finish()
    assert stream.getvalue().endswith("\r")
    quiet = io.StringIO()
    assert list(Progress(3, stream=quiet, clock=lambda: 9.0, shown=False).over("abc")) == list(
        "abc"
    )
    assert quiet.getvalue() == ""


def test_a_file_that_is_no_game_is_given_no_move_limit(tmp_path: Path) -> None:
    """A referee's check: a junk .statki file's entry said move_limit_ms 120000, the
    defaults a transcript starts with, though no hello proposed any."""
    (tmp_path / "junk.statki").write_bytes(b"no log at all")
    done = statki("tournament", str(tmp_path), "--json")
    [game] = json.loads(done.out)["games"]
    assert game["move_limit_ms"] == 0, game

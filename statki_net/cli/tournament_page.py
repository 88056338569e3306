"""The tournament as one self-contained HTML page a referee can publish.

Made from the very report ``--json`` prints, so the page holds what the JSON
holds: the terms the tournament was played under (rules, move limit, dates,
games per pair, points, tau: a page read away from the program must say
them), the standings, the ratings, the crosstable, every game (those set
apart with their reason), and each game's two boards at the end.  Inline
CSS, no script, no file or address outside the page; every word a player
chose (a name) is escaped.

``write_page`` writes it a line at a time from the games as they come: the
games' table and their boards are never all in memory at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from html import escape
from io import StringIO
from typing import IO, Any

from statki_net.cli.tournament_report import (
    GAMES_APART,
    rules_from_report,
    rules_words,
    shots_words,
)
from statki_net.game.words import N_
from statki_net.store.language import _, spoken

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #111; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: right; }
th { background: #eee; } td.name, th.name, td.logs { text-align: left; }
td.logs { font-size: 0.8em; }
tr.apart td { color: #666; font-style: italic; }
.boards { display: flex; flex-wrap: wrap; gap: 2em; }
figure { margin: 0; } pre { font-size: 0.9em; line-height: 1.1; }
"""

STANDING_COLUMNS = (
    ("place", "#"),
    ("name", N_("Player")),
    ("games", N_("G")),
    ("wins", N_("W")),
    ("losses", N_("L")),
    ("points", N_("Pts")),
    ("head_to_head", N_("H2H")),
    ("sonneborn_berger", N_("SB")),
    ("shots_to_win", N_("Shots")),
    ("rating", N_("Rating")),
    ("deviation", N_("RD")),
)
"""The standings' columns: the report's key, and the heading (translated where shown)."""

HEADINGS = (
    N_("statki tournament"),
    N_("Tournament"),
    N_("Standings"),
    N_("Crosstable"),
    N_("Games"),
    N_("Boards"),
)
"""The page's title and headings, marked here: they are translated inside f-strings,
where Babel does not look."""

NAMED = frozenset({"Player", "Host", "Guest", "First", "Winner", "How", "Standing", "Set apart"})
"""Columns of words, set to the left (by their English heading, before it is translated)."""


def page(report: dict[str, Any]) -> str:
    """The page of a whole report (``report``), as one string."""
    out = StringIO()
    write_page(report, report["games"], report["games"], out)
    return out.getvalue()


def write_page(
    head: dict[str, Any],
    games: Iterable[dict[str, Any]],
    with_boards: Iterable[dict[str, Any]],
    out: IO[str],
) -> None:
    """The page, from the report's head (``report_head``) and its games twice over: once
    for their table (boards not needed), once for their boards."""
    for line in _lines(head, games, with_boards):
        out.write(line + "\n")


def _lines(
    report: dict[str, Any],
    games: Iterable[dict[str, Any]],
    with_boards: Iterable[dict[str, Any]],
) -> Iterator[str]:
    players = report["standings"]
    yield from [
        "<!DOCTYPE html>",
        f'<html lang="{spoken()}"><head><meta charset="utf-8">',
        f"<title>{escape(_('statki tournament'))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{escape(_('Tournament'))}</h1>",
        '<p id="summary">'
        + escape(
            _("{games} games from {logs} logs; {scored} scored.  Ties broken by {ties}.").format(
                games=report["games_judged"],
                logs=report["logs"],
                scored=report["games_scored"],
                ties=", ".join(_(tie) for tie in report["tie_breaks"]),
            )
        )
        + "</p>",
        '<p id="rules">'
        + escape(
            _("Rules: {rules}").format(rules=rules_words(rules_from_report(report), published=True))
        )
        + "</p>",
        f"<h2>{escape(_('Standings'))}</h2>",
        _table("standings", _standing_head(players), _standing_rows(players)),
        f'<p id="shots">{escape(shots_words())}</p>',
        f"<h2>{escape(_('Crosstable'))}</h2>",
        _crosstable(report),
        f"<h2>{escape(_('Games'))}</h2>",
    ]
    yield from _table_lines("games", _GAME_HEAD, _game_rows(games))
    yield f"<h2>{escape(_('Boards'))}</h2>"
    yield from _boards(with_boards)
    yield "</body></html>"


def _standing_head(players: Sequence[dict[str, Any]]) -> list[str]:
    ends = list(players[0]["won_by"]) if players else []
    head = [title for __, title in STANDING_COLUMNS]
    won_lost = [_("{end} won-lost").format(end=_(end)) for end in ends]
    return head[:6] + won_lost + head[6:]


def _standing_rows(players: Sequence[dict[str, Any]]) -> Iterable[list[str]]:
    for line in players:
        cells = [_value(line[key]) for key, __ in STANDING_COLUMNS]
        how = [f"{line['won_by'][end]}-{line['lost_by'][end]}" for end in line["won_by"]]
        yield cells[:6] + how + cells[6:]


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value == int(value) else f"{value:.2f}"
    return str(value)


_GAME_HEAD = [
    "#",
    N_("Host"),
    N_("Guest"),
    N_("First"),
    N_("Winner"),
    N_("How"),
    N_("Shots"),
    N_("Standing"),
    N_("Flags"),
    N_("Set apart"),
    N_("Logs"),
]


def _game_rows(games: Iterable[dict[str, Any]]) -> Iterable[list[str]]:
    for game in games:
        winner = game[game["winner"]]["name"] if game["winner"] else _("nobody")
        apart = game["apart"]
        yield [
            str(game["number"]),
            game["host"]["name"] or "",
            game["guest"]["name"] or "",
            _(game["first"]) if game["first"] else "",
            winner,
            _(game["end"]) if game["end"] else "",
            f"{game['host']['shots']}-{game['guest']['shots']}",
            _(game["standing"]),
            ", ".join(_(flag) for flag in game["flags"]),
            f"{_(apart['why'])}: {apart['detail']}" if apart else "",
            " ".join(game["logs"]),
        ]


def _crosstable(report: dict[str, Any]) -> str:
    keys = report["crosstable"]["players"]
    names = {line["key"]: line["name"] for line in report["standings"]}
    head = ["#", N_("Player"), *(str(n) for n in range(1, len(keys) + 1))]
    rows = []
    for number, (row, cells) in enumerate(zip(keys, report["crosstable"]["rows"], strict=True), 1):
        shown = [
            "x" if col == row else GAMES_APART.join(_value(s) for s in scores)
            for col, scores in zip(keys, cells, strict=True)
        ]
        rows.append([str(number), names[row], *shown])
    return _table("crosstable", head, rows)


def _table(name: str, head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    return "\n".join(_table_lines(name, head, rows))


def _table_lines(name: str, head: Sequence[str], rows: Iterable[Sequence[str]]) -> Iterator[str]:
    def cell(tag: str, title: str, text: str) -> str:
        named = title in NAMED or title == "Flags"
        kind = ' class="name"' if named else ' class="logs"' if title == "Logs" else ""
        return f"<{tag}{kind}>{escape(text)}</{tag}>"

    yield f'<table id="{name}"><thead><tr>'
    yield "".join(cell("th", title, _(title)) for title in head) + "</tr></thead><tbody>"
    for row in rows:
        apart = ' class="apart"' if name == "games" and row[9] else ""
        cells = "".join(cell("td", title, text) for title, text in zip(head, row, strict=True))
        yield f"<tr{apart}>{cells}</tr>"
    yield "</tbody></table>"


def _boards(games: Iterable[dict[str, Any]]) -> Iterable[str]:
    for game in games:
        if not game["boards"]:
            continue
        yield f'<section class="game" id="game-{game["number"]}">'
        said = _("Game {number}: {result}").format(number=game["number"], result=game["result"])
        yield f"<h3>{escape(said)}</h3>"
        yield '<div class="boards">'
        for board in game["boards"]:
            lines = escape("\n".join(board["lines"]))
            title = escape(board["title"])
            yield f"<figure><figcaption>{title}</figcaption><pre>{lines}</pre></figure>"
        yield "</div></section>"

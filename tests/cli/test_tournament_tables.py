"""The tournament's tables and page, from summaries made by hand (no game played): how a
crosstable's cells, the players' names and the logs are shown in every format."""

from __future__ import annotations

import csv
import gc
import io
import itertools
import json
import re
import textwrap
from dataclasses import replace

from statki_net.cli.tournament_page import page
from statki_net.cli.tournament_report import (
    indented,
    report,
    text,
    told_apart,
    write_csv,
    write_json,
)
from statki_net.game.words import N_, SILENCE, as_is, phrase
from statki_net.protocol.endings import End, Standing, role_term
from statki_net.protocol.wire import Role
from statki_net.referee.report import said_side
from statki_net.referee.standings import Standings, standings
from statki_net.referee.tournament import (
    Board,
    GameSummary,
    Points,
    TournamentRules,
    sort_games,
)

_clock = itertools.count(1)


def won(
    winner: str,
    loser: str,
    end: End = End.SUNK,
    shots: int = 50,
    *,
    names: tuple[str, str] | None = None,
    log_roles: tuple[str | None, ...] = ("host", "guest"),
) -> GameSummary:
    """``winner`` (the host, key ``key-<winner>``) beat ``loser`` in ``shots``."""
    n = next(_clock)
    return GameSummary(
        game=f"{n:04d}",
        logs=tuple(f"log{n}-{i}" for i in range(len(log_roles))),
        log_roles=log_roles,
        keys={Role.HOST: f"key-{winner}", Role.GUEST: f"key-{loser}"},
        names=dict(zip(Role, names or (winner, loser), strict=True)),
        started=n * 1000,
        rules="classic",
        move_ms=120_000,
        first=Role.HOST,
        standing=Standing.VALID,
        end=end,
        winner=Role.HOST,
        culprits=frozenset(),
        result=as_is(f"{winner} won"),
        reason=SILENCE,
        shots={Role.HOST: shots, Role.GUEST: shots - 1},
    )


def table(games: list[GameSummary], rules: TournamentRules) -> Standings:
    return standings(sort_games(games, rules), rules.points)


def csv_rows(result: Standings, which: str) -> list[list[str]]:
    out = io.StringIO()
    write_csv(result, which, out)
    return list(csv.reader(io.StringIO(out.getvalue())))


def section(lines: list[str], heading: str) -> list[str]:
    """The lines of the text table from ``heading`` to the next blank line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def numbered_rows(lines: list[str]) -> list[str]:
    """A table's rows: those a number begins (``  1  Ala ...``)."""
    return [line for line in lines if line[:3].strip().isdigit() and line[3:5] == "  "]


def html_cells(html: str, table_id: str) -> list[list[str]]:
    """The body's rows of a table of the page (the heading's row is over two lines)."""
    body = html.split(f'<table id="{table_id}">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body)
    return [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in rows]


# ---------------------------------------------------------------- the crosstable


def test_a_crosstable_cell_keeps_each_game_of_a_pair_apart_in_every_format() -> None:
    # A beat B twice; B and C split; league points 2 a win, 1 a loss.
    rules = TournamentRules(games_per_pair=2, points=Points(win=2, loss=1))
    result = table([won("A", "B"), won("A", "B"), won("B", "C"), won("C", "B")], rules)
    assert result.crosstable["key-A"]["key-B"] == (2.0, 2.0)
    cross = section(list(text(result, rules, 8)), "Crosstable")
    row_a = next(line for line in cross if line[5:].startswith("A "))
    row_b = next(line for line in cross if line[5:].startswith("B "))
    assert "2 2" in row_a and "22" not in row_a
    assert "1 1" in row_b and "2 1" in row_b and "11" not in row_b
    # In CSV each meeting is a column of its own: every cell a number a spreadsheet reads.
    # (The standings' order: B 5 points, A 4, C 3.)
    rows = csv_rows(result, "crosstable")
    assert rows[0] == ["player", "B (1)", "B (2)", "A (1)", "A (2)", "C (1)", "C (2)"]
    assert rows[1] == ["B", "", "", "1", "1", "2", "1"]
    assert rows[2] == ["A", "2", "2", "", "", "", ""]
    assert all(re.fullmatch(r"\d+", cell) for row in rows[1:] for cell in row[1:] if cell)
    cells = html_cells(page(report(result, rules, 8)), "crosstable")
    assert cells[0][1:] == ["B", "x", "1 1", "2 1"]
    assert cells[1][1:] == ["A", "2 2", "x", ""]


def test_fractional_points_of_a_pair_stay_apart() -> None:
    rules = TournamentRules(games_per_pair=2, points=Points(win=0.5, loss=0.25))
    result = table([won("A", "B"), won("B", "A")], rules)
    cross = section(list(text(result, rules, 4)), "Crosstable")
    assert any("0.5 0.25" in line for line in cross)
    assert "0.50.25" not in "\n".join(cross)
    assert csv_rows(result, "crosstable")[1] == ["A", "", "", "0.5", "0.25"]
    assert html_cells(page(report(result, rules, 4)), "crosstable")[0][3] == "0.50 0.25"


def test_one_game_a_pair_keeps_one_crosstable_column_a_player() -> None:
    rules = TournamentRules()
    rows = csv_rows(table([won("A", "B")], rules), "crosstable")
    assert rows == [["player", "A", "B"], ["A", "", "1"], ["B", "0", ""]]


# ---------------------------------------------------------------- the roster's names


ROSTER = {"Ala Kowalska": "key-Ala", "Olek Nowak": "key-Olek", "Jan Wrona": "key-Jan"}


def test_a_roster_names_its_players_in_games_set_apart_too() -> None:
    # Ala beat Olek, then Jan after the last day: set apart, yet named as the roster names
    # them, Jan too, who has no game scored.
    rules = TournamentRules(roster=ROSTER, until=1_000_000)
    late = replace(won("Ala", "Jan"), started=2_000_000)
    result = table([won("Ala", "Olek"), late], rules)
    lines = list(text(result, rules, 4))
    apart = "\n".join(lines[lines.index("Set apart, not scored") :])
    assert "Ala Kowalska v Jan Wrona: outside the dates" in apart
    games = report(result, rules, 4)["games"]
    assert [(g["host"]["name"], g["guest"]["name"]) for g in games] == [
        ("Ala Kowalska", "Olek Nowak"),
        ("Ala Kowalska", "Jan Wrona"),
    ]
    assert [g["guest"]["hello_name"] for g in games] == ["Olek", "Jan"]
    assert csv_rows(result, "games")[2][2:4] == ["Ala Kowalska", "Jan Wrona"]
    html = page(report(result, rules, 4))
    assert html_cells(html, "games")[1][1:3] == ["Ala Kowalska", "Jan Wrona"]


def test_every_entrant_of_a_roster_is_in_the_standings_with_or_without_a_game() -> None:
    rules = TournamentRules(roster=ROSTER)
    result = table([won("Ala", "Olek")], rules)
    assert [(line.name, line.games, line.place) for line in result.lines] == [
        ("Ala Kowalska", 1, 1),
        ("Olek Nowak", 1, 2),
        ("Jan Wrona", 0, 3),
    ]
    # Nobody's games at all: still every entrant, each with none.
    empty = table([], rules)
    assert sorted(line.name for line in empty.lines) == sorted(ROSTER)
    assert {line.games for line in empty.lines} == {0}
    standing = section(list(text(empty, rules, 0)), "Standings")
    assert sum(name in line for line in standing for name in ROSTER) == 3


# ---------------------------------------------------------------- the terminal's columns


def test_names_cut_to_a_column_stay_told_apart() -> None:
    roster = {"Aleksandra Kowalska-Nowak": "key-AKN", "Aleksandra Kowalczyk": "key-AK"}
    rules = TournamentRules(roster=roster, games_per_pair=2)
    result = table([won("AKN", "AK"), won("AK", "AKN")], rules)
    lines = "\n".join(text(result, rules, 4)).splitlines()
    for heading, start, width in (
        ("Standings", 5, 14),
        ("Ratings", 5, 16),
        ("Crosstable", 5, 16),
        ("Games", 5, 13),
    ):
        rows = numbered_rows(section(lines, heading))
        names = {row[start : start + width].rstrip() for row in rows}
        assert len(names) == 2, (heading, names)
        assert all(len(name) <= width and name.startswith("Aleks") for name in names)
    assert max(map(len, lines)) <= 80


def test_names_that_cut_alike_at_both_ends_keep_their_key_s_digits() -> None:
    names = {
        "94776-e6d86": "Aleksandra Kowalska-Nowak",
        "42c1e-4edc5": "Aleksandra Kowalczka-Nowak",
    }
    said = told_apart({**names, "x": "Jan"}, 14)
    assert said["x"] == "Jan"
    assert said["94776-e6d86"] != said["42c1e-4edc5"]
    assert {len(s) for key, s in said.items() if key != "x"} == {14}


def test_the_logs_column_says_which_log_is_missing_and_which_was_given_twice() -> None:
    rules = TournamentRules()
    games = [
        won("A", "B", log_roles=("host", "host")),
        won("C", "D", log_roles=("host", "guest", "guest")),
        won("E", "F", log_roles=("guest",)),
    ]
    shown = section(list(text(table(games, rules), rules, 6)), "Games")
    column = shown[1].index("Logs")
    logs = [row[column:].split("  ")[0].strip() for row in numbered_rows(shown)]
    assert logs == ["H2 -", "H G2", "- G"]
    legend = next(line for line in text(table(games, rules), rules, 6) if line.startswith("Logs:"))
    assert "H2 given twice" in legend and "- not handed in" in legend


# ---------------------------------------------------------------- the Shots tie-break


def test_the_shots_column_is_what_the_standings_say_it_is() -> None:
    # Ala beat Jan in 40 shots and Olek in 30; Jan beat Ala in 60 (all by sinking); Olek
    # resigned to Jan, which no shots count in.  Ala: -40 - 30 + 60 = -10; Jan: +40 - 60
    # = -20; Olek: +30.  Olek lost both games and shows the highest: the table says why.
    rules = TournamentRules(games_per_pair=2)
    games = [
        won("Ala", "Jan", shots=40),
        won("Ala", "Olek", shots=30),
        won("Jan", "Ala", shots=60),
        won("Jan", "Olek", End.RESIGNED, shots=10),
    ]
    result = table(games, rules)
    assert {line.name: line.shots_to_win for line in result.lines} == {
        "Ala": -10,
        "Jan": -20,
        "Olek": 30,
    }
    lines = "\n".join(text(result, rules, 8)).splitlines()
    below = " ".join(" ".join(section(lines, "Standings")[2 + 3 :]).split())
    assert "Shots: over the games won by sinking a fleet" in below
    assert "(in its losses) less those it needed to sink theirs (in its wins)" in below
    assert max(map(len, lines)) <= 80
    html = page(report(result, rules, 8))
    assert '<p id="shots">Shots: over the games won by sinking a fleet' in html


# ---------------------------------------------------------------- the page's terms


def test_the_page_says_the_rules_the_dates_and_the_points_played_under() -> None:
    rules = TournamentRules(
        preset="classic",
        min_move_ms=90_000,
        roster=ROSTER,
        since=1_793_491_200_000,  # 2026-11-01 00:00 UTC
        until=1_796_083_200_000,  # 2026-12-01 00:00 UTC: the 30th counts whole
        games_per_pair=2,
        points=Points(win=2, loss=1),
        tau=0.5,
    )
    html = page(report(table([], rules), rules, 0))
    said = re.search(r'<p id="rules">(.*?)</p>', html)
    assert said is not None
    for term in (
        "Rules: classic",
        "move limit at least 90 s",
        "a roster of 3",
        "games begun from 2026-11-01 00:00 before 2026-12-01 00:00 UTC",
        "2 games per pair",
        "points: win 2, loss 1, by forfeit 0, by cheating 0",
        "Glicko-2 tau 0.5",
    ):
        assert term in said.group(1), term
    # The defaults are terms too: a published page says them.
    plain = page(report(table([], TournamentRules()), TournamentRules(), 0))
    assert "points: win 1, loss 0, by forfeit 0, by cheating 0" in plain
    assert "any preset or combination of presets; one game per pair" in plain


def test_a_roster_names_its_players_in_results_and_boards_too() -> None:
    def judged(winner: str, loser: str, **changed: object) -> GameSummary:
        game = won(winner, loser)
        host, guest = (
            said_side(n, f"key-{n}", r) for n, r in zip((winner, loser), Role, strict=True)
        )
        title = phrase(
            N_("{name}'s fleet ({role}), revealed"), name=loser, role=role_term(Role.GUEST)
        )
        result = phrase(N_("{player} won: {loser} resigned"), player=host, loser=guest)
        return replace(game, result=result, boards=(Board(title, ("~",)),), **changed)  # type: ignore[arg-type]

    rules = TournamentRules(roster=ROSTER)
    played = [judged("Ala", "Olek"), judged("Jan", "Olek", standing=Standing.DISPUTED)]
    games = report(table(played, rules), rules, 4)["games"]
    assert games[0]["result"] == "Ala Kowalska (host) won: Olek Nowak (guest) resigned"
    assert games[0]["boards"][0]["title"] == "Olek Nowak's fleet (guest), revealed"
    assert games[1]["apart"]["detail"] == "Jan Wrona (host) won: Olek Nowak (guest) resigned"
    # No roster: the hellos' names, as before.
    plain = report(table([judged("Ala", "Olek")], TournamentRules()), TournamentRules(), 2)
    assert plain["games"][0]["result"] == "Ala (host) won: Olek (guest) resigned"


# ---------------------------------------------------------------- the JSON, a game at a time


def test_each_game_s_json_is_json_dumps_own_and_leaves_no_reference_cycle() -> None:
    rules = TournamentRules(roster=ROSTER, games_per_pair=2)
    result = table([won("Ala", "Olek"), won("Olek", "Ala"), won("Jan", "Ala")], rules)
    tricky = {
        "a": [],
        "b": {},
        "c": [1, 2.5, None, True, 'Zażółć "gęślą" \\ \n'],
        "d": {"e": [[], [{}], {"f": -0.0}]},
    }
    for value in (*report(result, rules, 6)["games"], tricky, [], {}, "x", 3):
        assert "".join(indented(value, 2)) == textwrap.indent(
            json.dumps(value, indent=2), "    "
        ).removeprefix("    ")

    # What --json writes is json.dumps's whole, and no game leaves garbage only gc frees
    # (the head's one encoder does, whatever the games).
    def cycles(games: list[GameSummary]) -> int:
        played = table(games, rules)
        out = io.StringIO()
        gc.collect()
        gc.disable()
        try:
            write_json(played, rules, 6, out)
            found = gc.collect()
        finally:
            gc.enable()
        assert out.getvalue() == json.dumps(report(played, rules, 6), indent=2) + "\n"
        return found

    assert cycles([won("Ala", "Olek")] * 3) == cycles([won("Ala", "Olek")])


def test_an_entrant_with_no_game_is_listed_last_in_the_ratings_and_unrated() -> None:
    """A referee's check: an entrant who played nothing showed Glicko-2's 1500, above every
    player who lost."""
    rules = TournamentRules(roster=ROSTER)
    ratings = section(list(text(table([won("Ala", "Olek")], rules), rules, 1)), "Ratings")
    rows = [line for line in ratings[2:] if line.strip()]
    assert [row.split()[1] for row in rows] == ["Ala", "Olek", "Jan"], rows
    assert rows[-1].split()[0] == "-" and rows[-1].split()[3] == "-", rows[-1]

"""``statki history`` and ``statki stats`` over a real SQLite file, run in this process."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Cli
from statki_client.layout import _past_game_rows

from statki_net.game.words import as_is
from statki_net.protocol.endings import End, Result
from statki_net.referee.verify import judge_log
from statki_net.store.history import DB_FILE, GameRow, History
from statki_net.store.language import catalog
from statki_net.store.recorder import LogVerdict

OLEK, ZOSIA = "0b134-cfd06-cbb20-fc827", "1e2be-0eb34-abf35-32d9a"


def record(
    home: Path,
    number: int,
    key: str,
    name: str,
    rules: str,
    result: str | None,
    end: End = End.SUNK,
) -> None:
    home.mkdir(parents=True, exist_ok=True)
    with History.in_home(home) as history:
        game = f"{number:064x}"
        history.started(
            GameRow(
                game, 1_700_000_000_000 + number * 60_000, "host", key, name, rules, f"/l/{number}"
            )
        )
        if result is not None:
            history.ended(
                game,
                ended=1_700_000_000_000 + number * 60_000 + 30_000,
                result=Result(result),
                end_reason=end,
                my_shots=40 + number,
                their_shots=50,
                verdict=as_is(f"valid: game {number}"),
            )


def fill(home: Path) -> None:
    record(home, 1, OLEK, "Olek", "classic", "won")
    record(home, 2, OLEK, "Olek", "classic", "won")
    record(home, 3, OLEK, "Olek the Great", "salvo", "lost")
    record(home, 4, ZOSIA, "Zosia", "classic", "lost")
    record(home, 5, ZOSIA, "Zosia", "classic", None)


def test_empty_history_says_so(cli: Cli) -> None:
    for command in ("history", "stats"):
        done = cli(command)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("no games recorded yet (history:")
    assert json.loads(cli("history", "--json").stdout) == []
    empty = json.loads(cli("stats", "--json").stdout)
    assert empty["opponents"] == [] and empty["total"]["games"] == 0


def test_history_lists_every_game_newest_first(cli: Cli, tmp_path: Path) -> None:
    fill(tmp_path / "home")
    done = cli("history")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    games = [line for line in lines if not line.startswith("    ")][:-1]
    assert [g.split("  ")[1].split()[0] for g in games] == [
        "unfinished",
        "lost",
        "lost",
        "won",
        "won",
    ]
    assert games[2].endswith("  lost (sunk)  salvo, you as host  shots 43:50")
    assert f"    against Olek the Great [{OLEK}]" in lines
    assert "    log: /l/3" in lines
    assert "    no verdict: the game never ended" in lines
    assert lines[-1] == "5 games"
    rows = json.loads(cli("history", "--json", "--limit", "2").stdout)
    assert [r["log_path"] for r in rows] == ["/l/5", "/l/4"]


def test_history_says_who_resigned(cli: Cli, tmp_path: Path) -> None:
    """A new player read "won (resigned)" as if they had resigned."""
    record(tmp_path / "home", 1, OLEK, "Olek", "classic", "won", End.RESIGNED)
    record(tmp_path / "home", 2, ZOSIA, "Zosia", "classic", "lost", End.RESIGNED)
    lines = cli("history").stdout.splitlines()
    assert "  lost (you resigned)  classic" in lines[0] and "against Zosia" in lines[1]
    assert "  won (the opponent resigned)  classic" in lines[4] and "against Olek" in lines[5]


def test_history_says_a_game_that_never_began_once(cli: Cli, tmp_path: Path) -> None:
    """It read "none (no-game)", in Polish "brak (brak gry)": the same thing twice."""
    record(tmp_path / "home", 1, OLEK, "Olek", "classic", "none", End.NO_GAME)
    [line] = [line for line in cli("history").stdout.splitlines() if "classic" in line]
    assert "  no game  classic" in line and "none" not in line, line


@pytest.mark.parametrize("language", ["en", "pl"])
def test_history_fits_80_columns_and_keeps_the_log_path_whole(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    """The lines ran to 130 columns: a terminal of 80 cut them mid-word."""
    monkeypatch.setenv("COLUMNS", "80")
    home = tmp_path / "home"
    record(home, 1, OLEK, "Olek the Great of the Northern Sea", "salvo-count+corners", "lost")
    path = "/a/deep/folder/of/someone/far/away/logs/20261202-021823-host-715d1daf.statki"
    assert len(f"    log: {path}") > 80 >= len(path)
    with History.in_home(home) as history:
        history.started(
            GameRow("a" * 64, 1_700_000_000_000, "guest", ZOSIA, "Zosia", "salvo", path)
        )
        history.ended(
            "a" * 64,
            ended=1_700_000_030_000,
            result=Result.WON,
            end_reason=End.RESIGNED,
            my_shots=40,
            their_shots=41,
            verdict=as_is("valid: " + "a long verdict of many words " * 4),
        )
    lines = cli("history", "--lang", language).stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, [line for line in lines if len(line) > 80]
    assert path in lines, "the path is copied whole, on a line of its own"
    assert all("  " not in line.strip() or line.startswith("20") for line in lines[1:3])


def test_stats_keep_score_per_opponent_and_rules(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(tmp_path / "home")
    monkeypatch.setenv("COLUMNS", "200")  # each tally on its line (at 80 they are wrapped)
    done = cli("stats")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "all games: 2 : 2 (level, you win 50%); 5 games, 1 without a winner" in out
    # An opponent is a key: Olek's new name does not make him someone else.
    assert f"  Olek the Great [{OLEK}]: 2 : 1 (you lead, you win 67%); 3 games" in out
    assert f"  Zosia [{ZOSIA}]: 0 : 1 (they lead, you win 0%); 2 games, 1 without" in out
    assert "  classic: 2 : 1 (you lead, you win 67%); 4 games, 1 without a winner" in out
    assert "  salvo: 0 : 1 (they lead, you win 0%); 1 game" in out
    as_json = json.loads(cli("stats", "--json").stdout)
    assert as_json["total"] == {
        "label": "all",
        "games": 5,
        "won": 2,
        "lost": 2,
        "unfinished": 1,
        "key": "",
    }
    assert [t["key"] for t in as_json["opponents"]] == [OLEK, ZOSIA]


def test_home_option_points_elsewhere(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other"
    fill(other)
    assert cli("history").stdout.startswith("no games recorded yet")
    done = cli("history", "--home", str(other))
    assert done.stdout.splitlines()[-1] == "5 games"
    assert cli("stats", "--home", str(other)).stdout.startswith("all games: 2 : 2")


def test_a_history_that_is_not_a_database_gets_one_line(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "history.sqlite3").write_bytes(b"not a database, " * 64)
    for command in ("history", "stats"):
        done = cli(command)
        assert done.returncode == 2 and done.stdout == ""
        [line] = done.stderr.splitlines()
        assert "history.sqlite3 cannot be used (file is not a database)" in line
        assert "move it away" in line


def test_a_home_where_no_history_can_be_made_gets_one_line(cli: Cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "history.sqlite3").mkdir()  # a folder where the file should be
    done = cli("history")
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert "cannot be used" in line


def test_history_and_stats_of_a_home_that_is_not_there_make_nothing(
    cli: Cli, tmp_path: Path
) -> None:
    missing = tmp_path / "nonexistent"
    for command in ("history", "stats"):
        done = cli(command, "--home", str(missing))
        assert done.returncode == 0 and "no games recorded yet" in done.stdout, done
    assert not missing.exists()


@pytest.mark.parametrize("limit", ["-1", "0"])
def test_a_limit_below_one_is_refused(cli: Cli, limit: str) -> None:
    """``--limit 0`` showed no games and said "no games recorded yet" of a full history."""
    done = cli("history", "--limit", limit)
    assert done.returncode == 2
    assert f"--limit: '{limit}' is not a whole number of 1 or more" in done.stderr


def test_home_goes_before_or_after_the_command(cli: Cli, tmp_path: Path) -> None:
    fill(tmp_path / "elsewhere")
    before = cli("--home", str(tmp_path / "elsewhere"), "history")
    after = cli("history", "--home", str(tmp_path / "elsewhere"))
    assert before.returncode == after.returncode == 0
    assert before.stdout == after.stdout and "Olek" in before.stdout


def test_version_is_printed(cli: Cli) -> None:
    from statki_net.version import SOFTWARE

    done = cli("--version")
    assert (done.returncode, done.stdout) == (0, SOFTWARE + "\n")


SCHEMA_1 = """CREATE TABLE games (game_id TEXT PRIMARY KEY, started INTEGER NOT NULL,
    ended INTEGER, my_role TEXT NOT NULL, opponent_key TEXT NOT NULL, opponent_name TEXT NOT NULL,
    rules TEXT NOT NULL, result TEXT, end_reason TEXT, my_shots INTEGER NOT NULL DEFAULT 0,
    their_shots INTEGER NOT NULL DEFAULT 0, verdict TEXT, log_path TEXT NOT NULL)"""
"""The history's table as statki wrote it before schema 2."""
PROTOCOL_LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"


def test_a_verdict_is_kept_as_a_phrase_and_said_in_the_reader_s_language(
    cli: Cli, tmp_path: Path
) -> None:
    """The history keeps what the referee found, not its English line: a Polish reader reads
    the verdict in Polish, ``--json`` keeps the English (two logs judged: about 50 ms)."""
    home = tmp_path / "home"
    verdicts = {}
    for number, name in enumerate(("honest-classic", "false-answer-on-move"), 1):
        judged = LogVerdict.of(judge_log((PROTOCOL_LOGS / f"{name}.statki").read_bytes()))
        verdicts[number] = judged
        record(home, number, OLEK, "Olek", "classic", "won")
        with History.in_home(home) as history:
            history.ended(
                f"{number:064x}",
                ended=1,
                result=Result.WON,
                end_reason=End.SUNK,
                my_shots=1,
                their_shots=1,
                verdict=judged.said,
            )
    polish = " ".join(cli("--lang", "pl", "history").stdout.split())  # lines wrapped at 80
    for judged in verdicts.values():
        said = judged.headline_in(catalog("pl"))
        assert " ".join(said.split()) in polish
        assert said != judged.headline and not re.search(r"\b(valid|invalid|won|host)\b", said)
    rows = json.loads(cli("--lang", "pl", "history", "--json").stdout)
    assert [row["verdict"] for row in rows] == [verdicts[2].headline, verdicts[1].headline]


def test_a_history_of_schema_1_keeps_its_english_verdicts_and_takes_new_ones(
    cli: Cli, tmp_path: Path
) -> None:
    """A file written before verdicts were phrases: opened, it gains the column; its old
    rows show their stored text as it is, in either language."""
    home = tmp_path / "home"
    home.mkdir()
    old = sqlite3.connect(home / DB_FILE)
    old.execute(SCHEMA_1)
    old.execute(
        "INSERT INTO games (game_id, started, my_role, opponent_key, opponent_name, rules,"
        " result, end_reason, verdict, log_path) VALUES"
        " ('aa', 1700000000000, 'host', ?, 'Olek', 'classic', 'won', 'sunk', ?, '/l/old')",
        (OLEK, "valid: Ala (host) won: sank the whole fleet"),
    )
    old.execute("PRAGMA user_version = 1")
    old.commit()
    old.close()
    record(home, 2, ZOSIA, "Zosia", "classic", "lost")
    polish = cli("--lang", "pl", "history").stdout.splitlines()
    assert "    valid: Ala (host) won: sank the whole fleet" in polish
    assert "    valid: game 2" in polish
    with sqlite3.connect(home / DB_FILE) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (2,)


@pytest.fixture
def fourteen_hours_east(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's clock in UTC+14 (a POSIX TZ rule: no zone files needed)."""
    monkeypatch.setenv("TZ", "KIRI-14")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_history_and_its_screen_say_a_game_s_time_by_the_player_s_own_clock(
    cli: Cli, tmp_path: Path, fourteen_hours_east: None
) -> None:
    record(tmp_path / "home", 1, OLEK, "Olek", "classic", "won")  # 2023-11-14 22:14 UTC
    listed = cli("history").stdout.splitlines()[0]
    with History.in_home(tmp_path / "home") as history:
        [shown] = _past_game_rows(history.games())
    assert listed.startswith("2023-11-15 12:14  "), listed
    assert shown.lstrip().startswith("2023-11-15 12:14 "), shown

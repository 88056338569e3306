"""``statki fleet``: what it prints and returns, in this process; its error exits as a process."""

from pathlib import Path

from conftest import Cli, Run


def test_fleet_random_prints_board_and_text(cli: Cli) -> None:
    result = cli("fleet", "random", "--rules", "classic", "--seed", "7")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "    A B C D E F G H I J"
    assert lines[10].startswith("10  ")
    assert sum(line.count("#") for line in lines[1:11]) == 20
    text = "\n".join(lines[12:]) + "\n"
    check = cli("fleet", "check", "-", "--rules", "classic", stdin=text)
    assert check.returncode == 0, check.stdout
    assert check.stdout == "legal fleet for classic\n"
    assert cli("fleet", "random", "--seed", "7").stdout == result.stdout


def test_fleet_check_lists_every_problem(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "fleet.txt"
    path.write_text("B2-E2\nF3-H3\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10-A12\n")
    result = cli("fleet", "check", str(path))
    assert result.returncode == 1
    assert "A10-A12 goes off the board (A12)" in result.stdout
    assert "ships B2-E2 and F3-H3 touch by a side or a corner at E2, F3" in result.stdout
    assert "3 ship(s) of length 1, the rules want 4" in result.stdout
    assert result.stdout.endswith("3 problem(s): not a legal fleet for classic\n")


def test_fleet_check_corners_accepts_corner_touch(cli: Cli) -> None:
    text = "B2-E2\nF3-H3\nA5-A7\nC5-D5\nF6-F7\nH9-I9\nJ1\nJ4\nD9\nA10\n"
    assert cli("fleet", "check", "-", "--rules", "corners", stdin=text).returncode == 0
    assert cli("fleet", "check", "-", "--rules", "classic", stdin=text).returncode == 1


def test_fleet_check_unreadable_input(statki: Run, tmp_path: Path) -> None:
    """A real process: what reaches the shell is status 2 and one line, never a traceback."""
    result = statki("fleet", "check", "-", stdin="this is not a fleet\n")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    missing = statki("fleet", "check", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "nope.txt: no such file" in missing.stderr
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    result = statki("fleet", "check", str(binary))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert statki("fleet", "random", "--rules", "chess").returncode == 2


def test_a_fleet_that_cannot_be_read_is_said_in_polish(cli: Cli) -> None:
    """``FleetTextError`` is a phrase: said in the reader's language (in-process, ~10 ms)."""
    said = {
        "A1-B2-C3\n": "wiersz 1: oczekiwano POCZĄTEK-KONIEC, np. B2-E2",
        "B2-E2\nA1-XX\n": "wiersz 2: 'XX' to nie pole w rodzaju B2",
        "# nothing\n": "nie znaleziono żadnego statku",
    }
    for text, polish in said.items():
        result = cli("--lang", "pl", "fleet", "check", "-", stdin=text)
        assert result.returncode == 2
        assert result.stderr == f"statki: nie da się odczytać floty: {polish}\n"
    off = cli("--lang", "pl", "fleet", "check", "-", stdin="A10-A12\n")
    assert "wiersz 1: A10-A12 wychodzi poza planszę (A12)" in off.stdout
    english = cli("fleet", "check", "-", stdin="A1-B2-C3\n")
    assert (
        english.stderr == "statki: cannot read the fleet: line 1: expected START-END, like B2-E2\n"
    )

"""``statki verify`` and ``statki id`` on real files: what they print and return.

``verify`` runs in this process (the ``cli`` fixture) where what it prints is
the point, and as a real process where its exit status is.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Cli, Run
from gamelogs import claim, log_file_of, played, signed
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.cli.verify import AHEAD, spread
from statki_net.game.rules import PRESETS
from statki_net.protocol.wire import Role, Shot


@pytest.fixture(autouse=True)
def _report_lines_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the report an item a line; that it is wrapped between words at a
    terminal's width is test_cli_lines_at_80's."""
    monkeypatch.setenv("COLUMNS", "1000")


def honest_log(seed: int, preset: str = "classic", role: Role = Role.HOST) -> bytes:
    pair = make_pair(PRESETS[preset], seed=seed)
    play(pair, seed=seed + 1, resign_at=5)
    return log_bytes(pair.session(role), role=role.value)


def cheating_log() -> bytes:
    pair = make_pair(PRESETS["classic"], seed=4, guest=LiesAboutFirstHit())
    play(pair, seed=5)
    return log_bytes(pair.host)


def unfinished_log() -> bytes:
    """The log of a host that stopped writing mid-battle (its program was killed)."""
    game = played(seed=61)
    return log_file_of(game.frames[:25])


def lost_connection_logs(seed: int) -> tuple[bytes, bytes]:
    """Each side's log of a game whose connection dropped as the guest was to shoot."""
    game = played(seed=seed)
    cut = game.shooting(Role.GUEST)
    prefix = game.frames[:cut]
    shot = signed(game, prefix, Role.GUEST, Shot((0,)))
    host = [*prefix, claim(game, prefix, Role.HOST)]
    guest = [*prefix, shot, claim(game, [*prefix, shot], Role.GUEST)]
    return log_file_of(host), log_file_of(guest, Role.GUEST)


def test_a_valid_game_prints_its_logs_result_and_standing_and_exits_0(
    cli: Cli, tmp_path: Path
) -> None:
    log = tmp_path / "game.statki"
    log.write_bytes(honest_log(51))
    done = cli("verify", str(log))
    assert done.returncode == 0, done.stderr
    title, logs, result, shots, standing = done.stdout.splitlines()
    assert title.startswith("game ") and title.endswith(": Ala (host) v Olek (guest)")
    assert ", classic: " in title
    assert logs.startswith(f"  logs: {log} (host, ") and logs.endswith(" messages)")
    assert result.startswith("  result: ") and "resigned" in result
    assert shots.startswith("  shots: host ")
    assert standing == "  standing: valid"
    assert done.stderr == ""


def test_a_cheating_log_exits_1_naming_player_move_and_square(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "liar.statki"
    log.write_bytes(cheating_log())
    done = cli("verify", str(log))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    # The finding is said once, on its own line, not again in the result.
    assert "  result: Ala (host) won: Olek (guest) cheated" in lines
    assert done.stdout.count("answered water, the commitment holds a ship") == 1
    assert "  standing: invalid (cheating)" in lines
    [detail] = [line for line in lines if line.startswith("  false-answer")]
    assert detail.startswith("  false-answer (Olek (guest), move ")
    assert "answered water, the commitment holds a ship" in detail


def test_a_truncated_log_exits_1_as_damaged(cli: Cli, tmp_path: Path) -> None:
    whole = honest_log(52)
    log = tmp_path / "cut.statki"
    log.write_bytes(whole[: len(whole) - 37])
    done = cli("verify", str(log))
    assert done.returncode == 1
    assert "  standing: invalid (damage)" in done.stdout.splitlines()
    assert "  damaged: the log is cut off after" in done.stdout


def test_an_unfinished_game_exits_1_and_blames_nobody(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "left.statki"
    log.write_bytes(unfinished_log())
    done = cli("verify", str(log), "--json")
    assert done.returncode == 1
    [report] = json.loads(done.stdout)
    assert report["standing"] == "unfinished" and report["violations"] == []
    assert report["result"]["end"] is None and report["result"]["culprits"] == []
    assert [log_used["name"] for log_used in report["logs"]] == [str(log)]


def test_a_win_on_time_is_a_valid_result(cli: Cli, tmp_path: Path) -> None:
    host, _ = lost_connection_logs(62)
    log = tmp_path / "host.statki"
    log.write_bytes(host)
    done = cli("verify", str(log))
    assert done.returncode == 0, done.stdout
    assert "  result: Ala (host) won on time: Olek (guest) was silent past the limit " in (
        done.stdout
    )
    assert "uncorroborated" in done.stdout and "  standing: valid" in done.stdout
    [report] = json.loads(cli("verify", "--json", str(log)).stdout)
    assert report["result"] == {
        "end": "time",
        "winner": "host",
        "culprits": ["guest"],
        "uncorroborated": True,
        "reason": report["result"]["reason"],
    }


def test_both_sides_of_a_lost_connection_are_one_disputed_game(cli: Cli, tmp_path: Path) -> None:
    host, guest = lost_connection_logs(63)
    (tmp_path / "host.statki").write_bytes(host)
    (tmp_path / "guest.statki").write_bytes(guest)
    paths = [str(tmp_path / "host.statki"), str(tmp_path / "guest.statki")]
    done = cli("verify", *paths)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[1] == f"  logs: {paths[0]} (host, {host.count(b'body')} messages), " + (
        f"{paths[1]} (guest, {guest.count(b'body')} messages)"
    )
    assert lines[2].startswith("  result: disputed, nobody won: the logs fork at message ")
    assert "  standing: disputed" in lines
    fork = [line for line in lines if line.startswith("    ")]
    assert fork[0].startswith(f"    host timeout (in {paths[0]}; ") and fork[0].endswith(
        "time, Ala (host) wins"
    )
    assert fork[1].startswith(f"    guest shot (in {paths[1]}; ")
    assert lines[-1] == "1 game from 2 logs: 0 valid, 1 disputed"
    [report] = json.loads(cli("verify", "--json", *paths).stdout)
    assert report["standing"] == "disputed" and report["result"]["winner"] is None
    assert [b["logs"] for b in report["fork"]["branches"]] == [[0], [1]]


def test_copies_of_a_log_count_as_one_game(cli: Cli, tmp_path: Path) -> None:
    data = honest_log(64)
    for name in ("a.statki", "b.statki"):
        (tmp_path / name).write_bytes(data)
    done = cli("verify", "--json", str(tmp_path / "a.statki"), str(tmp_path / "b.statki"))
    assert done.returncode == 0
    [report] = json.loads(done.stdout)
    assert [log["name"] for log in report["logs"]] == [
        str(tmp_path / "a.statki"),
        str(tmp_path / "b.statki"),
    ]
    again = cli("verify", str(tmp_path / "a.statki"), str(tmp_path / "a.statki"))
    assert again.stdout.splitlines()[-1] == "1 game from 1 log: 1 valid"


def test_every_signature_finds_the_signature_the_shortcut_cannot_see(
    cli: Cli, tmp_path: Path
) -> None:
    """SPEC.md section 16: a signature replaced on a record that is not its side's last
    leaves its body its side's word; only a check of every signature finds it."""
    sample = Path(__file__).resolve().parents[2] / "protocol" / "logs" / "bad-signature.statki"
    log = tmp_path / "spoiled.statki"
    log.write_bytes(sample.read_bytes())
    assert cli("verify", str(log)).returncode == 0
    done = cli("verify", "--every-signature", str(log))
    assert done.returncode == 1
    assert "bad-signature" in done.stdout and "message 9" in done.stdout


def test_a_missing_file_and_a_non_log_exit_2(cli: Cli, tmp_path: Path) -> None:
    good = tmp_path / "good.statki"
    good.write_bytes(honest_log(53))
    text = tmp_path / "notes.txt"
    text.write_text("not a log\n")
    missing = cli("verify", str(good), str(tmp_path / "nowhere.statki"))
    assert missing.returncode == 2
    assert f"statki: {tmp_path / 'nowhere.statki'}: no such file" in missing.stderr
    assert "  standing: valid" in missing.stdout
    foreign = cli("verify", str(text))
    assert foreign.returncode == 2
    assert (
        foreign.stderr.strip() == f"statki: {text}: not a statki log (no magic value at the start)"
    )
    assert "Traceback" not in missing.stderr + foreign.stderr


def test_a_directory_is_judged_game_by_game(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "round2").mkdir(parents=True)
    (logs / "a.statki").write_bytes(honest_log(54))
    (logs / "round2" / "a-guest.log").write_bytes(honest_log(54, role=Role.GUEST))
    (logs / "round2" / "b.log").write_bytes(honest_log(55, "salvo"))
    (logs / "round2" / "c").write_bytes(cheating_log())
    (logs / "readme.txt").write_text("the tournament's logs\n")
    (logs / "empty").write_bytes(b"")
    (logs / "round2" / "junk.bin").write_bytes(os.urandom(300))
    done = cli("verify", str(logs))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"3 games from 4 logs under {logs}: 2 valid, 1 invalid"
    assert lines.count("  standing: valid") == 2
    together = f"  logs: {logs / 'a.statki'} (host, "
    assert any(line.startswith(together) and "a-guest.log (guest, " in line for line in lines)
    assert done.stderr == ""
    as_json = json.loads(cli("verify", "--json", str(logs)).stdout)
    assert sorted(Path(log["name"]).name for game in as_json for log in game["logs"]) == [
        "a-guest.log",
        "a.statki",
        "b.log",
        "c",
    ]


def test_a_directory_of_valid_logs_exits_0_and_an_empty_one_2(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    for seed in (56, 57):
        (logs / f"{seed}.statki").write_bytes(honest_log(seed))
    assert cli("verify", str(logs)).returncode == 0
    nothing = tmp_path / "nothing"
    nothing.mkdir()
    (nothing / "x.txt").write_text("x")
    done = cli("verify", str(nothing))
    assert done.returncode == 2
    assert f"no statki logs under {nothing}" in done.stderr


def test_verify_as_a_process_exits_by_the_worst_game(statki: Run, tmp_path: Path) -> None:
    """The exit status a script sees: 0 all valid, 1 something to look at, 2 unreadable."""
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir()
    bad.mkdir()
    for seed in (58, 59, 60):
        (good / f"{seed}.statki").write_bytes(honest_log(seed))
    host, guest = lost_connection_logs(65)
    (bad / "host.statki").write_bytes(host)
    (bad / "guest.statki").write_bytes(guest)
    fine = statki("verify", str(good))
    assert (fine.returncode, fine.stderr) == (0, "")
    assert fine.stdout.splitlines()[-1] == f"3 games from 3 logs under {good}: 3 valid"
    disputed = statki("verify", "--jobs", "2", str(good), str(bad))
    assert disputed.returncode == 1
    assert disputed.stdout.splitlines()[-1].endswith(": 3 valid, 1 disputed")
    unreadable = statki("verify", str(good), str(tmp_path / "nowhere"))
    assert unreadable.returncode == 2


def test_id_creates_the_key_once_readable_only_by_its_owner(cli: Cli, tmp_path: Path) -> None:
    first = cli("id")
    assert first.returncode == 0
    assert "created a new identity key" in first.stderr
    fingerprint = first.stdout.strip()
    assert len(fingerprint) == 23 and fingerprint.count("-") == 3
    key = tmp_path / "home" / "identity.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    again = cli("id")
    assert again.stdout.strip() == fingerprint and again.stderr == ""
    elsewhere = cli("id", "--home", str(tmp_path / "other"))
    assert elsewhere.stdout.strip() != fingerprint
    assert (tmp_path / "other" / "identity.pem").exists()


def test_id_refuses_a_key_others_can_read(cli: Cli, tmp_path: Path) -> None:
    cli("id")
    key = tmp_path / "home" / "identity.pem"
    key.chmod(0o644)
    done = cli("id")
    assert done.returncode == 2
    assert done.stderr.strip() == f"statki: {key} is readable by others; run: chmod 600 {key}"


def test_a_fifo_named_is_read_once_and_judged(cli: Cli, tmp_path: Path) -> None:
    """A log piped through a FIFO (``verify <(cat log)``): read here, once, and judged."""
    fifo = tmp_path / "piped.statki"
    os.mkfifo(fifo)
    data = honest_log(57)

    def write() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    done = cli("verify", str(fifo))
    writer.join()
    assert done.returncode == 0, done.stderr
    assert "  standing: valid" in done.stdout


def test_a_directory_passes_over_what_is_not_a_regular_file(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "game.statki").write_bytes(honest_log(58))
    os.mkfifo(folder / "waiting.statki")  # opening it would wait for a writer forever
    done = cli("verify", str(folder))
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"statki: {folder / 'waiting.statki'}: not a regular file, passed over\n"


def test_jobs_below_one_are_refused(cli: Cli, tmp_path: Path) -> None:
    for jobs in ("-1", "0"):
        done = cli("verify", "--jobs", jobs, str(tmp_path))
        assert done.returncode == 2
        assert f"--jobs: '{jobs}' is not a whole number of 1 or more" in done.stderr


def test_a_statki_file_with_a_damaged_start_counts_as_a_damaged_log(
    cli: Cli, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.statki").write_bytes(honest_log(56))
    broken = honest_log(57)
    (logs / "broken.statki").write_bytes(b"\0" * 8 + broken[8:])
    done = cli("verify", str(logs))
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == (f"2 games from 2 logs under {logs}: 1 valid, 1 invalid")
    assert "  damaged: the log's header is damaged: the file does not begin" in done.stdout


def test_a_damaged_record_is_said_in_words_not_by_an_exception_name(
    cli: Cli, tmp_path: Path
) -> None:
    log = tmp_path / "game.statki"
    log.write_bytes(honest_log(58) + b"\xc1")  # 0xc1: never used in msgpack
    done = cli("verify", str(log))
    assert "Error)" not in done.stdout
    assert "the record after message 20 is unreadable" in done.stdout, done.stdout


def test_spread_reads_its_items_a_few_chunks_ahead_of_its_results() -> None:
    # A tournament's logs come from a walk and its games from a file: spread must not
    # read them all before the first result (what waits would grow with the folder).
    read = 0

    def items() -> Iterator[int]:
        nonlocal read
        for n in range(100_000):
            read += 1
            yield n

    results = spread(abs, items(), 2, count=100_000)
    assert list(itertools.islice(results, 10)) == list(range(10))
    chunk = 64  # spread's largest chunk, which 100,000 items over 2 workers get
    assert read <= (AHEAD * 2 + 1) * chunk, f"{read} items read for 10 results"
    results.close()


def test_spread_hands_out_no_more_than_the_items_in_flight_it_is_given() -> None:
    # The tournament's judging: what is done waits in the main process until it is read,
    # so a main process the machine starves holds every result in flight.
    read = 0
    most = 0

    def items() -> Iterator[int]:
        nonlocal read
        for n in range(2_000):
            read += 1
            yield n

    for given, result in enumerate(spread(abs, items(), 2, count=2_000, in_flight=64)):
        most = max(most, read - given)
        assert result == given
    assert read == 2_000
    assert 32 <= most <= 64, f"{most} items in flight"  # 9 chunks of 7: 8 ahead, 1 read


def test_a_statki_file_that_is_no_log_at_all_is_not_said_to_stop_short(
    cli: Cli, tmp_path: Path
) -> None:
    """Judged as a log whose start is damaged, it was said to stop before the guest's
    accept, as if a game had begun to be written there."""
    garbage = tmp_path / "garbage.statki"
    garbage.write_text("garbage\n")
    done = cli("verify", "--lang", "pl", str(garbage))
    assert "wynik: gry nie było: nic w tym pliku nie jest zapisem gry w statki" in done.stdout
    assert "zapis urywa się" not in done.stdout, done.stdout

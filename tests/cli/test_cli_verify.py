"""``statki verify`` and ``statki id`` on real files: what they print and return, in-process."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import msgpack
from conftest import Cli
from peers import LiesAboutFirstHit, log_bytes, make_pair, play

from statki_net.game.rules import PRESETS
from statki_net.protocol.logformat import MAGIC, frame_record, header_record


def honest_log(seed: int, preset: str = "classic") -> bytes:
    pair = make_pair(PRESETS[preset], seed=seed)
    play(pair, seed=seed + 1, resign_at=5)
    return log_bytes(pair.host)


def cheating_log() -> bytes:
    pair = make_pair(PRESETS["classic"], seed=4, guest=LiesAboutFirstHit())
    play(pair, seed=5)
    return log_bytes(pair.host)


def unfinished_log() -> bytes:
    """The log a host writes when the guest vanishes during the battle."""
    pair = make_pair(PRESETS["classic"], seed=61)
    play(pair, seed=62)
    head = MAGIC + bytes(msgpack.packb(header_record("host", "t", 0), use_bin_type=True))
    return head + b"".join(frame_record(f) for f in pair.host.transcript.frames[:25])


def test_a_valid_log_exits_0_with_one_line(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "game.statki"
    log.write_bytes(honest_log(51))
    done = cli("verify", str(log))
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    assert line.startswith(f"{log}: valid: ")
    assert "resigned" in line and "classic" in line


def test_a_cheating_log_exits_1_naming_player_move_and_square(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "liar.statki"
    log.write_bytes(cheating_log())
    done = cli("verify", str(log))
    assert done.returncode == 1
    headline, *details = done.stdout.splitlines()
    assert headline.startswith(f"{log}: INVALID false-answer (Olek (guest), move ")
    assert details and details[0].startswith("    false-answer (Olek (guest), move ")
    assert "answered water, the commitment holds a ship" in details[0]


def test_a_truncated_log_exits_1_as_damaged(cli: Cli, tmp_path: Path) -> None:
    whole = honest_log(52)
    log = tmp_path / "cut.statki"
    log.write_bytes(whole[: len(whole) - 37])
    done = cli("verify", str(log))
    assert done.returncode == 1
    assert "INVALID damaged: the log is cut off after" in done.stdout


def test_an_unfinished_game_says_who_stopped_answering(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "left.statki"
    log.write_bytes(unfinished_log())
    done = cli("verify", str(log), "--json")
    assert done.returncode == 1
    [verdict] = json.loads(done.stdout)
    assert verdict["path"] == str(log) and verdict["status"] == "invalid"
    [violation] = verdict["violations"]
    assert violation["kind"] == "unfinished"
    assert f"{violation['culprit']} never sent the next message" in violation["detail"]


def test_a_missing_file_and_a_non_log_exit_2(cli: Cli, tmp_path: Path) -> None:
    good = tmp_path / "good.statki"
    good.write_bytes(honest_log(53))
    text = tmp_path / "notes.txt"
    text.write_text("not a log\n")
    missing = cli("verify", str(good), str(tmp_path / "nowhere.statki"))
    assert missing.returncode == 2
    assert f"statki: {tmp_path / 'nowhere.statki'}: no such file" in missing.stderr
    assert missing.stdout.startswith(f"{good}: valid")
    foreign = cli("verify", str(text))
    assert foreign.returncode == 2
    assert (
        foreign.stderr.strip() == f"statki: {text}: not a statki log (no magic value at the start)"
    )
    assert "Traceback" not in missing.stderr + foreign.stderr


def test_a_directory_of_mixed_files(cli: Cli, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "round2").mkdir(parents=True)
    (logs / "a.statki").write_bytes(honest_log(54))
    (logs / "round2" / "b.log").write_bytes(honest_log(55, "salvo"))
    (logs / "round2" / "c").write_bytes(cheating_log())
    (logs / "readme.txt").write_text("the tournament's logs\n")
    (logs / "empty").write_bytes(b"")
    (logs / "round2" / "junk.bin").write_bytes(os.urandom(300))
    done = cli("verify", str(logs))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == f"3 log(s) checked under {logs}: 2 valid, 1 invalid"
    assert sum(": valid: " in line for line in lines) == 2
    assert any(line.startswith(f"{logs / 'round2' / 'c'}: INVALID") for line in lines)
    assert done.stderr == ""
    as_json = json.loads(cli("verify", "--json", str(logs)).stdout)
    assert sorted(Path(v["path"]).name for v in as_json) == ["a.statki", "b.log", "c"]


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

"""``statki analyze`` on a real log: what it prints and returns, run in this process."""

import json
import random
import re
import statistics
from pathlib import Path

from conftest import Cli
from peers import log_bytes, make_pair, play, step

from statki_net.ai.reference_fleets import KEPT_SHOTS
from statki_net.game.rules import Ruleset

LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"
QUICK = ("--reference-fleets", "2", "--fleet-games", "1", "--seed", "3")
SMALL = Ruleset(size=6, fleet=(3, 2, 1))
"""A small board keeps the density player quick."""


def test_analyze_reviews_every_shot_of_both_players(cli: Cli, tmp_path: Path) -> None:
    pair = make_pair(SMALL, seed=5)
    play(pair, seed=6)
    log = tmp_path / "small.statki"
    log.write_bytes(log_bytes(pair.host))
    t = pair.host.transcript
    done = cli("analyze", str(log), *QUICK, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"host", "guest"}
    for role, side in result.items():
        assert 0 < side["accuracy"] <= 1
        assert len(side["shots"]) == t.shots_by(next(r for r in t.sides if r.value == role))
        for shot in side["shots"]:
            assert 0 <= shot["chance"] <= shot["best_chance"] + 0.05
        assert 0 <= side["fleet"]["percentile"] <= 100
    text = cli("analyze", str(log), *QUICK)
    assert text.returncode == 0
    assert "Ala (host): " in text.stdout and "accuracy" in text.stdout
    assert "harder to find than" in text.stdout


def test_analyze_refuses_what_it_cannot_read(cli: Cli, tmp_path: Path) -> None:
    not_a_log = tmp_path / "x.txt"
    not_a_log.write_text("hello")
    done = cli("analyze", str(not_a_log))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    refused = cli("analyze", str(LOGS / "refused.statki"), *QUICK)
    assert refused.returncode == 2 and "nothing to analyse" in refused.stderr


def test_analyze_gives_the_same_figures_on_one_core_as_on_several(cli: Cli, tmp_path: Path) -> None:
    """Its parts run side by side in processes, each with a seed of its own."""
    pair = make_pair(SMALL, seed=7)
    play(pair, seed=8)
    log = tmp_path / "small.statki"
    log.write_bytes(log_bytes(pair.host))
    alone = cli("analyze", str(log), *QUICK, "--json", "--jobs", "1")
    side_by_side = cli("analyze", str(log), *QUICK, "--json", "--jobs", "2")
    assert alone.returncode == side_by_side.returncode == 0, alone.stderr
    assert json.loads(alone.stdout) == json.loads(side_by_side.stdout)
    other_seed = cli("analyze", str(log), *QUICK[:-1], "4", "--json", "--jobs", "2")
    assert json.loads(other_seed.stdout) != json.loads(alone.stdout)


def unfinished_log(path: Path) -> Path:
    """A small game cut in its battle, its log at ``path``: the fleets never revealed."""
    pair, rng = make_pair(SMALL, seed=9), random.Random(10)
    while len(pair.host.transcript.frames) < 14:
        assert step(pair, rng)
    path.write_bytes(log_bytes(pair.host))
    return path


def test_analyze_says_how_far_it_has_got_and_when_the_log_is_unfinished(
    cli: Cli, tmp_path: Path
) -> None:
    done = cli("analyze", str(unfinished_log(tmp_path / "unfinished.statki")), *QUICK)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "statki: warning: the game in this log did not finish" in lines[0]
    assert "analysing the game: 100%" in lines


def test_analyze_says_when_the_log_is_damaged_in_polish_too(cli: Cli, tmp_path: Path) -> None:
    """The warning and every line of the text in the players' words, the figures alone
    staying figures (run in Polish: the English warning is the unfinished log's above, and
    the damage's English words are the vectors' ``truncated`` log)."""
    whole = unfinished_log(tmp_path / "unfinished.statki").read_bytes()
    cut = tmp_path / "cut.statki"
    cut.write_bytes(whole[:-30])
    done = cli("analyze", str(cut), *QUICK, "--lang", "pl")
    assert done.returncode == 0, done.stderr
    assert "statki: uwaga: zapis jest uszkodzony (zapis się urywa; całych wiadomości" in (
        done.stderr
    )
    assert "analizuję grę: 100%" in done.stderr.splitlines(), "not 'analiza (gra)'"
    lines = done.stdout.splitlines()
    # One shot by the host and two by the guest, counted as Polish counts them (not
    # "strzałów 1"; in English it was "1 shots").
    assert re.match(
        r"^\S+ \(gospodarz\): 1 strzał, celność \d+% \(w najlepsze pole: \d+\)", lines[0]
    ), lines
    assert any(re.match(r"^\S+ \(gość\): 2 strzały, celność \d+%", line) for line in lines)
    assert any(re.match(r"^  ruch +\d+ +[A-J]\d+ ", line) for line in lines)
    assert any(
        line.startswith("  flota \N{EN DASH} Ala (gospodarz): nieujawniona") for line in lines
    )


def test_a_preset_s_fleets_are_ranked_among_its_kept_random_fleets_unless_told(
    cli: Cli,
) -> None:
    log = str(LOGS / "honest-five-ships.statki")
    kept = json.loads(cli("analyze", log, "--fleet-games", "1", "--seed", "3", "--json").stdout)
    played = json.loads(cli("analyze", log, *QUICK, "--json").stdout)
    mean = round(statistics.fmean(KEPT_SHOTS["five-ships"]), 2)
    for side in kept.values():
        assert side["fleet"]["random_fleets"] == 200
        assert side["fleet"]["random_fleets_mean"] == mean
    assert {side["fleet"]["random_fleets"] for side in played.values()} == {2}


def test_a_file_that_is_no_log_is_refused_by_name_by_analyze_and_record(
    cli: Cli, tmp_path: Path
) -> None:
    """A referee's check: "statki: not a statki log" said nothing of which file."""
    junk = tmp_path / "junk.statki"
    junk.write_bytes(b"junk")
    for command in ("analyze", "record"):
        done = cli(command, str(junk))
        assert done.returncode == 2, (command, done)
        assert done.stderr.strip() == (
            f"statki: {junk}: not a statki log (no magic value at the start)"
        ), (command, done.stderr)

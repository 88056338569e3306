"""The last English a Polish player met (issue 14), each path said in Polish: the computer in
``statki history``, a ruleset that is not well formed, the battle's answer checks, the system's
own failures, the told end of a game, the daemon's refusals and the conformance report.

Each runs in this process (the ``cli`` fixture or the function a command calls), a few ms
each; the English (``str()``, ``--json``) stays what tools and logs read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from conftest import Cli
from netgames import connected, sessions
from pypdf import PdfReader
from test_cli_history import record

import statki_net.cli.main as statki_main
from statki_net.ai.computer import ComputerPlayer
from statki_net.cli.common import EXIT_BAD_INPUT, EXIT_FOUND
from statki_net.cli.lineplay import describe_rules
from statki_net.cli.netplay import _exit_status as exit_status
from statki_net.cli.netplay import told_outcomes
from statki_net.conformance.cases import all_cases
from statki_net.conformance.judging import Outcome as CaseOutcome
from statki_net.conformance.judging import Result as CaseResult
from statki_net.conformance.report import line, summary
from statki_net.game.battle import Answer, Outcome, check_answer_shape
from statki_net.game.errors import UsageError
from statki_net.game.names import COMPUTER_FINGERPRINTS
from statki_net.game.rules import CLASSIC, RulesError, Ruleset
from statki_net.game.words import N_, phrase, phrase_map
from statki_net.net import notices
from statki_net.net.bot import attach_computer
from statki_net.net.clock import WALL_CLOCK
from statki_net.net.connection import Outcome as GameOutcome
from statki_net.net.control import ControlError, _refusal
from statki_net.net.daemon import failure_line
from statki_net.protocol.endings import End, Ending
from statki_net.protocol.errors import Code
from statki_net.protocol.events import Failed
from statki_net.protocol.wire import Limits, Role
from statki_net.store.failures import SystemRefused, failed
from statki_net.store.language import LOCALE_DIR, catalog, speak
from statki_net.store.player import NAME_FILE, keep_name

POLISH = catalog("pl")


@pytest.fixture(scope="module")
def english_probes() -> list[str]:
    """For each message the catalog translates differently, its longest run of words between
    placeholders: what would show of it left in English."""
    probes = []
    with (LOCALE_DIR / "pl" / "LC_MESSAGES" / "statki.po").open("rb") as po:
        for message in read_po(po):
            msgid = message.id if isinstance(message.id, str) else message.id[0]
            string = message.string if isinstance(message.string, str) else message.string or ("",)
            string = string if isinstance(string, str) else string[0]
            probe = max((p.strip() for p in re.split(r"\{[^}]*\}", msgid)), key=len, default="")
            if len(probe) >= 12 and " " in probe and probe not in string:
                probes.append(probe)
    return probes


def no_english(text: str, probes: list[str]) -> None:
    found = [probe for probe in probes if probe in text]
    assert not found, f"English in Polish: {found}\n{text}"


def test_history_and_stats_name_the_computer_in_polish(
    cli: Cli, tmp_path: Path, english_probes: list[str]
) -> None:
    home = tmp_path / "home"
    record(home, 1, COMPUTER_FINGERPRINTS["medium"], "computer (medium)", "classic", "won")
    record(home, 2, "0b134-cfd06-cbb20-fc827", "computer (medium)", "classic", "lost")
    history = cli("--lang", "pl", "history")
    assert history.returncode == 0, history.stderr
    games = [line for line in history.stdout.splitlines() if "przeciwnik: " in line]
    assert "przeciwnik: computer (medium) [0b134-" in games[0], "a peer's own name, as it is"
    assert "przeciwnik: komputer (średni) [30f14-" in games[1], history.stdout
    assert "komputer (średni) [30f14-" in cli("--lang", "pl", "stats").stdout
    kept = json.loads(cli("--lang", "pl", "history", "--json").stdout)
    assert {row["opponent_name"] for row in kept} == {"computer (medium)"}, "tools read English"
    no_english(history.stdout, english_probes)


def test_a_verdict_names_the_computer_in_polish_and_the_json_keeps_its_english(
    cli: Cli, tmp_path: Path, english_probes: list[str]
) -> None:
    """A game lost to the computer at the line prompt (resigned after a shot), then its
    log read back by ``verify`` and ``record``: the verdict says "komputer (trudny)"."""
    played = cli(
        "--lang", "pl", "play", "--plain", "--strength", "hard", "--seed", "2", "--name", "Ala",
        stdin="\nA1\nq\nt\n",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "Sędzia: komputer (trudny, gość) wygrywa" in played.stdout, played.stdout
    (log,) = (tmp_path / "home" / "logs").glob("*.statki")
    verified = cli("--lang", "pl", "verify", str(log))
    assert "wynik: komputer (trudny, gość) wygrywa: Ala (gospodarz) się poddaje" in (
        verified.stdout
    ), verified.stdout
    said = cli("--lang", "pl", "record", str(log)).stdout
    assert "Gość: komputer (trudny) [80fe7-" in said, said
    assert "Werdykt: komputer (trudny, gość) wygrywa" in said, said
    no_english(verified.stdout + said, english_probes)
    kept = cli("--lang", "pl", "history").stdout  # the verdict as the history keeps it
    assert "komputer (trudny, gość) wygrywa" in kept, kept
    pdf = tmp_path / "record.pdf"
    assert cli("--lang", "pl", "record", "--pdf", str(pdf), str(log)).returncode == 0
    printed = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "Werdykt: komputer (trudny, gość) wygrywa" in printed, printed
    report = json.loads(cli("--lang", "pl", "verify", "--json", str(log)).stdout)
    assert "computer (hard) (guest) won" in json.dumps(report), "tools read English"


@pytest.mark.parametrize(
    "command",
    [["record", "LOG"], ["verify", "LOG"], ["history"], ["stats"]],
)
def test_a_reader_that_stops_early_ends_the_command_quietly(
    cli: Cli, tmp_path: Path, command: list[str]
) -> None:
    """``statki record LOG | head -1``: the reader gone (here: before the first byte, a pipe
    whose reading end is closed), the command exits as SIGPIPE would end it, silent."""
    played = cli("play", "--plain", "--seed", "2", stdin="\nA1\nq\ny\n")
    assert played.returncode == 0, played.stderr
    (log,) = (tmp_path / "home" / "logs").glob("*.statki")
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "statki_net", *(str(log) if w == "LOG" else w for w in command)],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            timeout=30,
            env=dict(os.environ, STATKI_HOME=str(tmp_path / "home")),
        )
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (141, ""), done.stderr


def test_a_broken_socket_is_told_though_a_broken_reader_is_not(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A broken pipe that is not standard output's (a socket whose other end left, as the
    control socket's or a peer's would) is a failure with its one line, not the quiet
    end of ``| head -1``."""

    def writes_to_a_socket_closed_at_the_other_end(args: argparse.Namespace) -> int:
        ours, theirs = socket.socketpair()
        theirs.close()
        with ours:
            ours.sendall(b"a request")  # BrokenPipeError, from the OS
        return 0

    def parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
        return argparse.Namespace(run=writes_to_a_socket_closed_at_the_other_end, home=tmp_path)

    monkeypatch.setattr(statki_main, "_parsed", parsed)
    assert statki_main.main(["--lang", "en", "history"]) == EXIT_BAD_INPUT
    assert capfd.readouterr().err == "statki: the command failed: Broken pipe\n"


@pytest.mark.parametrize(
    ("rules", "english", "polish"),
    [
        (
            {"size": 0},
            "bad rules: size must be 1-26, not 0; every ship length must be 1-0;"
            " the fleet does not fit on the board",
            "błędne zasady: rozmiar musi wynosić od 1 do 26, nie 0; długość każdego statku musi"
            " wynosić od 1 do 0; flota nie mieści się na planszy",
        ),
        (
            {"touching": "x"},
            "bad rules: 'x' is not a valid Touching",
            "błędne zasady: 'x' to niedozwolona wartość opcji Touching",
        ),
        ({"fleet": 3}, "bad rules: fleet must be a list", "błędne zasady: fleet musi być listą"),
        ([1], "rules must be a map", "zasady muszą być mapą"),
    ],
)
def test_rules_that_are_not_well_formed_are_said_in_polish(
    rules: object, english: str, polish: str
) -> None:
    with pytest.raises(RulesError) as refused:
        Ruleset.from_map(rules)  # type: ignore[arg-type]
    assert str(refused.value) == english, "the wire and the logs keep the English"
    assert refused.value.in_words(POLISH) == polish


def test_the_battles_answer_checks_are_said_in_polish() -> None:
    with pytest.raises(UsageError) as refused:
        check_answer_shape(CLASSIC, (0, 1), Answer((Outcome.MISS,), hits=0, sunk=0))
    assert str(refused.value) == "the answer must give one outcome per shot"
    assert refused.value.in_words(POLISH) == "odpowiedź musi podać jeden wynik na każdy strzał"


def test_what_the_system_refused_names_what_statki_was_doing_in_polish(tmp_path: Path) -> None:
    (tmp_path / NAME_FILE).mkdir()  # a folder where the name is kept
    with pytest.raises(SystemRefused) as refused:
        keep_name(tmp_path, "Ala")
    said = refused.value.in_words(POLISH)
    assert said.startswith("zapamiętanie imienia gracza nie powiodło się: "), said
    assert str(refused.value).startswith("keeping the player's name failed: "), "English"
    denied = PermissionError(13, "Permission denied", "/x")
    assert failed("the command", denied).in_words(POLISH) == (
        "polecenie nie powiodło się: Permission denied: /x"
    ), "the system's own words, as they are"


def test_a_key_that_cannot_be_read_is_one_polish_line(cli: Cli, tmp_path: Path) -> None:
    """``statki id`` over a home whose key is a folder (the system refuses to read it)."""
    key = tmp_path / "home" / "identity.pem"
    key.mkdir(parents=True)
    os.chmod(key, stat.S_IRWXU)
    done = cli("--lang", "pl", "id")
    assert done.returncode == 2
    assert done.stderr.startswith("statki: odczytanie klucza gracza nie powiodło się: "), done


@pytest.mark.parametrize(("language", "said"), [("en", "end: forfeit"), ("pl", "koniec: walkower")])
def test_the_told_end_of_a_game_without_a_verdict_is_a_word_of_the_players_language(
    capsys: pytest.CaptureFixture[str], language: str, said: str
) -> None:
    ending = Ending(End.FORFEIT, Role.HOST, frozenset({Role.GUEST}))
    speak(language)
    try:
        told_outcomes([GameOutcome(ending, Role.HOST, 0, 0, None, None, "game")])
    finally:
        speak("en")
    assert capsys.readouterr().out.splitlines() == [said]


def test_the_daemons_refusal_is_said_in_polish_and_its_english_line_stays() -> None:
    with pytest.raises(UsageError) as caught:
        check_answer_shape(CLASSIC, (0, 1), Answer((Outcome.MISS,), hits=0, sunk=0))
    refused = caught.value
    reply = {"ok": False, "error": str(refused), "said": phrase_map(refused.as_phrase())}
    assert ControlError(_refusal(reply)).in_words(POLISH) == refused.in_words(POLISH)
    assert str(ControlError(_refusal({"ok": False, "error": "older  daemon"}))) == "older daemon"
    odd = {"ok": False, "error": "plain", "said": {"text": 3}}
    assert str(ControlError(_refusal(odd))) == "plain", "a said that does not read: the line"
    assert ControlError(_refusal({"ok": False})).in_words(POLISH) == "demon odmówił"


def test_the_conformance_reports_frame_is_polish_and_its_cases_quote_the_spec() -> None:
    case = all_cases()[0]
    failed_case = CaseResult(case, CaseOutcome.FAIL, "a refusal", "nothing", ("late",), 1.0)
    shown = line(failed_case, POLISH)
    assert shown.startswith(f"BŁĄD  {case.id}  (SPEC {case.section})  {case.title}")
    assert "\n      oczekiwane: a refusal\n      zaobserwowane: nothing\n      - late" in shown
    assert summary([failed_case], POLISH) == (
        "zgodność: przypadki: 1; zgodne: 0, niezgodne: 1, informacyjne: 0"
    )
    assert summary([failed_case]).startswith("conformance: 1 cases: 0 pass, 1 fail")


def test_a_host_the_invite_does_not_name_is_refused_in_polish(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The one line ``statki join`` ends with (``_exit_status``), in the player's words."""
    said = phrase(N_("the host's key is not the key in the invite: refusing to play"))
    failure = Failed(Code.WRONG_KEY, str(said), by_peer=False, said=said)
    speak("pl")
    try:
        assert exit_status(None, failure, None) == EXIT_FOUND
    finally:
        speak("en")
    polish = said.in_words(POLISH)
    assert polish.startswith("klucz gospodarza"), polish
    assert capsys.readouterr().err == f"statki: {polish}\n"
    assert Failed(Code.WRONG_KEY, "a peer's own words", True).detail_in(POLISH) == (
        "a peer's own words"
    )


def test_a_local_failure_stops_the_game_in_english_on_the_wire_and_in_polish_for_its_player() -> (
    None
):
    """A failure of this side's own (here a listener the system refuses a file) stops the
    game with ``internal``: the error frame's detail is English for the peer and the log;
    the player reads it through ``failed``, in Polish, not as ``PermissionError: [Errno 13]``."""
    host, guest = sessions(CLASSIC, seed=5)

    told: list[object] = []

    def refused(notice: object) -> None:
        told.append(notice)
        if len(told) == 1:  # once: the game's end is told as any end is
            raise PermissionError(13, "Permission denied", "/x")

    async def game() -> tuple[GameOutcome, GameOutcome]:
        async with connected(host, guest, clock=WALL_CLOCK) as (host_conn, guest_conn, __):
            host_conn.listeners.append(refused)
            attach_computer(guest_conn, ComputerPlayer("random", random.Random(1)))
            return await asyncio.wait_for(
                asyncio.gather(host_conn.run(), guest_conn.run()), timeout=20
            )

    mine, theirs = asyncio.run(game())
    assert mine.failure is not None and mine.failure.code is Code.INTERNAL, mine
    assert mine.failure.detail == "playing the game failed: Permission denied: /x"
    assert mine.failure.detail_in(POLISH) == (
        "rozgrywanie gry nie powiodło się: Permission denied: /x"
    )
    assert theirs.failure is not None and theirs.failure.detail == mine.failure.detail
    assert theirs.failure.detail_in(POLISH) == mine.failure.detail, "a peer's words, as sent"


def test_the_daemons_log_line_for_a_game_it_stopped_is_in_the_operators_language() -> None:
    said = failed(N_("playing the game"), ValueError("a bug"))
    assert str(said) == "playing the game failed: ValueError: a bug", "the front ends' English"
    speak("pl")
    try:
        line = failure_line(3, said)
    finally:
        speak("en")
    assert line == "demon statki: gra 3: rozgrywanie gry nie powiodło się: ValueError: a bug"


def test_a_folder_of_logs_is_counted_and_set_apart_in_polish(
    cli: Cli, tmp_path: Path, english_probes: list[str]
) -> None:
    """``verify`` on a folder counts games as Polish counts them (``2 nieważne``, not
    ``2 nieważna``); ``tournament`` names the sides of a log that names nobody by their
    roles, and statki's computer, in Polish."""
    played = cli("play", "--plain", "--strength", "hard", "--seed", "2", stdin="\nA1\nq\ny\n")
    assert played.returncode == 0, played.stderr
    logs = tmp_path / "home" / "logs"
    (logs / "cut.statki").write_bytes(next(logs.glob("*.statki")).read_bytes()[:300])
    (logs / "junk.statki").write_bytes(b"junk")
    verified = cli("--lang", "pl", "verify", str(logs))
    assert " ".join(verified.stdout.split()).endswith(": 1 ważna, 2 nieważne"), verified.stdout
    table = cli("--lang", "pl", "tournament", str(logs)).stdout
    assert "gospodarz \N{EN DASH} gość: " in table, table
    assert "  komputer (trudn" in table and "computer" not in table, table
    no_english(verified.stdout + table, english_probes)
    english = " ".join(cli("verify", str(logs)).stdout.split())  # wrapped at the width
    assert english.endswith(": 1 valid, 2 invalid"), english


def test_the_rules_a_guest_is_asked_to_take_are_said_in_the_players_words() -> None:
    """The line prompt's proposal named the options by their values ("touching none;
    turns chain"), English in either language."""
    proposal = notices.Rules(CLASSIC, Limits(), None)
    assert describe_rules(proposal)[0].startswith(
        "rules: classic (fleet 4,3,3,2,2,2,1,1,1,1; no touching; a hit earns another shot); "
    )
    speak("pl")
    try:
        said = describe_rules(proposal)[0]
    finally:
        speak("en")
    assert said.startswith(
        "zasady: classic (flota 4,3,3,2,2,2,1,1,1,1; bez stykania; po trafieniu kolejny strzał)"
    ), said

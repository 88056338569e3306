"""Every subcommand against odd inputs: one line and a documented exit status, never a
traceback, never a hang.

The commands come from the registry (``statki_net.cli.commands.COMMANDS``): each
gets the bad-argument cases by itself, and ``QUICK`` must say for each how it
runs quickly (or why it cannot in this process), so a new command fails here
until it is placed.  Files the user names and homes gone wrong run in this
process (the ``cli`` fixture); closed standard input and signals in real
processes, where they are what is tested.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Cli, Finished
from netproc import env_for, line_starting, start, stop

from statki_net.cli import bench, fleet, verify
from statki_net.cli.commands import COMMANDS
from statki_net.store import userfile

LOGS = Path(__file__).resolve().parents[2] / "protocol" / "logs"

DOCUMENTED = {0, 1, 2}
"""Exit statuses README documents for a command that ran to its end (130/143: signals)."""
SECONDS = 10.0
"""Longest any one odd case may take: far past what each needs, far short of a hang."""
SMALL_LIMIT = 4096
"""The file-size bounds, lowered so that an oversized file is a small one."""

QUICK: dict[str, list[str] | None] = {
    "fleet": ["fleet", "random", "--seed", "1"],
    "play": ["play", "--plain", "--rules", "classic"],
    "selfplay": None,  # keeps no home; its --log-dir is in FILE_ARGS
    "host": ["host", "--plain", "--port", "70000"],  # refused after the home is opened
    "join": ["join", "127.0.0.1:1"],  # the home and key, then a refused connection
    "daemon": ["daemon", "--move-timeout", "1"],  # the home and key, then refused limits
    "verify": None,  # keeps no home; its files are in FILE_ARGS
    "id": ["id"],
    "history": ["history"],
    "stats": ["stats"],
    "bench": None,  # keeps no home; its --merge files are in FILE_ARGS
    "analyze": None,  # keeps no home; its log is in FILE_ARGS
    "resume": ["resume"],  # lists the unfinished games of the home
    "doctor": ["doctor"],  # its addresses; the router is not asked ($STATKI_NO_MAP)
    "tournament": None,  # keeps no home; its logs and rules file are in FILE_ARGS
    "sheet": None,  # keeps no home; its output is in FILE_ARGS
    "record": None,  # keeps no home; its log and PDF are in FILE_ARGS
    "conformance": None,  # keeps no home; its --html file is in FILE_ARGS
}
"""Each command run quickly against its home; None where it keeps none (the reason says)."""

FILE_ARGS: dict[str, list[str]] = {
    "verify": ["verify", "{file}"],
    "analyze": ["analyze", "{file}"],
    "record": ["record", "{file}"],
    "tournament": ["tournament", "{file}"],
    "tournament --config": ["tournament", str(LOGS), "--config", "{file}"],
    "sheet -o": ["sheet", "-o", "{file}"],
    "record --pdf": ["record", str(LOGS / "honest-short.statki"), "--pdf", "{file}"],
    "fleet check": ["fleet", "check", "{file}"],
    "bench --merge": ["bench", "ai", "--merge", "{file}"],
    "host --fleet": ["host", "--plain", "--port", "70000", "--fleet", "{file}"],
    "join --fleet": ["join", "--fleet", "{file}", "127.0.0.1:1"],
    "selfplay --log-dir": ["selfplay", "--games", "1", "--log-dir", "{file}"],
    "conformance --html": ["conformance", "--case", "none", "--html", "{file}"],
}
"""Every argument naming a file or folder the user gives."""

Make = Callable[[Path], str]


def _missing(tmp: Path) -> str:
    return str(tmp / "nowhere" / "no-such.file")


def _folder(tmp: Path) -> str:
    (tmp / "a-folder").mkdir()
    return str(tmp / "a-folder")


def _fifo(tmp: Path) -> str:
    os.mkfifo(tmp / "a-fifo")  # nobody writes to it: it must not hang the command
    return str(tmp / "a-fifo")


def _oversized(tmp: Path) -> str:
    path = tmp / "big"
    path.write_bytes(b"A1\n" * SMALL_LIMIT)
    return str(path)


def _binary(tmp: Path) -> str:
    path = tmp / "binary"
    path.write_bytes(bytes(range(256)) * 4)
    return str(path)


def _empty(tmp: Path) -> str:
    (tmp / "empty").write_bytes(b"")
    return str(tmp / "empty")


def _unreadable(tmp: Path) -> str:
    path = tmp / "unreadable"
    path.write_text("A1\n")
    path.chmod(0)
    return str(path)


def _link_loop(tmp: Path) -> str:
    (tmp / "loop").symlink_to(tmp / "loop")
    return str(tmp / "loop")


FILES: dict[str, Make] = {
    "missing": _missing,
    "a folder": _folder,
    "a FIFO": _fifo,
    "oversized": _oversized,
    "binary": _binary,
    "empty": _empty,
    "unreadable": _unreadable,
    "a link to itself": _link_loop,
    "/dev/null": lambda _: "/dev/null",
    "/dev/zero": lambda _: "/dev/zero",
}


def _corrupt_database(home: Path) -> None:
    home.mkdir(mode=0o700)
    (home / "history.sqlite3").write_bytes(b"this is not a database\n" * 200)


def _home_is_a_file(home: Path) -> None:
    home.write_text("not a folder")


def _read_only_home(home: Path) -> None:
    home.mkdir(mode=0o500)


def _key_is_a_folder(home: Path) -> None:
    (home / "identity.pem").mkdir(parents=True)
    home.chmod(0o700)


def _key_is_garbage(home: Path) -> None:
    home.mkdir(mode=0o700)
    (home / "identity.pem").write_bytes(b"\x00" * 100)


HOMES: dict[str, Callable[[Path], None]] = {
    "a corrupt database": _corrupt_database,
    "a home that is a file": _home_is_a_file,
    "a read-only home": _read_only_home,
    "a key that is a folder": _key_is_a_folder,
    "a key that is garbage": _key_is_garbage,
}


def _no_traceback(result: Finished | subprocess.CompletedProcess[str], took: float) -> None:
    assert "Traceback (most recent call last)" not in result.stderr, result.stderr
    assert took < SECONDS, f"took {took:.1f} s: a hang, or nearly"


@pytest.fixture
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounds a few KiB large, and a FIFO given up on in a twentieth of a second (every
    FIFO case waits it out in full: nobody writes to the FIFO)."""
    monkeypatch.setattr(userfile, "STREAM_SECONDS", 0.05)
    for module, name in (
        (verify, "MAX_LOG_BYTES"),  # analyze and record read their log through verify's
        (fleet, "MAX_FLEET_TEXT"),
        (bench, "MAX_SHARD"),
    ):
        monkeypatch.setattr(module, name, SMALL_LIMIT)


def test_every_command_is_placed_in_the_table() -> None:
    assert set(QUICK) == {command.name for command in COMMANDS}
    named = {case.split()[0] for case in FILE_ARGS}
    for name, quick in QUICK.items():
        assert quick is not None or name in named, f"{name}: no case runs it"


@pytest.mark.parametrize("name", [command.name for command in COMMANDS])
@pytest.mark.parametrize(
    "arguments",
    [["--no-such-option"], ["--rules", "chess", "stray-word"], ["--help"]],
    ids=["unknown option", "bad values", "help"],
)
def test_bad_arguments(cli: Cli, name: str, arguments: list[str]) -> None:
    started = time.monotonic()
    result = cli(name, *arguments)
    _no_traceback(result, time.monotonic() - started)
    assert result.returncode == (0 if arguments == ["--help"] else 2)
    if arguments == ["--no-such-option"]:  # the command's own usage, whose options it takes
        assert f"usage: statki {name} " in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("arguments", "blamed"),
    [
        (["fleet", "check", "--bogus", "f"], "statki fleet check"),
        (["--bogus", "play"], "statki"),
        (["play", "--bogus"], "statki play"),
    ],
)
def test_a_word_nobody_takes_is_blamed_on_the_command_it_followed(
    cli: Cli, arguments: list[str], blamed: str
) -> None:
    """The innermost command named before it, not the one named after it (``statki
    --bogus play`` named ``statki play``) nor its parent (``statki fleet check`` got
    ``statki fleet``'s usage).  In process, a few ms each."""
    result = cli(*arguments)
    assert result.returncode == 2
    assert f"{blamed}: error: unrecognized arguments: --bogus" in result.stderr, result.stderr


@pytest.mark.parametrize("kind", list(FILES))
@pytest.mark.parametrize("case", list(FILE_ARGS))
@pytest.mark.usefixtures("small_bounds")
def test_odd_files(cli: Cli, tmp_path: Path, case: str, kind: str) -> None:
    path = FILES[kind](tmp_path)
    arguments = [word.replace("{file}", path) for word in FILE_ARGS[case]]
    started = time.monotonic()
    result = cli(*arguments)
    _no_traceback(result, time.monotonic() - started)
    assert result.returncode in DOCUMENTED
    if result.returncode == 2:
        assert result.stderr.strip(), "a refusal says why"
        assert len(result.stderr.strip().splitlines()) <= 2, result.stderr


@pytest.mark.parametrize("home_kind", list(HOMES))
@pytest.mark.parametrize("name", [name for name, quick in QUICK.items() if quick is not None])
def test_odd_homes(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, home_kind: str
) -> None:
    home = tmp_path / "odd-home"
    HOMES[home_kind](home)
    monkeypatch.setenv("STATKI_HOME", str(home))
    quick = QUICK[name]
    assert quick is not None
    started = time.monotonic()
    result = cli(*quick)
    _no_traceback(result, time.monotonic() - started)
    assert result.returncode in DOCUMENTED
    if home.is_dir():
        home.chmod(0o700)  # so that tmp_path can be cleaned up


# ---------------------------------------------------------------- real processes


def _process(
    tmp_path: Path, *args: str, stdin: int | None, python: bool = False, **options: object
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``statki ARGS`` in a process (``python ARGS`` with ``python``); its result and time."""
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, *(args if python else ("-m", "statki_net", *args))],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=SECONDS * 2,
        env=env_for(tmp_path / "home"),
        **options,  # type: ignore[call-overload]
    )
    return result, time.monotonic() - started


def _close_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize(
    "args", [["play", "--plain"], ["fleet", "check", "-"]], ids=["play", "fleet check"]
)
@pytest.mark.parametrize("stdin", ["closed", "write-only"])
def test_standard_input_closed_or_unreadable(tmp_path: Path, args: list[str], stdin: str) -> None:
    if stdin == "closed":
        result, took = _process(tmp_path, *args, stdin=None, preexec_fn=_close_stdin)
    else:
        with open(tmp_path / "write-only", "wb") as sink:
            result, took = _process(tmp_path, *args, stdin=sink.fileno())
    _no_traceback(result, took)
    # play resigns at the end of its input; fleet check has no fleet to read.
    assert result.returncode == (0 if args[0] == "play" else 2), result.stderr


CTRL_C_AT_IMPORT = """
import os, runpy, signal, sys

class CtrlC:
    \"\"\"Ctrl-C, pressed just as one module starts to load.\"\"\"

    def find_spec(self, name, path=None, target=None):
        if name == TARGET:
            os.kill(os.getpid(), signal.SIGINT)
        return None

TARGET = sys.argv[1]
sys.meta_path.insert(0, CtrlC())
sys.argv = ["statki", "verify", "none.statki"]
runpy.run_module("statki_net", run_name="__main__")
"""


@pytest.mark.parametrize(
    "module",
    ["statki_net.cli.commands", "statki_net.cli.verify", "statki_net.referee.judging"],
    ids=["main's imports", "the command's module", "deep in the referee"],
)
def test_ctrl_c_during_start_up(tmp_path: Path, module: str) -> None:
    """SIGINT while the command still loads its modules: one line and 130, no traceback.

    (Ctrl-C before Python has imported ``site`` is Python's own start-up, before
    any of statki runs; so the signal is sent here as a chosen module loads.)
    """
    result, took = _process(tmp_path, "-c", CTRL_C_AT_IMPORT, module, stdin=None, python=True)
    _no_traceback(result, took)
    assert (result.returncode, result.stderr) == (130, "statki: interrupted\n")


def test_sigterm_to_a_game_at_the_line_prompt(tmp_path: Path) -> None:
    """The host waits at its prompt; SIGTERM ends it as Ctrl-C would: 143, one line, and the
    game forfeited by an error the guest's log shows."""
    host = start(tmp_path / "h", "host", "--plain", "--port", "0", stdin="")
    seen: list[str] = []
    line_starting(host, "listening on", seen)
    invite = line_starting(host, "statki://", seen)
    guest = start(tmp_path / "g", "join", "--bot", "random", invite)
    try:
        line_starting(host, "# ship", seen)  # the boards, printed as the battle begins
        time.sleep(0.5)  # a shot either way, then the host sits at its prompt
        host.send_signal(signal.SIGTERM)
        _, err = host.communicate(timeout=SECONDS)
        assert host.returncode == 143 and "Traceback" not in err, err
        assert err.strip().splitlines()[-1] == "statki: terminated"
        out, guest_err = guest.communicate(timeout=SECONDS)
        assert "Traceback" not in guest_err and "you won (forfeit)" in out, out + guest_err
    finally:
        stop(guest)
        stop(host)


def test_sigterm_to_a_daemon_with_a_front_end_and_a_game(tmp_path: Path) -> None:
    """A daemon playing a game and watched by a front end stops cleanly on SIGTERM."""
    home = tmp_path / "d"
    daemon = start(home, "daemon", "--listen", "127.0.0.1:0", "--bot", "random")
    others: list[subprocess.Popen[str]] = []
    try:
        port = line_starting(daemon, "listening on 127.0.0.1:", []).rsplit(":", 1)[1]
        line_starting(daemon, "control socket", [])
        # A front end hosting through the daemon: its control client stays connected.
        front = start(home, "host", "--plain", stdin="")
        others.append(front)
        invite = line_starting(front, "statki://", [])
        # A guest of the front end's game (the daemon says its invite-only hello to every
        # guest while that game waits, SPEC.md section 3), waiting at its prompt.
        _, rest = invite.removeprefix("statki://").split("/", 1)
        loopback = f"statki://127.0.0.1:{port}/{rest}"
        guest = start(tmp_path / "g", "join", "--plain", loopback, stdin="")
        others.append(guest)
        line_starting(guest, "who shoots first", [])  # then it asks, and waits
        time.sleep(0.3)
        daemon.send_signal(signal.SIGTERM)
        _, err = daemon.communicate(timeout=SECONDS * 2)
        assert daemon.returncode == 0 and "Traceback" not in err, err
        assert "Error" not in err and "Exception" not in err, err
        for process in others:
            _, process_err = process.communicate(timeout=SECONDS)
            assert "Traceback" not in process_err, process_err
    finally:
        for process in [daemon, *others]:
            stop(process)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_to_a_game_against_the_computer(tmp_path: Path, sig: signal.Signals) -> None:
    """Mid-game at the line prompt, no event loop: the game is resigned and recorded."""
    home = tmp_path / "home"
    game = start(home, "play", "--plain", "--rules", "classic", stdin="")
    assert game.stdin is not None
    game.stdin.write("\nA1\n")  # start the battle, one shot; then it waits at the prompt
    game.stdin.flush()
    try:
        line_starting(game, "Shots: you 1", [])  # the board after my shot
        time.sleep(0.3)
        game.send_signal(sig)
        _, err = game.communicate(timeout=SECONDS)
    finally:
        stop(game)
    words = "interrupted" if sig is signal.SIGINT else "terminated"
    assert (game.returncode, err) == (128 + sig, f"statki: {words}\n")
    history = subprocess.run(
        [sys.executable, "-m", "statki_net", "history"],
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env=env_for(home),
    )
    assert "lost (you resigned)" in history.stdout, history.stdout


@pytest.mark.parametrize("stdin", ["closed", "/dev/null"])
def test_a_host_at_the_line_prompt_with_no_input_resigns(tmp_path: Path, stdin: str) -> None:
    """No standard input (closed, or /dev/null, which the event loop cannot wait on): the
    host plays until its turn, then resigns at the end of its input, as play --plain does."""
    options: dict[str, object] = (
        {"stdin": None, "preexec_fn": _close_stdin}
        if stdin == "closed"
        else {"stdin": subprocess.DEVNULL}
    )
    host = subprocess.Popen(
        [sys.executable, "-m", "statki_net", "host", "--plain", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(tmp_path / "h"),
        **options,  # type: ignore[call-overload]
    )
    guest = None
    try:
        invite = line_starting(host, "statki://", [])
        guest = start(tmp_path / "g", "join", "--bot", "random", invite)
        out, err = host.communicate(timeout=SECONDS * 2)
        assert "Traceback" not in err and host.returncode == 0, err
        assert "no more input: resigning" in out and "you lost: you resigned" in out, out
    finally:
        stop(host)
        if guest is not None:
            stop(guest)


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time process ``pid`` has used (None once it is gone): unlike the wall clock,
    it does not stretch when the machine is loaded."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


WORKERS = 2
"""The analysis' worker processes in the Ctrl-C test."""


def test_ctrl_c_stops_an_analysis_at_once(tmp_path: Path) -> None:
    """Ctrl-C during ``statki analyze``: it waited for the parts its workers had begun
    (seconds of CPU each here, minutes for a long game); now it stops them.  SIGINT
    reaches the command once its workers run (a terminal's Ctrl-C reaches them too;
    they leave it to the command).  What the workers compute after it is measured in
    CPU time, which a loaded machine does not stretch.  Costs a process start and
    about a second of the analysis."""
    quick = ["--jobs", str(WORKERS), "--reference-fleets", "1", "--fleet-games", "1"]
    log = str(LOGS / "honest-classic.statki")
    process = subprocess.Popen(
        [sys.executable, "-m", "statki_net", "analyze", log, *quick],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env_for(tmp_path),
    )
    try:
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
        # Every worker, each measured: the pool starts them one after the other, and the
        # first read may find one.  A process start takes 6 s at a load of 14: 40 s for it.
        deadline = time.monotonic() + 40
        while len(workers := [int(pid) for pid in children.read_text().split()]) < WORKERS:
            assert time.monotonic() < deadline, f"{len(workers)} of {WORKERS} workers started"
            time.sleep(0.05)
        time.sleep(0.5)  # the workers are at their parts
        used = {pid: _cpu_seconds(pid) or 0.0 for pid in workers}
        process.send_signal(signal.SIGINT)
        at_signal = dict(used)
        deadline = time.monotonic() + 15
        while process.poll() is None and time.monotonic() < deadline:
            for pid in workers:
                used[pid] = _cpu_seconds(pid) or used[pid]
            time.sleep(0.02)
        _, err = process.communicate(timeout=SECONDS)
    finally:
        stop(process)
    after = sum(used[pid] - at_signal[pid] for pid in workers)
    assert after < 1.0, f"the workers computed on for {after:.1f} s of CPU after Ctrl-C"
    assert (process.returncode, err) == (130, "statki: interrupted\n")

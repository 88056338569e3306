import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from statki_net.cli.main import main
from statki_net.store import language

# CI runs the same examples every time, so a red run can be rerun and a green
# one means the same; a developer's run explores new examples each time.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# A shell that starts the suite in the background (``./test.sh &`` in a script) has it
# ignore Ctrl-C, and the processes the tests start would inherit that: the tests that press
# Ctrl-C on statki would see it ignored.  A handler of Python's own is reset, not inherited,
# when a process starts another program.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# No test asks a router for a port mapping unless it means to: the search is multicast on
# the machine's own network, where no router of ours is.  Processes the tests start inherit
# it; tests/net/test_nat.py takes it away inside its own network namespaces.
os.environ["STATKI_NO_MAP"] = "1"

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test speaks English unless it asks for Polish: whatever the developer's locale
    (the commands read LC_ALL first), and whatever language the test before it chose."""
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    yield
    language.speak("en")


@pytest.fixture
def statki(tmp_path: Path) -> Run:
    """Run the real ``statki`` command in a subprocess with its own STATKI_HOME.

    For what only a process shows: its exit status, its standard input, signals,
    processes meeting over TCP.  Where what a command prints and returns is the
    point, ``cli`` runs the same command in this process, without the start-up.
    """

    def run(
        *args: str, stdin: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, STATKI_HOME=str(tmp_path / "home"), NO_COLOR="1")
        return subprocess.run(
            [sys.executable, "-m", "statki_net", *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )

    return run


@dataclass(frozen=True)
class Finished:
    """What one command left behind: its exit status and everything it printed."""

    returncode: int
    stdout: str
    stderr: str


Cli = Callable[..., Finished]


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run ``statki``'s ``main`` in this process, as ``statki`` would in a subprocess.

    The same home (``tmp_path / "home"`` through STATKI_HOME), NO_COLOR, the
    given standard input (else an empty one), and argparse's exits turned into
    the status a process would have had.
    """
    monkeypatch.setenv("STATKI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("NO_COLOR", "1")

    def run(*args: str, stdin: str | None = None) -> Finished:
        capsys.readouterr()  # what the test printed before is not the command's
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        try:
            status = main(list(args))
        except SystemExit as exit:
            status = exit_status(exit)
        out, err = capsys.readouterr()
        return Finished(status, out, err)

    return run


def exit_status(exit: SystemExit) -> int:
    """The status a process ends with on ``exit``; a message goes to stderr as Python's would."""
    if exit.code is None or isinstance(exit.code, int):
        return exit.code or 0
    print(exit.code, file=sys.stderr)
    return 1

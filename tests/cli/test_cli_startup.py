"""The command line loads only the command it runs."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from peers import log_bytes, make_pair, play

from statki_net.cli.commands import COMMANDS, Command, adder
from statki_net.game.rules import PRESETS


@pytest.mark.parametrize("command", COMMANDS, ids=[c.name for c in COMMANDS])
def test_each_command_is_added_by_the_module_the_registry_names(command: Command) -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers()
    adder(command)(commands)
    assert command.name in commands.choices


def test_help_loads_no_command_module() -> None:
    probe = (
        "import contextlib, io, sys\n"
        "from statki_net.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "assert 'verify' in out.getvalue() and 'check game logs' in out.getvalue()\n"
        "costly = ('dataclasses', 'inspect', 'typing')\n"
        "names = [m for m in sys.modules if m.startswith('statki_net') or m in costly]\n"
        "print(' '.join(sorted(names)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    heavy = [m for m in loaded if m.split(".")[1:2] in (["protocol"], ["referee"], ["ai"], ["net"])]
    assert heavy == [], f"statki --help imported {heavy}"
    assert "statki_net.cli.verify" not in loaded
    # A sixth of its start-up (bench/startup.py): the words' dataclasses are not needed to
    # speak, only their plain English (statki_net.game.english).
    assert {"dataclasses", "inspect", "typing"}.isdisjoint(loaded), "statki --help loads them"


def test_a_game_loads_the_router_library_only_to_ask_a_router() -> None:
    """async-upnp-client (with aiohttp) costs about half a second of every start of host, join,
    play and the daemon: only a port mapping that searches for a router needs it."""
    probe = (
        "import sys\n"
        "import statki_net.cli.netplay, statki_net.cli.daemon, statki_net.cli.resume\n"
        "import statki_net.net.portmap\n"
        "heavy = ('aiohttp', 'async_upnp_client')\n"
        "print(' '.join(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    assert loaded == []


def test_verify_loads_only_what_judging_a_log_needs(tmp_path: Path) -> None:
    """Each library below costs a one-log verify's start-up milliseconds (bench/startup.py)
    and judging an honest log needs none of them: SQLite is the home's history, reached from
    the files' failures only when a file fails; the rules in words are for people (the log's
    rules are named by ``combination_name``); the rest are games, the daemon and screens."""
    pair = make_pair(PRESETS["classic"], seed=3)
    play(pair, seed=4, resign_at=5)
    log = tmp_path / "one.statki"
    log.write_bytes(log_bytes(pair.host))
    probe = (
        "import contextlib, io, sys\n"
        "from statki_net.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    status = main(['verify', {str(log)!r}])\n"
        "assert status == 0 and 'standing: valid' in out.getvalue(), out.getvalue()\n"
        "print(' '.join(sys.modules))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=30
    ).stdout.split()
    unneeded = (
        "sqlite3",
        "asyncio",
        "prompt_toolkit",
        "statki_net.net",
        "statki_net.ai",
        "statki_net.game.rules_words",
    )
    assert [m for m in loaded if m.startswith(unneeded)] == []


def _commands_parsed(argv: list[str]) -> set[str]:
    from statki_net.cli.main import build_parser

    (commands,) = (
        action
        for action in build_parser(argv)._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return set(commands.choices)


@pytest.mark.parametrize(
    "argv", [["verify", "x.statki"], ["--home", "d", "verify"], ["--lang=pl", "verify", "--help"]]
)
def test_a_command_builds_no_parser_of_the_others(argv: list[str]) -> None:
    assert _commands_parsed(argv) == {"verify"}


@pytest.mark.parametrize("argv", [["-h", "verify"], ["--he", "verify"], ["--bogus", "verify"], []])
def test_what_can_show_every_command_has_them_all(argv: list[str]) -> None:
    assert _commands_parsed(argv) == {command.name for command in COMMANDS}
